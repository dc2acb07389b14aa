// gpuwhy._gpuwhy: the pybind11 extension behind `import gpuwhy` (docs/python.md).
//
// A thin front end, like the CLI: it calls the CLI's own library functions
// (cli::ImportAndAnalyze, cli::ProfileOfSide, the renderers), so a report from
// Python is byte for byte the report `gpuwhy analyze` prints. The GIL is
// released while importing, analysing and rendering, so Python threads may
// analyze at once. Errors are gpuwhy.InputError (a ValueError) carrying the
// CLI's one-line message, without the "gpuwhy: " prefix the CLI adds.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/detectors/timeline.h"
#include "analysis/diff/run_diff.h"
#include "analysis/views/html_view.h"
#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "report/html/html_renderer.h"
#include "report/json/json_renderer.h"
#include "report/json/run_profile_json.h"
#include "report/terminal/diff_renderer.h"
#include "report/terminal/terminal_renderer.h"

namespace py = pybind11;

namespace gpuwhy::python {
namespace {

// The InputError class object, created once at module init.
PyObject* g_input_error = nullptr;

[[noreturn]] void ThrowInputError(const Status& st) {
  PyErr_SetString(g_input_error, cli::OneLine(st.message()).c_str());
  throw py::error_already_set();
}

// PyReport: one analysis and the traces it was computed from (the HTML view
// and the per-step rows read them). Immutable once built, so its methods may
// run on several threads at once.
class PyReport {
 public:
  PyReport(analysis::Analysis a, std::vector<model::Trace> traces)
      : analysis_(std::move(a)), traces_(std::move(traces)) {}

  std::string Json() const {
    py::gil_scoped_release nogil;
    std::ostringstream out;
    report::RenderJson(analysis_, out, report::JsonOptions{});
    return out.str();
  }

  std::string Html() const {
    if (traces_.empty())
      ThrowInputError(InvalidInput("the HTML report needs the raw traces, not .gwsum summaries"));
    py::gil_scoped_release nogil;
    std::ostringstream out;
    cli::RenderHtmlReport(traces_, analysis_, out);
    return out.str();
  }

  std::string Text(int width, bool ascii) const {
    py::gil_scoped_release nogil;
    std::ostringstream out;
    report::TerminalOptions t;
    t.width = width;
    t.ascii = ascii;
    report::RenderTerminal(analysis_, out, t);
    return out.str();
  }

  std::string TopLine() const {
    return analysis_.diagnosis ? analysis_.diagnosis->top_line : std::string();
  }

  // StepRows: every step window of every device with events, one tuple each:
  // (trace, rank, device, step, start_ns, dur_ns, compute_ns, comm_ns,
  // copy_ns, idle_ns by cause...). Step is None when the window is not a
  // marked step (the loop without markers).
  py::list StepRows() const {
    analysis::views::HtmlView view;
    {
      py::gil_scoped_release nogil;
      analysis::views::HtmlViewOptions o;
      o.max_steps = std::numeric_limits<size_t>::max();
      if (!traces_.empty()) view = analysis::views::BuildHtmlView(traces_, analysis_, o);
    }
    py::list rows;
    for (size_t t = 0; t < view.traces.size(); ++t) {
      const int32_t rank = t < analysis_.traces.size() ? analysis_.traces[t].input.rank : kMissingI32;
      for (const analysis::views::DeviceView& d : view.traces[t].devices) {
        for (const analysis::views::StepBreakdown& s : d.steps) {
          py::dict r;
          r["trace"] = t;
          r["rank"] = IsValid(rank) ? py::object(py::int_(rank)) : py::none();
          r["device"] = d.device_id;
          r["step"] = IsValid(s.step) ? py::object(py::int_(s.step)) : py::none();
          r["start_ns"] = s.start_ns;
          r["dur_ns"] = s.dur_ns;
          r["compute_ns"] = s.compute_ns;
          r["comm_ns"] = s.comm_ns;
          r["copy_ns"] = s.copy_ns;
          for (size_t c = 0; c < analysis::detectors::kIdleCauseCount; ++c) {
            std::string key = "idle_";
            key += analysis::detectors::ToString(static_cast<analysis::detectors::IdleCause>(c));
            key += "_ns";
            r[py::str(key)] = s.idle_ns[c];
          }
          rows.append(std::move(r));
        }
      }
    }
    return rows;
  }

  size_t TraceCount() const { return traces_.size(); }

