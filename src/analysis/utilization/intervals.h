// Interval arithmetic on [start_ns, end_ns) spans, shared by utilization and
// the anchor reproductions.
//
// Contract: MergeIntervals() returns sorted, non-overlapping, non-empty spans;
// the other functions take merged spans unless they say otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuwhy::analysis {

// Interval: [start_ns, end_ns).
struct Interval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// MergeIntervals: union of arbitrary spans (empty ones dropped), sorted.
std::vector<Interval> MergeIntervals(std::vector<Interval> spans);

// TotalLength: sum of lengths of merged spans.
int64_t TotalLength(const std::vector<Interval>& merged);

// IntersectLength: length of merged ∩ [lo, hi).
int64_t IntersectLength(const std::vector<Interval>& merged, int64_t lo, int64_t hi);

// Intersect: merged a ∩ merged b.
std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Subtract: merged a minus merged b.
std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Gaps: holes between consecutive merged spans (inside [first start, last end]).
std::vector<Interval> Gaps(const std::vector<Interval>& merged);

// BinnedCoverage: for bins [t0 + i*period, t0 + (i+1)*period) up to t1, the
// share (0..1) of each bin covered by `merged`; the last bin may be partial
// and is normalised by its own length.
std::vector<double> BinnedCoverage(const std::vector<Interval>& merged, int64_t t0, int64_t t1,
                                   int64_t period_ns);

// ValueSpan: a span carrying a value (e.g. blocks per SM of a kernel).
struct ValueSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double value = 0;
};

// CappedSumIntegral: integral over [lo, hi) of min(cap, Σ values of the spans
// covering t) dt, in value x ns (a sweep; spans may overlap, any order).
double CappedSumIntegral(std::vector<ValueSpan> spans, double cap, int64_t lo, int64_t hi);

// CappedSumIntegrals: CappedSumIntegral over each of `windows` ([lo, hi)
// pairs) in one sweep of the spans.
std::vector<double> CappedSumIntegrals(const std::vector<ValueSpan>& spans, double cap,
                                       const std::vector<std::pair<int64_t, int64_t>>& windows);

// CappedSumSweep: CappedSumIntegrals() with the spans handed in one at a
// time, so a caller with millions of them (a device's kernels) holds only
// the sweep's edges, not a span list beside them (47 MB at 100x).
class CappedSumSweep {
 public:
  // `windows`: [lo, hi) pairs; `expected_spans`: to size the edges (0: grow).
  CappedSumSweep(std::vector<std::pair<int64_t, int64_t>> windows, double cap,
                 size_t expected_spans);
  // Add: one span (any order; empty or outside every window: no effect).
  void Add(int64_t start_ns, int64_t end_ns, double value);
  // Integrals: the integral over each window, in window order; call once.
  std::vector<double> Integrals();

 private:
  struct Edge {
    int64_t t;
    double dv;
  };
  std::vector<std::pair<int64_t, int64_t>> windows_;
  double cap_;
  int64_t lo_ = 0, hi_ = 0;  // the windows' hull: spans are clipped to it
  std::vector<Edge> edges_;
};

}  // namespace gpuwhy::analysis
