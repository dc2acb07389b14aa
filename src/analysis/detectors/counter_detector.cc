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

std::vector<Finding> DetectFromCounters(const DetectorInput& in) {
  std::vector<Finding> out;
  for (int32_t dev : CounterOnlyDevices(in.trace, in.timeline)) {
    const SampledDeviceStats st = ComputeSampledStats(in.trace, dev);
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
    if (IsValid(st.gpu_util_ratio) && 1.0 - st.gpu_util_ratio >= 0.10) {
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
  return out;
}

}  // namespace gpuwhy::analysis::detectors
