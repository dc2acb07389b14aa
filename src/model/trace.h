// Trace: the one in-memory model that every importer writes and every
// analysis reads.
//
// Contract:
// - All times are int64 nanoseconds on one clock, named by TraceInfo::clock.
// - Event tables are columnar (see table.h); dimension tables (devices,
//   processes, threads, streams) are small row vectors.
// - Strings are interned in `strings`; columns hold StringId.
// - Unknown values are the kMissing* sentinels of base/units.h, never 0.
// - After an importer finishes it calls Finalize(), which sorts every event
//   table by (start_ns, end_ns) so analyses may rely on that order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/string_pool.h"
#include "base/units.h"
#include "model/enums.h"
#include "model/import_stats.h"
#include "model/table.h"

namespace gpuwhy::model {

// ---- Event tables -------------------------------------------------------
//
// A column declared Lazy<T> (table.h's LazyColumn) is one that most sources
// leave missing in almost every row; it stores nothing until a row holds a
// value. Read it with [], write an existing row with Set().

// Kernels. Launch configuration and occupancy fields are missing unless the
// source provides them. shared_mem_bytes is static+dynamic when the source only
// gives the sum (Kineto); static/dynamic are split when known (nsys, CUPTI).
// The *_pct columns after pid are measured by a kernel profiler (Nsight
// Compute: its speed-of-light and occupancy figures, 0..100; sm_active_pct is
// the SMs' active cycles over the kernel's elapsed cycles, the measured
// counterpart of SM fill), missing unless
// the source measured them or a merged profiler report did
// (import/trace_merge.h); est_occupancy_pct is the launch configuration's
// estimate, achieved_occupancy_pct the measured one.
#define GPUWHY_KERNEL_COLUMNS(C)                          \
  C(int32_t, device_id, kMissingI32)                      \
  C(int64_t, stream_id, kMissingI64)                      \
  C(int64_t, start_ns, kMissingI64)                       \
  C(int64_t, end_ns, kMissingI64)                         \
  C(int64_t, correlation_id, kMissingI64)                 \
  C(int64_t, external_id, kMissingI64)                    \
  C(StringId, name, kEmptyString)                         \
  C(int32_t, grid_x, kMissingI32)                         \
  C(int32_t, grid_y, kMissingI32)                         \
  C(int32_t, grid_z, kMissingI32)                         \
  C(int32_t, block_x, kMissingI32)                        \
  C(int32_t, block_y, kMissingI32)                        \
  C(int32_t, block_z, kMissingI32)                        \
  C(int32_t, registers_per_thread, kMissingI32)           \
  C(int32_t, shared_mem_bytes, kMissingI32)               \
  C(Lazy<int32_t>, static_shared_mem_bytes, kMissingI32)  \
  C(Lazy<int32_t>, dynamic_shared_mem_bytes, kMissingI32) \
  C(float, blocks_per_sm, kMissingF32)                    \
  C(float, warps_per_sm, kMissingF32)                     \
  C(float, est_occupancy_pct, kMissingF32)                \
  C(Lazy<int64_t>, graph_id, kMissingI64)                 \
  C(Lazy<int32_t>, pid, kMissingI32)                      \
  C(Lazy<float>, sm_active_pct, kMissingF32)              \
  C(Lazy<float>, sm_throughput_pct, kMissingF32)          \
  C(Lazy<float>, memory_throughput_pct, kMissingF32)      \
  C(Lazy<float>, dram_throughput_pct, kMissingF32)        \
  C(Lazy<float>, achieved_occupancy_pct, kMissingF32)     \
  C(Lazy<float>, theoretical_occupancy_pct, kMissingF32)  \
  C(Lazy<float>, tensor_pipe_pct, kMissingF32)
GPUWHY_DEFINE_TABLE(KernelTable, KernelRow, GPUWHY_KERNEL_COLUMNS)

// Memory copies. src/dst_device are set for peer copies. Unified Memory page
// migrations are rows with a kUvm* copy_kind and their migration_cause
// (kUnknown for ordinary copies).
#define GPUWHY_MEMCPY_COLUMNS(C)                \
  C(int32_t, device_id, kMissingI32)            \
  C(int64_t, stream_id, kMissingI64)            \
  C(int64_t, start_ns, kMissingI64)             \
  C(int64_t, end_ns, kMissingI64)               \
  C(int64_t, correlation_id, kMissingI64)       \
  C(int64_t, external_id, kMissingI64)          \
  C(int64_t, bytes, kMissingI64)                \
  C(CopyKind, copy_kind, CopyKind::kUnknown)    \
  C(MemoryKind, src_kind, MemoryKind::kUnknown) \
  C(MemoryKind, dst_kind, MemoryKind::kUnknown) \
  C(Lazy<int32_t>, src_device_id, kMissingI32)  \
  C(Lazy<int32_t>, dst_device_id, kMissingI32)  \
  C(Lazy<int64_t>, graph_id, kMissingI64)       \
  C(int32_t, pid, kMissingI32)                  \
  C(Lazy<MigrationCause>, migration_cause, MigrationCause::kUnknown)
GPUWHY_DEFINE_TABLE(MemcpyTable, MemcpyRow, GPUWHY_MEMCPY_COLUMNS)

#define GPUWHY_MEMSET_COLUMNS(C)                \
  C(int32_t, device_id, kMissingI32)            \
  C(int64_t, stream_id, kMissingI64)            \
  C(int64_t, start_ns, kMissingI64)             \
  C(int64_t, end_ns, kMissingI64)               \
  C(int64_t, correlation_id, kMissingI64)       \
  C(int64_t, external_id, kMissingI64)          \
  C(int64_t, bytes, kMissingI64)                \
  C(MemoryKind, dst_kind, MemoryKind::kUnknown) \
  C(Lazy<int64_t>, graph_id, kMissingI64)       \
  C(int32_t, pid, kMissingI32)
GPUWHY_DEFINE_TABLE(MemsetTable, MemsetRow, GPUWHY_MEMSET_COLUMNS)

// Host API calls (CUDA runtime/driver, HIP runtime, OS runtime).
// cbid is the CUPTI callback id when the source gives it.
#define GPUWHY_API_COLUMNS(C)                      \
  C(int32_t, pid, kMissingI32)                     \
  C(int64_t, tid, kMissingI64)                     \
  C(int64_t, start_ns, kMissingI64)                \
  C(int64_t, end_ns, kMissingI64)                  \
  C(int64_t, correlation_id, kMissingI64)          \
  C(int64_t, external_id, kMissingI64)             \
  C(StringId, name, kEmptyString)                  \
  C(int32_t, cbid, kMissingI32)                    \
  C(ApiKind, kind, ApiKind::kRuntime)
GPUWHY_DEFINE_TABLE(ApiTable, ApiRow, GPUWHY_API_COLUMNS)

// Synchronization events (CUPTI SYNCHRONIZATION / Kineto cuda_sync / nsys
// CUPTI_ACTIVITY_KIND_SYNCHRONIZATION). stream_id is missing for context sync.
#define GPUWHY_SYNC_COLUMNS(C)                     \
  C(int32_t, device_id, kMissingI32)               \
  C(int64_t, stream_id, kMissingI64)               \
  C(int64_t, start_ns, kMissingI64)                \
  C(int64_t, end_ns, kMissingI64)                  \
  C(int64_t, correlation_id, kMissingI64)          \
  C(SyncKind, kind, SyncKind::kUnknown)            \
  C(Lazy<int64_t>, event_id, kMissingI64)          \
  C(Lazy<int64_t>, wait_on_stream_id, kMissingI64) \
  C(int32_t, pid, kMissingI32)                     \
  C(int64_t, tid, kMissingI64)
GPUWHY_DEFINE_TABLE(SyncTable, SyncRow, GPUWHY_SYNC_COLUMNS)

// Ranges: CPU ops, user annotations (ProfilerStep#N), NVTX ranges, python
// functions, GPU-projected annotations. step is N for "ProfilerStep#N" (or an
// NVTX step marker), otherwise missing. device/stream are set for GPU ranges.
// input_dims / input_types / input_strides / concrete_inputs: the op's recorded
// shapes (PyTorch `record_shapes=True`), kept verbatim as interned JSON text
// (e.g. "[[141, 512], [512, 512]]", "[\"c10::BFloat16\", \"float\"]");
// kEmptyString when the source has none. Importers only copy the text; parsing
// shapes into FLOPs and bytes is analysis (src/analysis/throughput).
#define GPUWHY_RANGE_COLUMNS(C)                  \
  C(int32_t, pid, kMissingI32)                   \
  C(int64_t, tid, kMissingI64)                   \
  C(int64_t, start_ns, kMissingI64)              \
  C(int64_t, end_ns, kMissingI64)                \
  C(StringId, name, kEmptyString)                \
  C(RangeKind, kind, RangeKind::kOther)          \
  C(int64_t, external_id, kMissingI64)           \
  C(int32_t, step, kMissingI32)                  \
  C(Lazy<StringId>, domain, kEmptyString)        \
  C(Lazy<int32_t>, device_id, kMissingI32)       \
  C(Lazy<int64_t>, stream_id, kMissingI64)       \
  C(Lazy<StringId>, input_dims, kEmptyString)    \
  C(Lazy<StringId>, input_types, kEmptyString)   \
  C(Lazy<StringId>, input_strides, kEmptyString) \
  C(Lazy<StringId>, concrete_inputs, kEmptyString)
GPUWHY_DEFINE_TABLE(RangeTable, RangeRow, GPUWHY_RANGE_COLUMNS)

// Instant markers (NVTX marks, instant events).
#define GPUWHY_MARKER_COLUMNS(C)               \
  C(int32_t, pid, kMissingI32)                 \
  C(int64_t, tid, kMissingI64)                 \
  C(int64_t, ts_ns, kMissingI64)               \
  C(StringId, name, kEmptyString)              \
  C(StringId, domain, kEmptyString)
GPUWHY_DEFINE_TABLE(MarkerTable, MarkerRow, GPUWHY_MARKER_COLUMNS)

// Collective arguments of communication kernels (side table keyed by kernel
// row; refer to rows only after Finalize(), which remaps kernel_row).
#define GPUWHY_COLLECTIVE_COLUMNS(C)              \
  C(uint32_t, kernel_row, 0)                      \
  C(StringId, collective_name, kEmptyString)      \
  C(int64_t, in_msg_nelems, kMissingI64)          \
  C(int64_t, out_msg_nelems, kMissingI64)         \
  C(int32_t, group_size, kMissingI32)             \
  C(StringId, dtype, kEmptyString)                \
  C(StringId, process_group_name, kEmptyString)   \
  C(StringId, process_group_desc, kEmptyString)   \
  C(StringId, process_group_ranks, kEmptyString)  \
  C(int64_t, seq, kMissingI64)
GPUWHY_DEFINE_TABLE(CollectiveTable, CollectiveRow, GPUWHY_COLLECTIVE_COLUMNS)

// Kernel-profiler rule results (Nsight Compute's own guidance: rule name,
// type OPT/WRN/INF/ERR, its message and estimated speedup in percent of the
// kernel's duration ("local") or of the whole run ("global")); side table
// keyed by kernel row, remapped by Finalize() as collectives are.
#define GPUWHY_KERNEL_RULE_COLUMNS(C)             \
  C(uint32_t, kernel_row, 0)                      \
  C(StringId, section, kEmptyString)              \
  C(StringId, rule, kEmptyString)                 \
  C(StringId, type, kEmptyString)                 \
  C(StringId, message, kEmptyString)              \
  C(StringId, speedup_kind, kEmptyString)         \
  C(float, est_speedup_pct, kMissingF32)
GPUWHY_DEFINE_TABLE(KernelRuleTable, KernelRuleRow, GPUWHY_KERNEL_RULE_COLUMNS)

// Processes that used a GPU (for contention): from nsys PROCESSES, nvidia-smi
// or NVML process lists, recordings. used_memory_bytes is the peak seen.
#define GPUWHY_GPU_PROCESS_COLUMNS(C)                 \
  C(int32_t, device_id, kMissingI32)                  \
  C(int32_t, pid, kMissingI32)                        \
  C(StringId, name, kEmptyString)                     \
  C(int64_t, used_memory_bytes, kMissingI64)          \
  C(int64_t, first_seen_ns, kMissingI64)              \
  C(int64_t, last_seen_ns, kMissingI64)               \
  C(bool, is_profiled, false)
GPUWHY_DEFINE_TABLE(GpuProcessTable, GpuProcessRow, GPUWHY_GPU_PROCESS_COLUMNS)

// ---- Dimension tables ---------------------------------------------------

// Device: one GPU. Limits are missing unless the source gives them.
struct Device {
  int32_t device_id = kMissingI32;  // ordinal as used by the events' device_id
  StringId name = kEmptyString;
  Vendor vendor = Vendor::kUnknown;
  StringId uuid = kEmptyString;
  int32_t sm_count = kMissingI32;
  int32_t cc_major = kMissingI32;
  int32_t cc_minor = kMissingI32;
  int64_t total_memory_bytes = kMissingI64;
  int32_t max_threads_per_sm = kMissingI32;
  int32_t max_threads_per_block = kMissingI32;
  int32_t max_blocks_per_sm = kMissingI32;
  int32_t regs_per_sm = kMissingI32;
  int32_t regs_per_block = kMissingI32;
  int64_t smem_per_sm_bytes = kMissingI64;
  int64_t smem_per_block_bytes = kMissingI64;
  int64_t smem_per_block_optin_bytes = kMissingI64;
  int32_t warp_size = kMissingI32;
  int64_t pcie_bus_id = kMissingI64;
};

struct Process {
  int32_t pid = kMissingI32;
  StringId name = kEmptyString;
};

struct Thread {
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  StringId name = kEmptyString;
};

struct Stream {
  int32_t device_id = kMissingI32;
  int64_t stream_id = kMissingI64;
  StringId name = kEmptyString;
  int32_t priority = kMissingI32;
};

// CounterSeries: one sampled metric on one device (or host when device_id is
// missing). value[i] is NaN where a sample was missing. period_ns is the
// effective sample period the source states or gpuwhy measured (missing when
// unknown). `source` says where the figure came from ("nvml", "dcgm",
// "nsys GPU_METRICS", "nvidia-smi", ...).
struct CounterSeries {
  StringId name = kEmptyString;
  CounterKind kind = CounterKind::kOther;
  CounterUnit unit = CounterUnit::kUnknown;
  int32_t device_id = kMissingI32;
  StringId source = kEmptyString;
  int64_t period_ns = kMissingI64;
  // ts_are_indexes: the source had no timestamps; ts_ns holds sample indexes
  // (0, 1, 2, ...), not times, and period_ns is missing.
  bool ts_are_indexes = false;
  std::vector<int64_t> ts_ns;
  std::vector<double> value;
};

// RankInfo: distributed job identity, when the source gives it.
struct RankInfo {
  int32_t rank = kMissingI32;
  int32_t world_size = kMissingI32;
  int32_t local_rank = kMissingI32;
  StringId backend = kEmptyString;
  StringId hostname = kEmptyString;
  int32_t pg_count = kMissingI32;
};

// TraceInfo: where the trace came from and which clock it uses.
struct TraceInfo {
  std::string source_path;
  std::string format;         // "kineto-json", "nsys-sqlite", "nvidia-smi-csv", ...
  std::string format_version; // e.g. Kineto schemaVersion, nsys EXPORT_META version
  std::string clock = "unix_realtime";  // the one clock of every *_ns column
  int64_t base_time_ns = kMissingI64;   // Kineto baseTimeNanoseconds, when present
  // capture_*: the profiler's own capture window, when the source states it
  // (Kineto's "PyTorch Profiler (N)" span; several spans: their union).
  int64_t capture_start_ns = kMissingI64;
  int64_t capture_end_ns = kMissingI64;
  // merged_inputs: one line per counter input folded into this trace
  // (import/trace_merge.h), e.g. "gpu_log.csv (nvidia-smi-csv): 4 series, ...".
  std::vector<std::string> merged_inputs;
  // import_notes: how the importer read the source, one line each, where it
  // had to judge (a script CSV's columns read by meaning: "`util` read as GPU
  // utilization %"; a scrape without times: "sample indexes, no time axis").
  std::vector<std::string> import_notes;
  // host_only_profile: the profiler recorded host activity only (e.g. a
  // PyTorch legacy trace with no "CUDA functions" process), so the absence of
  // GPU events says nothing about the GPU. The analysis then reports a
  // CPU-only run with its steps, never an idle GPU.
  bool host_only_profile = false;
  // ac2g_flow_ids: ids (= correlation ids) of Kineto flow starts ('s') of
  // category "ac2g" (launch -> GPU op links), in file order; empty when the
  // trace has none (legacy "async"/"async_cpu_to_gpu" flows, other formats).
  // TraceLens links GPU ops only through these (--compat tracelens).
  std::vector<int64_t> ac2g_flow_ids;
  std::string cuda_runtime_version;
  std::string cuda_driver_version;
  std::string cupti_version;
  // kernels_untimed: the kernels come from a kernel profiler that replays
  // each launch alone (Nsight Compute): durations are measured, but starts
  // are only their launch order, laid end to end from 0 on clock
  // "kernel-order"; there is no timeline (no gaps, no idle, no overlap).
  bool kernels_untimed = false;
};

// kLargeModelBytes: the Kineto importer copies a model (memory_bytes) up to
// this size to exact size, and gives a larger one's spare pages back instead
// (the copy was a large import's peak). Measured (docs/performance.md): the
// 10x bench trace (76 MB of model) is faster the first way, the 100x one
// (763 MB) peaks lower the second.
inline constexpr size_t kLargeModelBytes = size_t{256} << 20;

// Trace: everything imported from one source (one rank).
class Trace {
 public:
  StringPool strings;
  TraceInfo info;
  RankInfo rank;

