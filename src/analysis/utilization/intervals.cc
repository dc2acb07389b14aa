#include "analysis/utilization/intervals.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/units.h"

namespace gpuwhy::analysis {

std::vector<Interval> MergeIntervals(std::vector<Interval> spans) {
  // Spans built from a Finalize()d table come in start order already; the
  // check is one pass where the sort was n log n (the merge below does not
  // depend on the order of equal starts).
  auto earlier = [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(spans.begin(), spans.end(), earlier)) std::sort(spans.begin(), spans.end(), earlier);
  // In place: the merged list is never longer than its input (no second
  // buffer beside a multi-million-kernel input).
  size_t n = 0;
  for (size_t r = 0; r < spans.size(); ++r) {
    const Interval s = spans[r];
    if (s.end_ns <= s.start_ns) continue;
    if (n > 0 && s.start_ns <= spans[n - 1].end_ns) {
      spans[n - 1].end_ns = std::max(spans[n - 1].end_ns, s.end_ns);
    } else {
      spans[n++] = s;
    }
  }
  spans.resize(n);
  if (n < spans.capacity() / 2) spans.shrink_to_fit();
  return spans;
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  // Unsigned, saturating: intervals read from a summary may span more than
  // int64 (one [INT64_MIN, INT64_MAX) does), and their sum more again.
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t sum = 0;
  for (const Interval& s : merged) {
    if (s.end_ns <= s.start_ns) continue;
    const uint64_t len = static_cast<uint64_t>(s.end_ns) - static_cast<uint64_t>(s.start_ns);
    sum = len >= kMax - sum ? kMax : sum + len;
  }
  return static_cast<int64_t>(sum);
}

int64_t IntersectLength(const std::vector<Interval>& merged, int64_t lo, int64_t hi) {
  int64_t sum = 0;
  auto it = std::lower_bound(merged.begin(), merged.end(), lo,
                             [](const Interval& s, int64_t v) { return s.end_ns <= v; });
  for (; it != merged.end() && it->start_ns < hi; ++it) {
    sum += std::min(hi, it->end_ns) - std::max(lo, it->start_ns);
  }
  return sum;
}

int64_t IntersectLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].start_ns, b[j].start_ns);
    const int64_t hi = std::min(a[i].end_ns, b[j].end_ns);
    if (lo < hi) sum += hi - lo;
    if (a[i].end_ns < b[j].end_ns)
      ++i;
    else
      ++j;
  }
  return sum;
}

std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].start_ns, b[j].start_ns);
    const int64_t hi = std::min(a[i].end_ns, b[j].end_ns);
    if (lo < hi) out.push_back({lo, hi});
    if (a[i].end_ns < b[j].end_ns)
      ++i;
    else
      ++j;
  }
  return out;
}

std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const Interval& s : a) {
    int64_t cur = s.start_ns;
    while (j < b.size() && b[j].end_ns <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start_ns < s.end_ns) {
      if (b[k].start_ns > cur) out.push_back({cur, b[k].start_ns});
      cur = std::max(cur, b[k].end_ns);
      ++k;
    }
    if (cur < s.end_ns) out.push_back({cur, s.end_ns});
  }
  return out;
}

std::vector<Interval> Gaps(const std::vector<Interval>& merged) {
  std::vector<Interval> out;
  for (size_t i = 1; i < merged.size(); ++i) {
    out.push_back({merged[i - 1].end_ns, merged[i].start_ns});
  }
  return out;
}

std::vector<double> BinnedCoverage(const std::vector<Interval>& merged, int64_t t0, int64_t t1,
                                   int64_t period_ns) {
  std::vector<double> out;
  if (period_ns <= 0 || t1 <= t0) return out;
  // The window may be 2^63 - 2 ns long (model times lie within ±2^62 ns), so
  // no bin edge is computed past t1.
  const int64_t n = CeilDiv(t1 - t0, period_ns);
  auto bin_end = [&](int64_t b) { return b + 1 >= n ? t1 : t0 + (b + 1) * period_ns; };
  out.assign(static_cast<size_t>(n), 0.0);
  for (const Interval& s : merged) {
    const int64_t lo = std::max(s.start_ns, t0);
    const int64_t hi = std::min(s.end_ns, t1);
    if (lo >= hi) continue;
    int64_t b = (lo - t0) / period_ns;
    int64_t cur = lo;
    while (cur < hi) {
      const int64_t seg_end = std::min(hi, bin_end(b));
      out[static_cast<size_t>(b)] += static_cast<double>(seg_end - cur);
      cur = seg_end;
      ++b;
    }
  }
  for (int64_t b = 0; b < n; ++b) {
    const int64_t len = bin_end(b) - (t0 + b * period_ns);
    out[static_cast<size_t>(b)] /= static_cast<double>(len);
  }
  return out;
}

