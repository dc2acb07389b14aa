#include "analysis/detectors/counter_detector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "analysis/detectors/counter_phases.h"
#include "analysis/utilization/utilization.h"

namespace gpuwhy::analysis::detectors {

namespace {

// Clock-event reason bits (NVML nvmlClocksEventReason*): GPU idle and
// application-clock setting are not throttling; the rest are.
constexpr uint64_t kReasonGpuIdle = 0x1;
constexpr uint64_t kReasonNotThrottle = 0x3;

// ValueAt: the latest valid sample of `s` at or before `ts` (NaN when none).
double ValueAt(const model::CounterSeries& s, int64_t ts) {
  auto it = std::upper_bound(s.ts_ns.begin(), s.ts_ns.end(), ts);
  while (it != s.ts_ns.begin()) {
    --it;
    double v = s.value[static_cast<size_t>(it - s.ts_ns.begin())];
    if (IsValid(v)) return v;
  }
  return kMissingF64;
}

const model::CounterSeries* Find(const model::Trace& t, model::CounterKind kind, int32_t dev) {
  const model::CounterSeries* best = nullptr;
  for (const model::CounterSeries& s : t.counters)
    if (s.kind == kind && s.device_id == dev && (best == nullptr || s.value.size() > best->value.size()))
      best = &s;
  return best;
}

}  // namespace

std::string FormatPeriod(int64_t ns) {
  if (!IsValid(ns)) return "an unknown period";
  char b[32];
  if (ns >= kNsPerS) {
    std::snprintf(b, sizeof b, "%.3g s", static_cast<double>(ns) / kNsPerS);
  } else {
    std::snprintf(b, sizeof b, "%.3g ms", static_cast<double>(ns) / kNsPerMs);
  }
  return b;
}

std::string SamplingPhrase(int64_t period_ns) {
  return IsValid(period_ns) ? "one sample every " + FormatPeriod(period_ns)
                            : std::string("no timestamps, period unknown");
}

SampledShape ShapeOf(const SampledDeviceStats& st) {
  if (!IsValid(st.under_10_ratio)) return SampledShape::kUnknown;
  if (st.over_90_ratio >= 0.5 && st.under_10_ratio < 0.25) return SampledShape::kMostlyBusy;
  if (st.under_10_ratio >= 0.15 && st.over_90_ratio >= 0.15) return SampledShape::kBursts;
  if (st.under_10_ratio >= 0.5) return SampledShape::kMostlyIdle;
  if (1.0 - st.under_10_ratio - st.over_90_ratio >= 0.5) return SampledShape::kMiddleBand;
  return SampledShape::kSpread;
}

std::string_view ShapePhrase(SampledShape s) {
  switch (s) {
    case SampledShape::kMostlyIdle:
      return "mostly idle: the job waits on the host (input, CPU work, syncs) or gives the GPU "
             "little work";
    case SampledShape::kBursts:
      return "bursts between idle stretches: a host-side wait (syncs, data loading, copies)";
    case SampledShape::kMiddleBand:
      return "a middle band: typical of many short kernels with launch gaps, or a slow host";
    case SampledShape::kMostlyBusy:
      return "mostly near 100%, with idle stretches between: the idle is in those stretches, "
             "not spread through the work";
    case SampledShape::kSpread:
      return "spread from idle to busy: no single band";
    case SampledShape::kUnknown: break;
  }
  return "shape unknown";
}

bool IsBusyNotWork(double util_ratio, double power_limit_ratio, double sm_clock_mhz,
                   double max_sm_clock_mhz) {
  if (!IsValid(util_ratio) || util_ratio < 0.90) return false;
  if (IsValid(power_limit_ratio) && power_limit_ratio <= 0.40) return true;
  return IsValid(sm_clock_mhz) && IsValid(max_sm_clock_mhz) && max_sm_clock_mhz >= 1000 &&
         sm_clock_mhz <= 0.35 * max_sm_clock_mhz;
}

std::vector<int32_t> CounterOnlyDevices(const model::Trace& trace, const Timeline& timeline) {
  std::set<int32_t> event_devices, out;
  for (const DeviceTimeline& d : timeline.devices) event_devices.insert(d.device_id);
  for (const model::CounterSeries& s : trace.counters)
    if (IsValid(s.device_id) && event_devices.count(s.device_id) == 0) out.insert(s.device_id);
  return {out.begin(), out.end()};
}

SampledDeviceStats ComputeSampledStats(const model::Trace& t, int32_t dev) {
  SampledDeviceStats st;
  st.device_id = dev;
  int64_t lo = kMissingI64, hi = kMissingI64;
  for (const model::CounterSeries& s : t.counters) {
    if (s.device_id != dev || s.ts_ns.empty() || s.ts_are_indexes) continue;
    int64_t end = s.ts_ns.back() + (IsValid(s.period_ns) ? s.period_ns : 0);
    lo = IsValid(lo) ? std::min(lo, s.ts_ns.front()) : s.ts_ns.front();
    hi = IsValid(hi) ? std::max(hi, end) : end;
  }
  if (IsValid(lo)) st.span_ns = hi - lo;

  const model::CounterSeries* util = Find(t, model::CounterKind::kGpuUtil, dev);
  if (util != nullptr) {
    st.period_ns = util->period_ns;
    st.util_source = std::string(t.Str(util->source));
    st.gpu_util_ratio = TimeWeightedMean(*util);
    int64_t under = 0, over = 0;
    for (double v : util->value) {
      if (!IsValid(v)) continue;
      ++st.util_samples;
      under += v < 0.10 ? 1 : 0;
      over += v > 0.90 ? 1 : 0;
    }
    if (st.util_samples > 0) {
      st.under_10_ratio = static_cast<double>(under) / static_cast<double>(st.util_samples);
      st.over_90_ratio = static_cast<double>(over) / static_cast<double>(st.util_samples);
    }
  }
  if (const auto* s = Find(t, model::CounterKind::kSmActive, dev)) st.sm_active_ratio = TimeWeightedMean(*s);
  if (const auto* s = Find(t, model::CounterKind::kDramActive, dev)) st.dram_active_ratio = TimeWeightedMean(*s);
  if (const auto* s = Find(t, model::CounterKind::kTensorActive, dev))
    st.tensor_active_ratio = TimeWeightedMean(*s);
  if (const auto* s = Find(t, model::CounterKind::kMemUtil, dev)) st.mem_util_ratio = TimeWeightedMean(*s);
  if (util != nullptr)
    for (double v : util->value)
      if (IsValid(v)) st.max_util_ratio = IsValid(st.max_util_ratio) ? std::max(st.max_util_ratio, v) : v;
  if (const auto* m = Find(t, model::CounterKind::kMemUsedBytes, dev)) {
    st.mem_used_mean_bytes = TimeWeightedMean(*m);
    for (double v : m->value)
      if (IsValid(v)) st.mem_used_max_bytes = IsValid(st.mem_used_max_bytes) ? std::max(st.mem_used_max_bytes, v) : v;
  }
  for (size_t i = 0; i < t.gpu_processes.size(); ++i)
    st.process_count += t.gpu_processes.device_id[i] == dev ? 1 : 0;
  if (const model::Device* d = t.FindDevice(dev)) st.name = std::string(t.Str(d->name));

  // Power against its limit, over the samples taken while the GPU was busy.
  const model::CounterSeries* power = Find(t, model::CounterKind::kPowerMw, dev);
  const model::CounterSeries* limit = Find(t, model::CounterKind::kPowerLimitMw, dev);
  if (power != nullptr && limit != nullptr) {
    double sum = 0;
    int64_t n = 0;
    for (size_t i = 0; i < power->value.size(); ++i) {
      double p = power->value[i];
      if (!IsValid(p)) continue;
      if (util != nullptr) {
        double u = ValueAt(*util, power->ts_ns[i]);
        if (!IsValid(u) || u < 0.5) continue;
      }
      double l = ValueAt(*limit, power->ts_ns[i]);
      if (!IsValid(l) || l <= 0) continue;
      sum += p / l;
      ++n;
    }
    if (n > 0) st.power_limit_ratio = sum / static_cast<double>(n);
  }

  // Busy that is not work, sample by sample (holds as in TimeWeightedMean()).
  if (util != nullptr && IsValid(util->period_ns) && util->period_ns > 0 && !util->ts_are_indexes) {
    const model::CounterSeries* clock = Find(t, model::CounterKind::kSmClockMhz, dev);
    double max_clock = kMissingF64;
    if (clock != nullptr)
      for (double v : clock->value)
        if (IsValid(v)) max_clock = IsValid(max_clock) ? std::max(max_clock, v) : v;
    const int64_t max_hold = MulSat(kMaxHoldPeriods, util->period_ns);
    double power_sum = 0, power_w = 0;
    const size_t n = util->value.size();
    for (size_t i = 0; i < n; ++i) {
      const double u = util->value[i];
      if (!IsValid(u)) continue;
      const int64_t ts = util->ts_ns[i];
      const int64_t hold =
          std::clamp<int64_t>(i + 1 < n ? util->ts_ns[i + 1] - ts : util->period_ns, 0, max_hold);
      st.observed_ns = AddSat(st.observed_ns, hold);
      if (u < 0.90) continue;
      st.busy90_ns = AddSat(st.busy90_ns, hold);
      double ratio = kMissingF64;
      if (power != nullptr && limit != nullptr) {
        const double p = ValueAt(*power, ts), l = ValueAt(*limit, ts);
        if (IsValid(p) && IsValid(l) && l > 0) ratio = p / l;
      }
      const double c = clock != nullptr ? ValueAt(*clock, ts) : kMissingF64;
      if (!IsBusyNotWork(u, ratio, c, max_clock)) continue;
      st.busy_not_work_ns = AddSat(st.busy_not_work_ns, hold);
      if (!(IsValid(ratio) && ratio <= 0.40))
        st.busy_not_work_clock_ns = AddSat(st.busy_not_work_clock_ns, hold);
      if (IsValid(ratio)) {
        power_sum += static_cast<double>(hold) * ratio;
        power_w += static_cast<double>(hold);
      }
    }
    if (power_w > 0) st.busy_not_work_power_ratio = power_sum / power_w;
  }

  // Clock-event reasons: the idle bit, and throttling while not idle.
  if (const auto* r = Find(t, model::CounterKind::kClockEventReasons, dev)) {
    int64_t idle = 0, throttled = 0;
    for (double v : r->value) {
      if (!IsValid(v) || v < 0) continue;
      auto bits = static_cast<uint64_t>(v);
      ++st.reason_samples;
      idle += (bits & kReasonGpuIdle) != 0 ? 1 : 0;
      throttled += (bits & ~kReasonNotThrottle) != 0 ? 1 : 0;
    }
    if (st.reason_samples > 0) {
      st.reason_idle_ratio = static_cast<double>(idle) / static_cast<double>(st.reason_samples);
      st.throttle_ratio = static_cast<double>(throttled) / static_cast<double>(st.reason_samples);
    }
  }
  return st;
}

bool IsUnusedGpu(const SampledDeviceStats& st) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return IsValid(st.gpu_util_ratio) && st.gpu_util_ratio < 0.02 && st.max_util_ratio < 0.10 &&
         st.process_count == 0 && (!IsValid(st.mem_used_max_bytes) || st.mem_used_max_bytes < kGiB);
}

