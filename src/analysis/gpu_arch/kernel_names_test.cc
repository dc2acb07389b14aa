#include "analysis/gpu_arch/kernel_names.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

TEST(KernelNamesTest, ClassesFromRealKernelNames) {
  EXPECT_EQ(ClassifyKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernel("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernel("void deep_ep::intranode::dispatch<8, 768>(...)"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernel("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>"),
            KernelClass::kGemmConv);
  EXPECT_EQ(ClassifyKernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"),
            KernelClass::kGemmConv);
  EXPECT_EQ(ClassifyKernel("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT"), KernelClass::kGemmConv);
  EXPECT_EQ(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, ...>"),
            KernelClass::kElementwise);
  EXPECT_EQ(ClassifyKernel("void at::native::reduce_kernel<512, 1, ...>"),
            KernelClass::kReduction);
  EXPECT_EQ(ClassifyKernel("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512>"),
            KernelClass::kReduction);
  EXPECT_EQ(ClassifyKernel("void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>"),
            KernelClass::kCopy);
  EXPECT_EQ(ClassifyKernel("triton_poi_fused_add_mul_0"), KernelClass::kElementwise);
  EXPECT_EQ(ClassifyKernel("triton_red_fused_native_layer_norm_1"), KernelClass::kReduction);
  EXPECT_EQ(ClassifyKernel("triton_tem_fused_mm_3"), KernelClass::kGemmConv);
  EXPECT_EQ(ClassifyKernel("some_unknown_kernel"), KernelClass::kOther);
}

TEST(KernelNamesTest, TensorCoresIncludeHopperAndBlackwellFamilies) {
  EXPECT_TRUE(UsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_TRUE(UsesTensorCores("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
  EXPECT_TRUE(UsesTensorCores("sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc"));
  EXPECT_TRUE(UsesTensorCores("void cutlass::device_kernel<cutlass3x_sm90_tensorop_gemm...>"));
  EXPECT_TRUE(UsesTensorCores("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT"));
  EXPECT_TRUE(UsesTensorCores("void flash_fwd_kernel<Flash_fwd_kernel_traits<...>>"));
  EXPECT_TRUE(UsesTensorCores("sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tcgen05"));
  EXPECT_FALSE(UsesTensorCores("ampere_sgemm_128x64_nn"));
  EXPECT_FALSE(UsesTensorCores("cutlass_80_simt_sgemm_128x128_8x4_nn_align1"));
  EXPECT_FALSE(UsesTensorCores("void at::native::vectorized_elementwise_kernel<4>"));
}

TEST(KernelNamesTest, TbPluginAllowlistMissesSm90FpropButKeepsXmmaGemm) {
  // pytorch/kineto#1041: "xmma_fprop_implicit_gemm" is not in the allowlist.
  EXPECT_FALSE(TbPluginUsesTensorCores("sm90_xmma_fprop_implicit_gemm_bf16bf16"));
  EXPECT_TRUE(UsesTensorCores("sm90_xmma_fprop_implicit_gemm_bf16bf16"));
  EXPECT_TRUE(TbPluginUsesTensorCores("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n"));
  EXPECT_TRUE(TbPluginUsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_FALSE(TbPluginUsesTensorCores("VOLTA_H884GEMM"));  // the plugin is case-sensitive
  EXPECT_EQ(TbPluginTensorCoreAllowlist().size(), 18u);
}

TEST(KernelNamesTest, TritonDetection) {
  EXPECT_TRUE(IsTritonKernel("triton_poi_fused_add_0"));
  EXPECT_TRUE(IsTritonKernel("triton_"));
  EXPECT_TRUE(IsTritonKernel("void triton_red_fused_sum_1"));
  EXPECT_FALSE(IsTritonKernel("my_triton_like_kernel"));
  EXPECT_FALSE(IsTritonKernel("ampere_sgemm_128x64_nn"));
  EXPECT_EQ(ToString(KernelClass::kGemmConv), "gemm_conv");
}

}  // namespace
}  // namespace gpuwhy::analysis
