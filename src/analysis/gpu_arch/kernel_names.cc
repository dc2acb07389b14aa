#include "analysis/gpu_arch/kernel_names.h"

#include <array>
#include <string>

namespace gpuwhy::analysis {
namespace {

using K = KernelClass;

// Order matters: communication first (nccl names contain "reduce"), then
// copies, then GEMM/conv (cudnn conv names contain "gemm"), then Triton
// categories, then reductions before elementwise ("reduce_kernel" is also a
// vectorized loop).
constexpr KernelNameRule kClassRules[] = {
    // Communication.
    {"nccl", K::kCommunication},
    {"rccl", K::kCommunication},
    {"cross_device_reduce", K::kCommunication},  // vLLM custom all-reduce
    {"one_shot_all_reduce", K::kCommunication},
    {"two_shot_all_reduce", K::kCommunication},
    {"multimem_all_reduce", K::kCommunication},
    {"custom_all_reduce", K::kCommunication},
    {"allreduce", K::kCommunication},
    {"all_reduce", K::kCommunication},
    {"allgather", K::kCommunication},
    {"all_gather", K::kCommunication},
    {"reducescatter", K::kCommunication},
    {"reduce_scatter", K::kCommunication},
    {"alltoall", K::kCommunication},
    {"all_to_all", K::kCommunication},
    {"deep_ep", K::kCommunication},  // DeepEP expert-parallel dispatch/combine
    {"nvshmem", K::kCommunication},
    {"sendrecv", K::kCommunication},
    {"mscclpp", K::kCommunication},
    // Copies and data movement.
    {"memcpy", K::kCopy},
    {"direct_copy_kernel", K::kCopy},
    {"copy_kernel", K::kCopy},
    {"catarraybatchedcopy", K::kCopy},
    {"cat_kernel", K::kCopy},
    {"copy_device_to_device", K::kCopy},
    {"transpose", K::kCopy},
    {"index_select", K::kCopy},
    {"gather_kernel", K::kCopy},
    {"scatter_kernel", K::kCopy},
    {"indexing_backward", K::kCopy},
    {"index_put", K::kCopy},
    {"embedding", K::kCopy},
    {"nchwtonhwc", K::kCopy},
    {"nhwctonchw", K::kCopy},
    // GEMM, convolution, attention.
    {"gemm", K::kGemmConv},
    {"gemv", K::kGemmConv},
    {"conv", K::kGemmConv},
    {"wgrad", K::kGemmConv},
    {"dgrad", K::kGemmConv},
    {"fprop", K::kGemmConv},
    {"winograd", K::kGemmConv},
    {"xmma", K::kGemmConv},
    {"wgmma", K::kGemmConv},
    {"gmma", K::kGemmConv},
    {"hmma", K::kGemmConv},
    {"imma", K::kGemmConv},
    {"tensorop", K::kGemmConv},
    {"cutlass", K::kGemmConv},
    {"nvjet", K::kGemmConv},
    {"cublas", K::kGemmConv},
    {"matmul", K::kGemmConv},
    {"flash_fwd", K::kGemmConv},
    {"flash_bwd", K::kGemmConv},
    {"flash::", K::kGemmConv},
    {"fmha", K::kGemmConv},
    {"attention", K::kGemmConv},
    {"attn_", K::kGemmConv},
    {"s16816", K::kGemmConv},
    {"h16816", K::kGemmConv},
    {"s1688", K::kGemmConv},
    {"h1688", K::kGemmConv},
    {"s884", K::kGemmConv},
    {"h884", K::kGemmConv},
    {"triton_tem_", K::kGemmConv},  // Inductor template kernels (mm/bmm/conv)
    // Triton / Inductor categories.
    {"triton_poi_", K::kElementwise},
    {"triton_for_", K::kElementwise},
    {"triton_red_", K::kReduction},
    {"triton_per_", K::kReduction},
    {"triton_spl_", K::kReduction},
    // Reductions, norms, softmax, sorting, scans.
    {"reduce", K::kReduction},
    {"softmax", K::kReduction},
    {"norm", K::kReduction},  // layer_norm, batch_norm, group_norm, rms_norm
    {"bn_fw", K::kReduction},
    {"bn_bw", K::kReduction},
    {"welford", K::kReduction},
    {"scan", K::kReduction},
    {"sort", K::kReduction},
    {"topk", K::kReduction},
    {"argmax", K::kReduction},
    {"cub::", K::kReduction},
    {"cross_entropy", K::kReduction},
    {"nll_loss", K::kReduction},
    // Elementwise.
    {"elementwise", K::kElementwise},
    {"pointwise", K::kElementwise},
    {"fill", K::kElementwise},
    {"relu", K::kElementwise},
    {"gelu", K::kElementwise},
    {"silu", K::kElementwise},
    {"dropout", K::kElementwise},
    {"adam", K::kElementwise},  // fused optimizer steps are pointwise
    {"sgd", K::kElementwise},
    {"multi_tensor_apply", K::kElementwise},
    {"pooling", K::kOther},
};

constexpr std::string_view kTensorCorePatterns[] = {
    "h884", "s884", "h1688", "s1688", "c1688", "i8816", "16816", "hmma", "imma", "xmma",
    "wgmma", "gmma", "tensorop", "tensor_op", "tcgen05", "umma", "nvjet", "sm80_", "sm86_",
    "sm89_", "sm90_", "sm100_", "sm120_", "cutlass3x", "flash_fwd", "flash_bwd", "flash::",
    "fmha", "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv2d_c1_k1",
};

// tb_plugin torch_tb_profiler/profiler/tensor_core.py (commit 041e7ce9).
constexpr std::string_view kTbAllowlist[] = {
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group",
    "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm", "xmma_sparse_gemm", "c1688",
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string_view ToString(KernelClass c) {
  switch (c) {
    case K::kGemmConv: return "gemm_conv";
    case K::kElementwise: return "elementwise";
    case K::kReduction: return "reduction";
    case K::kCopy: return "copy";
    case K::kCommunication: return "communication";
    case K::kOther: return "other";
  }
  return "other";
}

std::span<const KernelNameRule> KernelClassRules() { return kClassRules; }

KernelClass ClassifyKernel(std::string_view name) {
  const std::string lower = Lower(name);
  for (const KernelNameRule& r : kClassRules) {
    if (lower.find(r.pattern) != std::string::npos) return r.kernel_class;
  }
  return K::kOther;
}

std::span<const std::string_view> TensorCorePatterns() { return kTensorCorePatterns; }

bool UsesTensorCores(std::string_view name) {
  const std::string lower = Lower(name);
  // SIMT GEMMs share prefixes (sm80_, cutlass) with tensor-core ones.
  if (lower.find("simt") != std::string::npos) return false;
  for (std::string_view p : kTensorCorePatterns) {
    if (lower.find(p) != std::string::npos) return true;
  }
  return false;
}

std::span<const std::string_view> TbPluginTensorCoreAllowlist() { return kTbAllowlist; }

bool TbPluginUsesTensorCores(std::string_view name) {
  for (std::string_view p : kTbAllowlist) {
    if (name.find(p) != std::string_view::npos) return true;
  }
  return false;
}

bool IsTritonKernel(std::string_view name) {
  if (name.starts_with("triton_") || name == "triton") return true;
  // "void triton_poi_fused_..." or "ns::triton_..." forms.
  const size_t p = name.find("triton_");
  return p != std::string_view::npos && p > 0 && (name[p - 1] == ' ' || name[p - 1] == ':');
}

}  // namespace gpuwhy::analysis