std::string GpuLabel(const SampledDeviceStats& st) {
  std::string s = "GPU " + std::to_string(st.device_id);
  return st.name.empty() ? s : s + " (" + st.name + ")";
}

namespace {

std::string Gib(double bytes) {
  char b[32];
  if (bytes < 1024.0 * 1024.0 * 1024.0)
    std::snprintf(b, sizeof b, "%.0f MiB", bytes / (1024.0 * 1024.0));
  else
    std::snprintf(b, sizeof b, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return b;
}

// NodeFindings: idle.unused_gpu and imbalance.node_gpus over `all` (>= 2 GPUs).
// BusyNotWorkShare: the share of the sampled time `st` spent busy but not working.
double BusyNotWorkShare(const SampledDeviceStats& st) {
  return st.observed_ns > 0
             ? static_cast<double>(st.busy_not_work_ns) / static_cast<double>(st.observed_ns)
             : 0.0;
}

// Straggler: the working GPU the pinned-at-low-power ones wait for, or null.
// Pinned: busy-not-work >= 50% of the sampled time. The straggler: the least
// busy working GPU that is not pinned, >= 20 points under the pinned GPUs'
// mean GPU-Util; the pinned GPUs are more than the not-pinned working ones.
const SampledDeviceStats* Straggler(const std::vector<const SampledDeviceStats*>& working,
                                    std::vector<const SampledDeviceStats*>* pinned) {
  std::vector<const SampledDeviceStats*> free;
  for (const SampledDeviceStats* w : working)
    (BusyNotWorkShare(*w) >= 0.5 ? pinned : &free)->push_back(w);
  if (pinned->empty() || free.empty() ||
      free.size() >= pinned->size() + (pinned->size() == 1 ? 1 : 0))
    return nullptr;
  double mean = 0;
  for (const SampledDeviceStats* p : *pinned) mean += p->gpu_util_ratio;
  mean /= static_cast<double>(pinned->size());
  const SampledDeviceStats* low = nullptr;
  for (const SampledDeviceStats* f : free)
    if (low == nullptr || f->gpu_util_ratio < low->gpu_util_ratio) low = f;
  return mean - low->gpu_util_ratio >= 0.20 ? low : nullptr;
}

void NodeFindings(const DetectorInput& in, const std::vector<SampledDeviceStats>& all,
                  std::vector<Finding>& out) {
  std::vector<const SampledDeviceStats*> unused, working;
  const SampledDeviceStats* busiest = nullptr;
  int64_t span = kMissingI64;
  for (const SampledDeviceStats& st : all) {
    if (IsValid(st.span_ns)) span = IsValid(span) ? std::max(span, st.span_ns) : st.span_ns;
    if (!IsValid(st.gpu_util_ratio)) continue;
    if (IsUnusedGpu(st)) unused.push_back(&st);
    else working.push_back(&st);
    if (busiest == nullptr || st.gpu_util_ratio > busiest->gpu_util_ratio) busiest = &st;
  }
  const double n = static_cast<double>(all.size());
  auto base = [&](std::string id, Category c, std::string title, int32_t dev, double lost) {
    Finding f;
    f.id = std::move(id);
    f.category = c;
    f.rank = in.rank;
    f.device_id = dev;
    f.title = std::move(title);
    f.per_step_basis = false;
    f.lost_step_ratio = lost;
    if (IsValid(span)) f.lost_per_step_ns = std::llround(lost * static_cast<double>(span));
    f.severity = SeverityFromLoss(lost);
    return f;
  };

  if (!unused.empty() && busiest != nullptr && busiest->gpu_util_ratio >= 0.10) {
    std::string names;
    for (const SampledDeviceStats* u : unused) names += (names.empty() ? "" : ", ") + GpuLabel(*u);
    const double share = static_cast<double>(unused.size()) / n;
    Finding f = base("idle.unused_gpu", Category::kIdle, "A GPU of the node is never used",
                     unused.front()->device_id, share);
    const SampledDeviceStats& u0 = *unused.front();
    f.summary = names + (unused.size() > 1 ? " stayed" : " stayed") +
                " idle for the whole log (GPU-Util " + FormatPct(u0.gpu_util_ratio) +
                ", no process" +
                (IsValid(u0.mem_used_max_bytes) ? ", " + Gib(u0.mem_used_max_bytes) + " used" : std::string()) +
                ") while " + GpuLabel(*busiest) + " worked (GPU-Util " +
                FormatPct(busiest->gpu_util_ratio) + "): " + std::to_string(unused.size()) + " of " +
                std::to_string(all.size()) + " GPUs unused.";
    AddMetric(f, "unused_gpus", static_cast<double>(unused.size()), "count", "GPUs idle for the whole log");
    AddMetric(f, "node_gpus", n, "count", "GPUs in the log");
    AddMetric(f, "unused_ratio", share, "ratio", "share of the node's GPUs unused");
    AddMetric(f, "busiest_gpu_util_ratio", busiest->gpu_util_ratio, "ratio", "mean GPU-Util of the busiest GPU");
    for (const SampledDeviceStats* u : unused) {
      Example ex;
      ex.what = GpuLabel(*u);
      ex.device_id = u->device_id;
      ex.rank = in.rank;
      ex.detail = "GPU-Util " + FormatPct(u->gpu_util_ratio) + ", max " + FormatPct(u->max_util_ratio);
      if (f.examples.size() < 8) f.examples.push_back(std::move(ex));
    }
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "The job asked for " + std::to_string(all.size()) + " GPUs and uses " +
             std::to_string(all.size() - unused.size()) +
             ": request only the GPUs it uses, or make it use them all."});
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "A plain model.to('cuda') runs on cuda:0 only: for data parallelism launch one process "
         "per GPU (torchrun --nproc_per_node=N) with DistributedDataParallel and "
         "torch.cuda.set_device(local_rank)."});
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "Check CUDA_VISIBLE_DEVICES and the device each process picks: processes that all open "
         "cuda:0 leave the other GPUs idle."});
    f.caveats.push_back(
        "A GPU may be idle on purpose (reserved for another job or for evaluation); the log cannot "
        "tell.");
    out.push_back(std::move(f));
  }

  std::vector<const SampledDeviceStats*> pinned;
  const SampledDeviceStats* straggler = working.size() >= 2 ? Straggler(working, &pinned) : nullptr;
  if (straggler != nullptr) {
    double lost = 0, util = 0, power = 0, power_n = 0;
    for (const SampledDeviceStats* p : pinned) {
      lost += BusyNotWorkShare(*p);
      util += p->gpu_util_ratio;
      if (IsValid(p->busy_not_work_power_ratio)) {
        power += p->busy_not_work_power_ratio;
        ++power_n;
      }
    }
    lost /= n;
    util /= static_cast<double>(pinned.size());
    const double power_ratio = power_n > 0 ? power / power_n : kMissingF64;
    Finding f = base("imbalance.straggler", Category::kImbalance,
                     GpuLabel(*straggler) + " straggles; the other GPUs wait for it",
                     straggler->device_id, lost);
    const std::string others = pinned.size() == 1
                                   ? "GPU " + std::to_string(pinned.front()->device_id)
                                   : "the other " + std::to_string(pinned.size()) + " GPUs";
    f.summary =
        "GPU " + std::to_string(straggler->device_id) + " straggles: GPU-Util " +
        FormatPct(straggler->gpu_util_ratio) +
        (IsValid(straggler->power_limit_ratio)
             ? " at " + FormatPct(straggler->power_limit_ratio) + " of its power limit"
             : std::string()) +
        ", while " + others + " read " + FormatPct(util) + " busy" +
        (IsValid(power_ratio) ? " at only " + FormatPct(power_ratio) + " of their power limit"
                              : std::string(" with idle SM clocks")) +
        ": busy is not work there, they spin (in a collective such as an all-reduce) "
        "waiting for GPU " +
        std::to_string(straggler->device_id) + ".";
    AddMetric(f, "straggler_gpu_util_ratio", straggler->gpu_util_ratio, "ratio",
              "the straggler's mean GPU-Util");
    AddMetric(f, "waiting_gpus", static_cast<double>(pinned.size()), "count",
              "GPUs busy at low power");
    AddMetric(f, "waiting_gpu_util_ratio", util, "ratio", "their mean GPU-Util");
    AddMetric(f, "waiting_power_limit_ratio", power_ratio, "ratio",
              "their power / limit while busy");
    AddMetric(f, "node_gpus", n, "count", "GPUs in the log");
    Example ex;
    ex.what = GpuLabel(*straggler);
    ex.device_id = straggler->device_id;
    ex.rank = in.rank;
    ex.detail = "GPU-Util " + FormatPct(straggler->gpu_util_ratio) + " vs " + FormatPct(util) +
                " on the GPUs that wait";
    f.examples.push_back(std::move(ex));
    for (const SampledDeviceStats* p : pinned) {
      if (f.examples.size() >= 4) break;
      Example w;
      w.what = GpuLabel(*p) + " (waits)";
      w.device_id = p->device_id;
      w.rank = in.rank;
      w.detail = "GPU-Util " + FormatPct(p->gpu_util_ratio) + ", busy at low power " +
                 FormatPct(BusyNotWorkShare(*p)) + " of the time";
      f.examples.push_back(std::move(w));
    }
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "Find why GPU " + std::to_string(straggler->device_id) +
             "'s rank is slow: profile that rank (torch.profiler on it alone, then gpuwhy "
             "analyze): its input pipeline, a host-side step only it runs (logging, evaluation, "
             "checkpointing on rank 0), uneven batches or sequence lengths."});
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "Give every rank the same work (DistributedSampler, equal per-rank batch, length-"
         "bucketed batches) and keep rank-0-only work off the step."});
    f.recommendations.push_back(
        {FixKind::kHostSpeed,
         "Check that rank's host: CPU affinity / NUMA binding, DataLoader workers, and the "
         "GPU's own clocks (throttling) and PCIe/NVLink link."});
    f.caveats.push_back(
        "Counters show who waits (busy at low power) but not in which call; a trace of two ranks "
        "would show the collective.");
    out.push_back(std::move(f));
  }

  if (working.size() >= 2 && straggler == nullptr) {
    const SampledDeviceStats* lo = working.front();
    const SampledDeviceStats* hi = working.front();
    const SampledDeviceStats* mem_lo = nullptr;
    const SampledDeviceStats* mem_hi = nullptr;
    for (const SampledDeviceStats* w : working) {
      if (w->gpu_util_ratio < lo->gpu_util_ratio) lo = w;
      if (w->gpu_util_ratio > hi->gpu_util_ratio) hi = w;
      if (!IsValid(w->mem_used_mean_bytes)) continue;
      if (mem_lo == nullptr || w->mem_used_mean_bytes < mem_lo->mem_used_mean_bytes) mem_lo = w;
      if (mem_hi == nullptr || w->mem_used_mean_bytes > mem_hi->mem_used_mean_bytes) mem_hi = w;
    }
    const double spread = hi->gpu_util_ratio - lo->gpu_util_ratio;
    const bool mem_uneven = mem_lo != nullptr && mem_hi != mem_lo &&
                            mem_hi->mem_used_mean_bytes >= 2.0 * 1024 * 1024 * 1024 &&
                            mem_hi->mem_used_mean_bytes >= 2.0 * std::max(mem_lo->mem_used_mean_bytes, 1.0);
    if (spread >= 0.20 || mem_uneven) {
      double lost = 0;
      for (const SampledDeviceStats* w : working) lost += hi->gpu_util_ratio - w->gpu_util_ratio;
      lost /= n;
      Finding f = base("imbalance.node_gpus", Category::kImbalance, "Uneven load across the node's GPUs",
                       lo->device_id, lost);
      std::string list;
      for (const SampledDeviceStats* w : working) {
        if (!list.empty()) list += ", ";
        list += "GPU " + std::to_string(w->device_id) + " " + FormatPct(w->gpu_util_ratio);
      }
      f.summary = "GPU-Util differs across the node's GPUs: " + list + " (spread " +
                  std::to_string(std::lround(spread * 100)) + " points)";
      if (mem_uneven)
        f.summary += "; memory used " + Gib(mem_hi->mem_used_mean_bytes) + " on GPU " +
                     std::to_string(mem_hi->device_id) + " vs " + Gib(mem_lo->mem_used_mean_bytes) +
                     " on GPU " + std::to_string(mem_lo->device_id);
      f.summary += ".";
      AddMetric(f, "util_spread_ratio", spread, "ratio", "busiest minus least busy GPU-Util");
      AddMetric(f, "max_gpu_util_ratio", hi->gpu_util_ratio, "ratio", "busiest GPU's mean GPU-Util");
      AddMetric(f, "min_gpu_util_ratio", lo->gpu_util_ratio, "ratio", "least busy GPU's mean GPU-Util");
      if (mem_uneven) {
        AddMetric(f, "max_mem_used_bytes", mem_hi->mem_used_mean_bytes, "bytes", "fullest GPU, mean used");
        AddMetric(f, "min_mem_used_bytes", mem_lo->mem_used_mean_bytes, "bytes", "emptiest GPU, mean used");
      }
      AddMetric(f, "working_gpus", static_cast<double>(working.size()), "count", "GPUs with work");
      Example ex;
      ex.what = GpuLabel(*lo);
      ex.device_id = lo->device_id;
      ex.rank = in.rank;
      ex.detail = "GPU-Util " + FormatPct(lo->gpu_util_ratio) + " vs " + FormatPct(hi->gpu_util_ratio) +
                  " on GPU " + std::to_string(hi->device_id);
      f.examples.push_back(std::move(ex));
      f.recommendations.push_back(
          {FixKind::kLoadBalance,
           "In one data-parallel job every GPU waits for the slowest at each all-reduce: give each "
           "rank the same work (DistributedSampler, equal batch per rank) and keep logging, "
           "evaluation and checkpointing off the critical path of rank 0."});
      f.recommendations.push_back(
          {FixKind::kLoadBalance,
           "Model / pipeline parallelism: rebalance the layers or stages so each GPU holds a similar "
           "share of the compute and memory."});
      f.recommendations.push_back(
          {FixKind::kHostSpeed,
           "If these are separate jobs, the low GPU is starved by its own input pipeline or host: "
           "profile that job (torch.profiler, then gpuwhy analyze)."});
      f.caveats.push_back(
          "Sampled GPU-Util says how often a kernel ran, not how much work it did; a GPU can read "
          "busy while waiting in a collective.");
      out.push_back(std::move(f));
    }
  }
}

