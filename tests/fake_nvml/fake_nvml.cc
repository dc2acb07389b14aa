// Fake libnvidia-ml.so.1 for tests: exports the NVML subset gpuwhy uses with
// the real (versioned) symbol names and ABI, driven by a scenario file named
// by GPUWHY_FAKE_NVML_SCENARIO (format: tests/fake_nvml/README.md). Loaded
// through the same dlopen path as the real library (GPUWHY_NVML_LIBRARY or
// LD_LIBRARY_PATH), so tests exercise the production code unchanged.
//
// Time: "t" is milliseconds since the first nvmlInit in this process. Driver
// sample timestamps are CLOCK_MONOTONIC microseconds (NVML's own clock domain
// is unspecified; real drivers have been seen using time since boot).
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "record/nvml/nvml_api.h"

using namespace gpuwhy::record::nvml;  // NOLINT: implementing that API

namespace {

// Pattern: a value over time.
struct Pattern {
  enum Kind { kConstant, kSquare, kSteps } kind = kConstant;
  double value = 0;                       // constant
  double low = 0, high = 0, duty = 0.5;   // square
  double period_ms = 1000;
  std::vector<double> steps;              // steps: each lasts period_ms, repeating
  double At(double t_ms) const {
    switch (kind) {
      case kConstant: return value;
      case kSquare: {
        double ph = std::fmod(t_ms, period_ms) / period_ms;
        return ph < duty ? high : low;
      }
      case kSteps: {
        if (steps.empty()) return 0;
        size_t i = static_cast<size_t>(t_ms / period_ms) % steps.size();
        return steps[i];
      }
    }
    return 0;
  }
  // Mean over [a, b] (for GPM, which averages between two samples).
  double Mean(double a, double b) const {
    if (b <= a || kind == kConstant) return At(a);
    double sum = 0;
    const int n = 64;
    for (int i = 0; i < n; ++i) sum += At(a + (b - a) * (i + 0.5) / n);
    return sum / n;
  }
};

struct FakeProcess {
  int pid = 0;            // 0 with `children` set: the loading process's children
  bool children = false;
  bool mps = false;
  std::string name;
  unsigned long long mem = 0;
  double util = 0;
};

struct FakeMig {
  unsigned gi = 0, ci = 0;
  unsigned long long mem_total = 0, mem_used = 0;
  double sm_active_pct = 0;
};

struct FakeDevice {
  std::string name = "NVIDIA Fake GPU";
  std::string uuid;
  unsigned arch = 9;
  int cc_major = 9, cc_minor = 0;
  unsigned cores = 16896;
  unsigned long long memory = 80ull << 30;
  unsigned power_limit = 700000;
  bool gpm = true;
  unsigned compute_mode = 0;
  unsigned mig = 0;
  unsigned nvlinks = 0;                    // NVLink count (0: no NVLink, fields unsupported)
  std::vector<FakeMig> migs;               // MIG devices (with `mig DEV 1`)
  bool nvlink5 = false;                    // Blackwell: per-link byte counters 202/204 only
  std::map<std::string, Pattern> metrics;  // name -> pattern
  std::set<std::string> unsupported;       // feature names returning NOT_SUPPORTED
  double lost_after_ms = -1;
  int lost_code = NVML_ERROR_GPU_IS_LOST;
  std::vector<FakeProcess> processes;
};

struct State {
  std::mutex mu;
  bool loaded = false;
  int init_count = 0;
  int init_error = 0;
  double sample_period_ms = 1000.0 / 6;
  unsigned ring = 120;      // driver sample buffer capacity
  size_t stride = 24;       // bytes per _v3 process record (32 emulates R535)
  int64_t t0_us = 0;
  std::vector<FakeDevice> devices;
  unsigned long long calls = 0;
};

State& S() {
  static State s;
  return s;
}

int64_t MonoUs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

double NowMs() { return (MonoUs() - S().t0_us) / 1000.0; }

bool ParsePattern(std::istringstream& in, Pattern& p) {
  std::string kind;
  in >> kind;
  if (kind == "constant") {
    p.kind = Pattern::kConstant;
    in >> p.value;
  } else if (kind == "square") {
    p.kind = Pattern::kSquare;
    in >> p.low >> p.high >> p.period_ms >> p.duty;
  } else if (kind == "steps") {
    p.kind = Pattern::kSteps;
    in >> p.period_ms;
    double v;
    while (in >> v) p.steps.push_back(v);
  } else {
    return false;
  }
  return true;
}

std::string Unquote(std::istringstream& in) {
  std::string w;
  in >> std::ws;
  if (in.peek() == '"') {
    in.get();
    std::getline(in, w, '"');
  } else {
    in >> w;
  }
  return w;
}

void DefaultDevice(FakeDevice& d, size_t i) {
  char u[64];
  std::snprintf(u, sizeof u, "GPU-fake0000-0000-0000-0000-%012zu", i);
  d.uuid = u;
  d.metrics["gpu_util"] = Pattern{};
  d.metrics["gpu_util"].value = 50;
}

void LoadScenario() {
  State& s = S();
  if (s.loaded) return;
  s.loaded = true;
  const char* path = std::getenv("GPUWHY_FAKE_NVML_SCENARIO");
  if (!path || !*path) {
    s.devices.resize(1);
    DefaultDevice(s.devices[0], 0);
    return;
  }
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "devices") {
      size_t n = 0;
      in >> n;
      s.devices.resize(n);
      for (size_t i = 0; i < n; ++i) DefaultDevice(s.devices[i], i);
      continue;
    }
    if (key == "init_error") { in >> s.init_error; continue; }
    if (key == "sample_period_ms") { in >> s.sample_period_ms; continue; }
    if (key == "ring") { in >> s.ring; continue; }
    if (key == "process_stride") { in >> s.stride; continue; }
    // Per-device keys: KEY DEV ...
    size_t dev = 0;
    if (!(in >> dev) || dev >= s.devices.size()) continue;
    FakeDevice& d = s.devices[dev];
    if (key == "name") d.name = Unquote(in);
    else if (key == "uuid") in >> d.uuid;
    else if (key == "arch") in >> d.arch;
    else if (key == "cc") { char dot; in >> d.cc_major >> dot >> d.cc_minor; }
    else if (key == "cores") in >> d.cores;
    else if (key == "memory") in >> d.memory;
    else if (key == "power_limit") in >> d.power_limit;
    else if (key == "gpm") { int g = 0; in >> g; d.gpm = g != 0; }
    else if (key == "compute_mode") in >> d.compute_mode;
    else if (key == "mig") in >> d.mig;
    else if (key == "nvlinks") in >> d.nvlinks;
    else if (key == "nvlink5") { int g = 0; in >> g; d.nvlink5 = g != 0; }
    else if (key == "mig_instance") {
      FakeMig m;
      in >> m.gi >> m.ci >> m.mem_total >> m.mem_used >> m.sm_active_pct;
      d.migs.push_back(m);
    }
    else if (key == "metric") {
      std::string name;
      in >> name;
      Pattern p;
      if (ParsePattern(in, p)) d.metrics[name] = p;
    } else if (key == "unsupported") {
      std::string feat;
      while (in >> feat) d.unsupported.insert(feat);
    } else if (key == "lost") {
      in >> d.lost_after_ms;
      int code = 0;
      if (in >> code) d.lost_code = code;
    } else if (key == "process") {
      FakeProcess p;
      std::string w;
      while (in >> w) {
        if (w == "pid") {
          std::string v;
          in >> v;
          if (v == "children") p.children = true;
          else p.pid = std::atoi(v.c_str());
        } else if (w == "name") p.name = Unquote(in);
        else if (w == "mem") in >> p.mem;
        else if (w == "util") in >> p.util;
        else if (w == "mps") p.mps = true;
      }
      d.processes.push_back(p);
    }
  }
}

