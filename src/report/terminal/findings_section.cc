// Terminal section "findings": the diagnosis (top line, scenario, ranked
// findings with evidence, fixes, caveats). Drawn once, in the first trace's
// header, because the diagnosis covers all inputs. Formatting only.
#include <algorithm>
#include <string>

#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

namespace dx = analysis::detectors;

// kMaxFindings: findings shown with evidence; the JSON report carries all.
constexpr size_t kMaxFindings = 4;

// Wrap: `text` as lines of at most `width` columns, each prefixed by `indent`
// (the first by `first`).
void Wrap(std::ostream& out, std::string_view first, std::string_view indent, std::string_view text,
          size_t width) {
  std::string line(first);
  size_t line_w = DisplayWidth(line);
  size_t pos = 0;
  bool empty = true;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    std::string_view word = text.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos);
    pos = sp == std::string_view::npos ? text.size() : sp + 1;
    size_t ww = DisplayWidth(word);
    if (!empty && line_w + 1 + ww > width) {
      out << line << "\n";
      line = std::string(indent);
      line_w = DisplayWidth(line);
      empty = true;
    }
    if (!empty) {
      line += ' ';
      ++line_w;
    }
    line += FitWidth(word, width > line_w ? width - line_w : 1);
    line_w += std::min(ww, width > line_w ? width - line_w : size_t{1});
    empty = false;
  }
  out << line << "\n";
}

std::string FormatMetric(const dx::Metric& m) {
  if (!IsValid(m.value)) return "n/a";
  if (m.unit == "ratio") return FormatPct(m.value);
  if (m.unit == "ns") return FormatDurationF(m.value);
  if (m.unit == "bytes") return FormatBytes(static_cast<int64_t>(m.value));
  if (m.unit == "GB/s") return FormatGbps(m.value);
  if (m.unit == "count") return FormatCount(static_cast<int64_t>(m.value + 0.5));
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f %s", m.value, m.unit == "per_s" ? "/s" : m.unit.c_str());
  return buf;
}

std::string LostText(const dx::Finding& f) {
  if (!IsValid(f.lost_per_step_ns)) return "time lost: n/a";
  std::string per = f.per_step_basis ? "/step" : " in span";
  // Upper bounds read "up to"; estimates of the saving read "about".
  std::string text = std::string(f.lost_is_upper_bound ? "up to " : "about ") +
                     FormatDuration(f.lost_per_step_ns) + per + " (" +
                     FormatPct(f.lost_step_ratio) + ")";
  if (IsValid(f.predicted_step_ns))
    text += " → about " + FormatDuration(f.predicted_step_ns) + (f.per_step_basis ? "/step" : " span");
  return text;
}

}  // namespace

void RenderFindings(const TerminalContext& ctx, std::ostream& out) {
  if (!ctx.analysis.diagnosis || ctx.analysis.traces.empty() ||
      &ctx.trace != &ctx.analysis.traces.front())
    return;
  const dx::Diagnosis& d = *ctx.analysis.diagnosis;
  const size_t w = static_cast<size_t>(std::max(40, ctx.options.width));
  out << "\n";
  Wrap(out, "WHY  ", "     ", d.top_line, w);
  std::string scen = std::string(dx::ToString(d.scenario)) +
                     (d.scenario_inferred ? " (inferred: " + d.scenario_reason + ")" : " (given)");
  Wrap(out, "     ", "     ",
       "curve " + d.curve_shape + " · bottleneck " + d.bottleneck + " · scenario " + scen, w);
  if (!d.real_throughput.empty()) Wrap(out, "REAL ", "     ", d.real_throughput, w);
  if (d.rank_count > 1) Wrap(out, "     ", "     ", std::to_string(d.rank_count) + " ranks analyzed together", w);
  if (d.findings.empty()) {
    out << "     no findings\n";
    return;
  }
  out << "\nFindings (ranked by time the fix could save; upper bounds unless marked \"about\", they overlap)\n";
  for (size_t i = 0; i < d.findings.size() && i < kMaxFindings; ++i) {
    const dx::Finding& f = d.findings[i];
    std::string head = std::to_string(i + 1) + ". [" + std::string(dx::ToString(f.severity)) + "] " +
                       f.title + " — " + LostText(f);
    Wrap(out, " ", "    ", head, w);
    Wrap(out, "    ", "    ", f.summary, w);
    std::string ev;
    for (size_t k = 0; k < f.evidence.size() && k < 4; ++k) {
      if (!ev.empty()) ev += " · ";
      ev += f.evidence[k].label + " " + FormatMetric(f.evidence[k]);
    }
    if (!ev.empty()) Wrap(out, "    evidence: ", "      ", ev, w);
    if (!f.examples.empty()) {
      const dx::Example& ex = f.examples.front();
      std::string e = FitWidth(ex.what, 48);
      if (IsValid(ex.step)) e += " · step " + std::to_string(ex.step);
      if (IsValid(ex.rank)) e += " · rank " + std::to_string(ex.rank);
      if (IsValid(ex.dur_ns)) e += " · " + FormatDuration(ex.dur_ns);
      if (!ex.detail.empty()) e += " · " + ex.detail;
      Wrap(out, "    worst: ", "      ", e, w);
    }
    for (const std::string& n : f.notes) Wrap(out, "    note: ", "      ", n, w);
  }
  if (d.findings.size() > kMaxFindings)
    out << "    (+" << d.findings.size() - kMaxFindings << " more in --json)\n";
  out << "\nWhat to fix first (" << dx::ToString(d.scenario) << ")\n";
  for (size_t i = 0; i < d.fixes.size() && i < 3; ++i)
    Wrap(out, " " + std::to_string(i + 1) + ". ", "    ", d.fixes[i].text, w);
  std::vector<std::string> cav = d.caveats;
  for (size_t i = 0; i < d.fixes.size() && i < 3; ++i)
    for (const dx::Finding& f : d.findings)
      if (f.id == d.fixes[i].finding_id)
        for (const std::string& c : f.caveats)
          if (std::find(cav.begin(), cav.end(), c) == cav.end()) cav.push_back(c);
  out << "\nCaveats\n";
  for (const std::string& c : cav) Wrap(out, " - ", "   ", c, w);
}

}  // namespace gpuwhy::report
