// Surface vs real GPU utilization per device, and the shape of the curve.
//
// Contract: AnalyzeUtilization() is pure (trace in, plain structs out).
// - Surface: NVML GPU-Util rebuilt from the trace (share of each sample period
//   in which >= 1 kernel ran) at NVML's 1/6 s and 1 s periods, a fine period
//   and per step; or read from kGpuUtil counter series with their own period.
// - Real: SM fill (time integral of min(1, sum of blocks/SM of running
//   kernels)), duration-weighted estimated occupancy, tensor-core share and
//   kernel-class shares from kernel names, and time-weighted counter means.
//   Every figure names its source ("trace: launch config", "counter: DCGM"...).
// - Headline real utilization (docs/utilization.md): SM-active counter mean
//   when a counter gives it, else the trace SM fill; the gap is surface - real.
// - Curve class from the fine series (ClassifyCurve) over the window the user
//   pays for (the marked steps' span, else the device window of kernels,
//   copies and memsets widened to the profiler's capture window when the
//   source states it), the kernel-active window's class beside it when it
//   differs, and the NVML-period verdict with an aliasing note when the two
//   disagree.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/steps/run_phases.h"
#include "analysis/steps/step_detector.h"
#include "analysis/throughput/throughput.h"
#include "analysis/utilization/curve_classifier.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// UtilizationOptions: sample periods of the rebuilt surface series.
struct UtilizationOptions {
  int64_t nvml_fast_period_ns = kNsPerS / 6;  // NVML's shortest period (1/6 s)
  int64_t nvml_slow_period_ns = kNsPerS;      // NVML's longest period (1 s)
  int64_t fine_period_ns = kMissingI64;       // missing: adaptive (step/16, 1..10 ms)
  size_t max_bins = 200'000;                  // the fine period grows to stay under this
  // The NVML-period series are left out past this many samples (32 MiB each):
  // 8 days of GPU window at 1/6 s. Why: their period is NVML's, so it cannot
  // grow, and one kernel with a bogus timestamp in an epoch-clock trace makes
  // a window of decades (a year of it took 3.2 GB before this bound). A series
  // re-binned over the marked steps' span for its verdict is bounded alike
  // (no samples, so no class, past it).
  size_t max_nvml_samples = size_t{1} << 22;
};

// UtilSeries: one sampled surface-utilization series.
struct UtilSeries {
  std::string label;                // "fine", "nvml_1/6s", "nvml_1s", "step", "counter"
  std::string source;               // "trace: kernel timeline", "counter: nvidia-smi", ...
  int64_t period_ns = kMissingI64;  // effective period (mean step for "step")
  int64_t start_ns = kMissingI64;
  std::vector<double> util_ratio;
  double mean_ratio = kMissingF64;
};

// Figure: one number with where it came from; value is NaN when unknown.
struct Figure {
  double value = kMissingF64;
  std::string source;
};

// GapStats: idle gaps of the merged kernel intervals inside the verdict window,
// its edges included (idle from the window's start to the first kernel, and
// from the last kernel to its end).
struct GapStats {
  int64_t count = 0;
  double p50_ns = kMissingF64;
  double p95_ns = kMissingF64;
  double max_ns = kMissingF64;
  double idle_ratio = kMissingF64;           // idle share of the window
  double long_gap_idle_share = kMissingF64;  // share of idle time in gaps >= 1 ms
  double long_gaps_per_step = kMissingF64;
  double long_gap_ns_per_step = kMissingF64;  // idle ns in gaps >= 1 ms, per step
};

// DeviceUtilization: everything for one device.
struct DeviceUtilization {
  int32_t device_id = kMissingI32;
  int64_t window_start_ns = kMissingI64;
  int64_t window_end_ns = kMissingI64;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;  // summed kernel durations

  Figure surface_ratio;  // busy share of the window (what GPU-Util averages to)
  std::vector<UtilSeries> series;

  Figure sm_fill_ratio;                   // over the window
  // SM fill over the verdict window and the kernel-active window (what the
  // classifier compares the surface with over the same time).
  double sm_fill_verdict_ratio = kMissingF64;
  double sm_fill_active_ratio = kMissingF64;
  int64_t active_window_start_ns = kMissingI64;  // first kernel start
  int64_t active_window_end_ns = kMissingI64;    // last kernel end
  double sm_fill_coverage = kMissingF64;  // share of kernel time with a blocks/SM value
  Figure occupancy_ratio;                 // duration-weighted over kernels
  double occupancy_coverage = kMissingF64;
  Figure tensor_core_share;                             // of kernel time
  std::array<double, kKernelClassCount> class_share{};  // of kernel time
  double triton_share = kMissingF64;                    // of kernel time
  double graph_share = kMissingF64;                     // of kernel time (graph_id valid)

