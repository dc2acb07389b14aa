#include "analysis/gpu_arch/kernel_taxonomy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace gpuwhy::analysis {
namespace {

using K = KernelClass;

// Case: a kernel name and the answer read off the name by hand.
struct Case {
  std::string_view name;
  K kernel_class;
  bool tensor_core;
  std::string_view family;
};

// Known answers: at least one name for every row of the table (checked
// below), real names from the shared traces where one exists.
constexpr Case kCases[] = {
    // Communication.
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", K::kCommunication,
     false, "nccl"},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     K::kCommunication, false, "nccl"},
    {"rcclGenericKernel<4096>", K::kCommunication, false, "rccl"},
    {"mscclKernel_Sum_float_Simple_false", K::kCommunication, false, "msccl"},
    {"nvshmemi_signal_op_kernel", K::kCommunication, false, "nvshmem"},
    {"ucc_ec_cuda_executor_kernel", K::kCommunication, false, "ucc"},
    {"(anonymous namespace)::ucc_tl_cuda_alltoallv_kernel", K::kCommunication, false, "ucc"},
    {"ns::ucc_ec_cuda_reduce", K::kCommunication, false, "ucc"},
    {"void deep_ep::intranode::dispatch<8, 768, 8192>(void*)", K::kCommunication, false,
     "expert_parallel"},
    {"_ZN7deep_ep9intranode8dispatchILi8ELi768ELi8192EEEvPv", K::kCommunication, false,
     "expert_parallel"},
    {"void _ZN7deep_ep9internode7combineILi8EEEvPvi", K::kCommunication, false, "expert_parallel"},
    {"_ZN7deep_ep9intranode15notify_dispatchEPKiPii", K::kCommunication, false, "expert_parallel"},
    {"void uccl::ep::dispatch_kernel<8>(void*)", K::kCommunication, false, "expert_parallel"},
    {"void uccl::ep::combine_kernel<8>(void*)", K::kCommunication, false, "expert_parallel"},
    {"void uccl::ep::internode::notify_counts(int*)", K::kCommunication, false, "expert_parallel"},
    {"void ep::intranode::dispatch<8, 768>(void*)", K::kCommunication, false, "expert_parallel"},
    {"void ep::internode::combine<bf16>(void*)", K::kCommunication, false, "expert_parallel"},
    {"ep::internode::notify_counts(int const*, int*, int)", K::kCommunication, false,
     "expert_parallel"},
    {"void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(int)", K::kCommunication, false,
     "expert_parallel"},
    {"void mori::moe::EpCombineIntraNodeKernel<float>(int)", K::kCommunication, false,
     "expert_parallel"},
    {"void pplx::dispatchKernel<16>(int)", K::kCommunication, false, "expert_parallel"},
    {"void pplx::combineKernel<16>(int)", K::kCommunication, false, "expert_parallel"},
    {"moe_dispatch_kernel", K::kCommunication, false, "expert_parallel"},
    {"moe_combine_kernel", K::kCommunication, false, "expert_parallel"},
    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
     "vllm::Signal*, __nv_bfloat16*, int, int)",
     K::kCommunication, false, "custom_all_reduce"},
    {"void vllm::cross_device_reduce_2stage<float, 8>(int)", K::kCommunication, false,
     "custom_all_reduce"},
    {"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>("
     "tensorrt_llm::kernels::AllReduceParams)",
     K::kCommunication, false, "custom_all_reduce"},
    {"void tensorrt_llm::kernels::twoShotAllReduceKernel<float, 4>(int)", K::kCommunication, false,
     "custom_all_reduce"},
    {"void tensorrt_llm::kernels::allReduceKernel<float>(int)", K::kCommunication, false,
     "custom_all_reduce"},
    {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
     "unsigned long, unsigned int**, unsigned long, unsigned long)",
     K::kCommunication, false, "custom_all_reduce"},
    {"void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(int)", K::kCommunication,
     false, "custom_all_reduce"},
    {"void tensorrt_llm::kernels::lamportInitializeKernel<float>(float*, unsigned long)",
     K::kCommunication, false, "custom_all_reduce"},
    {"userbuffers_fp16_sum_inplace_gpu_rw(int, int, int, int, int, void**, int, unsigned long)",
     K::kCommunication, false, "custom_all_reduce"},
    {"allgather_kernel<8>", K::kCommunication, false, "collective"},
    {"multimem_all_gather_kernel<8>", K::kCommunication, false, "collective"},
    {"reducescatter_kernel", K::kCommunication, false, "collective"},
    {"reduce_scatter_kernel<float>", K::kCommunication, false, "collective"},
    {"alltoall_kernel", K::kCommunication, false, "collective"},
    {"all_to_all_v_kernel", K::kCommunication, false, "collective"},
    {"sendrecv_kernel", K::kCommunication, false, "collective"},
    {"all-reduce-start", K::kCommunication, false, "xla_collective"},
    {"all-gather-done.1", K::kCommunication, false, "xla_collective"},
    {"reduce-scatter.3", K::kCommunication, false, "xla_collective"},
    {"all-to-all-start.2", K::kCommunication, false, "xla_collective"},
    {"collective-permute-done", K::kCommunication, false, "xla_collective"},
    {"collective-broadcast.1", K::kCommunication, false, "xla_collective"},

    // Attention.
    {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, "
     "4, false, false, cutlass::bfloat16_t>, false, true>(pytorch_flash::Flash_fwd_params)",
     K::kGemmConv, true, "flash_attention"},
    {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64>>(int)",
     K::kGemmConv, true, "flash_attention"},
    {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<int>>>("
     "int)",
     K::kGemmConv, true, "flash_attention"},
    {"FlashAttnFwdSm90<int>", K::kGemmConv, true, "flash_attention"},
    {"flash_attn_varlen_kernel", K::kGemmConv, true, "flash_attention"},
    {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<int>(int)", K::kGemmConv, true,
     "flashinfer"},
    {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<int>(int)", K::kGemmConv, true,
     "flashinfer"},
    {"void flashinfer::mla::BatchMLAPagedAttentionKernel<int>(int)", K::kGemmConv, true,
     "flashinfer"},
    {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
     "cutlass::half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     K::kGemmConv, true, "fmha"},
    {"_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelIiEEEEvT0_", K::kGemmConv, true, "fmha"},
    {"mha_fwd_kvcache_kernel", K::kGemmConv, true, "fmha"},
    {"mha_bwd_dq_kernel", K::kGemmConv, true, "fmha"},
    {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_"
     "0",
     K::kGemmConv, true, "cudnn_sdpa"},
    {"attn_fwd", K::kGemmConv, true, "triton_attention"},
    {"_attn_bwd", K::kGemmConv, true, "triton_attention"},
    {"kernel_unified_attention_3d", K::kGemmConv, true, "triton_attention"},
    {"aiter::mla_attn_kernel", K::kGemmConv, true, "aiter_attention"},
    {"aiter::pa_bf16_kernel", K::kGemmConv, true, "aiter_attention"},

    // GEMM / convolution libraries.
    {"cutlass_80_simt_sgemm_128x128_8x4_nn_align1", K::kGemmConv, false, "simt_gemm"},
    {"cutlass_simt_sconv2d_fprop_optimized_128x128_8x2_nhwc", K::kGemmConv, false, "simt_gemm"},
    {"void deep_gemm::fp8_gemm_kernel<128, 128, 128>(int)", K::kGemmConv, true, "deep_gemm"},
    {"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN", K::kGemmConv, true, "cublas"},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     K::kGemmConv, true, "cublas"},
    {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn",
     K::kGemmConv, true, "cublas"},
    {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_"
     "transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
     K::kGemmConv, true, "trtllm_gen"},
    {"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_LDSB1_AFC1_AFEM1", K::kGemmConv, true,
     "tensile_mfma"},
    {"Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
     "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_"
     "LBSPPA1024_LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_4_MO40",
     K::kGemmConv, true, "tensile_mfma"},
    {"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_AMAS3_BL1_GRVW4_LPA0_MIAV0_MIWT1_1_PGR1", K::kGemmConv, false,
     "tensile"},
    {"Cijk_Ailk_Bljk_HB_MT32x32x16_MI0x0x0x0_SN", K::kGemmConv, false, "tensile"},
    {"_ZN7ck_tile6kentryILi1ENS_10GemmKernelIiEEEEvT0_", K::kGemmConv, true, "composable_kernel"},
    {"_ZN2ck27kernel_gemm_xdl_cshuffle_v3IiEEvT_", K::kGemmConv, true, "composable_kernel"},
    {"void ck::kernel_gemm_wmma<int>(int)", K::kGemmConv, true, "composable_kernel"},
    {"void ck::kernel_gemm_dl_v1r3<int>(int)", K::kGemmConv, false, "composable_kernel"},
    {"void ck::kernel_grouped_conv_bwd_weight_dl<int>(int)", K::kGemmConv, false,
     "composable_kernel"},
    {"aiter::gemm_a8w8_bpreshuffle_kernel", K::kGemmConv, true, "aiter_gemm"},
    {"_ZN5aiter21fmoe_bf16_g1u1_kernelEPv", K::kGemmConv, true, "aiter_gemm"},
    {"igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16_wt32x32x8_ws2x1_wr2x2_ta1x4x1x4_1x4x1x64_"
     "tb1x4x1x2_1x4x1x64_gkgs",
     K::kGemmConv, true, "miopen_igemm"},
    {"igemm_fwd_gtc_nhwc_fp16_bx0_ex0_bt128x64x16", K::kGemmConv, false, "miopen_igemm"},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>("
     "cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1::Params)",
     K::kGemmConv, true, "cutlass"},
    {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
     K::kGemmConv, true, "cutlass"},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
     "MainloopSm90TmaGmmaWarpSpecialized<4>>>(int)",
     K::kGemmConv, true, "cutlass"},
    {"cutlass3x_sm90_tensorop_h64x128x16gemm_f16_f16_f32_void_f16_128x128x64_1x2x1_0_tnn_align8",
     K::kGemmConv, true, "cutlass"},
    {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8", K::kGemmConv, true,
     "cutlass"},
    {"void device_kernel<GemmUniversal<MainloopSm90TmaGmma>>(int)", K::kGemmConv, true, "cutlass"},
    {"triton_tem_fused_mm_3", K::kGemmConv, true, "triton_matmul"},
    {"matmul_kernel", K::kGemmConv, true, "triton_matmul"},
    {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", K::kGemmConv, true, "triton_matmul"},
    {"fused_moe_kernel", K::kGemmConv, true, "triton_matmul"},
    {"void tcnn::kernel_mlp_fused<64, 8, __half, (tcnn::Activation)0, true>(tcnn::Activation, "
     "__half const*, nvcuda::wmma::layout_t)",
     K::kGemmConv, true, "tcnn_mlp"},
    {"dgrad_1x1_stride_2x2", K::kGemmConv, true, "cudnn_conv"},
    {"first_layer_wgrad_kernel", K::kGemmConv, true, "cudnn_conv"},
    {"conv2d_c1_k1_nhwc_kernel", K::kGemmConv, true, "cudnn_conv"},
    {"volta_h884gemm_64x64_ldg8_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"volta_s884gemm_fp16_128x128_ldg8_f2f_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"turing_h1688gemm_256x128_ldg8_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"turing_s1688gemm_fp16_128x128_ldg8_f2f_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"ampere_c1688gemm_64x64_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"turing_i8816gemm_int8_128x128_ldg16_relu_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn", K::kGemmConv, true,
     "tensor_core_gemm"},
    {"ampere_bf16_s161616gemm_bf16_32x32_128x2_nn", K::kGemmConv, true, "tensor_core_gemm"},
    {"volta_hmma_gemm_kernel", K::kGemmConv, true, "tensor_core_gemm"},
    {"turing_imma_int8_kernel", K::kGemmConv, true, "tensor_core_gemm"},
    {"wgmma_gemm_kernel_f16", K::kGemmConv, true, "tensor_core_gemm"},
    {"sm100_tcgen05_kernel", K::kGemmConv, true, "tensor_core_gemm"},
    {"ampere_tensorop_kernel", K::kGemmConv, true, "tensor_core_gemm"},
    {"some_tensor_op_kernel", K::kGemmConv, true, "tensor_core_gemm"},
    {"wmma_kernel<half>", K::kGemmConv, true, "tensor_core_gemm"},
    {"mfma_kernel_f32", K::kGemmConv, true, "tensor_core_gemm"},
    {"ampere_sgemm_128x64_nn", K::kGemmConv, false, "fp32_gemm"},
    {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int)",
     K::kGemmConv, false, "fp32_gemm"},
    {"void gemmSN_TN_kernel_64addr<float, 128, 16, 2, 4, 8, 9, false>(int)", K::kGemmConv, false,
     "fp32_gemm"},
    {"void gemv2T_kernel_val<int, int, float2, float2, float2, 128, 16, 2, 2, false, false>(int)",
     K::kGemmConv, false, "fp32_gemm"},
    {"void gemv2N_kernel<int, int, float, float, float, 128, 32, 4, 4, false>(int)", K::kGemmConv,
     false, "fp32_gemm"},
    {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", K::kGemmConv, false, "cudnn_conv"},
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(int)", K::kGemmConv,
     false, "cudnn_conv"},
    {"void fft2d_r2c_32x32<float, false, 1u, true>(float2*)", K::kGemmConv, false, "cudnn_conv"},
    {"void fft2d_c2r_32x32<float, false, false, 0u, false, false>(float*)", K::kGemmConv, false,
     "cudnn_conv"},
    {"void fft_r2c_16x16<float>(int)", K::kGemmConv, false, "cudnn_conv"},
    {"void fft_c2r_16x16<float>(int)", K::kGemmConv, false, "cudnn_conv"},
    {"void fft1d_r2c_32<__half, float, float2, true, false>(float2*, __half const*, int, int3)",
     K::kGemmConv, false, "cudnn_conv"},
    {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", K::kGemmConv, false,
     "cudnn_conv"},
    {"void DSE::regular_fft_pad<0, 1, 128, 16, 32, 1, float, float, float2>(float2*)", K::kGemmConv,
     false, "fft"},
    {"void DSE::vector_fft<0, 1, 128, 8, 8, 1, float, float, float2>(float2*)", K::kGemmConv, false,
     "fft"},

    // Elementwise families with copy words.
    {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)", K::kElementwise, false,
     "rotary_embedding"},
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
     "4, at::native::templates::cuda::normal_and_transform<float, float>>(int)",
     K::kElementwise, false, "random"},
    {"void generate_seed_pseudo<rng_config<curandStateXORWOW, (curandOrdering)101>>(unsigned "
     "long long)",
     K::kElementwise, false, "random"},
    {"philox_random_kernel", K::kElementwise, false, "random"},
    {"jax::(anonymous namespace)::ThreeFry2x32Kernel(const unsigned int *)", K::kElementwise, false,
     "random"},

    // Copies.
    {"void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, float "
     "const*, float*, float const*)",
     K::kElementwise, false, "elementwise"},
    {"void cuda::memcpy_kernel<4>(int)", K::kCopy, false, "copy"},
    {"void genericReformat::copyVectorizedKernel<double, __half, __half, (bool)1, (bool)0, "
     "(int)1>(unsigned int, const void *, genericReformat::ArrayN<4>)",
     K::kCopy, false, "copy"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>>(int)",
     K::kCopy, false, "copy"},
    {"void at::native::(anonymous namespace)::copy_kernel<float>(int)", K::kCopy, false, "copy"},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>("
     "float*)",
     K::kCopy, false, "copy"},
    {"cat_kernel<float>", K::kCopy, false, "copy"},
    {"copy_device_to_device", K::kCopy, false, "copy"},
    {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>(int)", K::kCopy, false, "copy"},
    {"batched_transpose_16x32_half", K::kCopy, false, "transpose"},
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
     "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
     K::kCopy, false, "transpose"},
    {"void cudnn::ops::nhwcToNchwKernel<float>(int)", K::kCopy, false, "transpose"},
    {"void permute_pooled_embs_kernel<float>(float const*, long const*)", K::kCopy, false,
     "transpose"},
    {"SubTensorOpWithCastTensor1d", K::kCopy, false, "transpose"},
    {"void flip_filter<float, float>(float*, float const*, int, int, int, int)", K::kCopy, false,
     "transpose"},
    {"void tensorflow::functor::ShuffleInTensor3Simple<float, 2, 1, 0, false>(int)", K::kCopy,
     false, "transpose"},
    {"void tensorflow::functor::SwapDimension1And2InTensor3UsingTiles<unsigned int, 256>(int)",
     K::kCopy, false, "transpose"},
    {"concatenate_3", K::kCopy, false, "copy"},
    {"index_select_kernel<float>", K::kCopy, false, "gather_scatter"},
    {"gather_kernel<float>", K::kCopy, false, "gather_scatter"},
    {"scatter_kernel<float>", K::kCopy, false, "gather_scatter"},
    {"void at::native::(anonymous namespace)::indexing_backward_kernel<float, 4>(int)", K::kCopy,
     false, "gather_scatter"},
    {"index_put_kernel", K::kCopy, false, "gather_scatter"},
    {"void fbgemm_gpu::_block_bucketize_sparse_features_cuda_kernel1<int, int>(int)", K::kCopy,
     false, "gather_scatter"},
    {"void split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 2ul>(int)",
     K::kCopy, false, "embedding"},
    {"void bounds_check_indices_kernel<long>(int)", K::kCopy, false, "embedding"},
    {"void tcnn::kernel_grid<__half, (unsigned int)3, (unsigned int)4, (tcnn::HashType)1>("
     "unsigned int)",
     K::kCopy, false, "tcnn_encoding"},

    // Triton / Inductor.
    {"triton_poi_fused_addmm_relu_0", K::kElementwise, false, "triton_pointwise"},
    {"triton_for_fused_1", K::kElementwise, false, "triton_pointwise"},
    {"triton_red_fused_native_layer_norm_1", K::kReduction, false, "triton_reduction"},
    {"triton_per_fused_sum_2", K::kReduction, false, "triton_reduction"},
    {"triton_spl_fused_3", K::kReduction, false, "triton_reduction"},
    {"triton_mm_plus_mm_0", K::kGemmConv, true, "triton_matmul"},

    // Generic GEMM / conv / attention words.
    {"volta_gcgemm_32x32_nt", K::kGemmConv, false, "gemm"},
    {"void gemvNSP_kernel<float>(int)", K::kGemmConv, false, "gemm"},
    {"matmul_fp32_naive(float*)", K::kGemmConv, false, "gemm"},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float>(int)", K::kGemmConv, false, "gemm"},
    {"void at::native::conv_depthwise2d_forward_kernel<3, float, int>(int)", K::kGemmConv, false,
     "conv"},
    {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int)", K::kGemmConv,
     false, "conv"},
    {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int)", K::kGemmConv, false,
     "conv"},
    {"cudnn::engines_precompiled::fprop_kernel", K::kGemmConv, false, "conv"},
    {"void cudnn::cnn::im2col4d_kernel<__half, long>(int)", K::kGemmConv, false, "conv"},
    {"void vllm::paged_attention_v1_kernel<unsigned short, 128>(int)", K::kGemmConv, false,
     "attention"},
    {"sparse_attn_kernel", K::kGemmConv, false, "attention"},

    // Reductions.
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(int)", K::kReduction,
     false, "reduction"},
    {"void <unnamed>::softmax_warp_forward<float, float, float, (int)11>(float*)", K::kReduction,
     false, "softmax"},
    {"instance_normalization_kernel", K::kReduction, false, "norm"},
    {"MIOpenBatchNormFwdTrainSpatial", K::kReduction, false, "norm"},
    {"LayerNormFwdKernel", K::kReduction, false, "norm"},
    {"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2d"
     "FwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi"
     "1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb"
     "0ELNS_21Rmsnorm2dFusedAddEnumE0ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_22Rmsnorm2dSensitive"
     "EnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2"
     "DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_",
     K::kReduction, false, "norm"},
    {"GroupNormKernel", K::kReduction, false, "norm"},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>("
     "int)",
     K::kReduction, false, "norm"},
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512>(int)", K::kReduction, false,
     "norm"},
    {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float)", K::kReduction,
     false, "norm"},
    {"welford_kernel", K::kReduction, false, "norm"},
    {"void fbgemm_gpu::(anonymous namespace)::_get_FP8_qparam_cuda_kernel<float>(float const*, "
     "int, int, unsigned char*, float*, bool)",
     K::kReduction, false, "quantize_params"},
    {"<unnamed>::nvfuser_reduction_f0_c1_r0_g3(<unnamed>::Tensor<float, (int)2, (int)2>)",
     K::kReduction, false, "reduction"},
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long)",
     K::kReduction, false, "norm"},
    {"<unnamed>::nvfuser_inner_persistent_f1_c1_r0_g2(<unnamed>::Tensor<float, (int)2, (int)2>)",
     K::kReduction, false, "reduction"},
    {"void cub::DeviceScanKernel<int>(int)", K::kReduction, false, "scan_sort"},
    {"void cub::DeviceRadixSortOnesweepKernel<int>(int)", K::kReduction, false, "scan_sort"},
    {"gatherTopK<float>", K::kReduction, false, "scan_sort"},
    {"argmax_kernel", K::kReduction, false, "scan_sort"},
    {"argmin_kernel", K::kReduction, false, "scan_sort"},
    {"void cub::DeviceSelectSweepKernel<int>(int)", K::kReduction, false, "scan_sort"},
    {"cross_entropy_loss_kernel", K::kReduction, false, "loss"},
    {"nll_loss_backward_kernel", K::kReduction, false, "loss"},
    {"void cudnn::detail::pooling_fw_4d_kernel<float, float>(int)", K::kReduction, false,
     "pooling"},
    {"sm50_xmma_pooling_coalescedC_NHWC_kMAX_3_False_execute_kernel_trt", K::kReduction, false,
     "pooling"},
    {"void moe::dev::routing::routingIndicesHistogramKernel<int>(int)", K::kReduction, false,
     "moe_routing"},
    {"void moe::dev::finalize::finalizeKernelVecLoad<int>(int)", K::kReduction, false,
     "moe_routing"},
    {"_sum_bitmatrix_rows", K::kReduction, false, "moe_routing"},
    {"redzone_checker", K::kReduction, false, "autotune"},

    // Elementwise.
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3>)",
     K::kElementwise, false, "elementwise"},
    {"<unnamed>::nvfuser_pointwise_f0_c1_r0_g0(<unnamed>::Tensor<float, (int)2, (int)2>)",
     K::kElementwise, false, "elementwise"},
    {"vectorized_templated_kernel", K::kElementwise, false, "elementwise"},
    {"unrolled_kernel", K::kElementwise, false, "elementwise"},
    {"fill_kernel(int, float, float*, int)", K::kElementwise, false, "elementwise"},
    {"relu_kernel", K::kElementwise, false, "activation"},
    {"GeluCUDAKernelImpl", K::kElementwise, false, "activation"},
    {"silu_and_mul_kernel", K::kElementwise, false, "activation"},
    {"swiglu_kernel", K::kElementwise, false, "activation"},
    {"activation_kernel", K::kElementwise, false, "activation"},
    {"fused_dropout_kernel", K::kElementwise, false, "elementwise"},
    {"clamp_kernel", K::kElementwise, false, "elementwise"},
    {"void vllm::scaled_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>(int)", K::kElementwise,
     false, "quantize"},
    {"convert_2", K::kElementwise, false, "quantize"},
    // FBGEMM's name has "gemm" in it; its quantize kernels are not GEMMs.
    {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float "
     "const*, float const*, int, int, unsigned char*, bool)",
     K::kElementwise, false, "quantize"},
    {"void fbgemm_gpu::(anonymous namespace)::_FP8rowwise_to_float_cuda_kernel<float>(unsigned "
     "char const*, int, int, float*, bool)",
     K::kElementwise, false, "quantize"},
    {"void fbgemm_gpu::float_to_bfloat16_kernel(float const*)", K::kElementwise, false, "quantize"},
    {"void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_float_to_hfp8_gpu("
     "at::Tensor const&, long, long, double)::{lambda(float)#1}>(int)",
     K::kElementwise, false, "elementwise"},
    {"loop_add_fusion", K::kElementwise, false, "xla_fusion"},
    {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float>(int)",
     K::kElementwise, false, "optimizer"},
    {"sgd_kernel", K::kElementwise, false, "optimizer"},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>, "
     "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(int)",
     K::kElementwise, false, "optimizer"},
    {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<int>, int>(int)",
     K::kElementwise, false, "elementwise"},
    {"void tensorflow::BiasNCHWKernel<float>(int, float const*, float const*, float*, int, int)",
     K::kElementwise, false, "elementwise"},
    {"void tensorflow::BiasNHWCKernel<float>(int)", K::kElementwise, false, "elementwise"},
    {"void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)",
     K::kElementwise, false, "elementwise"},
    {"void tcnn::kernel_sh<__half>(unsigned int, unsigned int, unsigned int)", K::kElementwise,
     false, "elementwise"},

    // Fallbacks.
    {"copy_blocks", K::kCopy, false, "copy"},
    {"gatherKernel", K::kCopy, false, "gather_scatter"},
    {"scatterKernel", K::kCopy, false, "gather_scatter"},
    {"indexFuncLargeIndex", K::kCopy, false, "gather_scatter"},
    {"kernVectorAdd(const float *, const float *, float *, int)", K::kElementwise, false,
     "elementwise"},
    {"add_kernel", K::kElementwise, false, "elementwise"},
    {"mul_kernel", K::kElementwise, false, "elementwise"},

    // Custom kernels stay other.
    {"busy_kernel(float)", K::kOther, false, "other"},
    {"at::cuda::(anonymous namespace)::spin_kernel(long)", K::kOther, false, "other"},
    {"fusion", K::kOther, false, "other"},
    {"ptxcall_anonymous25_1", K::kOther, false, "other"},
    {"ngp::compact_kernel_nerf(unsigned int, glm::vec<(int)4, float, (glm::qualifier)0> *)",
     K::kOther, false, "other"},
    {"triton__0d1d2d3d4d5d", K::kOther, false, "other"},  // old Inductor names say no category
    {"", K::kOther, false, "other"},
};