  std::vector<Device> devices;
  std::vector<Process> processes;
  std::vector<Thread> threads;
  std::vector<Stream> streams;

  KernelTable kernels;
  MemcpyTable memcpys;
  MemsetTable memsets;
  ApiTable api_calls;
  SyncTable syncs;
  RangeTable ranges;
  MarkerTable markers;
  CollectiveTable collectives;
  KernelRuleTable kernel_rules;
  GpuProcessTable gpu_processes;
  std::vector<CounterSeries> counters;

  ImportStats stats;

  // FindDevice: the device with this ordinal, or nullptr.
  const Device* FindDevice(int32_t device_id) const;
  // GetOrAddDevice: the device with this ordinal, creating an empty one.
  Device& GetOrAddDevice(int32_t device_id);
  // Name: shorthand for strings.Get(id).
  std::string_view Str(StringId id) const { return strings.Get(id); }

  // Finalize: sort event tables by (start_ns, end_ns), remap side tables,
  // sort counter samples by time, and add devices referenced by events but
  // not declared. Importers call it once at the end. Idempotent. Past 64 Ki
  // ranges and markers, those two tables are sorted on a second thread; the
  // result is the same.
  void Finalize();

  // ReserveForGrowth: give every event table capacity for `factor` times
  // its current rows (factor > 1). Streaming importers call it once, early,
  // with the expected growth, so columns are allocated once at about their
  // final size instead of doubling (each doubling copies the column and, on
  // big inputs, leaves the old buffer resident in the heap). Capacity that is
  // never filled is address space only: its pages are never touched.
  void ReserveForGrowth(double factor);

