// Enumerations used by the trace model. Numeric values are stable: they appear
// in the recording format; retired values are never reused.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpuwhy::model {

// kGoogle: TPUs (no GPU peak table applies to them).
enum class Vendor : uint8_t { kUnknown = 0, kNvidia = 1, kAmd = 2, kIntel = 3, kGoogle = 4 };

// DeviceNoun: what reports call a device of vendor `v`: "TPU" for kGoogle,
// "GPU" otherwise (unknown included: every other source is a GPU tool).
constexpr std::string_view DeviceNoun(Vendor v) { return v == Vendor::kGoogle ? "TPU" : "GPU"; }

// CopyKind: direction of a memcpy (CUPTI_ACTIVITY_MEMCPY_KIND_* order).
// kUvm*: Unified Memory (managed memory) page migrations done by the driver
// on demand, not copies the program asked for (nsys copyKind 11..13, CUPTI
// UNIFIED_MEMORY_COUNTER bytes transfer records).
enum class CopyKind : uint8_t {
  kUnknown = 0, kHtoD = 1, kDtoH = 2, kHtoA = 3, kAtoH = 4, kAtoA = 5, kAtoD = 6,
  kDtoA = 7, kDtoD = 8, kHtoH = 9, kPtoP = 10, kUvmHtoD = 11, kUvmDtoH = 12, kUvmDtoD = 13,
};

// IsUvmMigration: a Unified Memory page migration (kUvmHtoD/DtoH/DtoD).
constexpr bool IsUvmMigration(CopyKind k) {
  return k == CopyKind::kUvmHtoD || k == CopyKind::kUvmDtoH || k == CopyKind::kUvmDtoD;
}

// MigrationCause: why the driver migrated managed pages
// (CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_* order, nsys
// ENUM_CUDA_UNIF_MEM_MIGRATION). Meaningful only for kUvm* copies.
enum class MigrationCause : uint8_t {
  kUnknown = 0, kUser = 1, kCoherence = 2, kPrefetch = 3, kEviction = 4, kAccessCounters = 5,
};

// MemoryKind: where the bytes live (CUPTI_ACTIVITY_MEMORY_KIND_* order).
enum class MemoryKind : uint8_t {
  kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4, kManaged = 5,
  kDeviceStatic = 6, kManagedStatic = 7,
};

// ApiKind: which API layer a host call belongs to.
enum class ApiKind : uint8_t { kRuntime = 0, kDriver = 1, kOsRuntime = 2, kOther = 3 };

// SyncKind: CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_* values.
enum class SyncKind : uint8_t {
  kUnknown = 0, kEventSynchronize = 1, kStreamWaitEvent = 2, kStreamSynchronize = 3,
  kContextSynchronize = 4,
};

// RangeKind: the origin of a host/GPU range (annotation or CPU op).
enum class RangeKind : uint8_t {
  kCpuOp = 0,             // framework operator (aten::..., Operator)
  kUserAnnotation = 1,    // record_function / ProfilerStep#N on the host
  kGpuUserAnnotation = 2, // annotation projected on a GPU stream
  kPythonFunction = 3,
  kNvtx = 4,              // NVTX push/pop or start/end
  kOsRuntime = 5,
  kOther = 6,
};

// CounterKind: what a counter series measures; each has one canonical unit.
enum class CounterKind : uint16_t {
  kOther = 0,
  kGpuUtil = 1,        // NVML GPU-Util: share of time a kernel ran (ratio 0..1)
  kMemUtil = 2,        // NVML memory-controller busy share (ratio)
  kSmActive = 3,       // SM active / GPM SM utilization (ratio)
  kSmOccupancy = 4,    // warps resident / max (ratio)
  kTensorActive = 5,   // tensor pipe active (ratio)
  kDramActive = 6,     // DRAM bandwidth utilization (ratio)
  kPowerMw = 7,        // power draw (mW)
  kPowerLimitMw = 8,   // enforced power limit (mW)
  kSmClockMhz = 9,
  kMemClockMhz = 10,
  kMemUsedBytes = 11,
  kMemTotalBytes = 12,
  kPcieTxBytesPerS = 13,
  kPcieRxBytesPerS = 14,
  kTemperatureC = 15,
  kFp16Active = 16,
  kFp32Active = 17,
  kFp64Active = 18,
  kNvlinkTxBytesPerS = 19,
  kNvlinkRxBytesPerS = 20,
  kGrEngineActive = 21,  // DCGM_FI_PROF_GR_ENGINE_ACTIVE (ratio)
  kClockEventReasons = 22,  // bitmask of clock-event (throttle) reasons
  kEncoderUtil = 23,
  kDecoderUtil = 24,
};

// CounterUnit: the canonical unit a series is stored in.
enum class CounterUnit : uint8_t {
  kUnknown = 0, kRatio = 1, kMilliwatt = 2, kMhz = 3, kBytes = 4, kBytesPerSecond = 5,
  kCelsius = 6, kCount = 7, kBitmask = 8, kPercent = 9,
};

std::string_view ToString(Vendor v);
std::string_view ToString(CopyKind v);
std::string_view ToString(MemoryKind v);
std::string_view ToString(MigrationCause v);
std::string_view ToString(ApiKind v);
std::string_view ToString(SyncKind v);
std::string_view ToString(RangeKind v);
std::string_view ToString(CounterKind v);
std::string_view ToString(CounterUnit v);

// CanonicalUnit: the unit every series of kind `k` is stored in.
CounterUnit CanonicalUnit(CounterKind k);

}  // namespace gpuwhy::model
