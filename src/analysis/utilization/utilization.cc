#include "analysis/utilization/utilization.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "analysis/gpu_arch/arch_limits.h"
#include "analysis/gpu_arch/occupancy_calculator.h"
#include "analysis/steps/run_phases.h"
#include "analysis/utilization/intervals.h"
#include "analysis/utilization/kernel_fill.h"

namespace gpuwhy::analysis {
namespace {

constexpr const char* kTraceTimeline = "trace: kernel timeline";
constexpr const char* kTraceLaunch = "trace: launch config";
constexpr const char* kTraceNames = "trace: kernel names";

double MeanValid(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v) {
    if (IsValid(x)) {
      s += x;
      ++n;
    }
  }
  return n ? s / n : kMissingF64;
}

// Time-weighted mean of a counter series: each sample holds until the next.
int64_t MedianDelta(const std::vector<int64_t>& ts) {
  if (ts.size() < 2) return kMissingI64;
  std::vector<double> d;
  for (size_t i = 1; i < ts.size(); ++i) d.push_back(static_cast<double>(ts[i] - ts[i - 1]));
  return static_cast<int64_t>(Percentile(d, 0.5));
}

// A device's kernels are kept as their rows (valid intervals only), in table
// order: the intervals are read from the table, not copied (at 100x a copy
// was 20 bytes a kernel more, 44 MB, at the analysis' peak).
using KernelRows = std::vector<uint32_t>;

// ActiveWindow: the kernel-active window [first kernel start, last kernel
// end] that curve verdicts are computed over; busy = the merged kernels.
struct ActiveWindow {
  int64_t start_ns = kMissingI64;
  int64_t end_ns = kMissingI64;
  const std::vector<Interval>* busy = nullptr;
};

// UtilMeasuredSource: the label of a figure that a kernel profiler measured
// for `measured_ns` of the `covered_ns` kernel time it is averaged over;
// the rest is the launch-config estimate `estimated`.
std::string UtilMeasuredSource(const char* what, double measured_ns, double covered_ns,
                               const std::string& estimated) {
  if (measured_ns >= covered_ns) return std::string("measured (ncu): ") + what;
  char share[32];
  std::snprintf(share, sizeof share, "%.0f%%", 100.0 * measured_ns / covered_ns);
  return std::string("measured (ncu): ") + what + " for " + share +
         " of kernel time, estimated (launch config) for the rest: " + estimated;
}

// FillKernelFigures: kernel-time figures of `du`; SM fill over the device
// window, and over the kernel-active and verdict windows for the classifier.
void FillKernelFigures(const model::Trace& t, const KernelRows& ks,
                       DeviceUtilization& du, const ActiveWindow& active,
                       const ActiveWindow& user) {
  const model::Device* dev = t.FindDevice(du.device_id);
  ArchLimits limits;
  const bool have_limits = dev != nullptr && LimitsForDevice(*dev, &limits);
  const int32_t sm_count = dev != nullptr ? dev->sm_count : kMissingI32;
  const auto& k = t.kernels;

  // SM fill: one sweep for the device, kernel-active and verdict windows.
  std::vector<std::pair<int64_t, int64_t>> wins = {{du.window_start_ns, du.window_end_ns}};
  auto add = [&](const ActiveWindow& w) {
    if (w.busy == nullptr || w.end_ns <= w.start_ns) return -1;
    wins.emplace_back(w.start_ns, w.end_ns);
    return static_cast<int>(wins.size()) - 1;
  };
  const int ai = add(active), ui = add(user);
  // A Finalize()d table hands the kernels over in start order, which the
  // sweep takes as they come; otherwise at most two edges a kernel (unused
  // capacity is never touched).
  const bool in_start_order = std::is_sorted(
      ks.begin(), ks.end(), [&](uint32_t x, uint32_t y) { return k.start_ns[x] < k.start_ns[y]; });
  CappedSumSweep fill(std::move(wins), 1.0, in_start_order ? 0 : ks.size(), in_start_order);
  size_t fill_spans = 0;
  double total = 0, with_bpsm = 0, occ_w = 0, occ_sum = 0, tc = 0, triton = 0, graph = 0;
  std::array<double, kKernelClassCount> cls{};
  bool occ_from_arg = false, occ_computed = false, bpsm_from_arg = false, bpsm_computed = false;
  double fill_measured_ns = 0, occ_measured_ns = 0;  // kernel time with a profiler's figure
  // Name lookups are per distinct name, not per kernel.
  KernelInfoMemo names(t);
  for (const uint32_t i : ks) {
    const int64_t start_ns = k.start_ns[i], end_ns = k.end_ns[i];
    const double dur = static_cast<double>(end_ns - start_ns);
    total += dur;
    const KernelInfo& info = names.Get(k.name[i]);
    cls[static_cast<size_t>(info.kernel_class)] += dur;
    if (info.tensor_core) tc += dur;
    if (info.triton) triton += dur;
    if (IsValid(k.graph_id[i])) graph += dur;

    // One definition of a kernel's blocks/SM and occupancy (kernel_fill.h).
    const KernelLaunchFigures kf = KernelFigures(t, i, sm_count, have_limits ? &limits : nullptr);
    // A kernel profiler's measurement (Nsight Compute: SM active cycles over
    // elapsed cycles, achieved occupancy) replaces the launch-config estimate.
    const float sm_active_pct = k.sm_active_pct[i];
    const float achieved_pct = k.achieved_occupancy_pct[i];
    const bool fill_measured = !std::isnan(sm_active_pct);
    const double bpsm = fill_measured ? std::clamp(sm_active_pct / 100.0, 0.0, 1.0)
                                      : kf.blocks_per_sm;
    if (IsValid(bpsm)) {
      if (fill_measured) {
        fill_measured_ns += dur;
      } else {
        (kf.blocks_per_sm_from_arg ? bpsm_from_arg : bpsm_computed) = true;
      }
      with_bpsm += dur;
      fill.Add(start_ns, end_ns, bpsm);
      ++fill_spans;
    }
    const bool occ_measured = !std::isnan(achieved_pct);
    const double occ = occ_measured ? std::clamp(achieved_pct / 100.0, 0.0, 1.0)
                                    : kf.occupancy_ratio;
    if (occ_measured && dur > 0) occ_measured_ns += dur;
    if (IsValid(occ) && !occ_measured)
      (kf.occupancy_from_arg ? occ_from_arg : occ_computed) = true;
    if (IsValid(occ) && dur > 0) {
      occ_w += dur;
      occ_sum += occ * dur;
    }
  }
  du.kernel_time_ns = SatFromDouble(total);
  const double window = static_cast<double>(du.window_end_ns - du.window_start_ns);
  if (fill_spans > 0 && window > 0) {
    const std::vector<double> integral = fill.Integrals();
    du.sm_fill_ratio.value = integral[0] / window;
    du.sm_fill_active_ratio =
        ai < 0 ? du.sm_fill_ratio.value
               : integral[static_cast<size_t>(ai)] / static_cast<double>(active.end_ns - active.start_ns);
    du.sm_fill_verdict_ratio =
        ui < 0 ? du.sm_fill_ratio.value
               : integral[static_cast<size_t>(ui)] / static_cast<double>(user.end_ns - user.start_ns);
    du.sm_fill_ratio.source = std::string(kTraceLaunch) +
                              (bpsm_from_arg ? " (blocks per SM arg)" : "") +
                              (bpsm_computed ? " (grid / SM count)" : "");
    if (fill_measured_ns > 0)
      du.sm_fill_ratio.source = UtilMeasuredSource("SM active cycles", fill_measured_ns, with_bpsm,
                                                   du.sm_fill_ratio.source);
  }
  if (total > 0) {
    du.sm_fill_coverage = with_bpsm / total;
    du.occupancy_coverage = occ_w / total;
    du.tensor_core_share = {tc / total, kTraceNames};
    for (size_t c = 0; c < cls.size(); ++c) du.class_share[c] = cls[c] / total;
    du.triton_share = triton / total;
    du.graph_share = graph / total;
  }
  if (occ_w > 0) {
    du.occupancy_ratio.value = occ_sum / occ_w;
    du.occupancy_ratio.source = std::string(kTraceLaunch) +
                                (occ_from_arg ? " (est. achieved occupancy arg)" : "") +
                                (occ_computed ? " (gpuwhy occupancy calculator)" : "");
    if (occ_measured_ns > 0)
      du.occupancy_ratio.source = UtilMeasuredSource("achieved occupancy", occ_measured_ns, occ_w,
                                                     du.occupancy_ratio.source);
  }
}

// FillGaps: the idle gaps of `busy` within window `w`, its edges included (the
// idle between the window's start and the first kernel is idle the user pays
// for: a DataLoader or preprocessing gap at the head of a step).
void FillGaps(const std::vector<Interval>& busy, const ActiveWindow& w, int32_t steps,
              GapStats& g) {
  std::vector<Interval> gaps;
  {
    int64_t cur = w.start_ns;
    for (const Interval& b : busy) {
      if (b.end_ns <= cur) continue;
      if (b.start_ns >= w.end_ns) break;
      if (b.start_ns > cur) gaps.push_back({cur, b.start_ns});
      cur = std::max(cur, b.end_ns);
    }
    if (cur < w.end_ns) gaps.push_back({cur, w.end_ns});
  }
  g.count = static_cast<int64_t>(gaps.size());
  const double window = static_cast<double>(w.end_ns - w.start_ns);
  double idle = 0, long_idle = 0;
  int64_t long_n = 0;
  std::vector<double> len;
  len.reserve(gaps.size());
  for (const Interval& gp : gaps) {
    const double l = static_cast<double>(gp.end_ns - gp.start_ns);
    len.push_back(l);
    idle += l;
    if (gp.end_ns - gp.start_ns >= kCurveThresholds.long_gap_ns) {
      long_idle += l;
      ++long_n;
    }
  }
  if (window > 0) g.idle_ratio = idle / window;
  if (idle > 0) g.long_gap_idle_share = long_idle / idle;
  if (!len.empty()) {
    g.p50_ns = Percentile(len, 0.5);
    g.p95_ns = Percentile(len, 0.95);
    g.max_ns = *std::max_element(len.begin(), len.end());
  }
  if (steps > 0) {
    g.long_gaps_per_step = static_cast<double>(long_n) / steps;
    g.long_gap_ns_per_step = long_idle / steps;
  }
}

int64_t FinePeriod(const UtilizationOptions& o, const StepResult& steps, int64_t window) {
  int64_t p = o.fine_period_ns;
  if (!IsValid(p) || p <= 0) {
    p = 10 * kNsPerMs;
    if (IsValid(steps.stats.p50_ns) && steps.stats.p50_ns > 0) {
      // Why >= 1 ms: finer bins turn every launch gap into a 0/100 pair.
      p = std::clamp<int64_t>(static_cast<int64_t>(steps.stats.p50_ns / 16), kNsPerMs,
                              10 * kNsPerMs);
    }
  }
  // A capture shorter than ~20 default bins (a micro-benchmark) gets finer
  // bins, down to 100 µs, so it still has enough samples to classify.
  constexpr int64_t kMinBins = 20, kMinPeriodNs = 100 * kNsPerUs;
  if (!IsValid(o.fine_period_ns) && window > 0 && window / p < kMinBins)
    p = std::max(window / kMinBins, kMinPeriodNs);
  while (window / p > static_cast<int64_t>(o.max_bins)) p *= 2;
  return p;
}

UtilSeries MakeSeries(const char* label, const char* source, const std::vector<Interval>& busy,
                      int64_t t0, int64_t t1, int64_t period) {
  UtilSeries s;
  s.label = label;
  s.source = source;
  s.period_ns = period;
  s.start_ns = t0;
  s.util_ratio = BinnedCoverage(busy, t0, t1, period);
  s.mean_ratio = MeanValid(s.util_ratio);
  return s;
}

// Headline: the real figure: SM active (counter), else SM fill, else, for a
// counter log without either, graphics-engine activity labelled as such. The
// engine figure gets no gap: it is busy time, not SM work, so it says nothing
// of how far GPU-Util overstates the SMs.
void Headline(DeviceUtilization& du, const Figure& gr_engine) {
  if (IsValid(du.counter_sm_active.value)) {
    du.real_ratio = du.counter_sm_active;
  } else if (IsValid(du.sm_fill_ratio.value)) {
    du.real_ratio = du.sm_fill_ratio;
  } else if (IsValid(gr_engine.value)) {
    du.real_ratio = {gr_engine.value, std::string(kGrEngineRealSource) + "; " + gr_engine.source};
    return;
  }
  if (IsValid(du.real_ratio.value) && IsValid(du.surface_ratio.value)) {
    du.gap_pp = (du.surface_ratio.value - du.real_ratio.value) * 100.0;
  }
}

// CurveSamples: the series' samples, re-binned over the kernel-active window
// when there is one (trace series), else the series itself (counters). None
// past `max_samples` bins: the window may be the marked steps' span, which a
// damaged trace can stretch over decades while the series' period was chosen
// for the GPU window (a 2^63 ns span at 100 µs asked for 740 TB).
std::vector<double> CurveSamples(const UtilSeries& s, const ActiveWindow& aw, size_t max_samples) {
  if (aw.busy == nullptr || s.label == "counter" || !IsValid(s.period_ns) || s.period_ns <= 0)
    return s.util_ratio;
  if (aw.end_ns > aw.start_ns &&
      static_cast<uint64_t>(CeilDiv(aw.end_ns - aw.start_ns, s.period_ns)) > max_samples)
    return {};
  return BinnedCoverage(*aw.busy, aw.start_ns, aw.end_ns, s.period_ns);
}

// VerdictRealRatio: the headline real utilization (SM-active counter, else SM
// fill) restated over window `w`, so the classifier compares surface and real
// over the same time.
double VerdictRealRatio(const model::Trace& t, const DeviceUtilization& du,
                        const ActiveWindow& w) {
  // Engine activity is not SM work: the classifier gets no real figure.
  if (RealIsGrEngineActivity(du)) return kMissingF64;
  if (w.busy == nullptr || w.end_ns <= w.start_ns) return du.real_ratio.value;
  if (IsValid(du.counter_sm_active.value)) {
    const model::CounterSeries* sm = nullptr;  // the series FillCounters took
    for (const model::CounterSeries& s : t.counters) {
      if (s.device_id == du.device_id && s.kind == model::CounterKind::kSmActive &&
          IsValid(TimeWeightedMean(s)))
        sm = &s;
    }
    const double m =
        sm != nullptr ? TimeWeightedMeanOver(*sm, w.start_ns, w.end_ns) : kMissingF64;
    return IsValid(m) ? m : du.real_ratio.value;
  }
  if (IsValid(du.sm_fill_ratio.value)) {
    // The fill integral over this window (FillKernelFigures computed both).
    const bool active = w.start_ns == du.active_window_start_ns && w.end_ns == du.active_window_end_ns;
    return active ? du.sm_fill_active_ratio : du.sm_fill_verdict_ratio;
  }
  return du.real_ratio.value;
}

// ClassifyOver: the verdict of series `s` over window `w` (trace series are
// re-binned over it; counter series are taken as sampled).
CurveVerdict ClassifyOver(const model::Trace& t, CurveInput in, const UtilSeries& s,
                          const DeviceUtilization& du, const ActiveWindow& w, size_t max_samples) {
  in.period_ns = s.period_ns;
  in.util_ratio = CurveSamples(s, w, max_samples);
  in.real_util_ratio = VerdictRealRatio(t, du, w);
  return ClassifyCurve(in);
}

// Classify: the device class over the window the user pays for (`user`: the
// marked steps' span, else the device window), and, when the kernel-active
// window `aw` differs from it by a sample or more, the class there too, said
// beside it when it differs (issue: one verdict, never contradicting itself).
void Classify(const model::Trace& t, DeviceUtilization& du, const StepResult& steps,
              const UtilSeries* primary, const UtilSeries* nvml, const ActiveWindow& aw_all,
              const ActiveWindow& user, const char* user_label, size_t max_samples) {
  CurveInput in;
  if (IsValid(steps.stats.p50_ns)) in.step_period_ns = static_cast<int64_t>(steps.stats.p50_ns);
  in.long_gap_idle_share = du.gaps.long_gap_idle_share;
  in.gap_p95_ns = du.gaps.p95_ns;
  const bool trace_series = primary != nullptr && primary->label != "counter";
  const ActiveWindow none;
  // The kernel-active part of the verdict window: a part never exceeds its
  // whole (kernels before the first marked step are outside the steps).
  ActiveWindow aw = aw_all;
  if (aw.busy != nullptr && user.busy != nullptr) {
    aw.start_ns = std::max(aw.start_ns, user.start_ns);
    aw.end_ns = std::min(aw.end_ns, user.end_ns);
    if (aw.end_ns <= aw.start_ns) aw.busy = nullptr;
  }
  if (primary != nullptr) {
    du.verdict = ClassifyOver(t, in, *primary, du, trace_series ? user : none, max_samples);
    if (trace_series && user.busy != nullptr) {
      du.verdict_window = user_label;
      du.verdict_window_ns = user.end_ns - user.start_ns;
      char b[96];
      std::snprintf(b, sizeof b, " over the %s (%.1f ms)", user_label,
                    NsToMs(user.end_ns - user.start_ns));
      du.verdict.reason += b;
    }
    const int64_t edge_ns = aw.busy != nullptr && user.busy != nullptr
                                ? std::abs(aw.start_ns - user.start_ns) + std::abs(user.end_ns - aw.end_ns)
                                : 0;
    if (trace_series && edge_ns >= primary->period_ns) {
      du.active_verdict = ClassifyOver(t, in, *primary, du, aw, max_samples);
      du.has_active_verdict = true;
      if (du.active_verdict.curve_class != du.verdict.curve_class &&
          du.active_verdict.curve_class != CurveClass::kInsufficientData) {
        char b[200];
        std::snprintf(b, sizeof b,
                      "while kernels run (the kernel-active %.1f ms of the %.1f ms %s) the curve "
                      "reads %s: ",
                      NsToMs(aw.end_ns - aw.start_ns), NsToMs(user.end_ns - user.start_ns),
                      user_label, ToString(du.active_verdict.curve_class));
        du.window_note = b + du.active_verdict.reason;
      }
    }
  }
  if (nvml != nullptr && nvml != primary) {
    du.nvml_verdict = ClassifyOver(t, in, *nvml, du, trace_series ? user : none, max_samples);
    if (du.nvml_verdict.curve_class != du.verdict.curve_class || du.nvml_verdict.aliased) {
      const double mean = IsValid(du.nvml_verdict.features.mean_ratio)
                              ? du.nvml_verdict.features.mean_ratio
                              : nvml->mean_ratio;
      du.aliasing_note =
          "at NVML's " + std::to_string(nvml->period_ns / kNsPerMs) +
          " ms period the curve reads " + ToString(du.nvml_verdict.curve_class) + " (mean " +
          std::to_string(static_cast<int>(std::lround(mean * 100))) + "%)";
      if (!du.nvml_verdict.aliasing_note.empty()) {
        du.aliasing_note += "; " + du.nvml_verdict.aliasing_note;
      }
      char fine[48];
      std::snprintf(fine, sizeof fine, "; decided from the %.1f ms series",
                    primary != nullptr ? NsToMs(primary->period_ns) : 0.0);
      du.aliasing_note += fine;
    }
  }
}

void FillCounters(const model::Trace& t, DeviceUtilization& du, const model::CounterSeries** util,
                  double* power, double* limit, Figure* gr_engine) {
  for (const model::CounterSeries& s : t.counters) {
    if (s.device_id != du.device_id) continue;
    const double m = TimeWeightedMean(s);
    if (!IsValid(m)) continue;
    const Figure f{m, CounterSourceLabel(t, s)};
    switch (s.kind) {
      case model::CounterKind::kGpuUtil:
        if (*util == nullptr) *util = &s;
        break;
      case model::CounterKind::kSmActive:
        du.counter_sm_active = f;
        break;
      case model::CounterKind::kGrEngineActive:
        *gr_engine = f;
        break;
      case model::CounterKind::kSmOccupancy:
        du.counter_sm_occupancy = f;
        break;
      case model::CounterKind::kTensorActive:
        du.counter_tensor_active = f;
        break;
      case model::CounterKind::kDramActive:
        du.counter_dram_active = f;
        break;
      case model::CounterKind::kSmClockMhz:
        du.counter_sm_clock_mhz = f;
        break;
      case model::CounterKind::kPowerMw:
        *power = m;
        du.counter_power_ratio.source = f.source;
        break;
      case model::CounterKind::kPowerLimitMw:
        *limit = m;
        break;
      default:
        break;
    }
  }
  if (IsValid(*power) && IsValid(*limit) && *limit > 0) {
    du.counter_power_ratio.value = *power / *limit;
  } else {
    du.counter_power_ratio.source.clear();  // no limit: no ratio, and no source for one
  }
}

}  // namespace