TEST(KernelTaxonomyTest, KnownAnswers) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.name));
    KernelInfo info = ClassifyKernelName(c.name);
    EXPECT_EQ(ToString(info.kernel_class), ToString(c.kernel_class));
    EXPECT_EQ(info.tensor_core, c.tensor_core);
    EXPECT_EQ(info.family, c.family);
    EXPECT_EQ(info.tensor_core, UsesTensorCores(c.name));
    EXPECT_EQ(info.kernel_class == K::kCommunication, IsCommKernel(c.name));
    // Tensor cores only ever on GEMM/conv/attention rows.
    if (info.tensor_core) {
      EXPECT_EQ(info.kernel_class, K::kGemmConv);
    }
  }
}

TEST(KernelTaxonomyTest, EveryRowHasAKnownAnswer) {
  std::set<int> hit;
  for (const Case& c : kCases) hit.insert(ClassifyKernelName(c.name).rule);
  const auto rules = KernelFamilyRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    EXPECT_TRUE(hit.count(static_cast<int>(i)))
        << "row " << i << " (" << rules[i].family << ", '" << rules[i].pattern << "' + '"
        << rules[i].also << "') has no case";
  }
}

TEST(KernelTaxonomyTest, RowsAreWellFormed) {
  std::set<std::string_view> families;
  for (const KernelFamilyRule& r : KernelFamilyRules()) {
    EXPECT_FALSE(r.family.empty());
    EXPECT_FALSE(r.pattern.empty()) << r.family;
    for (std::string_view p : {r.pattern, r.also, r.unless})
      for (char ch : p) EXPECT_FALSE(ch >= 'A' && ch <= 'Z') << r.family << ": " << p;
    if (r.tensor_core != TensorCoreRule::kNo) {
      EXPECT_EQ(r.kernel_class, K::kGemmConv) << r.family;
    }
    if (r.attention) {
      EXPECT_EQ(r.kernel_class, K::kGemmConv) << r.family;
    }
    EXPECT_NE(r.kernel_class, K::kOther) << r.family;  // other means "no row matched"
    families.insert(r.family);
  }
  EXPECT_FALSE(families.count("other"));
}

