#include "analysis/views/html_view.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuwhy::analysis::views {

namespace {

using detectors::DeviceTimeline;
using detectors::IdleGap;
using detectors::Interval;
using detectors::IntervalList;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Accum: min/max/sum/count of the samples of one point.
struct Accum {
  double min = kNaN, max = kNaN, sum = 0;
  int64_t n = 0;
  void Add(double v) {
    if (!std::isfinite(v)) return;
    if (n == 0 || v < min) min = v;
    if (n == 0 || v > max) max = v;
    sum += v;
    ++n;
  }
};

void Finish(const std::vector<Accum>& acc, Envelope& e) {
  e.min.reserve(acc.size());
  e.max.reserve(acc.size());
  e.mean.reserve(acc.size());
  for (const Accum& a : acc) {
    e.min.push_back(a.n > 0 ? a.min : kNaN);
    e.max.push_back(a.n > 0 ? a.max : kNaN);
    e.mean.push_back(a.n > 0 ? a.sum / static_cast<double>(a.n) : kNaN);
  }
}

// UniformEdges: n+1 edges from start in steps of bin.
std::vector<int64_t> UniformEdges(int64_t start, int64_t bin, size_t n) {
  std::vector<int64_t> e(n + 1);
  // In uint64: i * bin alone may pass int64 where start + i * bin does not.
  for (size_t i = 0; i <= n; ++i)
    e[i] = static_cast<int64_t>(static_cast<uint64_t>(start) +
                                static_cast<uint64_t>(i) * static_cast<uint64_t>(bin));
  return e;
}

// AddSpread: add `weight` x |[s, e) ∩ bin i| to out[i] for every bin.
void AddSpread(int64_t s, int64_t e, double weight, const std::vector<int64_t>& edges,
               std::vector<double>& out) {
  if (edges.size() < 2 || e <= s) return;
  s = std::max(s, edges.front());
  e = std::min(e, edges.back());
  if (e <= s) return;
  size_t i = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), s) - edges.begin());
  i = i == 0 ? 0 : i - 1;
  for (; i + 1 < edges.size() && edges[i] < e; ++i) {
    int64_t lo = std::max(s, edges[i]), hi = std::min(e, edges[i + 1]);
    if (hi > lo) out[i] += weight * static_cast<double>(hi - lo);
  }
}

std::vector<double> ToRatio(const std::vector<int64_t>& ns, const std::vector<int64_t>& edges) {
  std::vector<double> r(ns.size());
  for (size_t i = 0; i < ns.size(); ++i) {
    double w = static_cast<double>(edges[i + 1] - edges[i]);
    r[i] = w > 0 ? static_cast<double>(ns[i]) / w : kNaN;
  }
  return r;
}

// DrawnCounter: the counters the page charts: activity ratios, plus power
// and SM clock (throttling shows there).
bool DrawnCounter(model::CounterKind k) {
  using K = model::CounterKind;
  return k == K::kGpuUtil || k == K::kSmActive || k == K::kSmOccupancy || k == K::kTensorActive ||
         k == K::kDramActive || k == K::kMemUtil || k == K::kGrEngineActive || k == K::kPowerMw ||
         k == K::kPowerLimitMw || k == K::kSmClockMhz;
}

}  // namespace

Envelope ReduceRegular(int64_t start_ns, int64_t period_ns, const std::vector<double>& values,
                       size_t max_points) {
  Envelope e;
  e.start_ns = start_ns;
  e.source_period_ns = period_ns;
  if (values.empty() || !IsValid(start_ns) || !IsValid(period_ns) || period_ns <= 0) return e;
  max_points = std::max<size_t>(max_points, 1);
  size_t per = (values.size() + max_points - 1) / max_points;  // samples per point
  e.bin_ns = period_ns * static_cast<int64_t>(per);
  e.reduced = per > 1;
  std::vector<Accum> acc((values.size() + per - 1) / per);
  for (size_t i = 0; i < values.size(); ++i) acc[i / per].Add(values[i]);
  Finish(acc, e);
  return e;
}

