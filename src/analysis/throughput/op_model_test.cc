#include "analysis/throughput/op_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/gpu_arch/gpu_peaks.h"

namespace gpuwhy::analysis {
namespace {

OpWork Work(std::string_view name, std::string_view dims, std::string_view types,
            std::string_view concrete = "") {
  ShapeArgs a;
  EXPECT_TRUE(ParseShapeArgs(dims, types, concrete, &a));
  return ModelOpWork(name, a);
}

TEST(OpModel, AddmmMatchesTraceLensHandCheck) {
  // bert-small addmm 141x512x512 + bias: TraceLens 0.0739968 GFLOPS, 0.776367 MiB.
  OpWork w = Work("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  EXPECT_EQ(w.op_class, OpClass::kGemm);
  EXPECT_DOUBLE_EQ(w.flops, 73996800.0);
  EXPECT_NEAR(w.bytes / 1048576.0, 0.7763671875, 1e-12);
  EXPECT_EQ(w.precision, Precision::kBf16);
}

TEST(OpModel, MmBmmAndScaledMm) {
  OpWork mm = Work("aten::mm", "[[64, 128], [128, 256]]", R"(["float", "float"])");
  EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 64 * 128 * 256);
  EXPECT_DOUBLE_EQ(mm.bytes, 4.0 * (64 * 128 + 128 * 256 + 64 * 256));
  EXPECT_EQ(mm.precision, Precision::kFp32);
  OpWork bmm = Work("aten::bmm", "[[4, 8, 16], [4, 16, 32]]", R"(["c10::Half", "c10::Half"])");
  EXPECT_DOUBLE_EQ(bmm.flops, 4 * 2.0 * 8 * 16 * 32);
  OpWork f8 = Work("aten::_scaled_mm", "[[16, 32], [32, 64], [], [], [], [], [], []]",
                   R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"])");
  EXPECT_EQ(f8.precision, Precision::kFp8);
  EXPECT_DOUBLE_EQ(f8.bytes, 16 * 32 + 32 * 64 + 2.0 * 16 * 64);
}

TEST(OpModel, CausalSdpaMatchesTraceLensHandCheck) {
  // Qwen SDPA B16 H16 N559 d64 causal: TraceLens 10.239377 GFLOPS.
  OpWork w = Work("aten::_scaled_dot_product_flash_attention",
                  "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
                  R"(["", "", "", "0.", "True", "False", ""])");
  EXPECT_EQ(w.op_class, OpClass::kAttention);
  EXPECT_NEAR(w.flops / 1e9, 10.239377, 1e-6);
}

TEST(OpModel, ConvNeedsConcreteInputs) {
  // resnet conv 3x3 (10,64,56,56): TraceLens 2.31211 GFLOPS.
  OpWork w = Work("aten::convolution", "[[10, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
                  R"(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
                  R"(["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
  EXPECT_NEAR(w.flops / 1e9, 2.31211, 1e-5);
  OpWork none = Work("aten::convolution", "[[10, 64, 56, 56], [64, 64, 3, 3]]",
                     R"(["float", "float"])");
  EXPECT_TRUE(std::isnan(none.flops));
  EXPECT_FALSE(none.note.empty());
}

TEST(OpModel, BinaryBroadcastAndScalar) {
  OpWork w = Work("aten::add", "[[1, 141, 512], [512], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  EXPECT_DOUBLE_EQ(w.flops, 141 * 512);
  EXPECT_DOUBLE_EQ(w.bytes, 141 * 512 * 2.0 + 512 * 2.0 + 141 * 512 * 2.0);
  OpWork s = Work("aten::mul", "[[10], []]", R"(["float", "Scalar"])");
  EXPECT_DOUBLE_EQ(s.bytes, 10 * 4.0 + 4.0 + 10 * 4.0);
}

TEST(OpModel, UnknownOpAndDtype) {
  OpWork w = Work("aten::view", "[[1, 2]]", R"(["float"])");
  EXPECT_EQ(w.op_class, OpClass::kNone);
  OpWork c = Work("aten::neg", "[[4]]", R"(["weird"])");
  EXPECT_TRUE(std::isnan(c.bytes));
  EXPECT_EQ(RoleOf("aten::linear"), OpRole::kComposite);
  EXPECT_EQ(RoleOf("aten::addmm"), OpRole::kPrimary);
}

TEST(OpModel, FlashAttnBackwardReadsQAfterGradOut) {
  // _flash_attn_backward(dout, q, k, v, out, lse, dq, dk, dv, dropout, scale, causal, ...):
  // GQA q (2, 128, 8, 64), k/v (2, 128, 2, 64), causal at 11.
  OpWork w = Work("flash_attn::_flash_attn_backward",
                  "[[2, 128, 8, 64], [2, 128, 8, 64], [2, 128, 2, 64], [2, 128, 2, 64], "
                  "[2, 128, 8, 64], [2, 8, 128], [], [], [], [], [], [], [], [], [], [], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"])",
                  R"(["", "", "", "", "", "", "", "", "", "0.", "0.125", "True", "-1", "-1"])");
  double fwd = 2.0 * 8 * 2 * (128.0 * 128 / 2) * (64 + 64);
  EXPECT_DOUBLE_EQ(w.flops, 2.5 * fwd);
  double fwd_bytes = (2.0 * 128 * 8 * 64 + 2.0 * 128 * 2 * 128 + 2.0 * 128 * 8 * 64) * 2;
  EXPECT_DOUBLE_EQ(w.bytes, 2 * fwd_bytes);
  EXPECT_NE(w.params.find("Hkv=2"), std::string::npos);
}

TEST(OpModel, FlashAttnVarlenTakesEqualLengths) {
  // 4 sequences, 1000 tokens in all, max 400; causal. Equal lengths: 250 each,
  // pairs = 1000 * 1000 / 4 / 2.
  OpWork w = Work("flash_attn::_flash_attn_varlen_forward",
                  "[[1000, 16, 128], [1000, 4, 128], [1000, 4, 128], [5], [5], [], [], [], [], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "int", "int", "Scalar", "Scalar"])",
                  R"(["", "", "", "", "", "400", "400", "0.", "0.088", "True", "-1"])");
  EXPECT_EQ(w.op_class, OpClass::kAttention);
  EXPECT_DOUBLE_EQ(w.flops, 16 * 2.0 * (1000.0 * 1000 / 4 / 2) * 256);
  EXPECT_DOUBLE_EQ(w.bytes, (1000.0 * 16 * 128 + 1000.0 * 4 * 256 + 1000.0 * 16 * 128) * 2);
  EXPECT_FALSE(w.note.empty());  // the equal-length assumption is stated
  // One sequence longer than max_seqlen allows is capped: total_q x max_k.
  OpWork cap = Work("flash_attn::_flash_attn_varlen_forward",
                    "[[1000, 16, 128], [1000, 16, 128], [1000, 16, 128], [2], [2]]",
                    R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
                    R"(["", "", "", "", "", "100", "100", "0.", "0.088", "False"])");
  EXPECT_DOUBLE_EQ(cap.flops, 16 * 2.0 * (1000.0 * 100) * 256);
}

TEST(OpModel, NormsBeyondTraceLens) {
  // RMS norm (PyTorch fused): 4 FLOPs per element, x in, y out, weight, fp32 rstd.
  OpWork rms = Work("aten::_fused_rms_norm", "[[8, 1024, 4096], [], [4096], []]",
                    R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "Scalar"])",
                    R"(["", "[4096]", "", "1e-06"])");
  double n = 8.0 * 1024 * 4096;
  EXPECT_EQ(rms.op_class, OpClass::kNorm);
  EXPECT_DOUBLE_EQ(rms.flops, 4 * n);
  EXPECT_DOUBLE_EQ(rms.bytes, 2 * n * 2 + 4096 * 2 + 8.0 * 1024 * 4);
  EXPECT_EQ(RoleOf("aten::rms_norm"), OpRole::kComposite);
  // vLLM's fused residual add + RMS norm, as in TraceLens's b200 trace.
  OpWork v = Work("_C::fused_add_rms_norm", "[[888, 2880], [888, 2880], [2880], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar"])");
  EXPECT_DOUBLE_EQ(v.flops, 5.0 * 888 * 2880);
  EXPECT_DOUBLE_EQ(v.bytes, 4.0 * 888 * 2880 * 2 + 2880 * 2);
  // Layer-norm backward with weight and bias gradients.
  OpWork lb = Work("aten::native_layer_norm_backward",
                   "[[4, 128, 512], [4, 128, 512], [], [4, 128, 1], [4, 128, 1], [512], [512], []]",
                   R"(["float", "float", "ScalarList", "float", "float", "float", "float", ""])",
                   R"(["", "", "[512]", "", "", "", "", ""])");
  double m = 4.0 * 128 * 512;
  EXPECT_DOUBLE_EQ(lb.flops, 11 * m);
  EXPECT_DOUBLE_EQ(lb.bytes, 3 * m * 4 + 2 * (4.0 * 128) * 4 + 3 * 512 * 4.0);
  // Group norm: channels are dim 1.
  OpWork g = Work("aten::group_norm", "[[2, 64, 32, 32], [], [64], [64], [], []]",
                  R"(["c10::Half", "Scalar", "c10::Half", "c10::Half", "Scalar", "Scalar"])",
                  R"(["", "32", "", "", "1e-05", "True"])");
  EXPECT_EQ(g.op_class, OpClass::kNorm);
  EXPECT_NE(g.params.find("groups=32"), std::string::npos);
  EXPECT_TRUE(std::isfinite(g.bytes));
}

