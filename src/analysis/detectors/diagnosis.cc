#include "analysis/detectors/diagnosis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "analysis/detectors/counter_detector.h"
#include "analysis/detectors/detector_registry.h"
#include "analysis/detectors/multi_gpu_detector.h"
#include "analysis/detectors/prediction.h"
#include "analysis/detectors/timeline.h"
#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/steps/step_detector.h"
#include "analysis/throughput/measured_kernels.h"
#include "analysis/throughput/throughput.h"
#include "analysis/utilization/utilization.h"
#include "base/parallel.h"

namespace gpuwhy::analysis::detectors {

std::string_view ToString(Scenario s) {
  switch (s) {
    case Scenario::kProd: return "prod";
    case Scenario::kShared: return "shared";
    case Scenario::kMulti: return "multi";
    case Scenario::kDev: break;
  }
  return "dev";
}

std::optional<Scenario> ParseScenario(std::string_view s) {
  if (s == "dev") return Scenario::kDev;
  if (s == "prod") return Scenario::kProd;
  if (s == "shared") return Scenario::kShared;
  if (s == "multi") return Scenario::kMulti;
  return std::nullopt;
}

namespace {

// kProdStepNs: steps this long suggest a large model (prod-style tuning).
constexpr int64_t kProdStepNs = 1 * kNsPerS;

// ScenarioWeight: how much a scenario prefers a kind of fix (multiplies time lost).
double ScenarioWeight(Scenario s, FixKind k) {
  switch (s) {
    case Scenario::kDev:
      if (k == FixKind::kBiggerBatch || k == FixKind::kFewerSyncs ||
          k == FixKind::kDataLoaderWorkers || k == FixKind::kPinMemory)
        return 2.0;
      break;
    case Scenario::kProd:
      if (k == FixKind::kFusion || k == FixKind::kMixedPrecision || k == FixKind::kKernelTuning ||
          k == FixKind::kCudaGraphs)
        return 2.0;
      break;
    case Scenario::kShared:
      if (k == FixKind::kIsolation) return 4.0;
      break;
    case Scenario::kMulti:
      if (k == FixKind::kCommOverlap || k == FixKind::kLoadBalance) return 2.0;
      break;
  }
  return 1.0;
}

double RankKey(const Finding& f) {
  return IsValid(f.lost_step_ratio) ? f.lost_step_ratio : -1.0;
}

// kMaterialLoss: a cause that costs this share of the step or more matters.
constexpr double kMaterialLoss = 0.05;

// AroundALoop: a one-off finding of a capture whose set-up or teardown lies
// outside the loop (host_detector's loop_phases metric).
bool AroundALoop(const Finding& f) {
  return f.id == kOneOffGapFindingId && MetricOf(f, "loop_phases") >= 1.0;
}

// IsSetupPhase: such a finding whose idle is mostly that set-up and teardown.
bool IsSetupPhase(const Finding& f) {
  if (!AroundALoop(f)) return false;
  const double edge = MetricOf(f, "setup_idle_ns") + MetricOf(f, "teardown_idle_ns");
  const double all = MetricOf(f, "one_off_idle_ns");
  return IsValid(edge) && IsValid(all) && 2.0 * edge >= all;
}

std::string_view BottleneckOf(const Finding& f) {
  switch (f.category) {
    case Category::kSync: return "host: synchronization";
    case Category::kDataLoading:
      if (f.id == "data_loading.uvm_migrations") return "memory: Unified Memory page migrations";
      return f.id == "data_loading.h2d_copies" ? "host: host-to-device copies" : "host: data loading";
    case Category::kLaunchBound: return "host: kernel launches (fragmented work)";
    case Category::kKernelEfficiency:
      if (f.id == "kernel_efficiency.memory_bound") return "GPU: memory bandwidth";
      if (f.id == "kernel_efficiency.compute_bound") return "GPU: compute";
      if (f.id == "kernel_efficiency.throttling") return "GPU: clocks throttled";
      if (f.id == "kernel_efficiency.gemm_below_roof") return "GPU: GEMM shapes far below the compute roof";
      if (f.id == "kernel_efficiency.low_mfu") return "GPU: matrix work far below peak (low MFU)";
      if (f.id == "kernel_efficiency.no_tensor_cores") return "GPU: kernel efficiency (no tensor cores)";
      if (f.id == "kernel_efficiency.busy_not_work") return "GPU: busy, few SMs have work";
      return "GPU: kernel efficiency";
    case Category::kRecompilation: return "host: recompilation";
    case Category::kContention: return "contention: other processes";
    case Category::kCommunication: return "communication";
    case Category::kImbalance:
      if (f.id == "imbalance.node_gpus") return "load imbalance across the node's GPUs";
      if (f.id == "imbalance.straggler") return "a straggler GPU the others wait for";
      return "load imbalance across ranks";
    case Category::kHostBound: return "host: CPU work that launches nothing";
    case Category::kIdle:
      if (f.id == "idle.sampled") return "idle (cause not visible in sampled counters)";
      if (f.id == "idle.one_off_gap") return "idle: one-off gap (not per step)";
      if (f.id == "idle.unused_gpu") return "idle: GPUs of the node never used";
      if (f.id.rfind("phase.", 0) == 0) return "idle: one-off phase (set-up, pause, tail) or periodic dips";
      break;
  }
  return "idle";
}

// CausePhrase: the clause after "waiting for the host:" for the top finding;
// `step` names the window as the rest of the WHY line does ("the step",
// "the loop", "the span").
std::string CausePhrase(const Finding& f, const std::string& step) {
  // The DataLoader share that matters is the part the GPU spends idle (what
  // TB-plugin's DataLoader category counts); wall time is in the evidence.
  if (f.id == "data_loading.dataloader")
    return "DataLoader takes " + FormatPct(f.lost_step_ratio) + " of " + step;
  if (f.id == "sync.host_sync") {
    const int64_t n = f.per_step_basis
                          ? static_cast<int64_t>(MetricOf(f, "sync_calls_per_step") + 0.5)
                          : static_cast<int64_t>(MetricOf(f, "sync_calls"));
    const std::string calls = std::to_string(n) + (n == 1 ? " blocking sync" : " blocking syncs");
    return f.per_step_basis ? calls + " per step leave" + (n == 1 ? "s" : "") + " it idle " +
                                  FormatPct(f.lost_step_ratio)
                            : calls + " leave" + (n == 1 ? "s" : "") + " it idle " +
                                  FormatPct(f.lost_step_ratio) + " of the span";
  }
  if (f.id == "launch_bound.fragmented")
    return "it is launch-bound, " + FormatPct(MetricOf(f, "kernel_under_10us_ratio")) +
           " of kernels run under 10 µs";
  if (f.id == "data_loading.h2d_copies")
    return "host-to-device copies (" + FormatPct(MetricOf(f, "h2d_pageable_ratio")) +
           " from pageable memory) block it " + FormatPct(f.lost_step_ratio) + " of " + step;
  if (f.id == "host.busy_elsewhere") {
    std::string what;
    for (const Example& ex : f.examples) {
      const size_t p = ex.detail.find("host in ");
      if (p != std::string::npos) {
        what = ex.detail.substr(p + 8);
        break;
      }
      if (!ex.detail.empty()) {
        what = ex.detail;
        break;
      }
    }
    // A launch call far longer than launching is warm-up (a lazy module
    // load), not CPU work: the words say which.
    const bool warmup = what.find("far longer than launching") != std::string::npos;
    return std::string(warmup ? "the launching thread is held in warm-up, not in launching"
                              : "the launching thread runs work that launches nothing") +
           (what.empty() ? std::string() : " (worst gap: " + what + ")") + " for " +
           FormatPct(f.lost_step_ratio) + " of " + step;
  }
  if (f.id == "data_loading.uvm_migrations")
    return "Unified Memory page migrations take " + FormatPct(f.lost_step_ratio) + " of " + step;
  if (f.id == "communication.exposed")
    return "exposed communication takes " + FormatPct(f.lost_step_ratio) + " of the step";
  return f.title;
}

// BusyPhrase: "GPU busy 97% of each step", and when copies alone (no kernel
// running) fill >= 10% of it, how much of that is kernels, so the headline
// agrees with the curve class, which counts kernels as NVML does.
double KernelStepRatio(const PrimaryDigest& d) {
  if (d.steps_total_ns <= 0) return kMissingF64;
  return static_cast<double>(d.kernel_in_steps_ns) / static_cast<double>(d.steps_total_ns);
}

std::string BusyPhrase(const PrimaryDigest& d, double idle_ratio, const std::string& each) {
  std::string out = "GPU busy " + FormatPct(1.0 - idle_ratio) + " of " + each;
  if (d.steps_total_ns <= 0) return out;
  const double kernels = KernelStepRatio(d);
  const double copies_only = (1.0 - idle_ratio) - kernels;
  if (copies_only >= 0.10)
    out += " (kernels " + FormatPct(kernels) + ", copies alone " + FormatPct(copies_only) + ")";
  return out;
}

// NodeTopLine: the counter-only top line of a log with >= 2 GPUs: the node's
// GPU-Util, then the cause: a node finding (unused GPU, then imbalance) when
// there is one, else the top finding; the curve class shown is that of the
// GPU the cause is about, so one GPU's class never heads another GPU's
// finding.
void NodeTopLine(const std::vector<NodeCurve>& curves, const std::vector<SampledDeviceStats>& node,
                 const Finding* top, bool top_matters, Diagnosis& dx) {
  for (std::string_view id : {"idle.unused_gpu", "imbalance.straggler", "imbalance.node_gpus"}) {
    auto it = std::find_if(dx.findings.begin(), dx.findings.end(),
                           [&](const Finding& f) { return f.id == id; });
    if (it != dx.findings.end() && IsValid(it->lost_step_ratio) && it->lost_step_ratio >= 0.05) {
      top = &*it;
      top_matters = true;
      dx.bottleneck = std::string(BottleneckOf(*top));
      break;
    }
  }
  double sum = 0;
  int n = 0;
  const SampledDeviceStats* busiest = nullptr;
  std::string list;
  for (const SampledDeviceStats& st : node) {
    if (!IsValid(st.gpu_util_ratio)) continue;
    sum += st.gpu_util_ratio;
    ++n;
    if (busiest == nullptr || st.gpu_util_ratio > busiest->gpu_util_ratio) busiest = &st;
    if (n <= 8) list += (list.empty() ? "" : ", ") + ("GPU " + std::to_string(st.device_id) + " " +
                                                      FormatPct(st.gpu_util_ratio));
  }
  if (n == 0 || busiest == nullptr) return;
  if (n > 8) list += ", ...";
  const double mean = sum / n;
  dx.idle_step_ratio = 1.0 - mean;
  const SampledDeviceStats* about = busiest;
  if (top_matters && IsValid(top->device_id))
    for (const SampledDeviceStats& st : node)
      if (st.device_id == top->device_id) about = &st;
  std::string line = std::to_string(node.size()) + " GPUs, GPU-Util " + FormatPct(mean) +
                     " on average (" + list + "; " + busiest->util_source + ", " +
                     SamplingPhrase(busiest->period_ns) + ")";
  if (!top_matters) {
    line += "; no cause visible in the counters costs more than 5% of the span.";
  } else if (top->id == "idle.sampled") {
    line += "; GPU " + std::to_string(about->device_id) + " idle " + FormatPct(top->lost_step_ratio) +
            " of the span, " + FormatPct(about->under_10_ratio) + " of samples under 10%, " +
            FormatPct(about->over_90_ratio) + " over 90%: " + std::string(ShapePhrase(ShapeOf(*about))) +
            "; a profiler trace would name the cause.";
  } else if (top->id == "imbalance.node_gpus") {
    // The finding lists every GPU itself.
    line = std::to_string(node.size()) + " GPUs, GPU-Util " + FormatPct(mean) + " on average (" +
           busiest->util_source + ", " + SamplingPhrase(busiest->period_ns) + "); " + top->summary;
  } else if (top->id == "idle.unused_gpu" || top->id == "imbalance.straggler") {
    line += "; " + top->summary;
  } else {
    line += "; GPU " + std::to_string(about->device_id) + ": " + top->summary;
  }
  dx.top_line = line;
  for (const NodeCurve& c : curves)
    if (c.device_id == about->device_id) {
      dx.curve_shape = c.curve_class;
      dx.curve_reason = "GPU " + std::to_string(c.device_id) + ": " + c.reason;
    }
}

// DigestRankOf: DigestRank() of `tl`; `owned` (the same timeline, or null)
// may be consumed.
RankDigest DigestRankOf(const model::Trace& trace, const Timeline& tl, Timeline* owned,
                        const DigestOptions& options) {
  RankDigest r;
  r.trace_rank = trace.rank.rank;
  r.world_size = trace.rank.world_size;
  r.clock = trace.info.clock;
  std::tie(r.extent_start_ns, r.extent_end_ns) = trace.TimeExtent();
  r.has_gpu_events = !tl.devices.empty();
  // A kernel profiler's per-kernel measurements (Nsight Compute) are hardware
  // counters too: nothing is inferred from names where they exist.
  r.has_counters = !trace.counters.empty() || HasMeasuredFigures(trace);
  r.host_only_profile = trace.info.host_only_profile;
  if (r.host_only_profile) {
    int64_t total_ns = 0;
    for (size_t i = 0; i < trace.ranges.size(); ++i) {
      if (!IsValid(trace.ranges.step[i])) continue;
      ++r.host_steps;
      total_ns += trace.ranges.end_ns[i] - trace.ranges.start_ns[i];
    }
    if (r.host_steps > 0) r.host_step_mean_ns = total_ns / r.host_steps;
  }
  if (r.has_gpu_events) r.first_comm_end_ns = FirstCommEnd(trace);
  DetectorInput in{trace, tl, r.trace_rank, options.throughput};
  // The detectors are pure functions of the same input, so two threads take
  // them in turn; findings keep the registry's order. On the 10x bench trace
  // they took 34 ms on one thread, 13 of them in launch_bound.
  const std::span<const DetectorEntry> registry = DetectorRegistry();
  std::vector<std::vector<Finding>> found(registry.size());
  // A per-kernel counter report (Nsight Compute) has no timeline: busy
  // shares, gaps and launch rates mean nothing there, so only the detector
  // that judges each kernel on its measured figures runs.
  const bool untimed = trace.info.kernels_untimed;
  ForEachIndexOnTwoThreads(registry.size(), [&](size_t i) {
    if (untimed && registry[i].id != "measured_kernels") return;
    found[i] = registry[i].fn(in);
    for (Finding& f : found[i]) PredictStepAfterFix(f, tl);
  });
  for (std::vector<Finding>& got : found)
    for (Finding& f : got) r.findings.push_back(std::move(f));
  if (owned != nullptr)  // only the detectors read the gaps
    for (DeviceTimeline& d : owned->devices) std::vector<IdleGap>().swap(d.gaps);
  for (const DeviceTimeline& d : tl.devices)
    if (d.steps_from_markers) r.longest_marked_step_ns = std::max(r.longest_marked_step_ns, MeanStepNs(d));

  const DeviceTimeline* pd = tl.Primary();
  if (pd != nullptr) {
    PrimaryDigest p;
    p.device_id = pd->device_id;
    p.steps = pd->steps;
    p.steps_from_markers = pd->steps_from_markers;
    p.steps_total_ns = pd->steps_total_ns;
    p.idle_ns = pd->idle_ns;
    p.idle_by_cause_ns = pd->idle_by_cause;
    IntervalList windows;
    for (const StepWindow& w : pd->steps) windows.push_back({w.start_ns, w.end_ns});
    p.kernel_in_steps_ns = OverlapLength(pd->kernel_busy, windows);
    p.compute_in_steps_ns = OverlapLength(pd->ComputeBusy(), windows);
    p.comm_in_steps_ns = OverlapLength(pd->comm_busy, windows);
    if (!pd->steps.empty())
      p.busy_in_span_ns = OverlapLength(pd->busy, pd->steps.front().start_ns, pd->steps.back().end_ns);
    if (owned != nullptr) {
      // The kernel unions are read: freed before the idle list grows.
      for (DeviceTimeline& d : owned->devices) {
        IntervalList().swap(d.kernel_busy);
        IntervalList().swap(d.compute_busy);
        IntervalList().swap(d.comm_busy);
      }
    }
    // Only what the cross-rank test counts: the idle list is what makes a
    // summary grow with the trace, and most gaps of a kernel-dense trace are
    // under its threshold.
    p.idle = SlowHostIdle(Subtract(windows, pd->busy));
    r.primary = std::move(p);
  }

  // Curve shape of the busiest device: the caller's, else computed.
  if (!options.curve_shape.empty()) {
    r.curve_shape = options.curve_shape;
    r.curve_reason = !options.curve_reason.empty() ? options.curve_reason : "from the utilization analysis";
    r.curve_note = options.curve_note;
  } else {
    UtilizationResult u = AnalyzeUtilization(trace);
    const DeviceUtilization* best = nullptr;
    for (const DeviceUtilization& du : u.devices)
      if (best == nullptr || du.kernel_time_ns > best->kernel_time_ns) best = &du;
    if (best != nullptr) {
      r.curve_shape = ToString(best->verdict.curve_class);
      r.curve_reason = best->verdict.reason;
      r.curve_note = best->window_note;
    }
  }

  // Real throughput: MFU against the peak, split into idle and inefficiency.
  if (pd != nullptr && options.throughput != nullptr) {
    for (const DeviceThroughput& dt : options.throughput->devices) {
      if (dt.device_id != pd->device_id || !IsValid(dt.mfu_ratio) || !IsValid(dt.busy_mfu_ratio))
        continue;
      r.mfu_ratio = dt.mfu_ratio;
      r.busy_mfu_ratio = dt.busy_mfu_ratio;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f points", 100.0 * std::max(0.0, dt.busy_mfu_ratio - dt.mfu_ratio));
      std::string idle_pts = buf;
      std::snprintf(buf, sizeof buf, "%.1f", 100.0 * std::max(0.0, 1.0 - dt.busy_mfu_ratio));
      r.real_throughput = "MFU " + FormatPct(dt.mfu_ratio) + " of the " + dt.window + " against the " +
                          dt.gpu_model + " " + std::string(ToString(dt.dominant_precision)) +
                          " peak; " + FormatPct(dt.busy_mfu_ratio) +
                          " while the GPU is busy. Of the gap to the peak, GPU idle costs " +
                          idle_pts + " and kernels running below peak " + buf + ".";
    }
  }

  // Counters only: every counter-only device's sampled stats (and, for the
  // node top line, each one's curve class).
  if (pd == nullptr) {
    for (int32_t dev : CounterOnlyDevices(trace, tl)) r.node.push_back(ComputeSampledStats(trace, dev));
    if (r.node.size() >= 2) {
      UtilizationResult u = AnalyzeUtilization(trace);
      for (const DeviceUtilization& du : u.devices)
        r.node_curves.push_back({du.device_id, std::string(ToString(du.verdict.curve_class)), du.verdict.reason});
    }
  }
  return r;
}

}  // namespace

RankDigest DigestRank(const model::Trace& trace, const DigestOptions& options) {
  return DigestRank(trace, BuildTimeline(trace), options);
}

RankDigest DigestRank(const model::Trace& trace, const Timeline& tl, const DigestOptions& options) {
  return DigestRankOf(trace, tl, nullptr, options);
}

RankDigest DigestRank(const model::Trace& trace, Timeline&& tl, const DigestOptions& options) {
  return DigestRankOf(trace, tl, &tl, options);
}

Diagnosis Diagnose(const std::vector<const model::Trace*>& traces, const DiagnosisOptions& options) {
  std::vector<RankDigest> digests;
  digests.reserve(traces.size());
  for (size_t i = 0; i < traces.size(); ++i) {
    DigestOptions o;
    if (i < options.curve_shapes.size()) o.curve_shape = options.curve_shapes[i];
    if (i < options.curve_reasons.size()) o.curve_reason = options.curve_reasons[i];
    if (i < options.curve_notes.size()) o.curve_note = options.curve_notes[i];
    if (i < options.throughputs.size()) o.throughput = options.throughputs[i];
    digests.push_back(DigestRank(*traces[i], o));
  }
  return DiagnoseDigests(digests, options.scenario);
}

Diagnosis DiagnoseDigests(const std::vector<RankDigest>& digests, std::optional<Scenario> scenario) {
  Diagnosis dx;
  dx.rank_count = static_cast<int32_t>(digests.size());

  std::vector<Finding> all;
  bool any_comm = false, any_world = false, any_contention = false;
  int64_t longest_step = 0;
  for (size_t i = 0; i < digests.size(); ++i) {
    const RankDigest& r = digests[i];
    // A trace without a rank is numbered by its input position in a set.
    const bool number = !IsValid(r.trace_rank) && digests.size() > 1;
    const int32_t rank = static_cast<int32_t>(i);
    for (Finding f : r.findings) {
      if (number) {
        if (!IsValid(f.rank)) f.rank = rank;
        for (Example& ex : f.examples)
          if (!IsValid(ex.rank)) ex.rank = rank;
      }
      any_comm = any_comm || f.category == Category::kCommunication;
      any_contention = any_contention || f.category == Category::kContention;
      all.push_back(std::move(f));
    }
    any_world = any_world || (IsValid(r.world_size) && r.world_size > 1);
    longest_step = std::max(longest_step, r.longest_marked_step_ns);
  }
  // Ranks are the inputs with GPU events; a counter log analysed beside a
  // trace is not a rank.
  size_t event_traces = 0;
  for (const RankDigest& r : digests) event_traces += r.has_gpu_events ? 1 : 0;
  if (event_traces >= 2) {
    std::vector<RankInput> ranks;
    for (size_t i = 0; i < digests.size(); ++i) {
      if (!digests[i].has_gpu_events) continue;
      int32_t rank = IsValid(digests[i].trace_rank) ? digests[i].trace_rank : static_cast<int32_t>(i);
      ranks.push_back({&digests[i], rank, 0});
    }
    AlignRanks(ranks);
    for (Finding& f : DetectCrossRank(ranks)) {
      for (const RankInput& r : ranks)
        if (r.rank == f.rank && r.digest->primary)
          PredictStepAfterFix(f, r.digest->primary->steps, r.digest->primary->steps_total_ns,
                              r.digest->primary->busy_in_span_ns);
      all.push_back(std::move(f));
    }
  }

  // With several ranks, keep each per-rank finding id once: the worst rank's,
  // and say how many ranks share it.
  if (event_traces >= 2) {
    std::map<std::string, std::vector<Finding>> by_id;
    for (Finding& f : all) by_id[f.id].push_back(std::move(f));
    all.clear();
    for (auto& [id, v] : by_id) {
      std::sort(v.begin(), v.end(), [](const Finding& a, const Finding& b) { return RankKey(a) > RankKey(b); });
      Finding best = std::move(v.front());
      if (v.size() > 1) {
        double sum = 0;
        int64_t n = 0;
        for (const Finding& f : v)
          if (IsValid(f.lost_step_ratio)) { sum += f.lost_step_ratio; ++n; }
        if (IsValid(best.lost_step_ratio) && n > 0)
          best.notes.push_back("seen on " + std::to_string(v.size()) + " ranks; worst rank " +
                               std::to_string(best.rank) + " (" + FormatPct(best.lost_step_ratio) +
                               "), mean " + FormatPct(sum / static_cast<double>(n)));
        else
          best.notes.push_back("seen on " + std::to_string(v.size()) + " ranks");
      }
      all.push_back(std::move(best));
    }
  }

  std::stable_sort(all.begin(), all.end(), [](const Finding& a, const Finding& b) {
    double ka = RankKey(a), kb = RankKey(b);
    if (ka != kb) return ka > kb;
    return a.severity > b.severity;
  });
  // Set-up and teardown around a loop are one-off: they never displace the
  // loop's material causes (issue: "set-up hides the loop").
  {
    auto material = [](const Finding& f) {
      return !IsSetupPhase(f) && IsValid(f.lost_step_ratio) && f.lost_step_ratio >= kMaterialLoss;
    };
    std::stable_partition(all.begin(), all.end(), material);
  }
  dx.findings = std::move(all);

  // Scenario.
  if (scenario) {
    dx.scenario = *scenario;
    dx.scenario_inferred = false;
    dx.scenario_reason = "given with --scenario";
  } else if (event_traces > 1 || any_world || any_comm) {
    dx.scenario = Scenario::kMulti;
    dx.scenario_reason = event_traces > 1 ? std::to_string(event_traces) + " ranks analyzed together"
                         : any_world ? "the trace is one rank of a distributed job"
                                     : "communication kernels present";
  } else if (std::any_of(dx.findings.begin(), dx.findings.end(), [](const Finding& f) {
               return f.id == "idle.unused_gpu" || f.id == "imbalance.node_gpus" ||
                      f.id == "imbalance.straggler";
             })) {
    dx.scenario = Scenario::kMulti;
    dx.scenario_reason = "several GPUs in one log, used unevenly";
  } else if (any_contention) {
    dx.scenario = Scenario::kShared;
    dx.scenario_reason = "other processes use the GPU";
  } else if (longest_step >= kProdStepNs) {
    dx.scenario = Scenario::kProd;
    dx.scenario_reason = "long steps (" + FormatMs(longest_step) + ") suggest a large model";
  } else {
    dx.scenario = Scenario::kDev;
    dx.scenario_reason = "single GPU, short steps";
  }

  // Curve shape and headline numbers from the first trace's primary device.
  const RankDigest* r0 = digests.empty() ? nullptr : &digests[0];
  const PrimaryDigest* pd = r0 != nullptr && r0->primary ? &*r0->primary : nullptr;
  if (r0 != nullptr) {
    dx.curve_shape = r0->curve_shape;
    dx.curve_reason = r0->curve_reason;
    dx.curve_note = r0->curve_note;
  }
  if (dx.curve_shape.empty()) dx.curve_shape = "INSUFFICIENT_DATA";

  // Counters only (nvidia-smi/DCGM logs, recordings): headline from the
  // sampled GPU-Util of the busiest counter device.
  std::optional<SampledDeviceStats> sampled;
  std::vector<SampledDeviceStats> node;  // every counter-only device
  if (pd == nullptr && r0 != nullptr) {
    for (const SampledDeviceStats& st : r0->node) {
      node.push_back(st);
      if (!sampled || (IsValid(st.gpu_util_ratio) &&
                       (!IsValid(sampled->gpu_util_ratio) || st.util_samples > sampled->util_samples)))
        sampled = st;
    }
  }
  if (sampled && IsValid(sampled->gpu_util_ratio)) {
    dx.per_step_basis = false;
    dx.idle_step_ratio = 1.0 - sampled->gpu_util_ratio;
  }

  if (pd != nullptr && pd->steps_total_ns > 0) {
    dx.per_step_basis = pd->steps_from_markers;
    dx.step_count = static_cast<int32_t>(pd->steps.size());
    dx.idle_step_ratio = static_cast<double>(pd->idle_ns) / static_cast<double>(pd->steps_total_ns);
    dx.kernel_step_ratio = KernelStepRatio(*pd);
    int64_t host = pd->idle_by_cause_ns[static_cast<size_t>(IdleCause::kDataLoader)] +
                   pd->idle_by_cause_ns[static_cast<size_t>(IdleCause::kSync)] +
                   pd->idle_by_cause_ns[static_cast<size_t>(IdleCause::kH2dSync)] +
                   pd->idle_by_cause_ns[static_cast<size_t>(IdleCause::kHostLaunch)] +
                   pd->idle_by_cause_ns[static_cast<size_t>(IdleCause::kHostBusy)];
    if (pd->idle_ns > 0)
      dx.host_wait_idle_ratio = static_cast<double>(host) / static_cast<double>(pd->idle_ns);
    {
      std::vector<double> len;
      for (const StepWindow& w : pd->steps) len.push_back(static_cast<double>(w.end_ns - w.start_ns));
      double sum = 0, sq = 0;
      for (double v : len) sum += v;
      dx.step_window_mean_ns = sum / static_cast<double>(len.size());
      for (double v : len) sq += (v - dx.step_window_mean_ns) * (v - dx.step_window_mean_ns);
      dx.step_window_stddev_ns = std::sqrt(sq / static_cast<double>(len.size()));
      dx.step_window_p50_ns = Percentile(len, 0.50);
      dx.step_window_p95_ns = Percentile(len, 0.95);
    }
    for (size_t c = 0; c < kIdleCauseCount; ++c)
      dx.idle_ns_per_step_by_cause[c] = static_cast<double>(pd->idle_by_cause_ns[c]) /
                                        static_cast<double>(pd->steps.size());
  }
  // Real throughput: MFU against the peak, split into idle and inefficiency.
  if (pd != nullptr && IsValid(r0->mfu_ratio)) {
    dx.mfu_ratio = r0->mfu_ratio;
    dx.busy_mfu_ratio = r0->busy_mfu_ratio;
    dx.real_throughput = r0->real_throughput;
  }

  // Bottleneck and top line.
  const Finding* top = dx.findings.empty() ? nullptr : &dx.findings.front();
  bool top_matters = top != nullptr && IsValid(top->lost_step_ratio) && top->lost_step_ratio >= 0.05;
  // Without markers, with set-up or teardown cut off the capture, the window
  // every figure speaks for is the loop (analysis/steps/run_phases.h).
  const bool loop_window =
      !dx.per_step_basis && std::any_of(dx.findings.begin(), dx.findings.end(), AroundALoop);
  std::string each = dx.per_step_basis ? "each step" : loop_window ? "the loop" : "the profiled span";
  std::string step = dx.per_step_basis ? "the step" : loop_window ? "the loop" : "the span";
  // The headline's figures are the first trace's; a rank set's first cause
  // may be another rank's, and then the WHY line says whose.
  const int32_t headline_rank =
      r0 == nullptr ? kMissingI32 : IsValid(r0->trace_rank) ? r0->trace_rank : 0;
  const bool top_elsewhere = dx.rank_count >= 2 && top != nullptr && IsValid(top->rank) &&
                             top->rank != headline_rank;
  // HEALTHY means no material cause (the seed's classes): a busy GPU whose
  // first cause costs 5% or more is busy but slow, PINNED_HIGH.
  if (pd != nullptr && dx.curve_shape == "HEALTHY" && top_matters && !top_elsewhere) {
    dx.curve_shape = "PINNED_HIGH";
    dx.curve_reason += "; but the first cause (" + top->title + ") costs " +
                       FormatPct(top->lost_step_ratio) + " of " + step + ": busy but slow";
  }
  if (pd == nullptr && sampled) {
    dx.bottleneck = top_matters ? std::string(BottleneckOf(*top)) : "none found";
    // Counter logs, the same classes: a busy GPU is HEALTHY with no material
    // cause, PINNED_HIGH with one (e.g. busy that is not work).
    if (dx.curve_shape == "PINNED_HIGH" || dx.curve_shape == "HEALTHY") {
      const std::string was = dx.curve_shape;
      dx.curve_shape = top_matters ? "PINNED_HIGH" : "HEALTHY";
      if (dx.curve_shape != was)
        dx.curve_reason += top_matters ? "; but the first cause (" + top->title + ") costs " +
                                             FormatPct(top->lost_step_ratio) + " of the span: busy but slow"
                                       : "; no cause costs 5% or more of the span";
    }
    const SampledDeviceStats& st = *sampled;
    if (!IsValid(st.gpu_util_ratio)) {
      dx.bottleneck = "unknown";
      dx.top_line = "No GPU-Util in this input: only other counters were sampled";
      dx.top_line += IsValid(st.reason_idle_ratio)
                         ? "; clock-event reasons mark the GPU idle in " +
                               FormatPct(st.reason_idle_ratio) + " of samples."
                         : ", so nothing says how busy the GPU was.";
    } else {
      std::string util = "GPU-Util averages " + FormatPct(st.gpu_util_ratio) + " (" +
                         st.util_source + ", " + SamplingPhrase(st.period_ns) + ")";
      if (top_matters && top->id == "idle.sampled") {
        dx.top_line = util + ": idle " + FormatPct(dx.idle_step_ratio) + " of the span; " +
                      FormatPct(st.under_10_ratio) + " of samples under 10%, " +
                      FormatPct(st.over_90_ratio) + " over 90%: " +
                      std::string(ShapePhrase(ShapeOf(st))) +
                      "; a profiler trace would name the cause.";
      } else if (top_matters) {
        // "..., but the GPU sat idle" (an acronym such as "GPU-Util" keeps its case).
        std::string sum = top->summary;
        if (sum.size() > 1 && std::isupper(static_cast<unsigned char>(sum[0])) &&
            std::islower(static_cast<unsigned char>(sum[1])))
          sum[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sum[0])));
        dx.top_line = util + ", but " + sum;
      } else {
        dx.top_line = util + "; no cause visible in the counters costs more than 5% of the span.";
      }
    }
  } else if (pd == nullptr && r0 != nullptr && r0->host_only_profile) {
    // The profiler never looked at a GPU: not an idle GPU.
    dx.bottleneck = "cpu_only";
    if (dx.scenario_inferred) dx.scenario_reason = "CPU-only run";
    dx.step_count = r0->host_steps;
    dx.top_line = "CPU-only run: the profiler recorded host activity only (" +
                  (r0->host_steps > 0 ? std::to_string(r0->host_steps) + " step" +
                                            (r0->host_steps == 1 ? "" : "s") + ", " +
                                            FormatMs(r0->host_step_mean_ns) + " per step"
                                      : std::string("no steps marked")) +
                  "); no GPU was profiled, so there is nothing to say about GPU use.";
  } else if (pd == nullptr) {
    dx.bottleneck = "idle";
    dx.top_line = "No GPU activity in the trace: nothing ran on the GPU while it was profiled.";
  } else if (top_matters) {
    dx.bottleneck = std::string(BottleneckOf(*top));
    bool host_side = top->category == Category::kSync || top->category == Category::kDataLoading ||
                     top->category == Category::kLaunchBound || top->category == Category::kHostBound;
    if (top->id == "idle.one_off_gap") {
      // Never "of each step": the gap happened once.
      std::string sum = top->summary;
      if (!sum.empty()) sum[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sum[0])));
      dx.top_line = "GPU idle " + FormatPct(dx.idle_step_ratio) + " of " +
                    (dx.per_step_basis ? std::string("the captured steps") : std::string("the span")) +
                    "; " + sum;
    } else if (top->id == "kernel_efficiency.busy_not_work") {
      // The finding states the gap itself: "GPU-Util 97% but 2% of SMs have work: ...".
      dx.top_line = top->summary;
    } else if (IsValid(dx.idle_step_ratio) && dx.idle_step_ratio >= 0.10 && host_side) {
      dx.top_line = "GPU idle " + FormatPct(dx.idle_step_ratio) + " of " + each + "; " +
                    FormatPct(dx.host_wait_idle_ratio) + " of that idle is waiting for the host: " +
                    CausePhrase(*top, top->per_step_basis ? std::string("the step") : step) + ".";
    } else if (IsValid(dx.idle_step_ratio) && dx.idle_step_ratio >= 0.10) {
      dx.top_line = "GPU idle " + FormatPct(dx.idle_step_ratio) + " of " + each + "; biggest cause: " +
                    top->summary;
    } else {
      dx.top_line = BusyPhrase(*pd, dx.idle_step_ratio, each) +
                    (top_elsewhere ? " on rank " + std::to_string(headline_rank) + ", but on rank " +
                                         std::to_string(top->rank) + ": "
                                   : ", but ") +
                    top->summary;
    }
  } else {
    const Finding* cb = nullptr;
    for (const Finding& f : dx.findings)
      if (f.id == "kernel_efficiency.compute_bound") cb = &f;
    double busy = IsValid(dx.idle_step_ratio) ? 1.0 - dx.idle_step_ratio : kMissingF64;
    if (IsValid(busy) && busy < 0.5) {
      dx.bottleneck = "idle";
      dx.top_line = "GPU idle " + FormatPct(dx.idle_step_ratio) + " of " + each +
                    " with no single dominant cause; " + FormatPct(dx.host_wait_idle_ratio) +
                    " of the idle is waiting for the host.";
    } else {
      dx.bottleneck = cb != nullptr ? "GPU: compute" : "none found";
      const double copies_only = (1.0 - dx.idle_step_ratio) - dx.kernel_step_ratio;
      if (IsValid(copies_only) && copies_only >= 0.25) {
        // Busy, but mostly with copies: that is the story, not the kernels.
        dx.bottleneck = "copies (no kernel running)";
        dx.top_line = "GPU busy " + FormatPct(busy) + " of " + each + ", but kernels run only " +
                      FormatPct(dx.kernel_step_ratio) + " of it: copies alone take " +
                      FormatPct(copies_only) +
                      (dx.per_step_basis ? "." : " (uploads before the first kernel or copy-back "
                                                 "after the last).");
      } else {
        dx.top_line = BusyPhrase(*pd, dx.idle_step_ratio, each) +
                      (cb != nullptr ? " in GEMM/conv kernels: compute-bound, no host-side "
                                       "bottleneck; gains now come from kernel efficiency."
                                     : "; no cause costs more than 5% of " + step + ".");
      }
    }
  }
  // Unified Memory migrations are not a wait for the host: say where they sit.
  if (pd != nullptr && top_matters && top->id == "data_loading.uvm_migrations")
    dx.top_line = "Unified Memory page migrations take " + FormatPct(top->lost_step_ratio) + " of " +
                  each + ": " + FormatPct(MetricOf(*top, "uvm_beside_kernels_ratio")) +
                  " of that while kernels run (they wait on page faults), " +
                  FormatPct(MetricOf(*top, "uvm_in_gaps_ratio")) + " in the gaps between kernels.";
  // A per-kernel counter report (Nsight Compute) has no timeline: no busy or
  // idle claim, only what its kernels measured.
  if (r0 != nullptr && digests.size() == 1 && r0->clock == "kernel-order") {
    // Measured findings carry no time lost, so they never rank as `top`.
    const Finding* measured = nullptr;
    for (const Finding& f : dx.findings)
      if (measured == nullptr && f.id.rfind("kernel_efficiency.measured_", 0) == 0) measured = &f;
    const Finding* lead = top_matters ? top : measured;
    dx.top_line = "Per-kernel counter report (kernels replayed one at a time, no timeline): " +
                  (lead != nullptr ? lead->summary
                                   : std::string("no kernel with 5% or more of kernel time is at "
                                                 "the DRAM roof, latency-bound or short of "
                                                 "occupancy (measured)."));
    if (lead == nullptr || lead->id == "kernel_efficiency.measured_none")
      dx.bottleneck = "none found";
    else if (!top_matters) dx.bottleneck = std::string(BottleneckOf(*lead));
  }
  // Counters only, several GPUs: the WHY line covers the node.
  if (pd == nullptr && sampled && node.size() >= 2)
    NodeTopLine(r0->node_curves, node, top, top_matters, dx);
  dx.top_line = "[" + dx.curve_shape + "] " + dx.top_line;
  if (!dx.curve_note.empty()) {
    // Say both windows: the class is for the steps; the kernels alone differ.
    const size_t colon = dx.curve_note.find(": ");
    std::string note = colon == std::string::npos ? dx.curve_note : dx.curve_note.substr(0, colon);
    note[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(note[0])));
    dx.top_line += " " + note + ".";
  }

  // Fixes in scenario order.
  for (const Finding& f : dx.findings)
    for (const Recommendation& r : f.recommendations)
      dx.fixes.push_back({r.kind, r.text, f.id, f.lost_step_ratio});
  std::stable_sort(dx.fixes.begin(), dx.fixes.end(), [&](const Fix& a, const Fix& b) {
    double ka = (IsValid(a.lost_step_ratio) ? a.lost_step_ratio : 0.001) * ScenarioWeight(dx.scenario, a.kind);
    double kb = (IsValid(b.lost_step_ratio) ? b.lost_step_ratio : 0.001) * ScenarioWeight(dx.scenario, b.kind);
    return ka > kb;
  });

  // Run-wide caveats.
  dx.caveats.push_back(
      "Times lost are upper bounds (what each fix could save at most) and overlap: do not add them.");
  bool counters = false;
  for (const RankDigest& r : digests) counters = counters || r.has_counters;
  if (pd == nullptr && sampled) {
    dx.caveats.push_back(
        "Counters only, no kernel timeline: causes are inferred from sampled counters; gaps "
        "shorter than the sample period are invisible.");
    if (IsValid(sampled->gpu_util_ratio) &&
        (!IsValid(sampled->period_ns) || sampled->period_ns >= kNsPerS))
      dx.caveats.push_back(
          (IsValid(sampled->period_ns) ? "Sampled every " + FormatPeriod(sampled->period_ns)
                                       : std::string("No timestamps, so the sample period is unknown")) +
          ": idle gaps and bursts within a step are averaged away, so jumps cannot be told from "
          "wobble. Sample faster (nvidia-smi -lms 100, gpuwhy record) or profile a few steps.");
  }
  if (!counters)
    dx.caveats.push_back(
        "No hardware counters in this trace: SM/tensor/DRAM activity is inferred from kernel names "
        "and timing. Counters (DCGM, GPM, nsys GPU metrics) need driver support.");
  if (dx.scenario == Scenario::kProd)
    dx.caveats.push_back(
        "Do not run full trace collection at production peak; sample with `gpuwhy record` instead.");
  if (!dx.per_step_basis && !(pd == nullptr && sampled))
    dx.caveats.push_back(
        loop_window ? "No step markers: per-step figures are for the loop (set-up and teardown "
                      "before and after it are reported once, as one-off idle)."
                    : "No step markers: per-step figures are for the whole profiled span.");
  return dx;
}

}  // namespace gpuwhy::analysis::detectors