// docs/kernel_taxonomy.md lists every family of the table.
TEST(KernelTaxonomyTest, EveryFamilyIsDocumented) {
  std::ifstream in(std::string(GPUWHY_SOURCE_DIR) + "/docs/kernel_taxonomy.md");
  ASSERT_TRUE(in.good()) << "docs/kernel_taxonomy.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const KernelFamilyRule& r : KernelFamilyRules()) {
    EXPECT_NE(doc.find("`" + std::string(r.family) + "`"), std::string::npos)
        << "family " << r.family << " not in docs/kernel_taxonomy.md";
    EXPECT_NE(doc.find("`" + std::string(r.pattern) + "`"), std::string::npos)
        << "pattern " << r.pattern << " not in docs/kernel_taxonomy.md";
  }
}

TEST(KernelTaxonomyTest, PrecisionFromTheName) {
  EXPECT_TRUE(ClassifyKernelName("ampere_sgemm_128x64_nn").Fp32WithoutTensorCores());
  EXPECT_TRUE(IsFp32GemmOrConv("volta_scudnn_128x32_relu_interior_nn_v1"));
  EXPECT_TRUE(IsFp32GemmOrConv("void implicit_convolve_sgemm<float, float, 1024>(int)"));
  EXPECT_FALSE(IsFp32GemmOrConv("cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1"));
  EXPECT_TRUE(IsFp32GemmOrConv("cutlass_80_simt_sgemm_128x128_8x4_nn_align1"));
  EXPECT_FALSE(IsFp32GemmOrConv("void at::native::vectorized_elementwise_kernel<4>"));
  EXPECT_EQ(ClassifyKernelName("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n").precision,
            KernelPrecision::kBf16);
  EXPECT_EQ(
      ClassifyKernelName("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32").precision,
      KernelPrecision::kTf32);
  EXPECT_EQ(ClassifyKernelName("volta_h884gemm_64x64_ldg8_nn").precision, KernelPrecision::kFp16);
  EXPECT_EQ(ClassifyKernelName("void deep_gemm::fp8_gemm_kernel<128>(int)").precision,
            KernelPrecision::kFp8);
  EXPECT_EQ(ClassifyKernelName("turing_i8816gemm_int8_128x128_ldg16_relu_nn").precision,
            KernelPrecision::kInt8);
  // Only GEMM/conv rows report a precision.
  EXPECT_EQ(ClassifyKernelName("batched_transpose_16x32_half").precision,
            KernelPrecision::kUnknown);
  EXPECT_EQ(ToString(KernelPrecision::kFp32), "fp32");
}