  Figure counter_sm_active;
  Figure counter_sm_occupancy;
  Figure counter_tensor_active;
  Figure counter_dram_active;
  Figure counter_power_ratio;  // power / power limit
  Figure counter_sm_clock_mhz;

  Figure real_ratio;            // headline
  double gap_pp = kMissingF64;  // (surface - real) in percentage points

  GapStats gaps;
  // verdict: from the fine series (or counters) over the window the user pays
  // for: the marked steps' span, else the device window (verdict_window says
  // which; empty for counters).
  CurveVerdict verdict;
  // verdict_window: "marked steps" (their device-adjusted windows) | "loop"
  // (no markers: the kernel loop, set-up and teardown left out; run_phases.h)
  // | "captured span" | "GPU-op span" | "" (counters).
  std::string verdict_window;
  int64_t verdict_window_ns = kMissingI64;
  // setup_ns / teardown_ns: with verdict_window "loop", the capture's time
  // before and after the loop (one-off phases); 0 otherwise.
  int64_t setup_ns = 0;
  int64_t teardown_ns = 0;
  // active_verdict: the same series over the kernel-active window, when that
  // differs from the verdict window by a sample or more; window_note says both
  // when the classes differ.
  bool has_active_verdict = false;
  CurveVerdict active_verdict;
  std::string window_note;
  CurveVerdict nvml_verdict;  // from the NVML 1/6 s series
  std::string aliasing_note;  // when the NVML verdict disagrees or is aliased
};

// UtilizationResult: the steps used and one entry per device with activity.
struct UtilizationResult {
  StepResult steps;
  std::vector<DeviceUtilization> devices;
  // throughput: FLOPs/bytes per op, roofline, MFU over the same steps
  // (src/analysis/throughput; the "real throughput" line of the block).
  ThroughputResult throughput;
};

// AnalyzeUtilization: see the file comment. Its windows are the run's
// (`run` = BuildRunSteps(trace), built once by the caller for every section).
UtilizationResult AnalyzeUtilization(const model::Trace& trace, const UtilizationOptions& options,
                                     const RunSteps& run);
// AnalyzeUtilization: the same, building the run's steps itself.
UtilizationResult AnalyzeUtilization(const model::Trace& trace,
                                     const UtilizationOptions& options = {});

// kMaxHoldPeriods: a counter sample holds for at most this many sample periods.
inline constexpr int64_t kMaxHoldPeriods = 3;

// TimeWeightedMean: mean of the valid samples of `s`, each weighted by how
// long it holds (until the next sample, or one period at the end; at most
// kMaxHoldPeriods periods). Without a period: the gap to the next sample (the
// previous one for the last), at least 1 ns. NaN when no sample is valid.
double TimeWeightedMean(const model::CounterSeries& s);

// TimeWeightedMeanOver: time-weighted mean of `s` over [t0, t1): each valid
// sample holds until the next (the last one for the previous spacing), cut
// to the window. NaN when no sample overlaps it.
double TimeWeightedMeanOver(const model::CounterSeries& s, int64_t t0, int64_t t1);

// kGrEngineRealSource: how real_ratio's source starts when the real figure is
// graphics-engine activity (DCGM GRACT / DCGM_FI_PROF_GR_ENGINE_ACTIVE, nsys
// "GR Active"), the only activity figure of a counter log without SM activity:
// the time a context kept the engine busy, not SM activity. It is carried in
// the source string so that a .gwsum summary keeps the label.
inline constexpr std::string_view kGrEngineRealSource =
    "graphics-engine activity (GRACT), not SM activity";

// RealIsGrEngineActivity: `du.real_ratio` is graphics-engine activity (no gap,
// no classifier input, and never to be labelled SM activity).
bool RealIsGrEngineActivity(const DeviceUtilization& du);

// CounterSourceLabel: "counter: <source>" for a series' source string
// ("nsys GPU_METRICS", "DCGM", "NVML GPM", ...).
std::string CounterSourceLabel(const model::Trace& trace, const model::CounterSeries& s);

}  // namespace gpuwhy::analysis