Envelope ReduceSamples(const std::vector<int64_t>& ts_ns, const std::vector<double>& values,
                       size_t max_points) {
  Envelope e;
  size_t n = std::min(ts_ns.size(), values.size());
  if (n == 0) return e;
  max_points = std::max<size_t>(max_points, 1);
  int64_t first = ts_ns.front(), last = ts_ns[n - 1];
  if (n >= 2) e.source_period_ns = (last - first) / static_cast<int64_t>(n - 1);
  e.start_ns = first;
  size_t points = std::min(n, max_points);
  // One point per sample when they fit; else equal time bins.
  int64_t span = std::max<int64_t>(last - first, 1);
  e.bin_ns = std::max<int64_t>(
      1, (span + static_cast<int64_t>(points) - 1) / static_cast<int64_t>(points));
  if (points == n && IsValid(e.source_period_ns) && e.source_period_ns > 0)
    e.bin_ns = std::max<int64_t>(1, span / static_cast<int64_t>(std::max<size_t>(n - 1, 1)));
  size_t bins = static_cast<size_t>(span / e.bin_ns) + 1;
  std::vector<Accum> acc(bins);
  for (size_t i = 0; i < n; ++i) {
    size_t b = static_cast<size_t>((ts_ns[i] - first) / e.bin_ns);
    acc[std::min(b, bins - 1)].Add(values[i]);
  }
  for (const Accum& a : acc)
    if (a.n > 1) e.reduced = true;
  Finish(acc, e);
  return e;
}

std::vector<int64_t> CoverageByBin(const IntervalList& list, const std::vector<int64_t>& edges) {
  std::vector<int64_t> out(edges.size() < 2 ? 0 : edges.size() - 1, 0);
  if (out.empty()) return out;
  // Both sorted: one sweep with a moving bin index.
  size_t b = 0;
  for (const Interval& iv : list) {
    if (iv.end_ns <= edges.front()) continue;
    if (iv.start_ns >= edges.back()) break;
    while (b + 1 < edges.size() && edges[b + 1] <= iv.start_ns) ++b;
    for (size_t i = b; i + 1 < edges.size() && edges[i] < iv.end_ns; ++i) {
      int64_t lo = std::max(iv.start_ns, edges[i]), hi = std::min(iv.end_ns, edges[i + 1]);
      if (hi > lo) out[i] += hi - lo;
    }
  }
  return out;
}

Histogram KernelDurationHistogram(const model::Trace& trace, int32_t device_id) {
  Histogram h;
  const model::KernelTable& k = trace.kernels;
  // Edges: 0, then 1 µs x 10^(i/4) up to 10 s.
  h.edges_ns.push_back(0);
  for (int i = 0; i <= 28; ++i)
    h.edges_ns.push_back(static_cast<int64_t>(std::llround(1e3 * std::pow(10.0, i / 4.0))));
  h.count.assign(h.edges_ns.size(), 0);
  h.total_ns.assign(h.edges_ns.size(), 0);
  int64_t any = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.device_id[i] != device_id) continue;
    int64_t s = k.start_ns[i], e = k.end_ns[i];
    if (!IsValid(s) || !IsValid(e) || e < s) continue;
    int64_t d = e - s;
    size_t b = static_cast<size_t>(std::upper_bound(h.edges_ns.begin(), h.edges_ns.end(), d) -
                                   h.edges_ns.begin()) -
               1;
    ++h.count[b];
    h.total_ns[b] = AddSat(h.total_ns[b], d);
    ++any;
  }
  if (any == 0) return Histogram{};
  // Drop empty bins at both ends (keep the edges consistent).
  size_t lo = 0, hi = h.count.size();
  while (lo < hi && h.count[lo] == 0) ++lo;
  while (hi > lo && h.count[hi - 1] == 0) --hi;
  Histogram t;
  t.edges_ns.assign(h.edges_ns.begin() + static_cast<ptrdiff_t>(lo),
                    h.edges_ns.begin() + static_cast<ptrdiff_t>(hi));
  t.count.assign(h.count.begin() + static_cast<ptrdiff_t>(lo),
                 h.count.begin() + static_cast<ptrdiff_t>(hi));
  t.total_ns.assign(h.total_ns.begin() + static_cast<ptrdiff_t>(lo),
                    h.total_ns.begin() + static_cast<ptrdiff_t>(hi));
  return t;
}

