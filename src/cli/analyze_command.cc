#include "cli/analyze_command.h"

// CLI11 trips -Wnull-dereference in inlined std::string code; not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "import/registry.h"
#include "import/rocm/rocprof_parts.h"
#include "import/kernel_profile_merge.h"
#include "import/trace_merge.h"
#include "analysis/perfetto/perfetto_view.h"
#include "analysis/views/html_view.h"
#include "report/html/html_renderer.h"
#include "report/gwsum/gwsum_format.h"
#include "report/json/json_renderer.h"
#include "report/perfetto/perfetto_renderer.h"
#include "report/terminal/terminal_renderer.h"

#ifndef GPUWHY_VERSION
#define GPUWHY_VERSION "unknown"
#endif

namespace gpuwhy::cli {

namespace {

int64_t FileSize(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? kMissingI64 : static_cast<int64_t>(n);
}


// AddThreadsOption: `--threads N`, the Kineto JSON parser threads, into `threads`.
void AddThreadsOption(CLI::App& app, int* threads) {
  app.add_option("--threads", *threads,
                 "threads parsing Kineto JSON (default 0: by the machine's cores; 1: no "
                 "parser threads); the report is the same for any value")
      ->check(CLI::Range(0, 64));
}

// WriteHtmlReport: the self-contained HTML page of `analysis` (of `traces`) to `path`.
bool WriteHtmlReport(const std::vector<model::Trace>& traces, const analysis::Analysis& analysis,
                     const std::string& path, std::ostream& err) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  RenderHtmlReport(traces, analysis, f);
  f.close();
  if (!f) {
    err << "gpuwhy: " << path << ": cannot write the HTML report\n";
    return false;
  }
  return true;
}

}  // namespace

std::string ToolVersion() { return GPUWHY_VERSION; }

analysis::AnalysisOptions ToAnalysisOptions(const AnalyzeOptions& o) {
  analysis::AnalysisOptions a;
  a.summary.top_kernels = o.top_kernels;
  a.diagnosis.scenario = analysis::detectors::ParseScenario(o.scenario);
  for (const std::string& c : o.compat) {
    if (c == "tbplugin") a.compat.tbplugin = true;
    if (c == "hta") a.compat.hta = true;
    if (c == "nsys") a.compat.nsys = true;
    if (c == "tracelens") a.compat.tracelens = true;
  }
  return a;
}

void RenderHtmlReport(const std::vector<model::Trace>& traces, const analysis::Analysis& analysis,
                      std::ostream& out) {
  report::RenderHtml(analysis, analysis::views::BuildHtmlView(traces, analysis), out);
}

std::string OneLine(std::string msg) {
  for (char& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  return msg;
}

Result<std::vector<std::string>> ExpandSummaryInputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  size_t raw = 0;
  for (const std::string& arg : inputs) {
    std::error_code ec;
    if (!fs::is_directory(arg, ec)) {
      if (report::IsGwsumPath(arg)) out.push_back(arg);
      else ++raw;
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec) && report::IsGwsumPath(it->path().string()))
        found.push_back(it->path().string());
    if (found.empty()) ++raw;
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  if (!out.empty() && raw > 0)
    return InvalidInput("cannot mix .gwsum summaries and raw traces in one analysis; summarize "
                        "every rank (gpuwhy summarize) or give the raw traces only");
  return out;
}

Result<analysis::Analysis> AnalyzeSummaries(const std::vector<std::string>& paths,
                                            const analysis::AnalysisOptions& options) {
  // Read every summary first (no half report), then the same merge as the raw path.
  std::vector<analysis::RankSummary> ranks;
  ranks.reserve(paths.size());
  for (const std::string& path : paths) {
    Result<analysis::RankSummary> r = report::ReadRankSummaryFile(path);
    if (!r.ok()) return r.status();
    ranks.push_back(std::move(r).value());
  }
  return analysis::MergeRankSummaries(std::move(ranks), options);
}

Result<analysis::RankSummary> SummarizeInputs(const std::vector<std::string>& inputs,
                                              const analysis::AnalysisOptions& options,
                                              const import::ImportOptions& import_options) {
  Result<std::vector<std::string>> paths = import::ExpandInputs(inputs);
  if (!paths.ok()) return paths.status();
  if (paths->empty()) return InvalidInput("no traces found in the given inputs");
  std::vector<model::Trace> traces;
  for (const std::string& path : *paths) {
    Result<model::Trace> trace = import::ImportFile(path, import_options);
    if (!trace.ok()) return trace.status();
    traces.push_back(std::move(trace).value());
  }
  std::vector<std::string> kept_paths = *paths;
  if (Status s = import::MergeRocprofParts(traces, kept_paths); !s.ok()) return s;
  import::MergeCounterInputs(traces, kept_paths);
  import::MergeKernelProfiles(traces, kept_paths);
  if (traces.size() != 1)
    return InvalidInput("summarize takes one rank's inputs (a trace and the counter logs of the "
                        "same run); these make " + std::to_string(traces.size()) +
                        " traces: write one .gwsum per rank");
  analysis::RankSummary r = analysis::SummarizeRank(traces[0], options);
  r.analysis.input.path = kept_paths[0];
  r.analysis.input.size_bytes = FileSize(kept_paths[0]);
  return r;
}

