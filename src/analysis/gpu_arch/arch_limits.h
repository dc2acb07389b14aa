// Per-architecture SM resource limits, used by the occupancy calculator.
//
// Contract: FindArchLimits() returns the limits of an NVIDIA compute
// capability from a built-in table (sm_50 ... sm_121), or nullptr when the
// capability is unknown. Values follow NVIDIA's CUDA programming guide
// "Technical Specifications per Compute Capability" and the granularities
// hard-coded in cuda_occupancy.h (CUDA 13). Device properties a trace carries
// (model::Device) override the table through ApplyDeviceOverrides().
#pragma once

#include <cstdint>
#include <span>

#include "model/trace.h"

namespace gpuwhy::analysis {

// ArchLimits: the resources of one SM and the rules for allocating them.
struct ArchLimits {
  int32_t cc_major = 0;
  int32_t cc_minor = 0;
  int32_t warp_size = 32;
  int32_t max_threads_per_sm = 0;
  int32_t max_warps_per_sm = 0;             // max_threads_per_sm / warp_size
  int32_t max_blocks_per_sm = 0;
  int32_t max_threads_per_block = 1024;
  int32_t regs_per_sm = 65536;              // 32-bit registers
  int32_t regs_per_block = 65536;
  int32_t max_regs_per_thread = 255;        // what the compiler may assign
  int32_t reg_alloc_unit = 256;             // registers are allocated per warp in this unit
  int32_t reg_sub_partitions = 4;           // register file banks (warp schedulers)
  int64_t smem_per_sm_bytes = 0;            // max shared memory per SM (full carveout)
  int64_t smem_per_block_bytes = 48 * 1024; // default (non opt-in) limit per block
  int64_t smem_per_block_optin_bytes = 0;   // opt-in maximum per block
  int32_t smem_alloc_unit_bytes = 256;      // shared memory allocation granularity
  int64_t reserved_smem_per_block_bytes = 0;  // driver-reserved smem per block (sm_80+)
  const char* example_gpus = "";
};

// AllArchLimits: the whole built-in table, ordered by compute capability.
std::span<const ArchLimits> AllArchLimits();

// FindArchLimits: exact (major, minor) match; else the nearest lower minor of
// the same major; nullptr when the major is unknown.
const ArchLimits* FindArchLimits(int32_t cc_major, int32_t cc_minor);

// LimitsForDevice: table limits for the device's compute capability with the
// device's own stated limits (threads/SM, regs/SM, smem/SM, ...) applied on
// top. Returns false when the capability is missing or unknown.
bool LimitsForDevice(const model::Device& device, ArchLimits* out);

}  // namespace gpuwhy::analysis