TEST(GpuPeaks, DeviceNamesMapToRows) {
  ASSERT_NE(FindGpuPeaks("NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_STREQ(FindGpuPeaks("NVIDIA H100 80GB HBM3")->model, "H100 SXM");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA H100 PCIe")->model, "H100 PCIe");
  EXPECT_STREQ(FindGpuPeaks("AMD Instinct MI300X VF")->model, "MI300X");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA A100-SXM4-80GB")->model, "A100 SXM4 80GB");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA A100-PCIE-40GB")->model, "A100 PCIe 40GB");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA A10")->model, "A10");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA L4")->model, "L4");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA L40S")->model, "L40S");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA B200")->model, "B200");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA GH200 480GB")->model, "GH200 96GB HBM3");
  EXPECT_STREQ(FindGpuPeaks("Tesla V100-SXM2-32GB")->model, "V100 SXM2");
  EXPECT_STREQ(FindGpuPeaks("Tesla T4")->model, "T4");
  EXPECT_STREQ(FindGpuPeaks("NVIDIA GeForce RTX 4090")->model, "RTX 4090");
  EXPECT_STREQ(FindGpuPeaks("AMD Instinct MI325X")->model, "MI325X");
  EXPECT_EQ(FindGpuPeaks("AMD Radeon Graphics"), nullptr);
  EXPECT_EQ(FindGpuPeaks("AMD Instinct MI250X/MI250"), nullptr);  // ambiguous: no guess
  EXPECT_EQ(FindGpuPeaks(""), nullptr);
  EXPECT_DOUBLE_EQ(PeakTflops(*FindGpuPeaks("NVIDIA H100 80GB HBM3"), Precision::kBf16), 989.4);
  EXPECT_TRUE(std::isnan(PeakTflops(*FindGpuPeaks("Tesla T4"), Precision::kBf16)));
}

}  // namespace
}  // namespace gpuwhy::analysis
