// Helpers of the diagnosis validation tests: import, diagnose, print, look up.
#pragma once

#include <string>
#include <vector>

#include "analysis/detectors/diagnosis.h"
#include "model/trace.h"

namespace gpuwhy::testing {

// ImportAll: import every path (fails the test on error); empty on failure.
std::vector<model::Trace> ImportAll(const std::vector<std::string>& paths);
// DiagnoseAll: Diagnose() over all traces.
analysis::detectors::Diagnosis DiagnoseAll(const std::vector<model::Trace>& traces,
                                           const analysis::detectors::DiagnosisOptions& o = {});
// Print: the diagnosis in a compact form on stdout (measured figures for the report).
void Print(const std::string& label, const analysis::detectors::Diagnosis& d);
// FindFinding: the finding with this id, or nullptr.
const analysis::detectors::Finding* FindFinding(const analysis::detectors::Diagnosis& d,
                                                const std::string& id);
// Metric: the value of a metric of a finding (NaN when absent).
double Metric(const analysis::detectors::Finding& f, const std::string& name);
// RankOf: position of finding `id` in the ranking, or -1.
int RankOf(const analysis::detectors::Diagnosis& d, const std::string& id);
// SharedPath: ${GPUWHY_SOURCE_DIR}/../shared/<rel>.
std::string SharedPath(const std::string& rel);

}  // namespace gpuwhy::testing
