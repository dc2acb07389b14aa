// PerfettoView: what `gpuwhy analyze --perfetto FILE` draws beside the
// trace's own events: gpuwhy's counter tracks, the idle-cause track and the
// findings, per device, for each input (rank).
//
// Lifecycle: the CLI imports and analyzes, then calls BuildPerfettoView()
// with the same traces (kept alive) and the Analysis; report::RenderPerfetto
// formats the view. Unlike Analysis, the view points into the traces: their
// events (kernels, copies, API calls, CPU ops) are written straight from the
// model tables rather than copied, so the traces must outlive rendering.
//
// Contract: BuildPerfettoView() is pure and linear in events (plus the sorts
// of BuildTimeline and the fill sweep). Causes come from
// detectors::BuildTimeline(); nothing here re-derives them. Times are int64 ns
// on each trace's own clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/detectors/timeline.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// CounterPoint: a counter's value from ts_ns until the next point.
struct CounterPoint {
  int64_t ts_ns = 0;
  double value = 0;
};

// CounterTrack: one gpuwhy counter track of a device.
struct CounterTrack {
  std::string name;    // track name, e.g. "GPU-Util (NVML 1/6 s)"
  std::string unit;    // the value's unit and args key: "pct", "MHz", "mW", ...
  std::string source;  // where the numbers come from
  std::vector<CounterPoint> points;  // by time; NaN samples left out
};

// IdleSlice: one idle piece on the idle-cause track. A gap split between a
// DataLoader range and another cause gives one slice per sub-interval.
struct IdleSlice {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  detectors::IdleCause cause = detectors::IdleCause::kOther;
  // finding_id: the finding that covers this idle (CauseFindingId, or
  // kOneOffGapFindingId for one-off gaps); empty when none does (kOther).
  std::string_view finding_id;
  bool one_off = false;
  bool edge = false;
  int32_t step = kMissingI32;  // the step number when steps are marked
  int64_t gap_start_ns = 0;    // the whole gap this slice belongs to
  int64_t gap_end_ns = 0;
};

// DeviceView: everything drawn for one device (device_id missing: host-wide
// counters of the input).
struct DeviceView {
  int32_t device_id = kMissingI32;
  std::vector<CounterTrack> counters;
  std::vector<IdleSlice> idle;  // by time
};

// FindingMark: one finding at one of its worst examples (or, with no timed
// example, at the start of its device's window; `placed` says which).
struct FindingMark {
  int64_t ts_ns = 0;
  int64_t dur_ns = kMissingI64;
  int32_t device_id = kMissingI32;  // missing: trace-wide
  std::string id;
  std::string title;
  std::string severity;
  int64_t lost_per_step_ns = kMissingI64;
  double lost_step_ratio = kMissingF64;
  std::string what;    // the example's name (API, kernel, range)
  std::string detail;
  int32_t step = kMissingI32;
  int32_t example_index = -1;  // -1: no timed example
};

// TraceView: one input.
struct TraceView {
  const model::Trace* trace = nullptr;  // events are rendered from here
  std::string label;                    // "rank 0" in a rank set, else empty
  int64_t pid_offset = 0;               // added to every pid of this input
  int64_t flow_id_offset = 0;           // added to every flow id (correlation id)
  std::vector<DeviceView> devices;      // by device id, host-wide (missing id) last
  std::vector<FindingMark> findings;
  // Flow links launch -> GPU op: per api_calls row, whether a kernel, copy or
  // memset has its correlation id; per GPU-op row, whether an API call does.
  std::vector<bool> api_has_gpu_op;
  std::vector<bool> kernel_has_api;
  std::vector<bool> memcpy_has_api;
  std::vector<bool> memset_has_api;
  // kernel_collective[row]: the trace.collectives row of a communication
  // kernel (its collective args), or UINT32_MAX.
  std::vector<uint32_t> kernel_collective;
};

// PerfettoView: all inputs, in input order.
struct PerfettoView {
  std::vector<TraceView> traces;
};

// kRankPidStride: in a rank set (several inputs), input i's pids are offset
// by i * kRankPidStride (above Linux's pid_max of 2^22), its flow ids by
// i << 40, so ranks never share a track or a flow.
inline constexpr int64_t kRankPidStride = 10'000'000;
inline constexpr int64_t kRankFlowIdShift = 40;

// BuildPerfettoView: see the file comment. `analysis.traces[i]` belongs to
// `traces[i]` (the same order, AnalyzeTraces/AttachDiagnosis of the CLI).
PerfettoView BuildPerfettoView(const std::vector<model::Trace>& traces, const Analysis& analysis);

}  // namespace gpuwhy::analysis
