#include "analysis/steps/run_phases.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/steps/correlation_index.h"
#include "analysis/steps/step_detector.h"

namespace gpuwhy::analysis {
namespace {

bool ValidSpan(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// KernelSpan: a device's kernels: how many, first start, last end.
struct KernelSpan {
  int64_t count = 0;
  int64_t first_start_ns = kMissingI64;
  int64_t last_end_ns = kMissingI64;
  void Add(int64_t s, int64_t e) {
    ++count;
    first_start_ns = IsValid(first_start_ns) ? std::min(first_start_ns, s) : s;
    last_end_ns = IsValid(last_end_ns) ? std::max(last_end_ns, e) : e;
  }
};

// LoopPhasesOf: FindLoopPhases() with the device's kernels already tallied.
LoopPhases LoopPhasesOf(const model::Trace& trace, int32_t device, int64_t capture_start_ns,
                        int64_t capture_end_ns, const KernelSpan& kernels) {
  LoopPhases p;
  p.capture_start_ns = p.loop_start_ns = capture_start_ns;
  p.capture_end_ns = p.loop_end_ns = capture_end_ns;
  if (!IsValid(capture_start_ns) || !IsValid(capture_end_ns) || capture_end_ns <= capture_start_ns)
    return p;
  if (kernels.count < kMinLoopKernels || kernels.last_end_ns <= kernels.first_start_ns) return p;
  const int64_t k0 = std::clamp(kernels.first_start_ns, capture_start_ns, capture_end_ns);
  const int64_t k1 = std::clamp(kernels.last_end_ns, k0, capture_end_ns);
  if (static_cast<double>(k1 - k0) <
      kMinLoopShare * static_cast<double>(capture_end_ns - capture_start_ns))
    return p;

  // Copies before, inside and after the kernel span. Copies only: a memset
  // per step (zeroing a buffer) says nothing about whether the uploads before
  // the first kernel recur.
  int64_t before = 0, inside = 0, after = 0;
  int64_t first_before = kMissingI64, last_after = kMissingI64;
  const model::MemcpyTable& m = trace.memcpys;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.device_id[i] != device || !ValidSpan(m.start_ns[i], m.end_ns[i])) continue;
    const int64_t s = std::clamp(m.start_ns[i], capture_start_ns, capture_end_ns);
    const int64_t e = std::clamp(m.end_ns[i], s, capture_end_ns);
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

// DeviceAcc: what BuildRunSteps gathers of one device in its passes.
struct DeviceAcc {
  int32_t device_id = kMissingI32;
  int64_t op_start_ns = kMissingI64;  // GPU-op span (kernels, copies, memsets)
  int64_t op_end_ns = kMissingI64;
  KernelSpan kernels;
  int64_t kernel_ns = 0;
  std::vector<int64_t> step_end;    // per host step: end of its last GPU op
  std::vector<int64_t> step_count;  // per host step: GPU ops launched inside it
};

}  // namespace

LoopPhases FindLoopPhases(const model::Trace& trace, int32_t device, int64_t capture_start_ns,
                          int64_t capture_end_ns) {
  KernelSpan kernels;
  const model::KernelTable& k = trace.kernels;
  for (size_t i = 0; i < k.size(); ++i)
    if (k.device_id[i] == device && ValidSpan(k.start_ns[i], k.end_ns[i]))
      kernels.Add(k.start_ns[i], k.end_ns[i]);
  return LoopPhasesOf(trace, device, capture_start_ns, capture_end_ns, kernels);
}

const DeviceSteps* RunSteps::Find(int32_t device_id) const {
  for (const DeviceSteps& d : devices)
    if (d.device_id == device_id) return &d;
  return nullptr;
}

RunSteps BuildRunSteps(const model::Trace& trace) {
  RunSteps out;
  // The devices with GPU ops, by id; ops come in runs of one device, so the
  // last one found is tried first.
  std::map<int32_t, DeviceAcc> devices;
  DeviceAcc* last = nullptr;
  auto acc = [&](int32_t dev) -> DeviceAcc& {
    if (last == nullptr || last->device_id != dev) {
      last = &devices[dev];
      last->device_id = dev;
    }
    return *last;
  };
  auto widen = [&](const auto& t, bool kernels) {
    for (size_t i = 0; i < t.size(); ++i) {
      const int64_t s = t.start_ns[i], e = t.end_ns[i];
      if (!ValidSpan(s, e)) continue;
      DeviceAcc& d = acc(t.device_id[i]);
      d.op_start_ns = IsValid(d.op_start_ns) ? std::min(d.op_start_ns, s) : s;
      d.op_end_ns = IsValid(d.op_end_ns) ? std::max(d.op_end_ns, e) : e;
      if (kernels) {
        d.kernels.Add(s, e);
        d.kernel_ns = AddSat(d.kernel_ns, e - s);  // two 146-year kernels pass int64
      }
    }
  };
  widen(trace.kernels, true);
  widen(trace.memcpys, false);
  widen(trace.memsets, false);
  if (devices.empty()) return out;

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
  if (!host_steps.empty()) {
    const model::ApiTable& api = trace.api_calls;
    CorrelationIndex corr;
    corr.Build(api);
    for (auto& [dev, d] : devices) {
      d.step_end.assign(host_steps.size(), kMissingI64);
      d.step_count.assign(host_steps.size(), 0);
    }
    // Each GPU op counts for the host step its launch call lies inside.
    auto ops = [&](const auto& t) {
      for (size_t i = 0; i < t.size(); ++i) {
        if (!ValidSpan(t.start_ns[i], t.end_ns[i]) || !IsValid(t.correlation_id[i])) continue;
        const uint32_t row = corr.FindRow(t.correlation_id[i]);
        if (row == UINT32_MAX) continue;
        const int64_t launch = api.start_ns[row];
        auto it = std::upper_bound(host_steps.begin(), host_steps.end(), launch,
                                   [](int64_t x, const StepWindow& w) { return x < w.host_start_ns; });
        if (it == host_steps.begin()) continue;
        --it;
        if (launch >= it->host_end_ns || api.end_ns[row] > it->host_end_ns) continue;
        const size_t idx = static_cast<size_t>(it - host_steps.begin());
        DeviceAcc& d = acc(t.device_id[i]);
        int64_t& e = d.step_end[idx];
        e = IsValid(e) ? std::max(e, t.end_ns[i]) : t.end_ns[i];
        ++d.step_count[idx];
      }
    };
    ops(trace.kernels);
    ops(trace.memcpys);
    ops(trace.memsets);
  }

  for (const auto& [dev, a] : devices) {
    DeviceSteps d;
    d.device_id = dev;
    d.kernel_count = a.kernels.count;
    d.kernel_ns = a.kernel_ns;
    if (!host_steps.empty()) {
      size_t n = host_steps.size();
      while (n > 0 && a.step_count[n - 1] == 0) --n;
      if (n >= 2 &&
          static_cast<double>(a.step_count[n - 1]) < 0.8 * static_cast<double>(a.step_count[n - 2]))
        --n;
      int64_t prev_end = kMissingI64;
      for (size_t i = 0; i < n; ++i) {
        StepWindow w = host_steps[i];
        w.start_ns = IsValid(prev_end) ? std::max(prev_end, w.host_start_ns) : w.host_start_ns;
        w.end_ns = IsValid(a.step_end[i]) ? std::max(w.host_end_ns, a.step_end[i]) : w.host_end_ns;
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
      int64_t c0 = a.op_start_ns, c1 = a.op_end_ns;
      if (IsValid(trace.info.capture_start_ns) && IsValid(trace.info.capture_end_ns) &&
          trace.info.capture_end_ns > trace.info.capture_start_ns) {
        c0 = std::min(c0, trace.info.capture_start_ns);
        c1 = std::max(c1, trace.info.capture_end_ns);
      }
      d.phases = LoopPhasesOf(trace, dev, c0, c1, a.kernels);
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
