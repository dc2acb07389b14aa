// Merging sampled-counter inputs into the event trace of the same run.
//
// A user often has two files of one run: a profiler trace (Kineto JSON,
// recording with events) and an nvidia-smi / DCGM log sampled alongside.
// MergeCounterInputs() folds each counter-only input into the event trace it
// belongs to, so the analysis sees the trace's kernels and the sampled
// GPU-Util, SM activity and power of the same devices on one clock.
//
// Contract:
// - A trace is "counter-only" when it has counter series or GPU process rows
//   but no GPU or host events. An "event trace" has GPU events.
// - Alignment is on wall-clock time: the counter input must use the
//   unix_realtime clock with timestamps, and the event trace either the same
//   clock or nsys's session clock with a known session start
//   (TARGET_INFO_SESSION_START_TIME.utcEpochNs). The counter span must
//   overlap the event trace's extent, either as is or after a whole multiple
//   of 15 minutes within +-14 h: nvidia-smi writes local time without a zone
//   and gpuwhy reads it as UTC, so a time-zone offset is the usual mismatch.
//   The offset that makes the counter span cover most of the event extent
//   wins; ties go to the smallest |offset|.
// - Devices map by PCI bus id when both sides give it, else by ordinal.
// - Only samples describing the event extent are kept: a sample at ts covers
//   the period before it, so ts in (start, end + one period] (the log may run for hours around a seconds-long profile); names and
//   sources are re-interned into the event trace's string pool.
// - A counter-only input with no event trace to go to stays as it was.
// Merged inputs are removed from `traces` and `paths` (kept parallel); the
// notes say what went where. Pure data movement: no analysis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::import {

// MergeNote: one counter input folded into an event trace.
struct MergeNote {
  std::string counter_path;  // the merged counter input
  std::string into_path;     // the event trace it went into
  int64_t offset_ns = 0;     // wall-clock shift applied to the counter input (time zone)
  int64_t series = 0;        // counter series merged
  int64_t samples_kept = 0;  // samples inside the event window
  int64_t samples_dropped = 0;
  std::string how;           // "overlapping wall clock" or "shifted by -8 h (local time)"
};

// IsCounterOnly: see the file comment.
bool IsCounterOnly(const model::Trace& t);

// MergeCounterInputs: see the file comment. `paths[i]` names `traces[i]`.
std::vector<MergeNote> MergeCounterInputs(std::vector<model::Trace>& traces,
                                          std::vector<std::string>& paths);

}  // namespace gpuwhy::import
