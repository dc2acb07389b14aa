#include "analysis/diff/run_diff.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

RunProfile Profile(double step_ms, double sd_ms, double idle) {
  RunProfile p;
  p.per_step_basis = true;
  p.step_count = 10;
  p.step_mean_ns = p.step_p50_ns = step_ms * 1e6;
  p.step_p95_ns = step_ms * 1.1e6;
  p.step_stddev_ns = sd_ms * 1e6;
  p.idle_ratio = idle;
  p.busy_ratio = 1 - idle;
  return p;
}

TEST(RunDiff, StepChangeAgainstNoise) {
  RunProfile b = Profile(100, 1, 0.4), a = Profile(80, 1, 0.2);
  b.findings.push_back({"data_loading.dataloader", "GPU waits for the DataLoader", 30'000'000, 0.3,
                        75'000'000});
  a.findings.push_back({"launch_bound.fragmented", "fragmented", 10'000'000, 0.125, kMissingI64});
  b.top_kernels = {{"gemm", 100, 50'000'000}, {"old", 10, 1'000'000}};
  a.top_kernels = {{"gemm", 100, 48'000'000}, {"fused", 5, 2'000'000}};
  RunDiff d = DiffRuns(b, a);
  EXPECT_TRUE(d.noise_known);
  EXPECT_TRUE(d.step_change_beyond_noise);
  EXPECT_NEAR(d.metrics[0].change_ratio, -0.2, 1e-12);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].status, "resolved");
  EXPECT_NEAR(d.findings[0].prediction_error_ratio, (75.0 - 80.0) / 80.0, 1e-12);
  EXPECT_EQ(d.findings[1].status, "new");
  EXPECT_NE(d.headline.find("-20.0%"), std::string::npos) << d.headline;
  EXPECT_NE(d.headline.find("DataLoader wait resolved"), std::string::npos) << d.headline;
  EXPECT_NE(d.headline.find("now launch-bound"), std::string::npos) << d.headline;
  bool fused_new = false, old_gone = false;
  for (const KernelDelta& k : d.kernels) {
    fused_new = fused_new || (k.name == "fused" && k.status == "new");
    old_gone = old_gone || (k.name == "old" && k.status == "vanished");
  }
  EXPECT_TRUE(fused_new);
  EXPECT_TRUE(old_gone);
  // Same means, wide spread: within noise.
  RunDiff n = DiffRuns(Profile(100, 20, 0.4), Profile(102, 20, 0.4));
  EXPECT_FALSE(n.step_change_beyond_noise);
  EXPECT_NE(n.headline.find("within run-to-run noise"), std::string::npos);
}

TEST(RunDiff, GatesParseAndFire) {
  EXPECT_TRUE(ParseGate("step_time>+5%").ok());
  EXPECT_TRUE(ParseGate("idle_ratio>+3pp").ok());
  EXPECT_TRUE(ParseGate("mfu<-2pp").ok());
  EXPECT_TRUE(ParseGate("finding:sync.host_sync").ok());
  EXPECT_TRUE(ParseGate("p95_step_time>+10ms").ok());
  EXPECT_FALSE(ParseGate("step_time>5").ok());        // no unit
  EXPECT_FALSE(ParseGate("step_time>+5pp").ok());     // pp on a time
  EXPECT_FALSE(ParseGate("idle_ratio>+5ms").ok());    // ms on a ratio
  EXPECT_FALSE(ParseGate("speed>+5%").ok());          // unknown metric
  EXPECT_FALSE(ParseGate("finding:").ok());

  RunProfile b = Profile(100, 1, 0.10), a = Profile(108, 1, 0.15);
  a.findings.push_back({"sync.host_sync", "sync", 1'000'000, 0.01, kMissingI64});
  RunDiff d = DiffRuns(b, a);
  std::vector<Gate> gates;
  for (const char* g : {"step_time>+5%", "step_time>+10%", "idle_ratio>+3pp", "finding:sync.host_sync",
                        "finding:data_loading.dataloader", "mfu<-2pp"})
    gates.push_back(*ParseGate(g));
  std::vector<std::string> v = EvaluateGates(gates, d);
  ASSERT_EQ(v.size(), 4u);  // +8% > 5%, +5 pp > 3 pp, the sync finding, mfu missing
  EXPECT_NE(v[0].find("step_time>+5%"), std::string::npos);
  EXPECT_NE(v[1].find("idle_ratio>+3pp"), std::string::npos);
  EXPECT_NE(v[2].find("sync.host_sync"), std::string::npos);
  EXPECT_NE(v[3].find("cannot be checked"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy::analysis
