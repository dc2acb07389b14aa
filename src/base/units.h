// Time and unit helpers. All model times are int64 nanoseconds on one clock.
//
// Contract: values that are unknown are represented by the kMissing* sentinels
// below, never by 0; test with IsMissing()/IsValid() rather than comparing.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace gpuwhy {

inline constexpr int64_t kNsPerUs = 1000;
inline constexpr int64_t kNsPerMs = 1000 * 1000;
inline constexpr int64_t kNsPerS = 1000 * 1000 * 1000;

// Sentinels for "missing / unsupported". Chosen outside any valid range.
inline constexpr int64_t kMissingI64 = std::numeric_limits<int64_t>::min();
inline constexpr int32_t kMissingI32 = std::numeric_limits<int32_t>::min();
inline constexpr float kMissingF32 = std::numeric_limits<float>::quiet_NaN();
inline constexpr double kMissingF64 = std::numeric_limits<double>::quiet_NaN();

inline constexpr bool IsValid(int64_t v) { return v != kMissingI64; }
inline constexpr bool IsValid(int32_t v) { return v != kMissingI32; }
inline bool IsValid(float v) { return !std::isnan(v); }
inline bool IsValid(double v) { return !std::isnan(v); }

// kMaxAbsTimeNs: the largest |time| a model holds, 2^62 ns (146 years either
// side of the clock's zero: 1824-2116 on the Unix epoch). Importers drop, or
// mark missing, any time beyond it (ImportStat::time_out_of_range). Why: the
// difference of any two model times then fits in int64; a corrupt file's
// times past it made spans, gaps and extents wrap.
inline constexpr int64_t kMaxAbsTimeNs = int64_t{1} << 62;

// PlausibleTimeNs: t is within ±kMaxAbsTimeNs (a missing time is not).
inline constexpr bool PlausibleTimeNs(int64_t t) {
  return t >= -kMaxAbsTimeNs && t <= kMaxAbsTimeNs;
}

// AddSat: a + b, saturated at INT64_MAX and at INT64_MIN + 1 (INT64_MIN is
// kMissingI64). Why: a sum of durations, each up to 2^63 - 2 ns between two
// model times, passes int64 on a damaged trace.
inline constexpr int64_t AddSat(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min() + 1;
  return r == kMissingI64 ? r + 1 : r;
}

// MulSat: a * b, saturated as AddSat.
inline constexpr int64_t MulSat(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() + 1
                              : std::numeric_limits<int64_t>::max();
  return r == kMissingI64 ? r + 1 : r;
}

// CeilDiv: ⌈a / b⌉ for a >= 0 and b > 0, without the a + b - 1 that passes
// int64 when a spans most of it.
inline constexpr int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// SatFromDouble: v rounded toward zero into int64, saturated as AddSat; NaN
// gives kMissingI64. Why: casting a double past int64 is undefined.
inline int64_t SatFromDouble(double v) {
  if (std::isnan(v)) return kMissingI64;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775807.0) return std::numeric_limits<int64_t>::min() + 1;
  return static_cast<int64_t>(v);
}

// NsToUs/NsToMs/NsToS: for presentation only; analysis stays in ns.
inline constexpr double NsToUs(int64_t ns) { return static_cast<double>(ns) / 1e3; }
inline constexpr double NsToMs(int64_t ns) { return static_cast<double>(ns) / 1e6; }
inline constexpr double NsToS(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace gpuwhy
