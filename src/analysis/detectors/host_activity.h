// HostActivity: what a host thread was doing at each instant of a window —
// the innermost traced range or API call — so that a GPU gap the host was
// late to end can be charged to launch cadence or to host work that
// launched nothing (issue: "long host gaps are not launch overhead").
//
// Lifecycle: LaunchCadence() once per trace; ComputeHostBreakdowns() once
// per trace with every host window that needs a breakdown (only waits longer
// than the launch cadence do): each window's breakdown is handed to a sink as
// soon as the sweep has passed it, so no breakdown outlives its window (the
// timeline decides the gap and keeps a few words of it). Both are pure and
// linear in the queried threads' events plus one sort per thread.
//
// What held a window (the issue "each gap explained by what held it"): the
// innermost item whose span covers more than half of the window (the
// `holder`), walked down the thread's stack Python frame -> annotation -> op
// -> runtime call; DescribeHold() names it for a sentence.
//
// Nesting: ranges (CPU ops, annotations, Python functions, NVTX) and API
// calls of one thread nest like a call stack; an item that overlaps its
// parent's end without nesting is treated as nested (it ends the parent's
// share early). Step ranges (ProfilerStep#N) and GPU-projected annotations
// are left out: they cover everything and say nothing about the work.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/utilization/intervals.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis::detectors {

// HostWork: the kind of the innermost item at an instant. Values index
// HostBreakdown::by_work.
enum class HostWork : uint8_t {
  kLaunch = 0,    // inside a kernel/graph launch API call
  kDispatch = 1,  // inside a range that launches kernels somewhere inside it (op dispatch)
  kBlocking = 2,  // inside a host-blocking sync or copy call (summary's sync table)
  kOtherApi = 3,  // inside another runtime/driver call (cudaMalloc, cudaFree, ...)
  kCpuWork = 4,   // inside a CPU op / Python function / annotation that launches nothing
};
inline constexpr size_t kHostWorkCount = 5;

// HostItemRef: one range row (trace.ranges) or API row (trace.api_calls).
struct HostItemRef {
  uint32_t row = UINT32_MAX;
  bool is_api = false;
  bool valid() const { return row != UINT32_MAX; }
};

// HostTally: time credited to one item name. A window's CPU work is credited
// once to its innermost item and, when different, once to the outermost range
// around it that launches nothing ("preprocess" beside the aten::div inside
// it), so shares may add past 100%.
struct HostTally {
  StringId name = kEmptyString;
  HostItemRef example;  // one item of this name (its kind: range kind or API)
  int64_t ns = 0;
  int32_t windows = 0;  // windows in which it ran (aggregates only)
};

// kHostTopItems: CPU-work items a breakdown keeps, most time first.
inline constexpr size_t kHostTopItems = 4;

// HostBreakdown: the time of one host window by HostWork, what is left
// untraced, the CPU-work items that took most of it, and the longest
// blocking call.
// A launch call or an op's own time between its launches counts as kLaunch /
// kDispatch only in pieces up to ThreadWindows::launch_piece_max_ns; a longer
// piece is not launching (a first launch loading its module, an op's own CPU
// work such as cuDNN's algorithm search) and counts as kOtherApi / kCpuWork.
struct HostBreakdown {
  std::array<int64_t, kHostWorkCount> by_work{};
  int64_t untraced_ns = 0;
  std::array<HostTally, kHostTopItems> top{};  // ns == 0: unused
  HostItemRef top_blocking;                    // API row
  int64_t top_blocking_ns = 0;
  // holder: the innermost item (range or call) that covers more than half of
  // the window's length, or invalid when none does; when a torch.compile
  // annotation (IsCompileRangeName) encloses it, the innermost such annotation
  // instead (compilation holds the window). holder_ns: its overlap.
  HostItemRef holder;
  int64_t holder_ns = 0;
};

// ThreadWindows: the slots queried on one thread, each slot one window or a
// few (HostWindowSource), in time order: every window of a slot starts after
// every window of the slot before it, and none overlap.
struct ThreadWindows {
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  std::vector<uint32_t> slots;
  // launch_piece_max_ns: the longest piece of a launch call or of an op's own
  // time between launches that still counts as launching (HostBreakdown).
  int64_t launch_piece_max_ns = INT64_MAX;
};

// HostWindowSource: the windows of a slot into *parts (cleared by the
// caller): sorted, disjoint; their breakdowns add up (one gap less its
// DataLoader parts). Asked when the sweep reaches the slot, so no list of
// every window is held (24 bytes a window: 40 MB on a 10 M-event capture).
using HostWindowSource = std::function<void(uint32_t slot, std::vector<Interval>* parts)>;

// ThreadKey: (pid, tid).
using ThreadKey = std::pair<int32_t, int64_t>;

// LaunchCadence: per thread, the median spacing of consecutive launch calls
// (`is_launch` per API row); threads with fewer than 2 launches are absent.
std::map<ThreadKey, int64_t> LaunchCadence(const model::Trace& trace,
                                           const std::vector<bool>& is_launch);

