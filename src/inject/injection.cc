#include "inject/injection.h"

#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/recording_wire.h"
#include "inject/trace_translator.h"

namespace gpuwhy::inject {
namespace {

// CuptiApi: the CUPTI functions the library calls, resolved with dlsym.
struct CuptiApi {
  void* handle = nullptr;
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) RegisterCallbacks = nullptr;
  decltype(&cuptiActivityEnable) Enable = nullptr;
  decltype(&cuptiActivityDisable) Disable = nullptr;
  decltype(&cuptiActivityEnableDriverApi) EnableDriverApi = nullptr;
  decltype(&cuptiActivityEnableRuntimeApi) EnableRuntimeApi = nullptr;
  decltype(&cuptiActivityFlushAll) FlushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) GetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) GetNumDropped = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiSetThreadIdType) SetThreadIdType = nullptr;
  decltype(&cuptiGetVersion) GetVersion = nullptr;
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

long EnvLong(const char* name, long def, long lo, long hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) return def;
  return x;
}

int32_t EnvI32(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    long v = EnvLong(n, -1, 0, INT32_MAX);
    if (v >= 0) return static_cast<int32_t>(v);
  }
  return INT32_MIN;
}

int64_t RealtimeNs() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

template <typename T>
void Put(std::string& s, const T& v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
void PutStr(std::string& s, const std::string& v) {
  Put<uint32_t>(s, static_cast<uint32_t>(v.size()));
  s += v;
}

template <typename F>
bool Sym(void* h, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(h, name));
  return f != nullptr;
}

// OpenCupti: dlopen libcupti from the documented candidates (injection.h);
// null with *why set when none loads. The one list, for CUDA and NVTX alike.
void* OpenCupti(std::string* why) {
  std::vector<std::string> candidates;
  if (std::string p = Env("GPUWHY_CUPTI_LIBRARY"); !p.empty()) {
    candidates.push_back(p);
  } else {
    candidates = {"libcupti.so.13", "libcupti.so"};
    for (std::string root : {Env("CUDA_HOME"), Env("CUDA_PATH"), std::string("/usr/local/cuda")}) {
      if (root.empty()) continue;
      candidates.push_back(root + "/extras/CUPTI/lib64/libcupti.so");
      candidates.push_back(root + "/lib64/libcupti.so");
      candidates.push_back(root + "/lib/libcupti.so");
    }
  }
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    if (why->empty()) *why = dlerror() ? c + " not loadable" : c;
  }
  return nullptr;
}

// LoadCupti: libcupti and the functions the tracer calls; "" on success, else why not.
std::string LoadCupti(CuptiApi& api) {
  std::string why;
  api.handle = OpenCupti(&why);
  if (!api.handle) return "libcupti not found (" + why + "); set GPUWHY_CUPTI_LIBRARY";
  void* h = api.handle;
  bool ok = Sym(h, "cuptiSubscribe", api.Subscribe) && Sym(h, "cuptiUnsubscribe", api.Unsubscribe) &&
            Sym(h, "cuptiActivityRegisterCallbacks", api.RegisterCallbacks) &&
            Sym(h, "cuptiActivityEnable", api.Enable) && Sym(h, "cuptiActivityDisable", api.Disable) &&
            Sym(h, "cuptiActivityFlushAll", api.FlushAll) &&
            Sym(h, "cuptiActivityGetNextRecord", api.GetNextRecord) &&
            Sym(h, "cuptiGetTimestamp", api.GetTimestamp);
  if (!ok) return "libcupti lacks a required function (too old?)";
  // Optional: each use checks for null.
  Sym(h, "cuptiEnableCallback", api.EnableCallback);
  Sym(h, "cuptiActivityEnableDriverApi", api.EnableDriverApi);
  Sym(h, "cuptiActivityEnableRuntimeApi", api.EnableRuntimeApi);
  Sym(h, "cuptiActivityGetNumDroppedRecords", api.GetNumDropped);
  Sym(h, "cuptiGetCallbackName", api.GetCallbackName);
  Sym(h, "cuptiGetResultString", api.GetResultString);
  Sym(h, "cuptiSetThreadIdType", api.SetThreadIdType);
  Sym(h, "cuptiGetVersion", api.GetVersion);
  return "";
}

// Completed: one buffer CUPTI handed back.
struct Completed {
  uint8_t* buf;
  size_t valid;
};

