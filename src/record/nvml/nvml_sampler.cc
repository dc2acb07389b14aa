#include "record/nvml/nvml_sampler.h"

#include <pwd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include <fmt/format.h>

namespace gpuwhy::record {

using namespace nvml;  // NOLINT: the hand-declared C API

namespace {

constexpr int64_t kGpmMinGapNs = 100 * kNsPerMs;  // "greater than 100ms" between GPM samples

// The GPM metrics gpuwhy asks for, in one nvmlGpmMetricsGet call.
struct GpmWanted {
  unsigned id;
  Metric metric;
  double scale;  // percent -> ratio, MiB/s -> bytes/s
};
constexpr double kMiB = 1024.0 * 1024.0;
constexpr GpmWanted kGpmWanted[] = {
    {kGpmGraphicsUtil, Metric::kGrEngineActive, 0.01},
    {kGpmSmUtil, Metric::kSmActive, 0.01},
    {kGpmSmOccupancy, Metric::kSmOccupancy, 0.01},
    {kGpmAnyTensorUtil, Metric::kTensorActive, 0.01},
    {kGpmDramBwUtil, Metric::kDramActive, 0.01},
    {kGpmFp64Util, Metric::kFp64Active, 0.01},
    {kGpmFp32Util, Metric::kFp32Active, 0.01},
    {kGpmFp16Util, Metric::kFp16Active, 0.01},
    {kGpmPcieTxPerSec, Metric::kPcieTxBytesPerS, kMiB},
    {kGpmPcieRxPerSec, Metric::kPcieRxBytesPerS, kMiB},
    {kGpmNvlinkTotalTxPerSec, Metric::kNvlinkTxBytesPerS, kMiB},
    {kGpmNvlinkTotalRxPerSec, Metric::kNvlinkRxBytesPerS, kMiB},
};
constexpr size_t kGpmWantedCount = sizeof(kGpmWanted) / sizeof(kGpmWanted[0]);

bool IsGpmMetric(Metric m) {
  for (const auto& w : kGpmWanted) {
    if (w.metric == m) return true;
  }
  return false;
}

double ValueToDouble(nvmlValueType_t t, const nvmlValue_t& v) {
  switch (t) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return static_cast<double>(v.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return static_cast<double>(v.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return static_cast<double>(v.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v.usVal;
    default: return kMissingF64;
  }
}

int64_t ClockUs(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// Unsupported for good: the probe answer that stops further calls.
bool IsPermanentlyUnsupported(nvmlReturn_t r) {
  return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
         r == NVML_ERROR_NO_PERMISSION;
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (f) std::getline(f, line);
  return line;
}

std::string UserOfPid(int32_t pid) {
  struct stat st {};
  if (stat(fmt::format("/proc/{}", pid).c_str(), &st) != 0) return "";
  passwd pw{};
  passwd* res = nullptr;
  char buf[1024];
  if (getpwuid_r(st.st_uid, &pw, buf, sizeof buf, &res) == 0 && res) return res->pw_name;
  return std::to_string(st.st_uid);
}

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

}  // namespace

struct NvmlSampler::DeviceState {
  nvmlDevice_t handle = nullptr;
  int32_t index = 0;
  size_t info_slot = 0;
  bool lost = false;
  std::string lost_reason;
  std::array<bool, kMetricCount> supported{};
  std::array<int32_t, kMetricCount> probe_status{};
  // Driver sample buffer (GetSamples) per type: 0 = GPU util, 1 = memory util.
  bool samples_ok[2] = {false, false};
  unsigned long long last_seen_us[2] = {0, 0};
  int64_t last_new_mono_ns[2] = {kMissingI64, kMissingI64};  // when a new buffer sample came
  int64_t util_period_ns = kMissingI64;
  std::vector<nvmlSample_t> sample_buf;
  int clock_domain = -1;  // 0 realtime, 1 monotonic, 2 boottime
  // Processes.
  std::vector<unsigned char> proc_buf;
  size_t proc_stride = 0;  // bytes per record once known
  bool proc_util_ok = true;
  unsigned long long proc_util_last_us = 0;
  std::vector<nvmlProcessUtilizationSample_t> proc_util_buf;
  bool mps_ok = true;
  bool mem_v2 = false;  // nvmlDeviceGetMemoryInfo_v2 answered the probe
  // GPM ping-pong.
  nvmlGpmSample_t gpm_prev = nullptr;
  nvmlGpmSample_t gpm_cur = nullptr;
  bool gpm_have_prev = false;
  int64_t gpm_prev_ns = kMissingI64;
  bool gpm_checked = false;
  // Last values of slow and GPM readings (carried between reads).
  std::array<Reading, kMetricCount> carried{};
  std::vector<ProcessInfo> last_processes;
  int32_t last_process_status = kStatusNotSampled;
  bool mps_hint = false;
  std::unordered_map<int32_t, std::pair<std::string, std::string>> names;  // pid -> name,user
};

NvmlSampler::~NvmlSampler() {
  for (auto& d : states_) {
    if (lib_ && lib_->fn().GpmSampleFree) {
      if (d->gpm_prev) lib_->fn().GpmSampleFree(d->gpm_prev);
      if (d->gpm_cur) lib_->fn().GpmSampleFree(d->gpm_cur);
    }
  }
}

std::vector<int32_t> ParseVisibleDevices(std::string_view value,
                                         const std::vector<std::string>& uuids) {
  std::vector<int32_t> out;
  size_t pos = 0;
  while (pos <= value.size() && !value.empty()) {
    size_t comma = value.find(',', pos);
    std::string_view item = value.substr(pos, comma == std::string_view::npos ? value.npos
                                                                             : comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) break;
    if (std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      int idx = std::atoi(std::string(item).c_str());
      if (idx >= static_cast<int>(uuids.size())) break;  // CUDA stops at an invalid ordinal
      out.push_back(idx);
    } else {
      // UUID or unique prefix ("GPU-8c1f"); MIG UUIDs are not mapped here.
      int match = -1;
      for (size_t i = 0; i < uuids.size(); ++i) {
        if (uuids[i].compare(0, item.size(), item) == 0) {
          match = static_cast<int>(i);
          break;
        }
      }
      if (match < 0) break;
      out.push_back(match);
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

Result<std::unique_ptr<NvmlSampler>> NvmlSampler::Open(std::unique_ptr<NvmlLibrary> lib,
                                                       const SamplerOptions& options) {
  std::unique_ptr<NvmlSampler> s(new NvmlSampler());
  s->lib_ = std::move(lib);
  s->options_ = options;
  const NvmlFunctions& f = s->lib_->fn();
  auto system = std::make_shared<SystemInfo>();
  system->hostname = Hostname();
  system->library_path = s->lib_->path();
  char buf[kNvmlDriverVersionBufferSize] = {};
  if (f.SystemGetDriverVersion && f.SystemGetDriverVersion(buf, sizeof buf) == NVML_SUCCESS) {
    system->driver_version = buf;
  }
  std::memset(buf, 0, sizeof buf);
  if (f.SystemGetNVMLVersion && f.SystemGetNVMLVersion(buf, sizeof buf) == NVML_SUCCESS) {
    system->nvml_version = buf;
  }
  unsigned count = 0;
  nvmlReturn_t r = f.DeviceGetCount(&count);
  ++s->calls_;
  if (r != NVML_SUCCESS) {
    return IoError("nvmlDeviceGetCount failed: " + s->lib_->ErrorMessage(r));
  }
  // Handles and UUIDs of all devices first, so CUDA_VISIBLE_DEVICES can refer to UUIDs.
  std::vector<nvmlDevice_t> handles(count, nullptr);
  std::vector<std::string> uuids(count);
  for (unsigned i = 0; i < count; ++i) {
    if (f.DeviceGetHandleByIndex(i, &handles[i]) != NVML_SUCCESS) handles[i] = nullptr;
    char ub[kNvmlUuidBufferSize] = {};
    if (handles[i] && f.DeviceGetUUID && f.DeviceGetUUID(handles[i], ub, sizeof ub) == NVML_SUCCESS) {
      uuids[i] = ub;
    }
  }
  std::vector<int32_t> selected = ParseVisibleDevices(options.visible_devices, uuids);
  if (selected.empty()) {
    for (unsigned i = 0; i < count; ++i) selected.push_back(static_cast<int32_t>(i));
  }
  for (int32_t idx : selected) {
    if (!handles[static_cast<size_t>(idx)]) continue;  // handle refused: nothing to sample
    auto d = std::make_unique<DeviceState>();
    d->handle = handles[static_cast<size_t>(idx)];
    d->index = idx;
    DeviceInfo info;
    info.index = idx;
    info.uuid = uuids[static_cast<size_t>(idx)];
    s->ReadStatic(*d, info);
    d->info_slot = system->devices.size();
    system->devices.push_back(std::move(info));
    s->states_.push_back(std::move(d));
  }
  s->system_ = std::move(system);
  return s;
}

bool NvmlSampler::CheckLost(DeviceState& d, nvmlReturn_t r) {
  if (r != NVML_ERROR_GPU_IS_LOST && r != NVML_ERROR_GPU_NOT_FOUND) return false;
  if (!d.lost) {
    d.lost = true;
    d.lost_reason = lib_->ErrorMessage(r);
  }
  return true;
}

int64_t NvmlSampler::NvmlUsToWallNs(DeviceState& d, unsigned long long us) {
  // Why: NVML calls the timestamp "CPU microseconds" without naming the clock
  // (seen as wall clock and as time since boot); pick the nearest clock once.
  int64_t real_us = ClockUs(CLOCK_REALTIME);
  if (d.clock_domain < 0) {
    int64_t cands[3] = {real_us, ClockUs(CLOCK_MONOTONIC), ClockUs(CLOCK_BOOTTIME)};
    int64_t best = INT64_MAX;
    for (int i = 0; i < 3; ++i) {
      int64_t diff = std::llabs(static_cast<long long>(us) - cands[i]);
      if (diff < best) {
        best = diff;
        d.clock_domain = i;
      }
    }
  }
  int64_t domain_now = d.clock_domain == 0   ? real_us
                       : d.clock_domain == 1 ? ClockUs(CLOCK_MONOTONIC)
                                             : ClockUs(CLOCK_BOOTTIME);
  return (static_cast<int64_t>(us) + (real_us - domain_now)) * kNsPerUs;
}

void NvmlSampler::ReadStatic(DeviceState& d, DeviceInfo& info) {
  const NvmlFunctions& f = lib_->fn();
  nvmlDevice_t h = d.handle;
  char buf[kNvmlNameBufferSize] = {};
  if (f.DeviceGetName && f.DeviceGetName(h, buf, sizeof buf) == NVML_SUCCESS) info.name = buf;
  int major = 0, minor = 0;
  if (f.DeviceGetCudaComputeCapability &&
      f.DeviceGetCudaComputeCapability(h, &major, &minor) == NVML_SUCCESS) {
    info.cc_major = major;
    info.cc_minor = minor;
  }
  unsigned u = 0;
  if (f.DeviceGetArchitecture && f.DeviceGetArchitecture(h, &u) == NVML_SUCCESS) {
    info.architecture = static_cast<int32_t>(u);
  }
  if (f.DeviceGetNumGpuCores && f.DeviceGetNumGpuCores(h, &u) == NVML_SUCCESS && u > 0 &&
      IsValid(info.cc_major)) {
    // CUDA cores per SM: 64 on GV100/GA100 (7.0, 8.0), 128 elsewhere since Turing.
    bool c64 = (info.cc_major == 7 && info.cc_minor == 0) || (info.cc_major == 8 && info.cc_minor == 0);
    info.sm_count = static_cast<int32_t>(u / (c64 ? 64 : 128));
  }
  if (f.DeviceGetMemoryBusWidth && f.DeviceGetMemoryBusWidth(h, &u) == NVML_SUCCESS) {
    info.memory_bus_width_bits = static_cast<int32_t>(u);
  }
  if (f.DeviceGetMaxClockInfo && f.DeviceGetMaxClockInfo(h, NVML_CLOCK_SM, &u) == NVML_SUCCESS) {
    info.max_sm_clock_mhz = static_cast<int32_t>(u);
  }
  if (f.DeviceGetMaxClockInfo && f.DeviceGetMaxClockInfo(h, NVML_CLOCK_MEM, &u) == NVML_SUCCESS) {
    info.max_mem_clock_mhz = static_cast<int32_t>(u);
  }
  nvmlComputeMode_t cm = 0;
  if (f.DeviceGetComputeMode && f.DeviceGetComputeMode(h, &cm) == NVML_SUCCESS) {
    info.compute_mode = cm;
  }
  unsigned cur = 0, pending = 0;
  if (f.DeviceGetMigMode && f.DeviceGetMigMode(h, &cur, &pending) == NVML_SUCCESS) {
    info.mig_mode = static_cast<int32_t>(cur);
  }

  // Probe each metric once: one call, keep whether it is supported.
  auto mark = [&](Metric m, nvmlReturn_t r) {
    size_t i = static_cast<size_t>(m);
    d.probe_status[i] = r;
    d.supported[i] = !IsPermanentlyUnsupported(r);
    if (CheckLost(d, r)) d.supported[i] = false;
  };
  auto mark_fn = [&](Metric m, bool have_fn, auto call) {
    if (!have_fn) {
      size_t i = static_cast<size_t>(m);
      d.probe_status[i] = kStatusNoSymbol;
      d.supported[i] = false;
      return;
    }
    ++calls_;
    mark(m, call());
  };
  nvmlUtilization_t ut{};
  mark_fn(Metric::kGpuUtil, f.DeviceGetUtilizationRates != nullptr,
          [&] { return f.DeviceGetUtilizationRates(h, &ut); });
  d.probe_status[static_cast<size_t>(Metric::kMemUtil)] =
      d.probe_status[static_cast<size_t>(Metric::kGpuUtil)];
  d.supported[static_cast<size_t>(Metric::kMemUtil)] =
      d.supported[static_cast<size_t>(Metric::kGpuUtil)];
  mark_fn(Metric::kPowerMw, f.DeviceGetPowerUsage != nullptr,
          [&] { return f.DeviceGetPowerUsage(h, &u); });
  mark_fn(Metric::kPowerLimitMw, f.DeviceGetEnforcedPowerLimit != nullptr, [&] {
    nvmlReturn_t r = f.DeviceGetEnforcedPowerLimit(h, &u);
    if (r == NVML_SUCCESS) info.power_limit_mw = u;
    return r;
  });
  mark_fn(Metric::kSmClockMhz, f.DeviceGetClockInfo != nullptr,
          [&] { return f.DeviceGetClockInfo(h, NVML_CLOCK_SM, &u); });
  mark_fn(Metric::kMemClockMhz, f.DeviceGetClockInfo != nullptr,
          [&] { return f.DeviceGetClockInfo(h, NVML_CLOCK_MEM, &u); });
  unsigned long long mask = 0;
  mark_fn(Metric::kClockEventReasons, f.DeviceGetCurrentClocksEventReasons != nullptr,
          [&] { return f.DeviceGetCurrentClocksEventReasons(h, &mask); });
  mark_fn(Metric::kPcieTxBytesPerS, f.DeviceGetPcieThroughput != nullptr,
          [&] { return f.DeviceGetPcieThroughput(h, NVML_PCIE_UTIL_TX_BYTES, &u); });
  d.probe_status[static_cast<size_t>(Metric::kPcieRxBytesPerS)] =
      d.probe_status[static_cast<size_t>(Metric::kPcieTxBytesPerS)];
  d.supported[static_cast<size_t>(Metric::kPcieRxBytesPerS)] =
      d.supported[static_cast<size_t>(Metric::kPcieTxBytesPerS)];
  mark_fn(Metric::kTemperatureC, f.DeviceGetTemperature != nullptr,
          [&] { return f.DeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &u); });
  // Memory: prefer _v2 (used excludes reserved); fall back to the v1 call.
  {
    nvmlReturn_t r = kStatusNoSymbol;
    if (f.DeviceGetMemoryInfo_v2) {
      nvmlMemory_v2_t m{};
      m.version = kNvmlMemoryV2Version;
      r = f.DeviceGetMemoryInfo_v2(h, &m);
      ++calls_;
      if (r == NVML_SUCCESS) info.total_memory_bytes = static_cast<int64_t>(m.total);
      d.mem_v2 = (r == NVML_SUCCESS);
    }
    if (r != NVML_SUCCESS && f.DeviceGetMemoryInfo) {
      nvmlMemory_t m{};
      r = f.DeviceGetMemoryInfo(h, &m);
      ++calls_;
      if (r == NVML_SUCCESS) info.total_memory_bytes = static_cast<int64_t>(m.total);
    }
    mark(Metric::kMemUsedBytes, r);
    mark(Metric::kMemTotalBytes, r);
  }

  // Driver sample buffer: capacity and the utilization sample period.
  for (int t = 0; t < 2; ++t) {
    if (!f.DeviceGetSamples || d.lost) break;
    nvmlSamplingType_t type = t == 0 ? NVML_GPU_UTILIZATION_SAMPLES : NVML_MEMORY_UTILIZATION_SAMPLES;
    nvmlValueType_t vt = 0;
    unsigned n = 0;
    nvmlReturn_t r = f.DeviceGetSamples(h, type, 0, &vt, &n, nullptr);
    ++calls_;
    if (CheckLost(d, r) || (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE) || n == 0) {
      continue;
    }
    d.samples_ok[t] = true;
    if (d.sample_buf.size() < n) d.sample_buf.resize(n);
    n = static_cast<unsigned>(d.sample_buf.size());
    r = f.DeviceGetSamples(h, type, 0, &vt, &n, d.sample_buf.data());
    ++calls_;
    if (r != NVML_SUCCESS) continue;
    std::vector<long long> deltas;
    for (unsigned i = 0; i < n; ++i) {
      d.last_seen_us[t] = std::max(d.last_seen_us[t], d.sample_buf[i].timeStamp);
      if (i > 0 && d.sample_buf[i].timeStamp > d.sample_buf[i - 1].timeStamp) {
        deltas.push_back(static_cast<long long>(d.sample_buf[i].timeStamp -
                                                d.sample_buf[i - 1].timeStamp));
      }
    }
    // The newest ring entry is the current value until the driver adds one.
    for (unsigned i = 0; i < n; ++i) {
      if (d.sample_buf[i].timeStamp != d.last_seen_us[t]) continue;
      Metric m = t == 0 ? Metric::kGpuUtil : Metric::kMemUtil;
      d.carried[static_cast<size_t>(m)] =
          Reading{ValueToDouble(vt, d.sample_buf[i].sampleValue) / 100.0, kStatusOk,
                  Source::kNvmlSamples, NvmlUsToWallNs(d, d.last_seen_us[t])};
    }
    if (t == 0 && !deltas.empty()) {
      std::nth_element(deltas.begin(), deltas.begin() + static_cast<long>(deltas.size() / 2),
                       deltas.end());
      info.util_sample_period_ns = deltas[deltas.size() / 2] * kNsPerUs;
      d.util_period_ns = info.util_sample_period_ns;
    }
    d.last_new_mono_ns[t] = MonoNowNs();
  }

  // GPM: Hopper and newer only.
  bool gpm = false;
  if (options_.gpm && !d.lost && f.GpmQueryDeviceSupport && f.GpmSampleAlloc && f.GpmSampleGet &&
      f.GpmMetricsGet) {
    nvmlGpmSupport_t sup{};
    sup.version = kNvmlGpmSupportVersion;
    ++calls_;
    if (f.GpmQueryDeviceSupport(h, &sup) == NVML_SUCCESS && sup.isSupportedDevice) {
      if (f.GpmSampleAlloc(&d.gpm_prev) == NVML_SUCCESS &&
          f.GpmSampleAlloc(&d.gpm_cur) == NVML_SUCCESS) {
        gpm = true;
        if (f.GpmSampleGet(h, d.gpm_prev) == NVML_SUCCESS) {
          d.gpm_have_prev = true;
          d.gpm_prev_ns = MonoNowNs();
        }
        calls_ += 3;
      }
    }
  }
  info.gpm_supported = gpm;
  for (const auto& w : kGpmWanted) {
    size_t i = static_cast<size_t>(w.metric);
    if (w.metric == Metric::kPcieTxBytesPerS || w.metric == Metric::kPcieRxBytesPerS) {
      if (gpm) {
        d.supported[i] = true;  // GPM replaces the 20 ms NVML PCIe call
        d.probe_status[i] = kStatusOk;
      }
      continue;
    }
    d.supported[i] = gpm;
    d.probe_status[i] = gpm ? kStatusOk : NVML_ERROR_NOT_SUPPORTED;
  }
  if (d.lost) d.supported.fill(false);
  info.supported = d.supported;
  info.probe_status = d.probe_status;
}

Snapshot NvmlSampler::Sample() {
  Snapshot snap;
  snap.ts_ns = WallNowNs();
  snap.seq = ++seq_;
  snap.system = system_;
  int64_t mono = MonoNowNs();
  bool slow = !IsValid(last_slow_ns_) || mono - last_slow_ns_ >= options_.slow_period_ns;
  if (slow) last_slow_ns_ = mono;
  snap.devices.reserve(states_.size());
  for (auto& dp : states_) {
    DeviceState& d = *dp;
    const DeviceInfo& info = system_->devices[d.info_slot];
    DeviceSnapshot out;
    out.index = d.index;
    bool was_lost = d.lost;
    if (!d.lost) {
      ReadFast(d, info, out, snap.ts_ns);
      if (!d.lost && slow) ReadSlow(d, info, out, snap.ts_ns);
    }
    // Slow and GPM readings are carried until the next read.
    for (size_t i = 0; i < kMetricCount; ++i) {
      if (out.readings[i].status == kStatusNotSampled) out.readings[i] = d.carried[i];
      if (!d.supported[i] && out.readings[i].status == kStatusNotSampled) {
        out.readings[i].status = d.probe_status[i] == kStatusOk ? NVML_ERROR_NOT_SUPPORTED
                                                                : d.probe_status[i];
      }
    }
    if (!out.processes_read) {
      out.processes = d.last_processes;
      out.process_status = d.last_process_status;
    }
    out.mps_hint = d.mps_hint;
    if (d.lost) {
      out.lost = true;
      out.lost_now = !was_lost;
      out.lost_reason = d.lost_reason;
      for (auto& rd : out.readings) rd = Reading{kMissingF64, kStatusDeviceLost, Source::kNone, snap.ts_ns};
      out.fine.clear();
      out.processes.clear();
      out.process_status = kStatusDeviceLost;
      d.carried = out.readings;
      d.last_processes.clear();
      d.last_process_status = kStatusDeviceLost;
    }
    snap.devices.push_back(std::move(out));
  }
  return snap;
}

void NvmlSampler::ReadBufferedUtil(DeviceState& d, DeviceSnapshot& out, int64_t now_ns) {
  const NvmlFunctions& f = lib_->fn();
  bool need_poll[2] = {true, true};
  for (int t = 0; t < 2; ++t) {
    if (!d.samples_ok[t]) continue;
    Metric m = t == 0 ? Metric::kGpuUtil : Metric::kMemUtil;
    nvmlSamplingType_t type = t == 0 ? NVML_GPU_UTILIZATION_SAMPLES : NVML_MEMORY_UTILIZATION_SAMPLES;
    nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    unsigned n = static_cast<unsigned>(d.sample_buf.size());
    nvmlReturn_t r = f.DeviceGetSamples(d.handle, type, d.last_seen_us[t], &vt, &n, d.sample_buf.data());
    ++calls_;
    if (CheckLost(d, r)) return;
    if (r == NVML_ERROR_NOT_SUPPORTED) {
      d.samples_ok[t] = false;
      continue;
    }
    if (r == NVML_ERROR_NOT_FOUND) n = 0;  // nothing newer than last_seen
    else if (r != NVML_SUCCESS) continue;
    unsigned long long newest = d.last_seen_us[t];
    const nvmlSample_t* newest_s = nullptr;
    for (unsigned i = 0; i < n && i < d.sample_buf.size(); ++i) {
      const nvmlSample_t& s = d.sample_buf[i];
      if (s.timeStamp <= d.last_seen_us[t]) continue;  // only strictly newer samples are new
      double v = ValueToDouble(vt, s.sampleValue);
      if (!IsValid(v)) continue;
      out.fine.push_back({m, NvmlUsToWallNs(d, s.timeStamp), v / 100.0});
      if (s.timeStamp > newest) {
        newest = s.timeStamp;
        newest_s = &s;
      }
    }
    if (newest_s) {
      out.at(m) = Reading{ValueToDouble(vt, newest_s->sampleValue) / 100.0, kStatusOk,
                          Source::kNvmlSamples, NvmlUsToWallNs(d, newest)};
      d.carried[static_cast<size_t>(m)] = out.at(m);
      d.last_seen_us[t] = newest;
      d.last_new_mono_ns[t] = MonoNowNs();
      need_poll[t] = false;
    } else {
      // Between two driver samples nothing is new; only a ring that stayed
      // dry for two periods (an idle GPU) falls back to polling.
      int64_t dry = 2 * (IsValid(d.util_period_ns) ? d.util_period_ns : kNsPerS / 2);
      if (IsValid(d.last_new_mono_ns[t]) && MonoNowNs() - d.last_new_mono_ns[t] < dry) {
        need_poll[t] = false;
      }
    }
  }
  if ((need_poll[0] || need_poll[1]) && d.supported[static_cast<size_t>(Metric::kGpuUtil)]) {
    // Why: the sample ring runs dry when the GPU idles; the polled value then
    // reads the idle 0 instead of leaving a gap.
    nvmlUtilization_t u{};
    nvmlReturn_t r = f.DeviceGetUtilizationRates(d.handle, &u);
    ++calls_;
    if (CheckLost(d, r)) return;
    for (int t = 0; t < 2; ++t) {
      if (!need_poll[t]) continue;
      Metric m = t == 0 ? Metric::kGpuUtil : Metric::kMemUtil;
      if (r == NVML_SUCCESS) {
        out.at(m) = Reading{(t == 0 ? u.gpu : u.memory) / 100.0, kStatusOk, Source::kNvmlPoll, now_ns};
      } else {
        out.at(m) = Reading{kMissingF64, r, Source::kNvmlPoll, now_ns};
      }
    }
  }
}

void NvmlSampler::ReadFast(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out,
                           int64_t now_ns) {
  (void)info;
  const NvmlFunctions& f = lib_->fn();
  nvmlDevice_t h = d.handle;
  auto sup = [&](Metric m) { return d.supported[static_cast<size_t>(m)]; };
  auto put = [&](Metric m, nvmlReturn_t r, double v) {
    out.at(m) = r == NVML_SUCCESS ? Reading{v, kStatusOk, Source::kNvmlPoll, now_ns}
                                  : Reading{kMissingF64, r, Source::kNvmlPoll, now_ns};
    return !CheckLost(d, r);
  };
  ReadBufferedUtil(d, out, now_ns);
  if (d.lost) return;
  unsigned u = 0;
  if (sup(Metric::kPowerMw)) {
    nvmlReturn_t r = f.DeviceGetPowerUsage(h, &u);
    ++calls_;
    if (!put(Metric::kPowerMw, r, u)) return;
  }
  if (sup(Metric::kSmClockMhz)) {
    nvmlReturn_t r = f.DeviceGetClockInfo(h, NVML_CLOCK_SM, &u);
    ++calls_;
    if (!put(Metric::kSmClockMhz, r, u)) return;
  }
  if (sup(Metric::kMemClockMhz)) {
    nvmlReturn_t r = f.DeviceGetClockInfo(h, NVML_CLOCK_MEM, &u);
    ++calls_;
    if (!put(Metric::kMemClockMhz, r, u)) return;
  }
  if (sup(Metric::kClockEventReasons)) {
    unsigned long long mask = 0;
    nvmlReturn_t r = f.DeviceGetCurrentClocksEventReasons(h, &mask);
    ++calls_;
    if (!put(Metric::kClockEventReasons, r, static_cast<double>(mask))) return;
  }
  if (sup(Metric::kMemUsedBytes)) {
    nvmlReturn_t r;
    double used = kMissingF64, total = kMissingF64;
    if (d.mem_v2) {
      nvmlMemory_v2_t m{};
      m.version = kNvmlMemoryV2Version;
      r = f.DeviceGetMemoryInfo_v2(h, &m);
      used = static_cast<double>(m.used);
      total = static_cast<double>(m.total);
    } else {
      nvmlMemory_t m{};
      r = f.DeviceGetMemoryInfo(h, &m);
      used = static_cast<double>(m.used);
      total = static_cast<double>(m.total);
    }
    ++calls_;
    if (!put(Metric::kMemUsedBytes, r, used)) return;
    put(Metric::kMemTotalBytes, r, total);
  }
  if (info.gpm_supported) ReadGpm(d, out, now_ns);
}

void NvmlSampler::ReadGpm(DeviceState& d, DeviceSnapshot& out, int64_t now_ns) {
  const NvmlFunctions& f = lib_->fn();
  int64_t mono = MonoNowNs();
  if (d.gpm_have_prev && mono - d.gpm_prev_ns < kGpmMinGapNs) return;  // carried values stand
  nvmlReturn_t r = f.GpmSampleGet(d.handle, d.gpm_cur);
  ++calls_;
  if (CheckLost(d, r)) return;
  if (r != NVML_SUCCESS) {
    for (const auto& w : kGpmWanted) {
      if (d.supported[static_cast<size_t>(w.metric)] && IsGpmMetric(w.metric)) {
        out.at(w.metric) = Reading{kMissingF64, r, Source::kGpm, now_ns};
      }
    }
    return;
  }
  if (d.gpm_have_prev) {
    auto mg = std::make_unique<nvmlGpmMetricsGet_t>();
    std::memset(mg.get(), 0, sizeof(nvmlGpmMetricsGet_t));
    mg->version = kNvmlGpmMetricsGetVersion;
    mg->numMetrics = static_cast<unsigned>(kGpmWantedCount);
    mg->sample1 = d.gpm_prev;
    mg->sample2 = d.gpm_cur;
    for (size_t i = 0; i < kGpmWantedCount; ++i) mg->metrics[i].metricId = kGpmWanted[i].id;
    r = f.GpmMetricsGet(mg.get());
    ++calls_;
    for (size_t i = 0; i < kGpmWantedCount; ++i) {
      const GpmWanted& w = kGpmWanted[i];
      size_t slot = static_cast<size_t>(w.metric);
      if (!d.supported[slot]) continue;
      nvmlReturn_t mr = r == NVML_SUCCESS ? mg->metrics[i].nvmlReturn : r;
      if (mr == NVML_SUCCESS && IsValid(mg->metrics[i].value)) {
        out.at(w.metric) = Reading{mg->metrics[i].value * w.scale, kStatusOk, Source::kGpm, now_ns};
      } else {
        out.at(w.metric) = Reading{kMissingF64, mr == NVML_SUCCESS ? NVML_ERROR_NO_DATA : mr,
                                   Source::kGpm, now_ns};
        if (!d.gpm_checked && IsPermanentlyUnsupported(mr)) {
          d.supported[slot] = false;
          d.probe_status[slot] = mr;
        }
      }
      d.carried[slot] = out.at(w.metric);
    }
    d.gpm_checked = true;
  }
  std::swap(d.gpm_prev, d.gpm_cur);  // ping-pong: the newest becomes sample1
  d.gpm_have_prev = true;
  d.gpm_prev_ns = mono;
}

void NvmlSampler::ReadSlow(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out,
                           int64_t now_ns) {
  const NvmlFunctions& f = lib_->fn();
  nvmlDevice_t h = d.handle;
  auto sup = [&](Metric m) { return d.supported[static_cast<size_t>(m)]; };
  auto put = [&](Metric m, nvmlReturn_t r, double v) {
    out.at(m) = r == NVML_SUCCESS ? Reading{v, kStatusOk, Source::kNvmlPoll, now_ns}
                                  : Reading{kMissingF64, r, Source::kNvmlPoll, now_ns};
    d.carried[static_cast<size_t>(m)] = out.at(m);
    return !CheckLost(d, r);
  };
  unsigned u = 0;
  if (sup(Metric::kPowerLimitMw)) {
    nvmlReturn_t r = f.DeviceGetEnforcedPowerLimit(h, &u);
    ++calls_;
    if (!put(Metric::kPowerLimitMw, r, u)) return;
  }
  if (sup(Metric::kTemperatureC)) {
    nvmlReturn_t r = f.DeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &u);
    ++calls_;
    if (!put(Metric::kTemperatureC, r, u)) return;
  }
  if (!info.gpm_supported && sup(Metric::kPcieTxBytesPerS)) {
    // KB/s over a 20 ms window per call: kept on the slow cadence.
    nvmlReturn_t r = f.DeviceGetPcieThroughput(h, NVML_PCIE_UTIL_TX_BYTES, &u);
    ++calls_;
    if (!put(Metric::kPcieTxBytesPerS, r, u * 1024.0)) return;
    r = f.DeviceGetPcieThroughput(h, NVML_PCIE_UTIL_RX_BYTES, &u);
    ++calls_;
    if (!put(Metric::kPcieRxBytesPerS, r, u * 1024.0)) return;
  }
  if (options_.processes) ReadProcesses(d, out);
}

void NvmlSampler::ReadProcesses(DeviceState& d, DeviceSnapshot& out) {
  const NvmlFunctions& f = lib_->fn();
  out.processes_read = true;
  if (!f.DeviceGetComputeRunningProcesses) {
    out.process_status = kStatusNoSymbol;
    d.last_process_status = out.process_status;
    d.last_processes.clear();
    return;
  }
  size_t base_stride = lib_->process_api() == ProcessApi::kV1 ? sizeof(nvmlProcessInfo_v1_t)
                                                              : sizeof(nvmlProcessInfo_v2_t);
  // list: one process-list call with the R535 stride check; appends to `procs`.
  auto list = [&](nvmlDeviceGetRunningProcesses_fn fn, bool mps,
                  std::vector<ProcessInfo>& procs) -> nvmlReturn_t {
    unsigned n = 0;
    nvmlReturn_t r = fn(d.handle, &n, nullptr);
    ++calls_;
    if (r == NVML_SUCCESS) return r;  // no processes
    if (r != NVML_ERROR_INSUFFICIENT_SIZE) return r;
    for (int attempt = 0; attempt < 3; ++attempt) {
      unsigned cap = n + 8;  // processes may start between the two calls
      // Why: room for 32-byte records and a sentinel fill to measure the real stride.
      d.proc_buf.assign(static_cast<size_t>(cap) * sizeof(nvmlProcessInfo_r535_t), 0xAA);
      n = cap;
      r = fn(d.handle, &n, d.proc_buf.data());
      ++calls_;
      if (r == NVML_ERROR_INSUFFICIENT_SIZE) continue;
      if (r != NVML_SUCCESS) return r;
      break;
    }
    if (r != NVML_SUCCESS) return r;
    size_t stride = base_stride;
    if (lib_->process_api() == ProcessApi::kV3 && n > 0) {
      if (d.proc_stride != 0) {
        stride = d.proc_stride;
      } else {
        size_t last = d.proc_buf.size();
        while (last > 0 && d.proc_buf[last - 1] == 0xAA) --last;
        stride = last > static_cast<size_t>(n) * sizeof(nvmlProcessInfo_v2_t)
                     ? sizeof(nvmlProcessInfo_r535_t)
                     : sizeof(nvmlProcessInfo_v2_t);
        d.proc_stride = stride;
      }
    }
    for (unsigned i = 0; i < n; ++i) {
      const unsigned char* rec = d.proc_buf.data() + static_cast<size_t>(i) * stride;
      unsigned pid = 0;
      unsigned long long mem = 0;
      std::memcpy(&pid, rec + offsetof(nvmlProcessInfo_v1_t, pid), sizeof pid);
      std::memcpy(&mem, rec + offsetof(nvmlProcessInfo_v1_t, usedGpuMemory), sizeof mem);
      ProcessInfo p;
      p.pid = static_cast<int32_t>(pid);
      if (mem != NVML_VALUE_NOT_AVAILABLE) p.used_memory_bytes = static_cast<int64_t>(mem);
      p.is_mps_client = mps;
      bool dup = false;
      for (auto& q : procs) {
        if (q.pid == p.pid) {
          q.is_mps_client = q.is_mps_client || mps;
          dup = true;
        }
      }
      if (!dup) procs.push_back(std::move(p));
    }
    return NVML_SUCCESS;
  };
  std::vector<ProcessInfo> procs;
  nvmlReturn_t r = list(f.DeviceGetComputeRunningProcesses, false, procs);
  if (CheckLost(d, r)) return;
  out.process_status = r == NVML_SUCCESS ? kStatusOk : r;
  if (r == NVML_SUCCESS && d.mps_ok && f.DeviceGetMPSComputeRunningProcesses) {
    size_t before = procs.size();
    nvmlReturn_t mr = list(f.DeviceGetMPSComputeRunningProcesses, true, procs);
    if (IsPermanentlyUnsupported(mr)) d.mps_ok = false;
    if (mr == NVML_SUCCESS && procs.size() >= before) {
      for (const auto& p : procs) d.mps_hint = d.mps_hint || p.is_mps_client;
    }
  }
  // Per-process utilization (time-based, like GPU-Util).
  if (r == NVML_SUCCESS && d.proc_util_ok && f.DeviceGetProcessUtilization && !procs.empty()) {
    unsigned n = 0;
    nvmlReturn_t ur = f.DeviceGetProcessUtilization(d.handle, nullptr, &n, d.proc_util_last_us);
    ++calls_;
    bool have = false;
    if ((ur == NVML_SUCCESS || ur == NVML_ERROR_INSUFFICIENT_SIZE) && n > 0) {
      d.proc_util_buf.resize(n + 8);
      n = static_cast<unsigned>(d.proc_util_buf.size());
      ur = f.DeviceGetProcessUtilization(d.handle, d.proc_util_buf.data(), &n, d.proc_util_last_us);
      ++calls_;
      have = ur == NVML_SUCCESS;
    }
    if (IsPermanentlyUnsupported(ur)) d.proc_util_ok = false;
    if (have || ur == NVML_ERROR_NOT_FOUND || (ur == NVML_SUCCESS && n == 0)) {
      // Listed = non-zero utilization in the window; unlisted processes were idle.
      for (auto& p : procs) {
        p.sm_util_ratio = 0;
        p.mem_util_ratio = 0;
      }
      unsigned long long newest = d.proc_util_last_us;
      std::unordered_map<int32_t, unsigned long long> seen_ts;
      for (unsigned i = 0; have && i < n && i < d.proc_util_buf.size(); ++i) {
        const auto& s = d.proc_util_buf[i];
        if (s.timeStamp <= d.proc_util_last_us) continue;
        newest = std::max(newest, s.timeStamp);
        auto it = seen_ts.find(static_cast<int32_t>(s.pid));
        if (it != seen_ts.end() && it->second >= s.timeStamp) continue;  // keep the latest per pid
        seen_ts[static_cast<int32_t>(s.pid)] = s.timeStamp;
        for (auto& p : procs) {
          if (p.pid == static_cast<int32_t>(s.pid)) {
            p.sm_util_ratio = s.smUtil / 100.0;
            p.mem_util_ratio = s.memUtil / 100.0;
          }
        }
      }
      d.proc_util_last_us = newest;
    }
  }
  // Names and owners from /proc (cached per pid).
  std::unordered_map<int32_t, std::pair<std::string, std::string>> names;
  for (auto& p : procs) {
    auto it = d.names.find(p.pid);
    if (it == d.names.end()) {
      std::string name = ReadFirstLine(fmt::format("/proc/{}/comm", p.pid));
      if (name.empty() && f.SystemGetProcessName) {
        char nb[256] = {};
        if (f.SystemGetProcessName(static_cast<unsigned>(p.pid), nb, sizeof nb) == NVML_SUCCESS) {
          name = nb;
          if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
        }
      }
      it = d.names.emplace(p.pid, std::make_pair(name, UserOfPid(p.pid))).first;
    }
    p.name = it->second.first;
    p.user = it->second.second;
    if (p.name == "nvidia-cuda-mps-server") d.mps_hint = true;
    names.emplace(p.pid, it->second);
  }
  d.names = std::move(names);  // forget pids that left
  out.processes = procs;
  d.last_processes = std::move(procs);
  d.last_process_status = out.process_status;
}

}  // namespace gpuwhy::record
