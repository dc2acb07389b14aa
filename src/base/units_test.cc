// Unit test of the saturating int64 helpers: every bound, and the sentinel
// (kMissingI64) never produced by a saturated result.
#include "base/units.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpuwhy {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kLowest = std::numeric_limits<int64_t>::min() + 1;  // INT64_MIN is missing

TEST(Saturating, AddStopsAtTheEndsAndNeverGivesMissing) {
  EXPECT_EQ(AddSat(2, 3), 5);
  EXPECT_EQ(AddSat(-2, 3), 1);
  EXPECT_EQ(AddSat(kMax, 1), kMax);
  EXPECT_EQ(AddSat(kMaxAbsTimeNs * 2 - 1, kMaxAbsTimeNs), kMax);
  EXPECT_EQ(AddSat(kLowest, -5), kLowest);
  // An exact sum of INT64_MIN would read as missing.
  EXPECT_EQ(AddSat(kLowest, -1), kLowest);
  EXPECT_TRUE(IsValid(AddSat(-kMaxAbsTimeNs * 2, -1)));
  EXPECT_EQ(AddSat(-kMaxAbsTimeNs * 2, -1), kLowest);
}

TEST(Saturating, MulStopsAtTheEndsBySign) {
  EXPECT_EQ(MulSat(50, 3), 150);
  EXPECT_EQ(MulSat(4, kMaxAbsTimeNs), kMax);
  EXPECT_EQ(MulSat(-4, kMaxAbsTimeNs), kLowest);
  EXPECT_EQ(MulSat(-4, -kMaxAbsTimeNs), kMax);
  EXPECT_EQ(MulSat(2, -kMaxAbsTimeNs * 2), kLowest);
  EXPECT_EQ(MulSat(0, kMax), 0);
}

TEST(Saturating, CeilDivNearInt64Max) {
  EXPECT_EQ(CeilDiv(0, 7), 0);
  EXPECT_EQ(CeilDiv(14, 7), 2);
  EXPECT_EQ(CeilDiv(15, 7), 3);
  // The span between the model's two time bounds, in 1 ms bins: a + b - 1
  // would pass int64 here.
  const int64_t span = 2 * kMaxAbsTimeNs;
  EXPECT_EQ(CeilDiv(span, kNsPerMs), span / kNsPerMs + 1);
  EXPECT_EQ(CeilDiv(kMax, kMax), 1);
  EXPECT_EQ(CeilDiv(kMax, 2), kMax / 2 + 1);
}

TEST(Saturating, FromDoubleClampsAndKeepsNanMissing) {
  EXPECT_EQ(SatFromDouble(12.9), 12);
  EXPECT_EQ(SatFromDouble(-12.9), -12);
  EXPECT_EQ(SatFromDouble(1.38e19), kMax);
  EXPECT_EQ(SatFromDouble(9223372036854775807.0), kMax);  // 2^63 as a double
  EXPECT_EQ(SatFromDouble(-1e300), kLowest);
  EXPECT_EQ(SatFromDouble(std::numeric_limits<double>::infinity()), kMax);
  EXPECT_FALSE(IsValid(SatFromDouble(kMissingF64)));
  EXPECT_EQ(SatFromDouble(9.2e18), int64_t{9200000000000000000});
}

}  // namespace
}  // namespace gpuwhy
