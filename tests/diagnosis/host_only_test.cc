// A host-only profile (TraceInfo::host_only_profile: the profiler recorded no
// GPU activity type) reads as a CPU-only run with its steps, not an idle GPU.
#include <gtest/gtest.h>

#include "diagnosis_test_util.h"

namespace gpuwhy::testing {
namespace {

model::Trace HostOnlyTrace(bool host_only) {
  model::Trace t;
  for (int s = 0; s < 3; ++s) {
    model::RangeRow r;
    r.tid = 1;
    r.start_ns = 1'000'000 + s * 40'000'000LL;
    r.end_ns = r.start_ns + 30'000'000;  // 30 ms steps
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(s + 1));
    r.step = s + 1;
    r.kind = model::RangeKind::kUserAnnotation;
    t.ranges.Append(r);
    model::RangeRow op = r;
    op.name = t.strings.Intern("aten::mm");
    op.step = kMissingI32;
    op.kind = model::RangeKind::kCpuOp;
    op.end_ns = op.start_ns + 5'000'000;
    t.ranges.Append(op);
  }
  t.info.format = "torch-legacy-json";
  t.info.host_only_profile = host_only;
  t.Finalize();
  return t;
}

TEST(HostOnlyProfile, ReadsAsACpuOnlyRunWithItsSteps) {
  std::vector<model::Trace> traces;
  traces.push_back(HostOnlyTrace(true));
  analysis::detectors::Diagnosis d = DiagnoseAll(traces);
  EXPECT_EQ(d.bottleneck, "cpu_only");
  EXPECT_EQ(d.step_count, 3);
  EXPECT_NE(d.top_line.find("CPU-only run"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("3 steps, 30.0 ms per step"), std::string::npos) << d.top_line;
  EXPECT_EQ(d.top_line.find("idle"), std::string::npos) << d.top_line;
}

TEST(HostOnlyProfile, WithoutTheFlagNoGpuWorkIsStillIdle) {
  std::vector<model::Trace> traces;
  traces.push_back(HostOnlyTrace(false));
  analysis::detectors::Diagnosis d = DiagnoseAll(traces);
  EXPECT_EQ(d.bottleneck, "idle");
  EXPECT_EQ(d.top_line.find("CPU-only"), std::string::npos) << d.top_line;
}

}  // namespace
}  // namespace gpuwhy::testing
