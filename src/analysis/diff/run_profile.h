// RunProfile: the figures of one analysed run that `gpuwhy diff` compares.
//
// Contract: ProfileOf() is pure and reads only the Analysis (no trace), so a
// saved `analyze --json` report, which carries the same profile under
// "run_profile" (report/json), compares exactly like the run itself. The
// primary device is the one with the most kernel time in traces[0]; a rank
// set keeps that rank's figures plus the slowest rank's mean ProfilerStep. Missing is
// NaN / kMissingI64, never 0.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/detectors/timeline.h"
#include "base/units.h"

namespace gpuwhy::analysis {

struct Analysis;  // analysis/analysis.h (which holds a RunProfile)

// RunProfile: see the file comment.
struct RunProfile {
  std::string label;              // input path(s)
  int32_t rank_count = 0;
  bool per_step_basis = false;    // false: no step markers, "step" is the GPU-op span
  int32_t step_count = kMissingI32;
  // Step figures: the diagnosis's device-adjusted step windows of the
  // primary device (what a step costs the GPU; the prediction's step too),
  // else the ProfilerStep durations, else the GPU-op span.
  double step_mean_ns = kMissingF64;
  double step_p50_ns = kMissingF64;
  double step_p95_ns = kMissingF64;
  double step_stddev_ns = kMissingF64;  // population standard deviation of the steps
  double slowest_rank_step_mean_ns = kMissingF64;  // rank sets
  double busy_ratio = kMissingF64;      // 1 - idle share of the diagnosis windows
  double idle_ratio = kMissingF64;
  // idle_ns_per_step[c]: GPU idle attributed to detectors::IdleCause c, per step.
  std::array<double, detectors::kIdleCauseCount> idle_ns_per_step{};
  bool has_idle_causes = false;
  double surface_ratio = kMissingF64;   // GPU-Util as NVML would report it
  double real_ratio = kMissingF64;      // headline real figure (SM fill / counters)
  double mfu_ratio = kMissingF64;
  double busy_mfu_ratio = kMissingF64;
  std::string curve_class;
  std::string bottleneck;
  std::string top_line;
  struct FindingRow {
    std::string id;
    std::string title;
    int64_t lost_per_step_ns = kMissingI64;
    double lost_step_ratio = kMissingF64;
    int64_t predicted_step_ns = kMissingI64;
  };
  std::vector<FindingRow> findings;  // ranked as in the diagnosis
  struct KernelRow {
    std::string name;
    int64_t count = 0;
    int64_t total_ns = 0;
  };
  std::vector<KernelRow> top_kernels;  // the primary device's top kernels by time
  double copies_per_step = kMissingF64;
  double copy_bytes_per_step = kMissingF64;
  double syncs_per_step = kMissingF64;  // host-blocking sync calls
};

// ProfileOf: the profile of an analysis (see the file comment).
RunProfile ProfileOf(const Analysis& analysis);

}  // namespace gpuwhy::analysis
