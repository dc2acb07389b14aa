// Fake libdcgm.so.4 for tests: the DCGM subset gpuwhy uses (dcgmInit,
// dcgmConnect_v2, field groups, watches, dcgmGetLatestValues_v2) with the
// real symbol names and ABI, driven by a scenario file named by
// GPUWHY_FAKE_DCGM_SCENARIO (format: tests/fake_nvml/README.md). Loaded
// through gpuwhy's own dlopen path (GPUWHY_DCGM_LIBRARY).
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "record/dcgm/dcgm_api.h"

using namespace gpuwhy::record::dcgm;  // NOLINT: implementing that API

namespace {

struct State {
  std::mutex mu;
  bool loaded = false;
  bool initialized = false;
  int connect_error = 0;
  int watch_error = 0;
  int latest_error = 0;
  unsigned gpus = 1;
  std::map<std::pair<unsigned, unsigned>, double> values;  // (gpu, field) -> value
  std::set<std::pair<unsigned, unsigned>> blanks;
  std::vector<unsigned short> fields;  // the one field group
  bool connected = false;
  long long watch_us = 0;
  std::string host;
};

State& S() {
  static State s;
  return s;
}

void LoadScenario() {
  State& s = S();
  if (s.loaded) return;
  s.loaded = true;
  const char* path = std::getenv("GPUWHY_FAKE_DCGM_SCENARIO");
  if (!path || !*path) return;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "connect_error") in >> s.connect_error;
    else if (key == "watch_error") in >> s.watch_error;
    else if (key == "latest_error") in >> s.latest_error;
    else if (key == "gpus") in >> s.gpus;
    else if (key == "value") {
      unsigned g = 0, fid = 0;
      double v = 0;
      if (in >> g >> fid >> v) s.values[{g, fid}] = v;
    } else if (key == "blank") {
      unsigned g = 0, fid = 0;
      if (in >> g >> fid) s.blanks.insert({g, fid});
    }
  }
}

long long WallUs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) dcgmReturn_t dcgmInit() {
  std::lock_guard<std::mutex> lock(S().mu);
  LoadScenario();
  S().initialized = true;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmShutdown() {
  std::lock_guard<std::mutex> lock(S().mu);
  S().initialized = false;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) const char* errorString(dcgmReturn_t r) {
  switch (r) {
    case DCGM_ST_OK: return "Success";
    case DCGM_ST_CONNECTION_NOT_VALID: return "Host engine connection invalid/disconnected";
    case DCGM_ST_PROFILING_NOT_SUPPORTED: return "Profiling is not supported for this group of GPUs or GPU";
    case DCGM_ST_MODULE_NOT_LOADED: return "This request is serviced by a module of DCGM that is not currently loaded";
    default: return "Unknown error";
  }
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmConnect_v2(const char* ip, dcgmConnectV2Params_v2* p,
                                                                   dcgmHandle_t* h) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& s = S();
  if (!s.initialized) return DCGM_ST_UNINITIALIZED;
  if (!ip || !p || !h || p->version != kDcgmConnectV2ParamsVersion2) return DCGM_ST_BADPARAM;
  if (s.connect_error) return s.connect_error;
  s.host = ip;
  s.connected = true;
  *h = 1;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmDisconnect(dcgmHandle_t) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().connected = false;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmFieldGroupCreate(dcgmHandle_t h, int n, unsigned short* ids,
                                                                         const char* name, dcgmFieldGrp_t* g) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (h != 1 || !S().connected) return DCGM_ST_CONNECTION_NOT_VALID;
  if (n <= 0 || n > 128 || !ids || !name || !g) return DCGM_ST_BADPARAM;
  S().fields.assign(ids, ids + n);
  *g = 7;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmFieldGroupDestroy(dcgmHandle_t, dcgmFieldGrp_t) {
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmWatchFields(dcgmHandle_t h, dcgmGpuGrp_t grp, dcgmFieldGrp_t fg,
                                                                    long long freq_us, double, int) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& s = S();
  if (h != 1 || !s.connected) return DCGM_ST_CONNECTION_NOT_VALID;
  if (grp != kDcgmGroupAllGpus || fg != 7 || freq_us < 100000) return DCGM_ST_BADPARAM;
  if (s.watch_error) return s.watch_error;
  s.watch_us = freq_us;
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmUnwatchFields(dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t) {
  return DCGM_ST_OK;
}

__attribute__((visibility("default"))) dcgmReturn_t dcgmUpdateAllFields(dcgmHandle_t, int) { return DCGM_ST_OK; }

__attribute__((visibility("default"))) dcgmReturn_t dcgmGetLatestValues_v2(dcgmHandle_t h, dcgmGpuGrp_t grp,
                                                                           dcgmFieldGrp_t fg,
                                                                           dcgmFieldValueEntityEnumeration_f cb,
                                                                           void* user) {
  std::vector<dcgmFieldValue_v1> vals;
  unsigned gpus = 0;
  {
    std::lock_guard<std::mutex> lock(S().mu);
    State& s = S();
    if (h != 1 || !s.connected) return DCGM_ST_CONNECTION_NOT_VALID;
    if (grp != kDcgmGroupAllGpus || fg != 7 || !cb) return DCGM_ST_BADPARAM;
    if (s.watch_us == 0) return DCGM_ST_NOT_WATCHED;
    if (s.latest_error) return s.latest_error;
    gpus = s.gpus;
    // Like the host engine: a value only changes once per watch period.
    long long ts = WallUs() / s.watch_us * s.watch_us;
    for (unsigned g = 0; g < gpus; ++g) {
      for (unsigned short fid : s.fields) {
        dcgmFieldValue_v1 v;
        std::memset(&v, 0, sizeof v);
        v.version = kDcgmFieldValueVersion1;
        v.fieldId = fid;
        v.fieldType = DCGM_FT_DOUBLE;
        v.ts = ts;
        auto it = s.values.find({g, fid});
        v.value.dbl = (it == s.values.end() || s.blanks.count({g, fid})) ? kDcgmFp64Blank : it->second;
        vals.push_back(v);
      }
    }
  }
  size_t per = vals.size() / (gpus ? gpus : 1);
  for (unsigned g = 0; g < gpus && per > 0; ++g) {
    if (cb(DCGM_FE_GPU, g, vals.data() + g * per, static_cast<int>(per), user) < 0) break;
  }
  return DCGM_ST_OK;
}

}  // extern "C"
