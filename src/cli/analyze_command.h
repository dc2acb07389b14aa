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
#include "base/status.h"
#include "import/registry.h"
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

// ToolVersion: the gpuwhy version string of this build, from `git describe`
// (cmake/version.cmake; e.g. "0.1.0~git192.ge45ea09"); also a valid Debian
// version, the same as the package's. `gpuwhy --version` prints it.
std::string ToolVersion();

// ToAnalysisOptions: the analysis settings `options` asks for (top kernels,
// scenario, anchor reproductions); unknown --compat words are ignored (the
// command line checks them).
analysis::AnalysisOptions ToAnalysisOptions(const AnalyzeOptions& options);

// RenderHtmlReport: the self-contained HTML page (`analyze --html`) of
// `analysis`, computed from `traces` (the traces ImportAndAnalyze() kept), to `out`.
void RenderHtmlReport(const std::vector<model::Trace>& traces, const analysis::Analysis& analysis,
                      std::ostream& out);

// OneLine: `msg` with line breaks replaced, so an error is exactly one line.
std::string OneLine(std::string msg);

// ImportAndAnalyze: when `inputs` are .gwsum summaries (ExpandSummaryInputs),
// AnalyzeSummaries() and `kept` stays empty. Otherwise expand `inputs` (files,
// folders of rank traces), import every one before analysing anything (the
// first bad input is the returned error: no half result), merge sampled-counter
// logs into the trace of the same run, summarize each trace
// (analysis::SummarizeRank) and merge them (analysis::MergeRankSummaries, the
// merge of .gwsum files too). `kept` receives the traces, which the Perfetto
// and HTML views read. The caller sets tool_version.
Result<analysis::Analysis> ImportAndAnalyze(const std::vector<std::string>& inputs,
                                            const analysis::AnalysisOptions& options,
                                            std::vector<model::Trace>* kept,
                                            const import::ImportOptions& import_options = {});

// ExpandSummaryInputs: the `.gwsum` files among `inputs` (files named
// *.gwsum, folders expanded to the *.gwsum files under them, sorted); empty
// when there are none. Summaries mixed with raw traces: InvalidInput.
Result<std::vector<std::string>> ExpandSummaryInputs(const std::vector<std::string>& inputs);

// AnalyzeSummaries: read every `.gwsum` at `paths` (the first bad one is the
// returned error: no half result) and merge them with MergeRankSummaries(),
// the merge ImportAndAnalyze() runs on raw traces. The caller sets tool_version.
Result<analysis::Analysis> AnalyzeSummaries(const std::vector<std::string>& paths,
                                            const analysis::AnalysisOptions& options);

// SummarizeInputs: import one rank's inputs (a trace, plus counter logs of the
// same run that MergeCounterInputs folds into it) and summarize it
// (analysis::SummarizeRank) with the trace's path and size; more than one
// trace left after merging is InvalidInput.
Result<analysis::RankSummary> SummarizeInputs(const std::vector<std::string>& inputs,
                                              const analysis::AnalysisOptions& options,
                                              const import::ImportOptions& import_options = {});

// RenderAnalysis: render an already computed analysis per `options`.
void RenderAnalysis(const analysis::Analysis& analysis, const AnalyzeOptions& options,
                    std::ostream& out);

// AnalyzeAndRender: analyze `traces` (in order) and render the report to
// `out`. Input sizes are taken from each trace's source_path when it names a
// readable file.
void AnalyzeAndRender(const std::vector<model::Trace>& traces, const AnalyzeOptions& options,
                      std::ostream& out);

}  // namespace gpuwhy::cli
