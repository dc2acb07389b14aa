// Snapshot: one immutable reading of every GPU, produced by the sampler and
// consumed by the recording writer, the watch view and the Prometheus page.
//
// Contract: a value that was not read (unsupported, error, not yet available)
// is NaN with a non-zero `status` saying why; it is never 0. Times are int64
// ns on CLOCK_REALTIME (the model's "unix_realtime" clock). Snapshots hold no
// pointers into the sampler, so they may be kept, copied and drawn later.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "model/enums.h"

namespace gpuwhy::record {

// Metric: every figure the sampler reads per device.
enum class Metric : uint8_t {
  kGpuUtil = 0,      // NVML GPU-Util (surface), ratio
  kMemUtil,          // NVML memory-controller busy, ratio
  kSmActive,         // GPM SM_UTIL, ratio
  kSmOccupancy,      // GPM SM_OCCUPANCY, ratio
  kTensorActive,     // GPM ANY_TENSOR_UTIL, ratio
  kDramActive,       // GPM DRAM_BW_UTIL, ratio
  kFp16Active,       // GPM FP16_UTIL, ratio
  kFp32Active,       // GPM FP32_UTIL, ratio
  kFp64Active,       // GPM FP64_UTIL, ratio
  kGrEngineActive,   // GPM GRAPHICS_UTIL, ratio
  kPowerMw,          // power draw, mW
  kPowerLimitMw,     // enforced power limit, mW
  kSmClockMhz,
  kMemClockMhz,
  kClockEventReasons,  // bitmask (nvml_api.h kClockEvent*)
  kPcieTxBytesPerS,
  kPcieRxBytesPerS,
  kNvlinkTxBytesPerS,
  kNvlinkRxBytesPerS,
  kMemUsedBytes,
  kMemTotalBytes,
  kTemperatureC,
  kCount
};
inline constexpr size_t kMetricCount = static_cast<size_t>(Metric::kCount);

// Source: where a figure came from (recorded per series).
enum class Source : uint8_t {
  kNone = 0,
  kNvmlSamples = 1,  // nvmlDeviceGetSamples (the driver's sample buffer)
  kNvmlPoll = 2,     // a plain NVML getter (GetUtilizationRates, GetPowerUsage, ...)
  kGpm = 3,          // NVML GPM (nvmlGpmMetricsGet over two samples)
  kNvmlFields = 4,   // nvmlDeviceGetFieldValues (cumulative counters turned into rates)
  kDcgm = 5,         // a running DCGM host engine (dcgmGetLatestValues_v2)
};

// SourceName: stable text ("nvml samples", "nvml", "nvml gpm", "nvml fields", "dcgm").
std::string_view SourceName(Source s);
// MetricName: stable snake_case name ("gpu_util", "sm_active", ...).
std::string_view MetricName(Metric m);
// MetricCounterKind: the model kind a metric is stored as.
model::CounterKind MetricCounterKind(Metric m);

// Status codes carried with missing values: NVML return codes (> 0), or:
inline constexpr int32_t kStatusOk = 0;
inline constexpr int32_t kStatusNotSampled = -1;   // not read this tick (slow metric, GPM warm-up)
inline constexpr int32_t kStatusNoSymbol = -2;     // the library does not export the function
inline constexpr int32_t kStatusDeviceLost = -3;   // the device was lost earlier in the run
inline constexpr int32_t kStatusDcgmBlank = -4;    // DCGM answered with a blank (no value yet / paused)
inline constexpr int32_t kStatusDcgmError = -5;    // the DCGM host engine call failed this tick

// Reading: one figure at one time.
struct Reading {
  double value = kMissingF64;
  int32_t status = kStatusNotSampled;
  Source source = Source::kNone;
  int64_t ts_ns = kMissingI64;
  bool valid() const { return status == kStatusOk && IsValid(value); }
};

// FineSample: one entry of the driver's sample buffer (finer than polling).
struct FineSample {
  Metric metric = Metric::kGpuUtil;
  int64_t ts_ns = kMissingI64;
  double value = kMissingF64;
};

// LinkReading: one NVLink's throughput (bytes/s) from NVML field values.
struct LinkReading {
  int32_t link = kMissingI32;
  Reading tx;
  Reading rx;
};

// MigReading: one MIG device (GPU instance + compute instance) of a GPU in MIG
// mode. NVML gives no GPU-Util per instance (always n/a); memory is read per
// MIG device handle, the real figures through GPM per GPU instance (Hopper+).
struct MigReading {
  int32_t index = kMissingI32;  // MIG device index under its parent
  std::string uuid;
  int32_t gpu_instance_id = kMissingI32;
  int32_t compute_instance_id = kMissingI32;
  Reading mem_used, mem_total;                                  // bytes
  Reading sm_active, sm_occupancy, tensor_active, dram_active;  // ratios (GPM)
};

// ProcessInfo: one process on one GPU.
struct ProcessInfo {
  int32_t pid = kMissingI32;
  int64_t used_memory_bytes = kMissingI64;
  double sm_util_ratio = kMissingF64;   // NVML per-process (time-based) utilization
  double mem_util_ratio = kMissingF64;
  std::string name;
  std::string user;
  bool is_mps_client = false;
  bool in_target = false;  // descendant of the recorded command (record only)
};

// DeviceInfo: what does not change during a run (read once at start).
struct DeviceInfo {
  int32_t index = kMissingI32;
  std::string name;
  std::string uuid;
  int32_t cc_major = kMissingI32;
  int32_t cc_minor = kMissingI32;
  int32_t architecture = kMissingI32;  // NVML_DEVICE_ARCH_*
  int32_t sm_count = kMissingI32;      // derived from CUDA cores when NVML gives them
  int64_t total_memory_bytes = kMissingI64;
  int64_t power_limit_mw = kMissingI64;  // enforced limit at start
  int32_t max_sm_clock_mhz = kMissingI32;
  int32_t max_mem_clock_mhz = kMissingI32;
  int32_t memory_bus_width_bits = kMissingI32;
  int32_t compute_mode = kMissingI32;  // NVML_COMPUTEMODE_*
  int32_t mig_mode = kMissingI32;      // 1 when MIG is enabled
  bool gpm_supported = false;
  // real_source: where SM active / occupancy / tensor / DRAM come from
  // (kGpm, kDcgm, or kNone when nothing gives them).
  Source real_source = Source::kNone;
  int32_t nvlink_count = kMissingI32;  // NVML_FI_DEV_NVLINK_LINK_COUNT; missing when unsupported
  int64_t util_sample_period_ns = kMissingI64;  // measured from GetSamples deltas
  // supported[m]: false when the probe at start said NOT_SUPPORTED / no symbol.
  std::array<bool, kMetricCount> supported{};
  std::array<int32_t, kMetricCount> probe_status{};  // why unsupported
};

// SystemInfo: the host and its devices.
struct SystemInfo {
  std::string hostname;
  std::string driver_version;
  std::string nvml_version;
  std::string library_path;
  // dcgm_status: one line about DCGM ("DCGM host engine at 127.0.0.1 (libdcgm.so.4)",
  // "DCGM not used: ..."); empty when DCGM was not wanted.
  std::string dcgm_status;
  bool dcgm_connected = false;
  std::vector<DeviceInfo> devices;
};

// DeviceSnapshot: the dynamic readings of one device.
struct DeviceSnapshot {
  int32_t index = kMissingI32;
  bool lost = false;
  bool lost_now = false;        // became lost during this tick
  std::string lost_reason;
  std::array<Reading, kMetricCount> readings{};
  std::vector<FineSample> fine;  // new driver-buffer samples since the last tick
  std::vector<LinkReading> nvlinks;  // per-link NVLink throughput (empty when unsupported)
  std::vector<MigReading> mig;       // MIG devices (empty unless MIG mode is on)
  std::vector<ProcessInfo> processes;
  bool processes_read = false;   // false when not read this tick (slow cadence)
  int32_t process_status = kStatusNotSampled;
  bool mps_hint = false;         // MPS clients or an MPS server seen

  const Reading& at(Metric m) const { return readings[static_cast<size_t>(m)]; }
  Reading& at(Metric m) { return readings[static_cast<size_t>(m)]; }
};

// Snapshot: every device at one tick.
struct Snapshot {
  int64_t ts_ns = kMissingI64;
  uint64_t seq = 0;
  std::shared_ptr<const SystemInfo> system;  // never null for sampler output
  std::vector<DeviceSnapshot> devices;       // same order as system->devices
};

// WallNowNs / MonoNowNs: CLOCK_REALTIME / CLOCK_MONOTONIC in ns.
int64_t WallNowNs();
int64_t MonoNowNs();

}  // namespace gpuwhy::record
