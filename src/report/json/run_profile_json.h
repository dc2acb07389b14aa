// The run profile and the run diff as JSON: "run_profile" in `analyze --json`
// (what a saved report brings to `gpuwhy diff`), and the `diff --json`
// document. Both are described in docs/diff.md.
//
// Contract: WriteRunProfile/RenderDiffJson only format. ReadRunProfile parses
// the "run_profile" object of a saved report back into the same struct
// (round trip: write then read gives equal figures); a document without one
// is InvalidInput with the reason.
#pragma once

#include <iosfwd>
#include <string_view>
#include <vector>

#include "analysis/diff/run_diff.h"
#include "analysis/diff/run_profile.h"
#include "base/status.h"
#include "report/json/json_writer.h"

namespace gpuwhy::report {

// WriteRunProfile: the profile as one JSON object value.
void WriteRunProfile(const analysis::RunProfile& p, JsonWriter& w);

// ReadRunProfile: the "run_profile" of a saved `analyze --json` report.
Result<analysis::RunProfile> ReadRunProfile(std::string_view json_text);

// IsSavedReport: the text is a gpuwhy JSON report (starts like one), cheap.
bool IsSavedReport(std::string_view head);

// RenderDiffJson: the `diff --json` document; `violations` are the failed gates.
void RenderDiffJson(const analysis::RunDiff& d, const std::vector<std::string>& violations,
                    std::ostream& out);

}  // namespace gpuwhy::report
