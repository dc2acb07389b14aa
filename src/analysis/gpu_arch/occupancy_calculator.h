// Theoretical occupancy of a kernel launch, computed on the host.
//
// Contract: ComputeOccupancy() follows the rules of NVIDIA's cuda_occupancy.h
// (cudaOccMaxActiveBlocksPerMultiprocessor with the default device state:
// default carveout, partitioned global caching off, default shared-memory
// limit) using an ArchLimits row. It never touches a GPU and never throws.
// KinetoOccupancyRatio() reproduces Kineto's "est. achieved occupancy %":
// min(active blocks/SM, grid blocks/SM) x threads/block / max threads/SM.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/gpu_arch/arch_limits.h"
#include "base/status.h"

namespace gpuwhy::analysis {

// LaunchConfig: what one launch asks of an SM.
struct LaunchConfig {
  int32_t threads_per_block = 0;
  int32_t registers_per_thread = 0;
  int64_t static_smem_bytes = 0;
  int64_t dynamic_smem_bytes = 0;
};

// Limiting-factor bits (same values as cuda_occupancy.h OCC_LIMIT_*).
inline constexpr uint32_t kLimitWarps = 0x1;
inline constexpr uint32_t kLimitRegisters = 0x2;
inline constexpr uint32_t kLimitSharedMemory = 0x4;
inline constexpr uint32_t kLimitBlocks = 0x8;

// OccupancyResult: resident blocks per SM and why.
struct OccupancyResult {
  int32_t active_blocks_per_sm = 0;
  int32_t active_warps_per_sm = 0;
  double occupancy_ratio = 0.0;  // active warps / max warps per SM
  uint32_t limiting_factors = 0;
  int32_t block_limit_warps = 0;
  int32_t block_limit_registers = 0;
  int32_t block_limit_smem = 0;
  int32_t block_limit_blocks = 0;
  int32_t allocated_registers_per_block = 0;
  int64_t allocated_smem_per_block_bytes = 0;
};

// ComputeOccupancy: theoretical occupancy of `launch` on `limits`. Returns
// InvalidInput for a non-positive block size or registers above the
// architecture's maximum. A block that cannot fit at all gives 0 blocks (OK).
Result<OccupancyResult> ComputeOccupancy(const ArchLimits& limits, const LaunchConfig& launch);

// KinetoOccupancyRatio: Kineto's capped estimate (0..1), given the grid's
// blocks per SM (grid blocks / SM count). NaN when ComputeOccupancy fails.
double KinetoOccupancyRatio(const ArchLimits& limits, const LaunchConfig& launch,
                            double grid_blocks_per_sm);

// LimitingFactorsText: "registers|shared memory" style text of the bits.
std::string LimitingFactorsText(uint32_t factors);

}  // namespace gpuwhy::analysis
