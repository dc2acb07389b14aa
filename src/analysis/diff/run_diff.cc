#include "analysis/diff/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace gpuwhy::analysis {

namespace {

std::string DiffMs(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", ns / 1e6);
  return b;
}

std::string DiffPct(double r, bool sign) {
  char b[32];
  std::snprintf(b, sizeof b, sign ? "%+.1f%%" : "%.1f%%", r * 100.0);
  return b;
}

MetricDelta Delta(std::string name, std::string label, std::string unit, double b, double a) {
  MetricDelta m{std::move(name), std::move(label), std::move(unit), b, a};
  if (IsValid(b) && IsValid(a)) {
    if (b != 0) m.change_ratio = (a - b) / b;
    if (m.unit == "ratio") m.change_pp = (a - b) * 100.0;
  }
  return m;
}

const MetricDelta* FindMetric(const RunDiff& d, std::string_view name) {
  for (const MetricDelta& m : d.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

// Phrase: a finding id as a person would name its cause.
std::string Phrase(const std::string& id, const std::string& title) {
  if (id == "data_loading.dataloader") return "DataLoader wait";
  if (id == "launch_bound.fragmented") return "launch-bound";
  if (id.rfind("sync.", 0) == 0) return "host syncs";
  if (id == "data_loading.h2d_copies") return "host-to-device copies";
  if (id == "host.busy_elsewhere") return "host busy with other work";
  if (id == "kernel_efficiency.no_tensor_cores") return "fp32 without tensor cores";
  if (id == "kernel_efficiency.memory_bound") return "memory-bound";
  if (id == "communication.exposed") return "exposed communication";
  return title.empty() ? id : title;
}

}  // namespace

RunDiff DiffRuns(const RunProfile& b, const RunProfile& a) {
  RunDiff d;
  d.before = b;
  d.after = a;
  d.metrics.push_back(Delta("step_time", b.per_step_basis ? "mean step" : "span", "ns",
                            b.step_mean_ns, a.step_mean_ns));
  d.metrics.push_back(Delta("p50_step_time", "p50 step", "ns", b.step_p50_ns, a.step_p50_ns));
  d.metrics.push_back(Delta("p95_step_time", "p95 step", "ns", b.step_p95_ns, a.step_p95_ns));
  if (IsValid(b.slowest_rank_step_mean_ns) || IsValid(a.slowest_rank_step_mean_ns))
    d.metrics.push_back(Delta("slowest_rank_step_time", "slowest rank's mean ProfilerStep", "ns",
                              b.slowest_rank_step_mean_ns, a.slowest_rank_step_mean_ns));
  d.metrics.push_back(Delta("busy_ratio", "GPU busy", "ratio", b.busy_ratio, a.busy_ratio));
  d.metrics.push_back(Delta("idle_ratio", "GPU idle", "ratio", b.idle_ratio, a.idle_ratio));
  d.metrics.push_back(Delta("surface", "surface GPU-Util", "ratio", b.surface_ratio, a.surface_ratio));
  d.metrics.push_back(Delta("real", "real (SM fill / counters)", "ratio", b.real_ratio, a.real_ratio));
  d.metrics.push_back(Delta("mfu", "MFU", "ratio", b.mfu_ratio, a.mfu_ratio));
  d.metrics.push_back(Delta("busy_mfu", "busy-time MFU", "ratio", b.busy_mfu_ratio, a.busy_mfu_ratio));
  d.metrics.push_back(Delta("copies_per_step", "copies per step", "count", b.copies_per_step,
                            a.copies_per_step));
  d.metrics.push_back(Delta("copy_bytes_per_step", "copy bytes per step", "bytes",
                            b.copy_bytes_per_step, a.copy_bytes_per_step));
  d.metrics.push_back(Delta("syncs_per_step", "host-blocking syncs per step", "count",
                            b.syncs_per_step, a.syncs_per_step));

  // Noise: twice the standard error of the difference of the means.
  if (IsValid(b.step_stddev_ns) && IsValid(a.step_stddev_ns) && IsValid(b.step_count) &&
      IsValid(a.step_count) && b.step_count >= 2 && a.step_count >= 2) {
    // Sample variance from the population one the summary keeps.
    auto var = [](double sd, int32_t n) { return sd * sd * n / (n - 1.0); };
    d.step_noise_ns = 2.0 * std::sqrt(var(b.step_stddev_ns, b.step_count) / b.step_count +
                                      var(a.step_stddev_ns, a.step_count) / a.step_count);
    d.noise_known = true;
    if (IsValid(b.step_mean_ns) && IsValid(a.step_mean_ns))
      d.step_change_beyond_noise = std::abs(a.step_mean_ns - b.step_mean_ns) > d.step_noise_ns;
  }
  if (b.has_idle_causes || a.has_idle_causes) {
    d.idle_before_ns.assign(b.idle_ns_per_step.begin(), b.idle_ns_per_step.end());
    d.idle_after_ns.assign(a.idle_ns_per_step.begin(), a.idle_ns_per_step.end());
  }

  // Findings by id: resolved, new, changed (loss moved by >= 10% and 0.1 ms).
  std::map<std::string, const RunProfile::FindingRow*> fb, fa;
  for (const auto& f : b.findings) fb.emplace(f.id, &f);
  for (const auto& f : a.findings) fa.emplace(f.id, &f);
  auto lost = [](const RunProfile::FindingRow* f) {
    return f != nullptr && IsValid(f->lost_per_step_ns) ? f->lost_per_step_ns : int64_t{0};
  };
  for (const auto& f : b.findings) {
    auto it = fa.find(f.id);
    FindingDelta x;
    x.id = f.id;
    x.title = f.title;
    x.before_lost_ns = f.lost_per_step_ns;
    x.predicted_step_ns = f.predicted_step_ns;
    if (it == fa.end() || (lost(&f) > 0 && lost(it->second) == 0)) {
      x.status = "resolved";
      if (it != fa.end()) x.after_lost_ns = it->second->lost_per_step_ns;
      if (IsValid(f.predicted_step_ns) && IsValid(a.step_mean_ns) && a.step_mean_ns > 0)
        x.prediction_error_ratio =
            (static_cast<double>(f.predicted_step_ns) - a.step_mean_ns) / a.step_mean_ns;
    } else {
      x.after_lost_ns = it->second->lost_per_step_ns;
      const double lb = static_cast<double>(lost(&f)), la = static_cast<double>(lost(it->second));
      x.status = std::abs(la - lb) >= std::max(0.1 * lb, 1e5) ? "changed" : "same";
    }
    d.findings.push_back(std::move(x));
  }
  for (const auto& f : a.findings) {
    if (fb.count(f.id)) continue;
    FindingDelta x{f.id, f.title, "new"};
    x.after_lost_ns = f.lost_per_step_ns;
    d.findings.push_back(std::move(x));
  }
  auto order = [](const std::string& s) {
    return s == "resolved" ? 0 : s == "new" ? 1 : s == "changed" ? 2 : 3;
  };
  std::stable_sort(d.findings.begin(), d.findings.end(),
                   [&](const FindingDelta& x, const FindingDelta& y) {
                     return order(x.status) < order(y.status);
                   });

  // Kernels by name, per step.
  const double nb = IsValid(b.step_count) && b.step_count > 0 ? b.step_count : 1;
  const double na = IsValid(a.step_count) && a.step_count > 0 ? a.step_count : 1;
  std::map<std::string, KernelDelta> kd;
  for (const auto& k : b.top_kernels) {
    KernelDelta& x = kd[k.name];
    x.name = k.name;
    x.before_count = static_cast<double>(k.count) / nb;
    x.before_ns = static_cast<double>(k.total_ns) / nb;
  }
  for (const auto& k : a.top_kernels) {
    KernelDelta& x = kd[k.name];
    x.name = k.name;
    x.after_count = static_cast<double>(k.count) / na;
    x.after_ns = static_cast<double>(k.total_ns) / na;
  }
  for (auto& [name, x] : kd) {
    x.status = !IsValid(x.before_ns) ? "new" : !IsValid(x.after_ns) ? "vanished" : "both";
    d.kernels.push_back(x);
  }
  auto change = [](const KernelDelta& x) {
    return std::abs((IsValid(x.after_ns) ? x.after_ns : 0) - (IsValid(x.before_ns) ? x.before_ns : 0));
  };
  std::stable_sort(d.kernels.begin(), d.kernels.end(),
                   [&](const KernelDelta& x, const KernelDelta& y) { return change(x) > change(y); });

  // Headline: step change, what was resolved, what limits it now.
  std::string h;
  const MetricDelta& st = d.metrics.front();
  if (IsValid(st.change_ratio)) {
    h = std::string(b.per_step_basis ? "step time " : "span ") + DiffPct(st.change_ratio, true) + " (" +
        DiffMs(st.before) + " → " + DiffMs(st.after) +
        (d.noise_known ? (d.step_change_beyond_noise ? ", beyond run-to-run noise)"
                                                     : ", within run-to-run noise)")
                       : ", noise unknown)");
  } else {
    h = "step time not comparable (no steps or span on one side)";
  }
  std::vector<std::string> resolved;
  for (const FindingDelta& f : d.findings)
    if (f.status == "resolved" && IsValid(f.before_lost_ns) && IsValid(b.step_mean_ns) &&
        static_cast<double>(f.before_lost_ns) >= 0.05 * b.step_mean_ns)
      resolved.push_back(Phrase(f.id, f.title) + " resolved");
  for (const std::string& r : resolved) h += "; " + r;
  // What limits the AFTER run: its top finding when it costs >= 5% (the
  // diagnosis's own threshold for a cause that matters).
  if (!a.findings.empty() && IsValid(a.findings.front().lost_step_ratio) &&
      a.findings.front().lost_step_ratio >= 0.05)
    h += "; now " + Phrase(a.findings.front().id, a.findings.front().title) + " (" +
         DiffPct(a.findings.front().lost_step_ratio, false) + " of the step)";
  else if (!a.findings.empty() || !b.findings.empty())
    h += "; now no cause costs more than 5% of the step";
  d.headline = h + ".";
  return d;
}

Result<Gate> ParseGate(std::string_view text) {
  Gate g;
  g.text = std::string(text);
  if (text.rfind("finding:", 0) == 0) {
    g.finding = std::string(text.substr(8));
    if (g.finding.empty()) return InvalidInput("--fail-if '" + g.text + "': no finding id after 'finding:'");
    return g;
  }
  size_t op = text.find_first_of("<>");
  if (op == std::string_view::npos || op == 0)
    return InvalidInput("--fail-if '" + g.text + "': expected METRIC>VALUE or METRIC<VALUE");
  g.metric = std::string(text.substr(0, op));
  g.op = text[op];
  static const char* kMetrics[] = {"step_time",  "p50_step_time", "p95_step_time",
                                   "slowest_rank_step_time", "idle_ratio", "busy_ratio",
                                   "surface",    "real",          "mfu",
                                   "busy_mfu",   "copies_per_step", "syncs_per_step"};
  if (std::none_of(std::begin(kMetrics), std::end(kMetrics),
                   [&](const char* m) { return g.metric == m; }))
    return InvalidInput("--fail-if '" + g.text + "': unknown metric '" + g.metric + "'");
  std::string rest(text.substr(op + 1));
  char* end = nullptr;
  g.value = std::strtod(rest.c_str(), &end);
  if (end == rest.c_str()) return InvalidInput("--fail-if '" + g.text + "': no number after '" + g.op + "'");
  g.unit = std::string(end);
  if (g.unit != "%" && g.unit != "pp" && g.unit != "ms")
    return InvalidInput("--fail-if '" + g.text + "': unit must be %, pp or ms");
  const bool time = g.metric.find("step_time") != std::string::npos;
  const bool ratio = g.metric == "idle_ratio" || g.metric == "busy_ratio" || g.metric == "surface" ||
                     g.metric == "real" || g.metric == "mfu" || g.metric == "busy_mfu";
  if (g.unit == "pp" && !ratio)
    return InvalidInput("--fail-if '" + g.text + "': pp applies to ratio metrics only");
  if (g.unit == "ms" && !time)
    return InvalidInput("--fail-if '" + g.text + "': ms applies to step times only");
  return g;
}

std::vector<std::string> EvaluateGates(const std::vector<Gate>& gates, const RunDiff& d) {
  std::vector<std::string> out;
  for (const Gate& g : gates) {
    if (!g.finding.empty()) {
      for (const auto& f : d.after.findings)
        if (f.id == g.finding && (!IsValid(f.lost_per_step_ns) || f.lost_per_step_ns > 0))
          out.push_back(g.text + ": the AFTER run has " + f.id +
                        (IsValid(f.lost_step_ratio) ? " (" + DiffPct(f.lost_step_ratio, false) + " of the step)"
                                                    : std::string()));
      continue;
    }
    const MetricDelta* m = FindMetric(d, g.metric);
    double change = kMissingF64;
    if (m != nullptr && IsValid(m->before) && IsValid(m->after)) {
      if (g.unit == "%") change = IsValid(m->change_ratio) ? m->change_ratio * 100.0 : kMissingF64;
      if (g.unit == "pp") change = m->change_pp;
      if (g.unit == "ms") change = (m->after - m->before) / 1e6;
    }
    if (!IsValid(change)) {
      out.push_back(g.text + ": cannot be checked (" + g.metric + " is missing on one side)");
      continue;
    }
    const bool violated = g.op == '>' ? change > g.value : change < g.value;
    if (!violated) continue;
    char buf[160];
    if (m->unit == "ns")
      std::snprintf(buf, sizeof buf, "%s: %.1f ms -> %.1f ms (%+.2f%s)", g.text.c_str(),
                    m->before / 1e6, m->after / 1e6, change, g.unit.c_str());
    else
      std::snprintf(buf, sizeof buf, "%s: %.4g -> %.4g (%+.2f%s)", g.text.c_str(), m->before,
                    m->after, change, g.unit.c_str());
    out.push_back(buf);
  }
  return out;
}

}  // namespace gpuwhy::analysis
