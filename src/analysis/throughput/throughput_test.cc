#include "analysis/throughput/throughput.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuwhy::analysis {
namespace {

// One ProfilerStep of 10 ms with an aten::linear -> aten::mm (4096^3, bf16)
// whose kernel runs 1 ms on an H100 SXM: known MFU and busy-time MFU.
model::Trace MmTrace(const char* device_name) {
  model::Trace t;
  model::Device& d = t.GetOrAddDevice(0);
  d.name = t.strings.Intern(device_name);
  model::RangeRow step;
  step.pid = 1;
  step.tid = 1;
  step.start_ns = 0;
  step.end_ns = 10 * kNsPerMs;
  step.name = t.strings.Intern("ProfilerStep#1");
  step.kind = model::RangeKind::kUserAnnotation;
  step.step = 1;
  t.ranges.Append(step);
  model::RangeRow lin;
  lin.pid = 1;
  lin.tid = 1;
  lin.start_ns = 1000;
  lin.end_ns = 60000;
  lin.name = t.strings.Intern("aten::linear");
  lin.kind = model::RangeKind::kCpuOp;
  lin.external_id = 7;
  lin.input_dims = t.strings.Intern("[[4096, 4096], [4096, 4096], []]");
  lin.input_types = t.strings.Intern(R"(["c10::BFloat16", "c10::BFloat16", ""])");
  t.ranges.Append(lin);
  model::RangeRow mm = lin;
  mm.start_ns = 2000;
  mm.end_ns = 50000;
  mm.name = t.strings.Intern("aten::mm");
  mm.external_id = 8;
  mm.input_dims = t.strings.Intern("[[4096, 4096], [4096, 4096]]");
  mm.input_types = t.strings.Intern(R"(["c10::BFloat16", "c10::BFloat16"])");
  t.ranges.Append(mm);
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = 100000;
  k.end_ns = 100000 + kNsPerMs;
  k.external_id = 8;
  k.correlation_id = 1;
  k.name = t.strings.Intern("sm90_xmma_gemm_bf16bf16_bf16f32");
  t.kernels.Append(k);
  t.Finalize();
  return t;
}

TEST(Throughput, MfuKnownAnswer) {
  model::Trace t = MmTrace("NVIDIA H100 80GB HBM3");
  StepResult steps = FindSteps(t);
  ThroughputResult r = AnalyzeThroughput(t, steps);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceThroughput& d = r.devices[0];
  EXPECT_EQ(d.gpu_model, "H100 SXM");
  EXPECT_EQ(d.dominant_precision, Precision::kBf16);
  double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(d.matrix_flops, flops);  // the mm, not the linear around it
  EXPECT_EQ(d.window, "marked steps");
  EXPECT_EQ(d.busy_ns, kNsPerMs);
  EXPECT_NEAR(d.mfu_ratio, flops / (10e-3 * 989.4e12), 1e-12);
  EXPECT_NEAR(d.busy_mfu_ratio, flops / (1e-3 * 989.4e12), 1e-12);
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(t.Str(t.ranges.name[r.instances[0].range_row]), "aten::mm");
  ASSERT_FALSE(d.top_ops.empty());
  EXPECT_EQ(d.top_ops[0].roof.bound, "compute");
  EXPECT_NEAR(d.top_ops[0].roof.achieved_tflops, flops / 1e-3 / 1e12, 1e-9);
}

TEST(Throughput, UnknownGpuGivesNoRatiosAndSaysWhy) {
  model::Trace t = MmTrace("Mystery Accelerator 9000");
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_TRUE(std::isnan(r.devices[0].mfu_ratio));
  EXPECT_TRUE(std::isnan(r.devices[0].busy_mfu_ratio));
  EXPECT_NE(r.devices[0].note.find("not in the peak table"), std::string::npos);
}

TEST(Throughput, NoShapesSaysSo) {
  model::Trace t = MmTrace("NVIDIA H100 80GB HBM3");
  for (size_t i = 0; i < t.ranges.size(); ++i) t.ranges.input_dims.Set(i, kEmptyString);
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  EXPECT_TRUE(r.devices.empty());
  EXPECT_NE(r.note.find("record_shapes"), std::string::npos);
}

// The same trace with fp32 operands and a given kernel name.
model::Trace Fp32MmTrace(const char* kernel) {
  model::Trace t = MmTrace("NVIDIA A100-SXM4-80GB");
  for (size_t i = 0; i < t.ranges.size(); ++i)
    if (t.ranges.kind[i] == model::RangeKind::kCpuOp)
      t.ranges.input_types.Set(i, t.strings.Intern(R"(["float", "float", ""])"));
  t.kernels.name[0] = t.strings.Intern(kernel);
  return t;
}

TEST(Throughput, Fp32OnTensorCoresIsTf32) {
  // cuBLAS's TF32 kernel: the roof is the TF32 peak (156), not FP32 (19.5).
  model::Trace t = Fp32MmTrace("ampere_tf32_s1688gemm_tf32_128x128_ldg8_f2f_tn");
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceThroughput& d = r.devices[0];
  EXPECT_EQ(d.dominant_precision, Precision::kTf32);
  EXPECT_DOUBLE_EQ(d.peak_tflops, 156);
  EXPECT_EQ(d.tf32_matrix_time_ns, kNsPerMs);
  EXPECT_EQ(d.fp32_matrix_time_ns, 0);
  EXPECT_EQ(d.compute_bound_time_ns, kNsPerMs);
  EXPECT_EQ(d.memory_bound_time_ns, 0);
  ASSERT_FALSE(d.top_ops.empty());
  EXPECT_NE(d.top_ops[0].params.find("tf32"), std::string::npos);
}

TEST(Throughput, Fp32OnSimtStaysFp32) {
  model::Trace t = Fp32MmTrace("ampere_sgemm_128x64_nn");
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceThroughput& d = r.devices[0];
  EXPECT_EQ(d.dominant_precision, Precision::kFp32);
  EXPECT_DOUBLE_EQ(d.peak_tflops, 19.5);
  EXPECT_EQ(d.fp32_matrix_time_ns, kNsPerMs);
  EXPECT_EQ(d.matrix_time_ns, kNsPerMs);
}

TEST(Throughput, ElementwiseIsBelowTheRidge) {
  model::Trace t = MmTrace("NVIDIA H100 80GB HBM3");
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    if (t.ranges.kind[i] != model::RangeKind::kCpuOp) continue;
    t.ranges.name[i] = t.strings.Intern("aten::add");
    t.ranges.input_dims.Set(i, t.strings.Intern("[[4096, 4096], [4096, 4096], []]"));
    t.ranges.input_types.Set(i,
                             t.strings.Intern(R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])"));
  }
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceThroughput& d = r.devices[0];
  EXPECT_EQ(d.memory_bound_time_ns, kNsPerMs);
  EXPECT_EQ(d.compute_bound_time_ns, 0);
  EXPECT_DOUBLE_EQ(d.memory_bound_bytes, 3.0 * 4096 * 4096 * 2);
}

