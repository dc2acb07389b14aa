#include "analysis/summary/summary_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace gpuwhy::analysis {
namespace {

TEST(UnionLength, OverlapsNestingAndGaps) {
  // [0,10) [5,15) nested [6,7) gap [20,30) touching [30,35): 15 + 15 = 30.
  std::vector<std::pair<int64_t, int64_t>> iv = {{20, 30}, {0, 10}, {6, 7}, {5, 15}, {30, 35}};
  SortIntervals(iv);
  EXPECT_EQ(UnionLength(iv), 30);
  std::vector<std::pair<int64_t, int64_t>> empty;
  EXPECT_EQ(UnionLength(empty), 0);
}

// SortIntervals gives std::sort's order for 0-40 sorted runs (merged when
// few, sorted when many), with ties and equal pairs across runs.
TEST(SortIntervals, RunsMergeToTheSortedOrder) {
  uint32_t seed = 5;
  auto pick = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int64_t>((seed >> 8) % n);
  };
  for (int runs = 0; runs <= 40; ++runs) {
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (int r = 0; r < runs; ++r) {
      const int64_t n = pick(50);
      int64_t start = pick(20);
      for (int64_t i = 0; i < n; ++i) {
        start += pick(3);  // repeats: equal starts and equal pairs
        iv.push_back({start, start + pick(4)});
      }
      std::sort(iv.end() - n, iv.end());
    }
    std::vector<std::pair<int64_t, int64_t>> want = iv;
    std::sort(want.begin(), want.end());
    SortIntervals(iv);
    ASSERT_EQ(iv, want) << runs << " runs";
  }
}

TEST(Percentile, LinearInterpolationLikeNumpy) {
  std::vector<int64_t> v = {10, 20, 30, 40};
  // numpy.percentile([10,20,30,40], 50) == 25; 90 -> 37; 0 -> 10; 100 -> 40.
  EXPECT_EQ(PercentileSorted(v, 0.5), 25);
  EXPECT_EQ(PercentileSorted(v, 0.9), 37);
  EXPECT_EQ(PercentileSorted(v, 0.0), 10);
  EXPECT_EQ(PercentileSorted(v, 1.0), 40);
  EXPECT_FALSE(IsValid(PercentileSorted({}, 0.5)));
}

TEST(DurationStats, HandComputed) {
  std::vector<int64_t> v = {4, 1, 3, 2};
  DurationStats s = ComputeDurationStats(v);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.total_ns, 10);
  EXPECT_EQ(s.min_ns, 1);
  EXPECT_EQ(s.max_ns, 4);
  EXPECT_EQ(s.p50_ns, 3);  // 2.5 rounds half away from zero
  EXPECT_DOUBLE_EQ(s.mean_ns, 2.5);
  EXPECT_NEAR(s.stddev_ns, 1.118033988749895, 1e-12);  // population sd
  EXPECT_EQ(v.front(), 1);  // sorted in place
}

TEST(DurationStats, FromAStreamEqualsFromASortedCopy) {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 40; ++round) {
    std::vector<int64_t> v;
    const int n = 1 + static_cast<int>(rng() % 500);
    for (int i = 0; i < n; ++i)
      v.push_back(round % 2 == 0 ? 1000 * static_cast<int64_t>(rng() % 90)          // whole µs
                                 : static_cast<int64_t>(rng() % 3'000'000) - 100);  // any ns
    int reads = 0;
    const DurationStats got = DurationStatsOf([&](auto&& visit) {
      ++reads;
      for (int64_t x : v) visit(x);
    });
    std::vector<int64_t> sorted = v;
    const DurationStats want = ComputeDurationStats(sorted);
    EXPECT_LE(reads, 3);
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.total_ns, want.total_ns);
    EXPECT_EQ(got.min_ns, want.min_ns);
    EXPECT_EQ(got.max_ns, want.max_ns);
    EXPECT_EQ(got.p50_ns, want.p50_ns) << "round " << round;
    EXPECT_EQ(got.p90_ns, want.p90_ns) << "round " << round;
    EXPECT_EQ(got.p95_ns, want.p95_ns) << "round " << round;
    EXPECT_EQ(got.p99_ns, want.p99_ns) << "round " << round;
    EXPECT_EQ(got.p99_ns, PercentileSorted(sorted, 0.99));
    EXPECT_EQ(got.mean_ns, want.mean_ns);
    // The same sum in another order: equal to rounding.
    EXPECT_NEAR(got.stddev_ns, want.stddev_ns, 1e-9 * want.stddev_ns + 1e-9);
  }
}

TEST(DurationStats, EmptyIsMissingNotZero) {
  std::vector<int64_t> v;
  DurationStats s = ComputeDurationStats(v);
  EXPECT_EQ(s.count, 0);
  EXPECT_FALSE(IsValid(s.min_ns));
  EXPECT_FALSE(IsValid(s.p99_ns));
  EXPECT_FALSE(IsValid(s.mean_ns));
}

}  // namespace
}  // namespace gpuwhy::analysis
