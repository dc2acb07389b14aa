#include "report/html/html_renderer.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "report/html/html_assets.h"
#include "report/json/json_writer.h"
#include "report/json/run_profile_json.h"

namespace gpuwhy::report {

namespace {

using analysis::Figure;
using analysis::views::Envelope;

// Json: a compact JSON builder (the page data holds long number arrays;
// JsonWriter pretty-prints one value per line, which would triple the size).
class Json {
 public:
  std::string out;

  void BeginObject() {
    Value();
    out += '{';
    first_.push_back(true);
  }
  void EndObject() {
    out += '}';
    first_.pop_back();
  }
  void BeginArray() {
    Value();
    out += '[';
    first_.push_back(true);
  }
  void EndArray() {
    out += ']';
    first_.pop_back();
  }
  void Key(std::string_view k) {
    Comma();
    out += JsonWriter::EscapeString(k);
    out += ':';
    after_key_ = true;
  }
  void Str(std::string_view s) {
    Value();
    out += JsonWriter::EscapeString(s);
  }
  void Int(int64_t v) {
    Value();
    if (!IsValid(v))
      out += "null";
    else
      out += std::to_string(v);
  }
  void Int32(int32_t v) { Int(IsValid(v) ? int64_t{v} : kMissingI64); }
  void Bool(bool b) {
    Value();
    out += b ? "true" : "false";
  }
  // Num: `v` with at most `decimals` places, trailing zeros dropped; null when not finite.
  void Num(double v, int decimals) {
    Value();
    if (!std::isfinite(v)) {
      out += "null";
      return;
    }
    std::string s = fmt::format("{:.{}f}", v, decimals);
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    out += s;
  }
  void Nums(const std::vector<double>& v, int decimals) {
    BeginArray();
    for (double x : v) Num(x, decimals);
    EndArray();
  }
  void Ints(const std::vector<int64_t>& v) {
    BeginArray();
    for (int64_t x : v) Int(x);
    EndArray();
  }
  void Strs(const std::vector<std::string>& v) {
    BeginArray();
    for (const std::string& x : v) Str(x);
    EndArray();
  }
  void F(std::string_view k, std::string_view v) {
    Key(k);
    Str(v);
  }
  void FI(std::string_view k, int64_t v) {
    Key(k);
    Int(v);
  }
  void FN(std::string_view k, double v, int decimals) {
    Key(k);
    Num(v, decimals);
  }
  void FB(std::string_view k, bool v) {
    Key(k);
    Bool(v);
  }

