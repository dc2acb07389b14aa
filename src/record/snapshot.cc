#include "record/snapshot.h"

#include <time.h>

namespace gpuwhy::record {

std::string_view SourceName(Source s) {
  switch (s) {
    case Source::kNvmlSamples: return "nvml samples";
    case Source::kNvmlPoll: return "nvml";
    case Source::kGpm: return "nvml gpm";
    case Source::kNvmlFields: return "nvml fields";
    case Source::kDcgm: return "dcgm";
    case Source::kNone: break;
  }
  return "";
}

std::string_view MetricName(Metric m) {
  switch (m) {
    case Metric::kGpuUtil: return "gpu_util";
    case Metric::kMemUtil: return "mem_util";
    case Metric::kSmActive: return "sm_active";
    case Metric::kSmOccupancy: return "sm_occupancy";
    case Metric::kTensorActive: return "tensor_active";
    case Metric::kDramActive: return "dram_active";
    case Metric::kFp16Active: return "fp16_active";
    case Metric::kFp32Active: return "fp32_active";
    case Metric::kFp64Active: return "fp64_active";
    case Metric::kGrEngineActive: return "gr_engine_active";
    case Metric::kPowerMw: return "power";
    case Metric::kPowerLimitMw: return "power_limit";
    case Metric::kSmClockMhz: return "sm_clock";
    case Metric::kMemClockMhz: return "mem_clock";
    case Metric::kClockEventReasons: return "clock_event_reasons";
    case Metric::kPcieTxBytesPerS: return "pcie_tx";
    case Metric::kPcieRxBytesPerS: return "pcie_rx";
    case Metric::kNvlinkTxBytesPerS: return "nvlink_tx";
    case Metric::kNvlinkRxBytesPerS: return "nvlink_rx";
    case Metric::kMemUsedBytes: return "mem_used";
    case Metric::kMemTotalBytes: return "mem_total";
    case Metric::kTemperatureC: return "temperature";
    case Metric::kCount: break;
  }
  return "";
}

model::CounterKind MetricCounterKind(Metric m) {
  using K = model::CounterKind;
  switch (m) {
    case Metric::kGpuUtil: return K::kGpuUtil;
    case Metric::kMemUtil: return K::kMemUtil;
    case Metric::kSmActive: return K::kSmActive;
    case Metric::kSmOccupancy: return K::kSmOccupancy;
    case Metric::kTensorActive: return K::kTensorActive;
    case Metric::kDramActive: return K::kDramActive;
    case Metric::kFp16Active: return K::kFp16Active;
    case Metric::kFp32Active: return K::kFp32Active;
    case Metric::kFp64Active: return K::kFp64Active;
    case Metric::kGrEngineActive: return K::kGrEngineActive;
    case Metric::kPowerMw: return K::kPowerMw;
    case Metric::kPowerLimitMw: return K::kPowerLimitMw;
    case Metric::kSmClockMhz: return K::kSmClockMhz;
    case Metric::kMemClockMhz: return K::kMemClockMhz;
    case Metric::kClockEventReasons: return K::kClockEventReasons;
    case Metric::kPcieTxBytesPerS: return K::kPcieTxBytesPerS;
    case Metric::kPcieRxBytesPerS: return K::kPcieRxBytesPerS;
    case Metric::kNvlinkTxBytesPerS: return K::kNvlinkTxBytesPerS;
    case Metric::kNvlinkRxBytesPerS: return K::kNvlinkRxBytesPerS;
    case Metric::kMemUsedBytes: return K::kMemUsedBytes;
    case Metric::kMemTotalBytes: return K::kMemTotalBytes;
    case Metric::kTemperatureC: return K::kTemperatureC;
    case Metric::kCount: break;
  }
  return K::kOther;
}

int64_t WallNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

int64_t MonoNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

}  // namespace gpuwhy::record
