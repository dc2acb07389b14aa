// Timeline: the shared, precomputed view of one trace that every detector
// reads — step windows, per-device busy intervals, and every GPU idle gap
// inside the steps attributed to one cause.
//
// Lifecycle: BuildTimeline() once per trace; detectors take it by const ref
// together with the trace. Pure; linear in events plus a few sorts.
//
// Idle attribution (a device-level version of HTA's idle-time breakdown):
// each gap of the device's busy union (kernels + memcpy + memset) inside a
// step window is split into
//   - kDataLoader: the part overlapping a DataLoader range on the host
//     (`enumerate(DataLoader)#...__next__`, `enumerate(DataPipe)#...`);
//   - then the rest, as a whole, to
//     kH2dSync    the GPU drained while the host was blocked in a host-to-device
//                 copy: a blocking HtoD copy, or a sync right after an HtoD
//                 cudaMemcpyAsync on the same thread (non_blocking=False / pageable);
//     kSync       the GPU drained while another host-blocking sync/copy call ran,
//                 or, with no such call, while a host-blocking cuda_sync event ran;
//                 a sync owns its wait and its restart bubble, not what comes
//                 after: when the launching thread ran longer than its launch
//                 cadence after the call returned, and traced work that
//                 launched nothing (not launching, not untraced time) held
//                 more than half the gap, the gap is that work's (kHostBusy);
//     kHostLaunch the op that ends the gap was launched after the gap began
//                 (HTA host_wait) and the launching thread spent the gap
//                 issuing work: in launch calls or dispatching ops that launch
//                 kernels, each piece no longer than the cadence bound, or
//                 the gap is within the launch cadence (at most 4x the
//                 thread's median launch spacing, 50 µs..1 ms); never a gap
//                 over 100 ms (kMaxLaunchGapNs);
//     kHostBusy   the same HTA host_wait, but the launching thread spent it on
//                 work that launched nothing: CPU ops, Python, annotations,
//                 other runtime calls, a launch call or an op's own time in
//                 one piece longer than the cadence bound (a first launch
//                 loading its module, cuDNN's algorithm search), or time the
//                 trace does not show; named by the innermost item holding
//                 more than half of it (HostBreakdown::holder; a torch.compile
//                 annotation around it wins);
//                 (a host-blocking call covering half of that time makes the
//                 gap kSync / kH2dSync instead, whatever its vendor prefix);
//   the host window of these decisions is the whole gap less DataLoader time
//   on the launching thread (the thread of the call that launched the op
//   ending the gap): a kernel launched early but started only after a
//   blocking copy is the copy's gap, not "launching work";
//     kKernelWait the gap is under 30 µs (HTA kernel_wait);
//     kOther      anything else (events, other streams, unknown launch).
//
// One-off gaps: when the longest gap (or the two longest; the earlier first
// among equal lengths) holds >= 80% of a device's idle and it
// does not repeat each step (>= 2 marked steps, at most that many with a gap
// half its size; or no step markers and one gap, or a head and a tail gap),
// its pieces are flagged `one_off` and left out of recurring_idle_by_cause,
// which per-step findings use, so one warm-up or prefill gap is not
// extrapolated to every step. Without step markers, gaps before the first
// kernel or after the last (set-up uploads, teardown) are one-off too (`edge`).
// A kHostBusy gap held by a first use (IsWarmUpHold: a module load, context
// creation, an allocation, a slow launch, compilation, an op's or cuDNN's first
// call) is warm-up and one-off too, unless a single marked step leaves
// nothing to tell it from.
//
// Window without step markers: the device's loop within its GPU-op span
// (kernels, copies and memsets, widened to the capture window), the same
// window the utilization verdict uses (analysis/steps/run_phases.h): set-up
// before the loop and teardown after it are one-off phases; a capture of a
// few copies and one kernel has no loop, and its window is the whole span, so
// it is not "busy 100%".
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/detectors/host_activity.h"
#include "analysis/steps/correlation_index.h"
#include "analysis/steps/run_phases.h"
#include "analysis/utilization/intervals.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis::detectors {

// Interval, IntervalList: the analysis layer's one interval type and its
// operations (utilization/intervals.h), under the names the detectors use.
// An IntervalList is sorted, disjoint and has no empty intervals.
using Interval = analysis::Interval;
using IntervalList = std::vector<Interval>;
using analysis::Intersect;    // a ∩ b
using analysis::Subtract;     // a − b
using analysis::TotalLength;  // summed length of a list

// UnionOf: the union of `v` (any order, empty or invalid intervals dropped).
inline IntervalList UnionOf(std::vector<Interval> v) { return MergeIntervals(std::move(v)); }
// OverlapLength: |a ∩ [s, e)| (0 when e <= s).
int64_t OverlapLength(const IntervalList& a, int64_t s, int64_t e);
// OverlapLength: |a ∩ b|.
int64_t OverlapLength(const IntervalList& a, const IntervalList& b);

