// Unit test of the short duration text the findings' sentences use.
#include <gtest/gtest.h>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {
namespace {

TEST(FormatMs, UnitFollowsTheSizeUpToYears) {
  EXPECT_EQ(FormatMs(693 * kNsPerUs), "693 µs");
  EXPECT_EQ(FormatMs(12'340 * kNsPerUs), "12.3 ms");
  EXPECT_EQ(FormatMs(142 * kNsPerMs), "142 ms");
  EXPECT_EQ(FormatMs(999 * kNsPerMs), "999 ms");
  EXPECT_EQ(FormatMs(999'600 * kNsPerUs), "1.00 s");
  EXPECT_EQ(FormatMs(4'726 * kNsPerMs), "4.73 s");
  EXPECT_EQ(FormatMs(9'996 * kNsPerMs), "10.0 s");
  EXPECT_EQ(FormatMs(13'336 * kNsPerMs), "13.3 s");
  // A 2.5 M-gap capture's total, which read "5025000 ms in all".
  EXPECT_EQ(FormatMs(5'025 * kNsPerS), "5025 s");
  EXPECT_EQ(FormatMs(int64_t{1} << 62), "4611686018 s");
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
