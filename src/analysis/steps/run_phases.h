// Run phases: where a device's loop begins and ends in a capture without step
// markers, so that set-up before it (model loading, weight uploads, cuDNN and
// allocator warm-up before the first kernel) and teardown after it are
// reported once and never blur what the loop itself does (issue: "set-up
// hides the loop").
//
// Rules (docs/utilization.md §Phases):
//   - the loop is the device's repeated GPU work: at least kMinLoopKernels
//     kernels over at least kMinLoopShare of the capture; otherwise (one
//     kernel in a capture of set-up, a burst of three between two long
//     copies) there is no loop,
//     and the capture is the window;
//   - it starts at the first kernel, or at the first copy before it when
//     copies recur inside the loop: copies and syncs are GPU work, and a
//     copy-compute-copy loop begins with its first copy. "Recur" means the
//     loop holds copies at a rate of at least kRecurRateRatio of the rate
//     before the first kernel; uploads that happen only before it (weights)
//     are set-up;
//   - it ends at the last kernel, or at the last copy after it by the same rule.
//
// Steps (the one definition of a step, docs/utilization.md §Steps): with
// step markers (ProfilerStep#N ranges; else NVTX or user ranges named like a
// step, MarkerRangeSteps()), each step's window is device-adjusted: it starts
// where the host range starts (never before the previous window ends) and
// ends when the last GPU op launched from inside the host range ends (never
// before the range ends); the windows are then extended to the next one's
// start so that they tile the steps' span (host work between two ranges is
// paid for by the step before it). Trailing steps that launched no GPU work
// on the device are dropped, and the last one too when it launched under 80%
// of the one before (a cut-off capture). Without markers there is one window:
// the loop above.
//
// Memsets never decide it (a memset per step zeroes a buffer; it says
// nothing about uploads).
//
// Lifecycle: BuildRunSteps() runs once per trace (AnalyzeTrace and its
// siblings build it before the sections run) and every consumer reads the
// same windows: the utilization verdict and its per-step series, the device
// summary's step time, the diagnosis timeline (and through it every detector,
// the run profile and `gpuwhy diff`). FindLoopPhases() is pure and linear in
// the device's copies and memsets.
#pragma once

#include <cstdint>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// kMinLoopKernels, kMinLoopShare: a loop has at least this many kernels, and
// its kernel-active span (first kernel start to last kernel end) is at least
// this share of the capture: one kernel, or a 3 ms burst between two 1 s
// copies, is what the capture did, not a loop to describe on its own.
inline constexpr int64_t kMinLoopKernels = 2;
inline constexpr double kMinLoopShare = 0.05;
// kRecurRateRatio: copies in the loop at this share of the rate before (or
// after) it make those copies part of the loop.
inline constexpr double kRecurRateRatio = 0.1;

// LoopPhases: one device's capture split into set-up, loop and teardown.
// Set-up is [capture_start_ns, loop_start_ns), teardown [loop_end_ns,
// capture_end_ns); either may be empty. Without a loop, loop == capture.
struct LoopPhases {
  int64_t capture_start_ns = kMissingI64;
  int64_t capture_end_ns = kMissingI64;
  int64_t loop_start_ns = kMissingI64;
  int64_t loop_end_ns = kMissingI64;
  bool has_loop = false;  // a loop was found (kMinLoopKernels, kMinLoopShare)
  int64_t setup_ns() const { return has_loop ? loop_start_ns - capture_start_ns : 0; }
  int64_t teardown_ns() const { return has_loop ? capture_end_ns - loop_end_ns : 0; }
};

// FindLoopPhases: the phases of `device` within the capture window
// [capture_start_ns, capture_end_ns) (the GPU-op span, widened to the
// profiler's capture window when the source states one). All of `device`'s
// kernels and copies are read; times outside the window are clamped
// into it. Missing or empty window: a LoopPhases with has_loop false and the
// window copied as it is.
LoopPhases FindLoopPhases(const model::Trace& trace, int32_t device, int64_t capture_start_ns,
                          int64_t capture_end_ns);

// StepWindow: one step's device-adjusted window (see the file comment).
struct StepWindow {
  int32_t step = kMissingI32;  // N of ProfilerStep#N; 0 for the one loop window
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t host_start_ns = 0;
  int64_t host_end_ns = 0;
};

// DeviceSteps: one device's step windows and phases.
struct DeviceSteps {
  int32_t device_id = kMissingI32;
  std::vector<StepWindow> windows;  // by start, tiling [front.start, back.end)
  bool from_markers = false;        // false: one window, the loop (or the capture)
  int64_t kernel_count = 0;         // kernels on the device
  int64_t kernel_ns = 0;            // summed kernel durations (saturating): the busiest device
  // phases: without markers, the capture split into set-up, loop and
  // teardown (the window is the loop); with markers, has_loop is false.
  LoopPhases phases;
  int64_t total_ns() const {
    return windows.empty() ? 0 : windows.back().end_ns - windows.front().start_ns;
  }
};

// RunSteps: every device with GPU ops (kernels, copies or memsets), by id.
struct RunSteps {
  std::vector<DeviceSteps> devices;
  // Find: the entry of `device_id`, or nullptr.
  const DeviceSteps* Find(int32_t device_id) const;
};

// BuildRunSteps: the step windows and phases of every device of a
// Finalize()d trace (see the file comment). Pure; linear in the GPU ops and
// runtime calls plus a sort of the host steps.
RunSteps BuildRunSteps(const model::Trace& trace);

}  // namespace gpuwhy::analysis
