#include "analysis/detectors/finding.h"

#include <cmath>
#include <cstdio>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

std::string_view ToString(Category c) {
  switch (c) {
    case Category::kSync: return "sync";
    case Category::kDataLoading: return "data_loading";
    case Category::kLaunchBound: return "launch_bound";
    case Category::kKernelEfficiency: return "kernel_efficiency";
    case Category::kRecompilation: return "recompilation";
    case Category::kContention: return "contention";
    case Category::kCommunication: return "communication";
    case Category::kImbalance: return "imbalance";
    case Category::kHostBound: return "host_bound";
    case Category::kIdle: break;
  }
  return "idle";
}

std::string_view ToString(Severity s) {
  switch (s) {
    case Severity::kCritical: return "critical";
    case Severity::kHigh: return "high";
    case Severity::kMedium: return "medium";
    case Severity::kLow: return "low";
    case Severity::kInfo: break;
  }
  return "info";
}

std::string_view ToString(FixKind k) {
  switch (k) {
    case FixKind::kFewerSyncs: return "fewer_syncs";
    case FixKind::kAsyncCopies: return "async_copies";
    case FixKind::kDataLoaderWorkers: return "dataloader_workers";
    case FixKind::kPinMemory: return "pin_memory";
    case FixKind::kPrefetch: return "prefetch";
    case FixKind::kBiggerBatch: return "bigger_batch";
    case FixKind::kFusion: return "fusion";
    case FixKind::kCudaGraphs: return "cuda_graphs";
    case FixKind::kMixedPrecision: return "mixed_precision";
    case FixKind::kKernelTuning: return "kernel_tuning";
    case FixKind::kStaticShapes: return "static_shapes";
    case FixKind::kIsolation: return "isolation";
    case FixKind::kCommOverlap: return "comm_overlap";
    case FixKind::kLoadBalance: return "load_balance";
    case FixKind::kHostSpeed: return "host_speed";
    case FixKind::kCooling: return "power_and_clocks";
    case FixKind::kSteadyState: return "steady_state";
  }
  return "other";
}

Severity SeverityFromLoss(double r) {
  if (!IsValid(r)) return Severity::kLow;
  if (r >= 0.20) return Severity::kCritical;
  if (r >= 0.10) return Severity::kHigh;
  if (r >= 0.05) return Severity::kMedium;
  if (r >= 0.01) return Severity::kLow;
  return Severity::kInfo;
}

void AddMetric(Finding& f, std::string name, double value, std::string unit, std::string label) {
  f.evidence.push_back({std::move(name), value, std::move(unit), std::move(label)});
}

double MetricOf(const Finding& f, std::string_view name) {
  for (const Metric& m : f.evidence)
    if (m.name == name) return m.value;
  return kMissingF64;
}

int64_t MeanStepNs(const DeviceTimeline& d) {
  if (d.steps.empty()) return 0;
  return d.steps_total_ns / static_cast<int64_t>(d.steps.size());
}

void SetLoss(Finding& f, const DeviceTimeline& d, int64_t total_lost_ns) {
  f.device_id = d.device_id;
  f.per_step_basis = d.steps_from_markers;
  f.step_count = static_cast<int32_t>(d.steps.size());
  if (d.steps.empty() || d.steps_total_ns <= 0 || total_lost_ns < 0) return;
  f.lost_per_step_ns = total_lost_ns / static_cast<int64_t>(d.steps.size());
  f.lost_step_ratio = static_cast<double>(total_lost_ns) / static_cast<double>(d.steps_total_ns);
  f.severity = SeverityFromLoss(f.lost_step_ratio);
}

std::string FormatMs(int64_t ns) {
  char buf[32];
  double ms = NsToMs(ns);
  // Seconds from 1 s: a long capture's total read "5025000 ms in all".
  // Thresholds at the rounding points, so that 9.996 s prints "10.0 s".
  if (ms >= 99'950)
    std::snprintf(buf, sizeof buf, "%.0f s", ms / 1e3);
  else if (ms >= 9'995)
    std::snprintf(buf, sizeof buf, "%.1f s", ms / 1e3);
  else if (ms >= 999.5)
    std::snprintf(buf, sizeof buf, "%.2f s", ms / 1e3);
  else if (ms >= 100)
    std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  else if (ms >= 1) std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.0f µs", NsToUs(ns));
  return buf;
}

std::string FormatPct(double ratio) {
  if (!IsValid(ratio)) return "n/a";
  char buf[32];
  double pct = ratio * 100.0;
  if (pct > 0 && pct < 1) std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  else std::snprintf(buf, sizeof buf, "%.0f%%", std::round(pct));
  return buf;
}

}  // namespace gpuwhy::analysis::detectors
