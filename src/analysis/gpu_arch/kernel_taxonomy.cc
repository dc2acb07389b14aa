#include "analysis/gpu_arch/kernel_taxonomy.h"

#include <algorithm>
#include <iterator>

namespace gpuwhy::analysis {
namespace {

using K = KernelClass;
using P = KernelPrecision;
using T = TensorCoreRule;

// Row builders: one per kind of row, so the table reads as data.
constexpr KernelFamilyRule Comm(std::string_view family, std::string_view pattern,
                                std::string_view also = {}) {
  return {family, pattern, also, {}, K::kCommunication, T::kNo, P::kUnknown, false};
}
constexpr KernelFamilyRule Attn(std::string_view family, std::string_view pattern, T tc,
                                std::string_view also = {}) {
  return {family, pattern, also, {}, K::kGemmConv, tc, P::kUnknown, true};
}
constexpr KernelFamilyRule Mm(std::string_view family, std::string_view pattern, T tc,
                              P precision = P::kUnknown, std::string_view also = {},
                              std::string_view unless = {}) {
  return {family, pattern, also, unless, K::kGemmConv, tc, precision, false};
}
constexpr KernelFamilyRule Row(std::string_view family, std::string_view pattern, K c,
                               std::string_view also = {}, std::string_view unless = {}) {
  return {family, pattern, also, unless, c, T::kNo, P::kUnknown, false};
}

// The order is the design (docs/kernel_taxonomy.md, "Order"):
//  1. communication: collective names contain "reduce"/"gather"/"copy";
//  2. attention and 3. GEMM/conv libraries recognised by namespace or prefix,
//     before generic words, because their template arguments mention
//     "permute", "transform", "copy", "epilogue" ...;
//  4. elementwise families whose names contain copy words ("rotary_embedding");
//  5. copies (cuDNN "nchwToNhwc", PyTorch "direct_copy_kernel" inside
//     "elementwise_kernel");
//  6. Triton/Inductor categories (triton_poi_fused_addmm_... is pointwise);
//  7. generic GEMM/conv/attention words;
//  8. reductions before 9. elementwise ("reduce_kernel" is also vectorized);
// 10. broad fallbacks last, so they only catch names nothing else knows.
constexpr KernelFamilyRule kRules[] = {
    // 1. Communication. RCCL keeps NCCL's kernel names (ncclDevKernel_*).
    Comm("nccl", "nccl"),
    Comm("rccl", "rccl"),
    Comm("msccl", "msccl"),  // MSCCL and MSCCL++
    Comm("nvshmem", "nvshmem"),
    Comm("ucc", "^ucc_"),
    Comm("ucc", "ucc_tl_"),
    Comm("ucc", "ucc_ec_"),
    Comm("expert_parallel", "deep_ep"),  // deep_ep::intranode::dispatch, ::internode::combine
    Comm("expert_parallel", "::ep::", "dispatch"),
    Comm("expert_parallel", "::ep::", "combine"),
    Comm("expert_parallel", "::ep::", "notify"),
    Comm("expert_parallel", "^ep::", "dispatch"),  // the same kernels in a top-level ep namespace
    Comm("expert_parallel", "^ep::", "combine"),
    Comm("expert_parallel", "^ep::", "notify"),
    Comm("expert_parallel", "epdispatch"),  // AMD MORI EpDispatch*Kernel
    Comm("expert_parallel", "epcombine"),
    Comm("expert_parallel", "pplx::", "dispatch"),
    Comm("expert_parallel", "pplx::", "combine"),
    Comm("expert_parallel", "moe_dispatch"),
    Comm("expert_parallel", "moe_combine"),
    Comm("custom_all_reduce", "cross_device_reduce"),  // vLLM / SGLang custom all-reduce
    Comm("custom_all_reduce", "allreduce"),  // TRT-LLM oneShot/twoShot/allReduceKernel, QuickReduce
    Comm("custom_all_reduce", "all_reduce"),   // PyTorch symm-mem one_shot/two_shot/multimem
    Comm("custom_all_reduce", "lamport"),      // TRT-LLM Lamport all-reduce buffers
    Comm("custom_all_reduce", "userbuffers"),  // Transformer Engine / Megatron userbuffers
    Comm("collective", "allgather"),
    Comm("collective", "all_gather"),
    Comm("collective", "reducescatter"),
    Comm("collective", "reduce_scatter"),
    Comm("collective", "alltoall"),
    Comm("collective", "all_to_all"),
    Comm("collective", "sendrecv"),
    Comm("xla_collective", "all-reduce"),  // XLA op names as nsys shows them (-start/-done)
    Comm("xla_collective", "all-gather"),
    Comm("xla_collective", "reduce-scatter"),
    Comm("xla_collective", "all-to-all"),
    Comm("xla_collective", "collective-permute"),
    Comm("xla_collective", "collective-broadcast"),

    // 2. Attention.
    Attn("flash_attention", "flash_fwd", T::kYes),  // FlashAttention 1/2, pytorch_flash::
    Attn("flash_attention", "flash_bwd", T::kYes),
    Attn("flash_attention", "flash::", T::kYes),  // FA2/FA3/FlashMLA namespace
    Attn("flash_attention", "flashattn", T::kYes),
    Attn("flash_attention", "flash_attn", T::kYes),
    Attn("flashinfer", "flashinfer::", T::kYes, "prefill"),
    Attn("flashinfer", "flashinfer::", T::kYes, "decode"),
    Attn("flashinfer", "flashinfer::mla", T::kYes),
    Attn("fmha", "fmha", T::kYes),  // CUTLASS/xFormers, CK ck_tile::Fmha*, aiter, TRT-LLM
    Attn("fmha", "mha_fwd", T::kYes),
    Attn("fmha", "mha_bwd", T::kYes),
    Attn("cudnn_sdpa", "sdpa", T::kYes),
    Attn("triton_attention", "attn_fwd", T::kYes),  // ROCm Triton FA, Triton tutorial _attn_fwd
    Attn("triton_attention", "attn_bwd", T::kYes),
    Attn("triton_attention", "unified_attention", T::kYes),  // vLLM Triton unified attention
    Attn("aiter_attention", "aiter::", T::kYes, "attn"),
    Attn("aiter_attention", "aiter::", T::kYes, "pa_"),

    // 3. GEMM / convolution libraries.
    Mm("simt_gemm", "simt", T::kNo, P::kUnknown, "gemm"),  // CUTLASS SIMT: no tensor cores
    Mm("simt_gemm", "simt", T::kNo, P::kUnknown, "conv"),
    Mm("deep_gemm", "deep_gemm", T::kYes),
    Mm("cublas", "nvjet", T::kYes),  // cuBLASLt on Hopper/Blackwell
    // cuBLAS/cuDNN sm80_/sm90_xmma_* (gemm, fprop, dgrad, wgrad); not TensorRT's xmma pooling.
    Mm("cublas", "xmma", T::kYes, P::kUnknown, {}, "pooling"),
    Mm("trtllm_gen", "^bmm_", T::kYes, P::kUnknown, "_sm1##"),           // TRT-LLM gen bmm_*_sm100f
    Mm("tensile_mfma", "cijk_", T::kYes, P::kUnknown, "_mi#", "_mi0x"),  // MFMA tile MIaxbxc
    Mm("tensile", "cijk_", T::kNo),  // Tensile / hipBLASLt without a matrix-core tile
    Mm("composable_kernel", "^ck_tile::", T::kYes, P::kUnknown, "gemm"),
    Mm("composable_kernel", "^ck::", T::kYes, P::kUnknown, "xdl"),  // xdlops = MFMA
    Mm("composable_kernel", "^ck::", T::kYes, P::kUnknown, "wmma"),
    Mm("composable_kernel", "^ck::", T::kFromTokens, P::kUnknown, "gemm"),
    Mm("composable_kernel", "^ck::", T::kFromTokens, P::kUnknown, "conv"),
    Mm("aiter_gemm", "aiter::", T::kYes, P::kUnknown, "gemm"),
    Mm("aiter_gemm", "aiter::", T::kYes, P::kUnknown, "fmoe"),
    Mm("miopen_igemm", "igemm_", T::kYes, P::kUnknown, "gtcx"),  // MIOpen xdlops implicit GEMM
    Mm("miopen_igemm", "igemm_", T::kNo),
    Mm("cutlass", "cutlass::kernel", T::kFromTokens),  // also Kernel2, cutlass_cudnn_train::Kernel
    Mm("cutlass", "cutlass::device_kernel", T::kFromTokens),
    Mm("cutlass", "cutlass3x", T::kYes),
    Mm("cutlass", "cutlass_", T::kFromTokens),  // cutlass_80_tensorop_*, cutlass_scaled_mm
    Mm("cutlass", "device_kernel", T::kFromTokens, P::kUnknown, "gemm"),
    Mm("triton_matmul", "triton_tem_", T::kYes),  // Inductor templates: mm, bmm, addmm, conv
    Mm("triton_matmul", "matmul_kernel", T::kYes),
    Mm("triton_matmul", "_matmul_ogs", T::kYes),  // triton_kernels matmul_ogs (vLLM MoE)
    Mm("triton_matmul", "fused_moe_kernel", T::kYes),
    Mm("tcnn_mlp", "kernel_mlp_fused", T::kYes),  // tiny-cuda-nn fully fused MLP (wmma)
    // Tensor-core cuDNN kernels of the TB plugin's list.
    Mm("cudnn_conv", "dgrad_1x1_stride_2x2", T::kYes),
    Mm("cudnn_conv", "first_layer_wgrad_kernel", T::kYes),
    Mm("cudnn_conv", "conv2d_c1_k1", T::kYes),
    // Tensor-core tile names of cuBLAS/cuDNN/CUTLASS (volta_h884gemm,
    // ampere_fp16_s16816gemm, turing_h1688gemm, ...).
    Mm("tensor_core_gemm", "h884", T::kYes),
    Mm("tensor_core_gemm", "s884", T::kYes),
    Mm("tensor_core_gemm", "h1688", T::kYes),
    Mm("tensor_core_gemm", "s1688", T::kYes),
    Mm("tensor_core_gemm", "c1688", T::kYes),
    Mm("tensor_core_gemm", "i8816", T::kYes),
    Mm("tensor_core_gemm", "16816", T::kYes),
    Mm("tensor_core_gemm", "161616", T::kYes),
    Mm("tensor_core_gemm", "hmma", T::kYes),
    Mm("tensor_core_gemm", "imma", T::kYes),
    Mm("tensor_core_gemm", "wgmma", T::kYes),
    Mm("tensor_core_gemm", "tcgen05", T::kYes),
    Mm("tensor_core_gemm", "tensorop", T::kYes, P::kUnknown, {}, "subtensorop"),  // MIOpen copy
    Mm("tensor_core_gemm", "tensor_op", T::kYes),
    Mm("tensor_core_gemm", "wmma", T::kYes),
    Mm("tensor_core_gemm", "mfma", T::kYes),
    // fp32 on the SIMT units (the detectors' AMP/TF32 candidates).
    Mm("fp32_gemm", "sgemm", T::kNo, P::kFp32),   // ampere_sgemm, implicit_convolve_sgemm
    Mm("fp32_gemm", "gemmsn", T::kNo, P::kFp32),  // cuBLAS small-N gemmSN_*_kernel<float>
    Mm("fp32_gemm", "gemv2t", T::kNo, P::kFp32),
    Mm("fp32_gemm", "gemv2n", T::kNo, P::kFp32),
    Mm("cudnn_conv", "scudnn", T::kNo, P::kFp32),
    Mm("cudnn_conv", "winograd", T::kNo, P::kFp32),
    Mm("cudnn_conv", "fft2d_r2c", T::kNo, P::kFp32),
    Mm("cudnn_conv", "fft2d_c2r", T::kNo, P::kFp32),
    Mm("cudnn_conv", "fft_r2c", T::kNo, P::kFp32),
    Mm("cudnn_conv", "fft_c2r", T::kNo, P::kFp32),
    Mm("cudnn_conv", "fft1d_", T::kNo),              // cuDNN FFT convolution, 1-D passes
    Mm("cudnn_conv", "cask_cudnn", T::kFromTokens),  // cuDNN's kernel library (CASK)
    Mm("fft", "regular_fft", T::kNo),  // cuFFT (DSE::) kernels: FFT convolution in DL traces
    Mm("fft", "vector_fft", T::kNo),

    // 4. Elementwise families whose names contain copy words.
    Row("rotary_embedding", "rotary", K::kElementwise),
    Row("elementwise", "scal_kernel", K::kElementwise),  // cuBLAS scal (cublasTransposeParams args)

    // 5. Copies and data movement.
    Row("copy", "memcpy", K::kCopy),
    Row("copy", "direct_copy_kernel", K::kCopy),
    Row("copy", "copy_kernel", K::kCopy),
    Row("copy", "catarraybatchedcopy", K::kCopy),
    Row("copy", "cat_kernel", K::kCopy),
    Row("copy", "copy_device_to_device", K::kCopy),
    Row("copy", "reshape_and_cache", K::kCopy),  // vLLM KV-cache write
    Row("copy", "reformat", K::kCopy),           // TensorRT genericReformat::copy*Kernel
    Row("transpose", "transpose", K::kCopy),     // also MIOpen batched_transpose_*
    Row("transpose", "nchwtonhwc", K::kCopy),
    Row("transpose", "nhwctonchw", K::kCopy),
    Row("transpose", "permute", K::kCopy),
    Row("transpose", "subtensorop", K::kCopy),      // MIOpen SubTensorOpWithCastTensor*
    Row("transpose", "flip_filter", K::kCopy),      // cuDNN FFT convolution filter flip
    Row("transpose", "shuffleintensor", K::kCopy),  // TensorFlow transposes
    Row("transpose", "swapdimension", K::kCopy),
    Row("copy", "concat", K::kCopy),  // also XLA concatenate
    Row("gather_scatter", "index_select", K::kCopy),
    Row("gather_scatter", "gather_kernel", K::kCopy),
    Row("gather_scatter", "scatter_kernel", K::kCopy),
    Row("gather_scatter", "indexing_backward", K::kCopy),
    Row("gather_scatter", "index_put", K::kCopy),
    Row("gather_scatter", "bucketize", K::kCopy),         // FBGEMM sparse-feature bucketize
    Row("embedding", "embedding", K::kCopy),              // FBGEMM split_embedding_*, embedding_bag
    Row("embedding", "bounds_check_indices", K::kCopy),   // FBGEMM TBE index check
    Row("tcnn_encoding", "tcnn::kernel_grid", K::kCopy),  // tiny-cuda-nn hash-grid lookup (gathers)

    // 6. Triton / Inductor categories.
    Row("triton_pointwise", "triton_poi_", K::kElementwise),
    Row("triton_pointwise", "triton_for_", K::kElementwise),
    Row("triton_reduction", "triton_red_", K::kReduction),
    Row("triton_reduction", "triton_per_", K::kReduction),
    Row("triton_reduction", "triton_spl_", K::kReduction),
    Mm("triton_matmul", "^triton_", T::kYes, P::kUnknown, "mm"),

    // 7. Generic GEMM / convolution / attention words.
    Mm("gemm", "gemm", T::kFromTokens, P::kUnknown, {}, "fbgemm"),  // cgemm (FFT conv), rocBLAS;
                                                                    // FBGEMM is a library name
    Mm("gemm", "gemv", T::kFromTokens),
    Mm("gemm", "matmul", T::kFromTokens),
    Mm("gemm", "cublas", T::kFromTokens),
    Mm("conv", "conv", T::kFromTokens, P::kUnknown, {}, "convert"),
    Mm("conv", "wgrad", T::kFromTokens),
    Mm("conv", "dgrad", T::kFromTokens),
    Mm("conv", "fprop", T::kFromTokens),
    Mm("conv", "im2col", T::kFromTokens),
    Attn("attention", "attention", T::kNo),  // paged_attention, generic
    Attn("attention", "attn_", T::kNo),

    // 8. Reductions, norms, softmax, sorting, scans, pooling.
    Row("reduction", "reduce", K::kReduction),
    Row("reduction", "reduction", K::kReduction),  // nvfuser_reduction_*, ...
    Row("softmax", "softmax", K::kReduction),
    Row("norm", "normalization", K::kReduction),
    Row("norm", "batchnorm", K::kReduction),
    Row("norm", "layernorm", K::kReduction),
    Row("norm", "rmsnorm", K::kReduction),
    Row("norm", "groupnorm", K::kReduction),
    Row("norm", "norm", K::kReduction, {}, "normal"),  // layer_norm, batch_norm, rms_norm
    Row("norm", "bn_fw", K::kReduction),
    Row("norm", "bn_bw", K::kReduction),
    Row("norm", "welford", K::kReduction),
    Row("quantize_params", "qparam", K::kReduction),  // FBGEMM quantization min/max
    Row("norm", "gammabeta", K::kReduction),          // LayerNorm backward gamma/beta sums
    Row("reduction", "nvfuser_", K::kReduction, "persistent"),
    Row("scan_sort", "scan", K::kReduction),
    Row("scan_sort", "sort", K::kReduction),
    Row("scan_sort", "topk", K::kReduction),
    Row("scan_sort", "argmax", K::kReduction),
    Row("scan_sort", "argmin", K::kReduction),
    Row("scan_sort", "cub::", K::kReduction),
    Row("loss", "cross_entropy", K::kReduction),
    Row("loss", "nll_loss", K::kReduction),
    Row("pooling", "pool", K::kReduction),         // max/avg/adaptive pooling, cudnn pooling_fw
    Row("moe_routing", "routing", K::kReduction),  // TRT-LLM moe::dev::routing, triton_kernels
    Row("moe_routing", "moe::dev::finalize", K::kReduction),  // weighted top-k sum
    Row("moe_routing", "_sum_bitmatrix", K::kReduction),
    Row("autotune", "redzone_checker", K::kReduction),  // XLA/TF autotuner buffer check

    // 9. Elementwise. Random-number kernels first; they come this late
    // because "curand"/"philox" also appear in the template arguments of
    // other kernels (stochastic rounding in FBGEMM's embedding backward).
    Row("random", "distribution_", K::kElementwise),  // PyTorch distribution_elementwise_*
    Row("random", "curand", K::kElementwise),
    Row("random", "philox", K::kElementwise),
    Row("random", "threefry", K::kElementwise),  // JAX PRNG
    Row("elementwise", "elementwise", K::kElementwise),
    Row("elementwise", "pointwise", K::kElementwise),  // also nvfuser_pointwise
    Row("elementwise", "vectorized", K::kElementwise),
    Row("elementwise", "unrolled", K::kElementwise),
    Row("elementwise", "fill", K::kElementwise),
    Row("activation", "relu", K::kElementwise),
    Row("activation", "gelu", K::kElementwise),
    Row("activation", "silu", K::kElementwise),
    Row("activation", "swiglu", K::kElementwise),
    Row("activation", "activation", K::kElementwise),
    Row("elementwise", "dropout", K::kElementwise),
    Row("elementwise", "clamp", K::kElementwise),
    Row("quantize", "quant", K::kElementwise),     // fp8/int8 (de)quantize
    Row("quantize", "^convert", K::kElementwise),  // XLA convert, dtype conversions
    Row("quantize", "to_float", K::kElementwise),  // FBGEMM _FP8rowwise_to_float, _hfp8_to_float
    Row("quantize", "float_to_", K::kElementwise),
    Row("xla_fusion", "^loop_", K::kElementwise, "fusion"),  // XLA loop fusion
    Row("optimizer", "adam", K::kElementwise),               // fused optimizer steps are pointwise
    Row("optimizer", "sgd", K::kElementwise),
    Row("optimizer", "multi_tensor_apply", K::kElementwise),
    Row("elementwise", "eigenmetakernel", K::kElementwise),  // Eigen tensor expressions (TF)
    Row("elementwise", "biasnchwkernel", K::kElementwise),   // TensorFlow bias add
    Row("elementwise", "biasnhwckernel", K::kElementwise),
    Row("elementwise", "scalepackedtensor", K::kElementwise),  // cuDNN tensor scale
    Row("elementwise", "tcnn::kernel_sh", K::kElementwise),    // tiny-cuda-nn SH encoding

    // 10. Fallbacks.
    Row("copy", "copy", K::kCopy),
    Row("gather_scatter", "gather", K::kCopy),
    Row("gather_scatter", "scatter", K::kCopy),
    Row("gather_scatter", "index", K::kCopy),
    Row("elementwise", "vectoradd", K::kElementwise),
    Row("elementwise", "add_kernel", K::kElementwise),
    Row("elementwise", "mul_kernel", K::kElementwise),
};

constexpr std::string_view kTensorCoreTokens[] = {
    "h884",  "s884",   "h1688",  "s1688", "c1688",     "i8816",   "16816",    "161616",
    "hmma",  "imma",   "xmma",   "wgmma", "gmma",      "tcgen05", "tensorop", "tensor_op",
    "wmma",  "mfma",   "xdl",    "nvjet", "cutlass3x", "sm80_",   "sm86_",    "sm89_",
    "sm90_", "sm100_", "sm120_", "e4m3",  "e5m2",      "fp8",     "mxfp",     "nvfp4",
};

// Order: the old detectors' fp32 list first (it decides the AMP finding),
// then mixed formats before the plain 16-bit ones (bf16 before f16).
constexpr PrecisionToken kPrecisionTokens[] = {
    {"sgemm", P::kFp32},   {"scudnn", P::kFp32},   {"gemmsn", P::kFp32},    {"gemv2t", P::kFp32},
    {"gemv2n", P::kFp32},  {"winograd", P::kFp32}, {"fft2d_r2c", P::kFp32}, {"fft2d_c2r", P::kFp32},
    {"fft_r2c", P::kFp32}, {"fft_c2r", P::kFp32},  {"gemm_f32", P::kFp32},  {"_f32f32", P::kFp32},
    {"tf32", P::kTf32},    {"e4m3", P::kFp8},      {"e5m2", P::kFp8},       {"fp8", P::kFp8},
    {"mxfp", P::kFp8},     {"nvfp4", P::kFp8},     {"bf16", P::kBf16},      {"bfloat16", P::kBf16},
    {"f16", P::kFp16},     {"fp16", P::kFp16},     {"half", P::kFp16},      {"h884", P::kFp16},
    {"h1688", P::kFp16},   {"h16816", P::kFp16},   {"hgemm", P::kFp16},     {"int8", P::kInt8},
    {"i8816", P::kInt8},   {"imma", P::kInt8},     {"dgemm", P::kFp64},     {"f64", P::kFp64},
    {"fp64", P::kFp64},
};

// tb_plugin torch_tb_profiler/profiler/tensor_core.py (commit 041e7ce9).
constexpr std::string_view kTbAllowlist[] = {
    "h884",
    "s884",
    "h1688",
    "s1688",
    "hmma",
    "i8816",
    "16816",
    "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel",
    "conv1x1",
    "conv2d_c1_k1",
    "direct_group",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm",
    "xmma_sparse_gemm",
    "c1688",
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// MatchAt: `pat` (no '^') matches `s` at position `at`; '#' is a digit.
bool MatchAt(std::string_view s, size_t at, std::string_view pat) {
  if (at + pat.size() > s.size()) return false;
  for (size_t i = 0; i < pat.size(); ++i) {
    const char c = s[at + i];
    if (pat[i] == '#' ? !IsDigit(c) : c != pat[i]) return false;
  }
  return true;
}

// Matches: the pattern syntax of KernelFamilyRule on a lowercased name.
bool Matches(std::string_view s, std::string_view pat) {
  if (pat.empty()) return true;
  if (pat.front() == '^') return MatchAt(s, 0, pat.substr(1));
  const size_t hash = pat.find('#');
  if (hash == std::string_view::npos) return s.find(pat) != std::string_view::npos;
  // Search for the literal part before the first '#', then verify the rest.
  const std::string_view head = pat.substr(0, hash);
  for (size_t p = s.find(head); p != std::string_view::npos; p = s.find(head, p + 1))
    if (MatchAt(s, p, pat)) return true;
  return false;
}

bool RuleMatches(const KernelFamilyRule& r, std::string_view s) {
  return Matches(s, r.pattern) && (r.also.empty() || Matches(s, r.also)) &&
         (r.unless.empty() || !Matches(s, r.unless));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool HasTensorCoreToken(std::string_view s) {
  if (s.find("simt") != std::string_view::npos) return false;  // SIMT variants share prefixes
  return std::any_of(std::begin(kTensorCoreTokens), std::end(kTensorCoreTokens),
                     [&](std::string_view t) { return s.find(t) != std::string_view::npos; });
}

KernelPrecision PrecisionFromTokens(std::string_view s) {
  for (const PrecisionToken& t : kPrecisionTokens)
    if (s.find(t.token) != std::string_view::npos) return t.precision;
  return P::kUnknown;
}

bool TritonName(std::string_view name) {
  if (name.starts_with("triton_") || name == "triton") return true;
  // "void triton_poi_fused_..." or "ns::triton_..." forms.
  const size_t p = name.find("triton_");
  return p != std::string_view::npos && p > 0 && (name[p - 1] == ' ' || name[p - 1] == ':');
}

KernelInfo ClassifyDemangled(std::string_view demangled) {
  std::string lower = Lower(demangled);
  std::string_view s = lower;
  if (s.starts_with("void ")) s.remove_prefix(5);  // so '^' anchors see the function name
  KernelInfo info;
  info.triton = TritonName(demangled);
  for (size_t i = 0; i < std::size(kRules); ++i) {
    const KernelFamilyRule& r = kRules[i];
    if (!RuleMatches(r, s)) continue;
    info.rule = static_cast<int16_t>(i);
    info.kernel_class = r.kernel_class;
    info.family = r.family;
    info.attention = r.attention;
    info.tensor_core =
        r.tensor_core == T::kYes || (r.tensor_core == T::kFromTokens && HasTensorCoreToken(s));
    info.precision = r.precision != P::kUnknown ? r.precision : PrecisionFromTokens(s);
    // Only GEMM/conv names state a compute precision worth reporting.
    if (r.kernel_class != K::kGemmConv) info.precision = P::kUnknown;
    return info;
  }
  return info;
}

}  // namespace

std::string_view ToString(KernelClass c) {
  switch (c) {
    case K::kGemmConv:
      return "gemm_conv";
    case K::kElementwise:
      return "elementwise";
    case K::kReduction:
      return "reduction";
    case K::kCopy:
      return "copy";
    case K::kCommunication:
      return "communication";
    case K::kOther:
      break;
  }
  return "other";
}

std::string_view ToString(KernelPrecision p) {
  switch (p) {
    case P::kFp32:
      return "fp32";
    case P::kTf32:
      return "tf32";
    case P::kFp16:
      return "fp16";
    case P::kBf16:
      return "bf16";
    case P::kFp8:
      return "fp8";
    case P::kInt8:
      return "int8";
    case P::kFp64:
      return "fp64";
    case P::kUnknown:
      break;
  }
  return "unknown";
}

std::span<const KernelFamilyRule> KernelFamilyRules() { return kRules; }
std::span<const std::string_view> TensorCoreTokens() { return kTensorCoreTokens; }
std::span<const PrecisionToken> PrecisionTokens() { return kPrecisionTokens; }

KernelInfo ClassifyKernelName(std::string_view name) {
  if (IsMangledName(name)) return ClassifyDemangled(Demangle(name));
  return ClassifyDemangled(name);
}

KernelClass ClassifyKernel(std::string_view name) { return ClassifyKernelName(name).kernel_class; }
bool UsesTensorCores(std::string_view name) { return ClassifyKernelName(name).tensor_core; }
bool IsCommKernel(std::string_view name) {
  return ClassifyKernelName(name).kernel_class == K::kCommunication;
}
bool IsFp32GemmOrConv(std::string_view name) {
  return ClassifyKernelName(name).Fp32WithoutTensorCores();
}

bool IsTritonKernel(std::string_view name) {
  if (IsMangledName(name)) return TritonName(Demangle(name));
  return TritonName(name);
}

bool IsMemoryBoundClass(KernelClass c) {
  return c == K::kElementwise || c == K::kReduction || c == K::kCopy;
}

std::span<const std::string_view> TbPluginTensorCoreAllowlist() { return kTbAllowlist; }

bool TbPluginUsesTensorCores(std::string_view name) {
  for (std::string_view p : kTbAllowlist) {
    if (name.find(p) != std::string_view::npos) return true;
  }
  return false;
}

KernelInfoMemo::KernelInfoMemo(const model::Trace& trace)
    : trace_(trace), slot_(trace.strings.size(), 0) {}

const KernelInfo& KernelInfoMemo::Get(StringId id) {
  if (id >= slot_.size()) slot_.resize(static_cast<size_t>(id) + 1, 0);
  if (slot_[id] == 0) {
    infos_.push_back(ClassifyDemangled(Demangled(id)));
    slot_[id] = static_cast<uint32_t>(infos_.size());
  }
  return infos_[slot_[id] - 1];
}

std::string_view KernelInfoMemo::Demangled(StringId id) { return demangled_.Get(trace_.Str(id)); }

}  // namespace gpuwhy::analysis
