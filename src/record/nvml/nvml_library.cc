#include "record/nvml/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>

#include <fmt/format.h>

namespace gpuwhy::record::nvml {
namespace {

// Resolve the first of `names` the library exports into `slot`.
template <typename Fn>
bool Resolve(void* handle, Fn& slot, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (void* p = dlsym(handle, n)) {
      // Why: POSIX guarantees data/function pointer round trips for dlsym.
      slot = reinterpret_cast<Fn>(p);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view NvmlErrorName(nvmlReturn_t ret) {
  switch (ret) {
    case NVML_SUCCESS: return "success";
    case NVML_ERROR_UNINITIALIZED: return "NVML was not initialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case NVML_ERROR_NOT_SUPPORTED: return "not supported on this device";
    case NVML_ERROR_NO_PERMISSION: return "no permission";
    case NVML_ERROR_ALREADY_INITIALIZED: return "already initialized";
    case NVML_ERROR_NOT_FOUND: return "not found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "buffer too small";
    case NVML_ERROR_INSUFFICIENT_POWER: return "insufficient external power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "NVIDIA driver is not loaded";
    case NVML_ERROR_TIMEOUT: return "timeout";
    case NVML_ERROR_IRQ_ISSUE: return "interrupt issue with the GPU";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML shared library not found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "function not in this NVML version";
    case NVML_ERROR_CORRUPTED_INFOROM: return "corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost (fell off the bus)";
    case NVML_ERROR_RESET_REQUIRED: return "GPU needs a reset";
    case NVML_ERROR_OPERATING_SYSTEM: return "operating system call failed";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "NVML and kernel driver versions differ";
    case NVML_ERROR_IN_USE: return "GPU is in use";
    case NVML_ERROR_MEMORY: return "out of memory";
    case NVML_ERROR_NO_DATA: return "no data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED: return "ECC not supported on vGPU";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "insufficient resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "struct version mismatch";
    case NVML_ERROR_DEPRECATED: return "deprecated";
    case NVML_ERROR_NOT_READY: return "not ready";
    case NVML_ERROR_GPU_NOT_FOUND: return "GPU not found";
    case NVML_ERROR_INVALID_STATE: return "invalid state";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED: return "reset type not supported";
    case NVML_ERROR_UNKNOWN: return "unknown error";
    default: return "unrecognised NVML error";
  }
}

std::string NvmlLibrary::ErrorMessage(nvmlReturn_t ret) const {
  if (fn_.ErrorString) {
    const char* s = fn_.ErrorString(ret);
    if (s && *s) return fmt::format("{} (NVML error {})", s, ret);
  }
  return fmt::format("{} (NVML error {})", NvmlErrorName(ret), ret);
}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_ && fn_.Shutdown) fn_.Shutdown();
  if (handle_) dlclose(handle_);
}

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load() {
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  std::string tried;
  const char* override_path = std::getenv("GPUWHY_NVML_LIBRARY");
  std::initializer_list<const char*> defaults = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  auto try_open = [&](const char* p) {
    // RTLD_LOCAL: NVML's symbols must not leak into later dlopens.
    lib->handle_ = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (lib->handle_) {
      lib->path_ = p;
      return true;
    }
    const char* e = dlerror();
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", p, e ? e : "not loadable");
    return false;
  };
  if (override_path && *override_path) {
    try_open(override_path);
  } else {
    for (const char* p : defaults) {
      if (try_open(p)) break;
    }
  }
  if (!lib->handle_) return NotFound("no NVIDIA driver found (" + tried + ")");

  void* h = lib->handle_;
  NvmlFunctions& f = lib->fn_;
  Resolve(h, f.Init, {"nvmlInit_v2", "nvmlInit"});
  Resolve(h, f.Shutdown, {"nvmlShutdown"});
  Resolve(h, f.ErrorString, {"nvmlErrorString"});
  Resolve(h, f.SystemGetDriverVersion, {"nvmlSystemGetDriverVersion"});
  Resolve(h, f.SystemGetNVMLVersion, {"nvmlSystemGetNVMLVersion"});
  Resolve(h, f.SystemGetProcessName, {"nvmlSystemGetProcessName"});
  Resolve(h, f.DeviceGetCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  Resolve(h, f.DeviceGetHandleByIndex,
          {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  Resolve(h, f.DeviceGetName, {"nvmlDeviceGetName"});
  Resolve(h, f.DeviceGetUUID, {"nvmlDeviceGetUUID"});
  Resolve(h, f.DeviceGetCudaComputeCapability, {"nvmlDeviceGetCudaComputeCapability"});
  Resolve(h, f.DeviceGetArchitecture, {"nvmlDeviceGetArchitecture"});
  Resolve(h, f.DeviceGetNumGpuCores, {"nvmlDeviceGetNumGpuCores"});
  Resolve(h, f.DeviceGetMemoryBusWidth, {"nvmlDeviceGetMemoryBusWidth"});
  Resolve(h, f.DeviceGetUtilizationRates, {"nvmlDeviceGetUtilizationRates"});
  Resolve(h, f.DeviceGetSamples, {"nvmlDeviceGetSamples"});
  Resolve(h, f.DeviceGetProcessUtilization, {"nvmlDeviceGetProcessUtilization"});
  // Process lists: the version decides the record layout, so remember it.
  if (Resolve(h, f.DeviceGetComputeRunningProcesses, {"nvmlDeviceGetComputeRunningProcesses_v3"})) {
    lib->process_api_ = ProcessApi::kV3;
    Resolve(h, f.DeviceGetMPSComputeRunningProcesses,
            {"nvmlDeviceGetMPSComputeRunningProcesses_v3"});
  } else if (Resolve(h, f.DeviceGetComputeRunningProcesses,
                     {"nvmlDeviceGetComputeRunningProcesses_v2"})) {
    lib->process_api_ = ProcessApi::kV2;
    Resolve(h, f.DeviceGetMPSComputeRunningProcesses,
            {"nvmlDeviceGetMPSComputeRunningProcesses_v2"});
  } else if (Resolve(h, f.DeviceGetComputeRunningProcesses,
                     {"nvmlDeviceGetComputeRunningProcesses"})) {
    lib->process_api_ = ProcessApi::kV1;
    Resolve(h, f.DeviceGetMPSComputeRunningProcesses, {"nvmlDeviceGetMPSComputeRunningProcesses"});
  }
  Resolve(h, f.DeviceGetMemoryInfo_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  Resolve(h, f.DeviceGetMemoryInfo, {"nvmlDeviceGetMemoryInfo"});
  Resolve(h, f.DeviceGetPowerUsage, {"nvmlDeviceGetPowerUsage"});
  Resolve(h, f.DeviceGetEnforcedPowerLimit, {"nvmlDeviceGetEnforcedPowerLimit"});
  Resolve(h, f.DeviceGetClockInfo, {"nvmlDeviceGetClockInfo"});
  Resolve(h, f.DeviceGetMaxClockInfo, {"nvmlDeviceGetMaxClockInfo"});
  // Same bit layout; the old name is deprecated in 13.0 but older drivers lack the new one.
  Resolve(h, f.DeviceGetCurrentClocksEventReasons,
          {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  Resolve(h, f.DeviceGetPcieThroughput, {"nvmlDeviceGetPcieThroughput"});
  Resolve(h, f.DeviceGetTemperature, {"nvmlDeviceGetTemperature"});
  Resolve(h, f.DeviceGetComputeMode, {"nvmlDeviceGetComputeMode"});
  Resolve(h, f.DeviceGetMigMode, {"nvmlDeviceGetMigMode"});
  Resolve(h, f.GpmQueryDeviceSupport, {"nvmlGpmQueryDeviceSupport"});
  Resolve(h, f.GpmSampleAlloc, {"nvmlGpmSampleAlloc"});
  Resolve(h, f.GpmSampleFree, {"nvmlGpmSampleFree"});
  Resolve(h, f.GpmSampleGet, {"nvmlGpmSampleGet"});
  Resolve(h, f.GpmMetricsGet, {"nvmlGpmMetricsGet"});
  Resolve(h, f.DeviceGetFieldValues, {"nvmlDeviceGetFieldValues"});
  Resolve(h, f.DeviceGetMaxMigDeviceCount, {"nvmlDeviceGetMaxMigDeviceCount"});
  Resolve(h, f.DeviceGetMigDeviceHandleByIndex, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  Resolve(h, f.DeviceGetGpuInstanceId, {"nvmlDeviceGetGpuInstanceId"});
  Resolve(h, f.DeviceGetComputeInstanceId, {"nvmlDeviceGetComputeInstanceId"});
  Resolve(h, f.GpmMigSampleGet, {"nvmlGpmMigSampleGet"});

  if (!f.Init || !f.DeviceGetCount || !f.DeviceGetHandleByIndex) {
    return Unsupported(lib->path_ + ": not a usable NVML library (nvmlInit/nvmlDeviceGetCount missing)");
  }
  nvmlReturn_t r = f.Init();
  if (r != NVML_SUCCESS) {
    std::string why = lib->ErrorMessage(r);
    if (r == NVML_ERROR_DRIVER_NOT_LOADED || r == NVML_ERROR_LIBRARY_NOT_FOUND) {
      return NotFound("no NVIDIA driver found (nvmlInit: " + why + ")");
    }
    return IoError("nvmlInit failed: " + why);
  }
  lib->initialized_ = true;
  return lib;
}

}  // namespace gpuwhy::record::nvml
