// Kernel-efficiency detectors: what the GPU does while it is busy.
//
// Contract: DetectKernelEfficiency() returns per device
//   "kernel_efficiency.no_tensor_cores": fp32 GEMM/conv kernels (sgemm, scudnn,
//     implicit_convolve_sgemm, ...) take >= 10% of kernel time on a GPU with
//     tensor cores (cc >= 7.0) while tensor-core kernels are < half of the
//     GEMM/conv time. Time lost is an ESTIMATE: half the fp32 GEMM/conv time
//     (a 2x tensor-core speed-up), not a measured bound.
//   "kernel_efficiency.memory_bound": DRAM-active counters >= 0.5 with SM
//     activity < 0.5, or (no counters) elementwise/reduction/copy kernels take
//     >= 50% of a >= 80%-busy GPU. Estimate: half that kernel time (fusion).
//   "kernel_efficiency.busy_not_work": the GPU is busy but its kernels leave
//     most SMs without work. From the launch configuration (KernelFigures():
//     blocks/SM, est. occupancy) of the kernels starting inside the windows:
//     at each instant, work = min(1, Σ over the running kernels of
//     min(1, blocks/SM) x t), where t = 1, or for a small-block kernel (< 128
//     threads; < 64 for GEMM/conv, which pick their tiles and run at low
//     occupancy by design) min(1, resident threads per SM with work / 50%).
//     Time at stake = ∫ (1 - work) over the kernel-busy time, an upper bound
//     (kernel time x (1 - real/surface)). Time where only communication
//     kernels run, or a kernel without a launch config runs, is not judged.
//     An SM-active counter (nsys GPU metrics, GPM, DCGM) with >= 5 samples in
//     the windows decides instead: it fires when SM active is under half of
//     the kernel-busy share, at stake kernel-busy x (1 - SM active / busy).
//     Fires at >= 2% of the windows and >= 10% of the kernel-busy time;
//     examples name the worst launch configs.
//   "kernel_efficiency.compute_bound" (info, no time lost): >= 90% busy, no
//     memory_bound or busy_not_work, and evidence of compute: GEMM/conv >= 50%
//     of kernel time (names or recorded shapes), tensor-active counter >= 30%,
//     or long kernels (mean >= 1 ms, little memory-bound work) whose grids
//     fill >= 90% of the SMs.
//   "kernel_efficiency.throttling": SM clock while busy < 85% of its peak in
//     the counters, or clock-event (throttle) reasons reported.
// DetectRecompilation() returns "recompilation.new_kernels" when, after the
// first two steps (warm-up), new kernel names or module loads appear or
// "Torch-Compiled Region" ids grow; time lost = step-time excess over the
// median in steps that show them.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectKernelEfficiency: see the file comment.
std::vector<Finding> DetectKernelEfficiency(const DetectorInput& in);
// DetectRecompilation: see the file comment.
std::vector<Finding> DetectRecompilation(const DetectorInput& in);
// ComputeCapabilityMajor: the device's cc major from the trace, else guessed
// from its name (V100 → 7, A100 → 8, H100 → 9, ...); kMissingI32 when unknown.
int32_t ComputeCapabilityMajor(const model::Trace& trace, int32_t device_id);

}  // namespace gpuwhy::analysis::detectors
