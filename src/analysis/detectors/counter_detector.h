// Counter detector: root causes read from sampled counters alone, for devices
// that have counter series (nvidia-smi / dcgmi logs, DCGM field CSVs, gpuwhy
// recordings) but no kernel timeline.
//
// Contract: DetectFromCounters() looks only at devices with counters and no
// GPU events in `in.timeline` (event devices are covered, more precisely, by
// the timeline detectors). Each device's log is read as a run
// (FindCounterPhases(), counter_phases.h): set-up, work, pauses, an idle
// tail, dips, monitoring holes. Times lost are shares of the sampled time
// (holes excluded), per_step_basis false. The phase findings need a work
// phase of >= 25% mean GPU-Util (a quieter log is idle as a whole). Findings,
// per such device:
//   - "phase.setup": the idle set-up before a work phase (>= 5% of the
//     sampled time): how long no process was on the GPU and how long a
//     process held memory at ~0% (loading). A one-off cost.
//   - "phase.pause": an idle stretch between two work phases of the same
//     processes. "phase.idle_tail": idle after the last work phase.
//   - "phase.periodic_dips": >= 3 dips inside the main work phase recurring
//     at a steady period (evaluation, checkpointing, logging); the period.
//   - "idle.sampled": GPU-Util says the GPU ran no kernel for >= 10% of the
//     sampled time inside its work phases (the set-up, pauses, tail and
//     periodic dips are their own findings). The shape of the samples picks
//     the words and the recommendations; the sample period bounds what can
//     be told.
//   - "kernel_efficiency.low_sm_activity": GPU-Util >= 30% while SM active
//     (DCGM / GPM) is under half of it: kernels run, but on few SMs or stalled.
//     Time lost: GPU-Util - SM active (busy time the SMs sat idle).
//   - "kernel_efficiency.memory_bound": DRAM active >= 50% and SM active < 50%.
//   - "kernel_efficiency.busy_not_work": samples at GPU-Util >= 90% while
//     power is <= 40% of the limit (or the SM clock idles, <= 35% of its
//     highest) fill >= 10% of the busy samples and >= 1% of the sampled time:
//     the GPU is scheduled but does little (spinning, waiting in a
//     collective, latency-bound kernels). Time lost: those samples' time.
//   - "kernel_efficiency.throttling": clock-event reasons other than idle and
//     application clocks in >= 5% of the busy samples.
// And, across the devices of one log (a node), when it holds >= 2 GPUs:
//   - "idle.unused_gpu": a GPU idle for the whole log (IsUnusedGpu) while
//     another worked (mean GPU-Util >= 10%); names the GPUs. Time lost: the
//     unused GPUs' share of the node. Such a GPU gets no "idle.sampled".
//   - "imbalance.straggler": some working GPUs are pinned busy at low power
//     (busy-not-work >= 50% of their sampled time) while one GPU reads >= 20
//     points lower and is not: the others wait for it (a data-parallel
//     straggler). Names it. Time lost: the pinned GPUs' busy-not-work time,
//     over all GPUs of the node. The pinned GPUs get no busy_not_work of
//     their own, and the node no "imbalance.node_gpus".
//   - "imbalance.node_gpus": the working GPUs' mean GPU-Util spans >= 20
//     points, or their mean memory used differs 2x or more (>= 2 GiB on the
//     fuller one). Time lost: sum over working GPUs of (busiest − its
//     GPU-Util), over all GPUs of the node.
// Pure; linear in samples.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// SampledDeviceStats: time-weighted figures of one device's counter series
// (each sample holds until the next one, or for one period at the end).
// Every field is missing when the source does not carry the metric.
struct SampledDeviceStats {
  int32_t device_id = kMissingI32;
  int64_t span_ns = kMissingI64;           // first sample to last sample + one period
  int64_t period_ns = kMissingI64;         // of the GPU-Util series
  int64_t util_samples = 0;                // valid GPU-Util samples
  double gpu_util_ratio = kMissingF64;     // mean GPU-Util
  double under_10_ratio = kMissingF64;     // share of GPU-Util samples < 10%
  double over_90_ratio = kMissingF64;      // share of GPU-Util samples > 90%
  double sm_active_ratio = kMissingF64;
  double dram_active_ratio = kMissingF64;
  double tensor_active_ratio = kMissingF64;
  double power_limit_ratio = kMissingF64;  // power / enforced limit, while GPU-Util >= 50%
  double mem_util_ratio = kMissingF64;
  int64_t reason_samples = 0;              // valid clock-event-reason samples
  double reason_idle_ratio = kMissingF64;  // share of reason samples with the GPU-idle bit
  double throttle_ratio = kMissingF64;     // share with throttle bits (not idle/app clocks)
  std::string util_source;                 // e.g. "nvidia-smi"
  double max_util_ratio = kMissingF64;     // highest GPU-Util sample
  double mem_used_mean_bytes = kMissingF64;
  double mem_used_max_bytes = kMissingF64;
  int64_t process_count = 0;               // gpu_processes rows on this device
  std::string name;                        // device name, when known
  // Busy that is not work: each GPU-Util sample holds as in TimeWeightedMean().
  int64_t observed_ns = 0;                         // sampled time (holes excluded; 0 when untimed)
  int64_t busy90_ns = 0;                           // time at GPU-Util >= 90%
  int64_t busy_not_work_ns = 0;                    // of it, at <= 40% power or an idle SM clock
  int64_t busy_not_work_clock_ns = 0;              // of that, told by the SM clock alone
  double busy_not_work_power_ratio = kMissingF64;  // mean power / limit over those samples
};

