// HtmlView: the series the HTML report draws that the other sections do not
// already compute: the busy/idle curve with idle time by cause per time bin,
// the per-step stacked breakdown, the kernel-duration histogram, per-rank step
// statistics, and min/max envelopes of long utilization and counter series.
//
// Contract: BuildHtmlView() is pure (traces + their Analysis in, plain structs
// out) and bounded: every series has at most HtmlViewOptions' point counts,
// whatever the trace size, so the page stays a few MB. Idle causes come from
// detectors::BuildTimeline() (never re-derived here); a gap piece that was
// split (DataLoader part + the rest) is spread over its whole gap in
// proportion to its attributed length, since the timeline keeps one interval
// per gap. Times are int64 ns on the trace clock; ratios 0..1.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/detectors/timeline.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis::views {

// HtmlViewOptions: point budgets. The curve and series budgets are split
// between the traces of a rank set (at least the min_* values each).
struct HtmlViewOptions {
  size_t max_curve_bins = 2000;     // busy/idle-by-cause curve, per device (one trace)
  size_t min_curve_bins = 400;      // per device when the budget is split over ranks
  size_t max_series_points = 3000;  // each utilization / counter envelope (one trace)
  size_t min_series_points = 500;   // each envelope when split over ranks
  size_t max_steps = 2000;          // per-step breakdown rows (first N steps)
};

// Envelope: a series reduced to at most N points; point i covers
// [start_ns + i*bin_ns, start_ns + (i+1)*bin_ns) and holds the min, max and
// mean of the samples in it (NaN where none). `reduced` is false when every
// point is one sample (then min == max == mean).
struct Envelope {
  std::string label;   // "fine", "nvml_1/6s", "step", "GPU-Util", "SM active", ...
  std::string source;  // "trace: kernel timeline", "counter: nvidia-smi", ...
  std::string unit;    // "ratio" for utilization; else the counter's unit name
  int64_t start_ns = kMissingI64;
  int64_t bin_ns = kMissingI64;
  int64_t source_period_ns = kMissingI64;  // period of the series before reduction
  bool reduced = false;
  // untimed: the source had no timestamps; start_ns and bin_ns count samples
  // (0, 1, 2, ...), not ns.
  bool untimed = false;
  std::vector<double> min;
  std::vector<double> max;
  std::vector<double> mean;
};

// ReduceRegular: a regularly sampled series (value i at start + i*period) as
// an Envelope of at most max_points points (merging whole runs of samples).
Envelope ReduceRegular(int64_t start_ns, int64_t period_ns, const std::vector<double>& values,
                       size_t max_points);

// ReduceSamples: irregular samples (ts_ns ascending, NaN = missing) binned by
// time into at most max_points points over [first, last sample].
Envelope ReduceSamples(const std::vector<int64_t>& ts_ns, const std::vector<double>& values,
                       size_t max_points);

// CauseCurve: GPU time per bin split into what ran and why it was idle,
// each as a share of the bin (0..1; together they fill the part of the bin
// inside step windows). compute: non-communication kernels; comm: collective
// kernels not overlapped by compute; copy: memcpy/memset with no kernel.
struct CauseCurve {
  int64_t start_ns = kMissingI64;
  int64_t bin_ns = kMissingI64;
  std::vector<double> compute_ratio;
  std::vector<double> comm_ratio;
  std::vector<double> copy_ratio;
  std::array<std::vector<double>, detectors::kIdleCauseCount> idle_ratio;  // by IdleCause
};

// StepBreakdown: one step window's time, split like CauseCurve (ns).
struct StepBreakdown {
  int32_t step = kMissingI32;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t compute_ns = 0;
  int64_t comm_ns = 0;
  int64_t copy_ns = 0;
  std::array<int64_t, detectors::kIdleCauseCount> idle_ns{};
};

// Histogram: kernel durations in log-spaced bins (4 per decade from 1 µs to
// 10 s, plus [0, 1 µs) first); bin i is [edges_ns[i], edges_ns[i+1]) and the
// last bin is open ended. Empty when the device has no kernels.
struct Histogram {
  std::vector<int64_t> edges_ns;
  std::vector<int64_t> count;
  std::vector<int64_t> total_ns;
};

// DeviceView: everything drawn for one device.
struct DeviceView {
  int32_t device_id = kMissingI32;
  bool has_events = false;
  std::vector<int64_t> step_starts_ns;  // step window starts (boundaries), first N
  bool steps_from_markers = false;
  CauseCurve curve;                   // empty without events
  std::vector<Envelope> utilization;  // the UtilSeries "fine", "nvml_1/6s", "step"
  std::vector<StepBreakdown> steps;   // first max_steps windows
  size_t steps_total = 0;             // all windows (steps.size() may be fewer)
  Histogram kernel_durations;
  // counters: sampled activity ratios (GPU-Util, SM active, occupancy, tensor,
  // DRAM, ...), power, power limit and SM clock; unit as model::ToString(CounterUnit).
  std::vector<Envelope> counters;
};

// TraceView: one input.
struct TraceView {
  std::vector<DeviceView> devices;  // same order as the trace's utilization devices,
                                    // then counter-only devices
};

// RankStats: one trace of a rank set, its primary device (most kernel time).
struct RankStats {
  size_t trace_index = 0;
  int32_t rank = kMissingI32;  // input rank, or the trace index when unknown
  int32_t device_id = kMissingI32;
  int64_t step_count = 0;
  double mean_step_ns = kMissingF64;
  double compute_ns_per_step = kMissingF64;
  double comm_ns_per_step = kMissingF64;
  double idle_ns_per_step = kMissingF64;
  bool straggler = false;  // named by the diagnosis' imbalance.stragglers finding
};

// HtmlView: the whole page's derived data, traces in Analysis order.
struct HtmlView {
  std::vector<TraceView> traces;
  std::vector<RankStats> ranks;  // only when >= 2 traces have events
};

// CoverageByBin: |list ∩ [edges[i], edges[i+1])| for each bin (edges ascending).
std::vector<int64_t> CoverageByBin(const detectors::IntervalList& list,
                                   const std::vector<int64_t>& edges);

// KernelDurationHistogram: the Histogram of `trace`'s kernels on `device_id`.
Histogram KernelDurationHistogram(const model::Trace& trace, int32_t device_id);

// BuildDeviceView: the view of one device given its timeline (nullptr when
// the device has no GPU events) and utilization entry (nullptr when none).
DeviceView BuildDeviceView(const model::Trace& trace, int32_t device_id,
                           const detectors::DeviceTimeline* timeline,
                           const DeviceUtilization* utilization, size_t curve_bins,
                           const HtmlViewOptions& options);

// BuildHtmlView: the view of `traces` (analysis.traces[i] is traces[i]).
HtmlView BuildHtmlView(const std::vector<model::Trace>& traces, const Analysis& analysis,
                       const HtmlViewOptions& options = {});

}  // namespace gpuwhy::analysis::views
