#include "analysis/steps/tb_plugin_steps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

namespace gpuwhy::analysis {
namespace {

void AddStep(model::Trace& t, int32_t n, int64_t s, int64_t e) {
  model::RangeRow r;
  r.start_ns = s;
  r.end_ns = e;
  r.kind = model::RangeKind::kUserAnnotation;
  r.step = n;
  r.name = t.strings.Intern("ProfilerStep#");
  t.ranges.Append(r);
}

void AddLaunch(model::Trace& t, int64_t corr, int64_t s, int64_t e, int64_t ks, int64_t ke) {
  model::ApiRow a;
  a.start_ns = s;
  a.end_ns = e;
  a.correlation_id = corr;
  a.kind = model::ApiKind::kRuntime;
  a.name = t.strings.Intern("cudaLaunchKernel");
  t.api_calls.Append(a);
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = ks;
  k.end_ns = ke;
  k.correlation_id = corr;
  t.kernels.Append(k);
}

TEST(TbPluginStepsTest, DeviceAdjustmentAndTailRemoval) {
  model::Trace t;
  AddStep(t, 1, 100, 200);
  AddStep(t, 2, 200, 300);
  AddStep(t, 3, 300, 400);
  AddStep(t, 4, 400, 500);  // launches nothing: dropped
  // Step 1 launches 2 kernels, the second runs past the host step end.
  AddLaunch(t, 1, 110, 120, 130, 150);
  AddLaunch(t, 2, 150, 160, 170, 250);
  // Step 2: two kernels, ending at 320.
  AddLaunch(t, 3, 210, 220, 260, 290);
  AddLaunch(t, 4, 230, 240, 290, 320);
  // Step 3: one kernel only (< 0.8 x 2): dropped as an incomplete tail step.
  AddLaunch(t, 5, 310, 320, 330, 340);
  // A runtime straddling the step 2/3 boundary is ignored.
  AddLaunch(t, 6, 295, 305, 350, 360);
  t.Finalize();
  TbPluginStepResult r = TbPluginSteps(t);
  EXPECT_EQ(r.host_step_count, 4);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].start_ns, 100);
  EXPECT_EQ(r.steps[0].end_ns, 250);    // last device end of step 1
  EXPECT_EQ(r.steps[1].start_ns, 250);  // max(prev end, host start)
  EXPECT_EQ(r.steps[1].end_ns, 320);
  EXPECT_EQ(r.device_ops_per_step[0], 2);
  EXPECT_EQ(r.device_ops_per_step[1], 2);
}

// Runtime calls are read in start order straight from a Finalize()d table;
// a table in another order (not finalized) is sorted first, to the same steps.
// Driver calls (not kRuntime) are skipped either way.
TEST(TbPluginStepsTest, RuntimeOrderDoesNotChangeTheSteps) {
  auto build = [](bool reversed) {
    model::Trace t;
    AddStep(t, 1, 100, 200);
    AddStep(t, 2, 200, 300);
    std::vector<std::array<int64_t, 5>> launches = {
        {1, 110, 120, 130, 150}, {2, 150, 160, 170, 250}, {3, 210, 220, 260, 290},
        {4, 230, 240, 290, 320}};
    if (reversed) std::reverse(launches.begin(), launches.end());
    for (const auto& l : launches) AddLaunch(t, l[0], l[1], l[2], l[3], l[4]);
    model::ApiRow driver;  // a driver call inside step 1 with a kernel: not a runtime
    driver.start_ns = 180;
    driver.end_ns = 190;
    driver.correlation_id = 9;
    driver.kind = model::ApiKind::kDriver;
    driver.name = t.strings.Intern("cuLaunchKernel");
    t.api_calls.Append(driver);
    return t;
  };
  model::Trace sorted = build(false);
  sorted.Finalize();
  const TbPluginStepResult want = TbPluginSteps(sorted);
  ASSERT_EQ(want.steps.size(), 2u);
  EXPECT_EQ(want.steps[0].end_ns, 250);
  EXPECT_EQ(want.steps[1].end_ns, 320);
  const model::Trace unsorted = build(true);  // not finalized: api rows in reverse start order
  const TbPluginStepResult got = TbPluginSteps(unsorted);
  ASSERT_EQ(got.steps.size(), want.steps.size());
  for (size_t i = 0; i < want.steps.size(); ++i) {
    EXPECT_EQ(got.steps[i].start_ns, want.steps[i].start_ns) << i;
    EXPECT_EQ(got.steps[i].end_ns, want.steps[i].end_ns) << i;
  }
  EXPECT_EQ(got.device_ops_per_step, want.device_ops_per_step);
}

TEST(TbPluginStepsTest, NoProfilerStepsGivesOneCpuSpanStep) {
  model::Trace t;
  model::RangeRow op;
  op.kind = model::RangeKind::kCpuOp;
  op.start_ns = 10;
  op.end_ns = 90;
  t.ranges.Append(op);
  t.Finalize();
  TbPluginStepResult r = TbPluginSteps(t);
  EXPECT_FALSE(r.has_profiler_steps);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].start_ns, 10);
  EXPECT_EQ(r.steps[0].end_ns, 90);
}

}  // namespace
}  // namespace gpuwhy::analysis
