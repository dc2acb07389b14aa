#include "analysis/steps/step_detector.h"
#include "base/ascii.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace gpuwhy::analysis {
namespace {

// Names accepted as step markers (lowercase substrings).
constexpr std::string_view kStepWords[] = {"step", "iteration", "iter", "batch", "train_loop"};

// Kernel-period detection: an anchor kernel must recur at least this often
// with a spacing (in kernels) whose coefficient of variation is below this.
constexpr int kMinPeriods = 3;
constexpr double kMaxSpacingCv = 0.02;

// PartOfAStep: ranges PyTorch's profiler puts inside a step, whose names hold
// a step word: the DataLoader's iterator ("enumerate(DataLoader)#..._Iter.__next__")
// and the optimizer's methods ("Optimizer.step#Adam.step", "optimizer_step").
// They are phases of a step, never its boundaries.
bool PartOfAStep(std::string_view name) {
  return name.starts_with("enumerate(") || name.starts_with("Optimizer.") ||
         name.starts_with("optimizer_") || name.starts_with("Optimizer_");
}

bool LooksLikeStep(std::string_view name) {
  if (PartOfAStep(name)) return false;
  const std::string lower = AsciiLower(name);
  for (std::string_view w : kStepWords) {
    if (lower.find(w) != std::string::npos) return true;
  }
  return false;
}

// Sort and make steps non-overlapping (nested or repeated markers collapse).
std::vector<Step> Normalize(std::vector<Step> steps) {
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
  std::vector<Step> out;
  for (const Step& s : steps) {
    if (s.end_ns <= s.start_ns) continue;
    if (!out.empty() && s.start_ns < out.back().end_ns) {
      // Same step seen twice (CPU and GPU annotation) or nested: keep the first.
      continue;
    }
    out.push_back(s);
  }
  return out;
}

std::vector<Step> ProfilerSteps(const model::Trace& t) {
  std::vector<Step> steps;
  const auto& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!IsValid(r.step[i])) continue;
    // Host-side markers only: GPU projections of the same step would overlap.
    if (r.kind[i] == model::RangeKind::kGpuUserAnnotation) continue;
    steps.push_back({r.step[i], r.start_ns[i], r.end_ns[i]});
  }
  return Normalize(std::move(steps));
}

std::vector<Step> NamedMarkerSteps(const model::Trace& t, std::string* name_out) {
  const auto& r = t.ranges;
  std::unordered_map<StringId, int> counts;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.kind[i] != model::RangeKind::kNvtx && r.kind[i] != model::RangeKind::kUserAnnotation)
      continue;
    if (LooksLikeStep(t.Str(r.name[i]))) ++counts[r.name[i]];
  }
  StringId best = kEmptyString;
  int best_count = 0;
  for (const auto& [id, n] : counts) {
    if (n > best_count || (n == best_count && id < best)) {
      best = id;
      best_count = n;
    }
  }
  if (best_count < 2) return {};
  std::vector<Step> steps;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.name[i] == best &&
        (r.kind[i] == model::RangeKind::kNvtx || r.kind[i] == model::RangeKind::kUserAnnotation)) {
      steps.push_back({static_cast<int32_t>(steps.size()), r.start_ns[i], r.end_ns[i]});
    }
  }
  steps = Normalize(std::move(steps));
  if (steps.size() < 2) return {};
  *name_out = std::string(t.Str(best));
  return steps;
}

