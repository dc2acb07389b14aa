#include "analysis/detectors/counter_detector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

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
  if (st.under_10_ratio >= 0.15 && st.over_90_ratio >= 0.15) return SampledShape::kBursts;
  if (st.under_10_ratio >= 0.5) return SampledShape::kMostlyIdle;
  return SampledShape::kMiddleBand;
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
    case SampledShape::kUnknown: break;
  }
  return "shape unknown";
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

  if (working.size() >= 2) {
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

}  // namespace

std::vector<Finding> DetectFromCounters(const DetectorInput& in) {
  std::vector<Finding> out;
  std::vector<SampledDeviceStats> all;
  for (int32_t dev : CounterOnlyDevices(in.trace, in.timeline))
    all.push_back(ComputeSampledStats(in.trace, dev));
  bool any_working = false;
  for (const SampledDeviceStats& st : all)
    any_working = any_working || (IsValid(st.gpu_util_ratio) && st.gpu_util_ratio >= 0.10);
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

    // Idle from GPU-Util.
    if (!unused && IsValid(st.gpu_util_ratio) && 1.0 - st.gpu_util_ratio >= 0.10) {
      const double idle = 1.0 - st.gpu_util_ratio;
      Finding f = base("idle.sampled", Category::kIdle, "GPU idle between kernels (sampled GPU-Util)");
      loss(f, idle);
      const SampledShape shape = ShapeOf(st);
      const bool bursts = shape == SampledShape::kBursts || shape == SampledShape::kMostlyIdle;
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

    // Busy at low power: kernels that do little work per unit time.
    if (IsValid(st.gpu_util_ratio) && st.gpu_util_ratio >= 0.80 && IsValid(st.power_limit_ratio) &&
        st.power_limit_ratio < 0.5) {
      Finding f = base("kernel_efficiency.low_power", Category::kKernelEfficiency,
                       "GPU-Util is high but power is low");
      f.severity = Severity::kMedium;
      f.summary = "GPU-Util " + FormatPct(st.gpu_util_ratio) + " while drawing " +
                  FormatPct(st.power_limit_ratio) +
                  " of the power limit: the running kernels keep little of the chip busy.";
      AddMetric(f, "gpu_util_ratio", st.gpu_util_ratio, "ratio", "mean GPU-Util");
      AddMetric(f, "power_limit_ratio", st.power_limit_ratio, "ratio", "power / limit while busy");
      f.recommendations.push_back(
          {FixKind::kMixedPrecision,
           "Check that matmuls use tensor cores (bf16 autocast or TF32); fp32 GEMMs draw little "
           "power per unit of time."});
      f.recommendations.push_back(
          {FixKind::kBiggerBatch, "Larger batches or fused kernels fill more SMs per launch."});
      f.caveats.push_back("Check accuracy when turning on mixed precision or TF32.");
      f.caveats.push_back(
          "SM-active and tensor counters (DCGM profiling fields, GPM on Hopper) would confirm "
          "this; they need driver support.");
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
