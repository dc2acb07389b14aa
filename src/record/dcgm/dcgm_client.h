// DcgmClient: libdcgm loaded with dlopen, connected to a running DCGM host
// engine (nv-hostengine), watching the profiling fields gpuwhy uses as the
// real-utilization source on GPUs without NVML GPM (Volta .. Ada).
//
// Lifecycle: Connect() dlopens the library (GPUWHY_DCGM_LIBRARY, else
// libdcgm.so.4, libdcgm.so.3, libdcgm.so), calls dcgmInit and dcgmConnect_v2,
// creates one field group and watches it on all GPUs. ReadLatest() then
// returns the newest value of each watched field per GPU; call it from one
// thread. The destructor unwatches, destroys the field group, disconnects and
// shuts DCGM down. Nothing here throws; every failure is a Status.
// Caveat (pre-Hopper): DCGM profiling holds the GPU perfmon unit, which
// CUPTI / Nsight also need; the host engine owns that lock, not gpuwhy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/units.h"
#include "record/dcgm/dcgm_api.h"

namespace gpuwhy::record::dcgm {

struct DcgmOptions {
  // host: "127.0.0.1", "HOST:PORT" or a unix socket path (as dcgmConnect_v2 takes it).
  std::string host = "127.0.0.1";
  // update_period_ns: the watch frequency asked of the host engine (>= 100 ms).
  int64_t update_period_ns = kNsPerS;
};

// DcgmValue: the newest value of one field on one GPU.
struct DcgmValue {
  uint32_t gpu_id = 0;    // DCGM GPU id (DCGM enumerates in NVML index order)
  uint16_t field_id = 0;  // DCGM_FI_*
  int32_t status = 0;     // DCGM_ST_* of the value (0 = ok)
  int64_t ts_ns = kMissingI64;
  double value = kMissingF64;  // NaN when blank or status != 0
};

class DcgmClient {
 public:
  ~DcgmClient();
  DcgmClient(const DcgmClient&) = delete;
  DcgmClient& operator=(const DcgmClient&) = delete;

  // Connect: load, connect and watch `fields`. Fails with kNotFound "libdcgm
  // not found (...)" when no library loads, and with the host and DCGM's
  // reason when dcgmInit, dcgmConnect_v2 or the watch fail.
  static Result<std::unique_ptr<DcgmClient>> Connect(const DcgmOptions& options,
                                                     const std::vector<uint16_t>& fields);

  // ReadLatest: replace `out` with the newest value of each watched field of
  // each GPU. Fails (with DCGM's reason) when the call fails, e.g. the host
  // engine went away; `out` is then empty.
  Status ReadLatest(std::vector<DcgmValue>* out);

  const std::string& library_path() const { return path_; }
  const std::string& host() const { return host_; }
  // ErrorMessage: errorString(ret) when exported, always with the code.
  std::string ErrorMessage(dcgmReturn_t ret) const;

 private:
  DcgmClient() = default;
  struct Functions;
  void* handle_ = nullptr;
  std::unique_ptr<Functions> fn_;
  bool initialized_ = false;
  dcgmHandle_t dcgm_ = 0;
  bool connected_ = false;
  dcgmFieldGrp_t field_group_ = 0;
  bool have_field_group_ = false;
  bool watching_ = false;
  std::string path_;
  std::string host_;
};

}  // namespace gpuwhy::record::dcgm
