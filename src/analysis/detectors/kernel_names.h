// Kernel-name rules the detectors need: communication kernels, tensor-core
// kernels, fp32 GEMM/conv kernels that could use tensor cores, memory-bound
// kernel families, Triton/Inductor kernels.
//
// Contract: pure functions of the (demangled or mangled) name, case-insensitive.
// Communication, tensor-core and Triton checks defer to the gpu_arch tables
// (analysis/gpu_arch/kernel_names.h) and add the patterns the detectors need
// beyond them; the detectors call only these functions.
#pragma once

#include <string_view>

namespace gpuwhy::analysis::detectors {

// KernelFamily: coarse class of a kernel by name.
enum class KernelFamily : unsigned char {
  kGemm, kConv, kElementwise, kReduction, kCopy, kCommunication, kOther,
};
std::string_view ToString(KernelFamily f);

// ClassifyKernel: the family of a kernel name.
KernelFamily ClassifyKernel(std::string_view name);
// IsCommKernel: NCCL/RCCL and other collective / all-to-all kernels.
bool IsCommKernel(std::string_view name);
// UsesTensorCores: the name says it runs on tensor cores (tb_plugin allowlist
// h884/s884/h1688/s1688/hmma/i8816/16816/xmma plus newer patterns).
bool UsesTensorCores(std::string_view name);
// IsFp32GemmOrConv: a GEMM/conv kernel whose name says fp32 without tensor cores
// (sgemm, scudnn, implicit_convolve_sgemm, ...): AMP/TF32 candidates.
bool IsFp32GemmOrConv(std::string_view name);
// IsTritonKernel: Inductor/Triton generated (`triton_...`).
bool IsTritonKernel(std::string_view name);
// IsMemoryBoundFamily: elementwise, reduction and copy kernels, which are
// limited by DRAM bandwidth in practice.
bool IsMemoryBoundFamily(KernelFamily f);

}  // namespace gpuwhy::analysis::detectors
