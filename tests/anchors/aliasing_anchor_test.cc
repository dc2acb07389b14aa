// The aliasing case on a real trace (ResNet50, num_workers=0): at a fine
// period the curve is bimodal (idle DataLoader gaps, then bursts); at NVML's
// 1/6 s it is a flat ~59%. gpuwhy must say both.
#include <cstdio>

#include "analysis/utilization/utilization.h"
#include "anchor_util.h"

namespace gpuwhy {
namespace {

TEST(AliasingAnchorTest, ResNet50Nw0JumpsAtFineFlatAtNvmlPeriod) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/kineto_tb_plugin/samples/resnet50_num_workers_0/"
                     "worker0.1623143089861.pt.trace.json.gz");
  analysis::UtilizationResult r = analysis::AnalyzeUtilization(*t);
  ASSERT_FALSE(r.devices.empty());
  const analysis::DeviceUtilization& d = r.devices.front();
  const analysis::UtilSeries* fine = nullptr;
  const analysis::UtilSeries* nvml = nullptr;
  for (const auto& s : d.series) {
    if (s.label == "fine") fine = &s;
    if (s.label == "nvml_1/6s") nvml = &s;
  }
  ASSERT_NE(fine, nullptr);
  ASSERT_NE(nvml, nullptr);
  const auto& ff = d.verdict.features;
  const auto& nf = d.nvml_verdict.features;
  std::printf("fine %lld us: n=%d <10%%: %.3f >90%%: %.3f mean %.3f sd %.3f class %s\n",
              static_cast<long long>(fine->period_ns / 1000), ff.sample_count, ff.share_below_10,
              ff.share_above_90, ff.mean_ratio, ff.stddev_ratio,
              analysis::ToString(d.verdict.curve_class));
  std::printf("nvml %lld us: n=%d <10%%: %.3f >90%%: %.3f mean %.3f sd %.3f class %s aliased %d\n",
              static_cast<long long>(nvml->period_ns / 1000), nf.sample_count, nf.share_below_10,
              nf.share_above_90, nf.mean_ratio, nf.stddev_ratio,
              analysis::ToString(d.nvml_verdict.curve_class), d.nvml_verdict.aliased ? 1 : 0);
  std::printf("steps %d p50 %.1f ms; long-gap idle per step %.1f ms; note: %s\n",
              r.steps.stats.count, r.steps.stats.p50_ns / 1e6, d.gaps.long_gap_ns_per_step / 1e6,
              d.aliasing_note.c_str());
  // Fine series: bimodal (brief: ~25% under 10%, ~41% over 90% at 10 ms).
  EXPECT_GT(ff.share_below_10, 0.15);
  EXPECT_GT(ff.share_above_90, 0.30);
  EXPECT_EQ(d.verdict.curve_class, analysis::CurveClass::kJumps);
  // Long idle gaps of tens of ms per step (the DataLoader stall).
  EXPECT_GT(d.gaps.long_gap_ns_per_step, 40e6);
  EXPECT_LT(d.gaps.long_gap_ns_per_step, 90e6);
  // NVML period: a flat curve in the middle band, flagged as aliased.
  EXPECT_EQ(nvml->period_ns, 166'666'666);
  EXPECT_GT(nf.mean_ratio, 0.5);
  EXPECT_LT(nf.mean_ratio, 0.7);
  EXPECT_LT(nf.share_below_10 + nf.share_above_90, 0.2);
  EXPECT_TRUE(d.nvml_verdict.aliased);
  EXPECT_NE(d.nvml_verdict.curve_class, analysis::CurveClass::kJumps);
  EXPECT_NE(d.aliasing_note.find("NVML"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy
