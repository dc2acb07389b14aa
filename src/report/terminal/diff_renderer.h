// Terminal rendering of `gpuwhy diff BEFORE AFTER`.
//
// Contract: formats an analysis::RunDiff, computes nothing. Layout: the
// headline, then side-by-side tables (step times, busy/idle, idle by cause,
// surface vs real and MFU, findings resolved/new/changed with their loss and
// the BEFORE run's prediction, kernels matched by name, copies and syncs),
// then one line per violated --fail-if gate.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/diff/run_diff.h"

namespace gpuwhy::report {

// RenderDiff: write the diff; `violations` are EvaluateGates()'s lines.
void RenderDiff(const analysis::RunDiff& d, const std::vector<std::string>& violations,
                std::ostream& out);

}  // namespace gpuwhy::report
