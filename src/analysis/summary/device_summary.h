// Per-device summary of one trace: span, steps, busy/idle, kernel statistics,
// memcpy/memset by kind, host sync calls, cuda_sync events, import statistics.
//
// Contract: SummarizeDevices() is a pure function of the trace. Every duration
// is int64 ns; ratios are 0..1 (`_ratio`), bandwidth is GB/s (bytes per ns).
// A value the trace cannot give is a kMissing* sentinel / NaN, never 0.
// Strings are copied out of the trace's pool so renderers need no trace.
// Cost: linear in events plus one sort of each device's kernel durations.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/steps/run_phases.h"
#include "base/units.h"
#include "model/enums.h"
#include "model/import_stats.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// SummaryOptions: knobs of SummarizeDevices().
struct SummaryOptions {
  // top_kernels: how many kernel names the top-kernels table keeps (by total time).
  int top_kernels = 10;
};

// DurationStats: distribution of a set of durations. All fields are missing
// when count == 0. Percentiles use linear interpolation between closest ranks
// (numpy's default), rounded to the nearest ns.
struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = kMissingI64;
  int64_t p50_ns = kMissingI64;
  int64_t p90_ns = kMissingI64;
  int64_t p95_ns = kMissingI64;
  int64_t p99_ns = kMissingI64;
  int64_t max_ns = kMissingI64;
  double mean_ns = kMissingF64;
  double stddev_ns = kMissingF64;  // population standard deviation
};

// StepSummary: the device's marked steps. With the run's steps (the
// SummarizeDevices overload taking RunSteps, which `analyze` uses) these are
// the run's device-adjusted step windows (analysis/steps/run_phases.h), the
// one step definition every section and `gpuwhy diff` share. Without them:
// ProfilerStep#N ranges (model ranges with a valid `step`) of the processes
// attributed to a device, host-side only (GPU-projected annotations are
// ignored); several ranges of one step number merge into [min start, max end].
struct StepSummary {
  bool has_steps = false;           // false: the trace has no step markers
  int32_t first_step = kMissingI32;  // lowest N
  int32_t last_step = kMissingI32;   // highest N
  int64_t window_start_ns = kMissingI64;  // start of the first step
  int64_t window_end_ns = kMissingI64;    // end of the last step
  DurationStats step_time;           // one sample per step
};

// BusySummary: union of GPU activity on one device, over all its streams.
struct BusySummary {
  int64_t kernel_busy_ns = kMissingI64;      // |union of kernel intervals|
  int64_t gpu_busy_ns = kMissingI64;         // |union of kernels + memcpy + memset|
  int64_t idle_ns = kMissingI64;             // span - gpu_busy
  double kernel_busy_ratio = kMissingF64;    // of the device span
  double gpu_busy_ratio = kMissingF64;
  double idle_ratio = kMissingF64;
};

// ShortKernelBucket: kernels shorter than `threshold_ns`.
struct ShortKernelBucket {
  int64_t threshold_ns = 0;
  int64_t count = 0;
  double count_ratio = kMissingF64;  // of all kernels
  int64_t time_ns = 0;
  double time_ratio = kMissingF64;   // of summed kernel time
};

// The short-kernel thresholds reported: 10, 20, 50 and 100 µs.
inline constexpr std::array<int64_t, 4> kShortKernelThresholdsNs = {
    10 * kNsPerUs, 20 * kNsPerUs, 50 * kNsPerUs, 100 * kNsPerUs};

// KernelNameStats: all kernels of one name on one device.
struct KernelNameStats {
  std::string name;      // demangled (base/demangle.h); equal to raw_name when not mangled
  std::string raw_name;  // the name as the trace spells it
  KernelClass kernel_class = KernelClass::kOther;  // kernel taxonomy (gpu_arch/kernel_taxonomy.h)
  std::string family;    // the taxonomy row's family id, "other" when none matched
  bool tensor_core = false;
  int64_t count = 0;
  int64_t total_ns = 0;
  double mean_ns = kMissingF64;
  int64_t max_ns = kMissingI64;
  double time_ratio = kMissingF64;  // of summed kernel time on the device
};

