#include "analysis/steps/tb_plugin_steps.h"

#include <gtest/gtest.h>

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
