#include "analysis/utilization/intervals.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

TEST(IntervalsTest, MergeIntersectSubtract) {
  auto m = MergeIntervals({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].end_ns, 4);
  EXPECT_EQ(m[1].start_ns, 5);
  EXPECT_EQ(m[1].end_ns, 12);
  EXPECT_EQ(TotalLength(m), 11);
  EXPECT_EQ(IntersectLength(m, 3, 6), 2);
  auto in = Intersect(m, {{1, 6}});
  EXPECT_EQ(TotalLength(in), 4);
  auto sub = Subtract(m, {{1, 2}, {6, 7}});
  EXPECT_EQ(TotalLength(sub), 9);
  auto g = Gaps(m);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].start_ns, 4);
  EXPECT_EQ(g[0].end_ns, 5);
}

TEST(IntervalsTest, BinnedCoverageSplitsSpansAcrossBins) {
  auto b = BinnedCoverage({{5, 25}}, 0, 35, 10);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_DOUBLE_EQ(b[0], 0.5);
  EXPECT_DOUBLE_EQ(b[1], 1.0);
  EXPECT_DOUBLE_EQ(b[2], 0.5);
  EXPECT_DOUBLE_EQ(b[3], 0.0);  // partial last bin [30, 35)
}

TEST(IntervalsTest, CappedSumIntegralCapsOverlaps) {
  // 0.5 on [0,10), 0.8 on [5,15): sum 1.3 capped at 1 on [5,10).
  const double v = CappedSumIntegral({{0, 10, 0.5}, {5, 15, 0.8}}, 1.0, 0, 100);
  EXPECT_DOUBLE_EQ(v, 0.5 * 5 + 1.0 * 5 + 0.8 * 5);
  EXPECT_DOUBLE_EQ(CappedSumIntegral({{0, 10, 2.0}}, 1.0, 5, 100), 5.0);
}

}  // namespace
}  // namespace gpuwhy::analysis
