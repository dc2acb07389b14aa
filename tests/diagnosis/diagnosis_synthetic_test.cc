// Each detector on the synthetic scenarios of tools/synth_trace, checked
// against the generator's explicit ground truth.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analysis/analysis.h"
#include "analysis/detectors/timeline.h"
#include "diagnosis_test_util.h"
#include "synth_trace.h"

namespace gpuwhy::testing {
namespace {

using analysis::detectors::Diagnosis;

struct Case {
  std::vector<model::Trace> traces;
  synth::GroundTruth truth;
  int steps = 0;
};

Case Make(synth::Scenario s, int ranks = 1) {
  Case c;
  for (int r = 0; r < ranks; ++r) {
    synth::ScenarioParams p = synth::DefaultParams(s);
    if (ranks > 1) {
      p.rank = r;
      p.world_size = ranks;
    }
    synth::SynthTrace st = synth::Generate(p);
    // The pid keeps parallel ctest processes (one per test) from sharing a
    // file: Fragmented and ClassNeverContradictsTheIdleShare both make this
    // scenario, and one removed the file while the other read it.
    std::string path = std::string(GPUWHY_BINARY_DIR) + "/diag_" +
                       std::string(synth::ScenarioName(s)) + std::to_string(r) + "." +
                       std::to_string(getpid()) + ".json";
    EXPECT_TRUE(synth::WriteTrace(st.json, path).ok());
    auto t = ImportAll({path});
    std::filesystem::remove(path);
    if (t.empty()) return c;
    c.traces.push_back(std::move(t[0]));
    if (r == 0) {
      c.truth = st.truth;
      c.steps = p.steps;
    }
  }
  return c;
}

TEST(DiagnosisSynthetic, DataloaderStall) {
  Case c = Make(synth::Scenario::kDataloaderStall);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth dataloader_stall", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "data_loading.dataloader");
  const auto* f = FindFinding(d, "data_loading.dataloader");
  ASSERT_NE(f, nullptr);
  double truth_per_step = static_cast<double>(c.truth.dataloader_ns) / c.steps;
  EXPECT_NEAR(Metric(*f, "dataloader_ns_per_step"), truth_per_step, 0.05 * truth_per_step);
  // The GPU idles while the DataLoader runs, so nearly all of it is lost time.
  EXPECT_GT(static_cast<double>(f->lost_per_step_ns), 0.8 * truth_per_step);
  EXPECT_LE(static_cast<double>(f->lost_per_step_ns), 1.01 * truth_per_step);
}

TEST(DiagnosisSynthetic, SyncEveryStep) {
  Case c = Make(synth::Scenario::kSyncEveryStep);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth sync_every_step", d);
  const auto* f = FindFinding(d, "sync.host_sync");
  ASSERT_NE(f, nullptr);
  EXPECT_GE(Metric(*f, "calls.cudaStreamSynchronize"), static_cast<double>(c.truth.stream_sync_calls) - 1);
  EXPECT_GE(Metric(*f, "scalar_reads"), 1.0);
}

TEST(DiagnosisSynthetic, Fragmented) {
  Case c = Make(synth::Scenario::kFragmented);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth fragmented", d);
  const auto* f = FindFinding(d, "launch_bound.fragmented");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(d.findings[0].id, "launch_bound.fragmented");
  // Every kernel is 5-20 µs by construction.
  EXPECT_DOUBLE_EQ(Metric(*f, "kernel_under_50us_ratio"), 1.0);
  EXPECT_NEAR(Metric(*f, "kernels_per_step"),
              static_cast<double>(c.truth.kernel_count) / c.steps, 1.0);
}

TEST(DiagnosisSynthetic, PageableH2d) {
  Case c = Make(synth::Scenario::kPageableH2d);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth pageable_h2d", d);
  const auto* f = FindFinding(d, "data_loading.h2d_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Metric(*f, "h2d_pageable_count"), static_cast<double>(c.truth.memcpy_h2d_count));
  EXPECT_NEAR(Metric(*f, "h2d_bytes_per_step"),
              static_cast<double>(c.truth.memcpy_h2d_bytes) / c.steps, 1.0);
}

TEST(DiagnosisSynthetic, MemoryBound) {
  Case c = Make(synth::Scenario::kMemoryBound);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth memory_bound", d);
  EXPECT_NE(FindFinding(d, "kernel_efficiency.memory_bound"), nullptr);
  EXPECT_EQ(FindFinding(d, "data_loading.dataloader"), nullptr);
}

// Set-up hides the loop no more: 1.5 s of weight uploads before a
// memory-bound loop, no step markers. The class and the first finding
// describe the loop (PINNED_HIGH, memory-bound), the set-up is one one-off
// finding after it, and no window statement exceeds its whole.
TEST(DiagnosisSynthetic, SetupBeforeAMemoryBoundLoop) {
  Case c = Make(synth::Scenario::kSetupThenMemoryBound);
  ASSERT_EQ(c.traces.size(), 1u);
  const analysis::Analysis a = analysis::AnalyzeTraces(c.traces, {});
  ASSERT_TRUE(a.diagnosis.has_value());
  const Diagnosis& d = *a.diagnosis;
  Print("synth setup_then_memory_bound", d);
  EXPECT_EQ(d.curve_shape, "PINNED_HIGH") << d.curve_reason;
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "kernel_efficiency.memory_bound");
  const auto* one_off = FindFinding(d, "idle.one_off_gap");
  ASSERT_NE(one_off, nullptr);
  EXPECT_GT(Metric(*one_off, "setup_idle_ns"), 1.0e9);
  EXPECT_LE(one_off->lost_step_ratio, 1.0);
  EXPECT_LE(Metric(*one_off, "one_off_idle_share"), 1.0);  // a part never exceeds its whole
  // The loop's idle excludes the set-up: the GPU is busy in the loop.
  EXPECT_LT(d.idle_step_ratio, 0.2);
  const analysis::DeviceUtilization& du = a.traces[0].utilization.devices.at(0);
  EXPECT_EQ(du.verdict_window, "loop");
  EXPECT_GT(du.setup_ns, 1'400'000'000);
}

TEST(DiagnosisSynthetic, HealthyHasNoBigLoss) {
  Case c = Make(synth::Scenario::kHealthy);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth healthy", d);
  for (const auto& f : d.findings)
    if (IsValid(f.lost_step_ratio)) {
      EXPECT_LT(f.lost_step_ratio, 0.05) << f.id;
    }
  EXPECT_NE(d.top_line.find("busy"), std::string::npos);
}

TEST(DiagnosisSynthetic, MultiRankScenarioAndCommunication) {
  Case c = Make(synth::Scenario::kMultiRank, 2);
  ASSERT_EQ(c.traces.size(), 2u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth multi_rank", d);
  EXPECT_EQ(d.scenario, analysis::detectors::Scenario::kMulti);
  EXPECT_NE(FindFinding(d, "communication.exposed"), nullptr);
  // A given scenario overrides the inference.
  analysis::detectors::DiagnosisOptions o;
  o.scenario = analysis::detectors::Scenario::kDev;
  EXPECT_EQ(DiagnoseAll(c.traces, o).scenario, analysis::detectors::Scenario::kDev);
}


bool HasFix(const analysis::detectors::Finding& f, analysis::detectors::FixKind k) {
  for (const auto& r : f.recommendations)
    if (r.kind == k) return true;
  return false;
}

// Known answer: every step the host runs 20 ms of "preprocess" (CPU ops that
// launch nothing) while the GPU has nothing queued. That is host work, not
// launch overhead, and its fixes are workers/prefetch, never CUDA graphs.
TEST(DiagnosisSynthetic, HostBusyIsNotLaunchOverhead) {
  Case c = Make(synth::Scenario::kHostBusy);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth host_busy", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "host.busy_elsewhere");
  const auto* f = FindFinding(d, "host.busy_elsewhere");
  ASSERT_NE(f, nullptr);
  const double truth = static_cast<double>(c.truth.host_work_ns) / c.steps;
  // The GPU idles for the preprocessing less the work still queued when it
  // began (the generator lets the host run up to 2 ms ahead).
  EXPECT_GT(static_cast<double>(f->lost_per_step_ns), truth - 2.5e6);
  EXPECT_LT(static_cast<double>(f->lost_per_step_ns), truth + 0.5e6);
  EXPECT_EQ(Metric(*f, "host_busy_gaps"), c.steps);
  EXPECT_NE(f->summary.find("preprocess"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("aten::div"), std::string::npos) << f->summary;
  EXPECT_GT(Metric(*f, "input_work_ratio"), 0.9);
  EXPECT_TRUE(HasFix(*f, analysis::detectors::FixKind::kDataLoaderWorkers));
  EXPECT_TRUE(HasFix(*f, analysis::detectors::FixKind::kPrefetch));
  EXPECT_FALSE(HasFix(*f, analysis::detectors::FixKind::kCudaGraphs));
  const auto* lb = FindFinding(d, "launch_bound.fragmented");
  EXPECT_TRUE(lb == nullptr || lb->lost_step_ratio < 0.05);
  EXPECT_EQ(FindFinding(d, "idle.one_off_gap"), nullptr);
  EXPECT_NE(d.top_line.find("launches nothing"), std::string::npos) << d.top_line;
}

// Known answer: back-to-back ops launch 10-20 µs kernels every 40 µs; the
// gaps are launch cadence, so the finding is launch-bound, not host work.
TEST(DiagnosisSynthetic, LaunchCadenceIsLaunchBound) {
  Case c = Make(synth::Scenario::kLaunchCadence);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth launch_cadence", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "launch_bound.fragmented");
  const auto* f = FindFinding(d, "launch_bound.fragmented");
  ASSERT_NE(f, nullptr);
  // GPU busy = the kernels; per step ~400 x 40 µs of host time.
  EXPECT_GT(f->lost_step_ratio, 0.4);
  EXPECT_TRUE(HasFix(*f, analysis::detectors::FixKind::kCudaGraphs));
  const auto* hb = FindFinding(d, "host.busy_elsewhere");
  EXPECT_TRUE(hb == nullptr || hb->lost_step_ratio < 0.02);
}

// Known answer: six healthy steps, one 300 ms "evaluate" host phase in step 4.
// One gap holds nearly all the idle; it must not become a per-step finding.
TEST(DiagnosisSynthetic, OneOffGapIsNotPerStep) {
  Case c = Make(synth::Scenario::kOneOffGap);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth one_off_gap", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "idle.one_off_gap");
  const auto* f = FindFinding(d, "idle.one_off_gap");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->per_step_basis);
  EXPECT_GT(static_cast<double>(f->lost_per_step_ns), 0.95 * static_cast<double>(c.truth.host_work_ns));
  EXPECT_LT(static_cast<double>(f->lost_per_step_ns), 1.05 * static_cast<double>(c.truth.host_work_ns));
  EXPECT_GT(Metric(*f, "one_off_idle_share"), 0.8);
  EXPECT_NE(f->summary.find("not a per-step pattern"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("evaluate"), std::string::npos) << f->summary;
  ASSERT_FALSE(f->examples.empty());
  EXPECT_EQ(f->examples[0].step, 4);
  // Its time is not extrapolated into a per-step host-busy finding.
  const auto* hb = FindFinding(d, "host.busy_elsewhere");
  EXPECT_TRUE(hb == nullptr || hb->lost_step_ratio < 0.02);
  EXPECT_EQ(d.top_line.find("each step"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("not a per-step pattern"), std::string::npos) << d.top_line;
}

// Known answer: a ROCm trace (HIP names, no cbids) with one blocking
// hipMemcpyWithStream per step: a transfer/sync finding, whatever the prefix.
TEST(DiagnosisSynthetic, HipBlockingCopyIsATransferFinding) {
  Case c = Make(synth::Scenario::kHipBlockingCopy);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth hip_blocking_copy", d);
  ASSERT_FALSE(d.findings.empty());
  const std::string top = d.findings[0].id;
  EXPECT_TRUE(top == "data_loading.h2d_copies" || top == "sync.host_sync") << top;
  EXPECT_EQ(FindFinding(d, "host.busy_elsewhere"), nullptr);
  const auto* lb = FindFinding(d, "launch_bound.fragmented");
  EXPECT_TRUE(lb == nullptr || lb->lost_step_ratio < 0.05);
  const auto* h2d = FindFinding(d, "data_loading.h2d_copies");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(Metric(*h2d, "h2d_pageable_ratio"), 1.0);
}


// One verdict on every generated scenario: the class in the WHY line never
// contradicts the idle and kernel shares the same line states.
TEST(DiagnosisSynthetic, ClassNeverContradictsTheIdleShare) {
  for (synth::Scenario s : synth::AllScenarios()) {
    Case c = Make(s);
    ASSERT_EQ(c.traces.size(), 1u);
    Diagnosis d = DiagnoseAll(c.traces);
    SCOPED_TRACE(std::string(synth::ScenarioName(s)) + ": " + d.top_line);
    ASSERT_TRUE(IsValid(d.idle_step_ratio));
    ASSERT_TRUE(IsValid(d.kernel_step_ratio));
    if (d.curve_shape == "HEALTHY" || d.curve_shape == "PINNED_HIGH") {
      EXPECT_LT(d.idle_step_ratio, 0.25);
      EXPECT_GE(d.kernel_step_ratio, 0.6);
    }
    if (d.curve_shape == "IDLE") {
      EXPECT_LT(d.kernel_step_ratio, 0.2);
    }
    if (d.curve_shape == "JUMPS" || d.curve_shape == "WOBBLE") {
      EXPECT_LT(d.kernel_step_ratio, 0.95);
    }
  }
}

// Known answer: recorded shapes put four 4096^3 bf16 GEMMs at 60% of the H100
// roof and one 4096x4096x1020 GEMM at 10%. Busy-time MFU is 46%, so low_mfu
// stays quiet; the slow shape is named with its ratio, its K and the time a
// 60%-of-roof run would save.
TEST(DiagnosisSynthetic, GemmBelowRoofNamesTheShape) {
  Case c = Make(synth::Scenario::kGemmShapes);
  ASSERT_EQ(c.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(c.traces);
  Print("synth gemm_shapes", d);
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.low_mfu"), nullptr);
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.memory_bound"), nullptr);
  EXPECT_EQ(FindFinding(d, "kernel_efficiency.no_tensor_cores"), nullptr);
  const auto* f = FindFinding(d, "kernel_efficiency.gemm_below_roof");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Metric(*f, "worst_compute_roof_ratio"), 0.1, 1e-4);
  ASSERT_FALSE(f->examples.empty());
  EXPECT_NE(f->examples[0].what.find("K=1020"), std::string::npos) << f->examples[0].what;
  EXPECT_NE(f->examples[0].detail.find("multiple of 8"), std::string::npos) << f->examples[0].detail;
  const std::vector<synth::SynthKernel> mix = synth::GemmShapesMix();
  const double bad_ns = static_cast<double>(mix[4].dur_ns);
  const double at_good = 2.0 * 4096 * 4096 * 1020 / (0.6 * 989.4e12) * 1e9;
  EXPECT_NEAR(static_cast<double>(f->lost_per_step_ns), bad_ns - at_good, 1000.0);
  double good_ns = 4.0 * static_cast<double>(mix[0].dur_ns);
  EXPECT_NEAR(Metric(*f, "gemm_below_roof_time_ratio"), bad_ns / (bad_ns + good_ns), 1e-3);
  EXPECT_FALSE(f->lost_is_upper_bound);
}

// Predicted gain, checked against the generator making the fix: each pair is
// the same scenario and seed before and after one change, and the finding's
// predicted step time on "before" must land near the mean step of "after".
struct FixPair {
  synth::Scenario scenario;
  const char* finding;
  void (*fix)(synth::ScenarioParams&);
  double max_error;  // |predicted - actual| / actual
};

// MeanStepOf: the mean step window of the trace's primary device (the step
// the prediction is about: the generator's host steps run ahead of the GPU).
double MeanStepOf(const model::Trace& t) {
  analysis::detectors::Timeline tl = analysis::detectors::BuildTimeline(t);
  const analysis::detectors::DeviceTimeline* d = tl.Primary();
  if (d == nullptr || d->steps.empty()) return 0;
  return static_cast<double>(d->steps_total_ns) / static_cast<double>(d->steps.size());
}

TEST(DiagnosisSynthetic, PredictedStepAfterFixMatchesTheFixedRun) {
  const FixPair pairs[] = {
      {synth::Scenario::kDataloaderStall, "data_loading.dataloader",
       [](synth::ScenarioParams& p) { p.dataloader_ns = 0; }, 0.02},
      {synth::Scenario::kHostBusy, "host.busy_elsewhere",
       [](synth::ScenarioParams& p) { p.host_work_ns = 0; }, 0.02},
      {synth::Scenario::kPageableH2d, "data_loading.h2d_copies",
       [](synth::ScenarioParams& p) { p.h2d_pageable = false; }, 0.02},
  };
  for (const FixPair& fp : pairs) {
    Case before = Make(fp.scenario);
    ASSERT_EQ(before.traces.size(), 1u);
    Diagnosis d = DiagnoseAll(before.traces);
    const auto* f = FindFinding(d, fp.finding);
    ASSERT_NE(f, nullptr) << fp.finding;
    ASSERT_TRUE(IsValid(f->predicted_step_ns)) << fp.finding;
    EXPECT_FALSE(f->prediction_assumption.empty());
    synth::ScenarioParams p = synth::DefaultParams(fp.scenario);
    fp.fix(p);
    const std::string path = std::string(GPUWHY_BINARY_DIR) + "/diag_fixed_" +
                             std::string(synth::ScenarioName(fp.scenario)) + ".json";
    ASSERT_TRUE(synth::WriteTrace(synth::Generate(p).json, path).ok());
    std::vector<model::Trace> after = ImportAll({path});
    std::filesystem::remove(path);
    ASSERT_EQ(after.size(), 1u);
    const double actual = MeanStepOf(after[0]);
    const double before_ns = MeanStepOf(before.traces[0]);
    const double predicted = static_cast<double>(f->predicted_step_ns);
    std::printf("%s: before %.2f ms, predicted %.2f ms, after %.2f ms (error %+.1f%%)\n",
                fp.finding, before_ns / 1e6, predicted / 1e6, actual / 1e6,
                100.0 * (predicted - actual) / actual);
    EXPECT_LT(std::abs(predicted - actual) / actual, fp.max_error) << fp.finding;
    // A prediction is a model, not the upper bound: never faster than the
    // upper-bound saving allows.
    EXPECT_GE(predicted + 1, before_ns - static_cast<double>(f->lost_per_step_ns) - 0.02 * before_ns);
  }
}

}  // namespace
}  // namespace gpuwhy::testing