// Dev: the device behind a handle (handles are 1-based indices).
FakeDevice* Dev(nvmlDevice_t h) {
  auto i = reinterpret_cast<uintptr_t>(h);
  if (i == 0 || i > S().devices.size()) return nullptr;
  return &S().devices[i - 1];
}

// MIG device handles: 0x1000 * (parent index + 1) + slot + 1.
constexpr uintptr_t kMigHandleBase = 0x1000;
bool MigOf(nvmlDevice_t h, FakeDevice** parent, FakeMig** mig) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v < kMigHandleBase) return false;
  size_t p = v / kMigHandleBase - 1, slot = (v % kMigHandleBase) - 1;
  if (p >= S().devices.size() || slot >= S().devices[p].migs.size()) return false;
  *parent = &S().devices[p];
  *mig = &S().devices[p].migs[slot];
  return true;
}

// Check: common entry checks; returns SUCCESS or the error to give back.
nvmlReturn_t Check(nvmlDevice_t h, FakeDevice** out, const char* feature) {
  State& s = S();
  ++s.calls;
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  FakeDevice* d = Dev(h);
  if (!d) return NVML_ERROR_INVALID_ARGUMENT;
  if (d->lost_after_ms >= 0 && NowMs() >= d->lost_after_ms) return d->lost_code;
  if (feature && d->unsupported.count(feature)) return NVML_ERROR_NOT_SUPPORTED;
  *out = d;
  return NVML_SUCCESS;
}

