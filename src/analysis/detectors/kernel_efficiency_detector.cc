#include "analysis/detectors/kernel_efficiency_detector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>

#include "analysis/gpu_arch/arch_limits.h"
#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/throughput/throughput.h"
#include "analysis/utilization/kernel_fill.h"
#include "analysis/utilization/utilization.h"

namespace gpuwhy::analysis::detectors {

int32_t ComputeCapabilityMajor(const model::Trace& trace, int32_t device_id) {
  const model::Device* dev = trace.FindDevice(device_id);
  if (dev != nullptr && IsValid(dev->cc_major)) return dev->cc_major;
  std::string name = dev != nullptr ? std::string(trace.Str(dev->name)) : std::string();
  if (name.empty() && trace.devices.size() == 1) name = std::string(trace.Str(trace.devices[0].name));
  struct Guess { const char* part; int32_t cc; };
  static constexpr Guess kGuesses[] = {
      {"B200", 10}, {"B100", 10}, {"GB200", 10}, {"H100", 9}, {"H200", 9}, {"H800", 9},
      {"GH200", 9}, {"A100", 8}, {"A800", 8}, {"A10", 8}, {"A30", 8}, {"A40", 8}, {"A5000", 8},
      {"A6000", 8}, {"RTX 30", 8}, {"RTX 40", 8}, {"L4", 8}, {"L40", 8}, {"V100", 7},
      {"T4", 7}, {"RTX 20", 7}, {"TITAN RTX", 7}, {"TITAN V", 7}, {"P100", 6}, {"K80", 3}};
  for (const Guess& g : kGuesses)
    if (name.find(g.part) != std::string::npos) return g.cc;
  return kMissingI32;
}

namespace {

// Kernel names in examples and notes: demangled, abbreviated to this many bytes.
constexpr size_t kExampleNameChars = 80;
// Kernel names in a one-line sentence (the WHY line).
constexpr size_t kWhyNameChars = 40;

double MeanOf(const model::Trace& t, model::CounterKind kind, int32_t dev) {
  double sum = 0;
  int64_t n = 0;
  for (const model::CounterSeries& s : t.counters) {
    if (s.kind != kind || (IsValid(s.device_id) && s.device_id != dev)) continue;
    for (double v : s.value)
      if (IsValid(v)) { sum += v; ++n; }
  }
  return n > 0 ? sum / static_cast<double>(n) : kMissingF64;
}

// GemmShapeIssue: why a GEMM's shape wastes the tensor cores ("" when none
// stands out): fp32 operands, a dimension that is not a multiple of 8, a tiny N.
std::string GemmShapeIssue(const OpAggregate& op, int32_t sm_count) {
  if (op.precision == Precision::kFp32) return "fp32 operands (bf16/fp16 where it was meant?)";
  auto dim = [&](const char* key) -> int64_t {
    size_t p = op.params.find(key);
    if (p == std::string::npos) return -1;
    return std::atoll(op.params.c_str() + p + 2);
  };
  int64_t m = dim("M="), n = dim("N="), kk = dim("K="), b = std::max<int64_t>(1, dim("B="));
  if ((n > 0 && n < 64) || (m > 0 && m < 64)) return "a tiny M or N (under 64)";
  if ((m > 0 && m % 8) || (n > 0 && n % 8) || (kk > 0 && kk % 8))
    return "a dimension that is not a multiple of 8 (unaligned for tensor cores)";
  // Too few output tiles to give every SM one (128x128 tiles, a common
  // tensor-core tile): the GEMM cannot fill the GPU, whatever its kernel.
  if (m > 0 && n > 0 && IsValid(sm_count) && sm_count > 0) {
    int64_t tiles = b * ((m + 127) / 128) * ((n + 127) / 128);
    if (tiles < sm_count)
      return "too small to fill the GPU: about " + std::to_string(tiles) +
             " 128x128 output tiles for " + std::to_string(sm_count) + " SMs";
  }
  return "";
}

// SmCountOf: the device's SM (CU) count, missing when the trace has none.
int32_t SmCountOf(const model::Trace& t, int32_t device_id) {
  const model::Device* dev = t.FindDevice(device_id);
  return dev != nullptr ? dev->sm_count : kMissingI32;
}

// GemmsBelowRoof: the device's top GEMM/conv shapes at or above the ridge
// point that reach under 30% of their compute roof, with at least `min_ns`
// of GPU time; worst (most time) first.
std::vector<const OpAggregate*> GemmsBelowRoof(const DeviceThroughput& dt, int64_t min_ns) {
  std::vector<const OpAggregate*> out;
  for (const OpAggregate& op : dt.top_ops) {
    if (op.op_class != OpClass::kGemm && op.op_class != OpClass::kConv) continue;
    if (!IsValid(op.roof.compute_roof_ratio) || op.roof.bound != "compute") continue;
    if (op.roof.compute_roof_ratio >= 0.3 || op.gpu_time_ns < std::max<int64_t>(min_ns, 1)) continue;
    out.push_back(&op);
  }
  return out;
}

// OpExample: one op shape as a finding example (time per call).
Example OpExample(const OpAggregate& op, const DeviceTimeline& d, int32_t rank, std::string detail) {
  Example ex;
  ex.what = op.name + " " + op.params + " (" + std::string(ToString(op.precision)) + ")";
  ex.dur_ns = op.count > 0 ? op.gpu_time_ns / op.count : kMissingI64;
  ex.device_id = d.device_id;
  ex.rank = rank;
  ex.detail = std::move(detail);
  return ex;
}

// GemmExample: a GEMM/conv shape with its roofline figures and shape issue.
Example GemmExample(const OpAggregate& op, const DeviceTimeline& d, int32_t rank,
                    int32_t sm_count) {
  std::string issue = GemmShapeIssue(op, sm_count);
  char buf[96];
  std::snprintf(buf, sizeof buf, "x%lld, %.1f TFLOP/s, %.0f FLOP/B: ",
                static_cast<long long>(op.count), op.roof.achieved_tflops, op.roof.intensity);
  return OpExample(op, d, rank,
                   buf + FormatPct(op.roof.compute_roof_ratio) + " of its compute roof" +
                       (issue.empty() ? std::string() : "; " + issue));
}


// Busy that is not work (docs/detectors.md, "kernel_efficiency.busy_not_work").
// Blocks of fewer threads than this are small: the per-SM block limit (16-32)
// caps how many threads such a kernel can keep resident.
constexpr int64_t kSmallBlockThreads = 128;
// GEMM/conv kernels choose their tiles and run at low occupancy by design;
// only blocks under this many threads (one or a few warps) count as small.
constexpr int64_t kSmallGemmBlockThreads = 64;
// A small-block kernel whose resident threads reach this share of the SM's
// thread slots is taken to use the SM fully (latency is hidden from about there).
constexpr double kOccupancyEnough = 0.5;
// The finding fires when the time at stake is at least this share of the
// windows and this share of the kernel-busy time: a GPU whose SMs have work
// most of the time it is busy is not "busy without work".
constexpr double kBusyNotWorkMinStake = 0.02;
constexpr double kBusyNotWorkMinGap = 0.10;
// Counter evidence: SM active under this share of the kernel-busy time.
constexpr double kCounterRealToSurfaceMax = 0.5;
// At least this many counter samples inside the windows before they decide.
constexpr int64_t kMinCounterSamples = 5;

// LaunchAgg: kernels of one name and one launch configuration whose time is
// partly at stake.
struct LaunchAgg {
  StringId name = 0;
  int64_t blocks = kMissingI64;   // grid blocks (x*y*z)
  int64_t threads = kMissingI64;  // threads per block (x*y*z)
  double bps_sum_ns = 0;          // blocks/SM x duration (a time-weighted mean)
  double occ_sum_ns = 0;          // est. occupancy x duration, over kernels that have one
  double occ_ns = 0;              // duration of kernels with an occupancy
  int64_t kernel_ns = 0;
  int64_t count = 0;
  double stake_ns = 0;
};

// BusyWork: a device's kernel time inside the windows against the work its
// launch configurations give the SMs.
struct BusyWork {
  double stake_ns = 0;        // ∫ (1 - min(1, Σ work share)) over the time it is known
  double fill_ns = 0;         // ∫ min(1, Σ blocks/SM) over the same time
  int64_t known_busy_ns = 0;  // kernel-busy time where every running kernel has a config
  int64_t kernel_busy_ns = 0; // kernel-busy time (union) inside the windows
  std::vector<LaunchAgg> top;  // most at stake first
};

// BlocksOf / ThreadsOf: grid blocks and threads per block of kernel row `i`
// (missing dimensions count 1; kMissingI64 when x is missing).
int64_t BlocksOf(const model::KernelTable& k, size_t i) {
  if (!IsValid(k.grid_x[i])) return kMissingI64;
  return MulSat(MulSat(k.grid_x[i], IsValid(k.grid_y[i]) ? k.grid_y[i] : 1),
                IsValid(k.grid_z[i]) ? k.grid_z[i] : 1);
}
int64_t ThreadsOf(const model::KernelTable& k, size_t i) {
  if (!IsValid(k.block_x[i])) return kMissingI64;
  return MulSat(MulSat(k.block_x[i], IsValid(k.block_y[i]) ? k.block_y[i] : 1),
                IsValid(k.block_z[i]) ? k.block_z[i] : 1);
}

// WorkShare: the share of the GPU a kernel can keep working, from its launch
// figures: its SM fill min(1, blocks/SM), times, for a small-block kernel
// (under kSmallBlockThreads threads; kSmallGemmBlockThreads for a GEMM/conv),
// its resident threads per SM with work against kOccupancyEnough. NaN when
// blocks/SM is unknown.
double WorkShare(const KernelLaunchFigures& f, int64_t threads, KernelClass cls) {
  if (!IsValid(f.blocks_per_sm)) return kMissingF64;
  const double fill = std::min(1.0, f.blocks_per_sm);
  const int64_t small =
      cls == KernelClass::kGemmConv ? kSmallGemmBlockThreads : kSmallBlockThreads;
  // An occupancy of 0 is no figure: a kernel that ran had a block resident
  // (Kineto writes 0 where its estimate fails, or rounds a tiny one down).
  if (!IsValid(threads) || threads >= small || !IsValid(f.occupancy_ratio) ||
      f.occupancy_ratio <= 0 || fill <= 0)
    return fill;
  // Kineto's estimate already scales by the fill when blocks/SM < 1.
  const double per_sm = f.occupancy_ratio / fill;
  return fill * std::min(1.0, per_sm / kOccupancyEnough);
}

// MeasureBusyWork: one sweep over device `d`'s kernels that start inside its
// windows, in start order (the table is sorted by start), with the running
// kernels in a heap by end. Time where a kernel without blocks/SM runs, or
// only communication kernels run, is not judged (communication kernels use
// few SMs on purpose; communication.exposed reports their time). The loss of
// each judged instant is shared by the non-communication kernels running then.
BusyWork MeasureBusyWork(const model::Trace& t, const DeviceTimeline& d, KernelInfoMemo& names) {
  BusyWork out;
  const model::KernelTable& k = t.kernels;
  const model::Device* dev = t.FindDevice(d.device_id);
  ArchLimits limits;
  const bool have_limits = dev != nullptr && LimitsForDevice(*dev, &limits);
  const int32_t sm_count = dev != nullptr ? dev->sm_count : kMissingI32;
  struct Running {
    int64_t end_ns;
    uint32_t row;
    double work;  // NaN: unknown
    double bps;
    double occ;
    bool comm;
    double c_start;  // the shared-loss integral when it started
  };
  auto later = [](const Running& a, const Running& b) { return a.end_ns > b.end_ns; };
  std::priority_queue<Running, std::vector<Running>, decltype(later)> running(later);
  double sum_work = 0, sum_bps = 0, shared = 0;
  int64_t n_run = 0, n_unknown = 0, n_judged = 0, now = kMissingI64, busy_from = 0;
  std::map<std::tuple<StringId, int64_t, int64_t>, LaunchAgg> aggs;
  std::tuple<StringId, int64_t, int64_t> last_key{};
  LaunchAgg* last = nullptr;  // std::map nodes stay put as it grows
  auto advance = [&](int64_t to) {
    if (n_run > 0 && IsValid(now) && to > now) {
      const double dt = static_cast<double>(to - now);
      if (n_unknown == 0) {
        out.fill_ns += dt * std::min(1.0, sum_bps);
        out.known_busy_ns = AddSat(out.known_busy_ns, to - now);
        if (n_judged > 0) {
          const double loss = dt * (1.0 - std::min(1.0, sum_work));
          out.stake_ns += loss;
          shared += loss / static_cast<double>(n_judged);
        }
      }
    }
    if (!IsValid(now) || to > now) now = to;
  };
  auto finish = [&](const Running& r) {
    --n_run;
    if (!IsValid(r.work)) {
      --n_unknown;
    } else {
      sum_work -= r.work;
      sum_bps -= r.bps;
      if (!r.comm) --n_judged;
    }
    if (n_run == 0) {
      sum_work = sum_bps = 0;  // float sums drift; an empty set is exactly 0
      out.kernel_busy_ns = AddSat(out.kernel_busy_ns, now - busy_from);
    }
    const double share = r.comm || !IsValid(r.work) ? 0.0 : shared - r.c_start;
    if (share <= 0) return;
    const int64_t dur = k.end_ns[r.row] - k.start_ns[r.row];
    const std::tuple<StringId, int64_t, int64_t> key{k.name[r.row], BlocksOf(k, r.row),
                                                     ThreadsOf(k, r.row)};
    // Launches of one config come in runs: look the map up once per run.
    if (last == nullptr || key != last_key) {
      last = &aggs[key];
      last_key = key;
    }
    LaunchAgg& a = *last;
    a.name = std::get<0>(key);
    a.blocks = std::get<1>(key);
    a.threads = std::get<2>(key);
    a.bps_sum_ns += r.bps * static_cast<double>(dur);
    if (IsValid(r.occ)) {
      a.occ_sum_ns += r.occ * static_cast<double>(dur);
      a.occ_ns += static_cast<double>(dur);
    }
    a.kernel_ns = AddSat(a.kernel_ns, dur);
    ++a.count;
    a.stake_ns += share;
  };
  auto drain_to = [&](int64_t ts) {
    while (!running.empty() && running.top().end_ns <= ts) {
      const Running r = running.top();
      running.pop();
      advance(r.end_ns);
      finish(r);
    }
  };
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.device_id[i] != d.device_id || !IsValid(k.start_ns[i]) || !IsValid(k.end_ns[i]) ||
        k.end_ns[i] <= k.start_ns[i])
      continue;
    if (Timeline::StepIndexAt(d, k.start_ns[i]) < 0) continue;
    const int64_t start = IsValid(now) ? std::max(now, k.start_ns[i]) : k.start_ns[i];
    drain_to(start);
    advance(start);
    if (k.end_ns[i] <= now) continue;  // out of order and already over
    const KernelLaunchFigures fig =
        KernelFigures(t, static_cast<uint32_t>(i), sm_count, have_limits ? &limits : nullptr);
    const KernelClass cls = names.Get(k.name[i]).kernel_class;
    Running r{k.end_ns[i], static_cast<uint32_t>(i), WorkShare(fig, ThreadsOf(k, i), cls),
              fig.blocks_per_sm, fig.occupancy_ratio, cls == KernelClass::kCommunication, shared};
    if (n_run == 0) busy_from = now;
    ++n_run;
    if (!IsValid(r.work)) {
      ++n_unknown;
    } else {
      sum_work += r.work;
      sum_bps += r.bps;
      if (!r.comm) ++n_judged;
    }
    running.push(r);
  }
  drain_to(std::numeric_limits<int64_t>::max());
  for (auto& [key, a] : aggs) out.top.push_back(a);
  std::sort(out.top.begin(), out.top.end(), [](const LaunchAgg& a, const LaunchAgg& b) {
    return a.stake_ns != b.stake_ns ? a.stake_ns > b.stake_ns : a.name < b.name;
  });
  if (out.top.size() > 3) out.top.resize(3);
  return out;
}