// KernelSummary: kernels of one device.
struct KernelSummary {
  DurationStats duration;  // count == number of kernels with a valid interval
  std::array<ShortKernelBucket, kShortKernelThresholdsNs.size()> short_kernels{};
  int64_t distinct_names = 0;
  // top: by total time (desc), ties by name; at most SummaryOptions::top_kernels.
  std::vector<KernelNameStats> top;
  int64_t other_count = 0;     // kernels not in `top`
  int64_t other_total_ns = 0;
  double other_time_ratio = kMissingF64;
  // Summed kernel time per KernelClass (index = class value) and its share
  // of all kernel time; class_time_ratio[kOther] is the share no taxonomy
  // row recognises. Ratios are missing when there is no kernel time.
  std::array<int64_t, kKernelClassCount> class_time_ns{};
  std::array<double, kKernelClassCount> class_time_ratio{};
  int64_t tensor_core_time_ns = 0;                // kernels on tensor/matrix cores
  double tensor_core_time_ratio = kMissingF64;
};

// TransferStats: a group of memcpy or memset events.
// Bandwidth uses only events with known bytes: bytes / their summed duration.
struct TransferStats {
  int64_t count = 0;
  int64_t bytes = 0;                  // sum over events with known bytes
  int64_t count_missing_bytes = 0;    // events without a byte count
  int64_t total_ns = 0;               // summed durations (not a union)
  double bandwidth_gbps = kMissingF64;  // missing when no bytes or zero time
};

// MemcpyGroup: memcpys of one direction and (src, dst) memory kind pair.
// When `by_kind_pair` groups exist, src/dst are set; in the per-direction
// list they are MemoryKind::kUnknown and aggregate all pairs.
struct MemcpyGroup {
  model::CopyKind copy_kind = model::CopyKind::kUnknown;
  model::MemoryKind src_kind = model::MemoryKind::kUnknown;
  model::MemoryKind dst_kind = model::MemoryKind::kUnknown;
  TransferStats stats;
};

// UvmCauseGroup: Unified Memory page migrations with one migration cause.
struct UvmCauseGroup {
  model::MigrationCause cause = model::MigrationCause::kUnknown;
  TransferStats stats;
};

// UvmSummary: Unified Memory page migrations (CopyKind::kUvm*) of a device,
// placed against its kernels: the part of their union while a kernel runs
// (kernels wait on the faults) and the rest (the GPU runs no kernel).
struct UvmSummary {
  TransferStats total;
  int64_t union_ns = 0;
  int64_t beside_kernels_ns = 0;
  int64_t in_gaps_ns = 0;
  std::vector<UvmCauseGroup> by_cause;  // ordered by MigrationCause value
};

// MemsetGroup: memsets into one memory kind.
struct MemsetGroup {
  model::MemoryKind dst_kind = model::MemoryKind::kUnknown;
  TransferStats stats;
};

// SyncApiClass: what a sync-type host API call does to the host thread.
enum class SyncApiClass : uint8_t {
  kExplicitSync = 0,    // cudaDeviceSynchronize/StreamSynchronize/EventSynchronize ...
  kBlockingMemcpy = 1,  // cudaMemcpy (non-Async) and friends: returns after the copy
  kGpuWait = 2,         // cudaStreamWaitEvent: GPU-side dependency, host not blocked
};
std::string_view ToString(SyncApiClass c);

// SyncApiStats: host calls of one sync-type API (by canonical name).
struct SyncApiStats {
  std::string name;  // canonical name, e.g. "cudaStreamSynchronize"
  SyncApiClass api_class = SyncApiClass::kExplicitSync;
  bool host_blocking = true;
  int64_t count = 0;
  int64_t total_ns = 0;  // summed call durations (host time blocked)
  int64_t max_ns = kMissingI64;
};

// SyncEventStats: cuda_sync events (model `syncs`) of one kind on a device.
struct SyncEventStats {
  model::SyncKind kind = model::SyncKind::kUnknown;
  int64_t count = 0;
  int64_t total_ns = 0;
};

