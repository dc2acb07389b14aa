// Datasheet peak throughput per GPU model: dense FLOP/s per data type and
// memory bandwidth, for achieved-vs-peak ratios (MFU, roofline).
//
// Contract: FindGpuPeaks() maps a device name as a trace states it ("NVIDIA H100
// 80GB HBM3", "AMD Instinct MI300X VF") to one row of a built-in table, or
// returns nullptr when the name matches no row: an unknown GPU gets no ratios,
// never a guessed peak. Every row names its source (the vendor datasheet).
// Figures are dense (no 2:4 sparsity), at boost clock, per device as the trace
// sees it (one MI250X GCD is one device). A data type the GPU has no fast path
// for is NaN (e.g. bf16 on T4, fp8 on A100).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gpuwhy::analysis {

// Precision: the compute precision of an op (TraceLens's torch_dtype_map).
enum class Precision : uint8_t { kUnknown, kFp64, kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };
inline constexpr int kPrecisionCount = 8;

// ToString: "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "unknown".
std::string_view ToString(Precision p);

// GpuPeaks: one GPU model. *_tflops are dense peak TFLOP/s (TOP/s for int8) of
// the fastest unit for that type (tensor/matrix cores where they exist; fp32 is
// the non-tensor FP32 rate); mem_bw_gbps is DRAM bandwidth in GB/s (1e9 B/s).
struct GpuPeaks {
  const char* model = "";   // "H100 SXM"
  double fp64_tflops = 0;   // FP64 (tensor/matrix where faster)
  double fp32_tflops = 0;   // FP32 (CUDA cores on NVIDIA; matrix on AMD CDNA3)
  double tf32_tflops = 0;   // TF32 / XF32 tensor
  double fp16_tflops = 0;   // FP16 tensor, FP32 accumulate
  double bf16_tflops = 0;   // BF16 tensor, FP32 accumulate
  double fp8_tflops = 0;    // FP8 tensor
  double int8_tops = 0;     // INT8 tensor
  double mem_bw_gbps = 0;   // DRAM bandwidth
  const char* source = "";  // datasheet the figures come from
};

// AllGpuPeaks: the whole table, in match order.
std::span<const GpuPeaks> AllGpuPeaks();

// FindGpuPeaks: the row for a device name (case-insensitive rules, most
// specific first); nullptr when none matches.
const GpuPeaks* FindGpuPeaks(std::string_view device_name);

// PeakTflops: the row's peak for a precision; NaN when the GPU has none or
// the precision is unknown.
double PeakTflops(const GpuPeaks& peaks, Precision p);

}  // namespace gpuwhy::analysis
