// Measured per-kernel figures (a kernel profiler's speed of light: Nsight
// Compute) and the one bound classifier of them.
//
// Contract: pure (trace in, plain structs out). Kernels are grouped by
// demangled name and launch configuration (grid, block); figures are means
// over the group's launches that measured them, weighted by duration.
// Nothing is guessed: a figure the profiler did not collect stays NaN.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// SolBound: what limits a kernel by its measured speed-of-light figures.
enum class SolBound : uint8_t { kUnknown, kCompute, kMemory, kLatency };
std::string_view ToString(SolBound b);  // "" | "compute" | "memory" | "latency"

// kSolBusyPct: a unit at or above this share of its peak is what limits the
// kernel; both SM and memory below it: neither is (latency-bound). Nsight
// Compute's SOLBottleneck rule calls < 60% on both "latency issues".
inline constexpr double kSolBusyPct = 60.0;

// ClassifySpeedOfLight: compute-bound when SM throughput is the higher of
// the two and >= kSolBusyPct, memory-bound when memory throughput is,
// latency-bound when both are below it; kUnknown when either is NaN.
SolBound ClassifySpeedOfLight(double sm_pct, double memory_pct);

// MeasuredRule: one of the profiler's rule results for a kernel group.
struct MeasuredRule {
  std::string rule;          // "SOLBottleneck", "CPIStall", ...
  std::string type;          // OPT | WRN | INF | ERR
  std::string message;
  std::string speedup_kind;  // "local" (of the kernel) | "global" (of the run) | ""
  double est_speedup_pct = kMissingF64;
};

// MeasuredKernel: one (name, grid, block) group.
struct MeasuredKernel {
  std::string name;  // demangled
  int32_t device_id = kMissingI32;
  int32_t grid[3] = {kMissingI32, kMissingI32, kMissingI32};
  int32_t block[3] = {kMissingI32, kMissingI32, kMissingI32};
  int32_t registers_per_thread = kMissingI32;
  int32_t shared_mem_bytes = kMissingI32;
  int64_t launches = 0;
  int64_t measured_launches = 0;  // with at least one measured figure
  int64_t time_ns = 0;            // summed durations
  double time_share_ratio = kMissingF64;  // of all kernel time
  double sm_active_pct = kMissingF64;  // SM active cycles / elapsed cycles
  double sm_throughput_pct = kMissingF64;
  double memory_throughput_pct = kMissingF64;
  double dram_throughput_pct = kMissingF64;
  double achieved_occupancy_pct = kMissingF64;
  double theoretical_occupancy_pct = kMissingF64;
  double est_occupancy_pct = kMissingF64;  // from the launch config, when known
  double tensor_pipe_pct = kMissingF64;
  SolBound bound = SolBound::kUnknown;
  std::vector<MeasuredRule> rules;  // OPT/WRN/ERR first, then by speedup; at most kMaxRules
  static constexpr size_t kMaxRules = 4;
};

// MeasuredKernels: the section.
struct MeasuredKernels {
  // untimed: the input is a per-kernel counter report (TraceInfo::kernels_untimed).
  bool untimed = false;
  int64_t kernels = 0;           // kernel rows
  int64_t measured_kernels = 0;  // rows with a measured figure
  int64_t kernel_time_ns = 0;
  std::string source;            // "measured (ncu)" / "measured (ncu), joined to the trace"
  std::vector<MeasuredKernel> groups;  // by time, descending; at most kMaxGroups
  static constexpr size_t kMaxGroups = 25;
};

// HasMeasuredFigures: whether any kernel of `trace` has a measured figure.
bool HasMeasuredFigures(const model::Trace& trace);

// AnalyzeMeasuredKernels: see the file comment. A per-kernel report
// (kernels_untimed) lists every kernel group, measured or not; a trace only
// the groups with a measured figure (none: empty groups).
MeasuredKernels AnalyzeMeasuredKernels(const model::Trace& trace);

}  // namespace gpuwhy::analysis
