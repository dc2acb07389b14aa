// Host detectors: GPU idle while the host runs work that launches nothing,
// and one-off gaps that hold most of the idle.
//
// Contract:
// - DetectHostBusy() returns at most one finding per device, "host.busy_elsewhere",
//   when the recurring kHostBusy idle (timeline.h) is >= 1% of the steps. It
//   names what the launching thread ran in those gaps (top items by time,
//   credited as HostTally does), the gap count, total and worst gap, and
//   fixes that follow what ran: preprocessing into DataLoader workers or onto
//   the GPU, overlapping the next batch's CPU work, cutting Python overhead.
//   CUDA graphs are never suggested here: that is for launch cadence only.
// - DetectOneOffGaps() returns at most one finding per device, "idle.one_off_gap",
//   for the gaps BuildTimeline() flagged one-off: "one 493 ms gap holds 98%
//   of the idle; not a per-step pattern", with what ran in it. Its time lost
//   is the gap's total over the captured window (per_step_basis false),
//   never extrapolated to each step.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectHostBusy: see the file comment.
std::vector<Finding> DetectHostBusy(const DetectorInput& in);

// DetectOneOffGaps: see the file comment.
std::vector<Finding> DetectOneOffGaps(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