double Metric(const FakeDevice& d, const char* name, double t_ms, double def = 0) {
  auto it = d.metrics.find(name);
  return it == d.metrics.end() ? def : it->second.At(t_ms);
}

std::vector<int> ChildrenOfSelf() {
  std::vector<int> out;
  int self = getpid();
  DIR* dir = opendir("/proc");
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE* f = std::fopen(path, "r");
    if (!f) continue;
    char buf[512] = {};
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* close = std::strrchr(buf, ')');
    if (!close) continue;
    char st = 0;
    int ppid = 0;
    if (std::sscanf(close + 1, " %c %d", &st, &ppid) == 2 && ppid == self && st != 'Z') {
      out.push_back(pid);
    }
  }
  closedir(dir);
  return out;
}

struct ProcRow {
  unsigned pid;
  unsigned long long mem;
  double util;
};

std::vector<ProcRow> Processes(const FakeDevice& d, bool mps) {
  std::vector<ProcRow> rows;
  for (const FakeProcess& p : d.processes) {
    if (p.mps != mps) continue;
    if (p.children) {
      for (int c : ChildrenOfSelf()) rows.push_back({static_cast<unsigned>(c), p.mem, p.util});
    } else {
      rows.push_back({static_cast<unsigned>(p.pid), p.mem, p.util});
    }
  }
  return rows;
}