// StepWindow, DeviceSteps, RunSteps, LoopPhases: the run's one step
// definition and phases (analysis/steps/run_phases.h).
using analysis::DeviceSteps;
using analysis::LoopPhases;
using analysis::RunSteps;
using analysis::StepWindow;

// IdleCause: see the file comment. Values index IdleByCause.
enum class IdleCause : uint8_t {
  kDataLoader = 0, kSync = 1, kHostLaunch = 2, kKernelWait = 3, kOther = 4, kH2dSync = 5,
  kHostBusy = 6,
};
inline constexpr size_t kIdleCauseCount = 7;
std::string_view ToString(IdleCause c);

// CauseFindingId: the id of the finding that reports recurring idle of cause
// `c` ("sync.host_sync" for kSync, ...); empty for kOther, which no finding
// claims. One-off gaps of any cause belong to kOneOffGapFindingId instead.
// The detectors set these ids (timeline_test checks the table against them).
std::string_view CauseFindingId(IdleCause c);
inline constexpr std::string_view kOneOffGapFindingId = "idle.one_off_gap";

// kKernelWaitThresholdNs: HTA's consecutive_kernel_delay (30 trace units = 30 µs in Kineto JSON).
inline constexpr int64_t kKernelWaitThresholdNs = 30 * kNsPerUs;

// IdleGap: one attributed piece of idle time. Kept to 40 bytes: a
// 21 M-event trace has 2.2 M gaps (106 MB at 48 bytes).
struct IdleGap {
  int64_t start_ns = 0;  // the whole gap this piece comes from
  int64_t end_ns = 0;
  int64_t attributed_ns = 0;  // the piece's length (== end-start unless split)
  int32_t step_index = -1;    // index into DeviceTimeline::steps
  // kHostLaunch/kHostBusy: the late launch call that ended the gap.
  uint32_t launch_api_row = UINT32_MAX;
  IdleCause cause = IdleCause::kOther;
  bool one_off = false;  // see the file comment
  // edge: no step markers, and the gap lies before the first kernel or after
  // the last (set-up / teardown); always one-off.
  bool edge = false;

  // What the cause names, one row at most (a gap has one cause):
  // sync_api_row: kSync/kH2dSync, the blocking call, or UINT32_MAX.
  uint32_t sync_api_row() const {
    return cause_row_kind_ == RowKind::kSyncApi ? cause_row_ : UINT32_MAX;
  }
  // sync_event_row: kSync with no blocking API call covering the gap, the
  // cuda_sync event (row of trace.syncs) that does; else UINT32_MAX.
  uint32_t sync_event_row() const {
    return cause_row_kind_ == RowKind::kSyncEvent ? cause_row_ : UINT32_MAX;
  }
  // host_what: kHostBusy, the item that held the gap (HostBreakdown::holder)
  // or, when none held most of it, the CPU work credited most (HostTally
  // crediting); else an invalid ref.
  HostItemRef host_what() const {
    switch (cause_row_kind_) {
      case RowKind::kHostRange:
      case RowKind::kHostRangeHeld: return {cause_row_, false};
      case RowKind::kHostApi:
      case RowKind::kHostApiHeld: return {cause_row_, true};
      default: break;
    }
    return {};
  }
  // host_what_held: host_what() held more than half of the gap (the holder).
  bool host_what_held() const {
    return cause_row_kind_ == RowKind::kHostRangeHeld || cause_row_kind_ == RowKind::kHostApiHeld;
  }
  // Setters of the one row above (each replaces any other).
  void set_sync_api_row(uint32_t row) { SetRow(row, RowKind::kSyncApi); }
  void set_sync_event_row(uint32_t row) { SetRow(row, RowKind::kSyncEvent); }
  void set_host_what(HostItemRef ref, bool held = false) {
    SetRow(ref.row, ref.is_api ? (held ? RowKind::kHostApiHeld : RowKind::kHostApi)
                               : (held ? RowKind::kHostRangeHeld : RowKind::kHostRange));
  }

 private:
  enum class RowKind : uint8_t {
    kNone, kSyncApi, kSyncEvent, kHostRange, kHostApi, kHostRangeHeld, kHostApiHeld
  };
  void SetRow(uint32_t row, RowKind kind) {
    cause_row_ = row;
    cause_row_kind_ = row == UINT32_MAX ? RowKind::kNone : kind;
  }
  RowKind cause_row_kind_ = RowKind::kNone;  // beside the public bytes: 40, not 48
  uint32_t cause_row_ = UINT32_MAX;
};
static_assert(sizeof(IdleGap) == 40);

