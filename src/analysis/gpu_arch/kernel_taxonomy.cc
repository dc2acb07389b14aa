#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "base/ascii.h"

#include <algorithm>
#include <iterator>

namespace gpuwhy::analysis {
namespace {

using Cls = KernelClass;
using Prec = KernelPrecision;
using Tc = TensorCoreRule;

// Row builders: one per kind of row, so the table reads as data.
constexpr KernelFamilyRule Comm(std::string_view family, std::string_view pattern,
                                std::string_view also = {}) {
  return {family, pattern, also, {}, Cls::kCommunication, Tc::kNo, Prec::kUnknown, false};
}
constexpr KernelFamilyRule Attn(std::string_view family, std::string_view pattern, Tc tc,
                                std::string_view also = {}) {
  return {family, pattern, also, {}, Cls::kGemmConv, tc, Prec::kUnknown, true};
}
constexpr KernelFamilyRule Mm(std::string_view family, std::string_view pattern, Tc tc,
                              Prec precision = Prec::kUnknown, std::string_view also = {},
                              std::string_view unless = {}) {
  return {family, pattern, also, unless, Cls::kGemmConv, tc, precision, false};
}
constexpr KernelFamilyRule Row(std::string_view family, std::string_view pattern, Cls c,
                               std::string_view also = {}, std::string_view unless = {}) {
  return {family, pattern, also, unless, c, Tc::kNo, Prec::kUnknown, false};
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
    Attn("flash_attention", "flash_fwd", Tc::kYes),  // FlashAttention 1/2, pytorch_flash::
    Attn("flash_attention", "flash_bwd", Tc::kYes),
    Attn("flash_attention", "flash::", Tc::kYes),  // FA2/FA3/FlashMLA namespace
    Attn("flash_attention", "flashattn", Tc::kYes),
    Attn("flash_attention", "flash_attn", Tc::kYes),
    Attn("flashinfer", "flashinfer::", Tc::kYes, "prefill"),
    Attn("flashinfer", "flashinfer::", Tc::kYes, "decode"),
    Attn("flashinfer", "flashinfer::mla", Tc::kYes),
    Attn("fmha", "fmha", Tc::kYes),  // CUTLASS/xFormers, CK ck_tile::Fmha*, aiter, TRT-LLM
    Attn("fmha", "mha_fwd", Tc::kYes),
    Attn("fmha", "mha_bwd", Tc::kYes),
    Attn("cudnn_sdpa", "sdpa", Tc::kYes),
    Attn("triton_attention", "attn_fwd", Tc::kYes),  // ROCm Triton FA, Triton tutorial _attn_fwd
    Attn("triton_attention", "attn_bwd", Tc::kYes),
    Attn("triton_attention", "unified_attention", Tc::kYes),  // vLLM Triton unified attention
    Attn("aiter_attention", "aiter::", Tc::kYes, "attn"),
    Attn("aiter_attention", "aiter::", Tc::kYes, "pa_"),

    // 3. GEMM / convolution libraries.
    Mm("simt_gemm", "simt", Tc::kNo, Prec::kUnknown, "gemm"),  // CUTLASS SIMT: no tensor cores
    Mm("simt_gemm", "simt", Tc::kNo, Prec::kUnknown, "conv"),
    Mm("deep_gemm", "deep_gemm", Tc::kYes),
    Mm("cublas", "nvjet", Tc::kYes),  // cuBLASLt on Hopper/Blackwell
    // cuBLAS/cuDNN sm80_/sm90_xmma_* (gemm, fprop, dgrad, wgrad); not TensorRT's xmma pooling.
    Mm("cublas", "xmma", Tc::kYes, Prec::kUnknown, {}, "pooling"),
    Mm("trtllm_gen", "^bmm_", Tc::kYes, Prec::kUnknown, "_sm1##"),           // TRT-LLM gen bmm_*_sm100f
    Mm("tensile_mfma", "cijk_", Tc::kYes, Prec::kUnknown, "_mi#", "_mi0x"),  // MFMA tile MIaxbxc
    Mm("tensile", "cijk_", Tc::kNo),  // Tensile / hipBLASLt without a matrix-core tile
    Mm("composable_kernel", "^ck_tile::", Tc::kYes, Prec::kUnknown, "gemm"),
    Mm("composable_kernel", "^ck::", Tc::kYes, Prec::kUnknown, "xdl"),  // xdlops = MFMA
    Mm("composable_kernel", "^ck::", Tc::kYes, Prec::kUnknown, "wmma"),
    Mm("composable_kernel", "^ck::", Tc::kFromTokens, Prec::kUnknown, "gemm"),
    Mm("composable_kernel", "^ck::", Tc::kFromTokens, Prec::kUnknown, "conv"),
    Mm("aiter_gemm", "aiter::", Tc::kYes, Prec::kUnknown, "gemm"),
    Mm("aiter_gemm", "aiter::", Tc::kYes, Prec::kUnknown, "fmoe"),
    Mm("miopen_igemm", "igemm_", Tc::kYes, Prec::kUnknown, "gtcx"),  // MIOpen xdlops implicit GEMM
    Mm("miopen_igemm", "igemm_", Tc::kNo),
    Mm("cutlass", "cutlass::kernel", Tc::kFromTokens),  // also Kernel2, cutlass_cudnn_train::Kernel
    Mm("cutlass", "cutlass::device_kernel", Tc::kFromTokens),
    Mm("cutlass", "cutlass3x", Tc::kYes),
    Mm("cutlass", "cutlass_", Tc::kFromTokens),  // cutlass_80_tensorop_*, cutlass_scaled_mm
    Mm("cutlass", "device_kernel", Tc::kFromTokens, Prec::kUnknown, "gemm"),
    Mm("triton_matmul", "triton_tem_", Tc::kYes),  // Inductor templates: mm, bmm, addmm, conv
    Mm("triton_matmul", "matmul_kernel", Tc::kYes),
    Mm("triton_matmul", "_matmul_ogs", Tc::kYes),  // triton_kernels matmul_ogs (vLLM MoE)
    Mm("triton_matmul", "fused_moe_kernel", Tc::kYes),
    Mm("tcnn_mlp", "kernel_mlp_fused", Tc::kYes),  // tiny-cuda-nn fully fused MLP (wmma)
    // Tensor-core cuDNN kernels of the TB plugin's list.
    Mm("cudnn_conv", "dgrad_1x1_stride_2x2", Tc::kYes),
    Mm("cudnn_conv", "first_layer_wgrad_kernel", Tc::kYes),
    Mm("cudnn_conv", "conv2d_c1_k1", Tc::kYes),
    // Tensor-core tile names of cuBLAS/cuDNN/CUTLASS (volta_h884gemm,
    // ampere_fp16_s16816gemm, turing_h1688gemm, ...).
    Mm("tensor_core_gemm", "h884", Tc::kYes),
    Mm("tensor_core_gemm", "s884", Tc::kYes),
    Mm("tensor_core_gemm", "h1688", Tc::kYes),
    Mm("tensor_core_gemm", "s1688", Tc::kYes),
    Mm("tensor_core_gemm", "c1688", Tc::kYes),
    Mm("tensor_core_gemm", "i8816", Tc::kYes),
    Mm("tensor_core_gemm", "16816", Tc::kYes),
    Mm("tensor_core_gemm", "161616", Tc::kYes),
    Mm("tensor_core_gemm", "hmma", Tc::kYes),
    Mm("tensor_core_gemm", "imma", Tc::kYes),
    Mm("tensor_core_gemm", "wgmma", Tc::kYes),
    Mm("tensor_core_gemm", "tcgen05", Tc::kYes),
    Mm("tensor_core_gemm", "tensorop", Tc::kYes, Prec::kUnknown, {}, "subtensorop"),  // MIOpen copy
    Mm("tensor_core_gemm", "tensor_op", Tc::kYes),
    Mm("tensor_core_gemm", "wmma", Tc::kYes),
    Mm("tensor_core_gemm", "mfma", Tc::kYes),
    // fp32 on the SIMT units (the detectors' AMP/TF32 candidates).
    Mm("fp32_gemm", "sgemm", Tc::kNo, Prec::kFp32),   // ampere_sgemm, implicit_convolve_sgemm
    Mm("fp32_gemm", "gemmsn", Tc::kNo, Prec::kFp32),  // cuBLAS small-N gemmSN_*_kernel<float>
    Mm("fp32_gemm", "gemv2t", Tc::kNo, Prec::kFp32),
    Mm("fp32_gemm", "gemv2n", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "scudnn", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "winograd", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "fft2d_r2c", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "fft2d_c2r", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "fft_r2c", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "fft_c2r", Tc::kNo, Prec::kFp32),
    Mm("cudnn_conv", "fft1d_", Tc::kNo),              // cuDNN FFT convolution, 1-D passes
    Mm("cudnn_conv", "cask_cudnn", Tc::kFromTokens),  // cuDNN's kernel library (CASK)
    Mm("fft", "regular_fft", Tc::kNo),  // cuFFT (DSE::) kernels: FFT convolution in DL traces
    Mm("fft", "vector_fft", Tc::kNo),

    // 4. Elementwise families whose names contain copy words.
    Row("rotary_embedding", "rotary", Cls::kElementwise),
    Row("elementwise", "scal_kernel", Cls::kElementwise),  // cuBLAS scal (cublasTransposeParams args)

    // 5. Copies and data movement.
    Row("copy", "memcpy", Cls::kCopy),
    Row("copy", "direct_copy_kernel", Cls::kCopy),
    Row("copy", "copy_kernel", Cls::kCopy),
    Row("copy", "catarraybatchedcopy", Cls::kCopy),
    Row("copy", "cat_kernel", Cls::kCopy),
    Row("copy", "copy_device_to_device", Cls::kCopy),
    Row("copy", "reshape_and_cache", Cls::kCopy),  // vLLM KV-cache write
    Row("copy", "reformat", Cls::kCopy),           // TensorRT genericReformat::copy*Kernel
    Row("transpose", "transpose", Cls::kCopy),     // also MIOpen batched_transpose_*
    Row("transpose", "nchwtonhwc", Cls::kCopy),
    Row("transpose", "nhwctonchw", Cls::kCopy),
    Row("transpose", "permute", Cls::kCopy),
    Row("transpose", "subtensorop", Cls::kCopy),      // MIOpen SubTensorOpWithCastTensor*
    Row("transpose", "flip_filter", Cls::kCopy),      // cuDNN FFT convolution filter flip
    Row("transpose", "shuffleintensor", Cls::kCopy),  // TensorFlow transposes
    Row("transpose", "swapdimension", Cls::kCopy),
    Row("copy", "concat", Cls::kCopy),  // also XLA concatenate
    Row("gather_scatter", "index_select", Cls::kCopy),
    Row("gather_scatter", "gather_kernel", Cls::kCopy),
    Row("gather_scatter", "scatter_kernel", Cls::kCopy),
    Row("gather_scatter", "indexing_backward", Cls::kCopy),
    Row("gather_scatter", "index_put", Cls::kCopy),
    Row("gather_scatter", "bucketize", Cls::kCopy),         // FBGEMM sparse-feature bucketize
    Row("embedding", "embedding", Cls::kCopy),              // FBGEMM split_embedding_*, embedding_bag
    Row("embedding", "bounds_check_indices", Cls::kCopy),   // FBGEMM TBE index check
    Row("tcnn_encoding", "tcnn::kernel_grid", Cls::kCopy),  // tiny-cuda-nn hash-grid lookup (gathers)

    // 6. Triton / Inductor categories.
    Row("triton_pointwise", "triton_poi_", Cls::kElementwise),
    Row("triton_pointwise", "triton_for_", Cls::kElementwise),
    Row("triton_reduction", "triton_red_", Cls::kReduction),
    Row("triton_reduction", "triton_per_", Cls::kReduction),
    Row("triton_reduction", "triton_spl_", Cls::kReduction),
    Mm("triton_matmul", "^triton_", Tc::kYes, Prec::kUnknown, "mm"),

    // 7. Generic GEMM / convolution / attention words.
    Mm("gemm", "gemm", Tc::kFromTokens, Prec::kUnknown, {}, "fbgemm"),  // cgemm (FFT conv), rocBLAS;
                                                                    // FBGEMM is a library name
    Mm("gemm", "gemv", Tc::kFromTokens),
    Mm("gemm", "matmul", Tc::kFromTokens),
    Mm("gemm", "cublas", Tc::kFromTokens),
    Mm("conv", "conv", Tc::kFromTokens, Prec::kUnknown, {}, "convert"),
    Mm("conv", "wgrad", Tc::kFromTokens),
    Mm("conv", "dgrad", Tc::kFromTokens),
    Mm("conv", "fprop", Tc::kFromTokens),
    Mm("conv", "im2col", Tc::kFromTokens),
    Attn("attention", "attention", Tc::kNo),  // paged_attention, generic
    Attn("attention", "attn_", Tc::kNo),

    // 8. Reductions, norms, softmax, sorting, scans, pooling.
    Row("reduction", "reduce", Cls::kReduction),
    Row("reduction", "reduction", Cls::kReduction),  // nvfuser_reduction_*, ...
    Row("softmax", "softmax", Cls::kReduction),
    Row("norm", "normalization", Cls::kReduction),
    Row("norm", "batchnorm", Cls::kReduction),
    Row("norm", "layernorm", Cls::kReduction),
    Row("norm", "rmsnorm", Cls::kReduction),
    Row("norm", "groupnorm", Cls::kReduction),
    Row("norm", "norm", Cls::kReduction, {}, "normal"),  // layer_norm, batch_norm, rms_norm
    Row("norm", "bn_fw", Cls::kReduction),
    Row("norm", "bn_bw", Cls::kReduction),
    Row("norm", "welford", Cls::kReduction),
    Row("quantize_params", "qparam", Cls::kReduction),  // FBGEMM quantization min/max
    Row("norm", "gammabeta", Cls::kReduction),          // LayerNorm backward gamma/beta sums
    Row("reduction", "nvfuser_", Cls::kReduction, "persistent"),
    Row("scan_sort", "scan", Cls::kReduction),
    Row("scan_sort", "sort", Cls::kReduction),
    Row("scan_sort", "topk", Cls::kReduction),
    Row("scan_sort", "argmax", Cls::kReduction),
    Row("scan_sort", "argmin", Cls::kReduction),
    Row("scan_sort", "cub::", Cls::kReduction),
    Row("loss", "cross_entropy", Cls::kReduction),
    Row("loss", "nll_loss", Cls::kReduction),
    Row("pooling", "pool", Cls::kReduction),         // max/avg/adaptive pooling, cudnn pooling_fw
    Row("moe_routing", "routing", Cls::kReduction),  // TRT-LLM moe::dev::routing, triton_kernels
    Row("moe_routing", "moe::dev::finalize", Cls::kReduction),  // weighted top-k sum
    Row("moe_routing", "_sum_bitmatrix", Cls::kReduction),
    Row("autotune", "redzone_checker", Cls::kReduction),  // XLA/TF autotuner buffer check

    // 9. Elementwise. Random-number kernels first; they come this late
    // because "curand"/"philox" also appear in the template arguments of
    // other kernels (stochastic rounding in FBGEMM's embedding backward).
    Row("random", "distribution_", Cls::kElementwise),  // PyTorch distribution_elementwise_*
    Row("random", "curand", Cls::kElementwise),
    Row("random", "philox", Cls::kElementwise),
    Row("random", "threefry", Cls::kElementwise),  // JAX PRNG
    Row("elementwise", "elementwise", Cls::kElementwise),
    Row("elementwise", "pointwise", Cls::kElementwise),  // also nvfuser_pointwise
    Row("elementwise", "vectorized", Cls::kElementwise),
    Row("elementwise", "unrolled", Cls::kElementwise),
    Row("elementwise", "fill", Cls::kElementwise),
    Row("activation", "relu", Cls::kElementwise),
    Row("activation", "gelu", Cls::kElementwise),
    Row("activation", "silu", Cls::kElementwise),
    Row("activation", "swiglu", Cls::kElementwise),
    Row("activation", "activation", Cls::kElementwise),
    Row("elementwise", "dropout", Cls::kElementwise),
    Row("elementwise", "clamp", Cls::kElementwise),
    Row("quantize", "quant", Cls::kElementwise),     // fp8/int8 (de)quantize
    Row("quantize", "^convert", Cls::kElementwise),  // XLA convert, dtype conversions
    Row("quantize", "to_float", Cls::kElementwise),  // FBGEMM _FP8rowwise_to_float, _hfp8_to_float
    Row("quantize", "float_to_", Cls::kElementwise),
    Row("xla_fusion", "^loop_", Cls::kElementwise, "fusion"),  // XLA loop fusion
    Row("optimizer", "adam", Cls::kElementwise),               // fused optimizer steps are pointwise
    Row("optimizer", "sgd", Cls::kElementwise),
    Row("optimizer", "multi_tensor_apply", Cls::kElementwise),
    Row("elementwise", "eigenmetakernel", Cls::kElementwise),  // Eigen tensor expressions (TF)
    Row("elementwise", "biasnchwkernel", Cls::kElementwise),   // TensorFlow bias add
    Row("elementwise", "biasnhwckernel", Cls::kElementwise),
    Row("elementwise", "scalepackedtensor", Cls::kElementwise),  // cuDNN tensor scale
    Row("elementwise", "tcnn::kernel_sh", Cls::kElementwise),    // tiny-cuda-nn SH encoding

    // 10. Fallbacks.
    Row("copy", "copy", Cls::kCopy),
    Row("gather_scatter", "gather", Cls::kCopy),
    Row("gather_scatter", "scatter", Cls::kCopy),
    Row("gather_scatter", "index", Cls::kCopy),
    Row("elementwise", "vectoradd", Cls::kElementwise),
    Row("elementwise", "add_kernel", Cls::kElementwise),
    Row("elementwise", "mul_kernel", Cls::kElementwise),
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
    {"sgemm", Prec::kFp32},   {"scudnn", Prec::kFp32},   {"gemmsn", Prec::kFp32},    {"gemv2t", Prec::kFp32},
    {"gemv2n", Prec::kFp32},  {"winograd", Prec::kFp32}, {"fft2d_r2c", Prec::kFp32}, {"fft2d_c2r", Prec::kFp32},
    {"fft_r2c", Prec::kFp32}, {"fft_c2r", Prec::kFp32},  {"gemm_f32", Prec::kFp32},  {"_f32f32", Prec::kFp32},
    {"tf32", Prec::kTf32},    {"e4m3", Prec::kFp8},      {"e5m2", Prec::kFp8},       {"fp8", Prec::kFp8},
    {"mxfp", Prec::kFp8},     {"nvfp4", Prec::kFp8},     {"bf16", Prec::kBf16},      {"bfloat16", Prec::kBf16},
    {"f16", Prec::kFp16},     {"fp16", Prec::kFp16},     {"half", Prec::kFp16},      {"h884", Prec::kFp16},
    {"h1688", Prec::kFp16},   {"h16816", Prec::kFp16},   {"hgemm", Prec::kFp16},     {"int8", Prec::kInt8},
    {"i8816", Prec::kInt8},   {"imma", Prec::kInt8},     {"dgemm", Prec::kFp64},     {"f64", Prec::kFp64},
    {"fp64", Prec::kFp64},
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

bool HasTensorCoreToken(std::string_view s) {
  if (s.find("simt") != std::string_view::npos) return false;  // SIMT variants share prefixes
  return std::any_of(std::begin(kTensorCoreTokens), std::end(kTensorCoreTokens),
                     [&](std::string_view t) { return s.find(t) != std::string_view::npos; });
}

KernelPrecision PrecisionFromTokens(std::string_view s) {
  for (const PrecisionToken& t : kPrecisionTokens)
    if (s.find(t.token) != std::string_view::npos) return t.precision;
  return Prec::kUnknown;
}

bool TritonName(std::string_view name) {
  if (name.starts_with("triton_") || name == "triton") return true;
  // "void triton_poi_fused_..." or "ns::triton_..." forms.
  const size_t p = name.find("triton_");
  return p != std::string_view::npos && p > 0 && (name[p - 1] == ' ' || name[p - 1] == ':');
}

KernelInfo ClassifyDemangled(std::string_view demangled) {
  std::string lower = AsciiLower(demangled);
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
        r.tensor_core == Tc::kYes || (r.tensor_core == Tc::kFromTokens && HasTensorCoreToken(s));
    info.precision = r.precision != Prec::kUnknown ? r.precision : PrecisionFromTokens(s);
    // Only GEMM/conv names state a compute precision worth reporting.
    if (r.kernel_class != Cls::kGemmConv) info.precision = Prec::kUnknown;
    return info;
  }
  return info;
}

}  // namespace

std::string_view ToString(KernelClass c) {
  switch (c) {
    case Cls::kGemmConv:
      return "gemm_conv";
    case Cls::kElementwise:
      return "elementwise";
    case Cls::kReduction:
      return "reduction";
    case Cls::kCopy:
      return "copy";
    case Cls::kCommunication:
      return "communication";
    case Cls::kOther:
      break;
  }
  return "other";
}

std::string_view ToString(KernelPrecision p) {
  switch (p) {
    case Prec::kFp32:
      return "fp32";
    case Prec::kTf32:
      return "tf32";
    case Prec::kFp16:
      return "fp16";
    case Prec::kBf16:
      return "bf16";
    case Prec::kFp8:
      return "fp8";
    case Prec::kInt8:
      return "int8";
    case Prec::kFp64:
      return "fp64";
    case Prec::kUnknown:
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
  return ClassifyKernelName(name).kernel_class == Cls::kCommunication;
}
bool IsFp32GemmOrConv(std::string_view name) {
  return ClassifyKernelName(name).Fp32WithoutTensorCores();
}

bool IsTritonKernel(std::string_view name) {
  if (IsMangledName(name)) return TritonName(Demangle(name));
  return TritonName(name);
}

bool IsMemoryBoundClass(KernelClass c) {
  return c == Cls::kElementwise || c == Cls::kReduction || c == Cls::kCopy;
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