double TimeWeightedMeanOver(const model::CounterSeries& s, int64_t t0, int64_t t1) {
  const size_t n = s.value.size();
  double wsum = 0, sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsValid(s.value[i])) continue;
    int64_t end = s.ts_ns[i] + 1;
    if (i + 1 < n) {
      end = s.ts_ns[i + 1];
    } else if (n > 1) {
      end = s.ts_ns[i] + (s.ts_ns[i] - s.ts_ns[i - 1]);
    }
    const int64_t lo = std::max(s.ts_ns[i], t0), hi = std::min(end, t1);
    if (hi <= lo) continue;
    wsum += static_cast<double>(hi - lo);
    sum += static_cast<double>(hi - lo) * s.value[i];
  }
  return wsum > 0 ? sum / wsum : kMissingF64;
}

double TimeWeightedMean(const model::CounterSeries& s) {
  const size_t n = s.value.size();
  if (n == 0 || s.ts_ns.size() != n) return kMissingF64;
  const bool period = IsValid(s.period_ns) && s.period_ns > 0;
  double wsum = 0, sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsValid(s.value[i])) continue;
    double w = 1.0;
    if (period) {
      // Each sample holds until the next, or one period at the end, and at
      // most kMaxHoldPeriods: the gap between two jobs appended to one log is
      // not one long sample.
      const int64_t d = i + 1 < n ? s.ts_ns[i + 1] - s.ts_ns[i] : s.period_ns;
      w = static_cast<double>(std::clamp<int64_t>(d, 0, MulSat(kMaxHoldPeriods, s.period_ns)));
    } else if (n > 1) {
      const int64_t d = i + 1 < n ? s.ts_ns[i + 1] - s.ts_ns[i] : s.ts_ns[i] - s.ts_ns[i - 1];
      w = static_cast<double>(std::max<int64_t>(d, 1));
    }
    wsum += w;
    sum += w * s.value[i];
  }
  return wsum > 0 ? sum / wsum : kMissingF64;
}

