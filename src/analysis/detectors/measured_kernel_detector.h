// Measured-kernel detector: findings from a kernel profiler's own per-kernel
// figures (Nsight Compute speed of light and occupancy; model columns
// *_throughput_pct / *_occupancy_pct), on a per-kernel report alone or
// joined to a trace (import/trace_merge.h). Kernel groups and their bound
// come from AnalyzeMeasuredKernels (analysis/throughput/measured_kernels.h),
// the one classifier of measured figures. Each finding names its kernels
// (worst first, examples with their figures); only groups holding >=
// kMeasuredMinShare of kernel time count.
//
//   "kernel_efficiency.measured_memory_roof": DRAM (else memory) throughput
//     >= 80% of peak on a memory-bound kernel: it runs at the roof, so fusing
//     it with its neighbours (fewer trips to DRAM), not tuning it, is the lever.
//   "kernel_efficiency.measured_latency_bound": SM and memory throughput
//     both < 60%: neither unit is busy; stalls and too little parallel work
//     are (ncu's WarpStateStats / SchedulerStats say which).
//   "kernel_efficiency.measured_low_occupancy": achieved occupancy < 50% of
//     the SM's warps and, when theoretical occupancy is known, >= 15 points
//     below it (tail effect, imbalance) or theoretical itself < 50% (limited
//     by registers, shared memory or block size).
//   "kernel_efficiency.measured_none" (info): a per-kernel report
//     (kernels_untimed) that measured none of these figures; says which
//     sections to collect.
// Severity: by the groups' share of kernel time (SeverityFromLoss); the time
// a fix saves is not estimated (lost_per_step_ns missing).
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

inline constexpr double kMeasuredMinShare = 0.05;

// DetectMeasuredKernels: see the file comment. No findings when no kernel
// has a measured figure, except measured_none on a per-kernel report.
std::vector<Finding> DetectMeasuredKernels(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
