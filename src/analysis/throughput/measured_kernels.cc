#include "analysis/throughput/measured_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "base/demangle.h"

namespace gpuwhy::analysis {

namespace {

// MkSum: a duration-weighted mean being accumulated.
struct MkSum {
  double weighted = 0;
  double weight = 0;
  void Add(float v, double w) {
    if (std::isnan(v)) return;
    weighted += double(v) * w;
    weight += w;
  }
  double Mean() const { return weight > 0 ? weighted / weight : kMissingF64; }
};

struct MkGroup {
  MeasuredKernel k;
  MkSum active, sm, mem, dram, achieved, theoretical, est, tensor;
  std::vector<uint32_t> rows;
};

// MkRuleOrder: OPT/WRN/ERR (advice) before INF, then by estimated speedup.
int MkTypeRank(std::string_view t) {
  if (t == "ERR") return 0;
  if (t == "OPT") return 1;
  if (t == "WRN") return 2;
  return 3;
}

}  // namespace

std::string_view ToString(SolBound b) {
  switch (b) {
    case SolBound::kCompute: return "compute";
    case SolBound::kMemory: return "memory";
    case SolBound::kLatency: return "latency";
    default: return "";
  }
}

SolBound ClassifySpeedOfLight(double sm_pct, double memory_pct) {
  if (std::isnan(sm_pct) || std::isnan(memory_pct)) return SolBound::kUnknown;
  if (sm_pct < kSolBusyPct && memory_pct < kSolBusyPct) return SolBound::kLatency;
  return sm_pct >= memory_pct ? SolBound::kCompute : SolBound::kMemory;
}

bool HasMeasuredFigures(const model::Trace& trace) {
  const model::KernelTable& k = trace.kernels;
  for (const auto* col : {&k.sm_active_pct, &k.sm_throughput_pct, &k.memory_throughput_pct, &k.dram_throughput_pct,
                          &k.achieved_occupancy_pct, &k.theoretical_occupancy_pct,
                          &k.tensor_pipe_pct}) {
    for (size_t i = 0; i < k.size(); ++i)
      if (!std::isnan((*col)[i])) return true;
  }
  return !trace.kernel_rules.empty();
}

MeasuredKernels AnalyzeMeasuredKernels(const model::Trace& trace) {
  MeasuredKernels out;
  out.untimed = trace.info.kernels_untimed;
  const model::KernelTable& kt = trace.kernels;
  out.kernels = static_cast<int64_t>(kt.size());
  if (!out.untimed && !HasMeasuredFigures(trace)) return out;
  // Rules of each kernel row.
  std::multimap<uint32_t, size_t> rules_of;
  for (size_t i = 0; i < trace.kernel_rules.size(); ++i)
    rules_of.emplace(trace.kernel_rules.kernel_row[i], i);
  using Key = std::tuple<int32_t, StringId, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t>;
  std::map<Key, MkGroup> groups;
  DemangleMemo memo;
  for (uint32_t i = 0; i < kt.size(); ++i) {
    const int64_t dur = IsValid(kt.start_ns[i]) && IsValid(kt.end_ns[i]) && kt.end_ns[i] > kt.start_ns[i]
                            ? kt.end_ns[i] - kt.start_ns[i]
                            : 0;
    out.kernel_time_ns = AddSat(out.kernel_time_ns, dur);
    const bool measured = !std::isnan(kt.sm_active_pct[i]) || !std::isnan(kt.sm_throughput_pct[i]) ||
                          !std::isnan(kt.memory_throughput_pct[i]) ||
                          !std::isnan(kt.dram_throughput_pct[i]) ||
                          !std::isnan(kt.achieved_occupancy_pct[i]) ||
                          !std::isnan(kt.theoretical_occupancy_pct[i]) ||
                          !std::isnan(kt.tensor_pipe_pct[i]);
    const bool has_rules = rules_of.count(i) > 0;
    // A per-kernel report lists every kernel; a trace only those measured.
    if (!out.untimed && !measured && !has_rules) continue;
    if (measured || has_rules) ++out.measured_kernels;
    Key key{kt.device_id[i], kt.name[i], kt.grid_x[i], kt.grid_y[i], kt.grid_z[i],
            kt.block_x[i],   kt.block_y[i], kt.block_z[i]};
    MkGroup& g = groups[key];
    if (g.k.launches == 0) {
      g.k.name = std::string(memo.Get(trace.Str(kt.name[i])));
      g.k.device_id = kt.device_id[i];
      g.k.grid[0] = kt.grid_x[i], g.k.grid[1] = kt.grid_y[i], g.k.grid[2] = kt.grid_z[i];
      g.k.block[0] = kt.block_x[i], g.k.block[1] = kt.block_y[i], g.k.block[2] = kt.block_z[i];
      g.k.registers_per_thread = kt.registers_per_thread[i];
      g.k.shared_mem_bytes = kt.shared_mem_bytes[i];
    }
    ++g.k.launches;
    if (measured) ++g.k.measured_launches;
    g.k.time_ns = AddSat(g.k.time_ns, dur);
    // A kernel of 0 ns still counts in the means (weight 1 ns).
    const double w = double(std::max<int64_t>(dur, 1));
    g.active.Add(kt.sm_active_pct[i], w);
    g.sm.Add(kt.sm_throughput_pct[i], w);
    g.mem.Add(kt.memory_throughput_pct[i], w);
    g.dram.Add(kt.dram_throughput_pct[i], w);
    g.achieved.Add(kt.achieved_occupancy_pct[i], w);
    g.theoretical.Add(kt.theoretical_occupancy_pct[i], w);
    g.est.Add(kt.est_occupancy_pct[i], w);
    g.tensor.Add(kt.tensor_pipe_pct[i], w);
    auto [b, e] = rules_of.equal_range(i);
    for (auto it = b; it != e; ++it) {
      const size_t r = it->second;
      MeasuredRule mr;
      mr.rule = std::string(trace.Str(trace.kernel_rules.rule[r]));
      mr.type = std::string(trace.Str(trace.kernel_rules.type[r]));
      mr.message = std::string(trace.Str(trace.kernel_rules.message[r]));
      mr.speedup_kind = std::string(trace.Str(trace.kernel_rules.speedup_kind[r]));
      mr.est_speedup_pct = trace.kernel_rules.est_speedup_pct[r];
      // One copy per rule and message across the group's launches.
      bool seen = false;
      for (const MeasuredRule& o : g.k.rules)
        if (o.rule == mr.rule && o.message == mr.message) seen = true;
      if (!seen) g.k.rules.push_back(std::move(mr));
    }
  }
  for (auto& [key, g] : groups) {
    MeasuredKernel& k = g.k;
    k.sm_active_pct = g.active.Mean();
    k.sm_throughput_pct = g.sm.Mean();
    k.memory_throughput_pct = g.mem.Mean();
    k.dram_throughput_pct = g.dram.Mean();
    k.achieved_occupancy_pct = g.achieved.Mean();
    k.theoretical_occupancy_pct = g.theoretical.Mean();
    k.est_occupancy_pct = g.est.Mean();
    k.tensor_pipe_pct = g.tensor.Mean();
    k.bound = ClassifySpeedOfLight(k.sm_throughput_pct, k.memory_throughput_pct);
    if (out.kernel_time_ns > 0)
      k.time_share_ratio = double(k.time_ns) / double(out.kernel_time_ns);
    std::stable_sort(k.rules.begin(), k.rules.end(), [](const MeasuredRule& a, const MeasuredRule& b) {
      const int ta = MkTypeRank(a.type), tb = MkTypeRank(b.type);
      if (ta != tb) return ta < tb;
      const double sa = std::isnan(a.est_speedup_pct) ? -1 : a.est_speedup_pct;
      const double sb = std::isnan(b.est_speedup_pct) ? -1 : b.est_speedup_pct;
      return sa > sb;
    });
    if (k.rules.size() > MeasuredKernel::kMaxRules) k.rules.resize(MeasuredKernel::kMaxRules);
    out.groups.push_back(std::move(k));
  }
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const MeasuredKernel& a, const MeasuredKernel& b) { return a.time_ns > b.time_ns; });
  if (out.groups.size() > MeasuredKernels::kMaxGroups) out.groups.resize(MeasuredKernels::kMaxGroups);
  out.source = out.untimed ? "measured (ncu)" : "measured (ncu), joined to the trace";
  return out;
}

}  // namespace gpuwhy::analysis
