// Fake libcupti.so for tests and the translation benchmark (no GPU, no driver).
// It implements the CUPTI subset libgpuwhy_inject.so calls and hands out
// activity buffers holding REAL record structs of the toolkit headers
// (CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, ...), which a scripted
// workload (tests/trace/trace_driver.cc) feeds in with fake_cupti_emit().
//
// Behaviour that the tests rely on:
// - Records are delivered like CUPTI's worker does: full buffers wait until the
//   next cuptiActivityFlushAll(), which also returns the partly filled one.
// - When the client's buffer callback returns no buffer, records are dropped and
//   counted (cuptiActivityGetNumDroppedRecords returns and resets the count).
// - cuptiGetTimestamp() is CLOCK_MONOTONIC, not CUPTI's default REALTIME, so a
//   client that forgets the clock alignment produces visibly wrong times.
// - FAKE_CUPTI_OTHER_SUBSCRIBER=1: another tool holds CUPTI; cuptiSubscribe fails
//   with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED.
// - Records of kinds the client did not enable are not delivered, nor runtime
//   records of cbids it switched off with cuptiActivityEnableRuntimeApi(cbid, 0).
#include <cupti.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Full {
  uint8_t* buf;
  size_t size, valid;
};

std::mutex g_mu;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
bool g_subscribed = false;
std::set<int> g_enabled;
std::set<uint32_t> g_driver_cbids;
std::set<uint32_t> g_runtime_off;
uint8_t* g_cur = nullptr;
size_t g_cur_size = 0, g_cur_used = 0;
std::vector<Full> g_full;
size_t g_dropped = 0;
bool g_ever_kernel_kind = false;

size_t RecordSize(CUpti_ActivityKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return sizeof(CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    default: return 0;
  }
}

size_t Padded(size_t n) { return (n + 7) & ~size_t{7}; }

}  // namespace

// ---- Control API for the scripted workload ----------------------------------

// fake_cupti_emit: deliver one record (a real CUPTI struct of `bytes` bytes).
// Returns 1 when buffered, 0 when not enabled or dropped.
FAKE_EXPORT int fake_cupti_emit(const void* record, size_t bytes) {
  CUpti_ActivityKind kind = static_cast<const CUpti_Activity*>(record)->kind;
  size_t need = Padded(RecordSize(kind));
  if (need == 0 || bytes < RecordSize(kind)) return 0;
  CUpti_BuffersCallbackRequestFunc req;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    bool on = g_enabled.count(kind) > 0;
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      const auto* a = static_cast<const CUpti_ActivityAPI*>(record);
      on = on || g_driver_cbids.count(a->cbid) > 0;
    }
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
        g_runtime_off.count(static_cast<const CUpti_ActivityAPI*>(record)->cbid) > 0)
      on = false;
    if (!on || g_request == nullptr) return 0;
    if (g_cur && g_cur_used + need <= g_cur_size) {
      std::memcpy(g_cur + g_cur_used, record, RecordSize(kind));
      g_cur_used += need;
      return 1;
    }
    if (g_cur) g_full.push_back({g_cur, g_cur_size, g_cur_used});
    g_cur = nullptr;
    req = g_request;
  }
  // The request callback runs without our lock, as in CUPTI.
  uint8_t* buf = nullptr;
  size_t size = 0, max_records = 0;
  req(&buf, &size, &max_records);
  std::lock_guard<std::mutex> lock(g_mu);
  if (buf == nullptr || size < need) {
    ++g_dropped;
    return 0;
  }
  g_cur = buf;
  g_cur_size = size;
  g_cur_used = 0;
  std::memcpy(g_cur, record, RecordSize(kind));
  g_cur_used = need;
  return 1;
}

// fake_cupti_kernel_kind_enabled: 1 if the client ever enabled the serializing KERNEL kind.
FAKE_EXPORT int fake_cupti_kernel_kind_enabled() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_ever_kernel_kind ? 1 : 0;
}

// ---- CUPTI subset -----------------------------------------------------------

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc,
                                       void*) {
  const char* other = std::getenv("FAKE_CUPTI_OTHER_SUBSCRIBER");
  std::lock_guard<std::mutex> lock(g_mu);
  if ((other && *other == '1') || g_subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_subscribed = true;
  static int token;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&token);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_subscribed = false;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                            CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                       CUpti_BuffersCallbackCompleteFunc done) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_request = req;
  g_complete = done;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (RecordSize(kind) == 0 && kind != CUPTI_ACTIVITY_KIND_NAME) return CUPTI_ERROR_NOT_COMPATIBLE;
  std::lock_guard<std::mutex> lock(g_mu);
  g_enabled.insert(kind);
  if (kind == CUPTI_ACTIVITY_KIND_KERNEL) g_ever_kernel_kind = true;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_enabled.erase(kind);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (enable) g_driver_cbids.insert(cbid);
  else g_driver_cbids.erase(cbid);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (enable) g_runtime_off.erase(cbid);
  else g_runtime_off.insert(cbid);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) { return CUPTI_SUCCESS; }

FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t) {
  std::vector<Full> out;
  CUpti_BuffersCallbackCompleteFunc done;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    out.swap(g_full);
    if (g_cur && g_cur_used > 0) {
      out.push_back({g_cur, g_cur_size, g_cur_used});
      g_cur = nullptr;
    }
    done = g_complete;
  }
  if (done)
    for (const Full& f : out) done(nullptr, 0, f.buf, f.size, f.valid);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid,
                                                   CUpti_Activity** record) {
  size_t off = 0;
  if (*record != nullptr) {
    size_t sz = Padded(RecordSize((*record)->kind));
    if (sz == 0) return CUPTI_ERROR_INVALID_KIND;
    off = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) + sz;
  }
  if (off >= valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* r = reinterpret_cast<CUpti_Activity*>(buffer + off);
  if (RecordSize(r->kind) == 0 || off + RecordSize(r->kind) > valid) return CUPTI_ERROR_INVALID_KIND;
  *record = r;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  std::lock_guard<std::mutex> lock(g_mu);
  *dropped = g_dropped;
  g_dropped = 0;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  *timestamp = static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                             const char** name) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020: *name = "cudaMemcpy_v3020"; return CUPTI_SUCCESS;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: *name = "cudaMemcpyAsync_v3020"; return CUPTI_SUCCESS;
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: *name = "cudaStreamSynchronize_v3020"; return CUPTI_SUCCESS;
      case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020: *name = "cudaDeviceSynchronize_v3020"; return CUPTI_SUCCESS;
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: *name = "cudaLaunchKernel_v7000"; return CUPTI_SUCCESS;
      default: break;
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
      *name = "cuLaunchKernel";
      return CUPTI_SUCCESS;
    }
  }
  return CUPTI_ERROR_INVALID_PARAMETER;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult, const char** str) {
  *str = "fake CUPTI error";
  return CUPTI_SUCCESS;
}

// What CUPTI does when NVTX initialises it: take NVTX's export table. The fake
// asks for a table id the test driver answers with a sentinel, so that a
// forwarder that lost or garbled the getter is caught.
FAKE_EXPORT int InitializeInjectionNvtx2(const void* (*get)(uint32_t)) {
  static const char kSentinel[] = "nvtx-export-table";
  if (!get) return 0;
  const void* t = get(4242);
  return t != nullptr && std::strcmp(static_cast<const char*>(t), kSentinel) == 0 ? 1 : 0;
}
