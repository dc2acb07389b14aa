// Recording reader: decodes a gpuwhy recording (docs/recording-format.md) into
// plain structs. The writer is record/format/recording_writer; the import
// layer may not include record/, so both take the wire constants from
// base/recording_wire.h; tests/record round-trips writer -> reader.
//
// Contract: ReadRecording() returns every frame before the first torn one. A
// torn tail (a frame cut short by EOF, a bad CRC on the very last frame, or a
// zero-filled tail) is not an error: `torn_tail` is set with its byte offset.
// A bad frame followed by more data, a wrong magic, or an unknown major
// version is one Status naming the path and the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/input_stream.h"
#include "base/recording_wire.h"
#include "base/status.h"
#include "base/units.h"

namespace gpuwhy::import {

// Wire constants: one definition in base/recording_wire.h, shared with the writer.
inline constexpr const char (&kRecordingMagic)[8] = wire::kRecordingMagic;
inline constexpr uint16_t kRecordingVersionMajor = wire::kRecordingVersionMajor;
inline constexpr size_t kRecordingHeaderBytes = wire::kRecordingHeaderBytes;
inline constexpr size_t kFrameHeaderBytes = wire::kFrameHeaderBytes;
inline constexpr uint32_t kMaxFrameBytes = wire::kMaxFrameBytes;
using RecFrame = wire::FrameType;
using RecEventKind = wire::EventKind;

struct RecRun {
  int64_t start_wall_ns = kMissingI64;
  int64_t interval_ns = kMissingI64;
  int32_t gpuwhy_pid = kMissingI32;
  int32_t rank = kMissingI32;
  int32_t local_rank = kMissingI32;
  int32_t world_size = kMissingI32;
  std::string hostname, gpuwhy_version, driver_version, nvml_version, nvml_status, cwd;
  std::vector<std::string> argv;
};

struct RecDevice {
  int32_t index = kMissingI32;
  std::string name, uuid;
  int32_t cc_major = kMissingI32, cc_minor = kMissingI32, architecture = kMissingI32;
  int32_t sm_count = kMissingI32;
  int64_t total_memory_bytes = kMissingI64;
  int64_t power_limit_mw = kMissingI64;
  int32_t max_sm_clock_mhz = kMissingI32, max_mem_clock_mhz = kMissingI32;
  int32_t memory_bus_width_bits = kMissingI32, compute_mode = kMissingI32, mig_mode = kMissingI32;
  bool gpm_supported = false;
  int64_t util_sample_period_ns = kMissingI64;
  std::vector<std::pair<uint16_t, int32_t>> unsupported;  // (CounterKind, status)
};

struct RecSeries {
  uint16_t id = 0;
  int32_t device = kMissingI32;
  uint16_t kind = 0;  // model::CounterKind
  uint8_t unit = 0;   // model::CounterUnit
  uint8_t source_code = 0;
  int64_t period_ns = kMissingI64;
  std::string name, source;
  std::vector<int64_t> ts_ns;
  std::vector<double> value;   // NaN where status != 0
  std::vector<int32_t> status;
};

struct RecProcess {
  int32_t pid = kMissingI32;
  int64_t used_memory_bytes = kMissingI64;
  double sm_util_ratio = kMissingF64, mem_util_ratio = kMissingF64;
  bool is_mps_client = false, in_target = false;
  std::string name, user;
};
struct RecProcessList {
  int32_t device = kMissingI32;
  int64_t ts_ns = kMissingI64;
  int32_t status = 0;
  std::vector<RecProcess> processes;
};

// RecFigure: one (status, value) pair; value is NaN where status != 0.
struct RecFigure {
  int32_t status = -1;
  double value = kMissingF64;
};
// RecLinks: per-link NVLink throughput of one device at one time (1.1+).
struct RecLinks {
  int32_t device = kMissingI32;
  int64_t ts_ns = kMissingI64;
  struct Link {
    int32_t link = kMissingI32;
    RecFigure tx, rx;  // bytes/s
  };
  std::vector<Link> links;
};
// RecMig: the MIG instances of one device at one time (1.1+).
struct RecMig {
  int32_t device = kMissingI32;
  int64_t ts_ns = kMissingI64;
  struct Instance {
    int32_t index = kMissingI32, gpu_instance_id = kMissingI32, compute_instance_id = kMissingI32;
    std::string uuid;
    // figures: mem_used, mem_total (bytes), sm_active, sm_occupancy, tensor_active, dram_active.
    RecFigure figures[wire::kMigFigures];
  };
  std::vector<Instance> instances;
};

struct RecEvent {
  int64_t ts_ns = kMissingI64;
  uint16_t kind = 0;
  int32_t device = kMissingI32;
  int64_t code = kMissingI64;
  std::string text;
};

// RecTrace: one CUPTI trace stream (1.2+): one traced process. Names are
// indexed by the ids of the records (names[0] is ""); contexts maps a CUPTI
// context id to its device. stats follows wire::TraceStat (missing entries 0).
struct RecTrace {
  int32_t pid = kMissingI32, ppid = kMissingI32, rank = kMissingI32, local_rank = kMissingI32,
          world_size = kMissingI32;
  int64_t start_wall_ns = kMissingI64, clock_offset_ns = kMissingI64,
          clock_uncertainty_ns = kMissingI64;
  uint32_t cupti_version = 0;
  std::string status;  // empty: traced; else why the library disabled itself
  std::string kinds, exe;
  std::vector<std::string> names{std::string()};
  std::vector<std::pair<uint32_t, uint32_t>> contexts;
  std::vector<wire::WireKernel> kernels;
  std::vector<wire::WireCopy> copies;
  std::vector<wire::WireApi> api;
  std::vector<wire::WireSync> syncs;
  std::vector<wire::WireRange> ranges;
  std::vector<uint64_t> stats = std::vector<uint64_t>(static_cast<size_t>(wire::TraceStat::kCount), 0);
  uint64_t Stat(wire::TraceStat s) const { return stats[static_cast<size_t>(s)]; }
};

struct Recording {
  uint16_t version_major = 0, version_minor = 0;
  bool has_run = false;
  RecRun run;
  std::vector<RecDevice> devices;
  std::vector<RecSeries> series;  // index == series id
  std::vector<RecProcessList> process_lists;
  std::vector<RecEvent> events;
  std::vector<RecLinks> links;  // 1.1+: per-link NVLink frames
  std::vector<RecMig> mig;      // 1.1+: MIG frames
  std::vector<RecTrace> traces; // 1.2+: CUPTI trace streams, in file order
  bool has_end = false;
  int64_t end_ts_ns = kMissingI64;
  int32_t exit_code = kMissingI32;
  uint64_t frames = 0;
  uint64_t unknown_frames = 0;
  uint64_t bad_samples = 0;  // samples naming an undeclared series (dropped)
  uint64_t samples_out_of_range = 0;  // samples timed past kMaxAbsTimeNs (dropped)
  bool torn_tail = false;
  uint64_t torn_offset = 0;
};

// LooksLikeRecording: true when `prefix` starts with the recording magic.
bool LooksLikeRecording(std::string_view prefix);

// ReadRecording: decode the whole stream (see the contract above). A trace
// stream file of libgpuwhy_inject.so (no run frame, trace frames only) reads
// as a recording with one entry in `traces`.
Result<Recording> ReadRecording(InputStream& in);

}  // namespace gpuwhy::import
