// Kernel taxonomy: what a GPU kernel is, judged from its name. The one
// classifier every analysis uses (summary, utilization, detectors, compat).
//
// Contract: classification is a pure, table-driven function of the name.
// KernelFamilyRules() is the ordered table (docs/kernel_taxonomy.md lists it
// with the reasons for its order): one row per kernel family with its match
// rule, class, tensor-core flag and precision. Mangled names (`_Z...`) are
// demangled first; matching is on the lowercased demangled name with a
// leading "void " dropped; the first row that matches decides. A name no row
// matches is KernelClass::kOther, family "other". Extend the table by adding
// rows; every row has a known-answer test in kernel_taxonomy_test.cc.
//
// Cost: one classification scans the table (~200 substring searches), so
// per-event loops go through KernelInfoMemo, which classifies each distinct
// interned name once.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/demangle.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// KernelClass: coarse family of work a kernel does. Values are JSON keys
// (ToString) and array indices; append only.
enum class KernelClass : uint8_t {
  kGemmConv = 0,       // matrix multiply, convolution, attention (tensor-core capable work)
  kElementwise = 1,    // pointwise / vectorized elementwise / fills / casts / RNG
  kReduction = 2,      // reductions, norms, softmax, scans, sorts, pooling
  kCopy = 3,           // device copies, transposes, concatenation, gathers, embeddings
  kCommunication = 4,  // collectives, send/recv, expert-parallel dispatch/combine
  kOther = 5,          // no family row matched
};
inline constexpr int kKernelClassCount = 6;

// ToString: stable lowercase name ("gemm_conv", "elementwise", ...).
std::string_view ToString(KernelClass c);

// KernelPrecision: the arithmetic precision a kernel name states.
enum class KernelPrecision : uint8_t {
  kUnknown = 0,  // the name does not say
  kFp32 = 1,     // fp32 on the SIMT units (sgemm, scudnn, ...): a TF32/AMP candidate
  kTf32 = 2,
  kFp16 = 3,
  kBf16 = 4,
  kFp8 = 5,  // fp8 / fp4 / mx formats
  kInt8 = 6,
  kFp64 = 7,
};
// ToString: "unknown", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp64".
std::string_view ToString(KernelPrecision p);

// TensorCoreRule: how a row decides the tensor-core / matrix-core flag.
enum class TensorCoreRule : uint8_t {
  kNo = 0,   // SIMT / vector units
  kYes = 1,  // the family always runs on tensor cores (NVIDIA) or matrix cores (AMD MFMA/WMMA)
  kFromTokens = 2,  // decided by TensorCoreTokens() in the name (and no "simt")
};

// KernelFamilyRule: one row of the table. A row matches when `pattern`
// matches, `also` (when not empty) matches too, and `unless` (when not
// empty) does not. Pattern syntax, on the lowercased name: a literal
// substring; a leading '^' anchors it at the start of the name; '#' stands
// for one decimal digit.
struct KernelFamilyRule {
  std::string_view family;  // stable id ("nccl", "tensile_mfma", ...), a JSON value
  std::string_view pattern;
  std::string_view also;
  std::string_view unless;
  KernelClass kernel_class;
  TensorCoreRule tensor_core;
  KernelPrecision precision;  // kUnknown: taken from PrecisionTokens() in the name
  bool attention;             // attention kernels (class kGemmConv)
};

// KernelFamilyRules: the ordered table (first match wins).
std::span<const KernelFamilyRule> KernelFamilyRules();

// TensorCoreTokens: name fragments that mean tensor/matrix-core instructions
// (h884, 16816, hmma, wgmma, tcgen05, xmma, nvjet, mfma, xdl, ...), used by
// rows with TensorCoreRule::kFromTokens.
std::span<const std::string_view> TensorCoreTokens();

// PrecisionToken: a name fragment and the precision it states.
struct PrecisionToken {
  std::string_view token;
  KernelPrecision precision;
};
// PrecisionTokens: ordered; the first token found in a name decides.
std::span<const PrecisionToken> PrecisionTokens();

// KernelInfo: the classification of one kernel name.
struct KernelInfo {
  KernelClass kernel_class = KernelClass::kOther;
  std::string_view family = "other";  // the matching row's id (static storage)
  bool tensor_core = false;           // tensor cores (NVIDIA) or matrix cores (AMD)
  bool attention = false;
  bool triton = false;  // Triton / TorchInductor generated
  KernelPrecision precision = KernelPrecision::kUnknown;
  int16_t rule = -1;  // index of the matching row in KernelFamilyRules(); -1: none

  // Fp32WithoutTensorCores: a GEMM/conv whose name says fp32 on the SIMT
  // units (sgemm, scudnn, implicit_convolve_sgemm, winograd, ...): the
  // candidates for TF32 / mixed precision.
  bool Fp32WithoutTensorCores() const {
    return kernel_class == KernelClass::kGemmConv && !tensor_core &&
           precision == KernelPrecision::kFp32;
  }
};

// ClassifyKernelName: the classification of a raw (possibly mangled) or
// demangled kernel name.
KernelInfo ClassifyKernelName(std::string_view name);

// Shorthands of ClassifyKernelName() for one-off calls.
KernelClass ClassifyKernel(std::string_view name);
bool UsesTensorCores(std::string_view name);
bool IsCommKernel(std::string_view name);
bool IsFp32GemmOrConv(std::string_view name);

// IsTritonKernel: Triton / TorchInductor generated kernel (`triton_` prefix,
// also after "void " or a namespace).
bool IsTritonKernel(std::string_view name);

// IsMemoryBoundClass: elementwise, reduction and copy kernels, which are
// limited by DRAM bandwidth in practice.
bool IsMemoryBoundClass(KernelClass c);

// TbPluginTensorCoreAllowlist: the TensorBoard plugin's exact allowlist
// (tb_plugin tensor_core.py; case-sensitive substrings of the raw name).
// Kept as data for `--compat tbplugin` agreement; it misses sm90+ kernels
// (pytorch/kineto#1041), which is why the taxonomy does not use it.
std::span<const std::string_view> TbPluginTensorCoreAllowlist();

// TbPluginUsesTensorCores: the TB plugin's own decision for this raw name.
bool TbPluginUsesTensorCores(std::string_view name);

// KernelInfoMemo: ClassifyKernelName() and Demangle() once per interned name
// of one trace.
//
// Contract: Get(id) == ClassifyKernelName(trace.Str(id)); Demangled(id) ==
// Demangle(trace.Str(id)), valid while the memo and the trace live. Each
// distinct id is classified at most once; lookups after that are an array
// index. Not thread-safe: one memo per analysis pass.
class KernelInfoMemo {
 public:
  explicit KernelInfoMemo(const model::Trace& trace);

  const KernelInfo& Get(StringId id);
  std::string_view Demangled(StringId id);

 private:
  const model::Trace& trace_;
  std::vector<uint32_t> slot_;    // per StringId: 0 = not yet classified, else index + 1
  std::deque<KernelInfo> infos_;  // deque: references stay valid as it grows
  DemangleMemo demangled_;
};

}  // namespace gpuwhy::analysis
