// `gpuwhy analyze`: import traces, analyze them, render one report.
//
// Contract: AnalyzeMain() imports every input before writing anything, so a
// bad input gives exit code 2, exactly one error line on `err` and nothing on
// `out`. Usage errors give exit code 1 and the usage text on `err`.
// AnalyzeAndRender() is the in-process path for callers that already hold
// traces (e.g. `gpuwhy record` after a recording finishes).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "model/trace.h"

namespace gpuwhy::cli {

// AnalyzeOptions: what `gpuwhy analyze` lets the user choose.
struct AnalyzeOptions {
  bool json = false;   // JSON instead of the terminal report
  int top_kernels = 10;
  int width = 100;     // terminal report width
  std::vector<std::string> compat;  // anchor reproductions: "tbplugin", "hta", "nsys"
  bool ascii = false;  // ASCII sparklines instead of block characters
  std::string scenario;  // "dev" | "prod" | "shared" | "multi"; empty: inferred
  // perfetto_path: also write a Chrome JSON trace for Perfetto UI there
  // (docs/perfetto.md); empty: none.
  std::string perfetto_path;
};

// ToolVersion: the gpuwhy version string ("0.1.0").
std::string ToolVersion();

// RenderAnalysis: render an already computed analysis per `options`.
void RenderAnalysis(const analysis::Analysis& analysis, const AnalyzeOptions& options,
                    std::ostream& out);

// AnalyzeAndRender: analyze `traces` (in order) and render the report to
// `out`. Input sizes are taken from each trace's source_path when it names a
// readable file.
void AnalyzeAndRender(const std::vector<model::Trace>& traces, const AnalyzeOptions& options,
                      std::ostream& out);

}  // namespace gpuwhy::cli
