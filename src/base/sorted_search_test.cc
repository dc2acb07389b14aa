#include "base/sorted_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gpuwhy {
namespace {

// Every value (present, absent, below and above all) from every hint, over
// sorted arrays of 0-40 elements with runs of equal values: the same answer
// as std::lower_bound.
TEST(SortedSearch, LowerBoundNearIsLowerBoundFromEveryHint) {
  const auto less = [](int a, int b) { return a < b; };
  for (int n = 0; n <= 40; ++n) {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(2 * (i / 3));  // 0 0 0 2 2 2 4 ...
    for (int value = -2; value <= 2 * (n / 3) + 3; ++value) {
      const auto want = std::lower_bound(v.begin(), v.end(), value);
      for (int h = 0; h <= n; ++h) {
        const auto got = LowerBoundNear(v.begin(), v.end(), value, v.begin() + h, less);
        ASSERT_EQ(got - v.begin(), want - v.begin()) << "n " << n << " value " << value << " hint " << h;
      }
    }
  }
}

// A sub-range: answers stay inside it, and a hint outside it is clamped.
TEST(SortedSearch, LowerBoundNearStaysInsideItsRange) {
  const std::vector<int> v = {9, 9, 1, 3, 5, 7, 0, 0};
  const auto less = [](int a, int b) { return a < b; };
  const auto first = v.begin() + 2, last = v.begin() + 6;  // 1 3 5 7
  EXPECT_EQ(LowerBoundNear(first, last, 4, v.begin(), less) - v.begin(), 4);
  EXPECT_EQ(LowerBoundNear(first, last, 4, v.end(), less) - v.begin(), 4);
  EXPECT_EQ(LowerBoundNear(first, last, 8, first, less) - v.begin(), 6);
  EXPECT_EQ(LowerBoundNear(first, last, 0, last, less) - v.begin(), 2);
}

// RunIndex visits every entry of a key, run by run in insertion order, for
// keys queried in any order, with runs sorted (searched as they are) or not
// (sorted once): checked against a brute-force scan.
TEST(SortedSearch, RunIndexVisitsAKeysEntriesInInsertionOrder) {
  struct Entry {
    int key;
    int seq;  // insertion order
  };
  uint32_t seed = 3;
  auto pick = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int>((seed >> 8) % n);
  };
  for (bool sorted_runs : {true, false}) {
    std::vector<Entry> v;
    std::vector<size_t> run_begin;
    for (int r = 0; r < 4; ++r) {
      run_begin.push_back(v.size());
      const int n = pick(60);
      int key = pick(10);
      for (int i = 0; i < n; ++i) {
        key = sorted_runs ? key + pick(3) : pick(80);  // repeats within and across runs
        v.push_back({key, static_cast<int>(v.size())});
      }
    }
    const std::vector<Entry> inserted = v;
    RunIndex index(v, run_begin, [](const Entry& e) { return e.key; },
                   [](const Entry& a, const Entry& b) { return a.key != b.key ? a.key < b.key : a.seq < b.seq; });
    for (int q = 0; q < 400; ++q) {
      const int key = q < 200 ? q / 2 : pick(90);  // rising, then jumping
      std::vector<int> want, got;
      for (const Entry& e : inserted)
        if (e.key == key) want.push_back(e.seq);
      index.ForEach(key, [&](const Entry& e) {
        got.push_back(e.seq);
        return true;
      });
      ASSERT_EQ(got, want) << (sorted_runs ? "sorted runs" : "unsorted runs") << ", key " << key;
      int first = -1;
      index.ForEach(key, [&](const Entry& e) {
        first = e.seq;
        return false;
      });
      EXPECT_EQ(first, want.empty() ? -1 : want[0]);
    }
  }
}

}  // namespace
}  // namespace gpuwhy