TEST(KernelTaxonomyTest, AttentionAndTritonFlags) {
  EXPECT_TRUE(ClassifyKernelName("attn_fwd").attention);
  EXPECT_FALSE(ClassifyKernelName("ampere_sgemm_128x64_nn").attention);
  EXPECT_TRUE(ClassifyKernelName("triton_poi_fused_add_0").triton);
  EXPECT_TRUE(IsTritonKernel("triton_poi_fused_add_0"));
  EXPECT_TRUE(IsTritonKernel("triton_"));
  EXPECT_TRUE(IsTritonKernel("void triton_red_fused_sum_1"));
  EXPECT_FALSE(IsTritonKernel("my_triton_like_kernel"));
  EXPECT_FALSE(IsTritonKernel("ampere_sgemm_128x64_nn"));
  EXPECT_TRUE(IsMemoryBoundClass(K::kCopy));
  EXPECT_FALSE(IsMemoryBoundClass(K::kGemmConv));
  EXPECT_EQ(ToString(K::kGemmConv), "gemm_conv");
  EXPECT_EQ(ToString(K::kOther), "other");
}

TEST(KernelTaxonomyTest, TbPluginAllowlistIsKeptExactly) {
  // pytorch/kineto#1041: "xmma_fprop_implicit_gemm" is not in the allowlist.
  EXPECT_FALSE(TbPluginUsesTensorCores("sm90_xmma_fprop_implicit_gemm_bf16bf16"));
  EXPECT_TRUE(UsesTensorCores("sm90_xmma_fprop_implicit_gemm_bf16bf16"));
  EXPECT_TRUE(TbPluginUsesTensorCores("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n"));
  EXPECT_TRUE(TbPluginUsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_FALSE(TbPluginUsesTensorCores("VOLTA_H884GEMM"));  // the plugin is case-sensitive
  EXPECT_EQ(TbPluginTensorCoreAllowlist().size(), 18u);
}

TEST(KernelTaxonomyTest, MemoClassifiesOncePerName) {
  model::Trace t;
  StringId a = t.strings.Intern("_ZN7deep_ep9intranode8dispatchILi8ELi768ELi8192EEEvPv");
  StringId b = t.strings.Intern("ampere_sgemm_128x64_nn");
  KernelInfoMemo memo(t);
  const KernelInfo& ia = memo.Get(a);
  EXPECT_EQ(ia.kernel_class, K::kCommunication);
  EXPECT_EQ(memo.Demangled(a), "void deep_ep::intranode::dispatch<8, 768, 8192>(void*)");
  EXPECT_EQ(memo.Demangled(b), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(&memo.Get(a), &ia);  // cached, and references stay valid
  EXPECT_EQ(memo.Get(b).family, "fp32_gemm");
  EXPECT_EQ(&memo.Get(a), &ia);
}

}  // namespace
}  // namespace gpuwhy::analysis