std::vector<double> CappedSumIntegrals(const std::vector<ValueSpan>& spans, double cap,
                                       const std::vector<std::pair<int64_t, int64_t>>& windows) {
  CappedSumSweep sweep(windows, cap, spans.size());
  for (const ValueSpan& s : spans) sweep.Add(s.start_ns, s.end_ns, s.value);
  return sweep.Integrals();
}

CappedSumSweep::CappedSumSweep(std::vector<std::pair<int64_t, int64_t>> windows, double cap,
                               size_t expected_spans, bool in_start_order)
    : windows_(std::move(windows)), cap_(cap), in_start_order_(in_start_order) {
  if (windows_.empty()) return;
  lo_ = windows_.front().first;
  hi_ = windows_.front().second;
  for (const auto& [a, b] : windows_) {
    lo_ = std::min(lo_, a);
    hi_ = std::max(hi_, b);
  }
  out_.assign(windows_.size(), 0.0);
  if (!in_start_order_) edges_.reserve(expected_spans * 2);
}

void CappedSumSweep::Integrate(int64_t from, int64_t to) {
  if (to <= from) return;
  // Why the clamp at 0: float cancellation can leave -1e-17 after a span ends.
  const double v = std::clamp(sum_, 0.0, cap_);
  if (v == 0.0) return;
  for (size_t w = 0; w < windows_.size(); ++w) {
    const int64_t a = std::max(from, windows_[w].first);
    const int64_t b = std::min(to, windows_[w].second);
    if (b > a) out_[w] += v * static_cast<double>(b - a);
  }
}

void CappedSumSweep::CloseUpTo(int64_t t) {
  while (!edges_.empty() && edges_.front().t <= t) {
    const int64_t end = edges_.front().t;
    Integrate(now_, end);
    now_ = end;
    while (!edges_.empty() && edges_.front().t == end) {
      sum_ -= edges_.front().dv;
      std::pop_heap(edges_.begin(), edges_.end(), EndsLater);
      edges_.pop_back();
    }
    if (edges_.empty()) sum_ = 0;  // nothing open: exactly 0, not a rounding residue
  }
  Integrate(now_, t);
  now_ = t;
}

void CappedSumSweep::Add(int64_t start_ns, int64_t end_ns, double value) {
  if (windows_.empty()) return;
  int64_t a = std::max(start_ns, lo_);
  const int64_t b = std::min(end_ns, hi_);
  if (!in_start_order_) {
    if (a >= b) return;
    edges_.push_back({a, value});
    edges_.push_back({b, -value});
    return;
  }
  if (started_) a = std::max(a, now_);
  if (a >= b) return;
  if (started_)
    CloseUpTo(a);
  else
    now_ = a;
  started_ = true;
  sum_ += value;
  edges_.push_back({b, value});
  std::push_heap(edges_.begin(), edges_.end(), EndsLater);
}

std::vector<double> CappedSumSweep::Integrals() {
  if (in_start_order_) {
    if (started_) CloseUpTo(hi_);
  } else {
    std::sort(edges_.begin(), edges_.end(), [](const Edge& x, const Edge& y) { return x.t < y.t; });
    for (size_t i = 0; i < edges_.size(); ++i) {
      sum_ += edges_[i].dv;
      if (i + 1 < edges_.size()) Integrate(edges_[i].t, edges_[i + 1].t);
    }
  }
  std::vector<Edge>().swap(edges_);
  return std::move(out_);
}

double CappedSumIntegral(std::vector<ValueSpan> spans, double cap, int64_t lo, int64_t hi) {
  if (hi <= lo) return 0.0;
  return CappedSumIntegrals(spans, cap, {{lo, hi}}).front();
}

}  // namespace gpuwhy::analysis
