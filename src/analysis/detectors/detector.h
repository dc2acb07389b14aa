// Detector interface: a detector is a pure function from one trace (plus the
// precomputed Timeline) to findings. Cross-rank detectors take all ranks.
//
// Lifecycle: the diagnosis builds one Timeline per trace, runs every entry of
// DetectorRegistry() (detector_registry.h) on it, then the cross-rank
// detectors on the whole set, and ranks the union of findings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/detectors/finding.h"
#include "analysis/detectors/timeline.h"
#include "model/trace.h"

namespace gpuwhy::analysis {
struct ThroughputResult;  // analysis/throughput/throughput.h
}  // namespace gpuwhy::analysis

namespace gpuwhy::analysis::detectors {

// DetectorInput: what a per-trace detector reads.
struct DetectorInput {
  const model::Trace& trace;
  const Timeline& timeline;
  int32_t rank = kMissingI32;  // trace.rank.rank, or the input index in a rank set
  // throughput: the trace's per-op throughput analysis when the caller has it
  // (the utilization section's); null: a detector that needs it computes it.
  const ThroughputResult* throughput = nullptr;
};

// MeanStepNs: mean window length of a device (0 when none).
int64_t MeanStepNs(const DeviceTimeline& d);

// SetLoss: fill lost_per_step_ns / lost_step_ratio / step basis / severity of
// `f` from a total loss over all of `d`'s windows.
void SetLoss(Finding& f, const DeviceTimeline& d, int64_t total_lost_ns);

// FormatMs / FormatPct: short numbers for summaries ("12.3 ms", "4.73 s" from 1 s, "33%").
std::string FormatMs(int64_t ns);
std::string FormatPct(double ratio);

}  // namespace gpuwhy::analysis::detectors
