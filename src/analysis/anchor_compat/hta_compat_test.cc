#include "analysis/anchor_compat/hta_compat.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis::hta_compat_test {
namespace {

constexpr int64_t kUs = 1000;

struct Builder {
  model::Trace t;
  int64_t corr = 1;
  void Step(int32_t n, int64_t s_us, int64_t e_us) {
    model::RangeRow r;
    r.start_ns = s_us * kUs;
    r.end_ns = e_us * kUs;
    r.step = n;
    r.kind = model::RangeKind::kUserAnnotation;
    t.ranges.Append(r);
  }
  void Kernel(int64_t rt_us, int64_t s_ns, int64_t e_ns, const char* name) {
    model::ApiRow a;
    a.start_ns = rt_us * kUs;
    a.end_ns = (rt_us + 1) * kUs;
    a.correlation_id = corr;
    t.api_calls.Append(a);
    model::KernelRow k;
    k.device_id = 0;
    k.stream_id = 7;
    k.start_ns = s_ns;
    k.end_ns = e_ns;
    k.correlation_id = corr++;
    k.name = t.strings.Intern(name);
    t.kernels.Append(k);
  }
};

TEST(HtaCompatTest, KernelTypes) {
  EXPECT_EQ(HtaKernelTypeOf("ncclKernel_AllReduce_RING_LL_Sum_float"),
            HtaKernelType::kCommunication);
  EXPECT_EQ(HtaKernelTypeOf("void at::native::elementwise_kernel"), HtaKernelType::kComputation);
  EXPECT_EQ(HtaKernelTypeOf("Memcpy HtoD (Pageable -> Device)"), HtaKernelType::kMemory);
  EXPECT_EQ(HtaKernelTypeOf("Context Sync"), HtaKernelType::kOther);
  EXPECT_EQ(HtaKernelTypeOf("hipLaunchKernel"), HtaKernelType::kCommunication);  // HTA quirk
}

TEST(HtaCompatTest, TemporalAndIdleBreakdownDropTheLastStep) {
  Builder b;
  b.Step(1, 0, 100);
  b.Step(2, 100, 200);
  b.Step(3, 200, 300);                           // its kernels are dropped
  b.Kernel(1, 10'000, 20'500, "gemm");           // [10, 20] µs (20.5 floors to 20)
  b.Kernel(2, 30'000, 40'000, "gemm");           // gap 10 µs: kernel_wait (runtime at 2 < 20)
  b.Kernel(45, 50'000, 60'000, "ncclKernel_x");  // gap 10, runtime 45 > 40: host_wait
  b.Kernel(50, 150'000, 160'000, "gemm");        // gap 90 >= 30: other
  b.Kernel(210, 250'000, 260'000, "gemm");       // launched in the last step: dropped
  b.t.Finalize();
  HtaResult r = ReproduceHta(b.t);
  EXPECT_TRUE(r.last_step_dropped);
  EXPECT_EQ(r.gpu_events, 4);
  EXPECT_EQ(r.temporal.total_us, 150);
  EXPECT_EQ(r.temporal.idle_us, 150 - 40);
  EXPECT_EQ(r.temporal.compute_us, 30);
  EXPECT_EQ(r.temporal.non_compute_us, 10);
  EXPECT_NEAR(r.temporal.idle_pct, 110.0 / 150 * 100, 1e-9);
  ASSERT_EQ(r.idle_streams.size(), 1u);
  EXPECT_EQ(r.idle_streams[0].kernel_wait_us, 10);
  EXPECT_EQ(r.idle_streams[0].host_wait_us, 10);
  EXPECT_EQ(r.idle_streams[0].other_us, 90);
}

TEST(HtaCompatTest, FractionalTimestampsCeilTheStartAndFloorTheEnd) {
  Builder b;                            // no steps: nothing is filtered
  b.Kernel(0, 10'400, 20'600, "gemm");  // -> [11, 20] µs
  b.Kernel(1, 20'700, 20'900, "gemm");  // crosses no integer µs: [21, 20], dur -1
  b.Kernel(2, 25'200, 40'000, "gemm");  // -> [26, 40]
  b.t.Finalize();
  HtaResult r = ReproduceHta(b.t);
  EXPECT_FALSE(r.last_step_dropped);
  EXPECT_EQ(r.temporal.total_us, 40 - 11);
  EXPECT_EQ(r.temporal.idle_us, 29 - (9 - 1 + 14));
  EXPECT_EQ(r.temporal.compute_us, 9 - 1 + 14);
  EXPECT_EQ(r.temporal.non_compute_us, 0);
  ASSERT_EQ(r.idle_streams.size(), 1u);
  EXPECT_EQ(r.idle_streams[0].kernel_wait_us, (21 - 20) + (26 - 20));
  EXPECT_EQ(r.idle_streams[0].host_wait_us, 0);
  EXPECT_EQ(r.idle_streams[0].other_us, 0);
}

TEST(HtaCompatTest, OverlapOnAStreamCountsAsNegativeIdleLikeHta) {
  Builder b;
  b.Kernel(0, 10'000, 30'000, "gemm");
  b.Kernel(5, 20'000, 40'000, "gemm");  // starts 10 µs before the previous end
  b.Kernel(1, 100'000, 110'000, "gemm");
  b.t.Finalize();
  HtaResult r = ReproduceHta(b.t);
  ASSERT_EQ(r.idle_streams.size(), 1u);
  EXPECT_EQ(r.idle_streams[0].kernel_wait_us, -10);
  EXPECT_EQ(r.idle_streams[0].other_us, 60);
  EXPECT_EQ(r.temporal.idle_us, 60);
}

}  // namespace
}  // namespace gpuwhy::analysis::hta_compat_test
