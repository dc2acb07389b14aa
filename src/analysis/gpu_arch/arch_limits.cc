#include "analysis/gpu_arch/arch_limits.h"

#include <array>

namespace gpuwhy::analysis {
namespace {

constexpr int64_t kKiB = 1024;

// One row per compute capability. Columns: major, minor, max threads/SM,
// max blocks/SM, regs/block, max smem/SM, opt-in smem/block, smem unit,
// reserved smem/block, register sub-partitions, example GPUs.
struct ArchRow {
  int32_t major, minor, threads_per_sm, blocks_per_sm, regs_per_block;
  int64_t smem_per_sm, smem_optin;
  int32_t smem_unit;
  int64_t reserved;
  int32_t sub_partitions;
  const char* gpus;
};

constexpr std::array<ArchRow, 20> kRows = {{
    {5, 0, 2048, 32, 65536, 64 * kKiB, 48 * kKiB, 256, 0, 4, "GTX 750 Ti"},
    {5, 2, 2048, 32, 65536, 96 * kKiB, 48 * kKiB, 256, 0, 4, "GTX 980, M40"},
    {5, 3, 2048, 32, 32768, 64 * kKiB, 48 * kKiB, 256, 0, 4, "Jetson TX1"},
    {6, 0, 2048, 32, 65536, 64 * kKiB, 48 * kKiB, 256, 0, 2, "P100"},
    {6, 1, 2048, 32, 65536, 96 * kKiB, 48 * kKiB, 256, 0, 4, "GTX 1080, P40"},
    {6, 2, 2048, 32, 32768, 64 * kKiB, 48 * kKiB, 256, 0, 4, "Jetson TX2"},
    {7, 0, 2048, 32, 65536, 96 * kKiB, 96 * kKiB, 256, 0, 4, "V100"},
    {7, 2, 2048, 32, 65536, 96 * kKiB, 96 * kKiB, 256, 0, 4, "Jetson AGX Xavier"},
    {7, 5, 1024, 16, 65536, 64 * kKiB, 64 * kKiB, 256, 0, 4, "T4, RTX 20xx"},
    {8, 0, 2048, 32, 65536, 164 * kKiB, 163 * kKiB, 128, 1 * kKiB, 4, "A100"},
    {8, 6, 1536, 16, 65536, 100 * kKiB, 99 * kKiB, 128, 1 * kKiB, 4, "A10, RTX 30xx"},
    {8, 7, 1536, 16, 65536, 164 * kKiB, 163 * kKiB, 128, 1 * kKiB, 4, "Jetson Orin"},
    {8, 9, 1536, 24, 65536, 100 * kKiB, 99 * kKiB, 128, 1 * kKiB, 4, "L4, L40S, RTX 40xx"},
    {9, 0, 2048, 32, 65536, 228 * kKiB, 227 * kKiB, 128, 1 * kKiB, 4, "H100, H200, GH200"},
    {10, 0, 2048, 32, 65536, 228 * kKiB, 227 * kKiB, 128, 1 * kKiB, 4, "B200, GB200"},
    {10, 1, 1536, 24, 65536, 228 * kKiB, 227 * kKiB, 128, 1 * kKiB, 4, "Thor (pre-CUDA 13)"},
    {10, 3, 2048, 32, 65536, 228 * kKiB, 227 * kKiB, 128, 1 * kKiB, 4, "B300, GB300"},
    {11, 0, 1536, 24, 65536, 228 * kKiB, 227 * kKiB, 128, 1 * kKiB, 4, "Thor"},
    {12, 0, 1536, 24, 65536, 100 * kKiB, 99 * kKiB, 128, 1 * kKiB, 4, "RTX 50xx, RTX PRO 6000"},
    {12, 1, 1536, 24, 65536, 100 * kKiB, 99 * kKiB, 128, 1 * kKiB, 4, "DGX Spark (GB10)"},
}};

constexpr ArchLimits MakeLimits(const ArchRow& r) {
  ArchLimits l;
  l.cc_major = r.major;
  l.cc_minor = r.minor;
  l.max_threads_per_sm = r.threads_per_sm;
  l.max_warps_per_sm = r.threads_per_sm / 32;
  l.max_blocks_per_sm = r.blocks_per_sm;
  l.regs_per_block = r.regs_per_block;
  l.smem_per_sm_bytes = r.smem_per_sm;
  l.smem_per_block_optin_bytes = r.smem_optin;
  l.smem_alloc_unit_bytes = r.smem_unit;
  l.reserved_smem_per_block_bytes = r.reserved;
  l.reg_sub_partitions = r.sub_partitions;
  // Why: from Volta on, a thread may be allocated up to 256 registers by the
  // occupancy rules (cuda_occupancy.h), although the compiler stops at 255.
  l.max_regs_per_thread = r.major >= 7 ? 256 : 255;
  l.example_gpus = r.gpus;
  return l;
}

constexpr std::array<ArchLimits, kRows.size()> BuildTable() {
  std::array<ArchLimits, kRows.size()> t{};
  for (size_t i = 0; i < kRows.size(); ++i) t[i] = MakeLimits(kRows[i]);
  return t;
}

constexpr std::array<ArchLimits, kRows.size()> kTable = BuildTable();

}  // namespace

std::span<const ArchLimits> AllArchLimits() { return kTable; }

const ArchLimits* FindArchLimits(int32_t cc_major, int32_t cc_minor) {
  const ArchLimits* best = nullptr;
  for (const ArchLimits& l : kTable) {
    if (l.cc_major != cc_major) continue;
    if (l.cc_minor == cc_minor) return &l;
    if (l.cc_minor < cc_minor && (best == nullptr || l.cc_minor > best->cc_minor)) best = &l;
  }
  if (best == nullptr) {
    // An unknown lower minor (e.g. 9.x below 9.0 cannot happen, 12.x ok): take
    // the first row of the major so a new minor still gets sensible limits.
    for (const ArchLimits& l : kTable) {
      if (l.cc_major == cc_major) return &l;
    }
  }
  return best;
}

bool LimitsForDevice(const model::Device& device, ArchLimits* out) {
  if (!IsValid(device.cc_major) || !IsValid(device.cc_minor)) return false;
  const ArchLimits* base = FindArchLimits(device.cc_major, device.cc_minor);
  if (base == nullptr) return false;
  *out = *base;
  // The device's own figures win: a trace states what the driver reported.
  if (IsValid(device.warp_size) && device.warp_size > 0) out->warp_size = device.warp_size;
  if (IsValid(device.max_threads_per_sm) && device.max_threads_per_sm > 0) {
    out->max_threads_per_sm = device.max_threads_per_sm;
    out->max_warps_per_sm = device.max_threads_per_sm / out->warp_size;
  }
  if (IsValid(device.max_threads_per_block) && device.max_threads_per_block > 0)
    out->max_threads_per_block = device.max_threads_per_block;
  if (IsValid(device.max_blocks_per_sm) && device.max_blocks_per_sm > 0)
    out->max_blocks_per_sm = device.max_blocks_per_sm;
  if (IsValid(device.regs_per_sm) && device.regs_per_sm > 0) out->regs_per_sm = device.regs_per_sm;
  if (IsValid(device.regs_per_block) && device.regs_per_block > 0)
    out->regs_per_block = device.regs_per_block;
  if (IsValid(device.smem_per_sm_bytes) && device.smem_per_sm_bytes > 0)
    out->smem_per_sm_bytes = device.smem_per_sm_bytes;
  if (IsValid(device.smem_per_block_bytes) && device.smem_per_block_bytes > 0)
    out->smem_per_block_bytes = device.smem_per_block_bytes;
  if (IsValid(device.smem_per_block_optin_bytes) && device.smem_per_block_optin_bytes > 0)
    out->smem_per_block_optin_bytes = device.smem_per_block_optin_bytes;
  return true;
}

}  // namespace gpuwhy::analysis
