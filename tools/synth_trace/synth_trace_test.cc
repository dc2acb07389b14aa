// Ground-truth test: every scenario, through the real importer and summary.
#include "synth_trace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/summary/device_summary.h"
#include "import/registry.h"

namespace gpuwhy::synth {
namespace {

struct Case {
  Scenario scenario;
  bool legacy;
};

class SynthGroundTruth : public ::testing::TestWithParam<Case> {};

TEST_P(SynthGroundTruth, SummaryMatchesGroundTruth) {
  ScenarioParams p = DefaultParams(GetParam().scenario);
  p.legacy = GetParam().legacy;
  p.steps = std::min(p.steps, 3);
  SynthTrace st = Generate(p);
  const GroundTruth& g = st.truth;
  std::string path = std::string(GPUWHY_BINARY_DIR) + "/synth_test_" +
                     std::string(ScenarioName(p.scenario)) + (p.legacy ? "_legacy" : "") +
                     ".json.gz";
  ASSERT_TRUE(WriteTrace(st.json, path).ok());
  Result<model::Trace> trace = import::ImportFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  analysis::TraceSummary s = analysis::SummarizeDevices(*trace, {});
  ASSERT_EQ(s.devices.size(), 1u);
  const analysis::DeviceSummary& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.kernels.duration.count, g.kernel_count);
  EXPECT_EQ(d.kernels.duration.total_ns, g.kernel_time_ns);
  EXPECT_EQ(d.kernels.duration.min_ns, g.min_kernel_ns);
  EXPECT_EQ(d.kernels.duration.max_ns, g.max_kernel_ns);
  EXPECT_EQ(d.busy.kernel_busy_ns, g.kernel_time_ns);  // no overlap by construction
  EXPECT_EQ(d.busy.gpu_busy_ns, g.gpu_busy_ns);
  EXPECT_EQ(d.span_start_ns, g.gpu_span_start_ns);
  EXPECT_EQ(d.span_end_ns, g.gpu_span_end_ns);
  if (g.steps == 0) {
    EXPECT_FALSE(d.steps.has_steps);  // no step markers written
  } else {
    ASSERT_TRUE(d.steps.has_steps);
    EXPECT_EQ(d.steps.step_time.count, g.steps);
    EXPECT_EQ(d.steps.step_time.min_ns, *std::min_element(g.step_ns.begin(), g.step_ns.end()));
    EXPECT_EQ(d.steps.step_time.max_ns, *std::max_element(g.step_ns.begin(), g.step_ns.end()));
  }
  int64_t h2d_bytes = 0, d2h_count = 0;
  for (const analysis::MemcpyGroup& m : d.memcpy_by_direction) {
    if (m.copy_kind == model::CopyKind::kHtoD) h2d_bytes = m.stats.bytes;
    if (m.copy_kind == model::CopyKind::kDtoH) d2h_count = m.stats.count;
  }
  EXPECT_EQ(h2d_bytes, g.memcpy_h2d_bytes);
  EXPECT_EQ(d2h_count, g.memcpy_d2h_count);
  EXPECT_EQ(d.memset_total.count, g.memset_count);
  int64_t syncs = 0, sync_ns = 0;
  for (const analysis::SyncApiStats& a : d.sync_apis) {
    if (a.name == "cudaStreamSynchronize") {
      syncs = a.count;
      sync_ns = a.total_ns;
    }
  }
  EXPECT_EQ(syncs, g.stream_sync_calls);
  EXPECT_EQ(sync_ns, g.stream_sync_ns);
  std::filesystem::remove(path);
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (Scenario s : AllScenarios()) out.push_back({s, false});
  out.push_back({Scenario::kHealthy, true});
  out.push_back({Scenario::kSyncEveryStep, true});
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, SynthGroundTruth, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(ScenarioName(i.param.scenario)) +
                                  (i.param.legacy ? "_legacy" : "");
                         });

TEST(Synth, DeterministicForASeed) {
  ScenarioParams p = DefaultParams(Scenario::kFragmented);
  EXPECT_EQ(Generate(p).json, Generate(p).json);
  ScenarioParams q = p;
  q.seed = 2;
  EXPECT_NE(Generate(p).json, Generate(q).json);
}

TEST(Synth, ScenarioShapes) {
  // The scenarios differ the way their names say.
  GroundTruth stall = Generate(DefaultParams(Scenario::kDataloaderStall)).truth;
  GroundTruth healthy = Generate(DefaultParams(Scenario::kHealthy)).truth;
  auto busy_ratio = [](const GroundTruth& g) {
    return static_cast<double>(g.gpu_busy_ns) /
           static_cast<double>(g.gpu_span_end_ns - g.gpu_span_start_ns);
  };
  EXPECT_GT(busy_ratio(healthy), 0.9);
  EXPECT_LT(busy_ratio(stall), 0.5);
  EXPECT_GT(stall.dataloader_ns, 0);
  GroundTruth frag = Generate(DefaultParams(Scenario::kFragmented)).truth;
  EXPECT_GE(frag.kernel_count, 1000);
  EXPECT_LE(frag.max_kernel_ns, 20000);
  GroundTruth sync = Generate(DefaultParams(Scenario::kSyncEveryStep)).truth;
  EXPECT_EQ(sync.stream_sync_calls, sync.steps);
  EXPECT_EQ(sync.memcpy_d2h_count, sync.steps);
  EXPECT_TRUE(ParseScenario("nope").status().code() == StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace gpuwhy::synth
