// Snapshots of whole-GPU state, shared by the nvidia-smi importers that read
// repeated full reports (the default table, `nvidia-smi -q`, `-q -x`): each
// report is one Snapshot (a time, one GpuSample per GPU, the process list),
// and EmitSnapshots() turns the sequence into CounterSeries and gpu_processes.
//
// Contract: values are in canonical units (ratio 0..1, bytes, mW, MHz, °C);
// missing is NaN / kMissing*, never 0. Series names follow the --query-gpu
// field names (utilization.gpu, memory.used, ...), so every nvidia-smi format
// reads the same downstream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy::import::smi {

// GpuSample: one GPU in one report.
struct GpuSample {
  int32_t index = kMissingI32;     // nvidia-smi's GPU index
  std::string name;                // as printed (the table truncates long names with "...")
  std::string bus_id;              // "00000000:16:00.0"
  double util_ratio = kMissingF64;       // GPU-Util
  double mem_util_ratio = kMissingF64;   // memory-controller utilization (-q only)
  double mem_used_bytes = kMissingF64;
  double mem_total_bytes = kMissingF64;
  double power_mw = kMissingF64;
  double power_limit_mw = kMissingF64;
  double temperature_c = kMissingF64;
  double fan_ratio = kMissingF64;
  double sm_clock_mhz = kMissingF64;
  double mem_clock_mhz = kMissingF64;
  double pstate = kMissingF64;     // P0 -> 0, P8 -> 8
};

// ProcessSample: one row of a report's process list.
struct ProcessSample {
  int32_t gpu_index = kMissingI32;
  int32_t pid = kMissingI32;
  std::string name;
  int64_t used_bytes = kMissingI64;
};

// Snapshot: one report. `line` (1-based) locates it for messages.
struct Snapshot {
  int64_t ts_ns = kMissingI64;
  size_t line = 0;
  std::vector<GpuSample> gpus;
  std::vector<ProcessSample> processes;
};

// EmitSnapshots: write `snaps` into `trace` with series source `source`.
// When some snapshots carry a time and others do not, the untimed ones are
// dropped (untimed_snapshot); when none carry one, samples are indexes
// (ts_are_indexes, no_timestamps). Devices get name, bus id (pcie_bus_id) and
// total memory. Processes become one gpu_processes row per (GPU, pid) with
// the peak memory and first/last time seen (missing when untimed). Returns
// InvalidInput when there is no GPU sample and no process at all. Does not
// call Finalize().
Status EmitSnapshots(const std::vector<Snapshot>& snaps, std::string_view source,
                     model::Trace& trace);

// ParseCtime: "Thu Dec  3 14:46:09 2026" (C ctime, as nvidia-smi's banner, -q
// Timestamp and `watch` print it) at the end of `s`, read as UTC like every
// nvidia-smi time; false when `s` does not end with one.
bool ParseCtime(std::string_view s, int64_t* ns);

// ParseBusId: "00000000:16:00.0" -> (domain << 16) | (bus << 8) | (dev << 3) | fn
// (the model's pcie_bus_id); kMissingI64 when malformed.
int64_t ParseBusId(std::string_view s);

// ParseQuantity: "1024MiB", "61.23 W", "45C", "30 %", "1410 MHz" into *v in
// canonical units (bytes for KiB/MiB/GiB, mW for W, ratio for %, else as
// printed). Missing text ("N/A", "[N/A]", "ERR!", "Unknown Error", ...) gives
// NaN and true; text that is not a number gives NaN and false (the caller
// bumps non_numeric_value). Negative numbers are returned as read
// (CheckedValue() marks them missing).
bool ParseQuantity(std::string_view s, double* v);

}  // namespace gpuwhy::import::smi