 private:
  void Comma() {
    if (!first_.empty()) {
      if (!first_.back()) out += ',';
      first_.back() = false;
    }
  }
  void Value() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    Comma();
  }
  std::vector<bool> first_;
  bool after_key_ = false;
};

// Seconds: ns relative to `origin`, in seconds, for chart x values.
double Sec(int64_t ns, int64_t origin) {
  if (!IsValid(ns) || !IsValid(origin)) return std::nan("");
  return static_cast<double>(ns - origin) / 1e9;
}

void WriteEnvelope(Json& j, const Envelope& e, int64_t origin) {
  j.BeginObject();
  j.F("label", e.label);
  j.F("source", e.source);
  j.F("unit", e.unit);
  j.FB("untimed", e.untimed);
  if (e.untimed) {  // sample indexes, not times
    j.FI("start_s", e.start_ns);
    j.FI("bin_s", e.bin_ns);
  } else {
    j.FN("start_s", Sec(e.start_ns, origin), 6);
    j.FN("bin_s", IsValid(e.bin_ns) ? static_cast<double>(e.bin_ns) / 1e9 : std::nan(""), 9);
  }
  j.FN("source_period_s",
       IsValid(e.source_period_ns) ? static_cast<double>(e.source_period_ns) / 1e9 : std::nan(""),
       9);
  j.FB("reduced", e.reduced);
  bool ratio = e.unit == "ratio";
  int dec = ratio ? 3 : 1;
  j.Key("mean");
  j.Nums(e.mean, dec);
  if (e.reduced) {
    j.Key("min");
    j.Nums(e.min, dec);
    j.Key("max");
    j.Nums(e.max, dec);
  }
  j.EndObject();
}

void WriteBar(Json& j, std::string_view label, std::string_view kind, const Figure& f) {
  if (!std::isfinite(f.value)) return;
  j.BeginObject();
  j.F("label", label);
  j.F("kind", kind);
  j.FN("value", f.value, 4);
  j.F("source", f.source);
  j.EndObject();
}

void WriteBar(Json& j, std::string_view label, std::string_view kind, double v,
              std::string_view source) {
  WriteBar(j, label, kind, Figure{v, std::string(source)});
}

void WriteFinding(Json& j, const analysis::detectors::Finding& f) {
  namespace d = analysis::detectors;
  j.BeginObject();
  j.F("id", f.id);
  j.F("category", d::ToString(f.category));
  j.F("severity", d::ToString(f.severity));
  j.F("title", f.title);
  j.F("summary", f.summary);
  j.Key("device");
  j.Int32(f.device_id);
  j.Key("rank");
  j.Int32(f.rank);
  j.FI("lost_per_step_ns", f.lost_per_step_ns);
  j.FN("lost_step_ratio", f.lost_step_ratio, 4);
  j.FB("upper_bound", f.lost_is_upper_bound);
  j.FB("per_step_basis", f.per_step_basis);
  j.Key("evidence");
  j.BeginArray();
  for (const d::Metric& m : f.evidence) {
    j.BeginObject();
    j.F("label", m.label.empty() ? m.name : m.label);
    j.FN("value", m.value, 6);
    j.F("unit", m.unit);
    j.EndObject();
  }
  j.EndArray();
  j.Key("examples");
  j.BeginArray();
  for (const d::Example& e : f.examples) {
    j.BeginObject();
    j.F("what", e.what);
    j.FI("start_ns", e.start_ns);
    j.FI("dur_ns", e.dur_ns);
    j.Key("step");
    j.Int32(e.step);
    j.Key("device");
    j.Int32(e.device_id);
    j.Key("rank");
    j.Int32(e.rank);
    j.F("detail", e.detail);
    j.EndObject();
  }
  j.EndArray();
  j.Key("recommendations");
  j.BeginArray();
  for (const d::Recommendation& r : f.recommendations) j.Str(r.text);
  j.EndArray();
  j.Key("caveats");
  j.Strs(f.caveats);
  j.Key("notes");
  j.Strs(f.notes);
  j.EndObject();
}

void WriteDiagnosis(Json& j, const analysis::detectors::Diagnosis& dg) {
  namespace d = analysis::detectors;
  j.BeginObject();
  j.F("top_line", dg.top_line);
  j.F("scenario", d::ToString(dg.scenario));
  j.FB("scenario_inferred", dg.scenario_inferred);
  j.F("scenario_reason", dg.scenario_reason);
  j.F("curve_shape", dg.curve_shape);
  j.F("curve_reason", dg.curve_reason);
  j.F("curve_note", dg.curve_note);
  j.F("bottleneck", dg.bottleneck);
  j.FN("idle_step_ratio", dg.idle_step_ratio, 4);
  j.FN("host_wait_idle_ratio", dg.host_wait_idle_ratio, 4);
  j.FN("kernel_step_ratio", dg.kernel_step_ratio, 4);
  j.FB("per_step_basis", dg.per_step_basis);
  j.Key("step_count");
  j.Int32(dg.step_count);
  j.FI("rank_count", dg.rank_count);
  j.Key("findings");
  j.BeginArray();
  for (const d::Finding& f : dg.findings) WriteFinding(j, f);
  j.EndArray();
  j.Key("fixes");
  j.BeginArray();
  for (const d::Fix& f : dg.fixes) {
    j.BeginObject();
    j.F("kind", d::ToString(f.kind));
    j.F("text", f.text);
    j.F("finding_id", f.finding_id);
    j.FN("lost_step_ratio", f.lost_step_ratio, 4);
    j.EndObject();
  }
  j.EndArray();
  j.Key("caveats");
  j.Strs(dg.caveats);
  j.EndObject();
}

// WriteMeasuredKernels: a kernel profiler's per-kernel table (bound and
// figures, each labelled measured or estimated); formatting only.
void WriteMeasuredKernels(Json& j, const analysis::MeasuredKernels& m) {
  j.Key("measured_kernels");
  j.BeginObject();
  j.F("source", m.source);
  j.FB("untimed", m.untimed);
  j.FI("kernels", m.kernels);
  j.FI("matched_kernels", m.measured_kernels);
  j.Key("groups");
  j.BeginArray();
  for (const analysis::MeasuredKernel& k : m.groups) {
    j.BeginObject();
    j.F("name", k.name);
    j.F("config", fmt::format("({},{},{}) x ({},{},{})", k.grid[0], k.grid[1], k.grid[2],
                              k.block[0], k.block[1], k.block[2]));
    j.F("bound", analysis::ToString(k.bound));
    j.FI("launches", k.launches);
    j.FI("time_ns", k.time_ns);
    j.FN("time_share", k.time_share_ratio, 4);
    j.FN("sm_pct", k.sm_throughput_pct, 1);
    j.FN("mem_pct", k.memory_throughput_pct, 1);
    j.FN("dram_pct", k.dram_throughput_pct, 1);
    j.FN("achieved_pct", k.achieved_occupancy_pct, 1);
    j.FN("theoretical_pct", k.theoretical_occupancy_pct, 1);
    j.FN("est_occupancy_pct", k.est_occupancy_pct, 1);
    std::string rules;
    for (const analysis::MeasuredRule& r : k.rules) {
      if (r.type == "INF") continue;
      if (!rules.empty()) rules += "; ";
      rules += r.rule;
      if (!std::isnan(r.est_speedup_pct)) rules += fmt::format(" ({:.0f}%)", r.est_speedup_pct);
    }
    j.F("rules", rules);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
}

void WriteDevice(Json& j, const analysis::TraceAnalysis& ta, const analysis::views::DeviceView& v,
                 int64_t origin) {
  const analysis::DeviceSummary* sum = nullptr;
  for (const analysis::DeviceSummary& s : ta.summary.devices)
    if (s.device_id == v.device_id) sum = &s;
  const analysis::DeviceUtilization* u = nullptr;
  for (const analysis::DeviceUtilization& x : ta.utilization.devices)
    if (x.device_id == v.device_id) u = &x;
  const analysis::DeviceThroughput* tp = nullptr;
  for (const analysis::DeviceThroughput& x : ta.utilization.throughput.devices)
    if (x.device_id == v.device_id) tp = &x;

  j.BeginObject();
  j.Key("id");
  j.Int32(v.device_id);
  j.F("name", sum ? sum->name : "");
  j.F("noun", model::DeviceNoun(sum ? sum->vendor : model::Vendor::kUnknown));  // "GPU" / "TPU"
  j.FB("has_events", v.has_events);

  // Surface vs real.
  j.Key("bars");
  j.BeginArray();
  if (u) {
    WriteBar(j, "GPU-Util (surface)", "surface", u->surface_ratio);
    WriteBar(j, "real (headline)", "real", u->real_ratio);
    WriteBar(j, "SM fill", "real", u->sm_fill_ratio);
    WriteBar(j, "SM fill while kernels run", "real", u->sm_fill_active_ratio,
             u->sm_fill_ratio.source);
    WriteBar(j, "SM active (counter)", "real", u->counter_sm_active);
    WriteBar(j, "occupancy (est.)", "real", u->occupancy_ratio);
    WriteBar(j, "SM occupancy (counter)", "real", u->counter_sm_occupancy);
    WriteBar(j, "tensor-core share", "real", u->tensor_core_share);
    WriteBar(j, "tensor active (counter)", "real", u->counter_tensor_active);
    WriteBar(j, "DRAM active (counter)", "real", u->counter_dram_active);
    WriteBar(j, "power / limit (counter)", "real", u->counter_power_ratio);
  }
  if (tp) {
    WriteBar(j, "MFU", "real", tp->mfu_ratio, tp->peak_source);
    WriteBar(j, "busy-time MFU", "real", tp->busy_mfu_ratio, tp->peak_source);
  }
  j.EndArray();
  if (u) {
    j.F("verdict", ToString(u->verdict.curve_class));
    j.F("verdict_reason", u->verdict.reason);
    j.F("verdict_window", u->verdict_window);
    j.F("aliasing_note", u->aliasing_note);
    j.FN("gap_pp", u->gap_pp, 1);
  }
  if (tp) {
    j.F("throughput_note", tp->note);
    j.F("gpu_model", tp->gpu_model);
  }

  // The curve.
  const analysis::views::CauseCurve& c = v.curve;
  if (!c.compute_ratio.empty()) {
    j.Key("curve");
    j.BeginObject();
    j.FN("start_s", Sec(c.start_ns, origin), 6);
    j.FN("bin_s", static_cast<double>(c.bin_ns) / 1e9, 9);
    j.Key("compute");
    j.Nums(c.compute_ratio, 3);
    j.Key("comm");
    j.Nums(c.comm_ratio, 3);
    j.Key("copy");
    j.Nums(c.copy_ratio, 3);
    j.Key("idle");
    j.BeginArray();
    for (const auto& x : c.idle_ratio) j.Nums(x, 3);
    j.EndArray();
    j.EndObject();
  }
  j.FB("steps_from_markers", v.steps_from_markers);
  j.Key("step_starts_s");
  j.BeginArray();
  for (int64_t s : v.step_starts_ns) j.Num(Sec(s, origin), 6);
  j.EndArray();
  j.Key("util");
  j.BeginArray();
  for (const Envelope& e : v.utilization) WriteEnvelope(j, e, origin);
  j.EndArray();
  j.Key("counters");
  j.BeginArray();
  for (const Envelope& e : v.counters) WriteEnvelope(j, e, origin);
  j.EndArray();

  // Per-step breakdown, column-wise (ms).
  j.FI("steps_total", static_cast<int64_t>(v.steps_total));
  j.Key("steps");
  j.BeginObject();
  auto col = [&](std::string_view k, auto get) {
    j.Key(k);
    j.BeginArray();
    for (const analysis::views::StepBreakdown& s : v.steps) j.Num(get(s), 4);
    j.EndArray();
  };
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  j.Key("step");
  j.BeginArray();
  for (const analysis::views::StepBreakdown& s : v.steps) j.Int32(s.step);
  j.EndArray();
  col("dur_ms", [&](const auto& s) { return ms(s.dur_ns); });
  col("compute_ms", [&](const auto& s) { return ms(s.compute_ns); });
  col("comm_ms", [&](const auto& s) { return ms(s.comm_ns); });
  col("copy_ms", [&](const auto& s) { return ms(s.copy_ns); });
  j.Key("idle_ms");
  j.BeginArray();
  for (size_t k = 0; k < analysis::detectors::kIdleCauseCount; ++k) {
    j.BeginArray();
    for (const analysis::views::StepBreakdown& s : v.steps) j.Num(ms(s.idle_ns[k]), 4);
    j.EndArray();
  }
  j.EndArray();
  j.EndObject();

  const analysis::views::Histogram& h = v.kernel_durations;
  j.Key("hist");
  j.BeginObject();
  j.Key("edges_ns");
  j.Ints(h.edges_ns);
  j.Key("count");
  j.Ints(h.count);
  j.Key("total_ns");
  j.Ints(h.total_ns);
  j.EndObject();

  if (sum) {
    j.Key("kernels");
    j.BeginObject();
    j.FI("count", sum->kernels.duration.count);
    j.FI("total_ns", sum->kernels.duration.total_ns);
    j.FI("p50_ns", sum->kernels.duration.p50_ns);
    j.FI("distinct", sum->kernels.distinct_names);
    j.FI("other_count", sum->kernels.other_count);
    j.FI("other_total_ns", sum->kernels.other_total_ns);
    j.Key("top");
    j.BeginArray();
    for (const analysis::KernelNameStats& k : sum->kernels.top) {
      j.BeginObject();
      j.F("name", k.name);
      j.F("class", analysis::ToString(k.kernel_class));
      j.FB("tensor_core", k.tensor_core);
      j.FI("count", k.count);
      j.FI("total_ns", k.total_ns);
      j.FN("mean_ns", k.mean_ns, 0);
      j.FI("max_ns", k.max_ns);
      j.FN("ratio", k.time_ratio, 4);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
    j.Key("copies");
    j.BeginArray();
    for (const analysis::MemcpyGroup& g : sum->memcpy_by_kind_pair) {
      j.BeginObject();
      j.F("kind", model::ToString(g.copy_kind));
      j.F("src", model::ToString(g.src_kind));
      j.F("dst", model::ToString(g.dst_kind));
      j.FI("count", g.stats.count);
      j.FI("bytes", g.stats.bytes);
      j.FI("total_ns", g.stats.total_ns);
      j.FN("gbps", g.stats.bandwidth_gbps, 2);
      j.EndObject();
    }
    for (const analysis::MemsetGroup& g : sum->memset_by_kind) {
      j.BeginObject();
      j.F("kind", "memset");
      j.F("src", "");
      j.F("dst", model::ToString(g.dst_kind));
      j.FI("count", g.stats.count);
      j.FI("bytes", g.stats.bytes);
      j.FI("total_ns", g.stats.total_ns);
      j.FN("gbps", g.stats.bandwidth_gbps, 2);
      j.EndObject();
    }
    j.EndArray();
    j.Key("syncs");
    j.BeginArray();
    for (const analysis::SyncApiStats& s : sum->sync_apis) {
      j.BeginObject();
      j.F("name", s.name);
      j.F("class", analysis::ToString(s.api_class));
      j.FB("blocking", s.host_blocking);
      j.FI("count", s.count);
      j.FI("total_ns", s.total_ns);
      j.FI("max_ns", s.max_ns);
      j.EndObject();
    }
    j.EndArray();
    j.Key("step_stats");
    j.BeginObject();
    j.FI("count", sum->steps.step_time.count);
    j.FN("mean_ns", sum->steps.step_time.mean_ns, 0);
    j.FI("p50_ns", sum->steps.step_time.p50_ns);
    j.FI("max_ns", sum->steps.step_time.max_ns);
    j.EndObject();
    j.FI("span_ns", sum->span_ns);
  }
  j.EndObject();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

constexpr const char* kCauseNames[analysis::detectors::kIdleCauseCount] = {
    "data loader", "sync", "host launch", "kernel wait", "other", "h2d sync", "host busy"};

}  // namespace

std::string EscapeJsonForHtml(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
             (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string HtmlDataJson(const analysis::Analysis& analysis,
                         const analysis::views::HtmlView& view) {
  Json j;
  j.BeginObject();
  j.F("tool_version", analysis.tool_version);
  j.F("uplot_version", Trim(html_assets::UplotVersion()));
  j.Key("causes");
  j.BeginArray();
  for (const char* n : kCauseNames) j.Str(n);
  j.EndArray();
  if (analysis.diagnosis) {
    j.Key("diagnosis");
    WriteDiagnosis(j, *analysis.diagnosis);
  }
  j.Key("traces");
  j.BeginArray();
  for (size_t i = 0; i < analysis.traces.size(); ++i) {
    const analysis::TraceAnalysis& ta = analysis.traces[i];
    int64_t origin = ta.summary.extent_start_ns;
    j.BeginObject();
    j.F("path", ta.input.path);
    j.F("format", ta.input.format);
    j.FI("size_bytes", ta.input.size_bytes);
    j.Key("rank");
    j.Int32(ta.input.rank);
    j.Key("world_size");
    j.Int32(ta.input.world_size);
    j.F("hostname", ta.input.hostname);
    j.Key("merged_inputs");
    j.Strs(ta.input.merged_inputs);
    if (!ta.input.import_notes.empty()) {  // absent when the importer had no choice to make
      j.Key("import_notes");
      j.Strs(ta.input.import_notes);
    }
    if (ta.measured_kernels) WriteMeasuredKernels(j, *ta.measured_kernels);
    j.FI("origin_ns", origin);
    j.FI("extent_ns", ta.summary.extent_ns);
    j.Key("devices");
    j.BeginArray();
    if (i < view.traces.size())
      for (const analysis::views::DeviceView& d : view.traces[i].devices)
        WriteDevice(j, ta, d, origin);
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("ranks");
  j.BeginArray();
  for (const analysis::views::RankStats& r : view.ranks) {
    j.BeginObject();
    j.FI("trace", static_cast<int64_t>(r.trace_index));
    j.Key("rank");
    j.Int32(r.rank);
    j.Key("device");
    j.Int32(r.device_id);
    j.FI("steps", r.step_count);
    j.FN("step_ms", r.mean_step_ns / 1e6, 4);
    j.FN("compute_ms", r.compute_ns_per_step / 1e6, 4);
    j.FN("comm_ms", r.comm_ns_per_step / 1e6, 4);
    j.FN("idle_ms", r.idle_ns_per_step / 1e6, 4);
    j.FB("straggler", r.straggler);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  return std::move(j.out);
}

namespace {

// WritePage: the document shell: strict CSP, embedded assets, the data
// element (escaped), the page script. `title` is HTML-escaped here.
void WritePage(const std::string& title, const std::string& data_json, std::ostream& out) {
  // The title is the only text placed as markup; it is escaped for HTML.
  std::string safe_title;
  for (char c : title) {
    if (c == '<')
      safe_title += "&lt;";
    else if (c == '>')
      safe_title += "&gt;";
    else if (c == '&')
      safe_title += "&amp;";
    else if (c == '"')
      safe_title += "&quot;";
    else
      safe_title += c;
  }
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // No network: a strict CSP blocks any fetch even if a string slipped through.
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
      << "<title>" << safe_title << "</title>\n"
      << "<style>\n"
      << html_assets::UplotCss() << "\n</style>\n"
      << "<style>\n"
      << html_assets::ReportCss() << "\n</style>\n"
      << "</head>\n<body>\n"
      << "<noscript>This report needs JavaScript to draw; the data is in the "
         "gpuwhy-data element.</noscript>\n"
      << "<div id=\"app\"></div>\n"
      << "<script type=\"application/json\" id=\"gpuwhy-data\">"
      << EscapeJsonForHtml(data_json) << "</script>\n"
      << "<!-- uPlot " << Trim(html_assets::UplotVersion()) << ", embedded under its license:\n"
      << html_assets::UplotLicense() << "-->\n"
      << "<script>\n"
      << html_assets::UplotJs() << "\n</script>\n"
      << "<script>\n"
      << html_assets::ReportJs() << "\n</script>\n"
      << "</body>\n</html>\n";
}

}  // namespace

void RenderHtml(const analysis::Analysis& analysis, const analysis::views::HtmlView& view,
                std::ostream& out, const HtmlOptions& options) {
  std::string title = options.title;
  if (title.empty()) {
    title = "gpuwhy report";
    if (!analysis.traces.empty()) {
      const std::string& path = analysis.traces.front().input.path;
      title =
          "gpuwhy: " +
          path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
      if (analysis.traces.size() > 1)
        title += " +" + std::to_string(analysis.traces.size() - 1) + " more";
    }
  }
  WritePage(title, HtmlDataJson(analysis, view), out);
}

void RenderDiffHtml(const analysis::RunDiff& diff, const std::vector<std::string>& violations,
                    std::ostream& out) {
  std::ostringstream data;
  RenderDiffJson(diff, violations, data);
  WritePage("gpuwhy diff", data.str(), out);
}

}  // namespace gpuwhy::report
