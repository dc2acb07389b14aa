// HostActivity: what a host thread was doing at each instant of a window —
// the innermost traced range or API call — so that a GPU gap the host was
// late to end can be charged to launch cadence or to host work that
// launched nothing (issue: "long host gaps are not launch overhead").
//
// Lifecycle: HostActivityIndex::Build() once per trace for the threads that
// launched the ops ending GPU gaps; Accumulate() per gap (host window);
// the index is dropped after BuildTimeline(). Linear in the threads' events
// plus one sort per thread.
//
// Nesting: ranges (CPU ops, annotations, Python functions, NVTX) and API
// calls of one thread nest like a call stack; an item that overlaps its
// parent's end without nesting is treated as nested (it ends the parent's
// share early). Step ranges (ProfilerStep#N) and GPU-projected annotations
// are left out: they cover everything and say nothing about the work.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
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

// HostBreakdown: the time of one host window by HostWork, what is left
// untraced, the item that took most of the CPU work (kCpuWork/kOtherApi,
// credited to its outermost non-launching range: "preprocess" rather than
// the aten::div inside it), and the longest blocking call.
struct HostBreakdown {
  std::array<int64_t, kHostWorkCount> by_work{};
  int64_t untraced_ns = 0;
  HostItemRef top_cpu;
  int64_t top_cpu_ns = 0;
  HostItemRef top_blocking;  // API row
  int64_t top_blocking_ns = 0;
};

// HostTally: time credited to one item name across windows. A window's CPU
// work is credited once to its innermost item and, when different, once to
// the outermost range that launches nothing, so shares may add past 100%.
struct HostTally {
  StringId name = kEmptyString;
  HostItemRef example;  // one item of this name (its kind: range kind or API)
  int64_t ns = 0;
  int32_t windows = 0;  // windows in which it ran
};

// HostActivityIndex: see the file comment.
class HostActivityIndex {
 public:
  // Build: the innermost-item segments of each (pid, tid) in `threads`.
  // `is_launch` / `is_blocking` say which API rows launch work / block the host.
  static HostActivityIndex Build(const model::Trace& trace,
                                 std::vector<std::pair<int32_t, int64_t>> threads,
                                 const std::vector<bool>& is_launch,
                                 const std::vector<bool>& is_blocking);

  // Breakdown: the breakdown of [start_ns, end_ns) on thread (pid, tid);
  // with `names`, CPU-work time is also tallied by name (see HostTally).
  HostBreakdown Breakdown(int32_t pid, int64_t tid, int64_t start_ns, int64_t end_ns,
                          std::unordered_map<StringId, HostTally>* names) const;

  // HasThread: the thread was indexed and has at least one traced item.
  bool HasThread(int32_t pid, int64_t tid) const;

  // LaunchIntervalP50Ns: median spacing of consecutive launch calls on the
  // thread (the launch cadence), or kMissingI64 with fewer than 2 launches.
  int64_t LaunchIntervalP50Ns(int32_t pid, int64_t tid) const;

 private:
  struct Segment {
    int64_t start_ns;
    int64_t end_ns;
    HostItemRef inner;
    uint32_t outer_range = UINT32_MAX;  // outermost non-launching range, or none
    HostWork work;
  };
  struct ThreadIndex {
    int32_t pid = kMissingI32;
    int64_t tid = kMissingI64;
    std::vector<Segment> segments;  // disjoint, by start
    int64_t launch_p50_ns = kMissingI64;
  };
  const ThreadIndex* Find(int32_t pid, int64_t tid) const;

  const model::Trace* trace_ = nullptr;
  std::vector<ThreadIndex> threads_;  // by (pid, tid)
};

// EnclosingOps: names of the ranges on thread `tid` that contain [s, e),
// innermost first, at most 3, " < "-joined (each cut to 48 bytes); only CPU
// ops when `cpu_ops_only`, else also Python functions and annotations. Scans
// at most 20000 earlier ranges (trace.ranges is sorted by start).
std::string EnclosingOps(const model::Trace& trace, int64_t tid, int64_t s, int64_t e,
                         bool cpu_ops_only);

// ItemName: the name of a host item.
StringId ItemName(const model::Trace& trace, HostItemRef item);
// ItemKindLabel: "CPU op", "Python", "annotation", "NVTX", "runtime call", ...
std::string_view ItemKindLabel(const model::Trace& trace, HostItemRef item);

}  // namespace gpuwhy::analysis::detectors
