// `gpuwhy diff BEFORE AFTER [--json] [--fail-if EXPR]...`: compare two runs.
#include "analysis/diff/run_diff.h"

// CLI11 trips -Wnull-dereference in inlined std::string code; not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "cli/commands.h"
#include "report/html/html_renderer.h"
#include "report/json/run_profile_json.h"
#include "report/terminal/diff_renderer.h"

namespace gpuwhy::cli {

Result<analysis::RunProfile> ProfileOfSide(const std::string& input,
                                           const analysis::AnalysisOptions& opts) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(input, ec)) {
    std::ifstream f(input, std::ios::binary);
    std::string head(4096, '\0');
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(f.gcount()));
    if (report::IsSavedReport(head)) {
      std::ostringstream all;
      f.clear();
      f.seekg(0);
      all << f.rdbuf();
      Result<analysis::RunProfile> p = report::ReadRunProfile(all.str());
      if (!p.ok()) return Status(p.status().code(), input + ": " + p.status().message());
      return p;
    }
  }
  std::vector<model::Trace> kept;
  Result<analysis::Analysis> a = ImportAndAnalyze({input}, opts, &kept);
  if (!a.ok()) return a.status();
  return a->profile;
}

int DiffMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"compare two runs: what changed, by how much, and what limits the new one",
               "gpuwhy diff"};
  std::string before, after;
  bool json = false;
  std::vector<std::string> gate_texts;
  app.add_option("BEFORE", before, "trace, folder of rank traces, recording, or saved --json report")
      ->required();
  app.add_option("AFTER", after, "the same kinds of input as BEFORE")->required();
  app.add_flag("--json", json, "machine-readable diff (docs/diff.md)");
  std::string html_path;
  app.add_option("--html", html_path, "also write the diff as a self-contained HTML page");
  app.add_option("--fail-if", gate_texts,
                 "CI gate, repeatable; exit 3 when violated. METRIC>+N% | METRIC<-Npp | "
                 "METRIC>+Nms | finding:ID. Metrics: step_time, p50_step_time, p95_step_time, "
                 "slowest_rank_step_time, idle_ratio, busy_ratio, surface, real, mfu, busy_mfu, "
                 "copies_per_step, syncs_per_step (docs/diff.md)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "gpuwhy diff: " << e.what() << "\n" << app.help();
    return 1;
  }
  std::vector<analysis::Gate> gates;
  for (const std::string& g : gate_texts) {
    Result<analysis::Gate> parsed = analysis::ParseGate(g);
    if (!parsed.ok()) {
      err << "gpuwhy diff: " << parsed.status().message() << "\n";
      return 1;
    }
    gates.push_back(*parsed);
  }
  const analysis::AnalysisOptions opts;
  Result<analysis::RunProfile> b = ProfileOfSide(before, opts);
  if (!b.ok()) {
    err << "gpuwhy: " << OneLine(b.status().message()) << '\n';
    return 2;
  }
  Result<analysis::RunProfile> a = ProfileOfSide(after, opts);
  if (!a.ok()) {
    err << "gpuwhy: " << OneLine(a.status().message()) << '\n';
    return 2;
  }
  const analysis::RunDiff d = analysis::DiffRuns(*b, *a);
  const std::vector<std::string> violated = analysis::EvaluateGates(gates, d);
  if (!html_path.empty()) {
    std::ofstream h(html_path, std::ios::binary | std::ios::trunc);
    if (h) report::RenderDiffHtml(d, violated, h);
    h.close();
    if (!h) {
      err << "gpuwhy: " << html_path << ": cannot write the HTML page\n";
      return 2;
    }
  }
  if (json) {
    report::RenderDiffJson(d, violated, out);
  } else {
    report::RenderDiff(d, violated, out);
  }
  out.flush();
  for (const std::string& v : violated) err << "gpuwhy diff: gate failed: " << v << '\n';
  return violated.empty() ? 0 : 3;
}

}  // namespace gpuwhy::cli
