#include "model/dcgm_fields.h"

#include <array>
#include <charconv>
#include <string>

#include "base/ascii.h"

namespace gpuwhy::model {

namespace {

using K = CounterKind;
using U = CounterUnit;
constexpr double kDcgmMiB = 1024.0 * 1024.0;

// Field ids and names: DCGM's dcgm_fields.h; short names: `dcgmi dmon -l`.
// The DCGM 4.x renames are kept without their prefix (FindDcgmField strips it).
constexpr std::array kDcgmFieldTable = {
    DcgmField{100, "DCGM_FI_DEV_SM_CLOCK", "", "SMCLK", "SM clock", "MHz", K::kSmClockMhz, U::kMhz, 1},
    DcgmField{101, "DCGM_FI_DEV_MEM_CLOCK", "", "MMCLK", "memory clock", "MHz", K::kMemClockMhz, U::kMhz, 1},
    DcgmField{112, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "CLOCK_THROTTLE_REASONS", "",
              "clock-event (throttle) reasons", "bitmask", K::kClockEventReasons, U::kBitmask, 1},
    DcgmField{140, "DCGM_FI_DEV_MEMORY_TEMP", "", "MMTMP", "memory temperature", "C", K::kOther, U::kCelsius, 1},
    DcgmField{150, "DCGM_FI_DEV_GPU_TEMP", "", "TMPTR", "GPU temperature", "C", K::kTemperatureC, U::kCelsius, 1},
    DcgmField{155, "DCGM_FI_DEV_POWER_USAGE", "", "POWER", "power draw", "W", K::kPowerMw, U::kMilliwatt, 1000},
    DcgmField{156, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "", "TOTEC", "energy since driver load", "mJ",
              K::kOther, U::kCount, 1},
    DcgmField{157, "DCGM_FI_DEV_POWER_USAGE_INSTANT", "", "", "instant power draw", "W", K::kPowerMw,
              U::kMilliwatt, 1000},
    DcgmField{160, "DCGM_FI_DEV_POWER_MGMT_LIMIT", "", "PMLMT", "power limit", "W", K::kPowerLimitMw,
              U::kMilliwatt, 1000},
    DcgmField{164, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "", "", "enforced power limit", "W",
              K::kPowerLimitMw, U::kMilliwatt, 1000},
    DcgmField{190, "DCGM_FI_DEV_PSTATE", "", "PSTAT", "performance state", "count", K::kOther, U::kCount, 1},
    DcgmField{191, "DCGM_FI_DEV_FAN_SPEED", "", "FANSP", "fan speed", "%", K::kOther, U::kRatio, 0.01},
    DcgmField{203, "DCGM_FI_DEV_GPU_UTIL", "GPU_UTIL_RATIO", "GPUTL", "GPU utilization (a kernel running)", "%",
              K::kGpuUtil, U::kRatio, 0.01},
    DcgmField{204, "DCGM_FI_DEV_MEM_COPY_UTIL", "", "MCUTL", "memory-controller utilization", "%",
              K::kMemUtil, U::kRatio, 0.01},
    DcgmField{206, "DCGM_FI_DEV_ENC_UTIL", "", "ECUTL", "encoder utilization", "%", K::kEncoderUtil,
              U::kRatio, 0.01},
    DcgmField{207, "DCGM_FI_DEV_DEC_UTIL", "", "DCUTL", "decoder utilization", "%", K::kDecoderUtil,
              U::kRatio, 0.01},
    DcgmField{250, "DCGM_FI_DEV_FB_TOTAL", "", "FBTTL", "framebuffer total", "MiB", K::kMemTotalBytes,
              U::kBytes, kDcgmMiB},
    DcgmField{251, "DCGM_FI_DEV_FB_FREE", "", "FBFRE", "framebuffer free", "MiB", K::kOther, U::kBytes,
              kDcgmMiB},
    DcgmField{252, "DCGM_FI_DEV_FB_USED", "", "FBUSD", "framebuffer used", "MiB", K::kMemUsedBytes,
              U::kBytes, kDcgmMiB},
    DcgmField{1001, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "GR_ENGINE_UTIL_RATIO", "GRACT",
              "graphics engine active (any context busy; not SM activity)", "ratio", K::kGrEngineActive,
              U::kRatio, 1},
    DcgmField{1002, "DCGM_FI_PROF_SM_ACTIVE", "SM_UTIL_RATIO", "SMACT", "SM active", "ratio",
              K::kSmActive, U::kRatio, 1},
    DcgmField{1003, "DCGM_FI_PROF_SM_OCCUPANCY", "SM_OCCUPANCY_RATIO", "SMOCC", "SM occupancy", "ratio",
              K::kSmOccupancy, U::kRatio, 1},
    DcgmField{1004, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "TENSOR_UTIL_RATIO", "TENSO", "tensor pipe active",
              "ratio", K::kTensorActive, U::kRatio, 1},
    DcgmField{1005, "DCGM_FI_PROF_DRAM_ACTIVE", "DRAM_UTIL_RATIO", "DRAMA", "DRAM active", "ratio",
              K::kDramActive, U::kRatio, 1},
    DcgmField{1006, "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "FP64_UTIL_RATIO", "FP64A", "FP64 pipe active",
              "ratio", K::kFp64Active, U::kRatio, 1},
    DcgmField{1007, "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "FP32_UTIL_RATIO", "FP32A", "FP32 pipe active",
              "ratio", K::kFp32Active, U::kRatio, 1},
    DcgmField{1008, "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "FP16_UTIL_RATIO", "FP16A", "FP16 pipe active",
              "ratio", K::kFp16Active, U::kRatio, 1},
    DcgmField{1009, "DCGM_FI_PROF_PCIE_TX_BYTES", "", "PCITX", "PCIe bytes sent", "B/s",
              K::kPcieTxBytesPerS, U::kBytesPerSecond, 1},
    DcgmField{1010, "DCGM_FI_PROF_PCIE_RX_BYTES", "", "PCIRX", "PCIe bytes received", "B/s",
              K::kPcieRxBytesPerS, U::kBytesPerSecond, 1},
    DcgmField{1011, "DCGM_FI_PROF_NVLINK_TX_BYTES", "", "NVLTX", "NVLink bytes sent", "B/s",
              K::kNvlinkTxBytesPerS, U::kBytesPerSecond, 1},
    DcgmField{1012, "DCGM_FI_PROF_NVLINK_RX_BYTES", "", "NVLRX", "NVLink bytes received", "B/s",
              K::kNvlinkRxBytesPerS, U::kBytesPerSecond, 1},
};

// DcgmStripPrefix: "DCGM_FI_PROF_SM_ACTIVE" -> "SM_ACTIVE".
std::string_view DcgmStripPrefix(std::string_view n) {
  for (std::string_view p : {"DCGM_FI_PROF_", "DCGM_FI_DEV_", "DCGM_FI_"})
    if (n.substr(0, p.size()) == p) return n.substr(p.size());
  return n;
}

}  // namespace

std::span<const DcgmField> DcgmFields() { return kDcgmFieldTable; }

const DcgmField* FindDcgmField(std::string_view raw, double* scale) {
  while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.remove_prefix(1);
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r'))
    raw.remove_suffix(1);
  if (raw.empty()) return nullptr;
  unsigned id = 0;
  auto r = std::from_chars(raw.data(), raw.data() + raw.size(), id);
  if (r.ec == std::errc() && r.ptr == raw.data() + raw.size()) {
    for (const DcgmField& f : kDcgmFieldTable)
      if (f.id == id) {
        if (scale != nullptr) *scale = f.scale;
        return &f;
      }
    return nullptr;
  }
  const std::string upper = AsciiUpper(raw);
  std::string_view n = DcgmStripPrefix(upper);
  // "current_clock_throttle_reasons": the API's struct member spelling.
  if (n.substr(0, 8) == "CURRENT_") n.remove_prefix(8);
  for (const DcgmField& f : kDcgmFieldTable) {
    const bool renamed = !f.renamed.empty() && n == f.renamed;
    if (renamed || n == DcgmStripPrefix(f.fi_name) || (!f.short_name.empty() && n == f.short_name)) {
      // A DCGM 4.x *_RATIO name of a percent field reports a ratio.
      if (scale != nullptr)
        *scale = renamed && f.source_unit == "%" && n.ends_with("_RATIO") ? 1.0 : f.scale;
      return &f;
    }
  }
  return nullptr;
}

}  // namespace gpuwhy::model
