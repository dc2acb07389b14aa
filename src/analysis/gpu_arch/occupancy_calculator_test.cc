#include "analysis/gpu_arch/occupancy_calculator.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

OccupancyResult Occ(int cc_major, int cc_minor, int block, int regs, int64_t dyn_smem = 0,
                    int64_t static_smem = 0) {
  const ArchLimits* l = FindArchLimits(cc_major, cc_minor);
  EXPECT_NE(l, nullptr);
  Result<OccupancyResult> r = ComputeOccupancy(*l, {block, regs, static_smem, dyn_smem});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : OccupancyResult{};
}

// Hand computation (issue): 64 regs x 32 threads = 2048 regs/warp; 8 warps per
// block = 16384 regs/block; 65536 / 16384 = 4 blocks = 32 of 64 warps = 50%.
TEST(OccupancyCalculatorTest, Block256Regs64OnSm90IsHalfRegisterLimited) {
  OccupancyResult r = Occ(9, 0, 256, 64);
  EXPECT_EQ(r.active_blocks_per_sm, 4);
  EXPECT_EQ(r.active_warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(r.occupancy_ratio, 0.5);
  EXPECT_EQ(r.limiting_factors, kLimitRegisters);
  EXPECT_EQ(r.allocated_registers_per_block, 16384);
  EXPECT_EQ(r.allocated_smem_per_block_bytes, 1024);  // reserved smem on sm_80+
}

TEST(OccupancyCalculatorTest, SameLaunchOnGa10xHas48WarpsSoTwoThirds) {
  OccupancyResult r = Occ(8, 6, 256, 64);
  EXPECT_EQ(r.active_blocks_per_sm, 4);
  EXPECT_NEAR(r.occupancy_ratio, 32.0 / 48.0, 1e-12);
}

TEST(OccupancyCalculatorTest, HandComputedSm90Cases) {
  // 128 threads, 32 regs: 16 blocks x 4 warps = 64 warps (warps and regs both limit).
  OccupancyResult a = Occ(9, 0, 128, 32);
  EXPECT_EQ(a.active_blocks_per_sm, 16);
  EXPECT_EQ(a.limiting_factors & kLimitWarps, kLimitWarps);
  EXPECT_EQ(a.limiting_factors & kLimitRegisters, kLimitRegisters);
  // 255 regs round to 256 per thread: 8192 regs/warp, 2 warps per sub-partition.
  EXPECT_EQ(Occ(9, 0, 256, 255).active_blocks_per_sm, 1);
  // 168 regs: 5376 regs/warp; 16384/5376 = 3 warps per sub-partition -> 12 warps -> 3 blocks.
  EXPECT_EQ(Occ(9, 0, 128, 168).active_blocks_per_sm, 3);
  // 48 KiB dynamic + 1 KiB reserved = 49 KiB; 228/49 = 4 blocks.
  OccupancyResult s = Occ(9, 0, 256, 32, 48 * 1024);
  EXPECT_EQ(s.active_blocks_per_sm, 4);
  EXPECT_EQ(s.limiting_factors, kLimitSharedMemory);
  // Tiny blocks hit the 32 blocks/SM cap: 32 warps of 64.
  OccupancyResult t = Occ(9, 0, 32, 32);
  EXPECT_EQ(t.active_blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(t.occupancy_ratio, 0.5);
  EXPECT_EQ(t.limiting_factors, kLimitBlocks);
}

TEST(OccupancyCalculatorTest, OversizedRequestsGiveZeroBlocksNotErrors) {
  EXPECT_EQ(Occ(9, 0, 2048, 32).active_blocks_per_sm, 0);          // > 1024 threads/block
  EXPECT_EQ(Occ(9, 0, 256, 32, 200 * 1024).active_blocks_per_sm, 0);  // > 48 KiB default limit
  EXPECT_EQ(Occ(9, 0, 1024, 128).active_blocks_per_sm, 0);         // 128K regs > 64K per block
}

TEST(OccupancyCalculatorTest, InvalidInputIsAStatus) {
  const ArchLimits* l = FindArchLimits(9, 0);
  ASSERT_NE(l, nullptr);
  EXPECT_FALSE(ComputeOccupancy(*l, {0, 32, 0, 0}).ok());
  EXPECT_FALSE(ComputeOccupancy(*l, {128, -1, 0, 0}).ok());
}

TEST(OccupancyCalculatorTest, KinetoEstimateIsCappedByGridBlocks) {
  const ArchLimits* v100 = FindArchLimits(7, 0);
  ASSERT_NE(v100, nullptr);
  // 4 resident blocks possible, but the grid only gives 0.5 blocks per SM.
  const double occ = KinetoOccupancyRatio(*v100, {256, 64, 0, 0}, 0.5);
  EXPECT_DOUBLE_EQ(occ, 0.5 * 256 / 2048.0);
  EXPECT_DOUBLE_EQ(KinetoOccupancyRatio(*v100, {256, 64, 0, 0}, 100.0), 4 * 256 / 2048.0);
  EXPECT_EQ(LimitingFactorsText(kLimitRegisters | kLimitSharedMemory), "registers|shared memory");
}

}  // namespace
}  // namespace gpuwhy::analysis
