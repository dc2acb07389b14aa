// Curve classes on two nsys benchmark captures (../shared/traces/nsys,
// SOURCES.md). Both spend most of the GPU-op window before or after the
// kernels (host-to-device uploads, copy-back); the verdict is taken over the
// kernel-active window (docs/utilization.md §4):
// - tensoriterator: 1000 back-to-back elementwise kernels, surface ~100%,
//   nothing shows the SMs busy -> PINNED_HIGH;
// - cutlass_benchmark: 6 long GEMM kernels, surface and SM fill ~100% ->
//   HEALTHY.
#include <cstdio>

#include "analysis/utilization/utilization.h"
#include "anchor_util.h"

namespace gpuwhy {
namespace {

const analysis::DeviceUtilization* OnlyDevice(const analysis::UtilizationResult& r) {
  EXPECT_EQ(r.devices.size(), 1u);
  return r.devices.empty() ? nullptr : &r.devices.front();
}

void Print(const char* name, const analysis::DeviceUtilization& d) {
  const auto& f = d.verdict.features;
  std::printf(
      "%s: window %.1f ms, surface %.3f; verdict %s (%.2f) n=%d period %lld us "
      "mean %.4f sd %.4f <10%% %.3f >90%% %.3f real %.4f; %s\n",
      name, NsToMs(d.window_end_ns - d.window_start_ns), d.surface_ratio.value,
      analysis::ToString(d.verdict.curve_class), d.verdict.confidence, f.sample_count,
      static_cast<long long>(f.period_ns / 1000), f.mean_ratio, f.stddev_ratio, f.share_below_10,
      f.share_above_90, f.real_util_ratio, d.verdict.reason.c_str());
}

TEST(NsysCurveAnchorTest, TensorIteratorElementwiseIsPinnedHigh) {
  GPUWHY_LOAD_SHARED(t, "nsys/zasdfgbnm-dumpster__tensoriterator/report1.sqlite");
  const analysis::UtilizationResult r = analysis::AnalyzeUtilization(*t);
  const analysis::DeviceUtilization* d = OnlyDevice(r);
  ASSERT_NE(d, nullptr);
  Print("tensoriterator", *d);
  // The capture holds 2.76 s of uploads before the first kernel: set-up, left
  // out of the loop the class describes (run_phases.h); the surface figure of
  // the whole window keeps them.
  EXPECT_LT(d->surface_ratio.value, 0.9);
  EXPECT_EQ(d->verdict_window, "loop");
  EXPECT_GT(d->setup_ns, 2'000'000'000);
  const analysis::CurveVerdict& a = d->verdict;
  EXPECT_EQ(a.curve_class, analysis::CurveClass::kPinnedHigh);
  EXPECT_GE(a.features.mean_ratio, 0.99);
  EXPECT_LT(a.features.share_below_10, 0.01);
  // Memory-bound elementwise work: nothing says the SMs are really busy.
  EXPECT_FALSE(IsValid(a.features.real_util_ratio) &&
               a.features.real_util_ratio >= analysis::kCurveThresholds.real_high_above);
}

TEST(NsysCurveAnchorTest, CutlassGemmIsHealthy) {
  GPUWHY_LOAD_SHARED(t, "nsys/wenscarl__cutlass_benchmark/report1.sqlite");
  const analysis::UtilizationResult r = analysis::AnalyzeUtilization(*t);
  const analysis::DeviceUtilization* d = OnlyDevice(r);
  ASSERT_NE(d, nullptr);
  Print("cutlass", *d);
  // 162 ms of kernels in a ~523 ms window of copies around them: the uploads
  // and copy-back are set-up and teardown; the loop itself is healthy.
  EXPECT_LT(d->surface_ratio.value, 0.5);
  EXPECT_EQ(d->verdict_window, "loop");
  EXPECT_EQ(d->verdict.curve_class, analysis::CurveClass::kHealthy);
  EXPECT_GE(d->verdict.features.mean_ratio, 0.99);
  EXPECT_GE(d->verdict.features.real_util_ratio, 0.9);
}

}  // namespace
}  // namespace gpuwhy