// Tracer: the process-wide state. Allocated once and never freed, so that no
// static destructor races CUPTI's threads at exit.
struct Tracer {
  CuptiApi api;
  CUpti_SubscriberHandle subscriber = nullptr;
  pid_t pid = 0;
  int fd = -1;
  size_t buffer_bytes = 4u << 20;
  size_t max_buffers = 16;
  std::mutex pool_mu;
  std::vector<uint8_t*> free_buffers;
  size_t allocated = 0;
  std::atomic<uint64_t> rejected{0};
  std::mutex q_mu;
  std::condition_variable q_cv;
  std::deque<Completed> queue;
  bool stop = false;
  std::thread worker;
  TraceTranslator* translator = nullptr;
  int64_t flush_period_ms = 500;
  std::atomic<bool> fatal{false};
  std::atomic<bool> running{false};
  std::mutex shutdown_mu;
  bool shut = false;
  std::vector<CUpti_ActivityKind> enabled;
};

Tracer* g_tracer = nullptr;
std::mutex g_init_mu;
pid_t g_init_pid = 0;

void Warn(const std::string& msg) {
  std::string line = "gpuwhy trace: " + msg + "\n";
  ssize_t ignored = ::write(2, line.data(), line.size());
  (void)ignored;
}

void WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // disk full / closed: the stream ends here, the host runs on
    off += static_cast<size_t>(n);
  }
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) noexcept {
  try {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    Tracer* t = g_tracer;
    if (t == nullptr) return;
    std::lock_guard<std::mutex> lock(t->pool_mu);
    if (!t->free_buffers.empty()) {
      *buffer = t->free_buffers.back();
      t->free_buffers.pop_back();
    } else if (t->allocated < t->max_buffers) {
      *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, t->buffer_bytes));
      if (*buffer) ++t->allocated;
    }
    if (*buffer) {
      *size = t->buffer_bytes;
    } else {
      // The memory bound is reached: CUPTI drops records and counts them.
      t->rejected.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (...) {
    *buffer = nullptr;
    *size = 0;
  }
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) noexcept {
  try {
    Tracer* t = g_tracer;
    if (t == nullptr || buffer == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(t->q_mu);
      t->queue.push_back({buffer, valid});
    }
    t->q_cv.notify_one();
  } catch (...) {
  }
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void*) noexcept {
  if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR && g_tracer) {
    g_tracer->fatal.store(true);
  }
}

