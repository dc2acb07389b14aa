// RunDiff: what changed between two runs (`gpuwhy diff BEFORE AFTER`), and
// the CI gates over it (`--fail-if EXPR`).
//
// Contract: DiffRuns() and EvaluateGates() are pure functions of two
// RunProfiles. The step-time change is "beyond noise" when it exceeds twice
// the standard error of the difference of the two means (the steps' spread
// on each side, Welch); with fewer than 2 steps on a side the noise is
// unknown and said so. Findings match by id, kernels by (demangled) name.
//
// Gate grammar (docs/diff.md): METRIC OP SIGNED_VALUE UNIT | finding:ID
//   METRIC  step_time | p95_step_time | idle_ratio | busy_ratio | surface |
//           real | mfu | busy_mfu | copies_per_step | syncs_per_step
//   OP      > | <
//   UNIT    % (relative change) | pp (percentage points; ratio metrics) |
//           ms (absolute change; time metrics)
//   finding:ID  fails when the AFTER run has finding ID (with its loss > 0).
// Example: "step_time>+5%", "idle_ratio>+3pp", "mfu<-2pp".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/diff/run_profile.h"
#include "base/status.h"

namespace gpuwhy::analysis {

// MetricDelta: one compared figure.
struct MetricDelta {
  std::string name;   // gate name, e.g. "step_time"
  std::string label;  // human label
  std::string unit;   // "ns" | "ratio" | "count" | "bytes"
  double before = kMissingF64;
  double after = kMissingF64;
  double change_ratio = kMissingF64;  // (after - before) / before
  double change_pp = kMissingF64;     // (after - before) * 100 for ratios
};

// FindingDelta: one finding id across the runs.
struct FindingDelta {
  std::string id;
  std::string title;
  std::string status;  // "resolved" | "new" | "changed" | "same"
  int64_t before_lost_ns = kMissingI64;  // per step
  int64_t after_lost_ns = kMissingI64;
  // The BEFORE run's prediction of the step after fixing this cause, and how
  // it compares with the AFTER run's mean step (resolved findings only).
  int64_t predicted_step_ns = kMissingI64;
  double prediction_error_ratio = kMissingF64;  // (predicted - actual) / actual
};

// KernelDelta: one kernel name across the runs (per step when both have steps).
struct KernelDelta {
  std::string name;
  std::string status;  // "both" | "new" | "vanished"
  double before_count = kMissingF64, after_count = kMissingF64;
  double before_ns = kMissingF64, after_ns = kMissingF64;
};

// RunDiff: see the file comment.
struct RunDiff {
  RunProfile before, after;
  std::vector<MetricDelta> metrics;  // step time first
  bool step_change_beyond_noise = false;
  bool noise_known = false;
  double step_noise_ns = kMissingF64;  // 2 x standard error of the difference
  std::vector<double> idle_before_ns, idle_after_ns;  // per cause, per step
  std::vector<FindingDelta> findings;  // resolved, new, changed, same
  std::vector<KernelDelta> kernels;    // by |time change|, most first
  std::string headline;                // one sentence, as a person would say it
};

// DiffRuns: compare two profiles.
RunDiff DiffRuns(const RunProfile& before, const RunProfile& after);

// Gate: one parsed --fail-if expression.
struct Gate {
  std::string text;     // as given
  std::string metric;   // "" for finding gates
  char op = '>';
  double value = 0;     // signed
  std::string unit;     // "%" | "pp" | "ms"
  std::string finding;  // finding gates
};

// ParseGate: parse one expression; InvalidInput with the reason when it does
// not follow the grammar.
Result<Gate> ParseGate(std::string_view text);

// EvaluateGates: one line per violated gate ("step_time>+5%: 174.8 ms -> 190.1
// ms (+8.7%)"); empty when all hold. A gate whose figure is missing on either
// side is violated too, and says so (a gate that cannot be checked fails).
std::vector<std::string> EvaluateGates(const std::vector<Gate>& gates, const RunDiff& diff);

}  // namespace gpuwhy::analysis