DeviceView BuildDeviceView(const model::Trace& trace, int32_t device_id,
                           const DeviceTimeline* timeline, const DeviceUtilization* utilization,
                           size_t curve_bins, const HtmlViewOptions& options) {
  DeviceView v;
  v.device_id = device_id;
  v.has_events = timeline != nullptr && !timeline->steps.empty();
  if (utilization != nullptr) {
    for (const UtilSeries& s : utilization->series) {
      if (s.label != "fine" && s.label != "nvml_1/6s" && s.label != "step") continue;
      Envelope e = ReduceRegular(s.start_ns, s.period_ns, s.util_ratio, options.max_series_points);
      e.label = s.label;
      e.source = s.source;
      e.unit = "ratio";
      if (!e.mean.empty()) v.utilization.push_back(std::move(e));
    }
  }
  for (const model::CounterSeries& c : trace.counters) {
    if (c.device_id != device_id || !DrawnCounter(c.kind)) continue;
    Envelope e = ReduceSamples(c.ts_ns, c.value, options.max_series_points);
    e.untimed = c.ts_are_indexes;
    e.label = std::string(model::ToString(c.kind));
    e.source = CounterSourceLabel(trace, c);
    e.unit = std::string(model::ToString(c.unit));
    if (!e.mean.empty()) v.counters.push_back(std::move(e));
  }
  if (!v.has_events) return v;

  const DeviceTimeline& d = *timeline;
  v.steps_from_markers = d.steps_from_markers;
  v.steps_total = d.steps.size();
  const int64_t t0 = d.steps.front().start_ns;
  const int64_t t1 = d.steps.back().end_ns;
  const IntervalList comm_exposed = detectors::Subtract(d.comm_busy, d.ComputeBusy());
  const IntervalList copy_only = detectors::Subtract(d.busy, d.kernel_busy);
  IntervalList windows;
  for (const detectors::StepWindow& w : d.steps) windows.push_back({w.start_ns, w.end_ns});
  windows = detectors::UnionOf(std::move(windows));

  // Curve over the steps' span.
  curve_bins = std::max<size_t>(curve_bins, 1);
  int64_t span = std::max<int64_t>(t1 - t0, 1);
  int64_t bin = std::max<int64_t>(1, CeilDiv(span, static_cast<int64_t>(curve_bins)));
  size_t nbins = static_cast<size_t>(CeilDiv(span, bin));
  std::vector<int64_t> edges = UniformEdges(t0, bin, nbins);
  CauseCurve& cc = v.curve;
  cc.start_ns = t0;
  cc.bin_ns = bin;
  cc.compute_ratio =
      ToRatio(CoverageByBin(detectors::Intersect(d.ComputeBusy(), windows), edges), edges);
  cc.comm_ratio = ToRatio(CoverageByBin(detectors::Intersect(comm_exposed, windows), edges), edges);
  cc.copy_ratio = ToRatio(CoverageByBin(detectors::Intersect(copy_only, windows), edges), edges);
  std::array<std::vector<double>, detectors::kIdleCauseCount> idle;
  for (auto& x : idle) x.assign(nbins, 0.0);
  for (const IdleGap& g : d.gaps) {
    int64_t len = g.end_ns - g.start_ns;
    if (len <= 0) continue;
    double w = static_cast<double>(g.attributed_ns) / static_cast<double>(len);
    AddSpread(g.start_ns, g.end_ns, w, edges, idle[static_cast<size_t>(g.cause)]);
  }
  for (size_t c = 0; c < idle.size(); ++c) {
    for (size_t i = 0; i < nbins; ++i) {
      double wid = static_cast<double>(edges[i + 1] - edges[i]);
      idle[c][i] = wid > 0 ? idle[c][i] / wid : kNaN;
    }
    cc.idle_ratio[c] = std::move(idle[c]);
  }

  // Per-step breakdown (the windows tile the steps' span, in order).
  size_t ns = std::min(d.steps.size(), options.max_steps);
  std::vector<int64_t> sedges;
  for (size_t i = 0; i < ns; ++i) {
    sedges.push_back(d.steps[i].start_ns);
    v.step_starts_ns.push_back(d.steps[i].start_ns);
  }
  if (ns > 0) sedges.push_back(d.steps[ns - 1].end_ns);
  std::vector<int64_t> comp = CoverageByBin(d.ComputeBusy(), sedges);
  std::vector<int64_t> comm = CoverageByBin(comm_exposed, sedges);
  std::vector<int64_t> copy = CoverageByBin(copy_only, sedges);
  v.steps.resize(ns);
  for (size_t i = 0; i < ns; ++i) {
    StepBreakdown& s = v.steps[i];
    s.step = d.steps[i].step;
    s.start_ns = d.steps[i].start_ns;
    s.dur_ns = d.steps[i].end_ns - d.steps[i].start_ns;
    s.compute_ns = comp[i];
    s.comm_ns = comm[i];
    s.copy_ns = copy[i];
  }
  for (const IdleGap& g : d.gaps) {
    if (g.step_index < 0 || static_cast<size_t>(g.step_index) >= ns) continue;
    v.steps[static_cast<size_t>(g.step_index)].idle_ns[static_cast<size_t>(g.cause)] +=
        g.attributed_ns;
  }
  v.kernel_durations = KernelDurationHistogram(trace, device_id);
  return v;
}

