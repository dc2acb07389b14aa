// libFuzzer entry: arbitrary bytes as a file given to `gpuwhy analyze`, and
// everything that command does with it: the import (the format found by
// content, as the command finds it: Kineto JSON plain or gzip, nvidia-smi and
// DCGM logs, recordings with one trace per rank), every analysis (the anchor
// reproductions on every other input), the terminal report at two widths,
// the JSON document, the HTML page, the Perfetto trace, and each rank's
// .gwsum summary with their merge. The importers' own fuzzers stop at the
// model; this one checks that the analysis takes whatever times, names and
// values an import lets through (±2^62 ns, durations of 146 years, one event
// or none, counters at ±1e308) without undefined behaviour, and that the
// renderers turn it into a report, not a crash.
// Invariants: the JSON report and the Perfetto trace parse as JSON; every
// summary encodes and decodes; no sanitizer finding.
#include <simdjson.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/perfetto/perfetto_view.h"
#include "analysis/views/html_view.h"
#include "import/registry.h"
#include "report/gwsum/gwsum_format.h"
#include "report/html/html_renderer.h"
#include "report/json/json_renderer.h"
#include "report/perfetto/perfetto_renderer.h"
#include "report/terminal/terminal_renderer.h"

namespace {

// CheckJson: abort unless `text` is one well-formed JSON document.
void CheckJson(const std::string& text) {
  static simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS) std::abort();
}

// Render: every output `analyze` writes for `a`.
void Render(const std::vector<gpuwhy::model::Trace>& traces, const gpuwhy::analysis::Analysis& a) {
  using namespace gpuwhy;
  std::ostringstream text;
  report::RenderTerminal(a, text, {});
  report::RenderTerminal(a, text, {.width = 60, .ascii = true});
  std::ostringstream json;
  report::RenderJson(a, json, {});
  CheckJson(json.str());
  if (traces.empty()) return;  // summaries: no events to chart
  std::ostringstream html;
  report::RenderHtml(a, analysis::views::BuildHtmlView(traces, a), html);
  std::ostringstream perfetto;
  report::RenderPerfetto(analysis::BuildPerfettoView(traces, a), perfetto);
  CheckJson(perfetto.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuwhy;
  // The registry reads files (it sniffs the format, then streams it); one
  // scratch file per fuzzing process.
  static const std::string path = [] {
    std::atexit(
        [] { std::remove(("/tmp/gpuwhy_analysis_fuzz_" + std::to_string(::getpid())).c_str()); });
    return "/tmp/gpuwhy_analysis_fuzz_" + std::to_string(::getpid());
  }();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  import::ImportOptions io;
  io.parse_threads = 1;
  Result<std::vector<model::Trace>> traces = import::ImportFileRanks(path, io);
  if (!traces.ok()) {
    if (traces.status().message().empty()) std::abort();  // every error says what and where
    return 0;
  }

  analysis::AnalysisOptions ao;
  if (size % 2 == 1) {
    ao.compat.tbplugin = true;
    ao.compat.hta = true;
    ao.compat.nsys = true;
    ao.compat.tracelens = true;
  }
  analysis::Analysis a = analysis::AnalyzeTraces(*traces, ao);
  a.tool_version = "fuzz";
  Render(*traces, a);

  // What `summarize` writes per rank and `analyze *.gwsum` merges.
  std::vector<analysis::RankSummary> ranks;
  for (const model::Trace& t : *traces) {
    Result<std::string> bytes = report::EncodeRankSummary(analysis::SummarizeRank(t, ao));
    if (!bytes.ok()) std::abort();
    Result<analysis::RankSummary> back = report::DecodeRankSummary(*bytes, "fuzz.gwsum");
    if (!back.ok()) std::abort();
    ranks.push_back(std::move(back).value());
  }
  analysis::Analysis merged = analysis::MergeRankSummaries(std::move(ranks), ao);
  merged.tool_version = "fuzz";
  Render({}, merged);
  return 0;
}
