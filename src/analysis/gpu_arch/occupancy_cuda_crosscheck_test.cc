// Cross-check of occupancy_calculator against NVIDIA's cuda_occupancy.h
// (header-only; no GPU or driver needed). Built only when the CUDA toolkit
// headers are found (GPUWHY_CUDA_INCLUDE_DIR).
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include "analysis/gpu_arch/occupancy_calculator.h"

namespace gpuwhy::analysis {
namespace {

cudaOccDeviceProp ToCudaProps(const ArchLimits& l) {
  cudaOccDeviceProp p;
  p.computeMajor = l.cc_major;
  p.computeMinor = l.cc_minor;
  p.maxThreadsPerBlock = l.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = l.max_threads_per_sm;
  p.regsPerBlock = l.regs_per_block;
  p.regsPerMultiprocessor = l.regs_per_sm;
  p.warpSize = l.warp_size;
  p.sharedMemPerBlock = static_cast<size_t>(l.smem_per_block_bytes);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(l.smem_per_sm_bytes);
  p.numSms = 100;
  p.sharedMemPerBlockOptin = static_cast<size_t>(l.smem_per_block_optin_bytes);
  p.reservedSharedMemPerBlock = static_cast<size_t>(l.reserved_smem_per_block_bytes);
  return p;
}

TEST(OccupancyCudaCrossCheckTest, MatchesCudaOccMaxActiveBlocksOverAGrid) {
  const int kBlocks[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
  const int kRegs[] = {0, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 200, 232, 255};
  const size_t kDyn[] = {0, 1024, 8 * 1024, 20 * 1024, 33 * 1024, 48 * 1024};
  const size_t kStatic[] = {0, 4 * 1024, 16 * 1024};
  int compared = 0;
  int archs = 0;
  for (const ArchLimits& l : AllArchLimits()) {
    // cuda_occupancy.h of this toolkit knows majors up to __CUDA_OCC_MAJOR__.
    if (l.cc_major > __CUDA_OCC_MAJOR__) continue;
    ++archs;
    const cudaOccDeviceProp props = ToCudaProps(l);
    for (int block : kBlocks) {
      for (int regs : kRegs) {
        for (size_t dyn : kDyn) {
          for (size_t st : kStatic) {
            cudaOccFuncAttributes attrs;
            attrs.maxThreadsPerBlock = 1024;
            attrs.numRegs = regs;
            attrs.sharedSizeBytes = st;
            cudaOccDeviceState state;
            cudaOccResult want{};
            const cudaOccError err =
                cudaOccMaxActiveBlocksPerMultiprocessor(&want, &props, &attrs, &state, block, dyn);
            ASSERT_EQ(err, CUDA_OCC_SUCCESS) << "sm_" << l.cc_major << l.cc_minor;
            Result<OccupancyResult> got = ComputeOccupancy(
                l, {block, regs, static_cast<int64_t>(st), static_cast<int64_t>(dyn)});
            ASSERT_TRUE(got.ok()) << got.status().message();
            ASSERT_EQ(got->active_blocks_per_sm, want.activeBlocksPerMultiprocessor)
                << "sm_" << l.cc_major << l.cc_minor << " block=" << block << " regs=" << regs
                << " dyn=" << dyn << " static=" << st;
            if (want.activeBlocksPerMultiprocessor > 0) {
              EXPECT_EQ(got->limiting_factors, want.limitingFactors)
                  << "sm_" << l.cc_major << l.cc_minor << " block=" << block << " regs=" << regs
                  << " dyn=" << dyn << " static=" << st;
            }
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GE(archs, 15);
  EXPECT_GT(compared, 10000);
  std::printf("compared %d launch configurations on %d architectures\n", compared, archs);
}

}  // namespace
}  // namespace gpuwhy::analysis
