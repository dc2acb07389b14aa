#include "analysis/utilization/intervals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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

TEST(IntervalsTest, IntersectLengthOfTwoListsIsTheLengthOfTheirIntersection) {
  std::mt19937_64 rng(7);
  auto random_list = [&](int n) {
    std::vector<Interval> v;
    for (int i = 0; i < n; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % 1000);
      v.push_back({s, s + static_cast<int64_t>(rng() % 40)});
    }
    return MergeIntervals(std::move(v));
  };
  for (int round = 0; round < 50; ++round) {
    const std::vector<Interval> a = random_list(round % 7 * 10), b = random_list(round % 5 * 12);
    int64_t brute = 0;  // unit cells covered by both
    for (int64_t t = 0; t < 1100; ++t)
      brute += IntersectLength(a, t, t + 1) * IntersectLength(b, t, t + 1);
    EXPECT_EQ(IntersectLength(a, b), brute) << "round " << round;
    EXPECT_EQ(IntersectLength(a, b), TotalLength(Intersect(a, b))) << "round " << round;
    EXPECT_EQ(IntersectLength(b, a), brute) << "round " << round;
  }
  EXPECT_EQ(IntersectLength({}, {{0, 5}}), 0);
}

TEST(IntervalsTest, BinnedCoverageSplitsSpansAcrossBins) {
  auto b = BinnedCoverage({{5, 25}}, 0, 35, 10);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_DOUBLE_EQ(b[0], 0.5);
  EXPECT_DOUBLE_EQ(b[1], 1.0);
  EXPECT_DOUBLE_EQ(b[2], 0.5);
  EXPECT_DOUBLE_EQ(b[3], 0.0);  // partial last bin [30, 35)
}

TEST(IntervalsTest, CappedSumSweepInStartOrderMatchesTheEdgeSweep) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    // Quarter values, so that every sum is exact and both sweeps agree bit
    // for bit whatever the order of their additions.
    std::vector<ValueSpan> spans;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % 500);
      spans.push_back(
          {s, s + static_cast<int64_t>(rng() % 60) - 5, 0.25 * static_cast<double>(1 + rng() % 8)});
    }
    std::sort(spans.begin(), spans.end(),
              [](const ValueSpan& x, const ValueSpan& y) { return x.start_ns < y.start_ns; });
    const std::vector<std::pair<int64_t, int64_t>> windows = {
        {0, 600},
        {static_cast<int64_t>(rng() % 300), 300 + static_cast<int64_t>(rng() % 300)},
        {100, 100}};
    const double cap = round % 3 == 0 ? 1.0 : 1.75;
    CappedSumSweep streamed(windows, cap, 0, /*in_start_order=*/true);
    for (const ValueSpan& v : spans) streamed.Add(v.start_ns, v.end_ns, v.value);
    const std::vector<double> got = streamed.Integrals();
    const std::vector<double> want = CappedSumIntegrals(spans, cap, windows);
    ASSERT_EQ(got.size(), want.size());
    for (size_t w = 0; w < got.size(); ++w)
      EXPECT_EQ(got[w], want[w]) << "round " << round << " window " << w;
    // Brute force over unit cells, for the first window.
    double brute = 0;
    for (int64_t t = 0; t < 600; ++t) {
      double sum = 0;
      for (const ValueSpan& v : spans)
        if (v.start_ns <= t && t < v.end_ns) sum += v.value;
      brute += std::min(sum, cap);
    }
    EXPECT_EQ(got[0], brute) << "round " << round;
  }
  CappedSumSweep none({{0, 10}}, 1.0, 0, true);
  EXPECT_EQ(none.Integrals(), std::vector<double>{0.0});
}

TEST(IntervalsTest, CappedSumIntegralCapsOverlaps) {
  // 0.5 on [0,10), 0.8 on [5,15): sum 1.3 capped at 1 on [5,10).
  const double v = CappedSumIntegral({{0, 10, 0.5}, {5, 15, 0.8}}, 1.0, 0, 100);
  EXPECT_DOUBLE_EQ(v, 0.5 * 5 + 1.0 * 5 + 0.8 * 5);
  EXPECT_DOUBLE_EQ(CappedSumIntegral({{0, 10, 2.0}}, 1.0, 5, 100), 5.0);
}

}  // namespace
}  // namespace gpuwhy::analysis
