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

}  // namespace
}  // namespace gpuwhy