// CounterMeanIn: the time-weighted mean of `kind` for device `dev` over
// [t0, t1) from the series with the most samples there; NaN with fewer than
// kMinCounterSamples.
double CounterMeanIn(const model::Trace& t, model::CounterKind kind, int32_t dev, int64_t t0,
                     int64_t t1) {
  const model::CounterSeries* best = nullptr;
  int64_t best_n = 0;
  for (const model::CounterSeries& s : t.counters) {
    if (s.kind != kind || s.ts_are_indexes || (IsValid(s.device_id) && s.device_id != dev))
      continue;
    int64_t n = 0;
    for (size_t i = 0; i < s.ts_ns.size(); ++i)
      n += IsValid(s.value[i]) && s.ts_ns[i] >= t0 && s.ts_ns[i] < t1;
    if (n > best_n) {
      best = &s;
      best_n = n;
    }
  }
  if (best == nullptr || best_n < kMinCounterSamples) return kMissingF64;
  return TimeWeightedMeanOver(*best, t0, t1);
}

// LaunchPhrase: "2 blocks of 32 threads" (what is known of it).
std::string LaunchPhrase(const LaunchAgg& a) {
  std::string out;
  if (IsValid(a.blocks)) out = std::to_string(a.blocks) + (a.blocks == 1 ? " block" : " blocks");
  if (IsValid(a.threads))
    out += (out.empty() ? std::string("blocks") : std::string()) + " of " +
           std::to_string(a.threads) + (a.threads == 1 ? " thread" : " threads");
  return out.empty() ? std::string("its launch configuration") : out;
}

