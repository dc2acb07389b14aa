#include "analysis/utilization/curve_classifier.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

CurveInput Series(std::vector<double> v, int64_t period = 10 * kNsPerMs) {
  CurveInput in;
  in.util_ratio = std::move(v);
  in.period_ns = period;
  return in;
}

TEST(CurveClassifierTest, InsufficientAndIdle) {
  EXPECT_EQ(ClassifyCurve(Series({0.5, 0.5})).curve_class, CurveClass::kInsufficientData);
  EXPECT_EQ(ClassifyCurve(Series({0.0, 0.01, 0.0, 0.02, 0.0, 0.0})).curve_class, CurveClass::kIdle);
  // NaN samples are not counted.
  const double nan = kMissingF64;
  EXPECT_EQ(ClassifyCurve(Series({nan, nan, nan, nan, 0.5, 0.5})).curve_class,
            CurveClass::kInsufficientData);
}

TEST(CurveClassifierTest, CounterOnlyPinnedWhenNothingSaysItIsBusy) {
  CurveVerdict v = ClassifyCurve(Series({1, 1, 0.98, 1, 1, 0.99, 1, 1}, kNsPerS));
  EXPECT_EQ(v.curve_class, CurveClass::kPinnedHigh);
  EXPECT_LE(v.confidence, 0.5);
  CurveInput in = Series({1, 1, 0.98, 1, 1, 0.99, 1, 1}, kNsPerS);
  in.real_util_ratio = 0.12;  // e.g. DCGM SM_ACTIVE
  v = ClassifyCurve(in);
  EXPECT_EQ(v.curve_class, CurveClass::kPinnedHigh);
  EXPECT_GT(v.confidence, 0.8);
  in.real_util_ratio = 0.85;
  EXPECT_EQ(ClassifyCurve(in).curve_class, CurveClass::kHealthy);
}

TEST(CurveClassifierTest, BimodalIsJumpsMiddleBandIsWobble) {
  std::vector<double> jumps, wobble;
  for (int i = 0; i < 40; ++i) {
    jumps.push_back(i % 4 == 0 ? 0.02 : (i % 4 == 1 ? 0.5 : 0.98));
    wobble.push_back(0.55 + 0.1 * ((i % 5) - 2) / 2.0);
  }
  CurveVerdict j = ClassifyCurve(Series(jumps));
  EXPECT_EQ(j.curve_class, CurveClass::kJumps);
  EXPECT_NEAR(j.features.share_below_10, 0.25, 1e-9);
  EXPECT_NEAR(j.features.share_above_90, 0.5, 1e-9);
  EXPECT_EQ(j.features.histogram[0], 10);
  EXPECT_EQ(j.features.histogram[9], 20);
  CurveVerdict w = ClassifyCurve(Series(wobble));
  EXPECT_EQ(w.curve_class, CurveClass::kWobble);
  EXPECT_LT(w.features.stddev_ratio, 0.1);
}

TEST(CurveClassifierTest, AliasedCoarseSeriesSaysSoAndHalvesConfidence) {
  std::vector<double> flat(20, 0.59);
  CurveInput in = Series(flat, kNsPerS / 6);
  in.step_period_ns = 177 * kNsPerMs;
  in.long_gap_idle_share = 0.95;  // the trace shows long gaps...
  in.gap_p95_ns = 60e6;
  CurveVerdict v = ClassifyCurve(in);
  EXPECT_TRUE(v.aliased);
  EXPECT_NE(v.aliasing_note.find("cannot tell jumps from wobble"), std::string::npos);
  // ...but an aliased series may not claim JUMPS from them.
  EXPECT_EQ(v.curve_class, CurveClass::kWobble);
  EXPECT_LE(v.confidence, 0.5);
  in.period_ns = 10 * kNsPerMs;
  EXPECT_FALSE(ClassifyCurve(in).aliased);
  EXPECT_EQ(ClassifyCurve(in).curve_class, CurveClass::kJumps);  // long gaps, fine period
}

}  // namespace
}  // namespace gpuwhy::analysis