// Drain: translate every queued buffer and write the frames (writer thread).
void Drain(Tracer& t, bool force_write) {
  std::deque<Completed> batch;
  {
    std::lock_guard<std::mutex> lock(t.q_mu);
    batch.swap(t.queue);
  }
  for (const Completed& c : batch) {
    t.translator->Translate(c.buf, c.valid);
    std::lock_guard<std::mutex> lock(t.pool_mu);
    t.free_buffers.push_back(c.buf);
  }
  // Not under pool_mu: CUPTI may call BufferRequested while we ask (Kineto's ABBA note).
  if (t.api.GetNumDropped) {
    size_t dropped = 0;
    if (t.api.GetNumDropped(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
      t.translator->AddStat(wire::TraceStat::kDroppedRecords, dropped);
  }
  uint64_t rej = t.rejected.exchange(0);
  if (rej) t.translator->AddStat(wire::TraceStat::kRejectedBuffers, rej);
  if (batch.empty() && rej == 0 && !force_write) return;
  std::string out;
  t.translator->TakeFrames(out);
  if (t.fd >= 0) WriteAll(t.fd, out);
}

void WorkerLoop(Tracer* t) noexcept {
  try {
    auto next_flush = std::chrono::steady_clock::now();
    auto next_write = next_flush + std::chrono::seconds(1);
    for (;;) {
      bool stopping;
      {
        std::unique_lock<std::mutex> lock(t->q_mu);
        t->q_cv.wait_until(lock, next_flush, [&] { return t->stop || !t->queue.empty(); });
        stopping = t->stop;
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= next_flush && !stopping && !t->fatal.load()) {
        // Ask CUPTI for its completed buffers (it calls BufferCompleted here).
        t->api.FlushAll(0);
        next_flush = now + std::chrono::milliseconds(t->flush_period_ms);
      }
      bool write = now >= next_write;
      Drain(*t, write);
      if (write) next_write = now + std::chrono::seconds(1);
      if (stopping) return;
    }
  } catch (...) {
    // Out of memory in the writer: stop writing, never take the host down.
  }
}

// ParseKinds: the CUPTI kinds for GPUWHY_TRACE_KINDS; unknown words are warned about.
std::vector<CUpti_ActivityKind> ParseKinds(const std::string& list, bool nvtx, bool* driver) {
  std::vector<CUpti_ActivityKind> k;
  std::string s = list.empty() ? "kernel,memcpy,memset,sync,event,runtime,driver,overhead,nvtx" : list;
  *driver = false;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string w = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? s.size() + 1 : comma + 1;
    if (w.empty()) continue;
    // Never CUPTI_ACTIVITY_KIND_KERNEL: it serializes kernels.
    if (w == "kernel") k.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    else if (w == "memcpy") k.insert(k.end(), {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2});
    else if (w == "memset") k.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
    else if (w == "sync") k.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    else if (w == "event") k.push_back(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    else if (w == "runtime") k.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    else if (w == "driver") *driver = true;
    else if (w == "overhead") k.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
    else if (w == "jit") k.push_back(CUPTI_ACTIVITY_KIND_JIT);
    else if (w == "nvtx") {
      if (nvtx) k.insert(k.end(), {CUPTI_ACTIVITY_KIND_NAME, CUPTI_ACTIVITY_KIND_MARKER});
    } else {
      Warn("unknown trace kind '" + w + "' ignored");
    }
  }
  k.push_back(CUPTI_ACTIVITY_KIND_CONTEXT);  // context -> device for sync records
  return k;
}

// ClockOffset: CLOCK_REALTIME - CUPTI clock, from the tightest of 8 brackets.
void ClockOffset(const CuptiApi& api, int64_t* offset, int64_t* uncertainty) {
  *offset = 0;
  *uncertainty = 0;
  int64_t best = INT64_MAX;
  for (int i = 0; i < 8; ++i) {
    uint64_t c = 0;
    int64_t a = RealtimeNs();
    if (api.GetTimestamp(&c) != CUPTI_SUCCESS) return;
    int64_t b = RealtimeNs();
    if (b - a < best) {
      best = b - a;
      *uncertainty = best / 2;
      *offset = a + best / 2 - static_cast<int64_t>(c);
    }
  }
}

std::string ExePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// OpenStream: create the stream file and write the header and the trace frame.
int OpenStream(const std::string& status, const std::string& kinds, uint32_t version,
               int64_t offset, int64_t uncertainty) {
  std::string dir = Env("GPUWHY_TRACE_DIR");
  if (dir.empty()) dir = ".";
  std::string path = dir + "/trace-" + std::to_string(getpid()) + ".gwrec";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    Warn("cannot create " + path + ": " + std::strerror(errno) + "; not tracing");
    return -1;
  }
  std::string out(wire::kRecordingMagic, sizeof wire::kRecordingMagic);
  Put<uint16_t>(out, wire::kRecordingVersionMajor);
  Put<uint16_t>(out, wire::kRecordingVersionMinor);
  Put<uint32_t>(out, 0);
  std::string p;
  Put<int32_t>(p, static_cast<int32_t>(getpid()));
  Put<int32_t>(p, static_cast<int32_t>(getppid()));
  Put<int32_t>(p, EnvI32({"RANK", "SLURM_PROCID"}));
  Put<int32_t>(p, EnvI32({"LOCAL_RANK", "SLURM_LOCALID"}));
  Put<int32_t>(p, EnvI32({"WORLD_SIZE", "SLURM_NTASKS"}));
  Put<int64_t>(p, RealtimeNs());
  Put<int64_t>(p, offset);
  Put<int64_t>(p, uncertainty);
  Put<uint32_t>(p, version);
  PutStr(p, status);
  PutStr(p, kinds);
  PutStr(p, ExePath());
  AppendFrame(out, wire::FrameType::kTrace, p);
  WriteAll(fd, out);
  return fd;
}

void Shutdown() {
  Tracer* t = g_tracer;
  if (t == nullptr || getpid() != t->pid) return;  // forked child: CUPTI's thread is not here
  std::lock_guard<std::mutex> lock(t->shutdown_mu);
  if (t->shut) return;
  t->shut = true;
  if (t->running.load()) {
    for (CUpti_ActivityKind k : t->enabled) t->api.Disable(k);
    if (!t->fatal.load()) t->api.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
      std::lock_guard<std::mutex> q(t->q_mu);
      t->stop = true;
    }
    t->q_cv.notify_one();
    if (t->worker.joinable()) t->worker.join();
    Drain(*t, true);
  }
  if (t->fd >= 0) {
    ::close(t->fd);
    t->fd = -1;
  }
}

void AtExit() noexcept {
  try {
    Shutdown();
  } catch (...) {
  }
}

