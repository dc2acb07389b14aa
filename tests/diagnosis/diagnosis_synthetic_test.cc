// Each detector on the synthetic scenarios of tools/synth_trace, checked
// against the generator's explicit ground truth.
#include <gtest/gtest.h>

#include <filesystem>

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
    std::string path = std::string(GPUWHY_BINARY_DIR) + "/diag_" +
                       std::string(synth::ScenarioName(s)) + std::to_string(r) + ".json";
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

}  // namespace
}  // namespace gpuwhy::testing
