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

// The DCGM profiling fields used where GPM is absent (one multiplexing group
// on Volta..Ada, so no multi-pass watch).
struct DcgmWanted {
  uint16_t field;
  Metric metric;
};
constexpr DcgmWanted kDcgmWanted[] = {
    {dcgm::DCGM_FI_PROF_SM_ACTIVE, Metric::kSmActive},
    {dcgm::DCGM_FI_PROF_SM_OCCUPANCY, Metric::kSmOccupancy},
    {dcgm::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, Metric::kTensorActive},
    {dcgm::DCGM_FI_PROF_DRAM_ACTIVE, Metric::kDramActive},
};

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

// CounterValue: an integer counter from a field value (no double rounding).
bool CounterValue(nvmlValueType_t t, const nvmlValue_t& v, unsigned long long* out) {
  switch (t) {
    case NVML_VALUE_TYPE_UNSIGNED_INT: *out = v.uiVal; return true;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: *out = v.ulVal; return true;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = v.ullVal; return true;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      if (v.sllVal < 0) return false;
      *out = static_cast<unsigned long long>(v.sllVal);
      return true;
    case NVML_VALUE_TYPE_DOUBLE:
      if (!(v.dVal >= 0)) return false;
      *out = static_cast<unsigned long long>(v.dVal);
      return true;
    default: return false;
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
  // NVLink through field values: entries 0/1 are the all-link totals (tx, rx),
  // then one (tx, rx) pair per link in fv_links.
  bool fv_ok = false;
  bool fv_totals_ok = false;
  std::vector<nvmlFieldValue_t> fv_req;
  std::vector<nvmlFieldValue_t> fv_buf;
  std::vector<int32_t> fv_links;
  std::vector<unsigned long long> fv_prev;  // previous counter (KiB) per entry
  std::vector<long long> fv_prev_us;        // its timestamp (us); 0 = none yet
  std::vector<Reading> fv_rate;             // last rate per entry
  size_t fv_link_base = 2;                  // index of the first per-link entry
  double fv_unit_bytes = 1024.0;            // counter unit: KiB (138/139) or bytes (202/204)
  bool fv_sum_links = false;                // totals = sum of the links (NVLink5 fields)
  // MIG devices (MIG mode on): memory per MIG handle, GPM per GPU instance.
  struct MigState {
    nvmlDevice_t handle = nullptr;
    MigReading last;  // ids, uuid and the carried readings
    bool mem_v2 = false;
    bool mem_ok = true;
    nvmlGpmSample_t gpm_prev = nullptr;
    nvmlGpmSample_t gpm_cur = nullptr;
    bool gpm_have_prev = false;
    int64_t gpm_prev_ns = kMissingI64;
  };
  std::vector<MigState> mig;
  bool mig_gpm = false;
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
      for (auto& m : d->mig) {
        if (m.gpm_prev) lib_->fn().GpmSampleFree(m.gpm_prev);
        if (m.gpm_cur) lib_->fn().GpmSampleFree(m.gpm_cur);
      }
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
  for (size_t i = 0; i < system->devices.size(); ++i) {
    if (system->devices[i].gpm_supported) system->devices[i].real_source = Source::kGpm;
  }
  if (options.dcgm) s->ConnectDcgm(*system);
  s->system_ = std::move(system);
  return s;
}

void NvmlSampler::ConnectDcgm(SystemInfo& system) {
  bool want = false;
  for (const auto& d : states_) want = want || (!d->lost && !system.devices[d->info_slot].gpm_supported);
  if (!want) return;  // GPM covers every GPU: DCGM is not needed
  dcgm::DcgmOptions o;
  o.host = options_.dcgm_host;
  o.update_period_ns = options_.dcgm_period_ns;
  std::vector<uint16_t> fields;
  for (const auto& w : kDcgmWanted) fields.push_back(w.field);
  auto c = dcgm::DcgmClient::Connect(o, fields);
  if (!c.ok()) {
    system.dcgm_status = "DCGM not used (real figures n/a on GPUs without GPM): " + c.status().message();
    return;
  }
  dcgm_ = std::move(c).value();
  system.dcgm_connected = true;
  system.dcgm_status = fmt::format("DCGM host engine at {} ({}) gives the real figures of GPUs without GPM",
                                   dcgm_->host(), dcgm_->library_path());
  for (auto& d : states_) {
    DeviceInfo& info = system.devices[d->info_slot];
    if (d->lost || info.gpm_supported) continue;
    info.real_source = Source::kDcgm;
    for (const auto& w : kDcgmWanted) {
      size_t i = static_cast<size_t>(w.metric);
      d->supported[i] = info.supported[i] = true;
      d->probe_status[i] = info.probe_status[i] = kStatusOk;
    }
  }
}

void NvmlSampler::ApplyDcgm(DeviceState& d, DeviceSnapshot& out, int64_t now_ns, bool dcgm_ok) {
  for (const auto& w : kDcgmWanted) {
    Reading r{kMissingF64, dcgm_ok ? kStatusDcgmBlank : kStatusDcgmError, Source::kDcgm, now_ns};
    for (const dcgm::DcgmValue& v : dcgm_values_) {
      // DCGM numbers GPUs in NVML enumeration order.
      if (static_cast<int32_t>(v.gpu_id) != d.index || v.field_id != w.field) continue;
      if (v.status == dcgm::DCGM_ST_OK && IsValid(v.value)) {
        // The host engine's own timestamp: an unchanged value is not written twice.
        r = Reading{v.value, kStatusOk, Source::kDcgm, IsValid(v.ts_ns) ? v.ts_ns : now_ns};
      }
      break;
    }
    out.at(w.metric) = r;
    d.carried[static_cast<size_t>(w.metric)] = r;
  }
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
  ProbeNvlink(d, info, gpm);
  if (info.mig_mode == static_cast<int32_t>(NVML_DEVICE_MIG_ENABLE)) ProbeMig(d, gpm);
  if (d.lost) d.supported.fill(false);
  info.supported = d.supported;
  info.probe_status = d.probe_status;
}

void NvmlSampler::ProbeNvlink(DeviceState& d, DeviceInfo& info, bool gpm) {
  const NvmlFunctions& f = lib_->fn();
  const size_t tx = static_cast<size_t>(Metric::kNvlinkTxBytesPerS);
  const size_t rx = static_cast<size_t>(Metric::kNvlinkRxBytesPerS);
  auto no_totals = [&](int32_t why) {
    if (gpm) return;  // GPM's NVLink totals stand
    d.supported[tx] = d.supported[rx] = false;
    d.probe_status[tx] = d.probe_status[rx] = why;
  };
  if (!f.DeviceGetFieldValues || d.lost) {
    no_totals(kStatusNoSymbol);
    return;
  }
  // Link count first: it sizes the per-link request.
  nvmlFieldValue_t lc{};
  lc.fieldId = kNvmlFiNvlinkLinkCount;
  nvmlReturn_t r = f.DeviceGetFieldValues(d.handle, 1, &lc);
  ++calls_;
  if (CheckLost(d, r)) return;
  unsigned links = 0;
  unsigned long long n = 0;
  if (r == NVML_SUCCESS && lc.nvmlReturn == NVML_SUCCESS && CounterValue(lc.valueType, lc.value, &n)) {
    links = static_cast<unsigned>(std::min<unsigned long long>(n, kNvmlNvlinkMaxLinks));
    info.nvlink_count = static_cast<int32_t>(links);
  }
  std::vector<nvmlFieldValue_t> req;
  auto add = [&](unsigned field, unsigned scope) {
    nvmlFieldValue_t v{};
    v.fieldId = field;
    v.scopeId = scope;
    req.push_back(v);
  };
  add(kNvmlFiNvlinkThroughputDataTx, kNvmlScopeAllLinks);
  add(kNvmlFiNvlinkThroughputDataRx, kNvmlScopeAllLinks);
  for (unsigned l = 0; l < links; ++l) {
    add(kNvmlFiNvlinkThroughputDataTx, l);
    add(kNvmlFiNvlinkThroughputDataRx, l);
  }
  std::vector<nvmlFieldValue_t> got = req;
  r = f.DeviceGetFieldValues(d.handle, static_cast<int>(got.size()), got.data());
  ++calls_;
  if (CheckLost(d, r)) return;
  if (r != NVML_SUCCESS) {
    no_totals(r);
    return;
  }
  // Why: the call succeeds when any entry was filled; each entry says for itself.
  auto entry_ok = [&](size_t i) { return !IsPermanentlyUnsupported(got[i].nvmlReturn); };
  d.fv_totals_ok = entry_ok(0) && entry_ok(1);
  if (!d.fv_totals_ok) no_totals(got[entry_ok(0) ? 1 : 0].nvmlReturn);
  if (!gpm && d.fv_totals_ok) {
    d.supported[tx] = d.supported[rx] = true;
    d.probe_status[tx] = d.probe_status[rx] = kStatusOk;
  }
  // Keep the totals (even when unsupported, so indices stay fixed) and the links that answer.
  d.fv_req.assign(req.begin(), req.begin() + 2);
  std::vector<nvmlFieldValue_t> kept(got.begin(), got.begin() + 2);
  for (unsigned l = 0; l < links; ++l) {
    size_t i = 2 + 2 * static_cast<size_t>(l);
    if (!entry_ok(i) && !entry_ok(i + 1)) continue;
    d.fv_req.push_back(req[i]);
    d.fv_req.push_back(req[i + 1]);
    kept.push_back(got[i]);
    kept.push_back(got[i + 1]);
    d.fv_links.push_back(static_cast<int32_t>(l));
  }
  if (!d.fv_totals_ok && d.fv_links.empty() && links > 0) {
    // Blackwell (NVLink5) answers per-link byte counters 202/204 instead.
    std::vector<nvmlFieldValue_t> req5;
    for (unsigned l = 0; l < links; ++l) {
      nvmlFieldValue_t v{};
      v.fieldId = kNvmlFiNvlinkCountXmitBytes;
      v.scopeId = l;
      req5.push_back(v);
      v.fieldId = kNvmlFiNvlinkCountRcvBytes;
      req5.push_back(v);
    }
    std::vector<nvmlFieldValue_t> got5 = req5;
    r = f.DeviceGetFieldValues(d.handle, static_cast<int>(got5.size()), got5.data());
    ++calls_;
    if (CheckLost(d, r)) return;
    if (r == NVML_SUCCESS) {
      d.fv_req.clear();
      kept.clear();
      for (unsigned l = 0; l < links; ++l) {
        size_t i = 2 * static_cast<size_t>(l);
        if (IsPermanentlyUnsupported(got5[i].nvmlReturn) &&
            IsPermanentlyUnsupported(got5[i + 1].nvmlReturn)) {
          continue;
        }
        d.fv_req.push_back(req5[i]);
        d.fv_req.push_back(req5[i + 1]);
        kept.push_back(got5[i]);
        kept.push_back(got5[i + 1]);
        d.fv_links.push_back(static_cast<int32_t>(l));
      }
      if (!d.fv_links.empty()) {
        d.fv_link_base = 0;
        d.fv_unit_bytes = 1.0;
        d.fv_sum_links = true;
        if (!gpm) {
          d.supported[tx] = d.supported[rx] = true;
          d.probe_status[tx] = d.probe_status[rx] = kStatusOk;
        }
      }
    }
  }
  d.fv_ok = d.fv_totals_ok || !d.fv_links.empty();
  if (!d.fv_ok) return;
  d.fv_prev.assign(d.fv_req.size(), 0);
  d.fv_prev_us.assign(d.fv_req.size(), 0);
  d.fv_rate.assign(d.fv_req.size(), Reading{});
  d.fv_buf.resize(d.fv_req.size());
  // The probe's counters are the first base, so the first tick already has a rate.
  for (size_t i = 0; i < kept.size(); ++i) {
    unsigned long long c = 0;
    if (kept[i].nvmlReturn == NVML_SUCCESS && CounterValue(kept[i].valueType, kept[i].value, &c)) {
      d.fv_prev[i] = c;
      d.fv_prev_us[i] = kept[i].timestamp > 0 ? kept[i].timestamp : ClockUs(CLOCK_REALTIME);
    }
  }
}

void NvmlSampler::ReadNvlink(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out,
                             int64_t now_ns) {
  const NvmlFunctions& f = lib_->fn();
  d.fv_buf = d.fv_req;
  nvmlReturn_t r = f.DeviceGetFieldValues(d.handle, static_cast<int>(d.fv_buf.size()), d.fv_buf.data());
  ++calls_;
  if (CheckLost(d, r)) return;
  // rate: counter delta (KiB) over the field timestamps' delta -> bytes/s.
  auto rate = [&](size_t i) -> Reading {
    const nvmlFieldValue_t& v = d.fv_buf[i];
    nvmlReturn_t er = r != NVML_SUCCESS ? r : v.nvmlReturn;
    unsigned long long c = 0;
    if (er == NVML_SUCCESS && !CounterValue(v.valueType, v.value, &c)) er = NVML_ERROR_NO_DATA;
    if (er != NVML_SUCCESS) {
      d.fv_prev_us[i] = 0;  // the next good read starts a new base
      d.fv_rate[i] = Reading{kMissingF64, er, Source::kNvmlFields, now_ns};
      return d.fv_rate[i];
    }
    long long ts = v.timestamp > 0 ? v.timestamp : ClockUs(CLOCK_REALTIME);
    long long prev_ts = d.fv_prev_us[i];
    unsigned long long prev = d.fv_prev[i];
    if (prev_ts != 0 && ts <= prev_ts) return d.fv_rate[i];  // the driver has no newer counter
    d.fv_prev[i] = c;
    d.fv_prev_us[i] = ts;
    if (prev_ts == 0 || c < prev) {
      // First base, or the counter went back (driver reload): no rate for this interval.
      d.fv_rate[i] = Reading{kMissingF64, kStatusNotSampled, Source::kNvmlFields, now_ns};
      return d.fv_rate[i];
    }
    double secs = static_cast<double>(ts - prev_ts) / 1e6;
    d.fv_rate[i] = Reading{static_cast<double>(c - prev) * d.fv_unit_bytes / secs, kStatusOk,
                           Source::kNvmlFields, now_ns};
    return d.fv_rate[i];
  };
  if (d.fv_totals_ok) {
    Reading t = rate(0), x = rate(1);
    if (!info.gpm_supported) {
      if (t.status != kStatusNotSampled) out.at(Metric::kNvlinkTxBytesPerS) = t;
      if (x.status != kStatusNotSampled) out.at(Metric::kNvlinkRxBytesPerS) = x;
      d.carried[static_cast<size_t>(Metric::kNvlinkTxBytesPerS)] = t;
      d.carried[static_cast<size_t>(Metric::kNvlinkRxBytesPerS)] = x;
    }
  }
  out.nvlinks.clear();
  for (size_t k = 0; k < d.fv_links.size(); ++k) {
    LinkReading lr;
    lr.link = d.fv_links[k];
    lr.tx = rate(d.fv_link_base + 2 * k);
    lr.rx = rate(d.fv_link_base + 1 + 2 * k);
    out.nvlinks.push_back(lr);
  }
  if (d.fv_sum_links && !info.gpm_supported) {
    // Totals from the links: valid only when every link has a rate this tick.
    for (int dir = 0; dir < 2; ++dir) {
      Metric m = dir == 0 ? Metric::kNvlinkTxBytesPerS : Metric::kNvlinkRxBytesPerS;
      Reading sum{0.0, kStatusOk, Source::kNvmlFields, now_ns};
      for (const LinkReading& lr : out.nvlinks) {
        const Reading& x = dir == 0 ? lr.tx : lr.rx;
        if (x.valid()) {
          sum.value += x.value;
          continue;
        }
        sum = Reading{kMissingF64, x.status, Source::kNvmlFields, now_ns};
        break;
      }
      if (sum.status == kStatusNotSampled) continue;  // warm-up: the carried value stands
      out.at(m) = sum;
      d.carried[static_cast<size_t>(m)] = sum;
    }
  }
}

void NvmlSampler::ProbeMig(DeviceState& d, bool gpm) {
  const NvmlFunctions& f = lib_->fn();
  if (!f.DeviceGetMaxMigDeviceCount || !f.DeviceGetMigDeviceHandleByIndex || d.lost) return;
  unsigned max = 0;
  nvmlReturn_t r = f.DeviceGetMaxMigDeviceCount(d.handle, &max);
  ++calls_;
  if (CheckLost(d, r) || r != NVML_SUCCESS) return;
  d.mig_gpm = gpm && f.GpmMigSampleGet != nullptr;
  for (unsigned i = 0; i < max; ++i) {
    nvmlDevice_t h = nullptr;
    r = f.DeviceGetMigDeviceHandleByIndex(d.handle, i, &h);
    ++calls_;
    if (r != NVML_SUCCESS || !h) continue;  // NOT_FOUND: an empty slot
    DeviceState::MigState m;
    m.handle = h;
    m.last.index = static_cast<int32_t>(i);
    unsigned id = 0;
    if (f.DeviceGetGpuInstanceId && f.DeviceGetGpuInstanceId(h, &id) == NVML_SUCCESS) {
      m.last.gpu_instance_id = static_cast<int32_t>(id);
    }
    if (f.DeviceGetComputeInstanceId && f.DeviceGetComputeInstanceId(h, &id) == NVML_SUCCESS) {
      m.last.compute_instance_id = static_cast<int32_t>(id);
    }
    char ub[kNvmlUuidBufferSize] = {};
    if (f.DeviceGetUUID && f.DeviceGetUUID(h, ub, sizeof ub) == NVML_SUCCESS) m.last.uuid = ub;
    calls_ += 3;
    if (f.DeviceGetMemoryInfo_v2) {
      nvmlMemory_v2_t mv{};
      mv.version = kNvmlMemoryV2Version;
      m.mem_v2 = f.DeviceGetMemoryInfo_v2(h, &mv) == NVML_SUCCESS;
      ++calls_;
    }
    if (d.mig_gpm && IsValid(m.last.gpu_instance_id) && f.GpmSampleAlloc(&m.gpm_prev) == NVML_SUCCESS &&
        f.GpmSampleAlloc(&m.gpm_cur) != NVML_SUCCESS) {
      m.gpm_cur = nullptr;
    }
    d.mig.push_back(std::move(m));
  }
}

void NvmlSampler::ReadMig(DeviceState& d, DeviceSnapshot& out, int64_t now_ns) {
  const NvmlFunctions& f = lib_->fn();
  out.mig.clear();
  for (DeviceState::MigState& m : d.mig) {
    if (m.mem_ok && (m.mem_v2 ? f.DeviceGetMemoryInfo_v2 != nullptr : f.DeviceGetMemoryInfo != nullptr)) {
      nvmlReturn_t r;
      double used = kMissingF64, total = kMissingF64;
      if (m.mem_v2) {
        nvmlMemory_v2_t mv{};
        mv.version = kNvmlMemoryV2Version;
        r = f.DeviceGetMemoryInfo_v2(m.handle, &mv);
        used = static_cast<double>(mv.used);
        total = static_cast<double>(mv.total);
      } else {
        nvmlMemory_t mv{};
        r = f.DeviceGetMemoryInfo(m.handle, &mv);
        used = static_cast<double>(mv.used);
        total = static_cast<double>(mv.total);
      }
      ++calls_;
      if (IsPermanentlyUnsupported(r)) m.mem_ok = false;
      m.last.mem_used = r == NVML_SUCCESS ? Reading{used, kStatusOk, Source::kNvmlPoll, now_ns}
                                          : Reading{kMissingF64, r, Source::kNvmlPoll, now_ns};
      m.last.mem_total = r == NVML_SUCCESS ? Reading{total, kStatusOk, Source::kNvmlPoll, now_ns}
                                           : Reading{kMissingF64, r, Source::kNvmlPoll, now_ns};
    } else if (!m.mem_ok || !IsValid(m.last.mem_used.ts_ns)) {
      m.last.mem_used = m.last.mem_total = Reading{kMissingF64, NVML_ERROR_NOT_SUPPORTED, Source::kNone, now_ns};
    }
    Reading* real[] = {&m.last.sm_active, &m.last.sm_occupancy, &m.last.tensor_active, &m.last.dram_active};
    if (!m.gpm_prev || !m.gpm_cur) {
      for (Reading* x : real) *x = Reading{kMissingF64, NVML_ERROR_NOT_SUPPORTED, Source::kNone, now_ns};
    } else {
      int64_t mono = MonoNowNs();
      if (!m.gpm_have_prev || mono - m.gpm_prev_ns >= kGpmMinGapNs) {
        unsigned gi = static_cast<unsigned>(m.last.gpu_instance_id);
        nvmlReturn_t r = f.GpmMigSampleGet(d.handle, gi, m.gpm_cur);
        ++calls_;
        if (r != NVML_SUCCESS) {
          for (Reading* x : real) *x = Reading{kMissingF64, r, Source::kGpm, now_ns};
        } else {
          if (m.gpm_have_prev) {
            static constexpr unsigned kIds[] = {kGpmSmUtil, kGpmSmOccupancy, kGpmAnyTensorUtil,
                                                kGpmDramBwUtil};
            auto mg = std::make_unique<nvmlGpmMetricsGet_t>();
            std::memset(mg.get(), 0, sizeof(nvmlGpmMetricsGet_t));
            mg->version = kNvmlGpmMetricsGetVersion;
            mg->numMetrics = 4;
            mg->sample1 = m.gpm_prev;
            mg->sample2 = m.gpm_cur;
            for (size_t i = 0; i < 4; ++i) mg->metrics[i].metricId = kIds[i];
            nvmlReturn_t mr = f.GpmMetricsGet(mg.get());
            ++calls_;
            for (size_t i = 0; i < 4; ++i) {
              nvmlReturn_t er = mr == NVML_SUCCESS ? mg->metrics[i].nvmlReturn : mr;
              *real[i] = er == NVML_SUCCESS && IsValid(mg->metrics[i].value)
                             ? Reading{mg->metrics[i].value * 0.01, kStatusOk, Source::kGpm, now_ns}
                             : Reading{kMissingF64, er == NVML_SUCCESS ? NVML_ERROR_NO_DATA : er,
                                       Source::kGpm, now_ns};
            }
          }
          std::swap(m.gpm_prev, m.gpm_cur);
          m.gpm_have_prev = true;
          m.gpm_prev_ns = mono;
        }
      }
    }
    out.mig.push_back(m.last);
  }
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
  bool dcgm_ok = false;
  if (dcgm_) {
    dcgm_ok = dcgm_->ReadLatest(&dcgm_values_).ok();  // one call for every GPU
    ++calls_;
  }
  for (auto& dp : states_) {
    DeviceState& d = *dp;
    const DeviceInfo& info = system_->devices[d.info_slot];
    DeviceSnapshot out;
    out.index = d.index;
    bool was_lost = d.lost;
    if (!d.lost) {
      ReadFast(d, info, out, snap.ts_ns);
      if (!d.lost && slow) ReadSlow(d, info, out, snap.ts_ns);
      if (!d.lost && info.real_source == Source::kDcgm) ApplyDcgm(d, out, snap.ts_ns, dcgm_ok);
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
  if (d.lost) return;
  if (d.fv_ok) ReadNvlink(d, info, out, now_ns);
  if (!d.lost && !d.mig.empty()) ReadMig(d, out, now_ns);
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
