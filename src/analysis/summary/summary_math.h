// Small numeric helpers of the summary: interval union and duration
// statistics. Reusable by other analyses (all int64 ns).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/summary/device_summary.h"
#include "base/select.h"

namespace gpuwhy::analysis {

// SortIntervals: sort [start, end) pairs by start, then end (no-op when sorted).
void SortIntervals(std::vector<std::pair<int64_t, int64_t>>& intervals);

// UnionLength: total length of the union of `intervals`, which must be sorted
// by start (SortIntervals). One sweep; empty input gives 0.
int64_t UnionLength(const std::vector<std::pair<int64_t, int64_t>>& intervals);

// PercentileSorted: the q-quantile (0..1) of ascending `sorted` with linear
// interpolation between closest ranks (numpy's default), rounded to the
// nearest ns; kMissingI64 when empty.
int64_t PercentileSorted(const std::vector<int64_t>& sorted, double q);

// InterpolatePercentile: PercentileSorted's value from the two closest
// ranks' values (lo_value at rank floor(q (n - 1)), hi_value at the next, or
// the same one at the end) and q (n - 1) - floor(q (n - 1)).
int64_t InterpolatePercentile(int64_t lo_value, int64_t hi_value, double frac);

// DurationStatsOf: the distribution of the values that `for_each(f)` passes
// to f, without a copy of them (millions of kernels at 100x): a histogram and
// SelectNths() find the order statistics. `for_each` is called two or three
// times and must pass the same values each time in the same order (the
// standard deviation sums in that order).
template <class ForEach>
DurationStats DurationStatsOf(ForEach&& for_each);

// ComputeDurationStats: distribution of `durations_ns`; sorts the vector in
// place (ascending) so callers can reuse the order.
DurationStats ComputeDurationStats(std::vector<int64_t>& durations_ns);

template <class ForEach>
DurationStats DurationStatsOf(ForEach&& for_each) {
  DurationStats s;
  Int64Histogram histogram;
  int64_t total = 0;
  for_each([&](int64_t v) {
    histogram.Add(v);
    total = AddSat(total, v);
  });
  const uint64_t n = histogram.count();
  if (n == 0) return s;
  s.count = static_cast<int64_t>(n);
  s.total_ns = total;
  constexpr double kQuantiles[] = {0.50, 0.90, 0.95, 0.99};
  std::vector<uint64_t> ranks = {0, n - 1};
  std::vector<double> fracs;
  for (double q : kQuantiles) {
    const double pos = q * static_cast<double>(n - 1);
    const auto lo = static_cast<uint64_t>(std::floor(pos));
    ranks.push_back(lo);
    ranks.push_back(std::min(lo + 1, n - 1));
    fracs.push_back(pos - static_cast<double>(lo));
  }
  const std::vector<int64_t> v = SelectNths(histogram, ranks, for_each);
  s.min_ns = v[0];
  s.max_ns = v[1];
  int64_t* const quantile[] = {&s.p50_ns, &s.p90_ns, &s.p95_ns, &s.p99_ns};
  for (size_t i = 0; i < fracs.size(); ++i)
    *quantile[i] = InterpolatePercentile(v[2 + 2 * i], v[3 + 2 * i], fracs[i]);
  s.mean_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  // Two passes: the mean first keeps the variance stable for large ns values.
  double sq = 0;
  for_each([&](int64_t x) {
    const double d = static_cast<double>(x) - s.mean_ns;
    sq += d * d;
  });
  s.stddev_ns = std::sqrt(sq / static_cast<double>(s.count));
  return s;
}

}  // namespace gpuwhy::analysis
