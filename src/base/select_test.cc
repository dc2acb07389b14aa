#include "base/select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace gpuwhy {
namespace {

int64_t Reference(std::vector<int64_t> v, size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// Selects every rank of `v` and checks it against nth_element on a copy;
// returns how often the second read was needed.
int CheckAllRanks(const std::vector<int64_t>& v) {
  Int64Histogram h;
  for (int64_t x : v) h.Add(x);
  EXPECT_EQ(h.count(), v.size());
  int second_reads = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    const int64_t got = SelectNth(h, k, [&](auto&& f) {
      ++second_reads;
      for (int64_t x : v) f(x);
    });
    EXPECT_EQ(got, Reference(v, k)) << "rank " << k;
  }
  return second_reads;
}

TEST(Select, BucketsAreOrderedAsTheirValues) {
  std::vector<int64_t> probes = {std::numeric_limits<int64_t>::min(),
                                 -5,
                                 -1,
                                 0,
                                 1,
                                 2,
                                 63,
                                 64,
                                 127,
                                 128,
                                 129,
                                 1000,
                                 4095,
                                 4096,
                                 65535,
                                 65536,
                                 1'000'000'007,
                                 std::numeric_limits<int64_t>::max()};
  for (int s = 0; s < 62; ++s) {
    probes.push_back((int64_t{1} << s) - 1);
    probes.push_back(int64_t{1} << s);
    probes.push_back((int64_t{1} << s) + 1);
  }
  std::sort(probes.begin(), probes.end());
  for (size_t i = 1; i < probes.size(); ++i)
    EXPECT_LE(Int64Histogram::BucketOf(probes[i - 1]), Int64Histogram::BucketOf(probes[i]))
        << probes[i - 1] << " then " << probes[i];
  for (int64_t v = 0; v < 128; ++v)  // one value per bucket below 128
    EXPECT_LT(Int64Histogram::BucketOf(v), Int64Histogram::BucketOf(v + 1)) << v;
  EXPECT_LT(Int64Histogram::BucketOf(std::numeric_limits<int64_t>::max()),
            Int64Histogram::kBuckets);
}

TEST(Select, EveryRankMatchesNthElement) {
  std::mt19937_64 rng(11);
  // Kernel-like durations in whole microseconds with heavy repeats: under
  // 65 us each bucket holds one such value, so one read is enough.
  std::vector<int64_t> us;
  for (int i = 0; i < 400; ++i) us.push_back(1000 * static_cast<int64_t>(1 + rng() % 60));
  EXPECT_EQ(CheckAllRanks(us), 0);
  for (int i = 0; i < 100; ++i) us.push_back(1000 * static_cast<int64_t>(60 + rng() % 50000));
  CheckAllRanks(us);  // a long tail
  // Nanosecond values, negatives and extremes: the second read.
  std::vector<int64_t> ns;
  for (int i = 0; i < 300; ++i) ns.push_back(static_cast<int64_t>(rng() % 5'000'000) - 1000);
  ns.push_back(std::numeric_limits<int64_t>::min());
  ns.push_back(std::numeric_limits<int64_t>::max());
  EXPECT_GT(CheckAllRanks(ns), 0);
  CheckAllRanks({42});
  CheckAllRanks(std::vector<int64_t>(50, 7));
}

TEST(Select, ManyRanksTakeOneMoreRead) {
  std::mt19937_64 rng(5);
  std::vector<int64_t> v;
  for (int i = 0; i < 2000; ++i) v.push_back(static_cast<int64_t>(rng() % 10'000'000) - 50);
  Int64Histogram h;
  for (int64_t x : v) h.Add(x);
  const std::vector<uint64_t> ranks = {0, 1, 999, 1000, 1799, 1800, 1899, 1980, 1999, 1000};
  int reads = 0;
  const std::vector<int64_t> got = SelectNths(h, ranks, [&](auto&& f) {
    ++reads;
    for (int64_t x : v) f(x);
  });
  EXPECT_EQ(reads, 1);
  // The least and the greatest are the end buckets' min and max: no read.
  const std::vector<int64_t> ends = SelectNths(h, {0, v.size() - 1}, [&](auto&&) { ++reads; });
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(ends[0], *std::min_element(v.begin(), v.end()));
  EXPECT_EQ(ends[1], *std::max_element(v.begin(), v.end()));
  ASSERT_EQ(got.size(), ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(got[i], Reference(v, ranks[i])) << ranks[i];
}

}  // namespace
}  // namespace gpuwhy
