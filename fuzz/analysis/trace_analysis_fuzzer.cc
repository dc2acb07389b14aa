// libFuzzer entry: arbitrary bytes as a Kineto trace through everything
// `gpuwhy analyze` does with one: the import, every analysis (the anchor
// reproductions on every other input), the terminal report at two widths, the
// JSON document, the HTML page, the Perfetto trace and the .gwsum summary.
// The importer's own fuzzer stops at the model; this one checks that the
// analysis takes whatever times and names an import lets through (±2^62 ns,
// durations of 146 years, one event or none) without undefined behaviour, and
// that the renderers turn it into a report, not a crash.
// Invariants: the JSON report and the Perfetto trace parse as JSON; a summary
// encodes and decodes; no sanitizer finding.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/perfetto/perfetto_view.h"
#include "analysis/views/html_view.h"
#include "base/input_stream.h"
#include "import/kineto/kineto_importer.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuwhy;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  import::KinetoOptions options;
  options.threads = 1;
  auto in = OpenMemoryStream(bytes, "fuzz.json");
  std::vector<model::Trace> traces(1);
  if (!import::ReadKinetoStream(*in, options, traces[0]).ok()) return 0;

  analysis::AnalysisOptions ao;
  if (size % 2 == 1) {
    ao.compat.tbplugin = true;
    ao.compat.hta = true;
    ao.compat.nsys = true;
    ao.compat.tracelens = true;
  }
  analysis::Analysis a = analysis::AnalyzeTraces(traces, ao);
  a.tool_version = "fuzz";

  std::ostringstream text;
  report::RenderTerminal(a, text, {});
  report::RenderTerminal(a, text, {.width = 60, .ascii = true});
  std::ostringstream json;
  report::RenderJson(a, json, {});
  CheckJson(json.str());

  std::ostringstream html;
  report::RenderHtml(a, analysis::views::BuildHtmlView(traces, a), html);
  std::ostringstream perfetto;
  report::RenderPerfetto(analysis::BuildPerfettoView(traces, a), perfetto);
  CheckJson(perfetto.str());

  analysis::RankSummary summary = analysis::SummarizeRank(traces[0], ao);
  Result<std::string> encoded = report::EncodeRankSummary(summary);
  if (!encoded.ok()) std::abort();
  if (!report::DecodeRankSummary(*encoded, "fuzz.gwsum").ok()) std::abort();
  return 0;
}
