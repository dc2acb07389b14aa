#include "analysis/diff/run_profile.h"

#include "analysis/analysis.h"

#include <algorithm>
#include <cmath>

namespace gpuwhy::analysis {

namespace {

// PrimaryDevice: the device of `t` with the most kernel time (null: none).
const DeviceSummary* PrimaryDevice(const TraceAnalysis& t) {
  const DeviceSummary* best = nullptr;
  for (const DeviceSummary& d : t.summary.devices) {
    if (!d.has_events) continue;
    if (best == nullptr || d.kernels.duration.total_ns > best->kernels.duration.total_ns) best = &d;
  }
  return best;
}

const DeviceUtilization* UtilOf(const TraceAnalysis& t, int32_t device_id) {
  for (const DeviceUtilization& u : t.utilization.devices)
    if (u.device_id == device_id) return &u;
  return nullptr;
}

}  // namespace

RunProfile ProfileOf(const Analysis& a) {
  RunProfile p;
  p.rank_count = static_cast<int32_t>(a.traces.size());
  for (const TraceAnalysis& t : a.traces)
    p.label += (p.label.empty() ? "" : " ") + t.input.path;
  if (a.traces.empty()) return p;
  const TraceAnalysis& t0 = a.traces.front();
  const DeviceSummary* d = PrimaryDevice(t0);
  if (d != nullptr) {
    const DurationStats& st = d->steps.step_time;
    if (d->steps.has_steps && st.count > 0) {
      p.per_step_basis = true;
      p.step_count = static_cast<int32_t>(st.count);
      p.step_mean_ns = st.mean_ns;
      p.step_p50_ns = static_cast<double>(st.p50_ns);
      p.step_p95_ns = static_cast<double>(st.p95_ns);
      p.step_stddev_ns = st.stddev_ns;
    } else if (IsValid(d->span_ns) && d->span_ns > 0) {
      p.step_count = 1;
      p.step_mean_ns = p.step_p50_ns = p.step_p95_ns = static_cast<double>(d->span_ns);
    }
    const double steps = IsValid(p.step_count) && p.step_count > 0 ? p.step_count : kMissingF64;
    for (const KernelNameStats& k : d->kernels.top)
      p.top_kernels.push_back({k.name, k.count, k.total_ns});
    p.copies_per_step = static_cast<double>(d->memcpy_total.count) / steps;
    p.copy_bytes_per_step = static_cast<double>(d->memcpy_total.bytes) / steps;
    int64_t syncs = 0;
    for (const SyncApiStats& s : d->sync_apis)
      if (s.host_blocking) syncs += s.count;
    p.syncs_per_step = static_cast<double>(syncs) / steps;
    if (const DeviceUtilization* u = UtilOf(t0, d->device_id)) {
      p.surface_ratio = u->surface_ratio.value;
      // Engine activity is not comparable with another run's SM activity.
      if (!RealIsGrEngineActivity(*u)) p.real_ratio = u->real_ratio.value;
      p.curve_class = ToString(u->verdict.curve_class);
    }
  }
  // The slowest rank's mean step (a rank set waits for it).
  if (a.traces.size() > 1) {
    for (const TraceAnalysis& t : a.traces) {
      const DeviceSummary* dd = PrimaryDevice(t);
      if (dd == nullptr || !dd->steps.has_steps || !IsValid(dd->steps.step_time.mean_ns)) continue;
      if (!IsValid(p.slowest_rank_step_mean_ns) ||
          dd->steps.step_time.mean_ns > p.slowest_rank_step_mean_ns)
        p.slowest_rank_step_mean_ns = dd->steps.step_time.mean_ns;
    }
  }
  if (a.diagnosis) {
    const detectors::Diagnosis& dx = *a.diagnosis;
    // The step the GPU pays for: the diagnosis's device-adjusted windows
    // (a host that runs ahead of the GPU has shorter ProfilerStep ranges).
    if (IsValid(dx.step_window_mean_ns) && dx.per_step_basis) {
      p.per_step_basis = true;
      p.step_count = dx.step_count;
      p.step_mean_ns = dx.step_window_mean_ns;
      p.step_p50_ns = dx.step_window_p50_ns;
      p.step_p95_ns = dx.step_window_p95_ns;
      p.step_stddev_ns = dx.step_window_stddev_ns;
    }
    if (!dx.curve_shape.empty()) p.curve_class = dx.curve_shape;
    p.bottleneck = dx.bottleneck;
    p.top_line = dx.top_line;
    p.idle_ratio = dx.idle_step_ratio;
    if (IsValid(dx.idle_step_ratio)) p.busy_ratio = 1.0 - dx.idle_step_ratio;
    p.mfu_ratio = dx.mfu_ratio;
    p.busy_mfu_ratio = dx.busy_mfu_ratio;
    p.idle_ns_per_step = dx.idle_ns_per_step_by_cause;
    p.has_idle_causes = std::any_of(p.idle_ns_per_step.begin(), p.idle_ns_per_step.end(),
                                    [](double v) { return IsValid(v); });
    for (const detectors::Finding& f : dx.findings)
      p.findings.push_back({f.id, f.title, f.lost_per_step_ns, f.lost_step_ratio, f.predicted_step_ns});
  }
  return p;
}

}  // namespace gpuwhy::analysis