 private:
  analysis::Analysis analysis_;
  std::vector<model::Trace> traces_;
};

std::unique_ptr<PyReport> Analyze(const std::vector<std::string>& paths,
                                  const std::optional<std::string>& scenario,
                                  const std::vector<std::string>& compat, int top_kernels,
                                  int threads) {
  cli::AnalyzeOptions o;
  o.top_kernels = top_kernels;
  if (scenario) {
    if (*scenario != "dev" && *scenario != "prod" && *scenario != "shared" && *scenario != "multi")
      throw py::value_error("scenario must be one of dev, prod, shared, multi (or None: inferred)");
    o.scenario = *scenario;
  }
  for (const std::string& c : compat) {
    if (c != "tbplugin" && c != "hta" && c != "nsys" && c != "tracelens")
      throw py::value_error("unknown compat '" + c + "' (known: tbplugin, hta, nsys, tracelens)");
    o.compat.push_back(c);
  }
  if (top_kernels < 0) throw py::value_error("top_kernels must be >= 0");
  if (threads < 0 || threads > 64) throw py::value_error("threads must be 0..64");
  import::ImportOptions io;
  io.parse_threads = threads;
  std::vector<model::Trace> kept;
  Result<analysis::Analysis> r = InvalidInput("not run");
  {
    py::gil_scoped_release nogil;
    r = cli::ImportAndAnalyze(paths, cli::ToAnalysisOptions(o), &kept, io);
  }
  if (!r.ok()) ThrowInputError(r.status());
  analysis::Analysis a = std::move(r).value();
  a.tool_version = cli::ToolVersion();
  return std::make_unique<PyReport>(std::move(a), std::move(kept));
}

// PyDiff: `gpuwhy diff BEFORE AFTER` as an object.
struct PyDiff {
  analysis::RunDiff diff;
  std::vector<std::string> violations;

  std::string Json() const {
    std::ostringstream out;
    report::RenderDiffJson(diff, violations, out);
    return out.str();
  }
  std::string Text() const {
    std::ostringstream out;
    report::RenderDiff(diff, violations, out);
    return out.str();
  }
  std::string Html() const {
    std::ostringstream out;
    report::RenderDiffHtml(diff, violations, out);
    return out.str();
  }
};

std::unique_ptr<PyDiff> Diff(const std::string& before, const std::string& after,
                             const std::vector<std::string>& fail_if) {
  std::vector<analysis::Gate> gates;
  for (const std::string& g : fail_if) {
    Result<analysis::Gate> parsed = analysis::ParseGate(g);
    if (!parsed.ok()) throw py::value_error(parsed.status().message());
    gates.push_back(*parsed);
  }
  auto d = std::make_unique<PyDiff>();
  Status failed;
  {
    py::gil_scoped_release nogil;
    const analysis::AnalysisOptions opts;
    Result<analysis::RunProfile> b = cli::ProfileOfSide(before, opts);
    if (!b.ok()) {
      failed = b.status();
    } else {
      Result<analysis::RunProfile> a = cli::ProfileOfSide(after, opts);
      if (!a.ok()) {
        failed = a.status();
      } else {
        d->diff = analysis::DiffRuns(*b, *a);
        d->violations = analysis::EvaluateGates(gates, d->diff);
      }
    }
  }
  if (!failed.ok()) ThrowInputError(failed);
  return d;
}

}  // namespace
}  // namespace gpuwhy::python

PYBIND11_MODULE(_gpuwhy, m) {
  using namespace gpuwhy::python;
  m.doc() = "gpuwhy's analysis engine (use the gpuwhy package, not this module)";
  static py::exception<std::runtime_error> input_error(m, "InputError", PyExc_ValueError);
  g_input_error = input_error.ptr();
  m.attr("__version__") = gpuwhy::cli::ToolVersion();

  py::class_<PyReport>(m, "_Report")
      .def("json", &PyReport::Json, "the `gpuwhy analyze --json` document (str)")
      .def("html", &PyReport::Html, "the `gpuwhy analyze --html` page (str)")
      .def("text", &PyReport::Text, py::arg("width") = 100, py::arg("ascii") = false,
           "the terminal report (str)")
      .def("top_line", &PyReport::TopLine, "the WHY line")
      .def("step_rows", &PyReport::StepRows, "one dict per step window and device")
      .def("trace_count", &PyReport::TraceCount);

  py::class_<PyDiff>(m, "_Diff")
      .def("json", &PyDiff::Json)
      .def("text", &PyDiff::Text)
      .def("html", &PyDiff::Html)
      .def_property_readonly("violations",
                             [](const PyDiff& d) { return d.violations; });

  m.def("analyze", &Analyze, py::arg("paths"), py::arg("scenario"), py::arg("compat"),
        py::arg("top_kernels"), py::arg("threads"));
  m.def("diff", &Diff, py::arg("before"), py::arg("after"), py::arg("fail_if"));
}
