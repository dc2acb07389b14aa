// trace_driver: plays the CUDA driver's part for the trace tests. Like the
// driver, it dlopens $CUDA_INJECTION64_PATH and calls InitializeInjection();
// then it runs a scripted workload whose "GPU" is the fake libcupti
// ($GPUWHY_CUPTI_LIBRARY): every launch, copy and sync becomes the real CUPTI
// record struct the driver would produce, paced in real time.
//
// usage: trace_driver SCENARIO [STEPS]
//   sync      40 kernels, a 4-byte DtoH copy and cudaStreamSynchronize per step
//   tiny      1000 kernels of 5-20 us per step, 25 us apart (launch-bound)
//   pageable  a 64 MiB cudaMemcpy from pageable memory per step
//   sigkill   `sync`, then SIGKILL itself after STEPS steps (default 150)
//   fork      `tiny`, forking after step 0 a child that exits through exit() (its
//             atexit handlers run in a process without CUPTI's or the writer's thread)
// Exit: 0; 3 when the library enabled the serializing KERNEL kind; 4 on setup errors.
#include <cupti.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using EmitFn = int (*)(const void*, size_t);
EmitFn g_emit = nullptr;
uint32_t g_tid = 0;
uint32_t g_corr = 0;
uint32_t g_marker_id = 0;
constexpr uint32_t kDevice = 0, kContext = 1, kStream = 7;

uint64_t Now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // the fake CUPTI clock
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

void SleepUntil(uint64_t t) {
  uint64_t now = Now();
  if (t <= now) return;
  timespec d{static_cast<time_t>((t - now) / 1000000000u), static_cast<long>((t - now) % 1000000000u)};
  nanosleep(&d, nullptr);
}

template <typename T>
void Emit(const T& r) {
  g_emit(&r, sizeof r);
}

void Api(uint32_t cbid, uint64_t start, uint64_t end, uint32_t corr) {
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = cbid;
  a.start = start;
  a.end = end;
  a.processId = static_cast<uint32_t>(getpid());
  a.threadId = g_tid;
  a.correlationId = corr;
  Emit(a);
}

void Kernel(const char* name, uint64_t start, uint64_t end, uint32_t corr, int grid, int block) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.completed = end;
  k.deviceId = kDevice;
  k.contextId = kContext;
  k.streamId = kStream;
  k.gridX = grid, k.gridY = 1, k.gridZ = 1;
  k.blockX = block, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 32;
  k.correlationId = corr;
  k.name = name;
  Emit(k);
}

void Memcpy(uint8_t copy_kind, uint8_t src, uint8_t dst, uint64_t bytes, uint64_t start,
            uint64_t end, uint32_t corr, bool async) {
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = copy_kind;
  m.srcKind = src;
  m.dstKind = dst;
  m.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
  m.bytes = bytes;
  m.start = start;
  m.end = end;
  m.deviceId = kDevice;
  m.contextId = kContext;
  m.streamId = kStream;
  m.correlationId = corr;
  m.runtimeCorrelationId = corr;
  Emit(m);
}

void Sync(CUpti_ActivitySynchronizationType type, uint64_t start, uint64_t end, uint32_t corr) {
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.start = start;
  s.end = end;
  s.correlationId = corr;
  s.contextId = kContext;
  s.streamId = kStream;
  s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  Emit(s);
}

void Marker(uint32_t flags, uint64_t ts, uint32_t id, const char* name) {
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.timestamp = ts;
  m.id = id;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = static_cast<uint32_t>(getpid());
  m.objectId.pt.threadId = g_tid;
  m.name = name;
  m.domain = nullptr;
  Emit(m);
}

void Context() {
  CUpti_ActivityContext3 c{};
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = kContext;
  c.deviceId = kDevice;
  Emit(c);
}

void Overhead(uint64_t start, uint64_t end) {
  CUpti_ActivityOverhead3 o{};
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.start = start;
  o.end = end;
  Emit(o);
}

// Launches: `n` kernels of [min,max] ns, one launch every `cadence` ns of
// host time (each cudaLaunchKernel takes `api` ns); the GPU runs them in order.
// Returns the GPU end of the last kernel; advances `host`.
uint64_t Launches(uint64_t& host, uint64_t gpu_free, int n, uint64_t min_ns, uint64_t max_ns,
                  uint64_t cadence, uint64_t api, const char* name, int grid, int block) {
  for (int i = 0; i < n; ++i) {
    uint32_t corr = ++g_corr;
    Api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, host, host + api, corr);
    uint64_t dur = min_ns + (max_ns - min_ns) * static_cast<uint64_t>((i * 7919) % 101) / 100;
    uint64_t start = std::max(gpu_free, host + api);
    Kernel(name, start, start + dur, corr, grid, block);
    gpu_free = start + dur;
    host += cadence;
  }
  return gpu_free;
}

const char* kGemm = "ampere_sgemm_128x64_nn";
const char* kAdd = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>";

// SyncStep: 40 kernels, `.item()` (4-byte DtoH + cudaStreamSynchronize), 3 ms of Python.
void SyncStep(uint64_t& host) {
  Api(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, host, host + 500, ++g_corr);  // noise
  host += 1000;
  uint64_t gpu = Launches(host, host, 40, 100000, 200000, 10000, 5000, kGemm, 1024, 256);
  uint32_t corr = ++g_corr;
  Api(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, host, host + 6000, corr);
  Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
         CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, 4, gpu, gpu + 2000, corr, true);
  gpu += 2000;
  host += 6000;
  corr = ++g_corr;
  uint64_t end = std::max(gpu, host) + 3000;
  Api(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, host, end, corr);
  Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, host, end, corr);
  host = end + 3000000;
}

