// Predicted step time once one finding's cause is fixed.
//
// Contract: PredictStepAfterFix() is pure. It sets Finding::predicted_step_ns
// and Finding::prediction_assumption from the finding's own loss and the
// device timeline it was measured on, or leaves them missing when the finding
// has no per-step loss. The model removes only this cause's time from the
// critical path (docs/detectors.md §Predicted gain):
//   - idle causes (sync, copies, DataLoader, launch gaps, host work, one-off
//     gaps, recompiles, contention): step - the idle attributed to the cause,
//     never below the GPU's busy time per step; for the DataLoader also never
//     below the host's step time without the DataLoader (the host must still
//     launch the step's work). Idle pieces have one cause each, so removing
//     one cause cannot also remove the gaps another cause explains;
//   - kernel efficiency (estimates: faster kernels): step - the estimated
//     kernel time saved, the idle left as it is;
//   - communication and imbalance: step - the exposed time.
#pragma once

#include "analysis/detectors/finding.h"
#include "analysis/detectors/timeline.h"

#include <cstdint>
#include <vector>

namespace gpuwhy::analysis::detectors {

// PredictStepAfterFix: see the file comment. `tl` is the timeline of the trace
// the finding came from.
void PredictStepAfterFix(Finding& f, const Timeline& tl);

// PredictStepAfterFix: the same model on one device's figures: its step
// windows, their summed length, and its busy time (kernels + copies) inside
// [first window start, last window end). The Timeline overload picks the
// finding's device (else the primary) and calls this; the cross-rank merge
// calls it with a rank summary's primary device.
void PredictStepAfterFix(Finding& f, const std::vector<StepWindow>& steps, int64_t steps_total_ns,
                         int64_t busy_in_span_ns);

}  // namespace gpuwhy::analysis::detectors
