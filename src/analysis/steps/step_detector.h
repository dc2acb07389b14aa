// Steps (training/inference iterations) of a trace and their statistics.
//
// Contract: FindSteps() is pure. It prefers explicit markers, in this order:
// ProfilerStep#N host ranges (model ranges with a valid `step`), then NVTX or
// user ranges whose name looks like a step ("step", "iteration", "batch",
// ...), and finally the period of the repeating kernel-name sequence on the
// busiest device. Each result says which source it used. Steps are sorted by
// start and do not overlap (a step ends where the next begins at the latest).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// StepSource: where the step boundaries came from.
enum class StepSource : uint8_t {
  kNone = 0,          // no steps found
  kProfilerStep = 1,  // ProfilerStep#N ranges (torch.profiler)
  kMarkerRange = 2,   // NVTX / user annotation ranges named like a step
  kKernelPeriod = 3,  // period of the repeating kernel-name sequence
};

// ToString: "none", "profiler_step", "marker_range", "kernel_period".
const char* ToString(StepSource s);

// Step: one iteration, [start_ns, end_ns) on the trace clock.
struct Step {
  int32_t number = kMissingI32;  // N of ProfilerStep#N; index otherwise
  int64_t start_ns = kMissingI64;
  int64_t end_ns = kMissingI64;
};

// StepStats: distribution of step durations. Missing (NaN) with no steps;
// the jitter figures are missing with fewer than 2 steps.
struct StepStats {
  int32_t count = 0;
  double mean_ns = kMissingF64;
  double p50_ns = kMissingF64;
  double p95_ns = kMissingF64;
  double stddev_ns = kMissingF64;
  double jitter_ratio = kMissingF64;  // stddev / mean
  double p95_over_p50 = kMissingF64;
};

// StepResult: the steps of one trace and where they came from.
struct StepResult {
  StepSource source = StepSource::kNone;
  std::string marker_name;  // range name used (kMarkerRange) or anchor kernel (kKernelPeriod)
  int32_t period_kernels = kMissingI32;  // kernels per step (kKernelPeriod only)
  std::vector<Step> steps;
  StepStats stats;
};

// FindSteps: steps of `trace` (see the file comment for the order of sources).
StepResult FindSteps(const model::Trace& trace);

// MarkerRangeSteps: the NVTX / user-annotation ranges named like a step (the
// most frequent such name, at least 2 of them; ranges PyTorch puts inside a
// step excluded), by start; empty when there are none. `name` (may be null)
// receives the range name.
std::vector<Step> MarkerRangeSteps(const model::Trace& trace, std::string* name);

// ComputeStepStats: statistics of step durations (end - start).
StepStats ComputeStepStats(const std::vector<Step>& steps);

// Percentile: linear-interpolated percentile (q in 0..1) of `values`, which
// it sorts; NaN when empty.
double Percentile(std::vector<double> values, double q);

}  // namespace gpuwhy::analysis
