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

// TotalLength: sum of lengths of merged spans; saturates at INT64_MAX.
int64_t TotalLength(const std::vector<Interval>& merged);

// IntersectLength: length of merged ∩ [lo, hi).
int64_t IntersectLength(const std::vector<Interval>& merged, int64_t lo, int64_t hi);

// IntersectLength: |a ∩ b| of merged a and merged b, without building the
// intersection (the sum of Intersect(a, b)'s lengths).
int64_t IntersectLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

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
// time, so a caller with millions of them (a device's kernels) holds no span
// list. Spans handed in start order (`in_start_order`) are swept as they come,
// holding only the spans still open (a heap of their ends): no edge list and
// no sort (at 100x the edges were 32 bytes a kernel and their sort most of
// the sweep). Otherwise it keeps two edges a span and sorts them at the end.
// Both give the same integrals up to the order of floating-point additions
// among edges at one time.
class CappedSumSweep {
 public:
  // `windows`: [lo, hi) pairs; `expected_spans`: to size the edges (0: grow).
  // `in_start_order`: the caller's promise that Add() sees start_ns never
  // decrease (a span that breaks it is counted from the latest start seen).
  CappedSumSweep(std::vector<std::pair<int64_t, int64_t>> windows, double cap,
                 size_t expected_spans, bool in_start_order = false);
  // Add: one span (empty or outside every window: no effect).
  void Add(int64_t start_ns, int64_t end_ns, double value);
  // Integrals: the integral over each window, in window order; call once.
  std::vector<double> Integrals();

 private:
  struct Edge {
    int64_t t;
    double dv;
  };
  // EndsLater: the heap order of edges_ in start order (earliest end on top).
  static bool EndsLater(const Edge& x, const Edge& y) { return x.t > y.t; }
  // Integrate: clamp(sum_) over [from, to) into out_.
  void Integrate(int64_t from, int64_t to);
  // CloseUpTo: in start order, ends the open spans that end at or before t
  // and integrates up to t.
  void CloseUpTo(int64_t t);

  std::vector<std::pair<int64_t, int64_t>> windows_;
  double cap_;
  int64_t lo_ = 0, hi_ = 0;  // the windows' hull: spans are clipped to it
  bool in_start_order_ = false;
  // edges_: both edges of every span; in start order, the open spans' ends
  // (a min-heap by time).
  std::vector<Edge> edges_;
  std::vector<double> out_;  // the integrals so far
  double sum_ = 0;           // the values of the spans open at the sweep's time
  int64_t now_ = 0;          // in start order: integrated up to here
  bool started_ = false;
};

}  // namespace gpuwhy::analysis