// FormatLogSpan: a duration for prose, minutes past 2 min ("7.6 min").
std::string FormatLogSpan(int64_t ns) {
  if (ns < 120 * kNsPerS) return FormatMs(ns);
  char b[32];
  const double min = static_cast<double>(ns) / (60.0 * kNsPerS);
  if (min < 120)
    std::snprintf(b, sizeof b, "%.1f min", min);
  else
    std::snprintf(b, sizeof b, "%.1f h", min / 60.0);
  return b;
}

std::string PidList(const std::vector<int32_t>& pids) {
  std::string out;
  for (size_t i = 0; i < pids.size() && i < 4; ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(pids[i]);
  if (pids.size() > 4) out += ", ...";
  return (pids.size() == 1 ? "pid " : "pids ") + out;
}

// HoleNote: what the monitoring holes of `ph` leave out, or "".
std::string HoleNote(const CounterPhases& ph) {
  if (ph.holes.empty()) return {};
  return "The log has " + std::to_string(ph.holes.size()) + " monitoring hole" +
         (ph.holes.size() == 1 ? "" : "s") + " (" + FormatLogSpan(ph.hole_ns) +
         " with samples more than " + std::to_string(kMaxHoldPeriods) +
         " periods apart); holes are counted neither busy nor idle.";
}

// PhaseFindings: the one-off phases and the periodic dips of one device.
// Returns the no-kernel time they explain (ns), which idle.sampled leaves out.
int64_t PhaseFindings(const DetectorInput& in, const SampledDeviceStats& st,
                      const CounterPhases& ph, std::vector<Finding>& out) {
  if (ph.phases.empty() || ph.observed_ns <= 0) return 0;
  const CounterPhase* main = ph.main_work < ph.phases.size() ? &ph.phases[ph.main_work] : nullptr;
  // A log whose best work stretch stays under 25% GPU-Util is idle as a
  // whole: its quiet stretches are not phases of real work (idle.sampled).
  if (main == nullptr || main->util_ratio < 0.25) return 0;
  const auto total = static_cast<double>(ph.observed_ns);
  const std::string holes = HoleNote(ph);
  int64_t explained = 0;
  auto make = [&](std::string id, std::string title, int64_t lost_ns) {
    Finding f;
    f.id = std::move(id);
    f.category = Category::kIdle;
    f.rank = in.rank;
    f.device_id = st.device_id;
    f.title = std::move(title);
    f.per_step_basis = false;
    f.lost_per_step_ns = lost_ns;
    f.lost_step_ratio = static_cast<double>(lost_ns) / total;
    f.severity = SeverityFromLoss(f.lost_step_ratio);
    if (!holes.empty()) f.notes.push_back(holes);
    return f;
  };
  auto share = [&](int64_t ns) { return FormatPct(static_cast<double>(ns) / total); };

  // Set-up: every idle stretch before a work phase, the longest named.
  int64_t setup_idle = 0, setup_obs = 0, loading = 0, no_proc = 0;
  const CounterPhase* worst = nullptr;
  size_t worst_at = 0, setups = 0;
  for (size_t i = 0; i < ph.phases.size(); ++i) {
    const CounterPhase& p = ph.phases[i];
    if (p.kind != PhaseKind::kSetup) continue;
    ++setups;
    setup_idle = AddSat(setup_idle, p.idle_ns);
    setup_obs = AddSat(setup_obs, p.observed_ns);
    loading = AddSat(loading, p.loading_ns);
    no_proc = AddSat(no_proc, p.no_process_ns);
    if (worst == nullptr || p.idle_ns > worst->idle_ns) {
      worst = &p;
      worst_at = i;
    }
  }
  if (worst != nullptr) {
    explained = AddSat(explained, setup_idle);
    const CounterPhase* next = worst_at + 1 < ph.phases.size() ? &ph.phases[worst_at + 1] : nullptr;
    const CounterPhase* prev = worst_at > 0 ? &ph.phases[worst_at - 1] : nullptr;
    Finding f =
        make("phase.setup", "Set-up before the work starts (start-up, loading)", setup_idle);
    std::string who =
        next != nullptr && !next->pids.empty() ? " of " + PidList(next->pids) : std::string();
    const int64_t wall = AddSat(worst->end_ns, -worst->start_ns);
    f.summary = "Set-up: the GPU sat idle " + FormatLogSpan(worst->observed_ns) + " (" +
                share(worst->observed_ns) + " of the sampled time, GPU-Util " +
                FormatPct(worst->util_ratio) + ") before the work" + who + " started" +
                (wall > MulSat(2, worst->observed_ns) ? " (a stretch of " + FormatLogSpan(wall) +
                                                            " of wall time, part of it unsampled)"
                                                      : std::string());
    std::vector<std::string> parts;
    if (worst->no_process_ns > 0)
      parts.push_back(
          FormatLogSpan(worst->no_process_ns) + " with no process on the GPU" +
          (prev != nullptr && !prev->pids.empty()
               ? " after " + PidList(prev->pids) + " ended (the next job starting on the host)"
               : std::string(" (the job starting on the host: imports, data preparation; "
                             "or the log began before it)")));
    if (worst->loading_ns > 0)
      parts.push_back(FormatLogSpan(worst->loading_ns) + " with a process holding memory" +
                      (IsValid(worst->loading_peak_bytes)
                           ? " (up to " + Gib(worst->loading_peak_bytes) + ")"
                           : std::string()) +
                      " at ~0% GPU-Util (loading the model and data)");
    for (size_t i = 0; i < parts.size(); ++i) f.summary += (i == 0 ? ": " : ", then ") + parts[i];
    f.summary += ". A one-off cost, not a per-step one";
    if (main != nullptr)
      f.summary += "; the main work phase then runs at GPU-Util " + FormatPct(main->util_ratio);
    f.summary += ".";
    if (setups > 1)
      f.notes.push_back(std::to_string(setups) + " set-up phases in the log, " +
                        FormatLogSpan(setup_obs) + " in all.");
    AddMetric(f, "setup_ns", static_cast<double>(worst->observed_ns), "ns", "longest set-up phase");
    AddMetric(f, "setup_idle_ns", static_cast<double>(setup_idle), "ns", "idle in set-up phases");
    AddMetric(f, "loading_ns", static_cast<double>(loading), "ns", "memory held at ~0% GPU-Util");
    AddMetric(f, "no_process_ns", static_cast<double>(no_proc), "ns", "no process on the GPU");
    AddMetric(f, "setup_phases", static_cast<double>(setups), "count", "set-up phases");
    Example ex;
    ex.what = "set-up";
    ex.start_ns = worst->start_ns;
    ex.dur_ns = AddSat(worst->end_ns, -worst->start_ns);
    ex.device_id = st.device_id;
    ex.rank = in.rank;
    ex.detail = "GPU-Util " + FormatPct(worst->util_ratio) +
                (IsValid(worst->mem_used_bytes) ? ", " + Gib(worst->mem_used_bytes) + " used"
                                                : std::string());
    f.examples.push_back(std::move(ex));
    f.recommendations.push_back(
        {FixKind::kSteadyState,
         "Judge the training loop on its own: the set-up is paid once per run. Profile or "
         "sample the steady work (skip the first minutes), and weigh this cost against the "
         "run's length."});
    f.recommendations.push_back(
        {FixKind::kHostSpeed,
         "Shorten start-up: cache preprocessed data, load checkpoints with memory mapping "
         "(safetensors), keep a warm torch.compile cache, start data loading workers before the "
         "model is built."});
    out.push_back(std::move(f));
  }

  // Pauses and the idle tail.
  for (PhaseKind kind : {PhaseKind::kPause, PhaseKind::kIdleTail}) {
    int64_t idle = 0, obs = 0;
    size_t count = 0;
    const CounterPhase* longest = nullptr;
    for (const CounterPhase& p : ph.phases) {
      if (p.kind != kind) continue;
      ++count;
      idle = AddSat(idle, p.idle_ns);
      obs = AddSat(obs, p.observed_ns);
      if (longest == nullptr || p.observed_ns > longest->observed_ns) longest = &p;
    }
    if (longest == nullptr) continue;
    explained = AddSat(explained, idle);
    const bool tail = kind == PhaseKind::kIdleTail;
    Finding f =
        make(tail ? "phase.idle_tail" : "phase.pause",
             tail ? "Idle tail after the work ended" : "The work pauses: idle between work phases",
             idle);
    const bool held = !longest->pids.empty();
    if (tail)
      f.summary = "After the last work phase the GPU sat idle " + FormatLogSpan(obs) + " (" +
                  share(obs) + " of the sampled time)" +
                  (held ? ", " + PidList(longest->pids) + " still holding " +
                              (IsValid(longest->mem_used_bytes) ? Gib(longest->mem_used_bytes)
                                                                : std::string("memory")) +
                              ": teardown, a final evaluation or save, or a process left waiting"
                        : ", with no process on it: the job ended and the log ran on") +
                  ".";
    else
      f.summary =
          (count == 1 ? "The work stopped once for " + FormatLogSpan(obs)
                      : "The work stopped " + std::to_string(count) + " times, " +
                            FormatLogSpan(obs) + " in all") +
          " (" + share(obs) + " of the sampled time" +
          (count == 1 ? std::string() : "; the longest " + FormatLogSpan(longest->observed_ns)) +
          (ph.has_processes ? std::string(") with the same processes on the GPU")
                            : std::string("; the log names no processes)")) +
          ": the host works between the bursts (evaluation on the CPU, checkpoint saving, "
          "data preparation) or stalls.";
    if (!tail)
      AddMetric(f, "pauses", static_cast<double>(count), "count", "idle stretches between work");
    AddMetric(f, tail ? "tail_ns" : "pause_ns", static_cast<double>(obs), "ns", "sampled time");
    Example ex;
    ex.what = PhaseKindName(kind);
    ex.start_ns = longest->start_ns;
    ex.dur_ns = AddSat(longest->end_ns, -longest->start_ns);
    ex.device_id = st.device_id;
    ex.rank = in.rank;
    ex.detail = "GPU-Util " + FormatPct(longest->util_ratio);
    f.examples.push_back(std::move(ex));
    f.recommendations.push_back(
        tail ? Recommendation{FixKind::kSteadyState,
                              "Release the GPU when the work ends (exit the process, or free the "
                              "allocation); stop the log with the job so the tail does not "
                              "dilute the figures."}
             : Recommendation{FixKind::kHostSpeed,
                              "If the pause is evaluation or checkpointing: run evaluation on the "
                              "GPU in larger batches, save checkpoints asynchronously "
                              "(torch.distributed.checkpoint async_save, a background thread)."});
    out.push_back(std::move(f));
  }

  // Periodic dips inside the main work phase.
  if (IsValid(ph.dip_period_ns) && main != nullptr) {
    int64_t idle = 0, dur = 0;
    double lowest = 1.0;
    for (const CounterDip& d : ph.dips) {
      idle = AddSat(idle, d.idle_ns);
      dur = AddSat(dur, d.dur_ns);
      lowest = std::min(lowest, d.min_util_ratio);
    }
    explained = AddSat(explained, idle);
    Finding f = make("phase.periodic_dips",
                     "Periodic dips in the work (evaluation, checkpoint, logging)", idle);
    const int64_t each =
        dur / static_cast<int64_t>(ph.dips.size());  // dips is not empty: a period needs >= 3
    f.summary = "GPU-Util drops (down to " + FormatPct(lowest) + ") for ~" + FormatLogSpan(each) +
                " every ~" + FormatLogSpan(ph.dip_period_ns) + " inside the main work phase (" +
                std::to_string(ph.dips.size()) + " dips, " + share(idle) +
                " of the sampled time): a periodic host-side task, such as evaluation, "
                "checkpointing or logging.";
    AddMetric(f, "dip_period_ns", static_cast<double>(ph.dip_period_ns), "ns", "time between dips");
    AddMetric(f, "dips", static_cast<double>(ph.dips.size()), "count", "dips");
    AddMetric(f, "dip_ns", static_cast<double>(each), "ns", "mean dip length");
    for (const CounterDip& d : ph.dips) {
      if (f.examples.size() >= 5) break;
      Example ex;
      ex.what = "dip";
      ex.start_ns = d.start_ns;
      ex.dur_ns = d.dur_ns;
      ex.device_id = st.device_id;
      ex.rank = in.rank;
      ex.detail = "GPU-Util down to " + FormatPct(d.min_util_ratio);
      f.examples.push_back(std::move(ex));
    }
    f.recommendations.push_back(
        {FixKind::kFewerSyncs,
         "Match the period to what the job does every N steps (evaluation, checkpoint, logging "
         "of metrics): make it asynchronous or less frequent."});
    out.push_back(std::move(f));
  }
  return explained;
}

}  // namespace