// CounterSummary: one sampled counter series of a device (nvidia-smi, DCGM,
// NVML/GPM recordings, nsys GPU_METRICS). Statistics are over valid samples;
// every field is missing when there is none. `value` units follow `unit`
// (ratios 0..1, mW, MHz, bytes, bytes/s).
struct CounterSummary {
  model::CounterKind kind = model::CounterKind::kOther;
  model::CounterUnit unit = model::CounterUnit::kUnknown;
  std::string name;    // the source's own column or metric name
  std::string source;  // "nvidia-smi", "dcgm", "nvml", "nsys GPU_METRICS", ...
  int64_t period_ns = kMissingI64;  // stated or measured sample period
  int64_t samples = 0;              // rows, valid or not
  int64_t valid_samples = 0;        // rows with a value (n/a and unsupported excluded)
  bool untimed = false;             // the source had no timestamps: first/last are missing
  int64_t first_ns = kMissingI64;   // first and last sample time
  int64_t last_ns = kMissingI64;
  double mean = kMissingF64;        // plain mean of valid samples
  double min = kMissingF64;
  double max = kMissingF64;
};

// DeviceSummary: everything above for one device. A device either has GPU
// events (kernels, memcpy, memset: `has_events`) or only sampled counters; in
// the latter case span is the first to last counter sample and the event
// sections are empty.
struct DeviceSummary {
  int32_t device_id = kMissingI32;
  std::string name;                 // empty when the trace does not say
  model::Vendor vendor = model::Vendor::kUnknown;
  int32_t sm_count = kMissingI32;
  int32_t cc_major = kMissingI32;
  int32_t cc_minor = kMissingI32;
  int64_t total_memory_bytes = kMissingI64;
  int64_t stream_count = 0;         // distinct streams with kernels/memcpy/memset

  // span: first start to last end of kernels, memcpys and memsets on the device.
  int64_t span_start_ns = kMissingI64;
  int64_t span_end_ns = kMissingI64;
  int64_t span_ns = kMissingI64;

  StepSummary steps;
  BusySummary busy;
  KernelSummary kernels;
  std::vector<MemcpyGroup> memcpy_by_direction;  // ordered by CopyKind value
  std::vector<MemcpyGroup> memcpy_by_kind_pair;  // ordered by (copy, src, dst)
  TransferStats memcpy_total;
  UvmSummary uvm;                                // empty (total.count 0) without migrations
  std::vector<MemsetGroup> memset_by_kind;       // ordered by MemoryKind value
  TransferStats memset_total;
  // Host sync-type API calls attributed to this device (see SummarizeDevices),
  // ordered by canonical name. Calls attributed to several devices appear in each.
  std::vector<SyncApiStats> sync_apis;
  std::vector<SyncEventStats> sync_events;       // ordered by SyncKind value
  bool has_events = true;  // false: the device only has sampled counters
  std::vector<CounterSummary> counters;  // the device's counter series, in trace order
};

// ImportStatLine: one non-zero import counter.
struct ImportStatLine {
  std::string name;
  model::StatSeverity severity = model::StatSeverity::kInfo;
  std::string description;
  uint64_t count = 0;
};

// TraceSummary: the per-device summaries of one trace plus trace-wide facts.
struct TraceSummary {
  int64_t extent_start_ns = kMissingI64;  // Trace::TimeExtent(), host and GPU
  int64_t extent_end_ns = kMissingI64;
  int64_t extent_ns = kMissingI64;
  // devices: those with GPU events by id, then those with only sampled
  // counters (has_events false) by id.
  std::vector<DeviceSummary> devices;
  std::vector<int32_t> devices_without_events;   // declared, no events and no counters, by id
  bool extent_from_counters = false;  // no events: the extent is the counters' sample span
  bool host_api_attributed_to_all = false;  // some sync calls had no device link
  std::vector<ImportStatLine> import_stats;      // in import_stats.h order
};

// SummarizeDevices: the summary of `trace`.
// Host API calls are per process, not per device; a sync-type call is
// attributed (1) to the device of a GPU event sharing its correlation id,
// else (2) to every device its process launched work on (via correlation ids
// of the process's calls), else (3) to every device of the trace.
TraceSummary SummarizeDevices(const model::Trace& trace, const SummaryOptions& options);
// SummarizeDevices: the same, with each device's steps from `run` =
// BuildRunSteps(trace) where it has marked steps (StepSummary).
TraceSummary SummarizeDevices(const model::Trace& trace, const SummaryOptions& options,
                              const RunSteps& run);

}  // namespace gpuwhy::analysis