// IsUnusedGpu: `st` stayed idle for the whole log: mean GPU-Util < 2%, no
// sample >= 10%, no process on it and (when known) under 1 GiB of memory used.
bool IsUnusedGpu(const SampledDeviceStats& st);

// IsBusyNotWork: the sample counts as busy that is not work: GPU-Util >= 90%
// and power <= 40% of the limit, or the SM clock <= 35% of the highest SM
// clock of the log (when that is >= 1000 MHz). Missing inputs never count.
bool IsBusyNotWork(double util_ratio, double power_limit_ratio, double sm_clock_mhz,
                   double max_sm_clock_mhz);

// GpuLabel: "GPU 1 (NVIDIA H100 80GB HBM3)", or "GPU 1" without a name.
std::string GpuLabel(const SampledDeviceStats& st);

// SampledShape: what the GPU-Util samples look like (from the under-10% and
// over-90% shares): kMostlyBusy (>= 50% over 90%, < 25% under 10%), else
// kBursts (>= 15% under 10% and >= 15% over 90%), else kMostlyIdle (>= 50%
// under 10%), else kMiddleBand (>= 50% between 10% and 90%), else kSpread;
// kUnknown without GPU-Util. The words of each never contradict the shares.
enum class SampledShape : uint8_t {
  kUnknown,
  kMostlyIdle,
  kBursts,
  kMiddleBand,
  kMostlyBusy,
  kSpread
};
SampledShape ShapeOf(const SampledDeviceStats& st);
// ShapePhrase: a short explanation of the shape, for summaries.
std::string_view ShapePhrase(SampledShape s);

// FormatPeriod: a sample period for prose ("1 s", "167 ms", "an unknown period").
std::string FormatPeriod(int64_t ns);

// SamplingPhrase: "one sample every 1 s", or "no timestamps, period unknown".
std::string SamplingPhrase(int64_t period_ns);

// CounterOnlyDevices: ids of devices with counter series and no GPU events in
// `timeline`, ascending.
std::vector<int32_t> CounterOnlyDevices(const model::Trace& trace, const Timeline& timeline);

// ComputeSampledStats: SampledDeviceStats of `device_id` from trace.counters.
SampledDeviceStats ComputeSampledStats(const model::Trace& trace, int32_t device_id);

// DetectFromCounters: see the file comment.
std::vector<Finding> DetectFromCounters(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