std::vector<Finding> DetectFromCounters(const DetectorInput& in) {
  std::vector<Finding> out;
  std::vector<SampledDeviceStats> all;
  for (int32_t dev : CounterOnlyDevices(in.trace, in.timeline))
    all.push_back(ComputeSampledStats(in.trace, dev));
  bool any_working = false;
  for (const SampledDeviceStats& st : all)
    any_working = any_working || (IsValid(st.gpu_util_ratio) && st.gpu_util_ratio >= 0.10);
  // GPUs that wait for a straggler: their busy-not-work is told by the node finding.
  std::vector<int32_t> waiting;
  if (all.size() >= 2) {
    std::vector<const SampledDeviceStats*> working, pinned;
    for (const SampledDeviceStats& st : all)
      if (IsValid(st.gpu_util_ratio) && !IsUnusedGpu(st)) working.push_back(&st);
    if (working.size() >= 2 && Straggler(working, &pinned) != nullptr)
      for (const SampledDeviceStats* p : pinned) waiting.push_back(p->device_id);
  }
  for (const SampledDeviceStats& st : all) {
    const int32_t dev = st.device_id;
    // An unused GPU beside a working one is reported once, as idle.unused_gpu.
    const bool unused = all.size() >= 2 && any_working && IsUnusedGpu(st);
    auto base = [&](std::string id, Category c, std::string title) {
      Finding f;
      f.id = std::move(id);
      f.category = c;
      f.rank = in.rank;
      f.device_id = dev;
      f.title = std::move(title);
      f.per_step_basis = false;
      return f;
    };
    auto loss = [&](Finding& f, double ratio) {
      f.lost_step_ratio = ratio;
      if (IsValid(st.span_ns)) f.lost_per_step_ns = std::llround(ratio * static_cast<double>(st.span_ns));
      f.severity = SeverityFromLoss(ratio);
    };
    const std::string at = " (" + st.util_source + ", " + SamplingPhrase(st.period_ns) + ")";

    // The log as a run: one-off phases and periodic dips, each its own finding.
    const CounterPhases ph = unused ? CounterPhases{} : FindCounterPhases(in.trace, dev);
    const int64_t explained = PhaseFindings(in, st, ph, out);
    const CounterPhase* work = ph.main_work < ph.phases.size() && ph.phases.size() > 1
                                   ? &ph.phases[ph.main_work]
                                   : nullptr;

    // Idle from GPU-Util, inside the work (what the phases do not explain).
    double idle = IsValid(st.gpu_util_ratio) ? 1.0 - st.gpu_util_ratio : kMissingF64;
    if (IsValid(idle) && explained > 0 && ph.observed_ns > 0)
      idle = std::max(0.0,
                      idle - static_cast<double>(explained) / static_cast<double>(ph.observed_ns));
    if (!unused && IsValid(idle) && idle >= 0.10) {
      Finding f = base("idle.sampled", Category::kIdle,
                       explained > 0 ? "GPU idle inside the work (sampled GPU-Util)"
                                     : "GPU idle between kernels (sampled GPU-Util)");
      loss(f, idle);
      if (IsValid(st.span_ns) && ph.observed_ns > 0)
        f.lost_per_step_ns = std::llround(idle * static_cast<double>(ph.observed_ns));
      const SampledShape shape = ShapeOf(st);
      const bool bursts = shape == SampledShape::kBursts || shape == SampledShape::kMostlyIdle ||
                          shape == SampledShape::kMostlyBusy;
      if (explained > 0 && work != nullptr)
        f.summary =
            "Inside the work, besides the one-off phases and periodic dips (their own "
            "findings), no kernel ran " +
            FormatPct(idle) + " of the sampled time" + at +
            "; the main work phase averages GPU-Util " + FormatPct(work->util_ratio) + ".";
      else
        f.summary = "GPU-Util averages " + FormatPct(st.gpu_util_ratio) + at + ": no kernel ran " +
                    FormatPct(idle) + " of the time; " + FormatPct(st.under_10_ratio) +
                    " of samples are under 10% and " + FormatPct(st.over_90_ratio) + " over 90%.";
      AddMetric(f, "gpu_util_ratio", st.gpu_util_ratio, "ratio", "mean GPU-Util");
      AddMetric(f, "idle_ratio", idle, "ratio", "time with no kernel running");
      AddMetric(f, "under_10_ratio", st.under_10_ratio, "ratio", "samples under 10%");
      AddMetric(f, "over_90_ratio", st.over_90_ratio, "ratio", "samples over 90%");
      AddMetric(f, "sample_period_ns", static_cast<double>(st.period_ns), "ns", "sample period");
      AddMetric(f, "samples", static_cast<double>(st.util_samples), "count", "GPU-Util samples");
      if (bursts) {
        f.recommendations.push_back(
            {FixKind::kFewerSyncs,
             "Bursts between idle stretches point at the host: look for per-step syncs "
             "(loss.item(), print of a tensor, .cpu()) and log every N steps instead."});
        f.recommendations.push_back(
            {FixKind::kDataLoaderWorkers,
             "If the input pipeline is the wait: DataLoader(num_workers>0, pin_memory=True, "
             "persistent_workers=True) and .to(device, non_blocking=True)."});
      } else {
        f.recommendations.push_back(
            {FixKind::kBiggerBatch,
             "A middle band of GPU-Util usually means many short kernels with launch gaps: try a "
             "larger batch, torch.compile, or CUDA graphs."});
      }
      f.recommendations.push_back(
          {FixKind::kHostSpeed,
           "Name the cause: record a few steps with torch.profiler (or nsys) and run "
           "`gpuwhy analyze` on the trace; counters alone cannot say which call blocks."});
      const std::string holes = HoleNote(ph);
      if (!holes.empty()) f.notes.push_back(holes);
      out.push_back(std::move(f));
    }

    // Busy but few SMs active.
    // While a kernel runs (GPU-Util), are the SMs busy? SM active under half
    // of GPU-Util means the running kernels leave most SMs idle.
    if (IsValid(st.gpu_util_ratio) && st.gpu_util_ratio >= 0.30 && IsValid(st.sm_active_ratio) &&
        st.sm_active_ratio < 0.5 * st.gpu_util_ratio) {
      const bool mem = IsValid(st.dram_active_ratio) && st.dram_active_ratio >= 0.5;
      Finding f = base(mem ? "kernel_efficiency.memory_bound" : "kernel_efficiency.low_sm_activity",
                       Category::kKernelEfficiency,
                       mem ? "Memory-bound: DRAM busy, SMs mostly waiting"
                           : "GPU-Util is high but few SMs are active");
      // Upper bound: the busy time the SMs sat idle.
      loss(f, std::max(0.0, st.gpu_util_ratio - st.sm_active_ratio));
      f.summary = "GPU-Util " + FormatPct(st.gpu_util_ratio) + " but SM active only " +
                  FormatPct(st.sm_active_ratio) + " (" +
                  FormatPct(st.sm_active_ratio / st.gpu_util_ratio) + " of SMs while busy)" +
                  (mem ? ", with DRAM active " + FormatPct(st.dram_active_ratio) : std::string()) +
                  ": a kernel is running, but on few SMs or stalled.";
      AddMetric(f, "gpu_util_ratio", st.gpu_util_ratio, "ratio", "mean GPU-Util");
      AddMetric(f, "sm_active_ratio", st.sm_active_ratio, "ratio", "SM active (counters)");
      AddMetric(f, "dram_active_ratio", st.dram_active_ratio, "ratio", "DRAM active (counters)");
      AddMetric(f, "tensor_active_ratio", st.tensor_active_ratio, "ratio", "tensor pipe active");
      if (mem)
        f.recommendations.push_back(
            {FixKind::kFusion,
             "Fuse elementwise chains (torch.compile) so data is read once; use bf16/fp16 to halve "
             "the bytes moved."});
      f.recommendations.push_back(
          {FixKind::kBiggerBatch,
           "Small grids leave SMs idle: raise the batch size or fuse small kernels."});
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Profile the top kernels with Nsight Compute to see what they wait on."});
      out.push_back(std::move(f));
    } else if (IsValid(st.dram_active_ratio) && st.dram_active_ratio >= 0.5 &&
               IsValid(st.sm_active_ratio) && st.sm_active_ratio < 0.5) {
      Finding f = base("kernel_efficiency.memory_bound", Category::kKernelEfficiency,
                       "Memory-bound: DRAM busy, SMs mostly waiting");
      f.severity = Severity::kMedium;
      f.summary = "DRAM active " + FormatPct(st.dram_active_ratio) + " with SM active " +
                  FormatPct(st.sm_active_ratio) + ": kernels are limited by memory bandwidth.";
      AddMetric(f, "dram_active_ratio", st.dram_active_ratio, "ratio", "DRAM active (counters)");
      AddMetric(f, "sm_active_ratio", st.sm_active_ratio, "ratio", "SM active (counters)");
      f.recommendations.push_back(
          {FixKind::kFusion, "Fuse elementwise chains (torch.compile); use bf16/fp16 activations."});
      out.push_back(std::move(f));
    }

    // Busy that is not work: GPU-Util pinned high while power (or the SM
    // clock) says the chip does little. A GPU that waits for a straggler is
    // told by the node finding instead.
    const bool waits = std::find(waiting.begin(), waiting.end(), dev) != waiting.end();
    if (!waits && st.observed_ns > 0 && st.busy90_ns > 0 &&
        static_cast<double>(st.busy_not_work_ns) >= 0.10 * static_cast<double>(st.busy90_ns) &&
        static_cast<double>(st.busy_not_work_ns) >= 0.01 * static_cast<double>(st.observed_ns)) {
      const double share =
          static_cast<double>(st.busy_not_work_ns) / static_cast<double>(st.observed_ns);
      const bool by_power = IsValid(st.busy_not_work_power_ratio);
      Finding f = base("kernel_efficiency.busy_not_work", Category::kKernelEfficiency,
                       "Busy is not work: GPU-Util is pinned high while the GPU does little");
      loss(f, share);
      f.lost_per_step_ns = st.busy_not_work_ns;
      f.summary =
          "GPU-Util reads 90% or more while " +
          (by_power ? "power is only " + FormatPct(st.busy_not_work_power_ratio) + " of the limit"
                    : std::string("the SM clock idles")) +
          " for " + FormatLogSpan(st.busy_not_work_ns) + " (" + FormatPct(share) +
          " of the sampled time, " +
          FormatPct(static_cast<double>(st.busy_not_work_ns) / static_cast<double>(st.busy90_ns)) +
          " of the busy samples): a kernel is scheduled but keeps little of the chip "
          "working: spinning or waiting (a collective waiting for another rank, a "
          "device-side wait), or tiny latency-bound kernels" +
          at + ".";
      AddMetric(f, "gpu_util_ratio", st.gpu_util_ratio, "ratio", "mean GPU-Util");
      AddMetric(f, "busy_not_work_ns", static_cast<double>(st.busy_not_work_ns), "ns",
                "time at GPU-Util >= 90% and low power or idle clock");
      AddMetric(f, "busy_ns", static_cast<double>(st.busy90_ns), "ns", "time at GPU-Util >= 90%");
      AddMetric(f, "power_limit_ratio", st.busy_not_work_power_ratio, "ratio",
                "power / limit in those samples");
      AddMetric(f, "clock_only_ns", static_cast<double>(st.busy_not_work_clock_ns), "ns",
                "told by an idle SM clock alone");
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Profile a few steps (torch.profiler or nsys, then gpuwhy analyze): the trace shows "
           "which kernels run while the GPU reads busy, their grids and blocks, and whether they "
           "wait in NCCL."});
      f.recommendations.push_back(
          {FixKind::kBiggerBatch,
           "Tiny kernels keep GPU-Util high with little work: larger batches, fused kernels "
           "(torch.compile) or CUDA graphs fill more SMs per launch."});
      f.recommendations.push_back(
          {FixKind::kMixedPrecision,
           "Check that matmuls use tensor cores (bf16 autocast or TF32); fp32 GEMMs draw little "
           "power per unit of time."});
      f.caveats.push_back(
          "GPU-Util counts time with any kernel scheduled, not SMs busy; SM-active and tensor "
          "counters (DCGM profiling fields, GPM on Hopper) would measure the work directly.");
      out.push_back(std::move(f));
    }

    // Throttling from clock-event reasons.
    if (IsValid(st.throttle_ratio) && st.throttle_ratio >= 0.05) {
      Finding f = base("kernel_efficiency.throttling", Category::kKernelEfficiency,
                       "Clocks throttled (clock-event reasons)");
      f.severity = st.throttle_ratio >= 0.25 ? Severity::kHigh : Severity::kMedium;
      f.summary = FormatPct(st.throttle_ratio) +
                  " of the clock-event samples report power, thermal or slowdown reasons.";
      AddMetric(f, "throttle_sample_ratio", st.throttle_ratio, "ratio",
                "samples with throttle reasons");
      AddMetric(f, "reason_samples", static_cast<double>(st.reason_samples), "count",
                "clock-event reason samples");
      f.recommendations.push_back(
          {FixKind::kCooling,
           "Check power and thermal limits (nvidia-smi -q -d PERFORMANCE,POWER): cooling, power "
           "cap, or application clocks."});
      f.caveats.push_back("Clock-event reasons need driver support and are sampled.");
      out.push_back(std::move(f));
    }
  }
  if (all.size() >= 2) NodeFindings(in, all, out);
  return out;
}

}  // namespace gpuwhy::analysis::detectors