bool RealIsGrEngineActivity(const DeviceUtilization& du) {
  return du.real_ratio.source.rfind(kGrEngineRealSource, 0) == 0;
}

std::string CounterSourceLabel(const model::Trace& t, const model::CounterSeries& s) {
  std::string src(t.Str(s.source));
  if (src.empty()) src = t.info.format.empty() ? "unknown" : t.info.format;
  return "counter: " + src;
}

UtilizationResult AnalyzeUtilization(const model::Trace& t, const UtilizationOptions& o) {
  return AnalyzeUtilization(t, o, BuildRunSteps(t));
}

UtilizationResult AnalyzeUtilization(const model::Trace& t, const UtilizationOptions& o,
                                     const RunSteps& run) {
  UtilizationResult out;
  out.steps = FindSteps(t);
  // Marked steps are the run's device-adjusted windows (run_phases.h), of the
  // device with the most kernel time: the one step definition that the
  // diagnosis, the summary and `gpuwhy diff` use too.
  {
    const DeviceSteps* busiest = nullptr;
    for (const DeviceSteps& ds : run.devices)
      if (ds.kernel_count > 0 && (busiest == nullptr || ds.kernel_ns > busiest->kernel_ns))
        busiest = &ds;
    if (busiest != nullptr && busiest->from_markers) {
      if (out.steps.source != StepSource::kMarkerRange) {
        out.steps.source = StepSource::kProfilerStep;
        out.steps.marker_name = "ProfilerStep#N";
      }
      out.steps.period_kernels = kMissingI32;
      out.steps.steps.clear();
      for (const StepWindow& w : busiest->windows) out.steps.steps.push_back({w.step, w.start_ns, w.end_ns});
      out.steps.stats = ComputeStepStats(out.steps.steps);
    }
  }

  std::map<int32_t, KernelRows> kernels;
  std::map<int32_t, std::pair<int64_t, int64_t>> extent;
  auto widen = [&extent](int32_t d, int64_t s, int64_t e) {
    auto [it, fresh] = extent.try_emplace(d, s, e);
    if (!fresh) {
      it->second.first = std::min(it->second.first, s);
      it->second.second = std::max(it->second.second, e);
    }
  };
  {
    // Exact sizes first: doubling would hold up to twice these on big traces.
    std::map<int32_t, size_t> n;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      const int64_t s = t.kernels.start_ns[i], e = t.kernels.end_ns[i];
      if (IsValid(s) && IsValid(e) && e >= s) ++n[t.kernels.device_id[i]];
    }
    for (const auto& [d, c] : n) kernels[d].reserve(c);
  }
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const int64_t s = t.kernels.start_ns[i], e = t.kernels.end_ns[i];
    if (!IsValid(s) || !IsValid(e) || e < s) continue;
    kernels[t.kernels.device_id[i]].push_back(static_cast<uint32_t>(i));
    widen(t.kernels.device_id[i], s, e);
  }
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    if (kernels.count(t.memcpys.device_id[i]))
      widen(t.memcpys.device_id[i], t.memcpys.start_ns[i], t.memcpys.end_ns[i]);
  }
  for (size_t i = 0; i < t.memsets.size(); ++i) {
    if (kernels.count(t.memsets.device_id[i]))
      widen(t.memsets.device_id[i], t.memsets.start_ns[i], t.memsets.end_ns[i]);
  }
  // Devices known only from counters (nvidia-smi / DCGM logs) are analysed too.
  std::map<int32_t, bool> devices;
  for (const auto& [d, ks] : kernels) devices[d] = true;
  for (const model::CounterSeries& s : t.counters) {
    if (IsValid(s.device_id) && !s.value.empty()) devices.try_emplace(s.device_id, false);
  }

  for (const auto& [device, has_kernels] : devices) {
    DeviceUtilization du;
    du.device_id = device;
    const model::CounterSeries* util_counter = nullptr;
    double power = kMissingF64, limit = kMissingF64;
    Figure gr_engine;
    FillCounters(t, du, &util_counter, &power, &limit, &gr_engine);
    const UtilSeries* primary = nullptr;
    const UtilSeries* nvml = nullptr;
    std::vector<Interval> busy;
    ActiveWindow active;
    // The window the class describes: the marked steps' span, else the device window.
    ActiveWindow user;
    const char* user_label = "GPU-op span";
    if (has_kernels) {
      const KernelRows& ks = kernels[device];
      du.kernel_count = static_cast<int64_t>(ks.size());
      du.window_start_ns = extent[device].first;
      du.window_end_ns = extent[device].second;
      std::vector<Interval> spans;
      spans.reserve(ks.size());
      for (const uint32_t row : ks) spans.push_back({t.kernels.start_ns[row], t.kernels.end_ns[row]});
      busy = MergeIntervals(std::move(spans));
      if (!busy.empty() && busy.back().end_ns > busy.front().start_ns) {
        active = {busy.front().start_ns, busy.back().end_ns, &busy};
      }
      const int64_t window = du.window_end_ns - du.window_start_ns;
      if (window > 0) {
        du.surface_ratio = {static_cast<double>(TotalLength(busy)) / static_cast<double>(window),
                            kTraceTimeline};
        const int64_t fine = FinePeriod(o, out.steps, window);
        du.series.push_back(
            MakeSeries("fine", kTraceTimeline, busy, du.window_start_ns, du.window_end_ns, fine));
        for (const auto& [label, period] : {std::pair{"nvml_1/6s", o.nvml_fast_period_ns},
                                            std::pair{"nvml_1s", o.nvml_slow_period_ns}}) {
          if (period > 0 && static_cast<uint64_t>(window / period) < o.max_nvml_samples)
            du.series.push_back(MakeSeries(label, kTraceTimeline, busy, du.window_start_ns,
                                           du.window_end_ns, period));
        }
        if (!out.steps.steps.empty()) {
          UtilSeries st;
          st.label = "step";
          st.source = kTraceTimeline;
          // Marked steps are measured over the run's device-adjusted windows
          // (a step's kernels often run after its host range ended: the
          // DataLoader of step N+1 overlaps step N's kernels).
          const DeviceSteps* ds = run.Find(device);
          std::vector<Step> own;
          if (ds != nullptr && ds->from_markers)
            for (const StepWindow& w : ds->windows) own.push_back({w.step, w.start_ns, w.end_ns});
          const std::vector<Step>& use = own.empty() ? out.steps.steps : own;
          st.period_ns = static_cast<int64_t>(out.steps.stats.mean_ns);
          st.start_ns = use.front().start_ns;
          for (const Step& s : use) {
            const int64_t len = s.end_ns - s.start_ns;
            st.util_ratio.push_back(
                len > 0 ? static_cast<double>(IntersectLength(busy, s.start_ns, s.end_ns)) /
                              static_cast<double>(len)
                        : kMissingF64);
          }
          st.mean_ratio = MeanValid(st.util_ratio);
          du.series.push_back(std::move(st));
        }
      }
      if (!busy.empty()) {
        du.active_window_start_ns = active.start_ns;
        du.active_window_end_ns = active.end_ns;
        user = {du.window_start_ns, du.window_end_ns, &busy};
        if (IsValid(t.info.capture_start_ns) && IsValid(t.info.capture_end_ns) &&
            t.info.capture_end_ns > t.info.capture_start_ns &&
            (t.info.capture_start_ns < user.start_ns || t.info.capture_end_ns > user.end_ns)) {
          // What the profiler captured, a lone kernel in it included.
          user = {std::min(user.start_ns, t.info.capture_start_ns),
                  std::max(user.end_ns, t.info.capture_end_ns), &busy};
          user_label = "captured span";
        }
        // The window the user pays for is the run's (run_phases.h): the marked
        // steps' device-adjusted windows; without markers the loop, set-up
        // before it and teardown after it left out as one-off phases.
        const DeviceSteps* ds = run.Find(device);
        if (ds != nullptr && ds->from_markers && ds->total_ns() > 0) {
          user = {ds->windows.front().start_ns, ds->windows.back().end_ns, &busy};
          user_label = "marked steps";
        } else if (ds != nullptr && ds->phases.has_loop &&
                   (ds->phases.setup_ns() > 0 || ds->phases.teardown_ns() > 0)) {
          du.setup_ns = ds->phases.setup_ns();
          du.teardown_ns = ds->phases.teardown_ns();
          user = {ds->phases.loop_start_ns, ds->phases.loop_end_ns, &busy};
          user_label = "loop";
        }
      }
      FillKernelFigures(t, ks, du, active, user);
      FillGaps(busy, user.busy != nullptr ? user : ActiveWindow{du.window_start_ns, du.window_end_ns, &busy},
               out.steps.stats.count, du.gaps);
    }
    if (util_counter != nullptr) {
      UtilSeries cs;
      cs.label = "counter";
      cs.source = CounterSourceLabel(t, *util_counter);
      // Untimed logs carry sample indexes: neither a period nor a start time.
      cs.period_ns = IsValid(util_counter->period_ns) ? util_counter->period_ns
                     : util_counter->ts_are_indexes   ? kMissingI64
                                                      : MedianDelta(util_counter->ts_ns);
      cs.start_ns = util_counter->ts_ns.empty() || util_counter->ts_are_indexes
                        ? kMissingI64
                        : util_counter->ts_ns.front();
      cs.util_ratio = util_counter->value;
      cs.mean_ratio = TimeWeightedMean(*util_counter);
      if (!has_kernels) du.surface_ratio = {cs.mean_ratio, cs.source};
      du.series.push_back(std::move(cs));
    }
    Headline(du, gr_engine);
    for (const UtilSeries& s : du.series) {
      if (s.label == "fine") primary = &s;
      if (s.label == "nvml_1/6s") nvml = &s;
    }
    if (primary == nullptr) {
      for (const UtilSeries& s : du.series) {
        if (s.label == "counter") primary = &s;
      }
    }
    Classify(t, du, out.steps, primary, nvml, active, user, user_label, o.max_nvml_samples);
    out.devices.push_back(std::move(du));
  }
  out.throughput = AnalyzeThroughput(t, out.steps);
  return out;
}

}  // namespace gpuwhy::analysis