// DeviceTimeline: one device with GPU events.
struct DeviceTimeline {
  int32_t device_id = kMissingI32;
  IntervalList busy;          // kernels + memcpy + memset
  IntervalList kernel_busy;   // kernels only
  IntervalList comm_busy;     // communication kernels
  // compute_busy: the non-communication kernels, only when there are
  // communication kernels; without them it stays empty, being kernel_busy
  // (one copy fewer of every kernel interval: 35 MB at 100x). Read it
  // through ComputeBusy().
  IntervalList compute_busy;
  std::vector<StepWindow> steps;
  // ComputeBusy: the union of the non-communication kernels.
  const IntervalList& ComputeBusy() const { return comm_busy.empty() ? kernel_busy : compute_busy; }
  bool steps_from_markers = false;  // false: one synthesized window = the loop (below)
  // Without step markers the one window is the loop (analysis/steps/run_phases.h):
  // `phases` holds the set-up before it and the teardown after it, by start
  // (empty when the loop is the whole capture). Their gaps are in `gaps` with
  // step_index -1, `edge` and `one_off` set, and count in one_off_idle_ns but
  // not in idle_ns, idle_by_cause or steps_total_ns.
  bool has_loop_phases = false;
  IntervalList phases;
  int64_t setup_ns = 0;
  int64_t teardown_ns = 0;
  int64_t steps_total_ns = 0;       // summed window lengths
  std::vector<IdleGap> gaps;        // in time order, inside the windows
  std::array<int64_t, kIdleCauseCount> idle_by_cause{};  // summed over steps
  // recurring_idle_by_cause: idle_by_cause without one-off gaps (per-step findings).
  std::array<int64_t, kIdleCauseCount> recurring_idle_by_cause{};
  int64_t one_off_idle_ns = 0;      // idle in one-off gaps
  int64_t idle_ns = 0;              // summed idle inside the windows
  // Host-busy gaps (kHostBusy, not one-off): what the launching thread ran,
  // by time, most first; the summed host windows and their untraced part.
  std::vector<HostTally> host_busy_names;
  int64_t host_busy_window_ns = 0;
  int64_t host_busy_untraced_ns = 0;
  int64_t host_busy_gaps = 0;
  int64_t kernel_count = 0;         // kernels starting inside the windows
  int64_t launch_api_count = 0;     // launch calls (see IsLaunchApi) feeding this device
  int64_t launch_api_ns = 0;
  int64_t kernel_ns = 0;            // summed kernel durations inside the windows
};

// CorrelationIndex: correlation id -> api row (analysis/steps/correlation_index.h).
using analysis::CorrelationIndex;

// Timeline: everything above for one trace.
struct Timeline {
  std::vector<DeviceTimeline> devices;  // by device id
  IntervalList dataloader;              // host DataLoader ranges (union)
  std::vector<uint32_t> blocking_api_rows;  // host-blocking sync/copy calls, by start
  std::vector<bool> blocking_is_h2d;        // per blocking row: waits on an HtoD copy
  // blocking_prev_row: per blocking row, the runtime call before it on its
  // thread id (api table order, any kind), or UINT32_MAX for the first.
  std::vector<uint32_t> blocking_prev_row;
  // blocking_sync_rows: cuda_sync events (trace.syncs rows) that block the host
  // (event, stream or context synchronize; not stream-wait-event) and have no
  // runtime call of the same correlation id (the call, when present, decides):
  // the evidence when runtime events are missing. By start.
  std::vector<uint32_t> blocking_sync_rows;
  // StepIndexAt: index of the window of `device` containing t, or -1.
  static int32_t StepIndexAt(const DeviceTimeline& device, int64_t t);
  // Primary: the device with the most kernel time, or nullptr.
  const DeviceTimeline* Primary() const;
};

// IsDataLoaderRange: the TB-plugin DataLoader name rule.
bool IsDataLoaderRange(std::string_view name);
// IsLaunchApi: a kernel/graph launch call, by (kind, cbid) or by name.
bool IsLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid);
// IsGraphLaunchApi: cudaGraphLaunch / cuGraphLaunch.
bool IsGraphLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid);
// IsHostBlockingApi: explicit syncs and blocking copies (summary's sync table).
bool IsHostBlockingApi(std::string_view name, model::ApiKind kind, int32_t cbid);

// RecurringGaps: the pieces of `d`'s idle attributed to `cause` that are not
// one-off (all of them: size() is their count), the first `sorted` of them
// longest first (earlier first on ties) and the rest in no order: what
// per-step findings show as their worst examples. Why not sort all: a 21 M
// event trace has 2 M such pieces, and the findings show three to five.
std::vector<const IdleGap*> RecurringGaps(const DeviceTimeline& d, IdleCause cause, size_t sorted);

// BuildTimeline: the timeline of `trace` (Finalize()d), over the step
// windows and phases of `run_steps` = BuildRunSteps(trace), which the caller
// builds once for every section.
Timeline BuildTimeline(const model::Trace& trace, const RunSteps& run_steps);
// BuildTimeline: the same, building the run's steps itself.
Timeline BuildTimeline(const model::Trace& trace);

}  // namespace gpuwhy::analysis::detectors
