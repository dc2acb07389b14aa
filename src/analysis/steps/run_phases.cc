#include "analysis/steps/run_phases.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/steps/step_detector.h"

namespace gpuwhy::analysis {

LoopPhases FindLoopPhases(const model::Trace& trace, int32_t device, int64_t capture_start_ns,
                          int64_t capture_end_ns) {
  LoopPhases p;
  p.capture_start_ns = p.loop_start_ns = capture_start_ns;
  p.capture_end_ns = p.loop_end_ns = capture_end_ns;
  if (!IsValid(capture_start_ns) || !IsValid(capture_end_ns) || capture_end_ns <= capture_start_ns)
    return p;
  auto ok = [](int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; };

  int64_t kernels = 0, k0 = kMissingI64, k1 = kMissingI64;
  const model::KernelTable& k = trace.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.device_id[i] != device || !ok(k.start_ns[i], k.end_ns[i])) continue;
    ++kernels;
    k0 = IsValid(k0) ? std::min(k0, k.start_ns[i]) : k.start_ns[i];
    k1 = IsValid(k1) ? std::max(k1, k.end_ns[i]) : k.end_ns[i];
  }
  if (kernels < kMinLoopKernels || k1 <= k0) return p;
  k0 = std::clamp(k0, capture_start_ns, capture_end_ns);
  k1 = std::clamp(k1, k0, capture_end_ns);
  if (static_cast<double>(k1 - k0) <
      kMinLoopShare * static_cast<double>(capture_end_ns - capture_start_ns))
    return p;

  // Copies before, inside and after the kernel span.
  int64_t before = 0, inside = 0, after = 0;
  int64_t first_before = kMissingI64, last_after = kMissingI64;
  auto tally = [&](const auto& t) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.device_id[i] != device || !ok(t.start_ns[i], t.end_ns[i])) continue;
      const int64_t s = std::clamp(t.start_ns[i], capture_start_ns, capture_end_ns);
      const int64_t e = std::clamp(t.end_ns[i], s, capture_end_ns);
      if (s < k0) {
        ++before;
        first_before = IsValid(first_before) ? std::min(first_before, s) : s;
      } else if (s >= k1) {
        ++after;
        last_after = IsValid(last_after) ? std::max(last_after, e) : e;
      } else {
        ++inside;
      }
    }
  };
  // Copies only: a memset per step (zeroing a buffer) says nothing about
  // whether the uploads before the first kernel recur.
  tally(trace.memcpys);

  // rate(n, ns): events per ns over a span (a zero span counts as 1 ns).
  auto rate = [](int64_t n, int64_t ns) {
    return static_cast<double>(n) / static_cast<double>(std::max<int64_t>(ns, 1));
  };
  const double loop_rate = rate(inside, k1 - k0);
  p.loop_start_ns = k0;
  if (before > 0 && loop_rate >= kRecurRateRatio * rate(before, k0 - capture_start_ns))
    p.loop_start_ns = first_before;
  p.loop_end_ns = k1;
  if (after > 0 && loop_rate >= kRecurRateRatio * rate(after, capture_end_ns - k1))
    p.loop_end_ns = last_after;
  p.has_loop = true;
  return p;
}

}  // namespace gpuwhy::analysis

namespace gpuwhy::analysis {
namespace {

bool ValidSpan(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// HostStepRanges: ProfilerStep#N (or NVTX step) ranges on the host, merged by
// N, by host start.
std::vector<StepWindow> HostStepRanges(const model::Trace& trace) {
  std::map<int32_t, StepWindow> by_step;
  const model::RangeTable& r = trace.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!IsValid(r.step[i]) || r.kind[i] == model::RangeKind::kGpuUserAnnotation) continue;
    if (!ValidSpan(r.start_ns[i], r.end_ns[i])) continue;
    auto [it, fresh] = by_step.try_emplace(r.step[i]);
    StepWindow& w = it->second;
    if (fresh) {
      w.step = r.step[i];
      w.host_start_ns = r.start_ns[i];
      w.host_end_ns = r.end_ns[i];
    } else {
      w.host_start_ns = std::min(w.host_start_ns, r.start_ns[i]);
      w.host_end_ns = std::max(w.host_end_ns, r.end_ns[i]);
    }
  }
  std::vector<StepWindow> out;
  out.reserve(by_step.size());
  for (auto& [n, w] : by_step) out.push_back(w);
  std::sort(out.begin(), out.end(), [](const StepWindow& a, const StepWindow& b) {
    return a.host_start_ns < b.host_start_ns;
  });
  return out;
}

// ApiByCorrelation: correlation id -> api row (the first row of an id). Views
// the table's column when its ids are valid and rising (Kineto and nsys
// exports as a rule); otherwise holds sorted (id, row) pairs.
class ApiByCorrelation {
 public:
  explicit ApiByCorrelation(const model::ApiTable& api) : ids_(api.correlation_id) {
    const std::vector<int64_t>& c = api.correlation_id;
    for (size_t i = 0; i < c.size(); ++i) {
      if (!IsValid(c[i]) || (i > 0 && c[i] <= c[i - 1])) {
        rising_ = false;
        break;
      }
    }
    if (rising_) return;
    pairs_.reserve(c.size());
    for (size_t i = 0; i < c.size(); ++i)
      if (IsValid(c[i])) pairs_.emplace_back(c[i], static_cast<uint32_t>(i));
    std::stable_sort(pairs_.begin(), pairs_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // Row: the api row of `id`, or UINT32_MAX.
  uint32_t Row(int64_t id) const {
    if (!IsValid(id)) return UINT32_MAX;
    if (rising_) {
      auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
      return it != ids_.end() && *it == id ? static_cast<uint32_t>(it - ids_.begin()) : UINT32_MAX;
    }
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), id,
                               [](const auto& p, int64_t x) { return p.first < x; });
    return it != pairs_.end() && it->first == id ? it->second : UINT32_MAX;
  }

