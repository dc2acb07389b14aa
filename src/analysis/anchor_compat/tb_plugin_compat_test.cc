#include "analysis/anchor_compat/tb_plugin_compat.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
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
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(n));
    t.ranges.Append(r);
  }
  void Range(const char* name, int64_t s_us, int64_t e_us) {
    model::RangeRow r;
    r.start_ns = s_us * kUs;
    r.end_ns = e_us * kUs;
    r.kind = model::RangeKind::kCpuOp;
    r.name = t.strings.Intern(name);
    t.ranges.Append(r);
  }
  // A runtime launch at [rt_us, rt_us+1) and its kernel.
  void Kernel(int64_t rt_us, int64_t s_us, int64_t dur_us, float bpsm, float occ_pct) {
    model::ApiRow a;
    a.start_ns = rt_us * kUs;
    a.end_ns = (rt_us + 1) * kUs;
    a.correlation_id = corr;
    a.kind = model::ApiKind::kRuntime;
    t.api_calls.Append(a);
    model::KernelRow k;
    k.device_id = 0;
    k.stream_id = 7;
    k.start_ns = s_us * kUs;
    k.end_ns = (s_us + dur_us) * kUs;
    k.correlation_id = corr++;
    k.blocks_per_sm = bpsm;
    k.est_occupancy_pct = occ_pct;
    k.name = t.strings.Intern("volta_h884gemm");
    t.kernels.Append(k);
  }
};

// tb_plugin test_profiler.py::test_gpu_utilization (hta_tbplugin.md §4.5).
TEST(TbPluginCompatTest, SyntheticGpuUtilizationCase) {
  Builder b;
  b.Step(1, 100, 220);
  b.Kernel(101, 100, 10, 0.5f, 60);
  b.Kernel(102, 105, 15, 0.6f, 10);
  b.Kernel(103, 120, 0, 0.3f, 20);
  b.Kernel(104, 115, 25, 0.3f, 100);
  b.Kernel(105, 200, 20, 10.5f, 30);
  b.Kernel(240, 250, 10, 1.0f, 50);  // launched outside any step
  b.t.Finalize();
  TbPluginResult r = ReproduceTbPlugin(b.t);
  ASSERT_EQ(r.step_count, 1);
  EXPECT_EQ(r.steps_start_ns, 100 * kUs);
  EXPECT_EQ(r.steps_end_ns, 220 * kUs);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_NEAR(r.devices[0].gpu_util_pct, (40.0 + 20.0) / 120 * 100, 1e-9);
  EXPECT_NEAR(r.devices[0].sm_efficiency_pct,
              (0.5 * 5 + 1.0 * 5 + 0.6 * 5 + 0.9 * 5 + 0.3 * 20 + 1.0 * 20) / 120 * 100, 1e-5);
  EXPECT_NEAR(r.devices[0].occupancy_pct, (60.0 * 10 + 10 * 15 + 100 * 25 + 30 * 20) / 70, 1e-9);
  EXPECT_NEAR(r.devices[0].tensor_core_kernel_pct, 100.0, 1e-9);
}

TEST(TbPluginCompatTest, BreakdownIsPriorityOrderedAndSumsToTheStep) {
  Builder b;
  b.Step(1, 0, 100);
  b.Step(2, 100, 200);
  // DataLoader 0-30 in each step; a CPU op 20-60 overlapping it; kernels 50-70.
  for (int64_t s : {0, 100}) {
    b.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, s + 30);
    b.Range("aten::conv2d", s + 20, s + 60);
    b.Kernel(s + 40, s + 50, 20, 1.0f, 50);  // runtime s+40..s+41 inside the CPU op
  }
  b.t.Finalize();
  TbPluginResult r = ReproduceTbPlugin(b.t);
  ASSERT_EQ(r.step_count, 2);
  EXPECT_DOUBLE_EQ(r.avg_step_us, 100.0);
  const auto us = [&](TbRole role) { return r.avg_role_us[static_cast<size_t>(role)]; };
  EXPECT_DOUBLE_EQ(us(TbRole::kKernel), 20.0);
  EXPECT_DOUBLE_EQ(us(TbRole::kRuntime), 1.0);
  EXPECT_DOUBLE_EQ(us(TbRole::kDataLoader), 30.0);
  EXPECT_DOUBLE_EQ(us(TbRole::kCpuExec), 60.0 - 30.0 - 1.0 - 10.0);  // minus overlaps
  EXPECT_DOUBLE_EQ(us(TbRole::kOther), 100.0 - 20 - 1 - 30 - 19);
  double sum = 0;
  for (double p : r.role_pct) sum += p;
  EXPECT_NEAR(sum, 100.0, 1e-9);
  EXPECT_EQ(ToString(TbRole::kCpuExec), "CPU Exec");
}

}  // namespace
}  // namespace gpuwhy::analysis
