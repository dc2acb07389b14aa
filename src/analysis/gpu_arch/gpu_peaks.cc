#include "analysis/gpu_arch/gpu_peaks.h"

#include <array>
#include <cctype>
#include <string>

#include "base/units.h"

namespace gpuwhy::analysis {

namespace {

constexpr double kNa = kMissingF64;

// Dense figures from the vendors' datasheets (sparsity figures halved where a
// datasheet gives only those). fields: model, fp64, fp32, tf32, fp16, bf16,
// fp8, int8, GB/s, source.
const GpuPeaks kPeaks[] = {
    {"V100 SXM2", 7.8, 15.7, kNa, 125, kNa, kNa, kNa, 900,
     "NVIDIA Tesla V100 datasheet (SXM2)"},
    {"V100 PCIe", 7.0, 14.0, kNa, 112, kNa, kNa, kNa, 900,
     "NVIDIA Tesla V100 datasheet (PCIe)"},
    {"V100S PCIe", 8.2, 16.4, kNa, 130, kNa, kNa, kNa, 1134,
     "NVIDIA V100S datasheet"},
    {"T4", kNa, 8.1, kNa, 65, kNa, kNa, 130, 320, "NVIDIA T4 datasheet"},
    {"RTX 2080 Ti", kNa, 13.4, kNa, 53.8, kNa, kNa, 215.2, 616,
     "NVIDIA Turing architecture whitepaper, Appendix A (GeForce RTX 2080 Ti, FP32 accumulate)"},
    {"A100 SXM4 80GB", 19.5, 19.5, 156, 312, 312, kNa, 624, 2039,
     "NVIDIA A100 datasheet (80GB SXM)"},
    {"A100 PCIe 80GB", 19.5, 19.5, 156, 312, 312, kNa, 624, 1935,
     "NVIDIA A100 datasheet (80GB PCIe)"},
    {"A100 PCIe 40GB", 19.5, 19.5, 156, 312, 312, kNa, 624, 1555,
     "NVIDIA A100 datasheet (40GB PCIe)"},
    {"A100 SXM4 40GB", 19.5, 19.5, 156, 312, 312, kNa, 624, 1555,
     "NVIDIA A100 datasheet (40GB SXM)"},
    {"A10", kNa, 31.2, 62.5, 125, 125, kNa, 250, 600, "NVIDIA A10 datasheet"},
    {"RTX 3090", kNa, 35.6, 35.6, 71, 71, kNa, 284, 936,
     "NVIDIA Ampere GA102 whitepaper, Appendix A (GeForce RTX 3090, FP32 accumulate)"},
    {"RTX 3080", kNa, 29.8, 29.8, 59.5, 59.5, kNa, 238, 760,
     "NVIDIA Ampere GA102 whitepaper, Appendix A (GeForce RTX 3080, FP32 accumulate)"},
    {"RTX 4090", kNa, 82.6, 82.6, 165.2, 165.2, 330.3, 660.6, 1008,
     "NVIDIA Ada Lovelace architecture whitepaper, Appendix A (GeForce RTX 4090, FP32 accumulate)"},
    {"RTX 4080", kNa, 48.7, 48.7, 97.5, 97.5, 194.9, 389.9, 716.8,
     "NVIDIA Ada Lovelace architecture whitepaper, Appendix A (GeForce RTX 4080, FP32 accumulate)"},
    {"L4", kNa, 30.3, 60, 121, 121, 242.5, 242.5, 300, "NVIDIA L4 datasheet"},
    {"L40S", kNa, 91.6, 183, 362.05, 362.05, 733, 733, 864, "NVIDIA L40S datasheet"},
    {"H100 SXM", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3350,
     "NVIDIA H100 datasheet (SXM)"},
    {"H100 PCIe", 51, 51, 378, 756, 756, 1513, 1513, 2000, "NVIDIA H100 datasheet (PCIe)"},
    {"H100 NVL", 60, 60, 417.5, 835, 835, 1670.5, 1670.5, 3900, "NVIDIA H100 datasheet (NVL)"},
    {"H800 SXM", 1, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3350,
     "NVIDIA H800 datasheet (SXM)"},
    {"H800 PCIe", 0.8, 51, 378, 756, 756, 1513, 1513, 2000, "NVIDIA H800 datasheet (PCIe)"},
    {"H200 SXM", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4800,
     "NVIDIA H200 datasheet (SXM)"},
    {"H200 NVL", 60, 60, 417.5, 835, 835, 1670.5, 1670.5, 4800,
     "NVIDIA H200 datasheet (NVL)"},
    {"GH200 144GB HBM3e", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4900,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (144GB HBM3e)"},
    {"GH200 96GB HBM3", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4000,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (96GB HBM3)"},
    {"GB200", 45, kNa, 1250, 2500, 2500, 5000, 5000, 8000,
     "NVIDIA GB200 NVL72 datasheet (per GPU = rack / 72)"},
    {"B200", 37, kNa, 1125, 2250, 2250, 4500, 4500, 8000,
     "NVIDIA HGX B200 datasheet (per GPU = HGX / 8)"},
    {"MI210", 45.3, 45.3, kNa, 181, 181, kNa, 181, 1638.4,
     "AMD Instinct MI210 datasheet"},
    {"MI250X GCD", 47.9, 47.9, kNa, 191.5, 191.5, kNa, 191.5, 1638.4,
     "AMD Instinct MI250X datasheet (per GCD = OAM / 2)"},
    {"MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5300,
     "AMD Instinct MI300X datasheet"},
    {"MI325X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 6000,
     "AMD Instinct MI325X datasheet"},
};

// PeakRule: every needle present, no exclusion present (case-insensitive); the
// first matching rule wins, so more specific names come first.
struct PeakRule {
  std::array<const char*, 3> needles;
  std::array<const char*, 3> excludes;
  const char* model;
};

const PeakRule kPeakRules[] = {
    {{"V100S", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "V100S PCIe"},
    {{"V100", "SXM", nullptr}, {nullptr, nullptr, nullptr}, "V100 SXM2"},
    {{"V100", "PCIE", nullptr}, {nullptr, nullptr, nullptr}, "V100 PCIe"},
    {{"TESLA T4", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "T4"},
    {{"RTX 2080 TI", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "RTX 2080 Ti"},
    {{"A100", "PCIE", "80GB"}, {nullptr, nullptr, nullptr}, "A100 PCIe 80GB"},
    {{"A100", "PCIE", nullptr}, {nullptr, nullptr, nullptr}, "A100 PCIe 40GB"},
    {{"A100", "SXM", "80GB"}, {nullptr, nullptr, nullptr}, "A100 SXM4 80GB"},
    {{"A100", "SXM", nullptr}, {nullptr, nullptr, nullptr}, "A100 SXM4 40GB"},
    // PG509-200 is the board name of the 40GB A100 SXM4 module (HGX A100 40GB);
    // some drivers report it instead of "A100-SXM4-40GB".
    {{"A100-PG509-200", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "A100 SXM4 40GB"},
    {{"A10", nullptr, nullptr}, {"A100", "A10G", "A10M"}, "A10"},
    {{"RTX 3090", nullptr, nullptr}, {" TI", nullptr, nullptr}, "RTX 3090"},
    {{"RTX 3080", nullptr, nullptr}, {" TI", nullptr, nullptr}, "RTX 3080"},
    {{"RTX 4090", nullptr, nullptr}, {" D", nullptr, nullptr}, "RTX 4090"},
    {{"RTX 4080", nullptr, nullptr}, {"SUPER", nullptr, nullptr}, "RTX 4080"},
    {{"L40S", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "L40S"},
    {{"NVIDIA L4", nullptr, nullptr}, {"L40", nullptr, nullptr}, "L4"},
    {{"GH200", "144G", nullptr}, {nullptr, nullptr, nullptr}, "GH200 144GB HBM3e"},
    {{"GH200", "480GB", nullptr}, {nullptr, nullptr, nullptr}, "GH200 96GB HBM3"},
    {{"H100", "PCIE", nullptr}, {nullptr, nullptr, nullptr}, "H100 PCIe"},
    {{"H100", "NVL", nullptr}, {nullptr, nullptr, nullptr}, "H100 NVL"},
    {{"H100", "HBM3", nullptr}, {"GH", nullptr, nullptr}, "H100 SXM"},
    {{"H100", "SXM", nullptr}, {"GH", nullptr, nullptr}, "H100 SXM"},
    {{"H800", "PCIE", nullptr}, {nullptr, nullptr, nullptr}, "H800 PCIe"},
    {{"H800", nullptr, nullptr}, {"NVL", nullptr, nullptr}, "H800 SXM"},
    {{"H200", "NVL", nullptr}, {"GH", nullptr, nullptr}, "H200 NVL"},
    {{"H200", nullptr, nullptr}, {"GH", nullptr, nullptr}, "H200 SXM"},
    {{"GB200", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "GB200"},
    {{"B200", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "B200"},
    {{"MI210", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "MI210"},
    // ROCm names both parts "MI250X/MI250"; only an unambiguous MI250X maps.
    {{"MI250X", nullptr, nullptr}, {"MI250X/", nullptr, nullptr}, "MI250X GCD"},
    {{"MI300X", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "MI300X"},
    {{"MI325X", nullptr, nullptr}, {nullptr, nullptr, nullptr}, "MI325X"},
};

bool ContainsUpper(const std::string& hay, const char* needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace

std::string_view ToString(Precision p) {
  switch (p) {
    case Precision::kFp64: return "fp64";
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
    case Precision::kInt8: return "int8";
    case Precision::kUnknown: break;
  }
  return "unknown";
}

std::span<const GpuPeaks> AllGpuPeaks() { return kPeaks; }

const GpuPeaks* FindGpuPeaks(std::string_view device_name) {
  std::string up(device_name);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const PeakRule& r : kPeakRules) {
    bool ok = true;
    for (const char* n : r.needles)
      if (n != nullptr && !ContainsUpper(up, n)) ok = false;
    for (const char* x : r.excludes)
      if (x != nullptr && ContainsUpper(up, x)) ok = false;
    if (!ok) continue;
    for (const GpuPeaks& p : kPeaks)
      if (std::string_view(p.model) == r.model) return &p;
  }
  return nullptr;
}

double PeakTflops(const GpuPeaks& peaks, Precision p) {
  switch (p) {
    case Precision::kFp64: return peaks.fp64_tflops;
    case Precision::kFp32: return peaks.fp32_tflops;
    case Precision::kTf32: return peaks.tf32_tflops;
    case Precision::kFp16: return peaks.fp16_tflops;
    case Precision::kBf16: return peaks.bf16_tflops;
    case Precision::kFp8: return peaks.fp8_tflops;
    case Precision::kInt8: return peaks.int8_tops;
    case Precision::kUnknown: break;
  }
  return kMissingF64;
}

}  // namespace gpuwhy::analysis
