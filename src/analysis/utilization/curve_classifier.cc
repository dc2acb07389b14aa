#include "analysis/utilization/curve_classifier.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuwhy::analysis {
namespace {

std::string Pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", r * 100.0);
  return b;
}

std::string Ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", ns / 1e6);
  return b;
}

double Clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace

const char* ToString(CurveClass c) {
  switch (c) {
    case CurveClass::kInsufficientData:
      return "INSUFFICIENT_DATA";
    case CurveClass::kIdle:
      return "IDLE";
    case CurveClass::kJumps:
      return "JUMPS";
    case CurveClass::kWobble:
      return "WOBBLE";
    case CurveClass::kPinnedHigh:
      return "PINNED_HIGH";
    case CurveClass::kHealthy:
      return "HEALTHY";
  }
  return "INSUFFICIENT_DATA";
}

CurveVerdict ClassifyCurve(const CurveInput& in, const CurveThresholds& th) {
  CurveVerdict v;
  CurveFeatures& f = v.features;
  f.period_ns = in.period_ns;
  f.real_util_ratio = in.real_util_ratio;
  f.step_period_ns = in.step_period_ns;
  f.long_gap_idle_share = in.long_gap_idle_share;
  f.gap_p95_ns = in.gap_p95_ns;

  double sum = 0, sum2 = 0;
  int low = 0, high = 0;
  for (double x : in.util_ratio) {
    if (!IsValid(x)) continue;
    x = Clamp01(x);
    ++f.sample_count;
    sum += x;
    sum2 += x * x;
    if (x < th.low_sample_below) ++low;
    if (x > th.high_sample_above) ++high;
    f.histogram[static_cast<size_t>(std::min(9, static_cast<int>(x * 10.0)))]++;
  }
  if (f.sample_count > 0) {
    const double n = f.sample_count;
    f.mean_ratio = sum / n;
    f.stddev_ratio = std::sqrt(std::max(0.0, sum2 / n - f.mean_ratio * f.mean_ratio));
    f.share_below_10 = low / n;
    f.share_above_90 = high / n;
  }

  // Aliasing: a period near or above the step (or the long gaps) averages the
  // 0/100 square wave into a flat middle value.
  if (IsValid(in.period_ns)) {
    const double p = static_cast<double>(in.period_ns);
    if (IsValid(in.step_period_ns) && in.step_period_ns > 0 &&
        p > th.alias_period_vs_step * static_cast<double>(in.step_period_ns)) {
      v.aliased = true;
      v.aliasing_note = "sample period " + Ms(p) + " > half the step (" +
                        Ms(static_cast<double>(in.step_period_ns)) +
                        "): this series cannot tell jumps from wobble";
    } else if (IsValid(in.gap_p95_ns) && in.gap_p95_ns >= static_cast<double>(th.long_gap_ns) &&
               p > in.gap_p95_ns) {
      v.aliased = true;
      v.aliasing_note = "sample period " + Ms(p) + " > the long idle gaps (p95 " +
                        Ms(in.gap_p95_ns) + "): this series cannot tell jumps from wobble";
    }
  }

  if (f.sample_count < th.min_samples) {
    v.curve_class = CurveClass::kInsufficientData;
    v.confidence = 1.0;
    v.reason =
        std::to_string(f.sample_count) + " samples (< " + std::to_string(th.min_samples) + ")";
    return v;
  }
  const double mean = f.mean_ratio;
  const bool real_known = IsValid(in.real_util_ratio);
  if (mean < th.idle_mean_below && (!real_known || in.real_util_ratio < th.idle_mean_below)) {
    v.curve_class = CurveClass::kIdle;
    v.confidence = 0.9;
    v.reason = "mean " + Pct(mean) + " < " + Pct(th.idle_mean_below);
    return v;
  }
  if (mean >= th.healthy_surface_above && real_known && in.real_util_ratio >= th.real_high_above) {
    v.curve_class = CurveClass::kHealthy;
    v.confidence = Clamp01(0.6 + (in.real_util_ratio - th.real_high_above));
    v.reason = "surface " + Pct(mean) + " and real " + Pct(in.real_util_ratio) + " both high";
    return v;
  }
  if (mean >= th.pinned_surface_above) {
    v.curve_class = CurveClass::kPinnedHigh;
    if (real_known) {
      v.confidence = Clamp01(0.6 + (th.real_high_above - in.real_util_ratio));
      v.reason = "surface " + Pct(mean) + " but real only " + Pct(in.real_util_ratio);
    } else {
      v.confidence = 0.5;
      v.reason = "surface " + Pct(mean) + " and nothing shows the SMs are busy";
    }
    return v;
  }
  const double lo = f.share_below_10, hi = f.share_above_90;
  const bool bimodal = lo >= th.jumps_min_each_side && hi >= th.jumps_min_each_side &&
                       lo + hi >= th.jumps_min_both_sides;
  const bool long_gaps = IsValid(in.long_gap_idle_share) &&
                         in.long_gap_idle_share >= th.jumps_long_gap_share &&
                         1.0 - mean >= th.jumps_min_idle;
  // Why the gap check: at a period near the launch gaps, sub-millisecond
  // gaps also give 0/100 samples; jumps need long idle gaps when we know them.
  const bool gaps_allow =
      !IsValid(in.long_gap_idle_share) || in.long_gap_idle_share >= th.jumps_min_long_gap_share;
  if ((bimodal && gaps_allow) || (long_gaps && !v.aliased)) {
    v.curve_class = CurveClass::kJumps;
    v.confidence = Clamp01(0.5 + (lo + hi - th.jumps_min_both_sides) + (long_gaps ? 0.2 : 0.0));
    v.reason = Pct(lo) + " of samples < 10% and " + Pct(hi) + " > 90%";
    if (long_gaps) v.reason += "; " + Pct(in.long_gap_idle_share) + " of idle in gaps >= 1 ms";
  } else {
    v.curve_class = CurveClass::kWobble;
    const double mid = 1.0 - lo - hi;
    v.confidence = Clamp01(0.4 + 0.5 * mid + (f.stddev_ratio <= th.wobble_max_stddev ? 0.1 : 0.0));
    v.reason = "mean " + Pct(mean) + ", " + Pct(mid) + " of samples in 10-90%, stddev " +
               Pct(f.stddev_ratio);
    if (IsValid(in.long_gap_idle_share)) {
      v.reason += "; " + Pct(in.long_gap_idle_share) + " of idle in gaps >= 1 ms";
    }
  }
  if (v.aliased) {
    v.confidence *= 0.5;
  } else if (!IsValid(in.step_period_ns) && !IsValid(in.gap_p95_ns) && IsValid(in.period_ns) &&
             in.period_ns >= 100 * kNsPerMs && v.curve_class == CurveClass::kWobble) {
    // Counter-only input with a coarse period: the gap scale is unknown.
    v.confidence *= 0.6;
    v.aliasing_note = "sample period " + Ms(static_cast<double>(in.period_ns)) +
                      " with no step or gap information: short idle gaps would look like wobble";
  }
  return v;
}

}  // namespace gpuwhy::analysis
