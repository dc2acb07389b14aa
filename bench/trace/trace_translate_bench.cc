// trace_translate_bench [MRECORDS] [MIX]: translation throughput of
// libgpuwhy_inject.so's TraceTranslator on one core, CUPTI buffer -> encoded
// recording frames (CRC included), next to a memcpy of the same buffer bytes
// measured in the same run. Buffers hold real CUDA 13.0 record structs laid out
// as the fake libcupti lays them out (its cuptiActivityGetNextRecord walks them).
// MIX: "train" (default: 45% kernels, 45% runtime API, 5% memcpy, 5% sync) or
// "kernels" (kernels only, the largest record). Prints records/s, MB/s and
// peak RSS.
#include <cupti.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "inject/trace_translator.h"

namespace {

size_t Padded(size_t n) { return (n + 7) & ~size_t{7}; }

const char* kNames[] = {"ampere_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
                        "triton_poi_fused_add_mul_relu_0", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"};

// Fill: one 4 MiB buffer of records; returns valid bytes and counts records.
size_t Fill(std::vector<uint8_t>& buf, bool kernels_only, uint64_t& n, uint32_t& corr) {
  size_t off = 0;
  uint64_t t = 1'000'000'000;
  for (uint32_t i = 0;; ++i) {
    int pick = kernels_only ? 0 : static_cast<int>(i % 20);
    size_t sz;
    uint8_t tmp[512] = {};
    if (pick < 9) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(tmp);
      k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k->start = t;
      k->end = t + 5000;
      k->deviceId = 0, k->contextId = 1, k->streamId = 7;
      k->gridX = 128, k->gridY = k->gridZ = 1, k->blockX = 256, k->blockY = k->blockZ = 1;
      k->correlationId = ++corr;
      k->name = kNames[i % 4];
      sz = sizeof(CUpti_ActivityKernel10);
    } else if (pick < 18) {
      auto* a = reinterpret_cast<CUpti_ActivityAPI*>(tmp);
      a->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      a->cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
      a->start = t;
      a->end = t + 3000;
      a->threadId = 1234;
      a->correlationId = corr;
      sz = sizeof(CUpti_ActivityAPI);
    } else if (pick == 18) {
      auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(tmp);
      m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
      m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
      m->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
      m->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
      m->bytes = 1 << 20;
      m->start = t;
      m->end = t + 50000;
      m->correlationId = ++corr;
      sz = sizeof(CUpti_ActivityMemcpy6);
    } else {
      auto* s = reinterpret_cast<CUpti_ActivitySynchronization2*>(tmp);
      s->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
      s->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
      s->start = t;
      s->end = t + 100000;
      s->contextId = 1;
      s->streamId = 7;
      s->correlationId = ++corr;
      sz = sizeof(CUpti_ActivitySynchronization2);
    }
    if (off + Padded(sz) > buf.size()) return off;
    std::memcpy(buf.data() + off, tmp, sz);
    off += Padded(sz);
    t += 6000;
    ++n;
  }
}

double Secs(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  double mrec = argc > 1 ? std::atof(argv[1]) : 20.0;
  bool kernels_only = argc > 2 && std::string(argv[2]) == "kernels";
  const size_t kBuf = 4u << 20;
  // 16 distinct buffers (64 MiB, beyond the caches), reused round robin.
  std::vector<std::vector<uint8_t>> bufs(16, std::vector<uint8_t>(kBuf));
  std::vector<size_t> valid(bufs.size());
  std::vector<uint64_t> count(bufs.size());
  uint32_t corr = 0;
  for (size_t i = 0; i < bufs.size(); ++i) valid[i] = Fill(bufs[i], kernels_only, count[i], corr);

  gpuwhy::inject::TraceTranslator tr(&cuptiActivityGetNextRecord, &cuptiGetCallbackName, 12345);
  const uint64_t target = static_cast<uint64_t>(mrec * 1e6);
  std::string out;
  out.reserve(8u << 20);
  uint64_t recs = 0, in_bytes = 0, out_bytes = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; recs < target; i = (i + 1) % bufs.size()) {
    recs += tr.Translate(bufs[i].data(), valid[i]);
    in_bytes += valid[i];
    out.clear();
    tr.TakeFrames(out);
    out_bytes += out.size();
  }
  auto t1 = std::chrono::steady_clock::now();
  // Baseline: memcpy of the same input bytes, same buffers, same run.
  std::vector<uint8_t> dst(kBuf);
  uint64_t copied = 0;
  auto t2 = std::chrono::steady_clock::now();
  for (size_t i = 0; copied < in_bytes; i = (i + 1) % bufs.size()) {
    std::memcpy(dst.data(), bufs[i].data(), valid[i]);
    copied += valid[i];
    asm volatile("" : : "r"(dst.data()) : "memory");
  }
  auto t3 = std::chrono::steady_clock::now();
  double tt = Secs(t0, t1), tm = Secs(t2, t3);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("mix=%s records=%llu input=%.1f MB output=%.1f MB\n", kernels_only ? "kernels" : "train",
              static_cast<unsigned long long>(recs), static_cast<double>(in_bytes) / 1e6,
              static_cast<double>(out_bytes) / 1e6);
  std::printf("translate: %.3f s  %.2f M records/s  %.0f MB/s of CUPTI buffers\n", tt,
              static_cast<double>(recs) / tt / 1e6, static_cast<double>(in_bytes) / tt / 1e6);
  std::printf("memcpy baseline (same bytes): %.3f s  %.0f MB/s  (= %.2f M records/s)\n", tm,
              static_cast<double>(copied) / tm / 1e6, static_cast<double>(recs) / tm / 1e6);
  std::printf("translate/memcpy time ratio: %.1fx  peak RSS %.0f MB\n", tt / tm,
              static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}
