// HostActivity: what a host thread was doing at each instant of a window —
// the innermost traced range or API call — so that a GPU gap the host was
// late to end can be charged to launch cadence or to host work that
// launched nothing (issue: "long host gaps are not launch overhead").
//
// Lifecycle: LaunchCadence() once per trace; ComputeHostBreakdowns() once
// per trace with every host window that needs a breakdown (only waits longer
// than the launch cadence do). Both are pure and linear in the queried
// threads' events plus one sort per thread; nothing is kept afterwards.
//
// Nesting: ranges (CPU ops, annotations, Python functions, NVTX) and API
// calls of one thread nest like a call stack; an item that overlaps its
// parent's end without nesting is treated as nested (it ends the parent's
// share early). Step ranges (ProfilerStep#N) and GPU-projected annotations
// are left out: they cover everything and say nothing about the work.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
struct HostBreakdown {
  std::array<int64_t, kHostWorkCount> by_work{};
  int64_t untraced_ns = 0;
  std::array<HostTally, kHostTopItems> top{};  // ns == 0: unused
  HostItemRef top_blocking;                    // API row
  int64_t top_blocking_ns = 0;
};

// HostWindow: one queried window; `slot` indexes the caller's result vector
// (several windows may share a slot: their breakdowns add up).
struct HostWindow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t slot = 0;
};

// ThreadWindows: the windows queried on one thread, disjoint.
struct ThreadWindows {
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  std::vector<HostWindow> windows;
};

// ThreadKey: (pid, tid).
using ThreadKey = std::pair<int32_t, int64_t>;

// LaunchCadence: per thread, the median spacing of consecutive launch calls
// (`is_launch` per API row); threads with fewer than 2 launches are absent.
std::map<ThreadKey, int64_t> LaunchCadence(const model::Trace& trace,
                                           const std::vector<bool>& is_launch);

// ComputeHostBreakdowns: for every window of every entry of `queries`, add
// its breakdown into (*out)[window.slot] (`out` sized by the caller). Windows
// of one entry must not overlap; entries may repeat a thread.
void ComputeHostBreakdowns(const model::Trace& trace, const std::vector<bool>& is_launch,
                           const std::vector<bool>& is_blocking,
                           std::vector<ThreadWindows> queries, std::vector<HostBreakdown>* out);

// EnclosingOps: names of the ranges on thread `tid` that contain [s, e),
// innermost first, at most 3, " < "-joined (each cut to 48 bytes); only CPU
// ops when `cpu_ops_only`, else also Python functions and annotations. Scans
// at most 20000 earlier ranges (trace.ranges is sorted by start).
std::string EnclosingOps(const model::Trace& trace, int64_t tid, int64_t s, int64_t e,
                         bool cpu_ops_only);

// ItemName: the name of a host item.
StringId ItemName(const model::Trace& trace, HostItemRef item);
// ItemKindLabel: "CPU op", "Python", "annotation", "NVTX range", "runtime call", ...
std::string_view ItemKindLabel(const model::Trace& trace, HostItemRef item);

}  // namespace gpuwhy::analysis::detectors