nvmlReturn_t ListProcesses(nvmlDevice_t h, unsigned* count, void* infos, size_t stride, bool mps) {
  FakeDevice* d = nullptr;
  if (nvmlReturn_t r = Check(h, &d, mps ? "mps" : "processes"); r != NVML_SUCCESS) return r;
  std::vector<ProcRow> rows = Processes(*d, mps);
  if (*count < rows.size() || (!infos && !rows.empty())) {
    *count = static_cast<unsigned>(rows.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = static_cast<unsigned>(rows.size());
  auto* out = static_cast<unsigned char*>(infos);
  for (size_t i = 0; i < rows.size(); ++i) {
    unsigned char* rec = out + i * stride;
    std::memset(rec, 0, stride);
    std::memcpy(rec, &rows[i].pid, sizeof(unsigned));
    std::memcpy(rec + 8, &rows[i].mem, sizeof(unsigned long long));
    if (stride >= 24) {
      unsigned none = 0xFFFFFFFFu;
      std::memcpy(rec + 16, &none, 4);
      std::memcpy(rec + 20, &none, 4);
    }
  }
  return NVML_SUCCESS;
}

struct GpmSampleImpl {
  double t_ms = 0;
  int device = -1;
  int gi = -1;  // a MIG GPU instance sample (nvmlGpmMigSampleGet)
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  LoadScenario();
  if (s.init_error) return s.init_error;
  if (s.init_count++ == 0) s.t0_us = MonoUs();
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  --s.init_count;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_GPU_NOT_FOUND: return "GPU not found";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    default: return "Unknown Error";
  }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  std::snprintf(buf, len, "%s", "999.99.fake");
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetNVMLVersion(char* buf, unsigned len) {
  std::snprintf(buf, len, "%s", "13.999.fake");
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  *n = static_cast<unsigned>(s.devices.size());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* h) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (i >= s.devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *h = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(i + 1));
  return NVML_SUCCESS;
}

#define FAKE_BEGIN(feature)                                         \
  std::lock_guard<std::mutex> lock(S().mu);                         \
  FakeDevice* d = nullptr;                                          \
  if (nvmlReturn_t r_ = Check(h, &d, feature); r_ != NVML_SUCCESS) \
    return r_;                                                      \
  const double t = NowMs();                                         \
  (void)t

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char* buf, unsigned len) {
  FAKE_BEGIN(nullptr);
  std::snprintf(buf, len, "%s", d->name.c_str());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char* buf, unsigned len) {
  {
    std::lock_guard<std::mutex> lock(S().mu);
    FakeDevice* p = nullptr;
    FakeMig* m = nullptr;
    if (MigOf(h, &p, &m)) {
      std::snprintf(buf, len, "MIG-fake-%s-gi%u-ci%u", p->uuid.c_str(), m->gi, m->ci);
      return NVML_SUCCESS;
    }
  }
  FAKE_BEGIN(nullptr);
  std::snprintf(buf, len, "%s", d->uuid.c_str());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t h, int* ma, int* mi) {
  FAKE_BEGIN(nullptr);
  *ma = d->cc_major;
  *mi = d->cc_minor;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t h, unsigned* a) {
  FAKE_BEGIN(nullptr);
  *a = d->arch;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t h, unsigned* c) {
  FAKE_BEGIN(nullptr);
  *c = d->cores;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t h, unsigned* w) {
  FAKE_BEGIN(nullptr);
  *w = 5120;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t h, nvmlComputeMode_t* m) {
  FAKE_BEGIN(nullptr);
  *m = static_cast<nvmlComputeMode_t>(d->compute_mode);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned* cur, unsigned* pend) {
  FAKE_BEGIN("mig");
  *cur = d->mig;
  *pend = d->mig;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t* u) {
  FAKE_BEGIN("utilization");
  if (d->mig) return NVML_ERROR_NOT_SUPPORTED;  // as NVML: no GPU-Util on MIG-enabled GPUs
  u->gpu = static_cast<unsigned>(std::lround(Metric(*d, "gpu_util", t)));
  u->memory = static_cast<unsigned>(std::lround(Metric(*d, "mem_util", t)));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t h, nvmlSamplingType_t type,
                                                unsigned long long last_seen, nvmlValueType_t* vt,
                                                unsigned* count, nvmlSample_t* samples) {
  FAKE_BEGIN("samples");
  if (d->mig) return NVML_ERROR_NOT_SUPPORTED;
  const char* name = type == NVML_GPU_UTILIZATION_SAMPLES    ? "gpu_util"
                     : type == NVML_MEMORY_UTILIZATION_SAMPLES ? "mem_util"
                                                               : nullptr;
  if (!name) return NVML_ERROR_NOT_SUPPORTED;
  State& s = S();
  if (!samples) {
    *count = s.ring;
    return NVML_SUCCESS;
  }
  *vt = NVML_VALUE_TYPE_UNSIGNED_INT;
  // The ring holds the last `ring` samples on a grid of sample_period_ms since t0.
  int64_t period_us = static_cast<int64_t>(s.sample_period_ms * 1000);
  int64_t now_us = MonoUs();
  int64_t k_last = (now_us - s.t0_us) / period_us;
  // The ring is full from the start, like a driver that has been running.
  int64_t k_first = k_last - static_cast<int64_t>(s.ring) + 1;
  unsigned n = 0;
  for (int64_t k = k_first; k <= k_last && n < *count; ++k) {
    unsigned long long ts = static_cast<unsigned long long>(s.t0_us + k * period_us);
    if (ts <= last_seen) continue;
    double tm = static_cast<double>(k * period_us) / 1000.0;
    samples[n].timeStamp = ts;
    double v = tm < 0 ? 0.0 : Metric(*d, name, tm);  // idle before nvmlInit
    samples[n].sampleValue.uiVal = static_cast<unsigned>(std::lround(v));
    ++n;
  }
  *count = n;
  return n == 0 ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned* mw) {
  FAKE_BEGIN("power");
  *mw = static_cast<unsigned>(Metric(*d, "power", t, 100000));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned* mw) {
  FAKE_BEGIN("power_limit");
  *mw = d->power_limit;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, nvmlClockType_t type, unsigned* mhz) {
  FAKE_BEGIN("clocks");
  *mhz = static_cast<unsigned>(type == NVML_CLOCK_MEM ? Metric(*d, "mem_clock", t, 2619)
                                                      : Metric(*d, "sm_clock", t, 1980));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, nvmlClockType_t type, unsigned* mhz) {
  FAKE_BEGIN("clocks");
  *mhz = type == NVML_CLOCK_MEM ? 2619 : 1980;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long* m) {
  FAKE_BEGIN("clocks_event");
  *m = static_cast<unsigned long long>(Metric(*d, "clock_event_reasons", t, 0));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, nvmlPcieUtilCounter_t c, unsigned* kbps) {
  FAKE_BEGIN("pcie");
  *kbps = static_cast<unsigned>(Metric(*d, c == NVML_PCIE_UTIL_TX_BYTES ? "pcie_tx_kbps" : "pcie_rx_kbps", t, 0));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, nvmlTemperatureSensors_t, unsigned* c) {
  FAKE_BEGIN("temperature");
  *c = static_cast<unsigned>(Metric(*d, "temperature", t, 45));
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t* m) {
  {
    std::lock_guard<std::mutex> lock(S().mu);
    FakeDevice* p = nullptr;
    FakeMig* mg = nullptr;
    if (MigOf(h, &p, &mg)) {
      m->total = mg->mem_total;
      m->used = mg->mem_used;
      m->free = m->total - std::min(m->total, m->used);
      return NVML_SUCCESS;
    }
  }
  FAKE_BEGIN("memory");
  m->total = d->memory;
  m->used = static_cast<unsigned long long>(Metric(*d, "mem_used", t, 1e9));
  m->free = m->total - std::min(m->total, m->used);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t* m) {
  if (m->version != kNvmlMemoryV2Version) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  {
    std::lock_guard<std::mutex> lock(S().mu);
    FakeDevice* p = nullptr;
    FakeMig* mg = nullptr;
    if (MigOf(h, &p, &mg)) {
      m->total = mg->mem_total;
      m->reserved = 0;
      m->used = mg->mem_used;
      m->free = m->total - std::min(m->total, m->used);
      return NVML_SUCCESS;
    }
  }
  FAKE_BEGIN("memory");
  m->total = d->memory;
  m->reserved = 512ull << 20;
  m->used = static_cast<unsigned long long>(Metric(*d, "mem_used", t, 1e9));
  m->free = m->total - std::min(m->total, m->used + m->reserved);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned* count, void* infos) {
  return ListProcesses(h, count, infos, S().stride, false);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t h, unsigned* count, void* infos) {
  return ListProcesses(h, count, infos, S().stride, true);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h, nvmlProcessUtilizationSample_t* u,
                                                           unsigned* count, unsigned long long last_seen) {
  FAKE_BEGIN("process_util");
  std::vector<ProcRow> rows = Processes(*d, false);
  std::vector<ProcRow> busy;
  for (const auto& r : rows)
    if (r.util > 0) busy.push_back(r);
  unsigned long long now = static_cast<unsigned long long>(MonoUs());
  if (busy.empty() || now <= last_seen) return NVML_ERROR_NOT_FOUND;
  if (!u || *count < busy.size()) {
    *count = static_cast<unsigned>(busy.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (size_t i = 0; i < busy.size(); ++i) {
    u[i] = nvmlProcessUtilizationSample_t{};
    u[i].pid = busy[i].pid;
    u[i].timeStamp = now;
    u[i].smUtil = static_cast<unsigned>(busy[i].util);
    u[i].memUtil = static_cast<unsigned>(busy[i].util / 2);
  }
  *count = static_cast<unsigned>(busy.size());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetProcessName(unsigned pid, char* buf, unsigned len) {
  std::lock_guard<std::mutex> lock(S().mu);
  for (const FakeDevice& d : S().devices) {
    for (const FakeProcess& p : d.processes) {
      if (!p.children && static_cast<unsigned>(p.pid) == pid) {
        std::snprintf(buf, len, "%s", p.name.c_str());
        return NVML_SUCCESS;
      }
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t h, nvmlGpmSupport_t* s) {
  FAKE_BEGIN(nullptr);
  if (s->version != kNvmlGpmSupportVersion) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  s->isSupportedDevice = d->gpm && !d->unsupported.count("gpm") ? 1 : 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* s) {
  *s = reinterpret_cast<nvmlGpmSample_t>(new GpmSampleImpl());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s) {
  delete reinterpret_cast<GpmSampleImpl*>(s);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t h, nvmlGpmSample_t s) {
  FAKE_BEGIN("gpm");
  if (!d->gpm) return NVML_ERROR_NOT_SUPPORTED;
  auto* impl = reinterpret_cast<GpmSampleImpl*>(s);
  impl->t_ms = t;
  impl->device = static_cast<int>(reinterpret_cast<uintptr_t>(h)) - 1;
  impl->gi = -1;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t h, unsigned gi, nvmlGpmSample_t s) {
  FAKE_BEGIN("gpm");
  if (!d->gpm || !d->mig) return NVML_ERROR_NOT_SUPPORTED;
  bool found = false;
  for (const FakeMig& m : d->migs) found = found || m.gi == gi;
  if (!found) return NVML_ERROR_NOT_FOUND;
  auto* impl = reinterpret_cast<GpmSampleImpl*>(s);
  impl->t_ms = t;
  impl->device = static_cast<int>(reinterpret_cast<uintptr_t>(h)) - 1;
  impl->gi = static_cast<int>(gi);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned* n) {
  FAKE_BEGIN("mig");
  *n = d->mig ? 7 : 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned i,
                                                                                      nvmlDevice_t* out) {
  FAKE_BEGIN("mig");
  if (!d->mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (i >= d->migs.size()) return NVML_ERROR_NOT_FOUND;
  size_t parent = reinterpret_cast<uintptr_t>(h);
  *out = reinterpret_cast<nvmlDevice_t>(parent * kMigHandleBase + i + 1);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned* id) {
  std::lock_guard<std::mutex> lock(S().mu);
  FakeDevice* p = nullptr;
  FakeMig* m = nullptr;
  if (!MigOf(h, &p, &m)) return NVML_ERROR_INVALID_ARGUMENT;  // only MIG device handles
  *id = m->gi;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned* id) {
  std::lock_guard<std::mutex> lock(S().mu);
  FakeDevice* p = nullptr;
  FakeMig* m = nullptr;
  if (!MigOf(h, &p, &m)) return NVML_ERROR_INVALID_ARGUMENT;
  *id = m->ci;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* m) {
  std::lock_guard<std::mutex> lock(S().mu);
  ++S().calls;
  if (m->version != kNvmlGpmMetricsGetVersion) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  auto* a = reinterpret_cast<GpmSampleImpl*>(m->sample1);
  auto* b = reinterpret_cast<GpmSampleImpl*>(m->sample2);
  if (!a || !b || a->device < 0 || a->device != b->device || a->gi != b->gi) return NVML_ERROR_INVALID_ARGUMENT;
  const FakeDevice& d = S().devices[static_cast<size_t>(a->device)];
  if (m->numMetrics > 98) return NVML_ERROR_INVALID_ARGUMENT;  // like pre-12.9 drivers
  if (a->gi >= 0) {
    // A MIG instance: SM utilization from its scenario line; the rest is not provided.
    const FakeMig* inst = nullptr;
    for (const FakeMig& x : d.migs)
      if (static_cast<int>(x.gi) == a->gi) inst = &x;
    for (unsigned i = 0; i < m->numMetrics; ++i) {
      nvmlGpmMetric_t& x = m->metrics[i];
      x.nvmlReturn = inst && x.metricId == kGpmSmUtil ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
      x.value = x.nvmlReturn == NVML_SUCCESS ? inst->sm_active_pct : 0;
    }
    return NVML_SUCCESS;
  }
  for (unsigned i = 0; i < m->numMetrics; ++i) {
    nvmlGpmMetric_t& x = m->metrics[i];
    const char* name = nullptr;
    switch (x.metricId) {
      case kGpmGraphicsUtil: name = "gr_engine_active"; break;
      case kGpmSmUtil: name = "sm_active"; break;
      case kGpmSmOccupancy: name = "sm_occupancy"; break;
      case kGpmAnyTensorUtil: name = "tensor_active"; break;
      case kGpmDramBwUtil: name = "dram_active"; break;
      case kGpmFp64Util: name = "fp64_active"; break;
      case kGpmFp32Util: name = "fp32_active"; break;
      case kGpmFp16Util: name = "fp16_active"; break;
      case kGpmPcieTxPerSec: name = "pcie_tx_mibps"; break;
      case kGpmPcieRxPerSec: name = "pcie_rx_mibps"; break;
      case kGpmNvlinkTotalTxPerSec: name = "nvlink_tx_mibps"; break;
      case kGpmNvlinkTotalRxPerSec: name = "nvlink_rx_mibps"; break;
      default: break;
    }
    if (!name || d.unsupported.count(name)) {
      x.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      continue;
    }
    auto it = d.metrics.find(name);
    x.value = it == d.metrics.end() ? 0.0 : it->second.Mean(a->t_ms, b->t_ms);
    x.nvmlReturn = NVML_SUCCESS;
  }
  return NVML_SUCCESS;
}

// Field values: NVLink link count and cumulative NVLink throughput counters
// (KiB) integrated from the per-link rate patterns nvlink_tx_kibps /
// nvlink_rx_kibps. Each entry carries its own nvmlReturn, like the driver.
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int n,
                                                                           nvmlFieldValue_t* values) {
  FAKE_BEGIN("field_values");
  if (n < 0 || (n > 0 && !values)) return NVML_ERROR_INVALID_ARGUMENT;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  long long wall_us = static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
  for (int i = 0; i < n; ++i) {
    nvmlFieldValue_t& v = values[i];
    v.timestamp = wall_us;
    v.latencyUsec = 0;
    v.nvmlReturn = NVML_SUCCESS;
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v.value.ullVal = 0;
    bool nvlink_field = v.fieldId >= kNvmlFiNvlinkThroughputDataTx && v.fieldId <= kNvmlFiNvlinkThroughputRawRx;
    if (v.fieldId == kNvmlFiNvlinkLinkCount) {
      if (d->nvlinks == 0 || d->unsupported.count("nvlink")) {
        v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      } else {
        v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v.value.uiVal = d->nvlinks;
      }
    } else if (v.fieldId == kNvmlFiNvlinkCountXmitBytes || v.fieldId == kNvmlFiNvlinkCountRcvBytes) {
      if (!d->nvlink5 || v.scopeId >= d->nvlinks || d->unsupported.count("nvlink")) {
        v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        continue;
      }
      bool tx = v.fieldId == kNvmlFiNvlinkCountXmitBytes;
      auto it = d->metrics.find(tx ? "nvlink_tx_kibps" : "nvlink_rx_kibps");
      double kib = it == d->metrics.end() ? 0.0 : it->second.Mean(0, t) * t / 1000.0;
      v.value.ullVal = static_cast<unsigned long long>(kib * 1024.0);  // bytes
    } else if (nvlink_field) {
      bool total = v.scopeId == kNvmlScopeAllLinks;
      if (d->nvlinks == 0 || d->nvlink5 || d->unsupported.count("nvlink") ||
          (total && d->unsupported.count("nvlink_totals")) || (!total && v.scopeId >= d->nvlinks)) {
        v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        continue;
      }
      bool tx = v.fieldId == kNvmlFiNvlinkThroughputDataTx || v.fieldId == kNvmlFiNvlinkThroughputRawTx;
      auto it = d->metrics.find(tx ? "nvlink_tx_kibps" : "nvlink_rx_kibps");
      double per_link_kib = it == d->metrics.end() ? 0.0 : it->second.Mean(0, t) * t / 1000.0;
      v.value.ullVal = static_cast<unsigned long long>(per_link_kib * (total ? d->nvlinks : 1));
    } else {
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
  }
  return NVML_SUCCESS;
}

// gpuwhyFakeNvmlCalls: calls made into the fake (for the benchmark).
__attribute__((visibility("default"))) unsigned long long gpuwhyFakeNvmlCalls() { return S().calls; }

}  // extern "C"
