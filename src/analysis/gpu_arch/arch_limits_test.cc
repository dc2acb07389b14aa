#include "analysis/gpu_arch/arch_limits.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

TEST(ArchLimitsTest, TableCoversSm50ToSm121InOrder) {
  auto all = AllArchLimits();
  ASSERT_GE(all.size(), 15u);
  EXPECT_EQ(all.front().cc_major, 5);
  EXPECT_EQ(all.back().cc_major, 12);
  for (size_t i = 1; i < all.size(); ++i) {
    const int prev = all[i - 1].cc_major * 10 + all[i - 1].cc_minor;
    const int cur = all[i].cc_major * 10 + all[i].cc_minor;
    EXPECT_LT(prev, cur) << "table must be sorted";
    EXPECT_EQ(all[i].max_warps_per_sm * all[i].warp_size, all[i].max_threads_per_sm);
    EXPECT_GT(all[i].smem_per_sm_bytes, 0);
  }
}

TEST(ArchLimitsTest, KnownRows) {
  const ArchLimits* h100 = FindArchLimits(9, 0);
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->max_warps_per_sm, 64);
  EXPECT_EQ(h100->max_blocks_per_sm, 32);
  EXPECT_EQ(h100->smem_per_sm_bytes, 228 * 1024);
  EXPECT_EQ(h100->reserved_smem_per_block_bytes, 1024);
  const ArchLimits* t4 = FindArchLimits(7, 5);
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->max_threads_per_sm, 1024);
  EXPECT_EQ(t4->max_blocks_per_sm, 16);
  const ArchLimits* l4 = FindArchLimits(8, 9);
  ASSERT_NE(l4, nullptr);
  EXPECT_EQ(l4->max_blocks_per_sm, 24);
  EXPECT_EQ(l4->max_threads_per_sm, 1536);
}

TEST(ArchLimitsTest, UnknownMinorFallsBackToLowerMinorUnknownMajorIsNull) {
  const ArchLimits* a = FindArchLimits(8, 8);  // not a real chip: nearest lower is 8.7
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->cc_minor, 7);
  EXPECT_EQ(FindArchLimits(13, 0), nullptr);
  EXPECT_EQ(FindArchLimits(3, 5), nullptr);
}

TEST(ArchLimitsTest, DeviceOverridesTable) {
  model::Device d;
  EXPECT_FALSE(LimitsForDevice(d, nullptr));  // missing capability: no dereference
  d.cc_major = 7;
  d.cc_minor = 0;
  d.smem_per_sm_bytes = 64 * 1024;
  ArchLimits l;
  ASSERT_TRUE(LimitsForDevice(d, &l));
  EXPECT_EQ(l.smem_per_sm_bytes, 64 * 1024);
  EXPECT_EQ(l.max_threads_per_sm, 2048);
}

}  // namespace
}  // namespace gpuwhy::analysis
