// Unit tests of the nsys stats/analyze reproductions on hand-built traces
// (the golden comparison against nsys itself is tests/nsys_corpus).
#include "analysis/nsys_compat/nsys_compat.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis::nsys_compat {
namespace {

void Kernel(model::Trace& t, int64_t s, int64_t e, std::string_view name, int64_t corr = kMissingI64) {
  model::KernelRow r;
  r.start_ns = s;
  r.end_ns = e;
  r.device_id = 0;
  r.pid = 7;
  r.correlation_id = corr;
  r.name = t.strings.Intern(name);
  t.kernels.Append(r);
}

void Api(model::Trace& t, int64_t s, int64_t e, std::string_view name, int64_t corr) {
  model::ApiRow r;
  r.start_ns = s;
  r.end_ns = e;
  r.pid = 7;
  r.tid = 8;
  r.correlation_id = corr;
  r.name = t.strings.Intern(name);
  t.api_calls.Append(r);
}

TEST(NsysCompat, StripApiVersionKeepsDriverSuffixes) {
  EXPECT_EQ(StripApiVersion("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersion("cuMemAlloc_v2"), "cuMemAlloc_v2");
  EXPECT_EQ(StripApiVersion("cudaGetDeviceProperties_v12000"), "cudaGetDeviceProperties_v12000");
}

TEST(NsysCompat, SummarizeMedianAndSampleStddev) {
  DurationStats s = Summarize({4, 1, 3, 2});
  EXPECT_EQ(s.total_ns, 10);
  EXPECT_DOUBLE_EQ(s.med_ns, 2.5);
  EXPECT_NEAR(s.stddev_ns, 1.2909944, 1e-6);
  EXPECT_DOUBLE_EQ(Summarize({5}).stddev_ns, 0.0);
}

TEST(NsysCompat, GapsAreHolesOfTheUnion) {
  model::Trace t;
  // Overlapping ops [1, 10] and [2, 5]: the hole after them starts at 10, not 5.
  Kernel(t, 1, 10 * kNsPerS / 10, "a");
  Kernel(t, 2, 5, "b");
  Kernel(t, 2 * kNsPerS, 2 * kNsPerS + 1, "c");
  t.Finalize();
  std::vector<GapRow> g = GpuGaps(t);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].start_ns, kNsPerS);
  EXPECT_EQ(g[0].dur_ns, kNsPerS);
  EXPECT_TRUE(GpuGaps(t, 2 * kNsPerS).empty());
}

TEST(NsysCompat, TimeUtilSumsConcurrentOps) {
  model::Trace t;
  // Two concurrent ops over the first third (sum = 200% there), idle after.
  Kernel(t, 100, 400, "a");
  Kernel(t, 100, 400, "b");
  Kernel(t, 999, 1000, "c");
  t.Finalize();
  std::vector<UtilRow> u = GpuTimeUtil(t, 3, 50.0);
  ASSERT_EQ(u.size(), 1u);  // chunks 2 and 3 merge; chunk 1 is 200% busy
  EXPECT_EQ(u[0].start_ns, 400);
  EXPECT_EQ(u[0].dur_ns, 600);
  EXPECT_NEAR(u[0].in_use_pct, 0.2, 1e-9);
}

TEST(NsysCompat, KernExecQueueOnlyWhenNonNegative) {
  model::Trace t;
  Api(t, 0, 100, "cudaLaunchKernel_v7000", 1);
  Kernel(t, 150, 200, "k", 1);  // queued 50
  Api(t, 300, 400, "cudaLaunchKernel_v7000", 2);
  Kernel(t, 350, 380, "k", 2);  // starts and ends inside the call
  t.Finalize();
  std::vector<KernExecRow> r = CudaKernExecSum(t);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(r[0].total.count, 2);
  EXPECT_EQ(r[0].q_count, 1);
  EXPECT_EQ(r[0].queue.total_ns, 50);
  EXPECT_EQ(r[0].total.min_ns, 100);  // max(kernel end, API end) - API start
  EXPECT_EQ(r[0].total.max_ns, 200);
}

TEST(NsysCompat, MemcpySyncExclusions) {
  model::Trace t;
  auto copy = [&](int64_t corr, model::CopyKind k, int64_t bytes, int32_t src, int32_t dst) {
    model::MemcpyRow m;
    m.start_ns = corr * 1000;
    m.end_ns = corr * 1000 + 10 * corr;
    m.pid = 7;
    m.device_id = 0;
    m.correlation_id = corr;
    m.copy_kind = k;
    m.bytes = bytes;
    m.src_kind = model::MemoryKind::kPageable;
    m.dst_kind = model::MemoryKind::kDevice;
    m.src_device_id = src;
    m.dst_device_id = dst;
    t.memcpys.Append(m);
    Api(t, corr * 1000 - 5, corr * 1000 + 20 * corr, corr == 4 ? "cudaMemcpyAsync_v3020" : "cudaMemcpy_v3020", corr);
  };
  copy(1, model::CopyKind::kHtoD, 64000, kMissingI32, kMissingI32);   // small HtoD: excluded
  copy(2, model::CopyKind::kHtoD, 64001, kMissingI32, kMissingI32);   // kept
  copy(3, model::CopyKind::kDtoD, 1 << 20, 0, 0);                      // same device: excluded
  copy(4, model::CopyKind::kHtoD, 1 << 20, kMissingI32, kMissingI32);  // async: other rule
  t.Finalize();
  std::vector<MemopRuleRow> s = CudaMemcpySync(t);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].bytes, 64001);
  std::vector<MemopRuleRow> a = CudaMemcpyAsync(t);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].api_name, "cudaMemcpyAsync_v3020");
}

TEST(NsysCompat, NoGpuRowsIsANoteNotAFinding) {
  model::Trace t;
  Api(t, 0, 10, "cudaStreamSynchronize_v3020", 1);
  t.Finalize();
  NsysCompatReport r = ComputeNsysCompat(t);
  EXPECT_TRUE(r.gaps.empty());
  EXPECT_TRUE(r.time_util.empty());
  ASSERT_EQ(r.api_sync.size(), 1u);
  bool note = false;
  for (const std::string& n : r.notes) note = note || n.find("no GPU operations") != std::string::npos;
  EXPECT_TRUE(note);
}

}  // namespace
}  // namespace gpuwhy::analysis::nsys_compat