double MeanBps(const LaunchAgg& a) {
  return a.kernel_ns > 0 ? a.bps_sum_ns / static_cast<double>(a.kernel_ns) : kMissingF64;
}
double MeanOcc(const LaunchAgg& a) { return a.occ_ns > 0 ? a.occ_sum_ns / a.occ_ns : kMissingF64; }

// BusyNotWorkFinding: "kernel_efficiency.busy_not_work" for device `d`, or
// nothing. `sm_active` (counter, NaN when absent) decides when present: the
// launch configuration is an estimate, the counter a measurement.
std::optional<Finding> BusyNotWorkFinding(const model::Trace& t, const DeviceTimeline& d,
                                          int32_t rank, const BusyWork& bw, double sm_active,
                                          KernelInfoMemo& names) {
  if (d.steps_total_ns <= 0 || bw.kernel_busy_ns <= 0) return std::nullopt;
  const double window = static_cast<double>(d.steps_total_ns);
  const double surface = static_cast<double>(bw.kernel_busy_ns) / window;
  const bool by_counter = IsValid(sm_active);
  double stake = bw.stake_ns;
  double real = bw.fill_ns / window;  // SM fill over the windows (kernels without a config: 0)
  if (by_counter) {
    real = std::min(sm_active, surface);
    if (real >= kCounterRealToSurfaceMax * surface) return std::nullopt;
    stake = static_cast<double>(bw.kernel_busy_ns) * (1.0 - real / surface);
  }
  if (stake < kBusyNotWorkMinStake * window ||
      stake < kBusyNotWorkMinGap * static_cast<double>(bw.kernel_busy_ns))
    return std::nullopt;
  const int32_t sm_count = SmCountOf(t, d.device_id);
  Finding f;
  f.id = "kernel_efficiency.busy_not_work";
  f.category = Category::kKernelEfficiency;
  f.rank = rank;
  f.device_id = d.device_id;
  f.title = "Busy is not work: the kernels leave SMs without work";
  SetLoss(f, d, SatFromDouble(stake));
  const std::string util = "GPU-Util " + FormatPct(surface);
  std::string why;
  if (!bw.top.empty()) {
    const LaunchAgg& w = bw.top.front();
    // The sentence names the function alone ("kern"); the examples keep more.
    std::string bare = AbbreviateSymbol(names.Demangled(w.name), kWhyNameChars);
    if (bare.ends_with("(…)")) bare.resize(bare.size() - std::string_view("(…)").size());
    const std::string name = "`" + bare + "`";
    const double bps = MeanBps(w), occ = MeanOcc(w);
    if (IsValid(bps) && bps < 1.0) {
      why = name + " runs " + LaunchPhrase(w) + " for " + FormatMs(w.kernel_ns) +
            (IsValid(sm_count) ? " on a " + std::to_string(sm_count) + "-SM GPU" : std::string());
    } else {
      why = name + " runs " + LaunchPhrase(w) + " for " + FormatMs(w.kernel_ns) +
            (IsValid(occ) ? ", an est. occupancy of " + FormatPct(occ) : std::string());
    }
  }
  const std::string stake_text = "up to " + FormatMs(SatFromDouble(stake)) + " (" +
                                 FormatPct(stake / window) + " of " +
                                 (d.steps_from_markers ? "the steps" : "the span") +
                                 ") of kernel time is at stake";
  if (by_counter) {
    f.summary = util + " but SMs are active " + FormatPct(real) + " of the time (counters)" +
                (why.empty() ? std::string() : "; the worst launch: " + why) + "; " + stake_text +
                ".";
  } else if (!bw.top.empty() && IsValid(MeanBps(bw.top.front())) && MeanBps(bw.top.front()) < 1) {
    f.summary = util + " but " + FormatPct(real) + " of SMs have work: " + why + "; " +
                stake_text + ".";
  } else {
    f.summary = util + " but blocks too small to fill the SMs: " + why + "; " + stake_text + ".";
  }
  AddMetric(f, "kernel_busy_ratio", surface, "ratio",
            "kernel-busy share of the windows (GPU-Util)");
  AddMetric(f, "real_ratio", real, "ratio",
            by_counter ? "SM active (counter)" : "SM fill over the windows (launch config)");
  AddMetric(f, "at_stake_ns", stake, "ns", "kernel time x (1 - real/surface), an upper bound");
  if (!by_counter && bw.kernel_busy_ns > 0)
    AddMetric(f, "launch_config_coverage",
              static_cast<double>(bw.known_busy_ns) / static_cast<double>(bw.kernel_busy_ns),
              "ratio", "kernel-busy time with a known launch configuration");
  for (const LaunchAgg& a : bw.top) {
    Example ex;
    ex.what = AbbreviateSymbol(names.Demangled(a.name), kExampleNameChars);
    ex.dur_ns = a.count > 0 ? a.kernel_ns / a.count : kMissingI64;
    ex.device_id = d.device_id;
    ex.rank = rank;
    const double bps = MeanBps(a), occ = MeanOcc(a);
    ex.detail = LaunchPhrase(a) + " x" + std::to_string(a.count) + ", " + FormatMs(a.kernel_ns) +
                ": SM fill " + FormatPct(std::min(1.0, bps)) +
                (IsValid(occ) ? ", est. occupancy " + FormatPct(occ) : std::string()) +
                ", up to " + FormatMs(SatFromDouble(a.stake_ns)) + " at stake";
    f.examples.push_back(std::move(ex));
  }
  f.recommendations.push_back(
      {FixKind::kKernelTuning,
       "Give every SM work: launch at least as many blocks as the GPU has SMs (several per SM), "
       "with at least 128 threads per block; use grid-stride loops so one launch covers any "
       "size."});
  f.recommendations.push_back(
      {FixKind::kFusion,
       "Batch tiny launches into one kernel with enough work (torch._foreach_* / fused optimizers, "
       "torch.compile, a batched or grouped kernel instead of one per item)."});
  f.caveats.push_back(
      "Time at stake is an upper bound: kernel time x (1 - real/surface), as if the kernels "
      "sped up in proportion to the SMs they leave idle; latency- or dependency-bound work gains "
      "less.");
  if (!by_counter)
    f.caveats.push_back(
        "From the launch configuration (grid, block, est. occupancy), not measured SM activity; "
        "DCGM, GPM or nsys GPU metrics would measure it.");
  return f;
}
}  // namespace