void Start() {
  auto* t = new Tracer();
  t->pid = getpid();
  t->buffer_bytes = static_cast<size_t>(EnvLong("GPUWHY_TRACE_BUFFER_KB", 4096, 16, 1 << 20)) << 10;
  t->max_buffers = static_cast<size_t>(EnvLong("GPUWHY_TRACE_BUFFERS", 16, 1, 4096));
  t->flush_period_ms = EnvLong("GPUWHY_TRACE_FLUSH_MS", 500, 10, 1000);
  std::string kinds = Env("GPUWHY_TRACE_KINDS");
  bool nvtx = !Env("NVTX_INJECTION64_PATH").empty();

  std::string why = LoadCupti(t->api);
  if (!why.empty()) {
    Warn(why + "; not tracing");
    g_tracer = t;
    t->fd = OpenStream("disabled: " + why, kinds, 0, 0, 0);
    return;
  }
  uint32_t version = 0;
  if (t->api.GetVersion) t->api.GetVersion(&version);
  CUptiResult r = t->api.Subscribe(&t->subscriber, reinterpret_cast<CUpti_CallbackFunc>(&OnCallback), nullptr);
  if (r != CUPTI_SUCCESS) {
    std::string reason;
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      reason = "another CUPTI subscriber is active (torch.profiler/Kineto, Nsight Systems, DCGM "
               "profiling?)";
    } else {
      const char* s = nullptr;
      if (t->api.GetResultString) t->api.GetResultString(r, &s);
      reason = std::string("cuptiSubscribe failed: ") + (s ? s : std::to_string(r));
    }
    Warn(reason + "; tracing disabled, the program runs untraced");
    g_tracer = t;
    t->fd = OpenStream("disabled: " + reason, kinds, version, 0, 0);
    return;
  }
  if (t->api.EnableCallback)
    t->api.EnableCallback(1, t->subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR);
  if (t->api.SetThreadIdType) t->api.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  int64_t offset = 0, uncertainty = 0;
  ClockOffset(t->api, &offset, &uncertainty);
  t->fd = OpenStream("", kinds.empty() ? "default" : kinds, version, offset, uncertainty);
  if (t->fd < 0) {
    t->api.Unsubscribe(t->subscriber);
    g_tracer = t;
    return;
  }
  t->translator = new TraceTranslator(t->api.GetNextRecord, t->api.GetCallbackName, offset);
  g_tracer = t;
  if (t->api.RegisterCallbacks(&BufferRequested, &BufferCompleted) != CUPTI_SUCCESS) {
    Warn("cuptiActivityRegisterCallbacks failed; not tracing");
    t->api.Unsubscribe(t->subscriber);
    return;
  }
  bool driver = false;
  for (CUpti_ActivityKind k : ParseKinds(kinds, nvtx, &driver)) {
    if (t->api.Enable(k) == CUPTI_SUCCESS) t->enabled.push_back(k);
  }
  bool runtime = false;
  for (CUpti_ActivityKind k : t->enabled) runtime = runtime || k == CUPTI_ACTIVITY_KIND_RUNTIME;
  if (runtime && t->api.EnableRuntimeApi) {
    // Noise that PyTorch calls constantly and the diagnosis never needs (as Kineto does).
    for (CUpti_CallbackId cbid :
         {CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
          CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
          CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
          CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
          CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000})
      t->api.EnableRuntimeApi(cbid, 0);
  }
  if (driver && t->api.EnableDriverApi) {
    // Launches through the driver API (Triton, cuLaunchKernelEx) and graph launches;
    // the rest of the driver API mirrors the runtime calls already traced.
    for (CUpti_CallbackId cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
          CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
      t->api.EnableDriverApi(cbid, 1);
  }
  t->running.store(true);
  t->worker = std::thread(WorkerLoop, t);
  std::atexit(AtExit);
}

}  // namespace
}  // namespace gpuwhy::inject

extern "C" int InitializeInjection(void) {
  try {
    std::lock_guard<std::mutex> lock(gpuwhy::inject::g_init_mu);
    if (gpuwhy::inject::g_init_pid == getpid()) return 1;  // re-entered: nothing to do
    gpuwhy::inject::g_init_pid = getpid();
    gpuwhy::inject::g_tracer = nullptr;  // a forked child starts its own stream
    gpuwhy::inject::Start();
  } catch (...) {
    // Never let an exception reach the driver; the host runs untraced.
  }
  return 1;
}

extern "C" int InitializeInjectionNvtx2(GpuwhyNvtxGetExportTable get) {
  try {
    std::string why;
    void* h = gpuwhy::inject::OpenCupti(&why);
    if (!h) {
      gpuwhy::inject::Warn("libcupti not found (" + why + "); NVTX ranges are not traced");
      return 0;
    }
    using Init = int (*)(GpuwhyNvtxGetExportTable);
    auto init = reinterpret_cast<Init>(dlsym(h, "InitializeInjectionNvtx2"));
    if (!init) {
      gpuwhy::inject::Warn("libcupti has no InitializeInjectionNvtx2; NVTX ranges are not traced");
      return 0;
    }
    return init(get);
  } catch (...) {
    return 0;  // NVTX then stays a no-op; the host runs on
  }
}

extern "C" void gpuwhy_inject_shutdown(void) {
  try {
    gpuwhy::inject::Shutdown();
  } catch (...) {
  }
}
