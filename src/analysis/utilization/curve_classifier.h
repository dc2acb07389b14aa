// Curve-shape classifier for a GPU-utilization series.
//
// Contract: ClassifyCurve() takes plain samples (no trace), so it serves
// trace analysis, counter-only inputs (nvidia-smi / DCGM logs) and the live
// `gpuwhy watch` loop alike. Pure and cheap (one pass plus a sort-free
// histogram). Thresholds live in one table (kCurveThresholds; documented in
// docs/utilization.md). Optional inputs are NaN / kMissingI64 when unknown.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/units.h"

namespace gpuwhy::analysis {

// CurveClass: the shape of the utilization curve.
enum class CurveClass : uint8_t {
  kInsufficientData = 0,
  kIdle = 1,        // (almost) nothing ran
  kJumps = 2,       // long idle gaps then bursts: samples near 0 and near 100
  kWobble = 3,      // a middle band with small swings and fine gaps
  kPinnedHigh = 4,  // surface high but real utilization low or unknown
  kHealthy = 5,     // surface and real both high
};

// ToString: "INSUFFICIENT_DATA", "IDLE", "JUMPS", "WOBBLE", "PINNED_HIGH", "HEALTHY".
const char* ToString(CurveClass c);

// CurveThresholds: every number the rules use.
struct CurveThresholds {
  int32_t min_samples = 5;
  // The seed's classes: IDLE is mostly idle (mean under about 25%, whatever
  // the jitter); WOBBLE a middle band (mean about 25-75%) with fine gaps;
  // JUMPS long gaps between about 0 and about 100; busy from 75% on.
  double idle_mean_below = 0.25;
  double low_sample_below = 0.10;          // a sample < 10% counts as "near 0"
  double high_sample_above = 0.90;         // a sample > 90% counts as "near 100"
  double jumps_min_each_side = 0.10;       // share of samples near 0 and near 100, each
  double jumps_min_both_sides = 0.50;      // share near 0 plus near 100
  double jumps_long_gap_share = 0.50;      // share of idle time in gaps >= long_gap_ns
  double jumps_min_idle = 0.15;            // with that, at least this much idle
  double jumps_min_long_gap_share = 0.20;  // bimodal samples need this much idle in long gaps
  int64_t long_gap_ns = 1'000'000;         // 1 ms
  double wobble_max_stddev = 0.20;
  double pinned_surface_above = 0.90;
  double healthy_surface_above = 0.75;
  double real_high_above = 0.60;
  double alias_period_vs_step = 0.5;  // period > 0.5 x step period: steps blur together
};

// kCurveThresholds: the defaults (docs/utilization.md).
inline constexpr CurveThresholds kCurveThresholds{};

// CurveInput: one series and what else is known about the run.
struct CurveInput {
  std::vector<double> util_ratio;            // samples 0..1; NaN = missing sample
  int64_t period_ns = kMissingI64;           // effective sample period
  double real_util_ratio = kMissingF64;      // SM active / SM fill, when known
  int64_t step_period_ns = kMissingI64;      // typical step duration, when known
  double long_gap_idle_share = kMissingF64;  // share of idle time in gaps >= 1 ms
  double gap_p95_ns = kMissingF64;           // 95th percentile idle-gap length
};

// CurveFeatures: the evidence behind a verdict.
struct CurveFeatures {
  int32_t sample_count = 0;
  int64_t period_ns = kMissingI64;
  std::array<int32_t, 10> histogram{};  // bins of 10 percentage points
  double share_below_10 = kMissingF64;
  double share_above_90 = kMissingF64;
  double mean_ratio = kMissingF64;
  double stddev_ratio = kMissingF64;
  double real_util_ratio = kMissingF64;
  int64_t step_period_ns = kMissingI64;
  double long_gap_idle_share = kMissingF64;
  double gap_p95_ns = kMissingF64;
};

// CurveVerdict: class, confidence (0..1), the features and plain-text reasons.
struct CurveVerdict {
  CurveClass curve_class = CurveClass::kInsufficientData;
  double confidence = 0.0;
  CurveFeatures features;
  bool aliased = false;       // the period is too long to resolve the step / gap scale
  std::string reason;         // one line: why this class
  std::string aliasing_note;  // empty unless `aliased` or undecidable
};

// ClassifyCurve: see the file comment.
CurveVerdict ClassifyCurve(const CurveInput& input,
                           const CurveThresholds& thresholds = kCurveThresholds);

}  // namespace gpuwhy::analysis
