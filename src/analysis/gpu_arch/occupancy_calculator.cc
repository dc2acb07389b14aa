#include "analysis/gpu_arch/occupancy_calculator.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace gpuwhy::analysis {
namespace {

int64_t DivRoundUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t RoundUp(int64_t x, int64_t y) { return y * DivRoundUp(x, y); }

// Supported shared-memory carveouts (KiB) per architecture: an SM can only be
// configured to one of these, so a request is aligned up to the next one.
int64_t AlignUpSmemConfig(const ArchLimits& l, int64_t bytes) {
  static constexpr int64_t kVolta[] = {0, 8, 16, 32, 64, 96};
  static constexpr int64_t kTuring[] = {32, 64};
  static constexpr int64_t kA100[] = {0, 8, 16, 32, 64, 100, 132, 164};
  static constexpr int64_t kGa10x[] = {0, 8, 16, 32, 64, 100};
  static constexpr int64_t kHopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  std::span<const int64_t> steps;
  if (l.cc_major == 7) {
    steps = l.cc_minor == 5 ? std::span<const int64_t>(kTuring) : std::span<const int64_t>(kVolta);
  } else if (l.cc_major == 8) {
    steps = (l.cc_minor == 0 || l.cc_minor == 7) ? std::span<const int64_t>(kA100)
                                                 : std::span<const int64_t>(kGa10x);
  } else if (l.cc_major == 12) {
    steps = kGa10x;
  } else if (l.cc_major >= 9) {
    steps = kHopper;
  } else {
    return bytes;
  }
  for (int64_t kib : steps) {
    if (bytes <= kib * 1024) return kib * 1024;
  }
  return -1;  // larger than any configuration
}

}  // namespace

Result<OccupancyResult> ComputeOccupancy(const ArchLimits& l, const LaunchConfig& launch) {
  if (launch.threads_per_block <= 0) return InvalidInput("occupancy: block size must be > 0");
  if (launch.registers_per_thread < 0 || launch.static_smem_bytes < 0 ||
      launch.dynamic_smem_bytes < 0) {
    return InvalidInput("occupancy: negative registers or shared memory");
  }
  if (l.warp_size <= 0 || l.max_threads_per_sm <= 0) {
    return InvalidInput("occupancy: architecture limits are incomplete");
  }
  OccupancyResult r;
  const int64_t warps_per_block = DivRoundUp(launch.threads_per_block, l.warp_size);

  // Warps.
  int64_t lim_warps = 0;
  if (launch.threads_per_block <= l.max_threads_per_block) {
    lim_warps = (l.max_threads_per_sm / l.warp_size) / warps_per_block;
  }

  // Registers: allocated per warp in reg_alloc_unit, from per-sub-partition banks.
  int64_t lim_regs = INT_MAX;
  const int64_t regs_per_warp = RoundUp(int64_t{launch.registers_per_thread} * l.warp_size,
                                        l.reg_alloc_unit);
  const int64_t regs_per_block = regs_per_warp * warps_per_block;
  const int64_t regs_assumed = regs_per_warp * RoundUp(warps_per_block, l.reg_sub_partitions);
  r.allocated_registers_per_block = static_cast<int32_t>(regs_per_block);
  if (l.regs_per_block < regs_assumed || l.regs_per_block < regs_per_block ||
      launch.registers_per_thread > l.max_regs_per_thread) {
    lim_regs = 0;
  } else if (regs_per_warp > 0) {
    const int64_t warps_per_sub = (l.regs_per_sm / l.reg_sub_partitions) / regs_per_warp;
    lim_regs = warps_per_sub * l.reg_sub_partitions / warps_per_block;
    // GP100 (sm_60) also obeys the 4-bank rule of the other Pascal chips.
    if (l.cc_major == 6 && l.cc_minor == 0 &&
        l.regs_per_block < regs_per_warp * RoundUp(warps_per_block, 4)) {
      lim_regs = 0;
    }
  }

  // Shared memory, including the per-block reservation of sm_80+.
  int64_t lim_smem = INT_MAX;
  const int64_t smem_static = launch.static_smem_bytes + l.reserved_smem_per_block_bytes;
  const int64_t smem_alloc = RoundUp(smem_static + launch.dynamic_smem_bytes,
                                     l.smem_alloc_unit_bytes);
  r.allocated_smem_per_block_bytes = smem_alloc;
  const int64_t smem_block_limit = l.smem_per_block_bytes +
                                   (l.cc_major >= 8 ? l.reserved_smem_per_block_bytes : 0);
  if (smem_alloc > smem_block_limit) {
    lim_smem = 0;
  } else {
    int64_t per_sm = l.cc_major >= 7 ? AlignUpSmemConfig(l, l.smem_per_sm_bytes)
                                     : l.smem_per_sm_bytes;
    if (per_sm < smem_alloc && l.cc_major >= 7) per_sm = AlignUpSmemConfig(l, smem_alloc);
    if (per_sm < 0) {
      lim_smem = 0;
    } else if (smem_alloc > 0) {
      lim_smem = per_sm / smem_alloc;
    }
  }

  const int64_t lim_blocks = l.max_blocks_per_sm;
  const int64_t limit = std::min({lim_regs, lim_smem, lim_warps, lim_blocks});
  if (limit == lim_warps) r.limiting_factors |= kLimitWarps;
  if (limit == lim_regs) r.limiting_factors |= kLimitRegisters;
  if (limit == lim_smem) r.limiting_factors |= kLimitSharedMemory;
  if (limit == lim_blocks) r.limiting_factors |= kLimitBlocks;
  auto clamp32 = [](int64_t v) { return static_cast<int32_t>(std::min<int64_t>(v, INT_MAX)); };
  r.block_limit_warps = clamp32(lim_warps);
  r.block_limit_registers = clamp32(lim_regs);
  r.block_limit_smem = clamp32(lim_smem);
  r.block_limit_blocks = clamp32(lim_blocks);
  r.active_blocks_per_sm = clamp32(limit);
  r.active_warps_per_sm = clamp32(limit * warps_per_block);
  r.occupancy_ratio = static_cast<double>(r.active_warps_per_sm) /
                      static_cast<double>(l.max_threads_per_sm / l.warp_size);
  return r;
}

double KinetoOccupancyRatio(const ArchLimits& limits, const LaunchConfig& launch,
                            double grid_blocks_per_sm) {
  Result<OccupancyResult> r = ComputeOccupancy(limits, launch);
  if (!r.ok()) return kMissingF64;
  const double blocks = std::min(static_cast<double>(r->active_blocks_per_sm), grid_blocks_per_sm);
  return blocks * launch.threads_per_block / static_cast<double>(limits.max_threads_per_sm);
}

std::string LimitingFactorsText(uint32_t factors) {
  std::string s;
  auto add = [&s](const char* t) {
    if (!s.empty()) s += "|";
    s += t;
  };
  if (factors & kLimitWarps) add("warps");
  if (factors & kLimitRegisters) add("registers");
  if (factors & kLimitSharedMemory) add("shared memory");
  if (factors & kLimitBlocks) add("blocks");
  return s;
}

}  // namespace gpuwhy::analysis
