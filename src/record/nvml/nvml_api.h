// Hand-declared subset of the NVML C API (no nvml.h): the types, constants and
// function signatures gpuwhy calls through dlopen/dlsym.
//
// Contract: every layout here matches the x86-64 ABI of the NVIDIA header
// (NVML 11.6 .. 13.3, sizes checked by static_assert below). Names keep the C
// spelling so they can be compared with the header line by line. The fake
// library in tests/fake_nvml implements exactly these signatures, so a
// mismatch here would show up there first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuwhy::record::nvml {

// Opaque handles.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlGpmSample_st;
using nvmlGpmSample_t = nvmlGpmSample_st*;

// nvmlReturn_t: a 4-byte C enum; kept as int so unknown codes pass through.
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_ALREADY_INITIALIZED = 5;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_POWER = 8;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr nvmlReturn_t NVML_ERROR_IRQ_ISSUE = 11;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_CORRUPTED_INFOROM = 14;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_REQUIRED = 16;
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_IN_USE = 19;
inline constexpr nvmlReturn_t NVML_ERROR_MEMORY = 20;
inline constexpr nvmlReturn_t NVML_ERROR_NO_DATA = 21;
inline constexpr nvmlReturn_t NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_RESOURCES = 23;
inline constexpr nvmlReturn_t NVML_ERROR_FREQ_NOT_SUPPORTED = 24;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_DEPRECATED = 26;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_READY = 27;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_NOT_FOUND = 28;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_STATE = 29;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// Versioned-struct convention: size | (version << 24).
constexpr unsigned NvmlStructVersion(size_t size, unsigned ver) {
  return static_cast<unsigned>(size) | (ver << 24U);
}

// nvmlValueType_t / nvmlValue_t / nvmlSample_t.
using nvmlValueType_t = int;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_INT = 5;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;

union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

struct nvmlSample_t {
  unsigned long long timeStamp;  // CPU microseconds (clock domain not specified)
  nvmlValue_t sampleValue;
};

// nvmlSamplingType_t.
using nvmlSamplingType_t = int;
inline constexpr nvmlSamplingType_t NVML_TOTAL_POWER_SAMPLES = 0;
inline constexpr nvmlSamplingType_t NVML_GPU_UTILIZATION_SAMPLES = 1;
inline constexpr nvmlSamplingType_t NVML_MEMORY_UTILIZATION_SAMPLES = 2;

struct nvmlUtilization_t {
  unsigned int gpu;     // percent
  unsigned int memory;  // percent
};

struct nvmlMemory_t {
  unsigned long long total, free, used;  // bytes
};
struct nvmlMemory_v2_t {
  unsigned int version;  // kNvmlMemoryV2Version
  unsigned long long total, reserved, free, used;
};
inline constexpr unsigned kNvmlMemoryV2Version = NvmlStructVersion(sizeof(nvmlMemory_v2_t), 2);

// Process records. _v3 functions take the 24-byte v2 layout on current
// drivers but wrote 32 bytes on some R535 drivers (see nvml_sampler.cc).
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE when unknown
};
struct nvmlProcessInfo_v2_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct nvmlProcessInfo_r535_t {  // the 32-byte record some R535 drivers wrote
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
};
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ULL;

struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU microseconds
  unsigned int smUtil, memUtil, encUtil, decUtil;  // percent
};

// Clock types.
using nvmlClockType_t = int;
inline constexpr nvmlClockType_t NVML_CLOCK_GRAPHICS = 0;
inline constexpr nvmlClockType_t NVML_CLOCK_SM = 1;
inline constexpr nvmlClockType_t NVML_CLOCK_MEM = 2;

using nvmlPcieUtilCounter_t = int;
inline constexpr nvmlPcieUtilCounter_t NVML_PCIE_UTIL_TX_BYTES = 0;
inline constexpr nvmlPcieUtilCounter_t NVML_PCIE_UTIL_RX_BYTES = 1;

using nvmlTemperatureSensors_t = int;
inline constexpr nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;

