#include "analysis/detectors/kernel_names.h"

#include "analysis/gpu_arch/kernel_names.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

namespace gpuwhy::analysis::detectors {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s.substr(0, std::min<size_t>(s.size(), 400)));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool HasAny(const std::string& s, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts)
    if (s.find(p) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string_view ToString(KernelFamily f) {
  switch (f) {
    case KernelFamily::kGemm: return "gemm";
    case KernelFamily::kConv: return "conv";
    case KernelFamily::kElementwise: return "elementwise";
    case KernelFamily::kReduction: return "reduction";
    case KernelFamily::kCopy: return "copy";
    case KernelFamily::kCommunication: return "communication";
    case KernelFamily::kOther: break;
  }
  return "other";
}

bool IsCommKernel(std::string_view name) {
  if (analysis::ClassifyKernel(name) == analysis::KernelClass::kCommunication) return true;
  std::string s = Lower(name);
  // NCCL/RCCL by prefix; the rest are custom collectives and expert-parallel
  // all-to-all kernels seen in public traces.
  return HasAny(s, {"nccl", "rccl", "allreduce", "all_reduce", "allgather", "all_gather",
                    "reducescatter", "reduce_scatter", "alltoall", "all_to_all", "sendrecv",
                    "cross_device_reduce", "deep_ep", "moe_dispatch", "moe_combine",
                    "nvshmem", "mscclpp", "msccl"});
}

bool UsesTensorCores(std::string_view name) {
  // The utilization engineer's table first (covers sm90+/Blackwell), then ours.
  if (analysis::UsesTensorCores(name)) return true;
  std::string s = Lower(name);
  return HasAny(s, {"h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "xmma",
                    "tensorop", "wgmma", "nvjet", "_tf32", "tf32_", "bf16gemm", "f16gemm",
                    "hgemm", "sm90_", "sm80_", "sm100_", "cutlass_80", "cutlass_90",
                    "mma_", "_mma", "flash_fwd", "flash_bwd", "fmha", "gemm_f16", "gemm_bf16"});
}

bool IsFp32GemmOrConv(std::string_view name) {
  std::string s = Lower(name);
  if (UsesTensorCores(name)) return false;
  return HasAny(s, {"sgemm", "scudnn", "convolve_sgemm", "gemmsn", "gemv2t", "gemv2n",
                    "winograd", "fft2d_r2c", "fft2d_c2r", "fft_r2c", "fft_c2r",
                    "gemm_f32", "_f32f32"});
}

bool IsTritonKernel(std::string_view name) { return analysis::IsTritonKernel(name); }

KernelFamily ClassifyKernel(std::string_view name) {
  if (IsCommKernel(name)) return KernelFamily::kCommunication;
  std::string s = Lower(name);
  if (HasAny(s, {"conv", "scudnn", "winograd", "fft2d", "im2col", "dgrad", "wgrad", "fprop"}))
    return KernelFamily::kConv;
  if (HasAny(s, {"gemm", "gemv", "matmul", "nvjet", "xmma", "cutlass", "hmma", "wgmma", "_mma",
                 "flash_", "fmha"}))
    return KernelFamily::kGemm;
  if (HasAny(s, {"reduce", "reduction", "softmax", "norm", "_red_", "triton_red", "triton_per",
                 "sum_kernel", "argmax", "topk", "scan"}))
    return KernelFamily::kReduction;
  if (HasAny(s, {"copy", "memcpy", "cat_", "catarray", "transpose", "gather", "scatter",
                 "index", "embedding"}))
    return KernelFamily::kCopy;
  if (HasAny(s, {"elementwise", "pointwise", "triton_poi", "vectorized", "unrolled", "fill",
                 "relu", "add", "mul", "activation", "dropout", "where", "clamp"}))
    return KernelFamily::kElementwise;
  return KernelFamily::kOther;
}

bool IsMemoryBoundFamily(KernelFamily f) {
  return f == KernelFamily::kElementwise || f == KernelFamily::kReduction ||
         f == KernelFamily::kCopy;
}

}  // namespace gpuwhy::analysis::detectors
