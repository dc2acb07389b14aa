#include "model/enums.h"

namespace gpuwhy::model {

std::string_view ToString(Vendor v) {
  switch (v) {
    case Vendor::kNvidia: return "nvidia";
    case Vendor::kAmd: return "amd";
    case Vendor::kIntel: return "intel";
    case Vendor::kGoogle: return "google";
    case Vendor::kUnknown: break;
  }
  return "unknown";
}

std::string_view ToString(CopyKind v) {
  switch (v) {
    case CopyKind::kHtoD: return "HtoD";
    case CopyKind::kDtoH: return "DtoH";
    case CopyKind::kHtoA: return "HtoA";
    case CopyKind::kAtoH: return "AtoH";
    case CopyKind::kAtoA: return "AtoA";
    case CopyKind::kAtoD: return "AtoD";
    case CopyKind::kDtoA: return "DtoA";
    case CopyKind::kDtoD: return "DtoD";
    case CopyKind::kHtoH: return "HtoH";
    case CopyKind::kPtoP: return "PtoP";
    case CopyKind::kUvmHtoD: return "UVM HtoD";
    case CopyKind::kUvmDtoH: return "UVM DtoH";
    case CopyKind::kUvmDtoD: return "UVM DtoD";
    case CopyKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view ToString(MigrationCause v) {
  switch (v) {
    case MigrationCause::kUser: return "user prefetch";
    case MigrationCause::kCoherence: return "page fault";
    case MigrationCause::kPrefetch: return "speculative prefetch";
    case MigrationCause::kEviction: return "eviction";
    case MigrationCause::kAccessCounters: return "access counters";
    case MigrationCause::kUnknown: break;
  }
  return "unknown";
}

std::string_view ToString(MemoryKind v) {
  switch (v) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kDeviceStatic: return "device_static";
    case MemoryKind::kManagedStatic: return "managed_static";
    case MemoryKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view ToString(ApiKind v) {
  switch (v) {
    case ApiKind::kRuntime: return "runtime";
    case ApiKind::kDriver: return "driver";
    case ApiKind::kOsRuntime: return "os_runtime";
    case ApiKind::kOther: break;
  }
  return "other";
}

std::string_view ToString(SyncKind v) {
  switch (v) {
    case SyncKind::kEventSynchronize: return "event_synchronize";
    case SyncKind::kStreamWaitEvent: return "stream_wait_event";
    case SyncKind::kStreamSynchronize: return "stream_synchronize";
    case SyncKind::kContextSynchronize: return "context_synchronize";
    case SyncKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view ToString(RangeKind v) {
  switch (v) {
    case RangeKind::kCpuOp: return "cpu_op";
    case RangeKind::kUserAnnotation: return "user_annotation";
    case RangeKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case RangeKind::kPythonFunction: return "python_function";
    case RangeKind::kNvtx: return "nvtx";
    case RangeKind::kOsRuntime: return "os_runtime";
    case RangeKind::kOther: break;
  }
  return "other";
}

std::string_view ToString(CounterKind v) {
  switch (v) {
    case CounterKind::kGpuUtil: return "gpu_util";
    case CounterKind::kMemUtil: return "mem_util";
    case CounterKind::kSmActive: return "sm_active";
    case CounterKind::kSmOccupancy: return "sm_occupancy";
    case CounterKind::kTensorActive: return "tensor_active";
    case CounterKind::kDramActive: return "dram_active";
    case CounterKind::kPowerMw: return "power";
    case CounterKind::kPowerLimitMw: return "power_limit";
    case CounterKind::kSmClockMhz: return "sm_clock";
    case CounterKind::kMemClockMhz: return "mem_clock";
    case CounterKind::kMemUsedBytes: return "mem_used";
    case CounterKind::kMemTotalBytes: return "mem_total";
    case CounterKind::kPcieTxBytesPerS: return "pcie_tx";
    case CounterKind::kPcieRxBytesPerS: return "pcie_rx";
    case CounterKind::kTemperatureC: return "temperature";
    case CounterKind::kFp16Active: return "fp16_active";
    case CounterKind::kFp32Active: return "fp32_active";
    case CounterKind::kFp64Active: return "fp64_active";
    case CounterKind::kNvlinkTxBytesPerS: return "nvlink_tx";
    case CounterKind::kNvlinkRxBytesPerS: return "nvlink_rx";
    case CounterKind::kGrEngineActive: return "gr_engine_active";
    case CounterKind::kClockEventReasons: return "clock_event_reasons";
    case CounterKind::kEncoderUtil: return "encoder_util";
    case CounterKind::kDecoderUtil: return "decoder_util";
    case CounterKind::kOther: break;
  }
  return "other";
}

std::string_view ToString(CounterUnit v) {
  switch (v) {
    case CounterUnit::kRatio: return "ratio";
    case CounterUnit::kMilliwatt: return "mW";
    case CounterUnit::kMhz: return "MHz";
    case CounterUnit::kBytes: return "bytes";
    case CounterUnit::kBytesPerSecond: return "bytes/s";
    case CounterUnit::kCelsius: return "C";
    case CounterUnit::kCount: return "count";
    case CounterUnit::kBitmask: return "bitmask";
    case CounterUnit::kPercent: return "percent";
    case CounterUnit::kUnknown: break;
  }
  return "unknown";
}

CounterUnit CanonicalUnit(CounterKind k) {
  switch (k) {
    case CounterKind::kGpuUtil:
    case CounterKind::kMemUtil:
    case CounterKind::kSmActive:
    case CounterKind::kSmOccupancy:
    case CounterKind::kTensorActive:
    case CounterKind::kDramActive:
    case CounterKind::kFp16Active:
    case CounterKind::kFp32Active:
    case CounterKind::kFp64Active:
    case CounterKind::kGrEngineActive:
    case CounterKind::kEncoderUtil:
    case CounterKind::kDecoderUtil: return CounterUnit::kRatio;
    case CounterKind::kPowerMw:
    case CounterKind::kPowerLimitMw: return CounterUnit::kMilliwatt;
    case CounterKind::kSmClockMhz:
    case CounterKind::kMemClockMhz: return CounterUnit::kMhz;
    case CounterKind::kMemUsedBytes:
    case CounterKind::kMemTotalBytes: return CounterUnit::kBytes;
    case CounterKind::kPcieTxBytesPerS:
    case CounterKind::kPcieRxBytesPerS:
    case CounterKind::kNvlinkTxBytesPerS:
    case CounterKind::kNvlinkRxBytesPerS: return CounterUnit::kBytesPerSecond;
    case CounterKind::kTemperatureC: return CounterUnit::kCelsius;
    case CounterKind::kClockEventReasons: return CounterUnit::kBitmask;
    case CounterKind::kOther: break;
  }
  return CounterUnit::kUnknown;
}

}  // namespace gpuwhy::model