std::vector<Finding> DetectKernelEfficiency(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  const model::KernelTable& k = t.kernels;
  KernelInfoMemo names(t);
  // Real throughput from op shapes; skipped (with its step search) when the
  // trace has none, which keeps shape-less traces at their old cost.
  const bool has_shapes = !t.ranges.input_dims.all_missing();
  ThroughputResult own;
  if (in.throughput == nullptr && has_shapes) own = AnalyzeThroughput(t, FindSteps(t));
  const ThroughputResult& thr = in.throughput != nullptr ? *in.throughput : own;
  for (const DeviceTimeline& d : in.timeline.devices) {
    const DeviceThroughput* dtp = nullptr;
    for (const DeviceThroughput& dt : thr.devices)
      if (dt.device_id == d.device_id) dtp = &dt;
    bool low_mfu = false;
    for (const DeviceThroughput& dt : thr.devices) {
      // Low MFU on a GEMM-heavy device: the matrix work runs far below the roof.
      if (dt.device_id != d.device_id || !IsValid(dt.busy_mfu_ratio)) continue;
      if (!IsValid(dt.matrix_share) || dt.matrix_share < 0.5 || dt.busy_mfu_ratio >= 0.3) continue;
      Finding f;
      f.id = "kernel_efficiency.low_mfu";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.device_id = d.device_id;
      f.title = "GEMM-heavy work runs far below the GPU's peak (low MFU)";
      SetLoss(f, d, 0);
      f.lost_per_step_ns = kMissingI64;
      f.lost_step_ratio = kMissingF64;
      f.severity = Severity::kMedium;
      f.summary = "Busy-time MFU " + FormatPct(dt.busy_mfu_ratio) + " (MFU " +
                  FormatPct(dt.mfu_ratio) + " of the " + dt.window + ") against the " +
                  dt.gpu_model + " " + std::string(ToString(dt.dominant_precision)) +
                  " peak, with matrix ops " + FormatPct(dt.matrix_share) + " of op GPU time.";
      AddMetric(f, "busy_mfu_ratio", dt.busy_mfu_ratio, "ratio", "matrix FLOPs / (busy time x peak)");
      AddMetric(f, "mfu_ratio", dt.mfu_ratio, "ratio", "matrix FLOPs / (window x peak)");
      AddMetric(f, "matrix_share", dt.matrix_share, "ratio", "matrix ops' share of op GPU time");
      for (const OpAggregate* op : GemmsBelowRoof(dt, 0)) {
        f.examples.push_back(GemmExample(*op, d, in.rank, SmCountOf(t, d.device_id)));
        if (f.examples.size() >= 3) break;
      }
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Make the GEMMs tensor-core friendly: bf16/fp16 (or fp8) operands, dimensions that are "
           "multiples of 8 (64 or 128 is better), larger batches so M and N are not tiny; then "
           "profile the worst shapes with Nsight Compute."});
      out.push_back(std::move(f));
      low_mfu = true;
    }
    // A GEMM at high intensity far below its compute roof, on a device whose
    // overall MFU did not already fire: name the shape (a bad shape, fp32
    // where bf16 was meant, or a tiny N).
    if (dtp != nullptr && !low_mfu && dtp->op_gpu_time_ns > 0) {
      std::vector<const OpAggregate*> bad =
          GemmsBelowRoof(*dtp, static_cast<int64_t>(0.05 * static_cast<double>(dtp->op_gpu_time_ns)));
      if (!bad.empty()) {
        const GpuPeaks* peaks = FindGpuPeaks(dtp->gpu_model);
        int64_t lost = 0, bad_ns = 0;
        for (const OpAggregate* op : bad) {
          bad_ns += op->gpu_time_ns;
          double peak = peaks != nullptr ? PeakTflops(*peaks, op->precision) : kMissingF64;
          if (!IsValid(peak) || peak <= 0) continue;
          // What the op would take at 60% of its roof (a well-shaped GEMM's
          // practical ceiling).
          double at_good = op->flops / (0.6 * peak * 1e12) * 1e9;
          lost += std::max<int64_t>(0, op->gpu_time_ns - static_cast<int64_t>(at_good));
        }
        Finding f;
        f.id = "kernel_efficiency.gemm_below_roof";
        f.category = Category::kKernelEfficiency;
        f.rank = in.rank;
        f.title = "GEMMs with enough work run far below the compute roof (bad shapes?)";
        // The op figures cover the whole trace; scale the loss to the windows.
        double window_share = d.kernel_ns > 0 && dtp->op_gpu_time_ns > 0
                                  ? std::min(1.0, static_cast<double>(d.kernel_ns) /
                                                      static_cast<double>(dtp->op_gpu_time_ns))
                                  : 1.0;
        SetLoss(f, d, static_cast<int64_t>(static_cast<double>(lost) * window_share));
        f.lost_is_upper_bound = false;
        const OpAggregate& w = *bad.front();
        f.summary = std::to_string(bad.size()) + " GEMM shape" +
                    (bad.size() > 1 ? "s above the ridge point take " : " above the ridge point takes ") +
                    FormatPct(static_cast<double>(bad_ns) / static_cast<double>(dtp->op_gpu_time_ns)) +
                    " of op GPU time at under 30% of the " + dtp->gpu_model +
                    " roof; the worst, " + w.name + " " + w.params + ", reaches " +
                    FormatPct(w.roof.compute_roof_ratio) +
                    (GemmShapeIssue(w, SmCountOf(t, d.device_id)).empty()
                         ? std::string(".")
                         : " (" + GemmShapeIssue(w, SmCountOf(t, d.device_id)) + ").");
        AddMetric(f, "gemm_below_roof_time_ratio",
                  static_cast<double>(bad_ns) / static_cast<double>(dtp->op_gpu_time_ns), "ratio",
                  "share of op GPU time in GEMMs under 30% of their roof");
        AddMetric(f, "worst_compute_roof_ratio", w.roof.compute_roof_ratio, "ratio",
                  "worst GEMM: achieved / peak of its dtype");
        AddMetric(f, "worst_intensity", w.roof.intensity, "count", "worst GEMM: FLOPs per byte");
        for (const OpAggregate* op : bad) {
          f.examples.push_back(GemmExample(*op, d, in.rank, SmCountOf(t, d.device_id)));
          if (f.examples.size() >= 3) break;
        }
        f.recommendations.push_back(
            {FixKind::kKernelTuning,
             "Fix the shapes: pad M, N and K to multiples of 8 (64 or 128 is better; vocab and "
             "hidden sizes too), batch small GEMMs together (bmm / grouped GEMM) so N is not tiny, "
             "then check the kernel choice with Nsight Compute."});
        if (std::any_of(bad.begin(), bad.end(),
                        [](const OpAggregate* op) { return op->precision == Precision::kFp32; }))
          f.recommendations.push_back(
              {FixKind::kMixedPrecision,
               "Run the fp32 GEMMs in bf16/fp16 (torch.autocast) or TF32 "
               "(torch.set_float32_matmul_precision('high')) where fp32 was not meant."});
        f.caveats.push_back(
            "Time saved is an estimate (the GEMMs at 60% of their datasheet roof), not a bound.");
        f.caveats.push_back("FLOPs come from the recorded shapes (docs/throughput.md); the roof is "
                            "the datasheet's dense peak at boost clock.");
        out.push_back(std::move(f));
      }
    }
    // Per-name totals inside the windows, indexed by string id (a tree
    // insert per kernel cost more than the rest of this detector).
    std::vector<int64_t> name_ns(t.strings.size(), 0);
    std::vector<StringId> names_seen;
    for (size_t i = 0; i < k.size(); ++i) {
      if (k.device_id[i] != d.device_id || !IsValid(k.start_ns[i]) || !IsValid(k.end_ns[i])) continue;
      if (Timeline::StepIndexAt(d, k.start_ns[i]) < 0) continue;
      const StringId id = k.name[i];
      if (name_ns[id] == 0) names_seen.push_back(id);
      name_ns[id] += k.end_ns[i] - k.start_ns[i];
    }
    // Ascending ids, the order the tree gave (ties in the lists below are
    // broken by name either way).
    std::sort(names_seen.begin(), names_seen.end());
    names_seen.erase(std::unique(names_seen.begin(), names_seen.end()), names_seen.end());
    if (names_seen.empty() || d.kernel_ns <= 0) continue;
    // Busy that is not work: the launch configurations (or SM-active counters)
    // against the kernel-busy time.
    const BusyWork bw = MeasureBusyWork(t, d, names);
    const int64_t win0 = d.steps.front().start_ns, win1 = d.steps.back().end_ns;
    const double sm_active_in =
        CounterMeanIn(t, model::CounterKind::kSmActive, d.device_id, win0, win1);
    std::optional<Finding> not_work = BusyNotWorkFinding(t, d, in.rank, bw, sm_active_in, names);
    const bool busy_not_work = not_work.has_value();
    if (not_work) out.push_back(std::move(*not_work));
    int64_t tc_ns = 0, fp32_ns = 0, gemm_ns = 0, mem_ns = 0;
    std::vector<std::pair<int64_t, std::string>> fp32_top, mem_top;
    for (const StringId id : names_seen) {
      const int64_t ns = name_ns[id];
      const KernelInfo& info = names.Get(id);
      if (info.tensor_core) tc_ns += ns;
      if (info.kernel_class == KernelClass::kGemmConv) gemm_ns += ns;
      if (info.Fp32WithoutTensorCores()) {
        fp32_ns += ns;
        fp32_top.emplace_back(ns, AbbreviateSymbol(names.Demangled(id), kExampleNameChars));
      }
      if (IsMemoryBoundClass(info.kernel_class)) {
        mem_ns += ns;
        mem_top.emplace_back(ns, AbbreviateSymbol(names.Demangled(id), kExampleNameChars));
      }
    }
    std::sort(fp32_top.rbegin(), fp32_top.rend());
    std::sort(mem_top.rbegin(), mem_top.rend());
    double kern = static_cast<double>(d.kernel_ns);
    double busy_ratio = static_cast<double>(OverlapLength(d.busy, d.steps.front().start_ns,
                                                          d.steps.back().end_ns)) /
                        static_cast<double>(d.steps_total_ns);
    int32_t cc = ComputeCapabilityMajor(t, d.device_id);
    double steps = static_cast<double>(d.steps.size());

    auto add_examples = [&](Finding& f, const std::vector<std::pair<int64_t, std::string>>& top) {
      for (size_t i = 0; i < top.size() && i < 3; ++i) {
        Example ex;
        ex.what = top[i].second;
        ex.dur_ns = static_cast<int64_t>(static_cast<double>(top[i].first) / steps);
        ex.device_id = d.device_id;
        ex.rank = in.rank;
        ex.detail = FormatPct(static_cast<double>(top[i].first) / kern) + " of kernel time";
        f.examples.push_back(std::move(ex));
      }
    };

    // With op shapes and a peak-table row, the roofline and the ops' recorded
    // dtypes decide (names are the fallback): op figures cover the whole
    // trace, so their shares scale the in-window kernel time.
    const int64_t placed_ns =
        dtp != nullptr ? dtp->memory_bound_time_ns + dtp->compute_bound_time_ns : 0;
    const bool by_roof = dtp != nullptr && !dtp->gpu_model.empty() && dtp->op_gpu_time_ns > 0 &&
                         placed_ns >= d.kernel_ns / 2;
    std::vector<std::pair<int64_t, std::string>> fp32_ops_top;
    if (by_roof) {
      double op_ns = static_cast<double>(dtp->op_gpu_time_ns);
      fp32_ns = static_cast<int64_t>(static_cast<double>(dtp->fp32_matrix_time_ns) / op_ns * kern);
      gemm_ns = static_cast<int64_t>(static_cast<double>(dtp->matrix_time_ns) / op_ns * kern);
      tc_ns = gemm_ns - fp32_ns;
      for (const OpAggregate& op : dtp->top_ops)
        if (IsMatrixClass(op.op_class) && op.precision == Precision::kFp32)
          fp32_ops_top.emplace_back(op.gpu_time_ns, op.name + " " + op.params + " (fp32)");
    }

    // Tensor cores unused.
    if (IsValid(cc) && cc >= 7 && fp32_ns >= 0.1 * kern &&
        static_cast<double>(tc_ns) < 0.5 * static_cast<double>(std::max<int64_t>(gemm_ns, 1))) {
      Finding f;
      f.id = "kernel_efficiency.no_tensor_cores";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.title = "GEMM/conv run in fp32 without tensor cores";
      SetLoss(f, d, fp32_ns / 2);
      f.summary = by_roof
                      ? "Matrix ops with fp32 operands (recorded dtypes) and no tensor-core kernel "
                        "take " + FormatPct(static_cast<double>(fp32_ns) / kern) +
                            " of kernel time on a cc " + std::to_string(cc) +
                            ".x GPU; mixed precision could save about " +
                            FormatPct(f.lost_step_ratio) + " of the step."
                      : "fp32 GEMM/conv kernels take " +
                            FormatPct(static_cast<double>(fp32_ns) / kern) +
                            " of kernel time and tensor-core kernels " +
                            FormatPct(static_cast<double>(tc_ns) / kern) + " on a cc " +
                            std::to_string(cc) + ".x GPU; mixed precision could save about " +
                            FormatPct(f.lost_step_ratio) + " of the step.";
      AddMetric(f, "fp32_gemm_conv_kernel_ratio", static_cast<double>(fp32_ns) / kern, "ratio",
                "fp32 GEMM/conv share of kernel time");
      AddMetric(f, "tensor_core_kernel_ratio", static_cast<double>(tc_ns) / kern, "ratio",
                "tensor-core share of kernel time");
      AddMetric(f, "compute_capability_major", cc, "count", "compute capability (major)");
      if (by_roof) {
        for (size_t i = 0; i < fp32_ops_top.size() && i < 3; ++i) {
          Example ex;
          ex.what = fp32_ops_top[i].second;
          ex.device_id = d.device_id;
          ex.rank = in.rank;
          ex.detail = FormatPct(static_cast<double>(fp32_ops_top[i].first) /
                                static_cast<double>(dtp->op_gpu_time_ns)) + " of op GPU time";
          f.examples.push_back(std::move(ex));
        }
        f.notes.push_back("From the ops' recorded dtypes; fp32 matrix ops whose kernels use tensor "
                          "cores count as TF32 and are not listed.");
      } else {
        add_examples(f, fp32_top);
      }
      if (cc >= 8) {
        f.recommendations.push_back(
            {FixKind::kMixedPrecision,
             "Enable TF32 for fp32 matmul/conv: torch.backends.cuda.matmul.allow_tf32 = True and "
             "torch.backends.cudnn.allow_tf32 = True (or torch.set_float32_matmul_precision('high'))."});
        f.recommendations.push_back(
            {FixKind::kMixedPrecision,
             "Train in bf16 autocast: with torch.autocast('cuda', dtype=torch.bfloat16)."});
      } else {
        f.recommendations.push_back(
            {FixKind::kMixedPrecision,
             "Enable Automatic Mixed Precision: torch.autocast('cuda', dtype=torch.float16) with "
             "torch.cuda.amp.GradScaler, so GEMM/conv use tensor cores."});
      }
      f.caveats.push_back(
          "Time saved is an estimate (a 2x speed-up of the fp32 GEMM/conv kernels), not a bound.");
      f.lost_is_upper_bound = false;
      f.caveats.push_back(
          "Check accuracy under mixed precision / TF32 (loss scaling, convergence).");
      out.push_back(std::move(f));
    }

    // Memory-bound.
    double dram = MeanOf(t, model::CounterKind::kDramActive, d.device_id);
    double sm = MeanOf(t, model::CounterKind::kSmActive, d.device_id);
    bool by_counters = IsValid(dram) && dram >= 0.5 && (!IsValid(sm) || sm < 0.5);
    double roof_mem_share =
        by_roof && placed_ns > 0
            ? static_cast<double>(dtp->memory_bound_time_ns) / static_cast<double>(placed_ns)
            : kMissingF64;
    bool by_roofline = !by_counters && by_roof && busy_ratio >= 0.8 && roof_mem_share >= 0.5;
    bool by_names = !IsValid(dram) && !by_roof && busy_ratio >= 0.8 && mem_ns >= 0.5 * kern;
    if (by_roofline) mem_ns = static_cast<int64_t>(roof_mem_share * kern);
    const bool memory_bound = by_counters || by_roofline || by_names;
    if (memory_bound) {
      Finding f;
      f.id = "kernel_efficiency.memory_bound";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.title = "Memory-bound kernels dominate";
      SetLoss(f, d, mem_ns / 2);
      double roof_bw = by_roofline && dtp->memory_bound_time_ns > 0 && dtp->mem_bw_gbps > 0
                           ? dtp->memory_bound_bytes /
                                 (static_cast<double>(dtp->memory_bound_time_ns) / 1e9) / 1e9 /
                                 dtp->mem_bw_gbps
                           : kMissingF64;
      f.summary = by_counters
                      ? "DRAM is active " + FormatPct(dram) + " of the time while SMs are active " +
                            FormatPct(sm) + ": the kernels wait on memory."
                  : by_roofline
                      ? "Ops below the " + dtp->gpu_model + "'s ridge point (by their recorded "
                        "shapes) take " + FormatPct(roof_mem_share) +
                            " of modelled op time, at " + FormatPct(roof_bw) +
                            " of DRAM bandwidth on a GPU busy " + FormatPct(busy_ratio) +
                            (IsValid(roof_bw) && roof_bw >= 0.6
                                 ? ": bytes, not FLOPs, limit it."
                                 : ": they sit on the bandwidth side of the roofline but far "
                                   "below its roof, so fewer passes over memory (fusion) and "
                                   "fewer, larger kernels help more than faster math.")
                      : "Elementwise/reduction/copy kernels take " +
                            FormatPct(static_cast<double>(mem_ns) / kern) +
                            " of kernel time on a GPU busy " + FormatPct(busy_ratio) +
                            ": bandwidth, not compute, limits it.";
      AddMetric(f, "memory_bound_kernel_ratio", static_cast<double>(mem_ns) / kern, "ratio",
                "elementwise/reduction/copy share of kernel time");
      AddMetric(f, "busy_step_ratio", busy_ratio, "ratio", "GPU busy share of step");
      if (IsValid(dram)) AddMetric(f, "dram_active_ratio", dram, "ratio", "DRAM active (counters)");
      if (IsValid(sm)) AddMetric(f, "sm_active_ratio", sm, "ratio", "SM active (counters)");
      if (by_roofline) {
        AddMetric(f, "memory_bound_op_ratio", roof_mem_share, "ratio",
                  "share of modelled op time below the ridge point");
        AddMetric(f, "memory_bound_bandwidth_ratio", roof_bw, "ratio",
                  "those ops' bytes / time / DRAM bandwidth");
        for (const OpAggregate& op : dtp->top_ops) {
          if (op.roof.bound != "memory") continue;
          char buf[96];
          std::snprintf(buf, sizeof buf, "x%lld, %.0f GB/s, %.2f FLOP/B: ",
                        static_cast<long long>(op.count), op.roof.achieved_gbps, op.roof.intensity);
          f.examples.push_back(OpExample(op, d, in.rank,
                                         buf + FormatPct(op.roof.bandwidth_roof_ratio) +
                                             " of DRAM bandwidth"));
          if (f.examples.size() >= 3) break;
        }
      } else {
        add_examples(f, mem_top);
      }
      f.recommendations.push_back(
          {FixKind::kFusion,
           "Fuse elementwise chains so data is read once: torch.compile, or fused optimizers "
           "(foreach/fused=True) and fused norms."});
      f.recommendations.push_back(
          {FixKind::kMixedPrecision, "Move fewer bytes: bf16/fp16 activations halve the traffic."});
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Check achieved bandwidth with Nsight Compute (dram__throughput); ~80% of peak is the "
           "practical ceiling."});
      f.caveats.push_back(
          "Time saved is an estimate (fusion halving the memory-bound kernel time), not a bound.");
      f.lost_is_upper_bound = false;
      if (by_roofline)
        f.caveats.push_back(
            "Placed on the roofline from the ops' recorded shapes against the datasheet peaks; "
            "DRAM counters (DCGM, nsys GPU metrics) would confirm it and need driver support.");
      else if (!by_counters)
        f.caveats.push_back(
            "Classified from kernel names; DRAM/SM counters (DCGM, nsys GPU metrics) would confirm it "
            "and need driver support.");
      out.push_back(std::move(f));
    }

    // Compute-bound (healthy) note, only with evidence of compute: GEMM/conv
    // kernels (by name or recorded shapes), or counters with the tensor pipes
    // busy. Long opaque kernels (e.g. CUTLASS "Kernel") with little
    // memory-bound work count only when their grids fill every SM: a long
    // kernel on a few SMs is not compute-bound, whatever its length.
    int64_t kernel_count = std::max<int64_t>(1, d.kernel_count);
    const bool fills_sms = bw.known_busy_ns > 0 && bw.known_busy_ns >= bw.kernel_busy_ns / 2 &&
                           bw.fill_ns >= 0.9 * static_cast<double>(bw.known_busy_ns);
    bool long_kernels =
        d.kernel_ns / kernel_count >= kNsPerMs && mem_ns < 0.2 * kern && fills_sms;
    const double tensor_active =
        CounterMeanIn(t, model::CounterKind::kTensorActive, d.device_id, win0, win1);
    const bool pipes_busy = IsValid(tensor_active) && tensor_active >= 0.3;
    // Not beside memory_bound or busy_not_work: they would contradict it.
    if (!memory_bound && !busy_not_work && busy_ratio >= 0.9 &&
        (gemm_ns >= 0.5 * kern || long_kernels || pipes_busy)) {
      Finding f;
      f.id = "kernel_efficiency.compute_bound";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.title = "GPU busy with GEMM/conv: compute-bound";
      SetLoss(f, d, 0);
      f.lost_per_step_ns = kMissingI64;
      f.lost_step_ratio = kMissingF64;
      f.severity = Severity::kInfo;
      f.summary = "GPU busy " + FormatPct(busy_ratio) + " of the step, " +
                  (gemm_ns >= 0.5 * kern
                       ? FormatPct(static_cast<double>(gemm_ns) / kern) +
                             " of it in GEMM/conv kernels"
                   : long_kernels
                       ? "in long kernels (mean " + FormatMs(d.kernel_ns / kernel_count) +
                             ") that fill every SM"
                       : "with the tensor pipes active " + FormatPct(tensor_active) +
                             " (counters)") +
                  ": no host-side bottleneck.";
      AddMetric(f, "busy_step_ratio", busy_ratio, "ratio", "GPU busy share of step");
      AddMetric(f, "gemm_conv_kernel_ratio", static_cast<double>(gemm_ns) / kern, "ratio",
                "GEMM/conv share of kernel time");
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Further gains come from the kernels themselves: profile with Nsight Compute (tensor "
           "pipe and SM throughput), try lower precision or better tile configurations."});
      out.push_back(std::move(f));
    }

    // Throttling.
    double max_clock = kMissingF64, busy_clock_sum = 0;
    int64_t busy_clock_n = 0, throttle_samples = 0;
    for (const model::CounterSeries& s : t.counters) {
      if (IsValid(s.device_id) && s.device_id != d.device_id) continue;
      if (s.kind == model::CounterKind::kSmClockMhz) {
        for (size_t i = 0; i < s.value.size(); ++i) {
          if (!IsValid(s.value[i])) continue;
          if (!IsValid(max_clock) || s.value[i] > max_clock) max_clock = s.value[i];
          if (OverlapLength(d.busy, s.ts_ns[i], s.ts_ns[i] + 1) > 0) {
            busy_clock_sum += s.value[i];
            ++busy_clock_n;
          }
        }
      } else if (s.kind == model::CounterKind::kClockEventReasons) {
        // Bits other than GPU idle (0x1) and application clocks (0x2) mean throttling.
        for (double v : s.value)
          if (IsValid(v) && (static_cast<uint64_t>(v) & ~uint64_t{0x3}) != 0) ++throttle_samples;
      }
    }
    double busy_clock = busy_clock_n > 0 ? busy_clock_sum / static_cast<double>(busy_clock_n)
                                         : kMissingF64;
    if ((IsValid(busy_clock) && IsValid(max_clock) && busy_clock < 0.85 * max_clock) ||
        throttle_samples > 0) {
      Finding f;
      f.id = "kernel_efficiency.throttling";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.title = "Clocks throttled while busy";
      double loss_ratio = IsValid(busy_clock) ? 1.0 - busy_clock / max_clock : 0.0;
      SetLoss(f, d, static_cast<int64_t>(loss_ratio * static_cast<double>(TotalLength(d.busy))));
      f.summary = "SM clock while busy averages " +
                  std::to_string(static_cast<int64_t>(IsValid(busy_clock) ? busy_clock : 0)) +
                  " MHz of a " + std::to_string(static_cast<int64_t>(IsValid(max_clock) ? max_clock : 0)) +
                  " MHz peak; " + std::to_string(throttle_samples) + " samples report throttle reasons.";
      AddMetric(f, "busy_sm_clock_mhz", busy_clock, "MHz", "SM clock while busy");
      AddMetric(f, "max_sm_clock_mhz", max_clock, "MHz", "peak SM clock seen");
      AddMetric(f, "throttle_samples", static_cast<double>(throttle_samples), "count",
                "samples with throttle reasons");
      f.recommendations.push_back(
          {FixKind::kCooling,
           "Check power and thermal limits (nvidia-smi -q -d PERFORMANCE,POWER): cooling, power cap, "
           "or application clocks."});
      f.caveats.push_back("Clock counters need driver support and are sampled, not per kernel.");
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<Finding> DetectRecompilation(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  const model::KernelTable& k = t.kernels;
  const model::ApiTable& api = t.api_calls;
  for (const DeviceTimeline& d : in.timeline.devices) {
    if (!d.steps_from_markers || d.steps.size() < 4) continue;
    const int64_t warm_end = d.steps[1].end_ns;  // first two steps are warm-up
    std::vector<int64_t> new_per_step(d.steps.size(), 0), loads_per_step(d.steps.size(), 0);
    std::vector<uint8_t> seen(t.strings.size(), 0);  // by string id
    int64_t new_names = 0;
    std::string first_new;
    for (size_t i = 0; i < k.size(); ++i) {
      if (k.device_id[i] != d.device_id || !IsValid(k.start_ns[i])) continue;
      const bool fresh = seen[k.name[i]] == 0;
      seen[k.name[i]] = 1;
      if (fresh && k.start_ns[i] >= warm_end) {
        int32_t si = Timeline::StepIndexAt(d, k.start_ns[i]);
        if (si < 0) continue;
        ++new_names;
        ++new_per_step[static_cast<size_t>(si)];
        if (first_new.empty())
          first_new = AbbreviateSymbol(Demangle(t.Str(k.name[i])), kExampleNameChars);
      }
    }
    int64_t loads = 0;
    for (size_t i = 0; i < api.size(); ++i) {
      if (!IsValid(api.start_ns[i]) || api.start_ns[i] < warm_end) continue;
      std::string_view n = t.Str(api.name[i]);
      bool load = n.starts_with("cuModuleLoad") || n.starts_with("cuLibraryLoad") ||
                  (api.kind[i] == model::ApiKind::kDriver && IsValid(api.cbid[i]) &&
                   (api.cbid[i] == 19 || api.cbid[i] == 20 || api.cbid[i] == 678));
      if (!load) continue;
      int32_t si = Timeline::StepIndexAt(d, api.start_ns[i]);
      if (si < 0) continue;
      ++loads;
      ++loads_per_step[static_cast<size_t>(si)];
    }
    // Torch-Compiled Region ids: "Torch-Compiled Region: F/C".
    std::map<std::string, std::set<std::string>> compile_ids;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
      std::string_view n = t.Str(t.ranges.name[i]);
      constexpr std::string_view kPrefix = "Torch-Compiled Region: ";
      if (!n.starts_with(kPrefix)) continue;
      std::string_view id = n.substr(kPrefix.size());
      size_t slash = id.find('/');
      if (slash == std::string_view::npos) continue;
      compile_ids[std::string(id.substr(0, slash))].insert(std::string(id.substr(slash + 1)));
    }
    int64_t recompiled_frames = 0;
    for (const auto& [frame, ids] : compile_ids) recompiled_frames += ids.size() > 1;
    if (new_names == 0 && loads == 0 && recompiled_frames == 0) continue;
    std::vector<int64_t> durs;
    for (const StepWindow& w : d.steps) durs.push_back(w.end_ns - w.start_ns);
    std::vector<int64_t> sorted = durs;
    std::sort(sorted.begin(), sorted.end());
    int64_t median = sorted[sorted.size() / 2];
    int64_t excess = 0;
    Finding f;
    for (size_t i = 2; i < d.steps.size(); ++i) {
      if (new_per_step[i] == 0 && loads_per_step[i] == 0) continue;
      if (durs[i] > median) excess += durs[i] - median;
      Example ex;
      ex.what = "step with " + std::to_string(new_per_step[i]) + " new kernels, " +
                std::to_string(loads_per_step[i]) + " module loads";
      ex.start_ns = d.steps[i].start_ns;
      ex.dur_ns = durs[i];
      ex.step = d.steps[i].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      ex.detail = "median step " + FormatMs(median);
      if (f.examples.size() < 3) f.examples.push_back(std::move(ex));
    }
    f.id = "recompilation.new_kernels";
    f.category = Category::kRecompilation;
    f.rank = in.rank;
    f.title = "New kernels / recompiles after warm-up";
    SetLoss(f, d, excess);
    f.summary = std::to_string(new_names) + " kernel names first seen after warm-up, " +
                std::to_string(loads) + " module loads, " + std::to_string(recompiled_frames) +
                " recompiled torch.compile frames; those steps run " + FormatMs(f.lost_per_step_ns) +
                " per step over the median.";
    AddMetric(f, "new_kernel_names_after_warmup", static_cast<double>(new_names), "count",
              "kernel names first seen after warm-up");
    AddMetric(f, "module_loads_after_warmup", static_cast<double>(loads), "count",
              "cuModuleLoadData/cuLibraryLoadData after warm-up");
    AddMetric(f, "recompiled_frames", static_cast<double>(recompiled_frames), "count",
              "torch.compile frames with several compile ids");
    if (!first_new.empty()) f.notes.push_back("first new kernel: " + first_new);
    f.recommendations.push_back(
        {FixKind::kStaticShapes,
         "Keep shapes static (pad or bucket sequence lengths, drop_last=True) or mark dynamic "
         "dims (torch._dynamo.mark_dynamic); inspect causes with TORCH_LOGS=recompiles."});
    f.caveats.push_back(
        "New kernels can also be legitimate (evaluation, a different phase); time lost is the "
        "excess over the median step, an upper bound.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
