#include "analysis/detectors/measured_kernel_detector.h"

#include <cmath>

#include <fmt/format.h>

#include "analysis/throughput/measured_kernels.h"
#include "base/demangle.h"

namespace gpuwhy::analysis::detectors {

namespace {

constexpr double kMkdRoofPct = 80.0;
constexpr double kMkdLowAchievedPct = 50.0;
constexpr double kMkdOccupancyDropPct = 15.0;

// MkdName: the kernel's name, short enough for a sentence.
std::string MkdName(const MeasuredKernel& k) { return AbbreviateSymbol(k.name, 60); }

// MkdConfig: "grid (39312,1,1) x block (256,1,1)".
std::string MkdConfig(const MeasuredKernel& k) {
  auto dims = [](const int32_t d[3]) {
    if (!IsValid(d[0])) return std::string("n/a");
    return fmt::format("({},{},{})", d[0], IsValid(d[1]) ? d[1] : 1, IsValid(d[2]) ? d[2] : 1);
  };
  return "grid " + dims(k.grid) + " x block " + dims(k.block);
}

// MkdBlocks: blocks in the group's grid; kMissingI64 when an axis is missing.
int64_t MkdBlocks(const MeasuredKernel& k) {
  int64_t n = 1;
  for (int32_t g : k.grid) {
    if (g == kMissingI32 || g <= 0) return kMissingI64;
    n *= g;
  }
  return n;
}

// MkdSmCount: the SM count of `device_id` from the trace; kMissingI32 when unknown.
int32_t MkdSmCount(const DetectorInput& in, int32_t device_id) {
  for (const model::Device& d : in.trace.devices)
    if (d.device_id == device_id) return d.sm_count;
  return kMissingI32;
}

std::string MkdPct(double v) { return std::isnan(v) ? "n/a" : fmt::format("{:.0f}%", v); }

// MkdFigures: the measured figures of a group, for an example's detail.
std::string MkdFigures(const MeasuredKernel& k) {
  std::string s = fmt::format("{}; SM {}, memory {}, DRAM {}, occupancy {} of {} theoretical",
                              MkdConfig(k), MkdPct(k.sm_throughput_pct),
                              MkdPct(k.memory_throughput_pct), MkdPct(k.dram_throughput_pct),
                              MkdPct(k.achieved_occupancy_pct),
                              MkdPct(k.theoretical_occupancy_pct));
  if (!k.rules.empty()) {
    const MeasuredRule& r = k.rules.front();
    s += "; ncu " + r.rule;
    if (!std::isnan(r.est_speedup_pct))
      s += fmt::format(" (est. speedup {:.0f}%{})", r.est_speedup_pct,
                       r.speedup_kind.empty() ? "" : " " + r.speedup_kind);
  }
  return s + " (measured, ncu)";
}

struct MkdPick {
  std::vector<const MeasuredKernel*> kernels;
  double share = 0;
  int64_t time_ns = 0;
};

Finding MkdFinding(const DetectorInput& in, const MkdPick& p, const MeasuredKernels& mk,
                   std::string id, std::string title, std::string summary) {
  Finding f;
  f.id = std::move(id);
  f.category = Category::kKernelEfficiency;
  f.rank = in.rank;
  f.device_id = p.kernels.front()->device_id;
  f.title = std::move(title);
  f.summary = std::move(summary);
  f.severity = SeverityFromLoss(p.share);
  f.per_step_basis = false;
  AddMetric(f, "kernel_time_ratio", p.share, "ratio", "share of kernel time (measured, ncu)");
  AddMetric(f, "kernels", double(p.kernels.size()), "count", "kernels (name + launch config)");
  for (size_t i = 0; i < p.kernels.size() && i < 5; ++i) {
    const MeasuredKernel& k = *p.kernels[i];
    Example e;
    e.what = k.name;
    e.dur_ns = k.time_ns;
    e.device_id = k.device_id;
    e.rank = in.rank;
    e.detail = fmt::format("{} launches, {}", k.launches, MkdFigures(k));
    f.examples.push_back(std::move(e));
  }
  if (mk.untimed)
    f.notes.push_back("a per-kernel counter report (Nsight Compute replays each kernel alone): "
                      "figures are per kernel, there is no timeline");
  return f;
}

}  // namespace

std::vector<Finding> DetectMeasuredKernels(const DetectorInput& in) {
  std::vector<Finding> out;
  const bool untimed = in.trace.info.kernels_untimed && !in.trace.kernels.empty();
  if (!untimed && !HasMeasuredFigures(in.trace)) return out;
  const MeasuredKernels mk = AnalyzeMeasuredKernels(in.trace);
  bool judgeable = false;
  for (const MeasuredKernel& k : mk.groups)
    if (k.bound != SolBound::kUnknown || !std::isnan(k.achieved_occupancy_pct)) judgeable = true;
  if (!judgeable) {
    // A per-kernel report without the figures the findings need (a
    // `--metrics` run): say what is missing instead of judging nothing.
    if (untimed) {
      Finding f;
      f.id = "kernel_efficiency.measured_none";
      f.category = Category::kKernelEfficiency;
      f.rank = in.rank;
      f.severity = Severity::kInfo;
      f.per_step_basis = false;
      f.title = "Kernel profile without speed-of-light or achieved-occupancy figures";
      f.summary = fmt::format(
          "the report holds {} kernel launches with durations and launch configurations but no "
          "speed-of-light or achieved-occupancy figures, so no kernel can be called compute-, "
          "memory- or latency-bound",
          in.trace.kernels.size());
      f.recommendations.push_back(
          {FixKind::kKernelTuning,
           "Profile with `ncu --section SpeedOfLight --section Occupancy` (or `--set full`) and "
           "export `--page raw`"});
      out.push_back(std::move(f));
    }
    return out;
  }
  MkdPick roof, latency, occupancy;
  auto add = [](MkdPick& p, const MeasuredKernel& k) {
    p.kernels.push_back(&k);
    p.share += std::isnan(k.time_share_ratio) ? 0 : k.time_share_ratio;
    p.time_ns += k.time_ns;
  };
  for (const MeasuredKernel& k : mk.groups) {
    if (std::isnan(k.time_share_ratio) || k.time_share_ratio < kMeasuredMinShare) continue;
    const double roof_pct = std::isnan(k.dram_throughput_pct) ? k.memory_throughput_pct
                                                              : k.dram_throughput_pct;
    if (k.bound == SolBound::kMemory && roof_pct >= kMkdRoofPct) add(roof, k);
    if (k.bound == SolBound::kLatency) add(latency, k);
    const double a = k.achieved_occupancy_pct, t = k.theoretical_occupancy_pct;
    if (!std::isnan(a) && a < kMkdLowAchievedPct &&
        (std::isnan(t) || t - a >= kMkdOccupancyDropPct || t < kMkdLowAchievedPct))
      add(occupancy, k);
  }
  if (!roof.kernels.empty()) {
    const MeasuredKernel& k = *roof.kernels.front();
    const double pct = std::isnan(k.dram_throughput_pct) ? k.memory_throughput_pct
                                                         : k.dram_throughput_pct;
    Finding f = MkdFinding(
        in, roof, mk, "kernel_efficiency.measured_memory_roof",
        "Memory-bound kernels at the DRAM roof (measured)",
        fmt::format("`{}` moves data at {:.0f}% of the {} peak (measured, ncu) and holds {} of "
                    "kernel time: it is at the roof, so fusing it with the kernels around it "
                    "(fewer trips through DRAM), not tuning it, is the lever",
                    MkdName(k), pct, std::isnan(k.dram_throughput_pct) ? "memory" : "DRAM",
                    FormatPct(k.time_share_ratio)));
    f.recommendations.push_back({FixKind::kFusion,
                                 "Fuse it with its producer or consumer (torch.compile, a fused "
                                 "kernel, epilogue fusion) so the data makes one trip to DRAM"});
    f.recommendations.push_back({FixKind::kMixedPrecision,
                                 "Move fewer bytes: bf16/fp16 or fp8 activations halve the traffic"});
    out.push_back(std::move(f));
  }
  if (!latency.kernels.empty()) {
    const MeasuredKernel& k = *latency.kernels.front();
    Finding f = MkdFinding(
        in, latency, mk, "kernel_efficiency.measured_latency_bound",
        "Latency-bound kernels: neither compute nor memory busy (measured)",
        fmt::format("`{}` reaches {} of SM and {} of memory throughput (measured, ncu) over {} of "
                    "kernel time: latency-bound, its warps wait on stalls instead of using either",
                    MkdName(k), MkdPct(k.sm_throughput_pct), MkdPct(k.memory_throughput_pct),
                    FormatPct(k.time_share_ratio)));
    f.recommendations.push_back({FixKind::kKernelTuning,
                                 "Give each SM more independent work: more blocks or warps, more "
                                 "work per thread (ILP), fewer barriers; ncu's Warp State and "
                                 "Scheduler sections name the stall"});
    // A bigger batch only helps when the grid is what leaves SMs without work:
    // fewer blocks than SMs (80 when the report does not give the SM count,
    // the fewest on any data-centre GPU since V100).
    const int64_t blocks = MkdBlocks(k);
    const int32_t sms = MkdSmCount(in, k.device_id);
    if (blocks != kMissingI64 && blocks < (sms != kMissingI32 ? sms : 80))
      f.recommendations.push_back(
          {FixKind::kBiggerBatch,
           fmt::format("Its grid of {} blocks cannot fill {}: batch the work into fewer, "
                       "larger launches",
                       blocks, sms != kMissingI32 ? fmt::format("{} SMs", sms) : "the GPU")});
    out.push_back(std::move(f));
  }
  if (!occupancy.kernels.empty()) {
    const MeasuredKernel& k = *occupancy.kernels.front();
    const bool limited = !std::isnan(k.theoretical_occupancy_pct) &&
                         k.theoretical_occupancy_pct < kMkdLowAchievedPct;
    Finding f = MkdFinding(
        in, occupancy, mk, "kernel_efficiency.measured_low_occupancy",
        "Low achieved occupancy (measured)",
        fmt::format("`{}` keeps {} of the SM's warps resident (measured, ncu; theoretical {}) over "
                    "{} of kernel time: {}",
                    MkdName(k), MkdPct(k.achieved_occupancy_pct),
                    MkdPct(k.theoretical_occupancy_pct), FormatPct(k.time_share_ratio),
                    limited ? "its registers, shared memory or block size cap the warps per SM"
                            : "fewer warps run than the launch allows (a short grid, a tail, or "
                              "uneven blocks)"));
    f.recommendations.push_back(
        {FixKind::kKernelTuning,
         limited ? "Lower registers per thread (__launch_bounds__, -maxrregcount) or shared "
                   "memory per block, or change the block size, to fit more warps per SM"
                 : "Launch enough blocks for several waves per SM and balance the work per block"});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