void TinyStep(uint64_t& host) {
  Launches(host, host, 1000, 5000, 20000, 25000, 6000, kAdd, 64, 128);
}

void PageableStep(uint64_t& host) {
  uint64_t bytes = 64u << 20;
  uint64_t dur = bytes * 1000000000u / 3000000000u;  // 3 GB/s
  uint32_t corr = ++g_corr;
  Api(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, host, host + dur + 20000, corr);
  Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
         CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, bytes, host + 10000, host + 10000 + dur, corr, false);
  host += dur + 20000;
  uint64_t gpu = Launches(host, host, 40, 200000, 300000, 10000, 5000, kGemm, 1024, 256);
  host = std::max(host, gpu) + 100000;
}

// g_step_names: the NVTX range names of the scripted run (see main).
std::vector<std::string>* g_step_names = nullptr;

// NVTX's export-table getter, as the test plays it: only id 4242 is known.
const void* NvtxExportTable(uint32_t id) { return id == 4242 ? "nvtx-export-table" : nullptr; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_driver sync|tiny|pageable|sigkill [STEPS]\n");
    return 4;
  }
  std::string scenario = argv[1];
  g_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  // What the driver does in cuInit.
  const char* inj = std::getenv("CUDA_INJECTION64_PATH");
  if (inj && *inj && std::strcmp(inj, "none") != 0) {
    void* h = dlopen(inj, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "trace_driver: %s\n", dlerror());
      return 4;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
    if (!init || init() != 1) return 4;
    init();  // the library must tolerate re-entry
  }
  // What NVTX does at its first call: load NVTX_INJECTION64_PATH and hand it
  // the export-table getter. Reported so that the test sees the result.
  if (const char* nvtx = std::getenv("NVTX_INJECTION64_PATH"); nvtx && *nvtx) {
    void* h = dlopen(nvtx, RTLD_NOW | RTLD_LOCAL);
    auto init = h ? reinterpret_cast<int (*)(const void* (*)(uint32_t))>(dlsym(h, "InitializeInjectionNvtx2"))
                  : nullptr;
    std::fprintf(stderr, "trace_driver: nvtx injection %s -> %d\n", nvtx, init ? init(NvtxExportTable) : -1);
  }
  const char* cupti = std::getenv("GPUWHY_CUPTI_LIBRARY");
  void* fake = cupti ? dlopen(cupti, RTLD_NOW | RTLD_LOCAL) : nullptr;
  g_emit = fake ? reinterpret_cast<EmitFn>(dlsym(fake, "fake_cupti_emit")) : nullptr;
  if (!g_emit) {
    std::fprintf(stderr, "trace_driver: GPUWHY_CUPTI_LIBRARY must name the fake libcupti\n");
    return 4;
  }
  auto kernel_kind = reinterpret_cast<int (*)()>(dlsym(fake, "fake_cupti_kernel_kind_enabled"));
  if (kernel_kind && kernel_kind()) {
    std::fprintf(stderr, "trace_driver: the serializing KERNEL kind was enabled\n");
    return 3;
  }

  const bool fork_child = scenario == "fork";
  if (fork_child) scenario = "tiny";
  int steps = scenario == "tiny" ? 8 : scenario == "pageable" ? 10 : scenario == "sigkill" ? 1000 : 30;
  int kill_after = argc > 2 ? std::atoi(argv[2]) : 150;
  // NVTX names stay alive for the whole process, as CUPTI's do ("train_step 0",
  // ...): the injection library's exit flush reads them after main returns.
  // Held by a global, never freed (reachable, so LeakSanitizer is quiet).
  g_step_names = new std::vector<std::string>();
  std::vector<std::string>& step_names = *g_step_names;
  for (int s = 0; s < steps; ++s) step_names.push_back("train_step " + std::to_string(s));
  Context();
  uint64_t host = Now();
  for (int s = 0; s < steps; ++s) {
    uint32_t id = ++g_marker_id;
    Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, host, id, step_names[static_cast<size_t>(s)].c_str());
    if (scenario == "sync" || scenario == "sigkill") SyncStep(host);
    else if (scenario == "tiny") TinyStep(host);
    else if (scenario == "pageable") PageableStep(host);
    else {
      std::fprintf(stderr, "trace_driver: unknown scenario %s\n", scenario.c_str());
      return 4;
    }
    Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, host, id, nullptr);
    if (s % 5 == 0) Overhead(host, host + 1000);
    SleepUntil(host);  // paced like the real program
    if (fork_child && s == 0) {
      // Forked while step 0's records still sit in CUPTI's buffer: a child that
      // flushed at exit would deliver them a second time.
      pid_t child = fork();
      if (child == 0) std::exit(0);  // atexit handlers run here
      int st = 0;
      waitpid(child, &st, 0);
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        std::fprintf(stderr, "trace_driver: forked child failed (status %d)\n", st);
        return 4;
      }
    }
    if (scenario == "sigkill" && s + 1 == kill_after) raise(SIGKILL);
  }
  std::printf("trace_driver: %s done (%d steps)\n", scenario.c_str(), steps);
  return 0;
}