using nvmlComputeMode_t = int;
inline constexpr nvmlComputeMode_t NVML_COMPUTEMODE_DEFAULT = 0;
inline constexpr nvmlComputeMode_t NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1;
inline constexpr nvmlComputeMode_t NVML_COMPUTEMODE_PROHIBITED = 2;
inline constexpr nvmlComputeMode_t NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3;

inline constexpr unsigned NVML_DEVICE_MIG_ENABLE = 1;

// Clock-event (throttle) reason bits.
inline constexpr unsigned long long kClockEventGpuIdle = 0x001;
inline constexpr unsigned long long kClockEventSwPowerCap = 0x004;
inline constexpr unsigned long long kClockEventHwSlowdown = 0x008;
inline constexpr unsigned long long kClockEventSyncBoost = 0x010;
inline constexpr unsigned long long kClockEventSwThermal = 0x020;
inline constexpr unsigned long long kClockEventHwThermal = 0x040;
inline constexpr unsigned long long kClockEventHwPowerBrake = 0x080;

// Buffer sizes from nvml.h.
inline constexpr unsigned kNvmlNameBufferSize = 96;
inline constexpr unsigned kNvmlUuidBufferSize = 96;
inline constexpr unsigned kNvmlDriverVersionBufferSize = 80;

// ---- GPM (Hopper and later) ----
struct nvmlGpmMetric_t {
  unsigned int metricId;    // IN
  nvmlReturn_t nvmlReturn;  // OUT, per metric
  double value;             // OUT, valid iff nvmlReturn == 0
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};
// Declared with the largest metric array any header used (333): libraries only
// write numMetrics entries, so an oversized caller buffer is safe, while a
// 98-entry buffer would be overrun by no one but would break 13.2+ layouts.
inline constexpr unsigned kNvmlGpmMetricMax = 333;
struct nvmlGpmMetricsGet_t {
  unsigned int version;  // kNvmlGpmMetricsGetVersion
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[kNvmlGpmMetricMax];
};
inline constexpr unsigned kNvmlGpmMetricsGetVersion = 1;
struct nvmlGpmSupport_t {
  unsigned int version;  // kNvmlGpmSupportVersion
  unsigned int isSupportedDevice;
};
inline constexpr unsigned kNvmlGpmSupportVersion = 1;

// GPM metric ids used by gpuwhy (nvmlGpmMetricId_t; all <= 97 so old drivers
// accept them).
inline constexpr unsigned kGpmGraphicsUtil = 1;
inline constexpr unsigned kGpmSmUtil = 2;
inline constexpr unsigned kGpmSmOccupancy = 3;
inline constexpr unsigned kGpmAnyTensorUtil = 5;
inline constexpr unsigned kGpmDramBwUtil = 10;
inline constexpr unsigned kGpmFp64Util = 11;
inline constexpr unsigned kGpmFp32Util = 12;
inline constexpr unsigned kGpmFp16Util = 13;
inline constexpr unsigned kGpmPcieTxPerSec = 20;
inline constexpr unsigned kGpmPcieRxPerSec = 21;
inline constexpr unsigned kGpmNvlinkTotalRxPerSec = 60;
inline constexpr unsigned kGpmNvlinkTotalTxPerSec = 61;

// ---- Field values (nvmlDeviceGetFieldValues) ----
struct nvmlFieldValue_t {
  unsigned int fieldId;       // IN  NVML_FI_*
  unsigned int scopeId;       // IN  NVLink id, or kNvmlScopeAllLinks for the sum
  long long timestamp;        // OUT CPU microseconds since 1970
  long long latencyUsec;      // OUT
  nvmlValueType_t valueType;  // OUT
  nvmlReturn_t nvmlReturn;    // OUT per entry: the call returns SUCCESS if *any* entry was filled
  nvmlValue_t value;          // OUT
};
// NVLink field ids (nvml.h): cumulative KiB counters, "scopeId = link id, or
// UINT_MAX for the sum of all links"; DATA = payload only, RAW = with headers.
inline constexpr unsigned kNvmlFiNvlinkLinkCount = 91;
inline constexpr unsigned kNvmlFiNvlinkThroughputDataTx = 138;
inline constexpr unsigned kNvmlFiNvlinkThroughputDataRx = 139;
inline constexpr unsigned kNvmlFiNvlinkThroughputRawTx = 140;
inline constexpr unsigned kNvmlFiNvlinkThroughputRawRx = 141;
// NVLink5 (Blackwell): per-link cumulative byte counters (scopeId = link id).
inline constexpr unsigned kNvmlFiNvlinkCountXmitBytes = 202;
inline constexpr unsigned kNvmlFiNvlinkCountRcvBytes = 204;
inline constexpr unsigned kNvmlScopeAllLinks = 0xFFFFFFFFu;
inline constexpr unsigned kNvmlNvlinkMaxLinks = 36;  // NVML_NVLINK_MAX_LINKS

