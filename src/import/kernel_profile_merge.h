// Joining a kernel profiler's per-kernel report (Nsight Compute: a trace
// with TraceInfo::kernels_untimed) to the event trace of the same run, so
// that `gpuwhy analyze trace.json.gz kernels.ncu.csv` reads the measured
// figures beside the timeline.
//
// Contract:
// - A "kernel profile" is a trace with kernels_untimed set; a "timed trace"
//   one with kernels on a real clock (kernels_untimed unset).
// - Kernels join on demangled name (whitespace ignored) and launch
//   configuration (grid and block, x/y/z). A trace kernel without a launch
//   configuration joins by name alone when the profile has one configuration
//   of that name. Every trace launch of a joined key gets the profile's
//   figures for that key: means over its profiled launches, weighted by
//   duration, of the model's measured *_pct columns, plus registers and
//   shared memory where the trace lacks them. The profile's rule results
//   (kernel_rules) go to the first joined trace launch of each key.
// - Pages of one report given together (raw and details: the same kernels,
//   names and launch configs in the same order) become one profile first:
//   a figure missing from the first is taken from the next, rules appended;
//   the first page's merged_inputs names the others.
// - A profile is folded into every timed trace of the inputs and removed
//   from `traces`/`paths`; each receiving trace gets one line in
//   info.merged_inputs saying how many of its kernels found a match. With
//   no timed trace among the inputs, profiles stay as they are.
// Pure data movement: no analysis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::import {

// KernelJoinNote: one profile folded into one timed trace.
struct KernelJoinNote {
  std::string profile_path;
  std::string into_path;
  int64_t trace_kernels = 0;    // kernel launches of the timed trace
  int64_t matched_kernels = 0;  // of them, with a profile key
  int64_t profile_keys = 0;     // distinct (name, grid, block) of the profile
  int64_t matched_keys = 0;     // of them, found in the trace
};

// IsKernelProfile: see the file comment.
bool IsKernelProfile(const model::Trace& t);

// JoinKernelProfile: copy `profile`'s figures onto the matching kernels of
// `trace` (see the file comment); the counts into the note (paths unset).
KernelJoinNote JoinKernelProfile(const model::Trace& profile, model::Trace& trace);

// SameProfiledKernels: `a` and `b` list the same kernels (name, grid,
// block) in the same order: two pages of one report.
bool SameProfiledKernels(const model::Trace& a, const model::Trace& b);

// CombineProfilePages: fill `into`'s missing figures, registers and shared
// memory from `from` (SameProfiledKernels), append its rules.
void CombineProfilePages(model::Trace& into, const model::Trace& from);

// MergeKernelProfiles: see the file comment. `paths[i]` names `traces[i]`.
std::vector<KernelJoinNote> MergeKernelProfiles(std::vector<model::Trace>& traces,
                                                std::vector<std::string>& paths);

}  // namespace gpuwhy::import
