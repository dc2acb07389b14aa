#include "report/terminal/diff_renderer.h"

#include <fmt/format.h>

#include <ostream>

#include "analysis/detectors/timeline.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

namespace dx = analysis::detectors;

std::string Value(const analysis::MetricDelta& m, double v) {
  if (!IsValid(v)) return std::string(kNa);
  if (m.unit == "ns") return FormatDurationF(v);
  if (m.unit == "ratio") return FormatPct(v);
  if (m.unit == "bytes") return FormatBytes(static_cast<int64_t>(v));
  return fmt::format("{:.1f}", v);
}

std::string Change(const analysis::MetricDelta& m) {
  if (m.unit == "ratio" && IsValid(m.change_pp)) return fmt::format("{:+.1f} pp", m.change_pp);
  if (IsValid(m.change_ratio)) return fmt::format("{:+.1f}%", m.change_ratio * 100.0);
  return std::string(kNa);
}

std::string Lost(int64_t ns) { return IsValid(ns) ? FormatDuration(ns) : std::string(kNa); }

}  // namespace

void RenderDiff(const analysis::RunDiff& d, const std::vector<std::string>& violations,
                std::ostream& out) {
  out << "DIFF " << d.headline << "\n";
  out << "     before: " << d.before.label << "\n     after:  " << d.after.label << "\n";
  if (!d.before.curve_class.empty() || !d.after.curve_class.empty())
    out << "     curve " << (d.before.curve_class.empty() ? "n/a" : d.before.curve_class) << " → "
        << (d.after.curve_class.empty() ? "n/a" : d.after.curve_class) << " · bottleneck "
        << (d.before.bottleneck.empty() ? "n/a" : d.before.bottleneck) << " → "
        << (d.after.bottleneck.empty() ? "n/a" : d.after.bottleneck) << "\n";
  out << "\n" << fmt::format("{:<30} {:>12} {:>12} {:>10}\n", "", "before", "after", "change");
  for (const analysis::MetricDelta& m : d.metrics) {
    if (!IsValid(m.before) && !IsValid(m.after)) continue;
    out << fmt::format("{:<30} {:>12} {:>12} {:>10}\n", m.label, Value(m, m.before),
                       Value(m, m.after), Change(m));
  }
  if (d.noise_known)
    out << fmt::format("  run-to-run noise on the mean step: ±{} (2 standard errors); the change is {}\n",
                       FormatDurationF(d.step_noise_ns),
                       d.step_change_beyond_noise ? "beyond it" : "within it");
  if (!d.idle_before_ns.empty()) {
    out << "\nGPU idle by cause, per step\n";
    for (size_t c = 0; c < d.idle_before_ns.size() && c < dx::kIdleCauseCount; ++c) {
      double b = d.idle_before_ns[c], a = d.idle_after_ns[c];
      if ((!IsValid(b) || b == 0) && (!IsValid(a) || a == 0)) continue;
      out << fmt::format("  {:<28} {:>12} {:>12}\n", dx::ToString(static_cast<dx::IdleCause>(c)),
                         IsValid(b) ? FormatDurationF(b) : std::string(kNa),
                         IsValid(a) ? FormatDurationF(a) : std::string(kNa));
    }
  }
  if (!d.findings.empty()) {
    out << "\nFindings (loss per step, before → after)\n";
    for (const analysis::FindingDelta& f : d.findings) {
      if (f.status == "same") continue;
      std::string line = fmt::format("  {:<9} {:<40} {:>10} → {:<10}", f.status, f.id,
                                     Lost(f.before_lost_ns), Lost(f.after_lost_ns));
      if (f.status == "resolved" && IsValid(f.predicted_step_ns))
        line += fmt::format("  predicted step {} ({:+.1f}% against the after run)",
                            FormatDuration(f.predicted_step_ns), f.prediction_error_ratio * 100.0);
      out << line << "\n";
    }
  }
  bool any_kernel = false;
  for (size_t i = 0; i < d.kernels.size() && i < 10; ++i) {
    const analysis::KernelDelta& k = d.kernels[i];
    if (!any_kernel) {
      out << "\nKernels by change in time per step (top kernels of each run)\n";
      any_kernel = true;
    }
    out << fmt::format("  {:<9} {:>10} → {:<10} x{:<7} → x{:<7} {}\n", k.status,
                       IsValid(k.before_ns) ? FormatDurationF(k.before_ns) : "-",
                       IsValid(k.after_ns) ? FormatDurationF(k.after_ns) : "-",
                       IsValid(k.before_count) ? fmt::format("{:.1f}", k.before_count) : "-",
                       IsValid(k.after_count) ? fmt::format("{:.1f}", k.after_count) : "-",
                       FitWidth(k.name, 70));
  }
  if (!violations.empty()) {
    out << "\nFAILED gates\n";
    for (const std::string& v : violations) out << "  " << v << "\n";
  }
}

}  // namespace gpuwhy::report
