// Counter phases: one counter-only device's log (nvidia-smi, DCGM, a gpuwhy
// recording) read as a run instead of one distribution of samples.
//
// Contract: FindCounterPhases() cuts the device's GPU-Util series at
// change-points of GPU-Util (idle, under 10%, against active), of the process
// set on the GPU (gpu_processes lifetimes) and of memory held, into:
//   - kWork: active stretches (with the short idle gaps that are the loop's
//     own texture inside them);
//   - kSetup: an idle stretch before a work phase, at the start of the log
//     or when a new process starts working; `loading_ns` of it a process held
//     memory at ~0% util (model / data loading);
//   - kPause: an idle stretch between two work phases of the same processes;
//   - kIdleTail: an idle stretch after the last work phase;
//   - kIdle: the whole log when nothing worked.
// An idle stretch is a phase (not texture) when it holds >= 5% of the sampled
// time. Inside the longest work phase, dips (runs under half its median
// GPU-Util, each <= 10% of the phase and <= 60 s, with work on both sides)
// are listed and, when >= 3 of them recur at a steady period (>= 70% of
// intervals within 25% of the median) that is rare against the work (>= 10
// sample periods and >= 10 mean dips long, dips <= 20% of the phase), the
// period is given (evaluation, checkpointing, logging); gaps every few
// samples are the loop's own rhythm, not a periodic task.
// Monitoring holes: a sample holds until the next one but at most
// kMaxHoldPeriods sample periods (utilization.h); the rest of a longer gap is
// a hole, never bridged: it counts as neither busy nor idle, as in
// TimeWeightedMean(), so phase figures add up to the device's mean GPU-Util.
// Pure; linear in samples (plus processes per sample).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis::detectors {

// PhaseKind: what a stretch of the log is.
enum class PhaseKind : uint8_t { kSetup, kWork, kPause, kIdleTail, kIdle };

// PhaseKindName: "set-up", "work", "pause", "idle tail", "idle".
const char* PhaseKindName(PhaseKind k);

// CounterPhase: one stretch. Times on the trace clock; `observed_ns` is the
// sampled time inside it (holes excluded), `idle_ns` the part with no kernel
// (sum of hold x (1 - GPU-Util)).
struct CounterPhase {
  PhaseKind kind = PhaseKind::kIdle;
  int64_t start_ns = kMissingI64;
  int64_t end_ns = kMissingI64;
  int64_t observed_ns = 0;
  int64_t idle_ns = 0;
  double util_ratio = kMissingF64;          // time-weighted mean GPU-Util
  double mem_used_bytes = kMissingF64;      // time-weighted mean memory used (NaN: not sampled)
  int64_t loading_ns = 0;                   // kSetup: held by a process (or >= 1 GiB) at ~0% util
  double loading_peak_bytes = kMissingF64;  // kSetup: most memory used while loading
  int64_t no_process_ns = 0;                // kSetup: no process on the GPU, little memory
  std::vector<int32_t> pids;                // processes seen on the GPU during the phase
  int64_t samples = 0;
};

// CounterDip: a short drop inside the longest work phase.
struct CounterDip {
  int64_t start_ns = kMissingI64;
  int64_t dur_ns = 0;   // observed
  int64_t idle_ns = 0;  // no-kernel time inside it
  double min_util_ratio = kMissingF64;
};

// MonitoringHole: unsampled time (a gap longer than kMaxHoldPeriods periods).
struct MonitoringHole {
  int64_t start_ns = kMissingI64;  // end of the last sample's hold
  int64_t end_ns = kMissingI64;    // the next sample
};

// CounterPhases: the run of one device. Empty `phases` when the series has
// no timestamps, no period, or fewer than 5 valid samples.
struct CounterPhases {
  int32_t device_id = kMissingI32;
  int64_t period_ns = kMissingI64;
  int64_t observed_ns = 0;                     // all sampled time
  std::vector<CounterPhase> phases;            // in time order
  size_t main_work = static_cast<size_t>(-1);  // index of the longest kWork phase
  std::vector<CounterDip> dips;                // inside the main work phase
  int64_t dip_period_ns = kMissingI64;         // when the dips recur steadily
  std::vector<MonitoringHole> holes;
  int64_t hole_ns = 0;
  bool has_processes = false;  // timed gpu_processes rows on the device
};

// FindCounterPhases: see the file comment.
CounterPhases FindCounterPhases(const model::Trace& trace, int32_t device_id);

}  // namespace gpuwhy::analysis::detectors