Result<analysis::Analysis> ImportAndAnalyze(const std::vector<std::string>& inputs,
                                            const analysis::AnalysisOptions& options,
                                            std::vector<model::Trace>* kept,
                                            const import::ImportOptions& import_options) {
  kept->clear();
  Result<std::vector<std::string>> summaries = ExpandSummaryInputs(inputs);
  if (!summaries.ok()) return summaries.status();
  if (!summaries->empty()) return AnalyzeSummaries(*summaries, options);
  Result<std::vector<std::string>> paths = import::ExpandInputs(inputs);
  if (!paths.ok()) return paths.status();
  if (paths->empty()) return InvalidInput("no traces found in the given inputs");
  // Import every input first (no half report: any container error stops
  // here), fold sampled-counter logs into the trace of the same run, then
  // analyze. The diagnosis looks at all inputs together (rank sets), so the
  // models stay in memory.
  // A recording of a whole launcher (torchrun under `record --trace`) is one
  // trace per rank, each with the same path.
  std::vector<std::string> trace_paths;
  for (const std::string& path : *paths) {
    Result<std::vector<model::Trace>> ranks = import::ImportFileRanks(path, import_options);
    if (!ranks.ok()) return ranks.status();
    for (model::Trace& t : *ranks) {
      kept->push_back(std::move(t));
      trace_paths.push_back(path);
    }
  }
  if (Status s = import::MergeRocprofParts(*kept, trace_paths); !s.ok()) return s;
  import::MergeCounterInputs(*kept, trace_paths);
  import::MergeKernelProfiles(*kept, trace_paths);
  // One rank summary per trace, then the merge: the same path as for .gwsum
  // summaries (SummarizeMain), so both give the same report.
  std::vector<analysis::RankSummary> ranks;
  ranks.reserve(kept->size());
  for (size_t i = 0; i < kept->size(); ++i) {
    analysis::RankSummary r = analysis::SummarizeRank((*kept)[i], options);
    r.analysis.input.path = trace_paths[i];
    r.analysis.input.size_bytes = FileSize(trace_paths[i]);
    ranks.push_back(std::move(r));
  }
  return analysis::MergeRankSummaries(std::move(ranks), options);
}

void RenderAnalysis(const analysis::Analysis& analysis, const AnalyzeOptions& options,
                    std::ostream& out) {
  if (options.json) {
    report::RenderJson(analysis, out, report::JsonOptions{});
  } else {
    report::TerminalOptions t;
    t.width = options.width;
    t.ascii = options.ascii;
    report::RenderTerminal(analysis, out, t);
  }
}

void AnalyzeAndRender(const std::vector<model::Trace>& traces, const AnalyzeOptions& options,
                      std::ostream& out) {
  analysis::Analysis a = analysis::AnalyzeTraces(traces, ToAnalysisOptions(options));
  a.tool_version = ToolVersion();
  for (analysis::TraceAnalysis& t : a.traces)
    if (!t.input.path.empty()) t.input.size_bytes = FileSize(t.input.path);
  RenderAnalysis(a, options, out);
}

int SummarizeMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"summarize one rank's trace into a compact .gwsum file (docs/gwsum.md)",
               "gpuwhy summarize"};
  std::vector<std::string> inputs;
  std::string output_path;
  int top_kernels = 10;
  app.add_option("FILE", inputs,
                 "the rank's trace (plus counter logs of the same run, merged into it)")
      ->required();
  app.add_option("-o,--output", output_path, "the .gwsum file to write")->required();
  app.add_option("--top", top_kernels, "kernel names kept in the top-kernels table")
      ->check(CLI::Range(0, 100000));
  import::ImportOptions import_options;
  AddThreadsOption(app, &import_options.parse_threads);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "gpuwhy summarize: " << e.what() << "\n" << app.help();
    return 1;
  }
  AnalyzeOptions ao;
  ao.top_kernels = top_kernels;
  Result<analysis::RankSummary> r = SummarizeInputs(inputs, ToAnalysisOptions(ao), import_options);
  if (!r.ok()) {
    err << "gpuwhy: " << OneLine(r.status().message()) << '\n';
    return 2;
  }
  Status st = report::WriteRankSummaryFile(*r, output_path);
  if (!st.ok()) {
    err << "gpuwhy: " << OneLine(st.message()) << '\n';
    return 2;
  }
  // One line with the size against the trace's, the figure docs/gwsum.md promises.
  const int64_t bytes = FileSize(output_path);
  const int64_t trace_bytes = r->analysis.input.size_bytes;
  out << "wrote " << output_path << ": " << bytes << " bytes";
  if (IsValid(trace_bytes) && trace_bytes > 0 && IsValid(bytes)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f%%", 100.0 * static_cast<double>(bytes) /
                                                 static_cast<double>(trace_bytes));
    out << " (" << buf << " of the trace's " << trace_bytes << " bytes)";
  }
  out << '\n';
  return 0;
}

int AnalyzeMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"analyze traces: why the GPU is not doing real work", "gpuwhy analyze"};
  std::vector<std::string> inputs;
  AnalyzeOptions options;
  std::string output_path;
  std::string html_path;
  app.add_option("FILE", inputs, "trace files or folders of traces")->required();
  app.add_flag("--json", options.json, "write JSON (docs/json-schema.md) instead of text");
  app.add_option("--top", options.top_kernels, "kernel names in the top-kernels table")
      ->check(CLI::Range(0, 100000));
  app.add_option("-o,--output", output_path, "write the report to FILE instead of stdout");
  app.add_option("--compat", options.compat,
                 "also reproduce an anchor tool's figures: tbplugin, hta, nsys, tracelens "
                 "(repeatable)")
      ->check(CLI::IsMember({"tbplugin", "hta", "nsys", "tracelens"}))
      ->delimiter(',')
      ->allow_extra_args(false);  // one token per --compat: a following FILE is not swallowed
  app.add_option("--html", html_path,
                 "also write a self-contained HTML report (charts, no network) to FILE");
  app.add_flag("--ascii", options.ascii, "ASCII sparklines instead of block characters");
  app.add_option("--scenario", options.scenario,
                 "order fixes for: dev, prod, shared, multi (default: inferred)")
      ->check(CLI::IsMember({"dev", "prod", "shared", "multi"}));
  app.add_option("--perfetto", options.perfetto_path,
                 "also write a Chrome JSON trace with gpuwhy's tracks (counters, idle causes, "
                 "findings) for Perfetto UI / chrome://tracing (docs/perfetto.md)");
  import::ImportOptions import_options;
  AddThreadsOption(app, &import_options.parse_threads);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "gpuwhy analyze: " << e.what() << "\n" << app.help();
    return 1;
  }

  std::vector<model::Trace> kept;
  Result<analysis::Analysis> analysed =
      ImportAndAnalyze(inputs, ToAnalysisOptions(options), &kept, import_options);
  if (!analysed.ok()) {
    err << "gpuwhy: " << OneLine(analysed.status().message()) << '\n';
    return 2;
  }
  analysis::Analysis result = std::move(analysed).value();
  result.tool_version = ToolVersion();
  if (kept.empty() && (!html_path.empty() || !options.perfetto_path.empty() ||
                       !options.compat.empty())) {
    // Summaries carry no events: the charts, the Perfetto tracks and the
    // anchor reproductions read the traces themselves.
    err << "gpuwhy analyze: --html, --perfetto and --compat need the raw traces, not .gwsum "
           "summaries\n";
    return 1;
  }
  if (!html_path.empty() && !WriteHtmlReport(kept, result, html_path, err)) return 2;

  // The Perfetto view reads the kept traces' events, so it is written while
  // they are alive; a rank set goes into one file (one pid range per rank).
  if (!options.perfetto_path.empty()) {
    std::ofstream pf(options.perfetto_path, std::ios::binary | std::ios::trunc);
    if (pf) report::RenderPerfetto(analysis::BuildPerfettoView(kept, result), pf);
    pf.close();
    if (!pf) {
      err << "gpuwhy: " << options.perfetto_path << ": cannot write the Perfetto trace\n";
      return 2;
    }
  }

  std::ostringstream report;
  RenderAnalysis(result, options, report);
  if (output_path.empty()) {
    out << report.str();
    out.flush();
    return 0;
  }
  std::ofstream f(output_path, std::ios::binary | std::ios::trunc);
  f << report.str();
  f.close();
  if (!f) {
    err << "gpuwhy: " << output_path << ": cannot write the report\n";
    return 2;
  }
  return 0;
}

}  // namespace gpuwhy::cli