HtmlView BuildHtmlView(const std::vector<model::Trace>& traces, const Analysis& analysis,
                       const HtmlViewOptions& options) {
  HtmlView view;
  size_t n = std::min(traces.size(), analysis.traces.size());
  size_t with_events = 0;
  for (size_t i = 0; i < n; ++i)
    if (!analysis.traces[i].utilization.devices.empty()) ++with_events;
  size_t bins = options.max_curve_bins;
  HtmlViewOptions per = options;  // a rank set shares the point budget
  if (with_events > 1) {
    bins = std::max(options.min_curve_bins, bins / with_events);
    per.max_series_points =
        std::max(options.min_series_points, options.max_series_points / with_events);
  }

  // The straggler is the diagnosis' call, not re-derived here.
  int32_t straggler_rank = kMissingI32;
  if (analysis.diagnosis) {
    for (const detectors::Finding& f : analysis.diagnosis->findings)
      if (f.id == "imbalance.stragglers") straggler_rank = f.rank;
  }

  for (size_t i = 0; i < n; ++i) {
    const model::Trace& trace = traces[i];
    const TraceAnalysis& ta = analysis.traces[i];
    detectors::Timeline tl = detectors::BuildTimeline(trace);
    auto find_tl = [&](int32_t id) -> const DeviceTimeline* {
      for (const DeviceTimeline& d : tl.devices)
        if (d.device_id == id) return &d;
      return nullptr;
    };
    TraceView tv;
    std::vector<int32_t> done;
    for (const DeviceUtilization& u : ta.utilization.devices) {
      tv.devices.push_back(
          BuildDeviceView(trace, u.device_id, find_tl(u.device_id), &u, bins, per));
      done.push_back(u.device_id);
    }
    for (const DeviceSummary& s : ta.summary.devices) {
      if (std::find(done.begin(), done.end(), s.device_id) != done.end()) continue;
      DeviceView dv = BuildDeviceView(trace, s.device_id, find_tl(s.device_id), nullptr, bins, per);
      if (dv.has_events || !dv.counters.empty()) tv.devices.push_back(std::move(dv));
      done.push_back(s.device_id);
    }
    view.traces.push_back(std::move(tv));

    if (with_events < 2) continue;
    const DeviceTimeline* p = tl.Primary();
    if (p == nullptr || p->steps.empty()) continue;
    RankStats r;
    r.trace_index = i;
    r.rank = IsValid(ta.input.rank) ? ta.input.rank : static_cast<int32_t>(i);
    r.device_id = p->device_id;
    r.step_count = static_cast<int64_t>(p->steps.size());
    IntervalList windows;
    for (const detectors::StepWindow& w : p->steps) windows.push_back({w.start_ns, w.end_ns});
    double steps = static_cast<double>(p->steps.size());
    r.mean_step_ns = static_cast<double>(p->steps_total_ns) / steps;
    r.compute_ns_per_step =
        static_cast<double>(detectors::OverlapLength(p->ComputeBusy(), windows)) / steps;
    r.comm_ns_per_step =
        static_cast<double>(detectors::OverlapLength(p->comm_busy, windows)) / steps;
    r.idle_ns_per_step = static_cast<double>(p->idle_ns) / steps;
    r.straggler = IsValid(straggler_rank) && r.rank == straggler_rank;
    view.ranks.push_back(r);
  }
  return view;
}

}  // namespace gpuwhy::analysis::views
