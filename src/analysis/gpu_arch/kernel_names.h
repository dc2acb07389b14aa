// Kernel-name tables: what a kernel is, judged from its (demangled) name.
//
// Contract: every function here is a pure lookup in a data table (see
// kernel_names.cc); matching is case-insensitive substring matching, first
// rule wins. The tables are data, not logic: extend them by adding rows.
#pragma once

#include <span>
#include <string_view>

namespace gpuwhy::analysis {

// KernelClass: coarse family of work a kernel does.
enum class KernelClass : uint8_t {
  kGemmConv = 0,       // matrix multiply, convolution, attention (tensor-core capable work)
  kElementwise = 1,    // pointwise / vectorized elementwise / fills
  kReduction = 2,      // reductions, norms, softmax, scans, sorts
  kCopy = 3,           // device copies, transposes, concatenation, gathers
  kCommunication = 4,  // NCCL/RCCL collectives, custom all-reduce / all-to-all
  kOther = 5,
};
inline constexpr int kKernelClassCount = 6;

// ToString: stable lowercase name ("gemm_conv", "elementwise", ...).
std::string_view ToString(KernelClass c);

// NameRule: one row of a name table.
struct KernelNameRule {
  std::string_view pattern;  // lowercase substring
  KernelClass kernel_class;
};

// KernelClassRules: the ordered classification table (first match wins).
std::span<const KernelNameRule> KernelClassRules();

// ClassifyKernel: the class of a kernel from its name; kOther when no rule matches.
KernelClass ClassifyKernel(std::string_view name);

// TensorCorePatterns: lowercase substrings of kernel families that run on
// tensor cores, covering Volta (h884/s884), Turing/Ampere (1688, 16816, hmma,
// imma, tensorop), Hopper (wgmma, gmma, sm90_*, nvjet) and Blackwell
// (tcgen05, umma, sm100_*).
std::span<const std::string_view> TensorCorePatterns();

// UsesTensorCores: true when the name matches a TensorCorePatterns() row.
bool UsesTensorCores(std::string_view name);

// TbPluginTensorCoreAllowlist: the TensorBoard plugin's exact allowlist
// (tb_plugin tensor_core.py; case-sensitive substrings). Kept for
// `--compat tbplugin`; it misses sm90+ kernels (pytorch/kineto#1041).
std::span<const std::string_view> TbPluginTensorCoreAllowlist();

// TbPluginUsesTensorCores: the TB plugin's own decision for this name.
bool TbPluginUsesTensorCores(std::string_view name);

// IsTritonKernel: Triton / TorchInductor generated kernel (`triton_` prefix,
// also after "void " or a namespace).
bool IsTritonKernel(std::string_view name);

}  // namespace gpuwhy::analysis
