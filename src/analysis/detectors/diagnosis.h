// Diagnosis: the ranked answer to "why is my GPU not doing real work".
//
// Order of reasoning: curve shape first (the utilization engineer's class),
// then the bottleneck type (the top finding's category), then the fixes,
// ordered for the scenario (dev / prod / shared / multi).
//
// Contract: Diagnose() is pure. It runs every registered detector on every
// trace, the cross-rank detector when there are >= 2 traces, ranks the
// findings by time lost (upper bounds; findings without an estimate come after,
// by severity), and writes a one-sentence top line with numbers. Findings'
// times overlap (one idle gap can matter to several fixes): never add them up.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detectors/finding.h"
#include "analysis/detectors/rank_digest.h"
#include "analysis/detectors/timeline.h"
#include "model/trace.h"

namespace gpuwhy::analysis {
struct ThroughputResult;  // analysis/throughput/throughput.h
}  // namespace gpuwhy::analysis

namespace gpuwhy::analysis::detectors {

// Scenario: who is asking, which changes the order of fixes.
enum class Scenario : uint8_t { kDev = 0, kProd = 1, kShared = 2, kMulti = 3 };
std::string_view ToString(Scenario s);
// ParseScenario: "dev" | "prod" | "shared" | "multi", else nullopt.
std::optional<Scenario> ParseScenario(std::string_view s);

// DiagnosisOptions: knobs of Diagnose().
struct DiagnosisOptions {
  std::optional<Scenario> scenario;  // nullopt: inferred
  // curve_shapes[i]: the curve class of trace i ("JUMPS", ...), when the caller
  // already has it; empty: Diagnose() computes it with AnalyzeUtilization().
  std::vector<std::string> curve_shapes;
  // curve_reasons[i] / curve_notes[i]: the class's reason, and the kernel-active
  // window's different class when there is one ("while kernels run ..."); may be empty.
  std::vector<std::string> curve_reasons;
  std::vector<std::string> curve_notes;
  // throughputs[i]: trace i's per-op throughput result when the caller has it
  // (AttachDiagnosis passes the utilization section's); it must outlive
  // Diagnose(). Empty or null: computed where needed.
  std::vector<const ThroughputResult*> throughputs;
};

// Fix: one recommendation, in scenario order, with the finding it comes from.
struct Fix {
  FixKind kind = FixKind::kKernelTuning;
  std::string text;
  std::string finding_id;
  double lost_step_ratio = kMissingF64;  // of that finding (upper bound)
};

// Diagnosis: the result.
struct Diagnosis {
  std::string top_line;              // one sentence answering "why", with numbers
  Scenario scenario = Scenario::kDev;
  bool scenario_inferred = true;
  std::string scenario_reason;       // why this scenario
  std::string curve_shape;           // JUMPS / WOBBLE / PINNED_HIGH / HEALTHY / IDLE / INSUFFICIENT_DATA
  std::string curve_reason;
  // curve_note: the kernel-active window's class when it differs from
  // curve_shape (the WHY line says both); empty otherwise.
  std::string curve_note;
  std::string bottleneck;            // e.g. "host: data loading"
  double idle_step_ratio = kMissingF64;       // primary trace/device
  double host_wait_idle_ratio = kMissingF64;  // share of that idle waiting on the host
  // kernel_step_ratio: share of the primary device's windows with a kernel
  // running (NVML's GPU-Util definition; copies alone do not count).
  double kernel_step_ratio = kMissingF64;
  // Real throughput of the primary trace/device from op shapes
  // (analysis/throughput): MFU, busy-time MFU, and one line splitting the
  // gap to the peak into GPU idle (busy-time MFU - MFU) and kernels below
  // peak (1 - busy-time MFU). Missing/empty without shapes or a peak row.
  double mfu_ratio = kMissingF64;
  double busy_mfu_ratio = kMissingF64;
  std::string real_throughput;
  // idle_ns_per_step_by_cause[c]: the primary device's GPU idle attributed to
  // IdleCause c, per step window (NaN without a kernel timeline).
  std::array<double, kIdleCauseCount> idle_ns_per_step_by_cause{
      kMissingF64, kMissingF64, kMissingF64, kMissingF64, kMissingF64, kMissingF64, kMissingF64};
  // The primary device's step windows (device-adjusted, tiling the steps'
  // span: what each step costs the GPU): mean, p50, p95 and population
  // standard deviation of their lengths; missing without a kernel timeline.
  double step_window_mean_ns = kMissingF64;
  double step_window_p50_ns = kMissingF64;
  double step_window_p95_ns = kMissingF64;
  double step_window_stddev_ns = kMissingF64;
  bool per_step_basis = true;        // false: no step markers, figures are of the span
  int32_t step_count = kMissingI32;
  int32_t rank_count = 0;
  std::vector<Finding> findings;     // ranked, most time lost first
  std::vector<Fix> fixes;            // scenario order
  std::vector<std::string> caveats;  // run-wide caveats
};

// Diagnose: see the file comment. `traces` are one job's ranks (or one trace).
// Exactly DigestRank() of each trace (rank_digest.h) then DiagnoseDigests().
Diagnosis Diagnose(const std::vector<const model::Trace*>& traces, const DiagnosisOptions& options);

// DiagnoseDigests: the diagnosis of one job's ranks from their digests, in
// input order: the cross-rank detectors (>= 2 ranks with GPU events), each
// per-rank finding id once (the worst rank's), the ranking, the scenario
// (`scenario`, else inferred), the headline from digests[0], the fixes and
// caveats. Pure; reads no trace.
Diagnosis DiagnoseDigests(const std::vector<RankDigest>& digests, std::optional<Scenario> scenario);

}  // namespace gpuwhy::analysis::detectors
