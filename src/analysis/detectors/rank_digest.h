// RankDigest: everything the diagnosis needs of one rank (one trace), so that
// the cross-rank part of the diagnosis never reads a model::Trace.
//
// Lifecycle: DigestRank() runs once per trace (the per-trace detectors, the
// predictions, the primary device's step windows and idle intervals, the
// headline figures); DiagnoseDigests() (diagnosis.h) merges any number of
// digests into one Diagnosis (cross-rank detectors, ranking, top line).
// `Diagnose()` of raw traces is exactly DigestRank() per trace followed by
// DiagnoseDigests(); a `.gwsum` file (docs/gwsum.md) stores the digest, so a
// rank set merged from summaries gets the same diagnosis as its raw traces.
//
// Contract: plain data, no pointers into a trace; times are int64 ns on the
// rank's own trace clock; missing values are the base/units.h sentinels.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/detectors/counter_detector.h"
#include "analysis/detectors/finding.h"
#include "analysis/detectors/timeline.h"
#include "base/units.h"

namespace gpuwhy::analysis {
struct ThroughputResult;  // analysis/throughput/throughput.h
}  // namespace gpuwhy::analysis

namespace gpuwhy::analysis::detectors {

// PrimaryDigest: the figures of a rank's primary device (most kernel time).
struct PrimaryDigest {
  int32_t device_id = kMissingI32;
  std::vector<StepWindow> steps;    // device-adjusted windows, tiling the steps' span
  bool steps_from_markers = false;  // false: one synthesized window = device span
  int64_t steps_total_ns = 0;       // summed window lengths
  int64_t idle_ns = 0;              // summed idle inside the windows
  std::array<int64_t, kIdleCauseCount> idle_by_cause_ns{};  // by IdleCause
  int64_t kernel_in_steps_ns = 0;   // |kernel busy ∩ windows|
  int64_t compute_in_steps_ns = 0;  // |non-communication kernel busy ∩ windows|
  int64_t comm_in_steps_ns = 0;     // |communication kernel busy ∩ windows|
  int64_t busy_in_span_ns = 0;      // |busy ∩ [first window start, last window end)|
  // idle: SlowHostIdle(windows − busy (kernels + copies + memsets)): the
  // intervals the "all ranks idle at once" test intersects across ranks (cut
  // to whole µs, gaps under 30 µs left out; idle_ns counts all idle).
  IntervalList idle;
};

// NodeCurve: the curve class of one counter-only device (node top line).
struct NodeCurve {
  int32_t device_id = kMissingI32;
  std::string curve_class;
  std::string reason;
};

// RankDigest: see the file comment.
struct RankDigest {
  int32_t trace_rank = kMissingI32;  // trace.rank.rank (missing when the trace does not say)
  int32_t world_size = kMissingI32;
  std::string clock;                 // TraceInfo::clock
  int64_t extent_start_ns = kMissingI64;  // Trace::TimeExtent()
  int64_t extent_end_ns = kMissingI64;
  int64_t first_comm_end_ns = kMissingI64;  // end of the first communication kernel
  bool has_gpu_events = false;       // a rank (not a counter log)
  bool has_counters = false;         // trace.counters is not empty, or kernels carry measured figures (ncu)
  // TraceInfo::host_only_profile, with the host's step ranges (ranges with a
  // step number): their count and mean length (kMissingI64 without steps).
  bool host_only_profile = false;
  int32_t host_steps = 0;
  int64_t host_step_mean_ns = kMissingI64;
  int64_t longest_marked_step_ns = 0;  // max mean step over devices with step markers
  // findings: every per-trace detector's findings, predictions set; `rank`
  // fields carry trace_rank (DiagnoseDigests numbers missing ones by input).
  std::vector<Finding> findings;
  std::optional<PrimaryDigest> primary;  // none without GPU events
  std::string curve_shape;   // of the primary device (utilization verdict)
  std::string curve_reason;
  std::string curve_note;
  double mfu_ratio = kMissingF64;       // of the primary device, when modelled
  double busy_mfu_ratio = kMissingF64;
  std::string real_throughput;          // the diagnosis line; empty without MFU
  // Counters only (no primary): every counter-only device's sampled stats,
  // and with >= 2 of them each device's curve class (the node top line).
  std::vector<SampledDeviceStats> node;
  std::vector<NodeCurve> node_curves;
};

// DigestOptions: what the caller already computed for this trace.
struct DigestOptions {
  // curve_shape/reason/note: the utilization section's verdict of the busiest
  // device; empty shape: DigestRank() runs AnalyzeUtilization() itself.
  std::string curve_shape;
  std::string curve_reason;
  std::string curve_note;
  // throughput: the trace's per-op throughput result, or null (computed where needed).
  const ThroughputResult* throughput = nullptr;
};

// DigestRank: the digest of one Finalize()d trace. Pure.
RankDigest DigestRank(const model::Trace& trace, const DigestOptions& options);
// DigestRank: the same, from `timeline` = BuildTimeline(trace), which the
// caller may build while other sections run (the timeline reads no section).
RankDigest DigestRank(const model::Trace& trace, const Timeline& timeline,
                      const DigestOptions& options);
// DigestRank: the same, from a timeline it may consume: its idle gaps and
// kernel unions are freed once read, before the digest's idle intervals are
// built (36 MB, at what was the peak of `analyze` on a 21 M-event trace).
RankDigest DigestRank(const model::Trace& trace, Timeline&& timeline, const DigestOptions& options);

}  // namespace gpuwhy::analysis::detectors
