#include "analysis/summary/summary_math.h"

#include <algorithm>
#include <cmath>

namespace gpuwhy::analysis {

void SortIntervals(std::vector<std::pair<int64_t, int64_t>>& intervals) {
  // A device's intervals come one table after another (kernels, copies,
  // sets), each in start order: a few sorted runs, merged in place (each
  // merge's buffer is the size of the shorter side, a short run here) rather
  // than sorted. Equal pairs are equal values, so the order is the sort's.
  constexpr size_t kMaxRuns = 16;
  std::vector<size_t> run_begin = {0};
  for (size_t i = 1; i < intervals.size() && run_begin.size() <= kMaxRuns; ++i)
    if (intervals[i] < intervals[i - 1]) run_begin.push_back(i);
  if (run_begin.size() == 1) return;
  if (run_begin.size() > kMaxRuns) {
    std::sort(intervals.begin(), intervals.end());
    return;
  }
  for (size_t r = 1; r < run_begin.size(); ++r) {
    const size_t end = r + 1 < run_begin.size() ? run_begin[r + 1] : intervals.size();
    std::inplace_merge(intervals.begin(), intervals.begin() + static_cast<ptrdiff_t>(run_begin[r]),
                       intervals.begin() + static_cast<ptrdiff_t>(end));
  }
}

int64_t UnionLength(const std::vector<std::pair<int64_t, int64_t>>& intervals) {
  if (intervals.empty()) return 0;
  int64_t total = 0;
  int64_t cur_start = intervals[0].first, cur_end = intervals[0].second;
  for (const auto& [s, e] : intervals) {
    if (s > cur_end) {
      total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else if (e > cur_end) {
      cur_end = e;
    }
  }
  return total + (cur_end - cur_start);
}

int64_t InterpolatePercentile(int64_t lo_value, int64_t hi_value, double frac) {
  const double v = static_cast<double>(lo_value) +
                   (static_cast<double>(hi_value) - static_cast<double>(lo_value)) * frac;
  return std::llround(v);
}

int64_t PercentileSorted(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return kMissingI64;
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return InterpolatePercentile(sorted[lo], sorted[hi], pos - static_cast<double>(lo));
}

DurationStats ComputeDurationStats(std::vector<int64_t>& durations_ns) {
  std::sort(durations_ns.begin(), durations_ns.end());
  return DurationStatsOf([&](auto&& visit) {
    for (int64_t v : durations_ns) visit(v);
  });
}

}  // namespace gpuwhy::analysis
