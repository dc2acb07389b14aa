// NvmlLibrary: libnvidia-ml loaded with dlopen, its functions in one table.
//
// Lifecycle: Load() dlopens the library (GPUWHY_NVML_LIBRARY, else
// libnvidia-ml.so.1, else libnvidia-ml.so), resolves every symbol gpuwhy uses
// (newest versioned name first: _v3, then _v2, then plain), and calls nvmlInit.
// The destructor calls nvmlShutdown and dlcloses. Functions the library does
// not export stay nullptr; callers treat them as "not supported".
// One NvmlLibrary per process is the intended use (NVML refcounts init).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "record/nvml/nvml_api.h"

namespace gpuwhy::record::nvml {

// NvmlFunctions: resolved entry points (nullptr when absent).
struct NvmlFunctions {
  nvmlInit_fn Init = nullptr;
  nvmlShutdown_fn Shutdown = nullptr;
  nvmlErrorString_fn ErrorString = nullptr;
  nvmlSystemGetDriverVersion_fn SystemGetDriverVersion = nullptr;
  nvmlSystemGetNVMLVersion_fn SystemGetNVMLVersion = nullptr;
  nvmlSystemGetProcessName_fn SystemGetProcessName = nullptr;
  nvmlDeviceGetCount_fn DeviceGetCount = nullptr;
  nvmlDeviceGetHandleByIndex_fn DeviceGetHandleByIndex = nullptr;
  nvmlDeviceGetName_fn DeviceGetName = nullptr;
  nvmlDeviceGetUUID_fn DeviceGetUUID = nullptr;
  nvmlDeviceGetCudaComputeCapability_fn DeviceGetCudaComputeCapability = nullptr;
  nvmlDeviceGetArchitecture_fn DeviceGetArchitecture = nullptr;
  nvmlDeviceGetNumGpuCores_fn DeviceGetNumGpuCores = nullptr;
  nvmlDeviceGetMemoryBusWidth_fn DeviceGetMemoryBusWidth = nullptr;
  nvmlDeviceGetUtilizationRates_fn DeviceGetUtilizationRates = nullptr;
  nvmlDeviceGetSamples_fn DeviceGetSamples = nullptr;
  nvmlDeviceGetProcessUtilization_fn DeviceGetProcessUtilization = nullptr;
  nvmlDeviceGetRunningProcesses_fn DeviceGetComputeRunningProcesses = nullptr;
  nvmlDeviceGetRunningProcesses_fn DeviceGetMPSComputeRunningProcesses = nullptr;
  nvmlDeviceGetMemoryInfo_fn DeviceGetMemoryInfo = nullptr;
  nvmlDeviceGetMemoryInfo_v2_fn DeviceGetMemoryInfo_v2 = nullptr;
  nvmlDeviceGetUInt_fn DeviceGetPowerUsage = nullptr;
  nvmlDeviceGetUInt_fn DeviceGetEnforcedPowerLimit = nullptr;
  nvmlDeviceGetClockInfo_fn DeviceGetClockInfo = nullptr;
  nvmlDeviceGetClockInfo_fn DeviceGetMaxClockInfo = nullptr;
  nvmlDeviceGetClocksEventReasons_fn DeviceGetCurrentClocksEventReasons = nullptr;
  nvmlDeviceGetPcieThroughput_fn DeviceGetPcieThroughput = nullptr;
  nvmlDeviceGetTemperature_fn DeviceGetTemperature = nullptr;
  nvmlDeviceGetComputeMode_fn DeviceGetComputeMode = nullptr;
  nvmlDeviceGetMigMode_fn DeviceGetMigMode = nullptr;
  nvmlGpmQueryDeviceSupport_fn GpmQueryDeviceSupport = nullptr;
  nvmlGpmSampleAlloc_fn GpmSampleAlloc = nullptr;
  nvmlGpmSampleFree_fn GpmSampleFree = nullptr;
  nvmlGpmSampleGet_fn GpmSampleGet = nullptr;
  nvmlGpmMetricsGet_fn GpmMetricsGet = nullptr;
  nvmlDeviceGetFieldValues_fn DeviceGetFieldValues = nullptr;
  nvmlDeviceGetMaxMigDeviceCount_fn DeviceGetMaxMigDeviceCount = nullptr;
  nvmlDeviceGetMigDeviceHandleByIndex_fn DeviceGetMigDeviceHandleByIndex = nullptr;
  nvmlDeviceGetInstanceId_fn DeviceGetGpuInstanceId = nullptr;
  nvmlDeviceGetInstanceId_fn DeviceGetComputeInstanceId = nullptr;
  nvmlGpmMigSampleGet_fn GpmMigSampleGet = nullptr;
};

// ProcessApi: which process-list symbol was resolved, which fixes the record
// layout it writes (v3 may still write 32 bytes on R535: detected at run time).
enum class ProcessApi : uint8_t { kNone = 0, kV1 = 1, kV2 = 2, kV3 = 3 };

class NvmlLibrary {
 public:
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
  ~NvmlLibrary();

  // Load: open, resolve and initialise NVML. Fails with kNotFound and a message
  // starting "no NVIDIA driver found" when the library is missing or nvmlInit
  // reports that no driver is loaded; other init failures keep NVML's reason.
  static Result<std::unique_ptr<NvmlLibrary>> Load();

  // fn: the function table.
  const NvmlFunctions& fn() const { return fn_; }
  // process_api: which ComputeRunningProcesses version was resolved.
  ProcessApi process_api() const { return process_api_; }
  // path: the library file that was opened (as passed to dlopen).
  const std::string& path() const { return path_; }
  // ErrorMessage: nvmlErrorString(ret) when exported, else gpuwhy's table;
  // always names the code ("Not Supported (NVML error 3)").
  std::string ErrorMessage(nvmlReturn_t ret) const;

 private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
  bool initialized_ = false;
  std::string path_;
  NvmlFunctions fn_;
  ProcessApi process_api_ = ProcessApi::kNone;
};

// NvmlErrorName: gpuwhy's own text for an NVML return code ("GPU is lost").
std::string_view NvmlErrorName(nvmlReturn_t ret);

}  // namespace gpuwhy::record::nvml
