// Each GPU gap explained by what held it (issue 39 §2), on synthetic traces
// with known answers (tools/synth_trace): a blocking copy nested inside a
// launching op, a long first call of a cuDNN op, torch.compile after a
// microsecond sync, and a sync followed by host work every step. Each rule is
// stated on its own case; none is tuned to one real file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "analysis/detectors/timeline.h"
#include "diagnosis_test_util.h"
#include "synth_trace.h"

namespace gpuwhy::testing::gap_holder_test {
namespace {

using analysis::detectors::Diagnosis;
using analysis::detectors::Finding;
using analysis::detectors::IdleCause;

struct Made {
  std::vector<model::Trace> traces;
  synth::GroundTruth truth;
  synth::ScenarioParams params;
};

Made MakeScenario(synth::Scenario s) {
  Made m;
  m.params = synth::DefaultParams(s);
  synth::SynthTrace st = synth::Generate(m.params);
  m.truth = st.truth;
  const std::string path = std::string(GPUWHY_BINARY_DIR) + "/gap_holder_" +
                           std::string(synth::ScenarioName(s)) + "." + std::to_string(getpid()) +
                           ".json";
  EXPECT_TRUE(synth::WriteTrace(st.json, path).ok());
  m.traces = ImportAll({path});
  std::filesystem::remove(path);
  return m;
}

// Text: every sentence of a finding a reader sees (summary, examples, notes).
std::string Text(const Finding& f) {
  std::string s = f.summary;
  for (const auto& e : f.examples) s += " | " + e.detail;
  for (const std::string& n : f.notes) s += " | " + n;
  return s;
}

// Rule: a blocking runtime call holding most of a gap names the gap, even
// when the op around it launched the kernel that ends the gap before the
// call began (the launch came early; the host was blocked in the copy).
// Never "host launching work".
TEST(GapHolder, BlockingCopyNestedInALaunchingOpNamesTheCopy) {
  Made m = MakeScenario(synth::Scenario::kBlockingCopyInOp);
  ASSERT_EQ(m.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(m.traces);
  Print("synth blocking_copy_in_op", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "idle.one_off_gap");
  const Finding* f = FindFinding(d, "idle.one_off_gap");
  ASSERT_NE(f, nullptr);
  const std::string text = Text(*f);
  EXPECT_NE(text.find("cudaMemcpy"), std::string::npos) << text;
  EXPECT_NE(text.find("blocking copy"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::copy_"), std::string::npos) << text;
  EXPECT_NE(text.find("init_new"), std::string::npos) << text;  // the Python frame
  EXPECT_EQ(text.find("launching work"), std::string::npos) << text;
  EXPECT_GT(static_cast<double>(f->lost_per_step_ns), 0.95 * m.params.host_hold_ns);
  const Finding* lb = FindFinding(d, "launch_bound.fragmented");
  EXPECT_TRUE(lb == nullptr || lb->lost_step_ratio < 0.02);

  const auto tl = analysis::detectors::BuildTimeline(m.traces[0]);
  const auto* dev = tl.Primary();
  ASSERT_NE(dev, nullptr);
  const int64_t blocked = dev->idle_by_cause[static_cast<size_t>(IdleCause::kSync)] +
                          dev->idle_by_cause[static_cast<size_t>(IdleCause::kH2dSync)];
  EXPECT_GT(static_cast<double>(blocked), 0.95 * m.params.host_hold_ns);
}

// Rule: an op's own CPU time holding a gap names the op; on its first call it
// is warm-up, and a cuDNN convolution's first call is cuDNN's algorithm
// search. A 400 ms gap is never launch overhead, and it is one-off.
TEST(GapHolder, LongFirstCallOfACudnnOpIsWarmUpNotLaunch) {
  Made m = MakeScenario(synth::Scenario::kFirstCallOp);
  ASSERT_EQ(m.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(m.traces);
  Print("synth first_call_op", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "idle.one_off_gap");
  const Finding* f = FindFinding(d, "idle.one_off_gap");
  ASSERT_NE(f, nullptr);
  const std::string text = Text(*f);
  EXPECT_NE(text.find("the first aten::cudnn_convolution"), std::string::npos) << text;
  EXPECT_NE(text.find("cuDNN algorithm search"), std::string::npos) << text;
  EXPECT_NE(text.find("torch.backends.cudnn.benchmark"), std::string::npos) << text;
  const Finding* lb = FindFinding(d, "launch_bound.fragmented");
  EXPECT_TRUE(lb == nullptr || lb->lost_step_ratio < 0.02);
  const Finding* hb = FindFinding(d, "host.busy_elsewhere");
  EXPECT_TRUE(hb == nullptr || hb->lost_step_ratio < 0.02);
  EXPECT_EQ(d.top_line.find("launch-bound"), std::string::npos) << d.top_line;
}

// Rule: torch.compile's annotations holding a gap make it compile/warm-up;
// the microsecond cudaStreamSynchronize before it owns only its wait and
// restart, not the compilation after it.
TEST(GapHolder, CompileAfterAMicrosecondSyncIsCompileNotSync) {
  Made m = MakeScenario(synth::Scenario::kCompileWarmup);
  ASSERT_EQ(m.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(m.traces);
  Print("synth compile_warmup", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "idle.one_off_gap");
  const Finding* f = FindFinding(d, "idle.one_off_gap");
  ASSERT_NE(f, nullptr);
  const std::string text = Text(*f);
  EXPECT_NE(text.find("compile_fx"), std::string::npos) << text;
  EXPECT_NE(text.find("compile/warm-up"), std::string::npos) << text;
  EXPECT_EQ(text.find("cudaStreamSynchronize"), std::string::npos) << text;
  const Finding* sync = FindFinding(d, "sync.host_sync");
  EXPECT_TRUE(sync == nullptr || sync->lost_step_ratio < 0.02);

  const auto tl = analysis::detectors::BuildTimeline(m.traces[0]);
  const auto* dev = tl.Primary();
  ASSERT_NE(dev, nullptr);
  EXPECT_LT(dev->idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 1 * kNsPerMs);
  EXPECT_GT(static_cast<double>(dev->idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)]),
            0.95 * m.params.host_hold_ns);
}

// Rule: a sync owns its wait and its restart bubble, not what comes after:
// when the host runs a Python function that launches nothing after every
// sync, the idle is that function's, a per-step host-work finding that names
// it, and the sync finding keeps only its own wait.
TEST(GapHolder, SyncThenHostWorkBelongsToTheWork) {
  Made m = MakeScenario(synth::Scenario::kSyncThenHostWork);
  ASSERT_EQ(m.traces.size(), 1u);
  Diagnosis d = DiagnoseAll(m.traces);
  Print("synth sync_then_host_work", d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].id, "host.busy_elsewhere");
  const Finding* f = FindFinding(d, "host.busy_elsewhere");
  ASSERT_NE(f, nullptr);
  const std::string text = Text(*f);
  EXPECT_NE(text.find("log_metrics"), std::string::npos) << text;
  EXPECT_GT(static_cast<double>(f->lost_per_step_ns), 0.9 * m.params.host_hold_ns);
  const Finding* sync = FindFinding(d, "sync.host_sync");
  EXPECT_TRUE(sync == nullptr || sync->lost_per_step_ns < 1 * kNsPerMs);
}

}  // namespace
}  // namespace gpuwhy::testing::gap_holder_test