// ---- Layout checks (x86-64 sizes from the metrics brief) ----
static_assert(sizeof(nvmlSample_t) == 16);
static_assert(sizeof(nvmlUtilization_t) == 8);
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(sizeof(nvmlMemory_v2_t) == 40);
static_assert(kNvmlMemoryV2Version == 0x02000028u);
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16);
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24);
static_assert(sizeof(nvmlProcessInfo_r535_t) == 32);
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32);
static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16);
static_assert(sizeof(nvmlGpmMetric_t) == 40);
static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24);
static_assert(sizeof(nvmlGpmMetricsGet_t) == 13344);
static_assert(sizeof(nvmlFieldValue_t) == 40);
static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8);
static_assert(offsetof(nvmlFieldValue_t, valueType) == 24);
static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28);
static_assert(offsetof(nvmlFieldValue_t, value) == 32);

// ---- Function signatures (the versioned exported symbols) ----
extern "C" {
using nvmlInit_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t);
using nvmlSystemGetDriverVersion_fn = nvmlReturn_t (*)(char*, unsigned int);
using nvmlSystemGetNVMLVersion_fn = nvmlReturn_t (*)(char*, unsigned int);
using nvmlSystemGetProcessName_fn = nvmlReturn_t (*)(unsigned int, char*, unsigned int);
using nvmlDeviceGetCount_fn = nvmlReturn_t (*)(unsigned int*);
using nvmlDeviceGetHandleByIndex_fn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using nvmlDeviceGetName_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetUUID_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetCudaComputeCapability_fn = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using nvmlDeviceGetArchitecture_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetNumGpuCores_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetMemoryBusWidth_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetUtilizationRates_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using nvmlDeviceGetSamples_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlSamplingType_t,
                                                 unsigned long long, nvmlValueType_t*,
                                                 unsigned int*, nvmlSample_t*);
using nvmlDeviceGetProcessUtilization_fn = nvmlReturn_t (*)(nvmlDevice_t,
                                                            nvmlProcessUtilizationSample_t*,
                                                            unsigned int*, unsigned long long);
using nvmlDeviceGetRunningProcesses_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, void*);
using nvmlDeviceGetMemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using nvmlDeviceGetMemoryInfo_v2_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t*);
using nvmlDeviceGetUInt_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);  // power, limits
using nvmlDeviceGetClockInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned int*);
using nvmlDeviceGetClocksEventReasons_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
using nvmlDeviceGetPcieThroughput_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPcieUtilCounter_t,
                                                        unsigned int*);
using nvmlDeviceGetTemperature_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperatureSensors_t,
                                                     unsigned int*);
using nvmlDeviceGetComputeMode_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlComputeMode_t*);
using nvmlDeviceGetMigMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlGpmQueryDeviceSupport_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlGpmSupport_t*);
using nvmlGpmSampleAlloc_fn = nvmlReturn_t (*)(nvmlGpmSample_t*);
using nvmlGpmSampleFree_fn = nvmlReturn_t (*)(nvmlGpmSample_t);
using nvmlGpmSampleGet_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlGpmSample_t);
using nvmlGpmMetricsGet_fn = nvmlReturn_t (*)(nvmlGpmMetricsGet_t*);
using nvmlDeviceGetFieldValues_fn = nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*);
using nvmlDeviceGetMaxMigDeviceCount_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetMigDeviceHandleByIndex_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int,
                                                                nvmlDevice_t*);
using nvmlDeviceGetInstanceId_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);  // GI / CI id
using nvmlGpmMigSampleGet_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpmSample_t);
}

}  // namespace gpuwhy::record::nvml
