#include "analysis/perfetto/perfetto_view.h"

#include <algorithm>
#include <map>

#include "analysis/utilization/kernel_fill.h"

namespace gpuwhy::analysis {
namespace {

using detectors::IdleCause;

// SortedIds: the valid values of `col`, sorted and unique.
std::vector<int64_t> SortedIds(std::vector<int64_t> ids) {
  ids.erase(std::remove_if(ids.begin(), ids.end(), [](int64_t v) { return !IsValid(v); }),
            ids.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool Has(const std::vector<int64_t>& sorted, int64_t v) {
  return IsValid(v) && std::binary_search(sorted.begin(), sorted.end(), v);
}

// FlowFlags: which API calls and GPU ops share a correlation id (the
// launch -> GPU op arrows), so the renderer draws no dangling flow.
void FlowFlags(const model::Trace& t, TraceView& tv) {
  std::vector<int64_t> gpu;
  gpu.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
  gpu.insert(gpu.end(), t.kernels.correlation_id.begin(), t.kernels.correlation_id.end());
  gpu.insert(gpu.end(), t.memcpys.correlation_id.begin(), t.memcpys.correlation_id.end());
  gpu.insert(gpu.end(), t.memsets.correlation_id.begin(), t.memsets.correlation_id.end());
  gpu = SortedIds(std::move(gpu));
  const std::vector<int64_t> api = SortedIds(t.api_calls.correlation_id);
  tv.api_has_gpu_op.resize(t.api_calls.size());
  for (size_t i = 0; i < t.api_calls.size(); ++i)
    tv.api_has_gpu_op[i] = Has(gpu, t.api_calls.correlation_id[i]);
  auto mark = [&](const std::vector<int64_t>& corr, std::vector<bool>& out) {
    out.resize(corr.size());
    for (size_t i = 0; i < corr.size(); ++i) out[i] = Has(api, corr[i]);
  };
  mark(t.kernels.correlation_id, tv.kernel_has_api);
  mark(t.memcpys.correlation_id, tv.memcpy_has_api);
  mark(t.memsets.correlation_id, tv.memset_has_api);
}

// StepTrack: a kernel_fill step function as a percentage counter track.
CounterTrack StepTrack(std::string name, const std::vector<StepPoint>& steps) {
  CounterTrack c;
  c.name = std::move(name);
  c.unit = "pct";
  c.source = "trace: launch config";
  c.points.reserve(steps.size());
  for (const StepPoint& p : steps) c.points.push_back({p.ts_ns, p.value * 100.0});
  return c;
}

// IdleSlices: the timeline's gaps of `d` as slices. The pieces of one gap
// share its [start, end); a DataLoader piece is the part overlapping the
// DataLoader ranges (timeline.h), the other piece the rest of the gap.
void IdleSlices(const detectors::Timeline& tl, const detectors::DeviceTimeline& d,
                std::vector<IdleSlice>& out) {
  const auto& gaps = d.gaps;
  for (size_t i = 0; i < gaps.size();) {
    size_t j = i;
    while (j < gaps.size() && gaps[j].start_ns == gaps[i].start_ns &&
           gaps[j].end_ns == gaps[i].end_ns)
      ++j;
    const detectors::IntervalList whole = {{gaps[i].start_ns, gaps[i].end_ns}};
    bool split_gap = j - i > 1;
    for (size_t k = i; k < j; ++k)
      split_gap = split_gap || gaps[k].attributed_ns != gaps[k].end_ns - gaps[k].start_ns;
    // Only split gaps need the DataLoader ranges inside them (a binary search,
    // not a pass over every range per gap).
    detectors::IntervalList dl;
    if (split_gap) {
      auto it = std::upper_bound(tl.dataloader.begin(), tl.dataloader.end(), whole[0].start_ns,
                                 [](int64_t t, const detectors::Interval& r) { return t < r.end_ns; });
      for (; it != tl.dataloader.end() && it->start_ns < whole[0].end_ns; ++it)
        dl.push_back({std::max(it->start_ns, whole[0].start_ns), std::min(it->end_ns, whole[0].end_ns)});
    }
    for (size_t k = i; k < j; ++k) {
      const detectors::IdleGap& g = gaps[k];
      IdleSlice s;
      s.cause = g.cause;
      s.one_off = g.one_off;
      s.edge = g.edge;
      s.finding_id = g.one_off ? detectors::kOneOffGapFindingId : detectors::CauseFindingId(g.cause);
      if (d.steps_from_markers && g.step_index >= 0 &&
          static_cast<size_t>(g.step_index) < d.steps.size())
        s.step = d.steps[static_cast<size_t>(g.step_index)].step;
      s.gap_start_ns = g.start_ns;
      s.gap_end_ns = g.end_ns;
      const detectors::IntervalList parts =
          !split_gap ? whole
                 : (g.cause == IdleCause::kDataLoader ? dl : detectors::Subtract(whole, dl));
      for (const detectors::Interval& p : parts) {
        s.start_ns = p.start_ns;
        s.end_ns = p.end_ns;
        out.push_back(s);
      }
    }
    i = j;
  }
  std::sort(out.begin(), out.end(),
            [](const IdleSlice& a, const IdleSlice& b) { return a.start_ns < b.start_ns; });
}

// RankOf: the rank the diagnosis gives trace i (diagnosis.cc's rule).
int32_t RankOf(const std::vector<model::Trace>& traces, size_t i) {
  if (IsValid(traces[i].rank.rank)) return traces[i].rank.rank;
  return traces.size() > 1 ? static_cast<int32_t>(i) : kMissingI32;
}

size_t InputOfRank(const std::vector<model::Trace>& traces, int32_t rank) {
  if (!IsValid(rank)) return 0;
  for (size_t i = 0; i < traces.size(); ++i)
    if (RankOf(traces, i) == rank) return i;
  return 0;
}

// WindowStart: where a finding without a timed example is placed: its
// device's utilization window, else the trace's first event.
int64_t WindowStart(const model::Trace& t, const TraceAnalysis* ta, int32_t device_id) {
  if (ta != nullptr) {
    for (const DeviceUtilization& du : ta->utilization.devices)
      if ((du.device_id == device_id || !IsValid(device_id)) && IsValid(du.window_start_ns))
        return du.window_start_ns;
  }
  return t.TimeExtent().first;
}

}  // namespace

PerfettoView BuildPerfettoView(const std::vector<model::Trace>& traces, const Analysis& analysis) {
  PerfettoView view;
  const bool rank_set = traces.size() > 1;
  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const model::Trace& t = traces[ti];
    const TraceAnalysis* ta = ti < analysis.traces.size() ? &analysis.traces[ti] : nullptr;
    TraceView tv;
    tv.trace = &t;
    if (rank_set) {
      const int32_t r = RankOf(traces, ti);
      tv.label = "rank " + std::to_string(r);
      tv.pid_offset = static_cast<int64_t>(ti) * kRankPidStride;
      tv.flow_id_offset = static_cast<int64_t>(ti) << kRankFlowIdShift;
    }
    FlowFlags(t, tv);
    tv.kernel_collective.assign(t.kernels.size(), UINT32_MAX);
    for (uint32_t c = 0; c < t.collectives.size(); ++c)
      if (t.collectives.kernel_row[c] < t.kernels.size())
        tv.kernel_collective[t.collectives.kernel_row[c]] = c;

    std::map<int32_t, DeviceView> devices;
    DeviceView host;
    auto dev = [&](int32_t id) -> DeviceView& {
      if (!IsValid(id)) return host;
      DeviceView& d = devices[id];
      d.device_id = id;
      return d;
    };
    // Surface: GPU-Util as NVML's fastest period would sample it.
    if (ta != nullptr) {
      for (const DeviceUtilization& du : ta->utilization.devices) {
        for (const UtilSeries& s : du.series) {
          if (s.label != "nvml_1/6s" || !IsValid(s.start_ns) || !IsValid(s.period_ns)) continue;
          CounterTrack c;
          c.name = "GPU-Util (NVML 1/6 s)";
          c.unit = "pct";
          c.source = s.source;
          for (size_t k = 0; k < s.util_ratio.size(); ++k)
            if (IsValid(s.util_ratio[k]))
              c.points.push_back({s.start_ns + static_cast<int64_t>(k) * s.period_ns,
                                  s.util_ratio[k] * 100.0});
          if (!c.points.empty()) dev(du.device_id).counters.push_back(std::move(c));
        }
      }
    }
    // Real: SM fill and estimated occupancy over the kernels.
    for (const KernelFillSteps& f : BuildKernelFillSteps(t)) {
      if (!f.sm_fill.empty()) dev(f.device_id).counters.push_back(StepTrack("SM fill", f.sm_fill));
      if (!f.occupancy.empty())
        dev(f.device_id).counters.push_back(StepTrack("est. occupancy", f.occupancy));
    }
    // Sampled counters of the input (or of a log merged into it).
    for (const model::CounterSeries& s : t.counters) {
      if (s.ts_are_indexes) continue;  // no times to draw at
      CounterTrack c;
      const std::string_view source = t.Str(s.source);
      c.name = std::string(t.Str(s.name));
      if (!source.empty()) c.name += " (" + std::string(source) + ")";
      c.unit = std::string(model::ToString(s.unit));
      c.source = std::string(source);
      const size_t n = std::min(s.ts_ns.size(), s.value.size());
      for (size_t k = 0; k < n; ++k)
        if (IsValid(s.value[k]) && IsValid(s.ts_ns[k])) c.points.push_back({s.ts_ns[k], s.value[k]});
      if (!c.points.empty()) dev(s.device_id).counters.push_back(std::move(c));
    }
    // Idle causes, exactly as the detectors see them.
    const detectors::Timeline tl = detectors::BuildTimeline(t);
    for (const detectors::DeviceTimeline& d : tl.devices) IdleSlices(tl, d, dev(d.device_id).idle);

    for (auto& kv : devices) tv.devices.push_back(std::move(kv.second));
    if (!host.counters.empty()) tv.devices.push_back(std::move(host));
    view.traces.push_back(std::move(tv));
  }

  // Findings at their worst examples, on the input (rank) they name.
  if (analysis.diagnosis && !traces.empty()) {
    for (const detectors::Finding& f : analysis.diagnosis->findings) {
      FindingMark base;
      base.id = f.id;
      base.title = f.title;
      base.severity = std::string(detectors::ToString(f.severity));
      base.lost_per_step_ns = f.lost_per_step_ns;
      base.lost_step_ratio = f.lost_step_ratio;
      bool placed = false;
      for (size_t e = 0; e < f.examples.size(); ++e) {
        const detectors::Example& ex = f.examples[e];
        if (!IsValid(ex.start_ns)) continue;
        FindingMark m = base;
        m.ts_ns = ex.start_ns;
        m.dur_ns = ex.dur_ns;
        m.device_id = IsValid(ex.device_id) ? ex.device_id : f.device_id;
        m.what = ex.what;
        m.detail = ex.detail;
        m.step = ex.step;
        m.example_index = static_cast<int32_t>(e);
        const size_t ti = InputOfRank(traces, IsValid(ex.rank) ? ex.rank : f.rank);
        view.traces[ti].findings.push_back(std::move(m));
        placed = true;
      }
      if (placed) continue;
      const size_t ti = InputOfRank(traces, f.rank);
      const TraceAnalysis* ta = ti < analysis.traces.size() ? &analysis.traces[ti] : nullptr;
      const int64_t at = WindowStart(traces[ti], ta, f.device_id);
      if (!IsValid(at)) continue;
      FindingMark m = base;
      m.ts_ns = at;
      m.device_id = f.device_id;
      view.traces[ti].findings.push_back(std::move(m));
    }
  }
  return view;
}

}  // namespace gpuwhy::analysis
