// `gpuwhy diff`'s reusable part: one side of a diff as a run profile.
#pragma once

#include <string>

#include "analysis/analysis.h"
#include "analysis/diff/run_profile.h"
#include "base/status.h"

namespace gpuwhy::cli {

// ProfileOfSide: the run profile of one side of a diff: a saved `analyze
// --json` report (recognised by content), or traces / a folder of ranks / a
// recording, imported and analysed as `gpuwhy analyze` would
// (ImportAndAnalyze). Errors are the one-line Status the CLI prints.
Result<analysis::RunProfile> ProfileOfSide(const std::string& input,
                                           const analysis::AnalysisOptions& options);

}  // namespace gpuwhy::cli