TEST(Throughput, NsysEmitNvtxShapesTakeTheKernelsDtype) {
  // An nsys trace: the op is an emit_nvtx range (shapes, no dtypes, no
  // External id); its kernel links through the launch call's correlation id.
  model::Trace t;
  model::Device& dev = t.GetOrAddDevice(0);
  dev.name = t.strings.Intern("NVIDIA H100 80GB HBM3");
  model::RangeRow mm;
  mm.pid = 1;
  mm.tid = 1;
  mm.start_ns = 1000;
  mm.end_ns = 50000;
  mm.name = t.strings.Intern("aten::mm");
  mm.kind = model::RangeKind::kCpuOp;
  mm.input_dims = t.strings.Intern("[[4096, 4096], [4096, 4096]]");
  t.ranges.Append(mm);
  model::ApiRow launch;
  launch.pid = 1;
  launch.tid = 1;
  launch.start_ns = 2000;
  launch.end_ns = 3000;
  launch.correlation_id = 42;
  launch.name = t.strings.Intern("cudaLaunchKernel");
  t.api_calls.Append(launch);
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = 100000;
  k.end_ns = 100000 + kNsPerMs;
  k.correlation_id = 42;
  k.name = t.strings.Intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  t.kernels.Append(k);
  t.Finalize();
  ThroughputResult r = AnalyzeThroughput(t, FindSteps(t));
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceThroughput& d = r.devices[0];
  EXPECT_EQ(d.dominant_precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(d.matrix_flops, 2.0 * 4096 * 4096 * 4096);
  ASSERT_FALSE(d.top_ops.empty());
  EXPECT_DOUBLE_EQ(d.top_ops[0].bytes, 3.0 * 4096 * 4096 * 2);
  EXPECT_NE(d.top_ops[0].params.find("dtype from kernel names"), std::string::npos);
  EXPECT_NEAR(d.busy_mfu_ratio, 2.0 * 4096 * 4096 * 4096 / (1e-3 * 989.4e12), 1e-12);
}

}  // namespace
}  // namespace gpuwhy::analysis
