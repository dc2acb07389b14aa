// Per-kernel SM fill and estimated occupancy, and their step functions over
// time: the one place that turns a kernel's launch configuration into
// "blocks per SM" and "est. occupancy". AnalyzeUtilization() integrates them
// into the device's SM fill and occupancy figures; the Perfetto view draws
// them as counter tracks.
//
// Contract: pure functions of a Finalize()d model::Trace; missing inputs give
// NaN (never 0).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/gpu_arch/arch_limits.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// KernelLaunchFigures: what one kernel row's launch config says.
struct KernelLaunchFigures {
  double blocks_per_sm = kMissingF64;  // > 0, or NaN
  bool blocks_per_sm_from_arg = false;  // the source's "blocks per SM" (else grid / SM count)
  double occupancy_ratio = kMissingF64;  // 0..1, or NaN
  bool occupancy_from_arg = false;       // the source's "est. achieved occupancy %"
};

// KernelFigures: blocks/SM of kernel `row` (the source's value when > 0, else
// grid blocks / `sm_count` when both are known) and its estimated occupancy
// (the source's value, else Kineto's estimate from the launch config and
// `limits` when `limits` is not null and block size and registers are known).
KernelLaunchFigures KernelFigures(const model::Trace& trace, uint32_t row, int32_t sm_count,
                                  const ArchLimits* limits);

// StepPoint: a step function's value from ts_ns until the next point.
struct StepPoint {
  int64_t ts_ns = 0;
  double value = 0;
};

// KernelFillSteps: one device's step functions.
//   sm_fill: min(1, Σ blocks/SM of the running kernels) — the integrand of
//            DeviceUtilization::sm_fill_ratio; 0 while no kernel runs.
//   occupancy: mean est. occupancy ratio of the running kernels that have one
//            (a single stream runs one kernel at a time, so this is that
//            kernel's); 0 while none of them runs. Kernels without a value do
//            not count: occupancy_coverage says how much kernel time has one.
// Points are in time order, consecutive points differ in value, and each
// series ends with a point at the last kernel end. A series is empty when no
// kernel of the device has its value.
struct KernelFillSteps {
  int32_t device_id = kMissingI32;
  std::vector<StepPoint> sm_fill;
  std::vector<StepPoint> occupancy;
  double sm_fill_coverage = kMissingF64;    // share of kernel time with blocks/SM
  double occupancy_coverage = kMissingF64;  // share of kernel time with an occupancy
};

// BuildKernelFillSteps: one entry per device with kernels, by device id.
// O(k log k) in the device's kernels.
std::vector<KernelFillSteps> BuildKernelFillSteps(const model::Trace& trace);

}  // namespace gpuwhy::analysis
