#include "record/dcgm/dcgm_client.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

#include <fmt/format.h>

namespace gpuwhy::record::dcgm {

struct DcgmClient::Functions {
  dcgmInit_fn Init = nullptr;
  dcgmShutdown_fn Shutdown = nullptr;
  dcgmConnect_v2_fn Connect = nullptr;
  dcgmDisconnect_fn Disconnect = nullptr;
  dcgmFieldGroupCreate_fn FieldGroupCreate = nullptr;
  dcgmFieldGroupDestroy_fn FieldGroupDestroy = nullptr;
  dcgmWatchFields_fn WatchFields = nullptr;
  dcgmUnwatchFields_fn UnwatchFields = nullptr;
  dcgmUpdateAllFields_fn UpdateAllFields = nullptr;
  dcgmGetLatestValues_v2_fn GetLatestValues = nullptr;
  dcgmErrorString_fn ErrorString = nullptr;
};

namespace {

template <typename Fn>
bool Resolve(void* handle, Fn& slot, const char* name) {
  if (void* p = dlsym(handle, name)) {
    // Why: POSIX guarantees data/function pointer round trips for dlsym.
    slot = reinterpret_cast<Fn>(p);
    return true;
  }
  return false;
}

// Collect: the enumeration callback; copies each value out (DCGM frees them on return).
int Collect(unsigned int entity_group, unsigned int entity_id, dcgmFieldValue_v1* values,
            int num_values, void* user) {
  if (entity_group != DCGM_FE_GPU || !values || num_values <= 0) return 0;
  auto* out = static_cast<std::vector<DcgmValue>*>(user);
  for (int i = 0; i < num_values; ++i) {
    const dcgmFieldValue_v1& v = values[i];
    DcgmValue d;
    d.gpu_id = entity_id;
    d.field_id = v.fieldId;
    d.status = v.status;
    d.ts_ns = v.ts > 0 ? v.ts * kNsPerUs : kMissingI64;
    if (v.status == DCGM_ST_OK) {
      if (v.fieldType == DCGM_FT_DOUBLE) {
        if (std::isfinite(v.value.dbl) && v.value.dbl < kDcgmFp64Blank) d.value = v.value.dbl;
      } else if (v.fieldType == DCGM_FT_INT64) {
        if (v.value.i64 < kDcgmInt64Blank) d.value = static_cast<double>(v.value.i64);
      }
    }
    out->push_back(d);
  }
  return 0;
}

}  // namespace

std::string DcgmClient::ErrorMessage(dcgmReturn_t ret) const {
  if (fn_ && fn_->ErrorString) {
    const char* s = fn_->ErrorString(ret);
    if (s && *s) return fmt::format("{} (DCGM error {})", s, ret);
  }
  return fmt::format("DCGM error {}", ret);
}

DcgmClient::~DcgmClient() {
  if (fn_) {
    if (watching_ && fn_->UnwatchFields) fn_->UnwatchFields(dcgm_, kDcgmGroupAllGpus, field_group_);
    if (have_field_group_ && fn_->FieldGroupDestroy) fn_->FieldGroupDestroy(dcgm_, field_group_);
    if (connected_ && fn_->Disconnect) fn_->Disconnect(dcgm_);
    if (initialized_ && fn_->Shutdown) fn_->Shutdown();
  }
  // Why: libdcgm may leave helper threads behind after dcgmShutdown; unloading
  // its code under them would crash, so the handle stays open until exit.
  (void)handle_;
}

Result<std::unique_ptr<DcgmClient>> DcgmClient::Connect(const DcgmOptions& options,
                                                        const std::vector<uint16_t>& fields) {
  std::unique_ptr<DcgmClient> c(new DcgmClient());
  c->fn_ = std::make_unique<Functions>();
  c->host_ = options.host.empty() ? "127.0.0.1" : options.host;
  std::string tried;
  auto try_open = [&](const char* p) {
    c->handle_ = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (c->handle_) {
      c->path_ = p;
      return true;
    }
    const char* e = dlerror();
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", p, e ? e : "not loadable");
    return false;
  };
  const char* override_path = std::getenv("GPUWHY_DCGM_LIBRARY");
  if (override_path && *override_path) {
    try_open(override_path);
  } else {
    for (const char* p : {"libdcgm.so.4", "libdcgm.so.3", "libdcgm.so"}) {
      if (try_open(p)) break;
    }
  }
  if (!c->handle_) return NotFound("libdcgm not found (" + tried + ")");
  Functions& f = *c->fn_;
  void* h = c->handle_;
  Resolve(h, f.Init, "dcgmInit");
  Resolve(h, f.Shutdown, "dcgmShutdown");
  Resolve(h, f.Connect, "dcgmConnect_v2");
  Resolve(h, f.Disconnect, "dcgmDisconnect");
  Resolve(h, f.FieldGroupCreate, "dcgmFieldGroupCreate");
  Resolve(h, f.FieldGroupDestroy, "dcgmFieldGroupDestroy");
  Resolve(h, f.WatchFields, "dcgmWatchFields");
  Resolve(h, f.UnwatchFields, "dcgmUnwatchFields");
  Resolve(h, f.UpdateAllFields, "dcgmUpdateAllFields");
  Resolve(h, f.GetLatestValues, "dcgmGetLatestValues_v2");
  Resolve(h, f.ErrorString, "errorString");
  if (!f.Init || !f.Connect || !f.FieldGroupCreate || !f.WatchFields || !f.GetLatestValues) {
    return Unsupported(c->path_ + ": not a usable DCGM library (dcgmInit/dcgmConnect_v2/"
                                  "dcgmGetLatestValues_v2 missing)");
  }
  dcgmReturn_t r = f.Init();
  if (r != DCGM_ST_OK) return IoError(c->path_ + ": dcgmInit failed: " + c->ErrorMessage(r));
  c->initialized_ = true;
  dcgmConnectV2Params_v2 params{};
  params.version = kDcgmConnectV2ParamsVersion2;
  params.persistAfterDisconnect = 0;
  params.timeoutMs = 1000;  // an absent host engine must not stall start-up
  params.addressIsUnixSocket = !c->host_.empty() && c->host_[0] == '/' ? 1 : 0;
  r = f.Connect(c->host_.c_str(), &params, &c->dcgm_);
  if (r != DCGM_ST_OK) {
    return IoError(fmt::format("no DCGM host engine at {}: {}", c->host_, c->ErrorMessage(r)));
  }
  c->connected_ = true;
  std::vector<unsigned short> ids(fields.begin(), fields.end());
  std::string name = fmt::format("gpuwhy_{}", getpid());
  r = f.FieldGroupCreate(c->dcgm_, static_cast<int>(ids.size()), ids.data(), name.c_str(),
                         &c->field_group_);
  if (r != DCGM_ST_OK) {
    return IoError(fmt::format("DCGM at {}: cannot create a field group: {}", c->host_,
                               c->ErrorMessage(r)));
  }
  c->have_field_group_ = true;
  long long freq_us = std::max<int64_t>(options.update_period_ns, 100 * kNsPerMs) / kNsPerUs;
  r = f.WatchFields(c->dcgm_, kDcgmGroupAllGpus, c->field_group_, freq_us, 10.0, 0);
  if (r != DCGM_ST_OK) {
    return IoError(fmt::format("DCGM at {}: cannot watch the profiling fields: {}", c->host_,
                               c->ErrorMessage(r)));
  }
  c->watching_ = true;
  // Why: without a forced update the first reads are blank for a whole period.
  if (f.UpdateAllFields) f.UpdateAllFields(c->dcgm_, 1);
  return c;
}

Status DcgmClient::ReadLatest(std::vector<DcgmValue>* out) {
  out->clear();
  dcgmReturn_t r = fn_->GetLatestValues(dcgm_, kDcgmGroupAllGpus, field_group_, &Collect, out);
  if (r != DCGM_ST_OK) {
    out->clear();
    return IoError(fmt::format("DCGM at {}: dcgmGetLatestValues_v2: {}", host_, ErrorMessage(r)));
  }
  return Status::Ok();
}

}  // namespace gpuwhy::record::dcgm
