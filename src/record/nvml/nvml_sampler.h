// NvmlSampler: reads every GPU through a loaded NvmlLibrary into Snapshots.
//
// Lifecycle: Open() enumerates devices, reads their static facts, probes each
// metric once (a metric that answers NOT_SUPPORTED, or whose symbol is absent,
// is never called again and reads as n/a), measures the driver's utilization
// sample period, and starts GPM on devices that support it. Sample() then
// reads one Snapshot per call; call it at the chosen interval from one thread.
// A device that reports GPU_IS_LOST / GPU_NOT_FOUND is marked lost and not
// called again; the others keep going.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "record/dcgm/dcgm_client.h"
#include "record/nvml/nvml_library.h"
#include "record/snapshot.h"

namespace gpuwhy::record {

struct SamplerOptions {
  // visible_devices: a CUDA_VISIBLE_DEVICES value restricting the devices
  // sampled (indices or UUID prefixes); empty means all.
  std::string visible_devices;
  // slow_period_ns: cadence of the expensive reads (process lists, NVML PCIe
  // throughput which blocks ~20 ms per call, temperature).
  int64_t slow_period_ns = kNsPerS;
  // processes: read process lists and per-process utilization.
  bool processes = true;
  // gpm: use NVML GPM where the device supports it.
  bool gpm = true;
  // dcgm: on GPUs without GPM, read the real figures from a running DCGM host
  // engine at dcgm_host (no host engine or no libdcgm: said once in
  // SystemInfo::dcgm_status, and sampling goes on without them).
  bool dcgm = true;
  std::string dcgm_host = "127.0.0.1";
  // dcgm_period_ns: the watch period asked of the host engine.
  int64_t dcgm_period_ns = kNsPerS;
};

class NvmlSampler {
 public:
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // Open: take ownership of `lib` and prepare every selected device. Fails only
  // when NVML cannot count devices; zero devices is a valid (empty) sampler.
  static Result<std::unique_ptr<NvmlSampler>> Open(std::unique_ptr<nvml::NvmlLibrary> lib,
                                                   const SamplerOptions& options);

  // system: static facts (shared with every Snapshot).
  const std::shared_ptr<const SystemInfo>& system() const { return system_; }
  // Sample: read every device now. Never fails as a whole: per-metric problems
  // are carried in Reading::status.
  Snapshot Sample();
  // calls: NVML calls made so far (for the overhead benchmark).
  uint64_t calls() const { return calls_; }
  // library: the loaded NVML (for error messages).
  const nvml::NvmlLibrary& library() const { return *lib_; }

 private:
  struct DeviceState;
  NvmlSampler() = default;
  void ReadStatic(DeviceState& d, DeviceInfo& info);
  void ReadFast(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out, int64_t now_ns);
  void ReadSlow(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out, int64_t now_ns);
  void ReadBufferedUtil(DeviceState& d, DeviceSnapshot& out, int64_t now_ns);
  void ReadGpm(DeviceState& d, DeviceSnapshot& out, int64_t now_ns);
  void ReadProcesses(DeviceState& d, DeviceSnapshot& out);
  void ProbeNvlink(DeviceState& d, DeviceInfo& info, bool gpm);
  void ConnectDcgm(SystemInfo& system);
  void ProbeMig(DeviceState& d, bool gpm);
  void ReadMig(DeviceState& d, DeviceSnapshot& out, int64_t now_ns);
  void ApplyDcgm(DeviceState& d, DeviceSnapshot& out, int64_t now_ns, bool dcgm_ok);
  void ReadNvlink(DeviceState& d, const DeviceInfo& info, DeviceSnapshot& out, int64_t now_ns);
  bool CheckLost(DeviceState& d, nvml::nvmlReturn_t r);
  int64_t NvmlUsToWallNs(DeviceState& d, unsigned long long us);

  std::unique_ptr<nvml::NvmlLibrary> lib_;
  std::unique_ptr<dcgm::DcgmClient> dcgm_;
  std::vector<dcgm::DcgmValue> dcgm_values_;
  SamplerOptions options_;
  std::shared_ptr<const SystemInfo> system_;
  std::vector<std::unique_ptr<DeviceState>> states_;
  uint64_t seq_ = 0;
  uint64_t calls_ = 0;
  int64_t last_slow_ns_ = kMissingI64;
};

// ParseVisibleDevices: NVML indices selected by a CUDA_VISIBLE_DEVICES value
// ("0,2", "GPU-8c1f..." UUID prefixes), given each device's UUID by index.
// Returns an empty vector (meaning "all") for an empty value; entries that
// match nothing are dropped, and parsing stops at the first invalid entry, as
// the CUDA runtime does.
std::vector<int32_t> ParseVisibleDevices(std::string_view value,
                                         const std::vector<std::string>& uuids);

}  // namespace gpuwhy::record
