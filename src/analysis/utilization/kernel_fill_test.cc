// Per-kernel fill/occupancy figures and their step functions (kernel_fill.h).
#include "analysis/utilization/kernel_fill.h"

#include <gtest/gtest.h>

#include "analysis/utilization/utilization.h"

namespace gpuwhy::analysis {
namespace {

void AddKernel(model::Trace& t, int64_t s, int64_t e, float bpsm, float occ_pct) {
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = s;
  k.end_ns = e;
  k.name = t.strings.Intern("k");
  k.blocks_per_sm = bpsm;
  k.est_occupancy_pct = occ_pct;
  t.kernels.Append(k);
}

TEST(KernelFill, StepFunctionsOverOverlappingKernels) {
  model::Trace t;
  AddKernel(t, 0, 100, 0.5f, 50.0f);
  AddKernel(t, 50, 150, 0.75f, 25.0f);  // overlaps: fill capped at 1, occupancy the mean
  AddKernel(t, 200, 300, 0.25f, kMissingF32);  // no occupancy: does not count there
  t.Finalize();
  const std::vector<KernelFillSteps> s = BuildKernelFillSteps(t);
  ASSERT_EQ(s.size(), 1u);
  const std::vector<StepPoint> fill = {{0, 0.5}, {50, 1.0}, {100, 0.75}, {150, 0}, {200, 0.25},
                                       {300, 0}};
  ASSERT_EQ(s[0].sm_fill.size(), fill.size());
  for (size_t i = 0; i < fill.size(); ++i) {
    EXPECT_EQ(s[0].sm_fill[i].ts_ns, fill[i].ts_ns) << i;
    EXPECT_NEAR(s[0].sm_fill[i].value, fill[i].value, 1e-9) << i;
  }
  const std::vector<StepPoint> occ = {{0, 0.5}, {50, 0.375}, {100, 0.25}, {150, 0}};
  ASSERT_EQ(s[0].occupancy.size(), occ.size());
  for (size_t i = 0; i < occ.size(); ++i) {
    EXPECT_EQ(s[0].occupancy[i].ts_ns, occ[i].ts_ns) << i;
    EXPECT_NEAR(s[0].occupancy[i].value, occ[i].value, 1e-9) << i;
  }
  EXPECT_NEAR(s[0].occupancy_coverage, 200.0 / 300.0, 1e-9);
  EXPECT_NEAR(s[0].sm_fill_coverage, 1.0, 1e-9);

  // The step function integrates to the utilization section's SM fill.
  const UtilizationResult u = AnalyzeUtilization(t);
  ASSERT_EQ(u.devices.size(), 1u);
  double integral = 0;
  for (size_t i = 0; i + 1 < s[0].sm_fill.size(); ++i)
    integral += s[0].sm_fill[i].value *
                static_cast<double>(s[0].sm_fill[i + 1].ts_ns - s[0].sm_fill[i].ts_ns);
  const double window = static_cast<double>(u.devices[0].window_end_ns - u.devices[0].window_start_ns);
  EXPECT_NEAR(u.devices[0].sm_fill_ratio.value, integral / window, 1e-9);
}

TEST(KernelFill, NoLaunchConfigGivesNoSeries) {
  model::Trace t;
  AddKernel(t, 0, 100, kMissingF32, kMissingF32);
  t.Finalize();
  const std::vector<KernelFillSteps> s = BuildKernelFillSteps(t);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].sm_fill.empty());
  EXPECT_TRUE(s[0].occupancy.empty());
  EXPECT_EQ(s[0].sm_fill_coverage, 0.0);
}

}  // namespace
}  // namespace gpuwhy::analysis