// Kernel period: on the device with most kernels, find the kernel name that
// recurs most often at a constant spacing (in kernel count); each recurrence
// starts a step. Why names and not times: launch jitter shifts times, but the
// sequence a training loop issues is identical every iteration.
std::vector<Step> KernelPeriodSteps(const model::Trace& t, std::string* name_out,
                                    int32_t* period_out) {
  const auto& k = t.kernels;
  if (k.size() < static_cast<size_t>(kMinPeriods) * 2) return {};
  std::unordered_map<int32_t, size_t> per_device;
  for (size_t i = 0; i < k.size(); ++i) ++per_device[k.device_id[i]];
  int32_t device = kMissingI32;
  size_t most = 0;
  for (const auto& [d, n] : per_device) {
    if (n > most || (n == most && d < device)) {
      device = d;
      most = n;
    }
  }
  std::vector<uint32_t> rows;  // kernels of that device, in start order (Finalize sorted)
  rows.reserve(most);
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.device_id[i] == device) rows.push_back(static_cast<uint32_t>(i));
  }
  std::unordered_map<StringId, std::vector<uint32_t>> positions;
  for (uint32_t j = 0; j < rows.size(); ++j) positions[k.name[rows[j]]].push_back(j);

  // Candidates: names recurring at a constant spacing. Prefer periods of at
  // least 2 kernels (a one-kernel "period" is a loop of a single kernel), then
  // the most recurrences (the finest true period), then the smallest id.
  StringId best = kEmptyString;
  size_t best_n = 0;
  double best_spacing = 0;
  bool best_multi = false;
  for (const auto& [name, pos] : positions) {
    if (pos.size() < static_cast<size_t>(kMinPeriods)) continue;
    double sum = 0, sum2 = 0;
    for (size_t i = 1; i < pos.size(); ++i) {
      const double d = pos[i] - pos[i - 1];
      sum += d;
      sum2 += d * d;
    }
    const double n = static_cast<double>(pos.size() - 1);
    const double mean = sum / n;
    const double var = std::max(0.0, sum2 / n - mean * mean);
    if (mean < 1.0 || std::sqrt(var) / mean > kMaxSpacingCv) continue;
    const bool multi = mean >= 2.0;
    const bool better =
        best_n == 0 || (multi && !best_multi) ||
        (multi == best_multi && (pos.size() > best_n || (pos.size() == best_n && name < best)));
    if (!better) continue;
    best = name;
    best_n = pos.size();
    best_spacing = mean;
    best_multi = multi;
  }
  // A one-kernel "period" is a loop of a single kernel, not a step.
  if (best_n < static_cast<size_t>(kMinPeriods) || !best_multi) return {};
  const std::vector<uint32_t>& pos = positions[best];
  std::vector<Step> steps;
  for (size_t i = 0; i + 1 < pos.size(); ++i) {
    steps.push_back(
        {static_cast<int32_t>(i), k.start_ns[rows[pos[i]]], k.start_ns[rows[pos[i + 1]]]});
  }
  *name_out = std::string(t.Str(best));
  *period_out = static_cast<int32_t>(std::lround(best_spacing));
  return Normalize(std::move(steps));
}

}  // namespace

const char* ToString(StepSource s) {
  switch (s) {
    case StepSource::kNone:
      return "none";
    case StepSource::kProfilerStep:
      return "profiler_step";
    case StepSource::kMarkerRange:
      return "marker_range";
    case StepSource::kKernelPeriod:
      return "kernel_period";
  }
  return "none";
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return kMissingF64;
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(values.size() - 1, lo + 1);
  const double frac = pos - static_cast<double>(lo);
  // The lo-th and hi-th smallest values, in linear time: a full sort of the
  // 2 M GPU gaps of a 21 M-event trace cost more than the gaps themselves.
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), at, values.end());
  const double v_lo = *at;
  const double v_hi = hi == lo ? v_lo : *std::min_element(at + 1, values.end());
  return v_lo + (v_hi - v_lo) * frac;
}

StepStats ComputeStepStats(const std::vector<Step>& steps) {
  StepStats s;
  s.count = static_cast<int32_t>(steps.size());
  if (steps.empty()) return s;
  std::vector<double> d;
  d.reserve(steps.size());
  double sum = 0;
  for (const Step& st : steps) {
    d.push_back(static_cast<double>(st.end_ns - st.start_ns));
    sum += d.back();
  }
  s.mean_ns = sum / static_cast<double>(d.size());
  s.p50_ns = Percentile(d, 0.5);
  s.p95_ns = Percentile(d, 0.95);
  if (d.size() >= 2) {
    double ss = 0;
    for (double v : d) ss += (v - s.mean_ns) * (v - s.mean_ns);
    s.stddev_ns = std::sqrt(ss / static_cast<double>(d.size() - 1));
    if (s.mean_ns > 0) s.jitter_ratio = s.stddev_ns / s.mean_ns;
    if (s.p50_ns > 0) s.p95_over_p50 = s.p95_ns / s.p50_ns;
  }
  return s;
}

std::vector<Step> MarkerRangeSteps(const model::Trace& trace, std::string* name) {
  std::string unused;
  return NamedMarkerSteps(trace, name != nullptr ? name : &unused);
}

StepResult FindSteps(const model::Trace& trace) {
  StepResult r;
  r.steps = ProfilerSteps(trace);
  if (!r.steps.empty()) {
    r.source = StepSource::kProfilerStep;
    r.marker_name = "ProfilerStep#N";
  } else {
    r.steps = NamedMarkerSteps(trace, &r.marker_name);
    if (!r.steps.empty()) {
      r.source = StepSource::kMarkerRange;
    } else {
      r.steps = KernelPeriodSteps(trace, &r.marker_name, &r.period_kernels);
      if (!r.steps.empty()) r.source = StepSource::kKernelPeriod;
    }
  }
  r.stats = ComputeStepStats(r.steps);
  return r;
}

}  // namespace gpuwhy::analysis
