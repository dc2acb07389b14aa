// Busy that is not work (kernel_efficiency.busy_not_work) and "no compute-bound
// without evidence of compute", on synthetic traces with known answers
// (tools/synth_trace): a 1-block kernel on a 132-SM GPU, 16-thread blocks, a
// healthy full-grid GEMM, NCCL kernels on two SMs, and SM-active counters that
// measure what the launch configuration only estimates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "diagnosis_test_util.h"
#include "synth_trace.h"

namespace gpuwhy::testing::busy_not_work_test {
namespace {

using analysis::detectors::Diagnosis;
using analysis::detectors::Finding;

constexpr const char* kId = "kernel_efficiency.busy_not_work";

struct Made {
  model::Trace trace;
  synth::GroundTruth truth;
  bool ok = false;
};

Made MakeTrace(const synth::ScenarioParams& p, const std::string& tag) {
  Made m;
  synth::SynthTrace st = synth::Generate(p);
  const std::string path = std::string(GPUWHY_BINARY_DIR) + "/busy_not_work_" + tag + "." +
                           std::to_string(getpid()) + ".json";
  EXPECT_TRUE(synth::WriteTrace(st.json, path).ok());
  std::vector<model::Trace> t = ImportAll({path});
  std::filesystem::remove(path);
  if (t.empty()) return m;
  m.trace = std::move(t[0]);
  m.truth = st.truth;
  m.ok = true;
  return m;
}

Made Make(synth::Scenario s) {
  return MakeTrace(synth::DefaultParams(s), std::string(synth::ScenarioName(s)));
}

Diagnosis DiagnoseOne(const model::Trace& t) {
  std::vector<const model::Trace*> v{&t};
  return analysis::detectors::Diagnose(v, {});
}

// AddCounter: a `kind` series on device 0 sampled every 1 ms at `value` over
// the trace's extent, as nsys GPU metrics or a merged DCGM log give it.
void AddCounter(model::Trace& t, model::CounterKind kind, double value) {
  model::CounterSeries s;
  s.kind = kind;
  s.unit = model::CounterUnit::kRatio;
  s.device_id = 0;
  s.period_ns = kNsPerMs;
  const auto [t0, t1] = t.TimeExtent();
  for (int64_t ts = t0; ts <= t1; ts += kNsPerMs) {
    s.ts_ns.push_back(ts);
    s.value.push_back(value);
  }
  t.counters.push_back(std::move(s));
}

TEST(BusyNotWork, OneBlockKernelIsFirstAndStatesTheGap) {
  Made m = Make(synth::Scenario::kOneBlockKernel);
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  Print("synth one_block_kernel", d);
  ASSERT_FALSE(d.findings.empty());
  const Finding& f = d.findings.front();
  ASSERT_EQ(f.id, kId);
  // Known answer: one block on 132 SMs, so SM fill = 1/132 of the kernel time
  // and 131/132 of it is at stake (the 32-thread block adds a little more:
  // one warp of the SM's 64).
  const double kernel_ns = static_cast<double>(m.truth.kernel_time_ns);
  EXPECT_GE(Metric(f, "at_stake_ns"), kernel_ns * (131.0 / 132.0) * 0.99);
  EXPECT_LE(Metric(f, "at_stake_ns"), kernel_ns * 1.001);
  EXPECT_LT(Metric(f, "real_ratio"), 0.01);
  EXPECT_GT(Metric(f, "kernel_busy_ratio"), 0.9);
  EXPECT_GT(f.lost_step_ratio, 0.8);
  // It names the kernel, grid and block, and the WHY line states the gap.
  EXPECT_NE(f.summary.find("`serial_update_kernel`"), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("1 block of 32 threads"), std::string::npos) << f.summary;
  EXPECT_NE(d.top_line.find("GPU-Util"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("of SMs have work"), std::string::npos) << d.top_line;
  ASSERT_FALSE(f.examples.empty());
  EXPECT_NE(f.examples[0].detail.find("SM fill 0.8%"), std::string::npos) << f.examples[0].detail;
  // A one-block kernel of class "other" is never compute-bound, and a busy
  // GPU doing little is never HEALTHY.
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
  EXPECT_NE(d.curve_shape, "HEALTHY");
}

TEST(BusyNotWork, SixteenThreadBlocksFireAtHalfTheKernelTime) {
  Made m = Make(synth::Scenario::kTinyBlocks);
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  Print("synth tiny_blocks", d);
  const Finding* f = FindFinding(d, kId);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(d.findings.front().id, kId);
  // Known answer: every SM has work, but 32 resident blocks of 16 threads
  // are 25% of the SM's thread slots, half of the 50% taken as enough: half
  // of the kernel time is at stake.
  const double kernel_ns = static_cast<double>(m.truth.kernel_time_ns);
  EXPECT_NEAR(Metric(*f, "at_stake_ns"), 0.5 * kernel_ns, 0.01 * kernel_ns);
  ASSERT_FALSE(f->examples.empty());
  EXPECT_NE(f->examples[0].detail.find("of 16 threads"), std::string::npos)
      << f->examples[0].detail;
  EXPECT_NE(f->examples[0].detail.find("est. occupancy 25%"), std::string::npos)
      << f->examples[0].detail;
  EXPECT_NE(d.curve_shape, "HEALTHY");
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

TEST(BusyNotWork, HealthyFullGridGemmDoesNotFire) {
  Made m = Make(synth::Scenario::kHealthy);
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
  // Its GEMM kernels fill the GPU (grid 264 on 132 SMs): evidence of compute.
  EXPECT_NE(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

TEST(BusyNotWork, SmallGemmGridFires) {
  // A GEMM whose grid gives 33 of 132 SMs a tile: GEMM/conv by name, but the
  // launch configuration shows three quarters of the GPU without work.
  synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kHealthy);
  p.grid_x = 33;
  Made m = MakeTrace(p, "small_gemm");
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  const Finding* f = FindFinding(d, kId);
  ASSERT_NE(f, nullptr);
  const double kernel_ns = static_cast<double>(m.truth.kernel_time_ns);
  EXPECT_NEAR(Metric(*f, "at_stake_ns"), 0.75 * kernel_ns, 0.01 * kernel_ns);
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

TEST(BusyNotWork, CommunicationKernelsOnFewSmsAreNotJudged) {
  // NCCL kernels run 2 blocks on purpose; their time is communication's.
  Made m = Make(synth::Scenario::kMultiRank);
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
}

TEST(BusyNotWork, ShortUnderfilledKernelsDoNotOutrankLaunchOverhead) {
  // 5-20 µs kernels of 64 blocks with launch gaps: the host is the cause.
  Made m = Make(synth::Scenario::kFragmented);
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "launch_bound.fragmented");
}

TEST(BusyNotWork, SmActiveCounterLowFiresOnAFullGrid) {
  // The launch configuration says every SM has work; the counter measures 20%
  // SM active while kernels run ~100% of the time: the counter decides.
  Made m = Make(synth::Scenario::kHealthy);
  ASSERT_TRUE(m.ok);
  AddCounter(m.trace, model::CounterKind::kSmActive, 0.2);
  Diagnosis d = DiagnoseOne(m.trace);
  const Finding* f = FindFinding(d, kId);
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Metric(*f, "real_ratio"), 0.2, 1e-6);
  const double busy = Metric(*f, "kernel_busy_ratio");
  const double kernel_ns = static_cast<double>(m.truth.kernel_time_ns);
  EXPECT_NEAR(Metric(*f, "at_stake_ns"), kernel_ns * (1.0 - 0.2 / busy), 0.02 * kernel_ns);
  EXPECT_NE(f->summary.find("SMs are active 20%"), std::string::npos) << f->summary;
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

TEST(BusyNotWork, SmActiveCounterHighOverridesTheLaunchConfig) {
  // A measured 95% SM active contradicts the 1-block estimate: no finding.
  Made m = Make(synth::Scenario::kOneBlockKernel);
  ASSERT_TRUE(m.ok);
  AddCounter(m.trace, model::CounterKind::kSmActive, 0.95);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
}

TEST(BusyNotWork, TensorPipesBusyAreEvidenceOfCompute) {
  // Long opaque kernels of class "other" on a full grid, with the tensor pipe
  // counter at 60%: compute-bound by counters.
  synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kHealthy);
  p.kernel_name = "Kernel";
  Made m = MakeTrace(p, "opaque");
  ASSERT_TRUE(m.ok);
  AddCounter(m.trace, model::CounterKind::kTensorActive, 0.6);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_NE(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
}

TEST(BusyNotWork, LongOneBlockKernelIsNeverComputeBound) {
  // 2-3 ms kernels of class "other" on one block. An SM-active counter at 95%
  // keeps busy_not_work quiet, so only the compute-bound rule is on trial:
  // long kernels are evidence of compute only when their grids fill the SMs.
  synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kOneBlockKernel);
  p.kernel_min_ns = 2 * kNsPerMs;
  p.kernel_max_ns = 3 * kNsPerMs;
  Made m = MakeTrace(p, "long_one_block");
  ASSERT_TRUE(m.ok);
  AddCounter(m.trace, model::CounterKind::kSmActive, 0.95);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

TEST(BusyNotWork, LongOpaqueKernelsOnAFullGridAreComputeBound) {
  // CUTLASS-style opaque "Kernel" names, 2-3 ms each, 264 blocks on 132 SMs:
  // the grid fills the GPU, so the long kernels count as compute.
  synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kHealthy);
  p.kernel_name = "Kernel";
  p.kernel_min_ns = 2 * kNsPerMs;
  p.kernel_max_ns = 3 * kNsPerMs;
  Made m = MakeTrace(p, "long_opaque");
  ASSERT_TRUE(m.ok);
  Diagnosis d = DiagnoseOne(m.trace);
  EXPECT_EQ(FindFinding(d, kId), nullptr);
  EXPECT_NE(FindFinding(d, "kernel_efficiency.compute_bound"), nullptr);
}

}  // namespace
}  // namespace gpuwhy::testing::busy_not_work_test