  // ForEachEventTable: f(table) for every event table, in declaration order:
  // the one list of them for operations that treat all tables alike.
  template <typename F>
  void ForEachEventTable(F&& f) {
    EachEventTable(*this, f);
  }
  template <typename F>
  void ForEachEventTable(F&& f) const {
    EachEventTable(*this, f);
  }

  // AppendEventsFrom: append the rows of every event table of `part` (a
  // trace read from a later stretch of the same source, not yet finalized),
  // translating its string ids through `remap` (part id -> this pool's id,
  // one entry per part string) and re-pointing its collectives at the kernel
  // rows they now follow. Side tables (devices, processes, counters, ...),
  // info and stats are left to the caller, whose rules for merging them
  // depend on the format. growth > 1: a table without room for part's rows
  // is first given capacity for `growth` times the rows it will then hold (a
  // streaming importer's projection of what is still to come) instead of
  // doubling; otherwise columns grow as std::vector does.
  void AppendEventsFrom(const Trace& part, const std::vector<StringId>& remap, double growth = 0);

  // event_count: rows across all event tables (for throughput figures).
  size_t event_count() const;
  // memory_bytes: approximate bytes of the model: strings and the tables' rows.
  size_t memory_bytes() const;
  // TimeExtent: [min start, max end] over GPU and host events; missing when empty.
  std::pair<int64_t, int64_t> TimeExtent() const;

 private:
  template <typename Self, typename F>
  static void EachEventTable(Self& t, F& f) {
    f(t.kernels), f(t.memcpys), f(t.memsets), f(t.api_calls), f(t.syncs), f(t.ranges);
    f(t.markers), f(t.collectives), f(t.kernel_rules), f(t.gpu_processes);
  }
};

// SortOrder: the stable order of rows by (start, end) (columns of one table);
// empty, and *already_sorted true, when the rows are in that order, as every
// table is after Trace::Finalize(). Readers of a table that may not be
// finalized use it to visit rows in that order without copying them.
std::vector<uint32_t> SortOrder(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                bool* already_sorted);

}  // namespace gpuwhy::model
