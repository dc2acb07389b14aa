// Small numeric helpers of the summary: interval union and duration
// statistics. Reusable by other analyses (all int64 ns).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/summary/device_summary.h"

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

// ComputeDurationStats: distribution of `durations_ns`; sorts the vector in
// place (ascending) so callers can reuse the order.
DurationStats ComputeDurationStats(std::vector<int64_t>& durations_ns);

}  // namespace gpuwhy::analysis