 private:
  const std::vector<int64_t>& ids_;
  bool rising_ = true;
  std::vector<std::pair<int64_t, uint32_t>> pairs_;
};

}  // namespace

const DeviceSteps* RunSteps::Find(int32_t device_id) const {
  for (const DeviceSteps& d : devices)
    if (d.device_id == device_id) return &d;
  return nullptr;
}

RunSteps BuildRunSteps(const model::Trace& trace) {
  RunSteps out;
  // The devices with GPU ops and their op spans.
  std::map<int32_t, std::pair<int64_t, int64_t>> span;
  auto widen = [&](const auto& t) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (!ValidSpan(t.start_ns[i], t.end_ns[i])) continue;
      auto [it, fresh] = span.try_emplace(t.device_id[i], t.start_ns[i], t.end_ns[i]);
      if (!fresh) {
        it->second.first = std::min(it->second.first, t.start_ns[i]);
        it->second.second = std::max(it->second.second, t.end_ns[i]);
      }
    }
  };
  widen(trace.kernels);
  widen(trace.memcpys);
  widen(trace.memsets);
  if (span.empty()) return out;

  std::vector<StepWindow> host_steps = HostStepRanges(trace);
  if (host_steps.empty()) {
    // NVTX or user ranges named like a step ("train_step", "iteration") are
    // step markers too, numbered in order.
    for (const Step& st : MarkerRangeSteps(trace, nullptr)) {
      StepWindow w;
      w.step = st.number;
      w.host_start_ns = st.start_ns;
      w.host_end_ns = st.end_ns;
      host_steps.push_back(w);
    }
  }
  std::map<int32_t, std::vector<int64_t>> dev_end, dev_count;
  if (!host_steps.empty()) {
    const model::ApiTable& api = trace.api_calls;
    const ApiByCorrelation corr(api);
    for (const auto& [dev, s] : span) {
      dev_end[dev].assign(host_steps.size(), kMissingI64);
      dev_count[dev].assign(host_steps.size(), 0);
    }
    // Each GPU op counts for the host step its launch call lies inside.
    auto ops = [&](const auto& t) {
      for (size_t i = 0; i < t.size(); ++i) {
        if (!ValidSpan(t.start_ns[i], t.end_ns[i])) continue;
        const uint32_t row = corr.Row(t.correlation_id[i]);
        if (row == UINT32_MAX) continue;
        const int64_t launch = api.start_ns[row];
        auto it = std::upper_bound(host_steps.begin(), host_steps.end(), launch,
                                   [](int64_t x, const StepWindow& w) { return x < w.host_start_ns; });
        if (it == host_steps.begin()) continue;
        --it;
        if (launch >= it->host_end_ns || api.end_ns[row] > it->host_end_ns) continue;
        const size_t idx = static_cast<size_t>(it - host_steps.begin());
        int64_t& e = dev_end[t.device_id[i]][idx];
        e = IsValid(e) ? std::max(e, t.end_ns[i]) : t.end_ns[i];
        ++dev_count[t.device_id[i]][idx];
      }
    };
    ops(trace.kernels);
    ops(trace.memcpys);
    ops(trace.memsets);
  }

  for (const auto& [dev, s] : span) {
    DeviceSteps d;
    d.device_id = dev;
    if (!host_steps.empty()) {
      const std::vector<int64_t>& ends = dev_end[dev];
      const std::vector<int64_t>& counts = dev_count[dev];
      size_t n = host_steps.size();
      while (n > 0 && counts[n - 1] == 0) --n;
      if (n >= 2 && static_cast<double>(counts[n - 1]) < 0.8 * static_cast<double>(counts[n - 2])) --n;
      int64_t prev_end = kMissingI64;
      for (size_t i = 0; i < n; ++i) {
        StepWindow w = host_steps[i];
        w.start_ns = IsValid(prev_end) ? std::max(prev_end, w.host_start_ns) : w.host_start_ns;
        w.end_ns = IsValid(ends[i]) ? std::max(w.host_end_ns, ends[i]) : w.host_end_ns;
        if (w.end_ns <= w.start_ns) continue;
        prev_end = w.end_ns;
        d.windows.push_back(w);
      }
      // Time between two marked steps (host work after a step's range ended:
      // logging, Python, a sync) is paid for too: it belongs to the step before it.
      for (size_t i = 0; i + 1 < d.windows.size(); ++i)
        d.windows[i].end_ns = std::max(d.windows[i].end_ns, d.windows[i + 1].start_ns);
      d.from_markers = !d.windows.empty();
    }
    if (d.windows.empty()) {
      // No markers: the GPU-op span, widened to the profiler's capture window
      // when the source states it (a lone kernel in it is not "busy 100%"),
      // cut to the loop.
      int64_t c0 = s.first, c1 = s.second;
      if (IsValid(trace.info.capture_start_ns) && IsValid(trace.info.capture_end_ns) &&
          trace.info.capture_end_ns > trace.info.capture_start_ns) {
        c0 = std::min(c0, trace.info.capture_start_ns);
        c1 = std::max(c1, trace.info.capture_end_ns);
      }
      d.phases = FindLoopPhases(trace, dev, c0, c1);
      StepWindow w;
      w.step = 0;
      w.start_ns = w.host_start_ns = d.phases.loop_start_ns;
      w.end_ns = w.host_end_ns = d.phases.loop_end_ns;
      d.windows.push_back(w);
    }
    out.devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpuwhy::analysis