// HostBreakdownSink: receives each slot's finished breakdown, once per slot.
using HostBreakdownSink = std::function<void(uint32_t slot, const HostBreakdown& breakdown)>;

// ComputeHostBreakdowns: for every slot of `queries`, the breakdown of its
// windows (from `source`), handed to `sink` as soon as the sweep has passed
// the slot's last window (top items sorted, most first). Each slot lies in one
// entry; windows of one entry must not overlap; entries may repeat a thread.
// Slots of one thread reach the sink in time order from one worker; slots of
// two threads may reach it at once from two workers (the sink must allow that).
// Memory: the breakdowns of the windows the sweep is inside, not one per slot
// (a 10 M-event capture has 2.5 M slots: 500 MB of breakdowns held before).
void ComputeHostBreakdowns(const model::Trace& trace, const std::vector<bool>& is_launch,
                           const std::vector<bool>& is_blocking,
                           std::vector<ThreadWindows> queries, const HostWindowSource& source,
                           const HostBreakdownSink& sink);

// IsCompileRangeName: a torch.compile / Inductor / Triton annotation or frame
// (`dynamo_timed`, `compile_fx`, `Torch-Compiled Region`, `_compile`,
// `inductor`, autotuning): compilation, a warm-up cost.
bool IsCompileRangeName(std::string_view name);

// HoldKind: what kind of work an item that held a GPU gap is.
enum class HoldKind : uint8_t {
  kNone = 0,        // nothing traced held it
  kBlockingCall,    // a sync or blocking copy (summary's sync table)
  kAllocation,      // cudaMalloc / cudaFree / hipMalloc / cuMemAlloc ... (blocking, often one-off)
  kModuleLoad,      // cu*ModuleLoad*, cuLibraryLoad*, hipModuleLoad*: compile/warm-up
  kContext,         // context creation / init (cuInit, cuCtxCreate, cuDevicePrimaryCtxRetain)
  kSlowLaunch,      // one launch call longer than launching (lazy module load on first launch)
  kOtherCall,       // another runtime/driver/OS call
  kCompile,         // a torch.compile / Triton annotation (IsCompileRangeName)
  kCudnnFirstUse,   // the first call of a cuDNN op: cuDNN algorithm search / warm-up
  kFirstCall,       // the first call of an op or function of this name: warm-up
  kOp,              // a CPU op's own time
  kPython,          // a Python frame with no op below it
  kAnnotation,      // a user annotation / NVTX range with no op below it
};

// ClassifyHold: the kind of `item`, an item that held a gap longer than the
// launch cadence (a launch call holding one is a slow launch);
// `first_row_of_range_name` (by StringId; may be empty: first calls are then
// not told apart) says whether a range is the first of its name in the trace.
HoldKind ClassifyHold(const model::Trace& trace, HostItemRef item,
                      const std::vector<uint32_t>& first_row_of_range_name);

// FirstRangeRowsByName: per StringId, the first range row (by start) of that
// name, UINT32_MAX for names no range has. 4 bytes per interned string.
std::vector<uint32_t> FirstRangeRowsByName(const model::Trace& trace);
// FirstApiRowsByName: the same over runtime/driver calls (trace.api_calls).
std::vector<uint32_t> FirstApiRowsByName(const model::Trace& trace);

// IsWarmUpHold: kinds that are one-off costs of a first use (module load,
// context, a slow first launch, compilation, a first op call, cuDNN's first
// use, and an allocation: a caller counts only the first call of its name).
bool IsWarmUpHold(HoldKind kind);

// DescribeHold: a sentence fragment naming what held a gap: the item, its kind
// in words, the enclosing ops and the innermost Python frame outside torch:
// "hipMemcpyWithStream (a blocking copy) in aten::copy_ < aten::_to_copy <
// aten::to, from forward_batch_info.py(443): init_new". Empty for an invalid item.
// `note`, when not empty, is added inside the kind's parentheses.
std::string DescribeHold(const model::Trace& trace, HostItemRef item, HoldKind kind,
                         std::string_view note = {});

// EnclosingOps: names of the ranges on thread `tid` that contain [s, e),
// innermost first, at most 3, " < "-joined (each cut to 48 bytes); only CPU
// ops when `cpu_ops_only`, else also Python functions and annotations. Scans
// at most 20000 earlier ranges (trace.ranges is sorted by start).
std::string EnclosingOps(const model::Trace& trace, int64_t tid, int64_t s, int64_t e,
                         bool cpu_ops_only);

// ReadableRangeName: a range name as a reader wants it. pyprof / DLProf NVTX
// payloads, `{'mod': 'torch.nn.functional', 'op': 'max_pool2d', 'args': ...}`,
// become "torch.nn.functional.max_pool2d"; other names are returned as they are.
std::string ReadableRangeName(std::string_view name);

// ItemName: the name of a host item.
StringId ItemName(const model::Trace& trace, HostItemRef item);
// ItemKindLabel: "CPU op", "Python", "annotation", "NVTX range", "runtime call", ...
std::string_view ItemKindLabel(const model::Trace& trace, HostItemRef item);

}  // namespace gpuwhy::analysis::detectors
