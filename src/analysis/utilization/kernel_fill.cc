#include "analysis/utilization/kernel_fill.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/gpu_arch/occupancy_calculator.h"

namespace gpuwhy::analysis {

KernelLaunchFigures KernelFigures(const model::Trace& t, uint32_t i, int32_t sm_count,
                                  const ArchLimits* limits) {
  const auto& k = t.kernels;
  KernelLaunchFigures f;
  if (IsValid(k.blocks_per_sm[i]) && k.blocks_per_sm[i] > 0) {
    f.blocks_per_sm = k.blocks_per_sm[i];
    f.blocks_per_sm_from_arg = true;
  } else if (IsValid(sm_count) && sm_count > 0 && IsValid(k.grid_x[i])) {
    const double blocks = static_cast<double>(k.grid_x[i]) *
                          (IsValid(k.grid_y[i]) ? k.grid_y[i] : 1) *
                          (IsValid(k.grid_z[i]) ? k.grid_z[i] : 1);
    f.blocks_per_sm = blocks / sm_count;
  }
  if (IsValid(k.est_occupancy_pct[i])) {
    f.occupancy_ratio = static_cast<double>(k.est_occupancy_pct[i]) / 100.0;
    f.occupancy_from_arg = true;
  } else if (limits != nullptr && IsValid(k.block_x[i]) && IsValid(k.registers_per_thread[i])) {
    LaunchConfig lc;
    lc.threads_per_block = k.block_x[i] * (IsValid(k.block_y[i]) ? k.block_y[i] : 1) *
                           (IsValid(k.block_z[i]) ? k.block_z[i] : 1);
    lc.registers_per_thread = k.registers_per_thread[i];
    if (IsValid(k.static_shared_mem_bytes[i])) lc.static_smem_bytes = k.static_shared_mem_bytes[i];
    if (IsValid(k.dynamic_shared_mem_bytes[i])) {
      lc.dynamic_smem_bytes = k.dynamic_shared_mem_bytes[i];
    } else if (IsValid(k.shared_mem_bytes[i]) && !IsValid(k.static_shared_mem_bytes[i])) {
      lc.dynamic_smem_bytes = k.shared_mem_bytes[i];
    }
    f.occupancy_ratio =
        KinetoOccupancyRatio(*limits, lc, IsValid(f.blocks_per_sm) ? f.blocks_per_sm : 1e9);
  }
  return f;
}

namespace {

// Edge: a kernel's value entering (+) or leaving (-) the running set at ts.
struct Edge {
  int64_t ts_ns;
  double delta;
  int32_t count_delta;
};

// SweepSteps: the step function of `edges`; value(sum, count) maps the
// running set to the drawn value. Edges at one instant are applied together.
template <typename ValueFn>
std::vector<StepPoint> SweepSteps(std::vector<Edge>& edges, ValueFn value) {
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.ts_ns < b.ts_ns; });
  std::vector<StepPoint> out;
  double sum = 0;
  int64_t count = 0;
  for (size_t i = 0; i < edges.size();) {
    const int64_t ts = edges[i].ts_ns;
    for (; i < edges.size() && edges[i].ts_ns == ts; ++i) {
      sum += edges[i].delta;
      count += edges[i].count_delta;
    }
    // Float sums drift; an empty set is exactly 0.
    if (count == 0) sum = 0;
    const double v = value(sum, count);
    if (out.empty() || out.back().value != v) out.push_back({ts, v});
  }
  return out;
}

}  // namespace

std::vector<KernelFillSteps> BuildKernelFillSteps(const model::Trace& t) {
  std::map<int32_t, std::vector<uint32_t>> rows;
  const auto& k = t.kernels;
  for (uint32_t i = 0; i < k.size(); ++i) {
    if (!IsValid(k.device_id[i]) || !IsValid(k.start_ns[i]) || !IsValid(k.end_ns[i]) ||
        k.end_ns[i] <= k.start_ns[i])
      continue;
    rows[k.device_id[i]].push_back(i);
  }
  std::vector<KernelFillSteps> out;
  for (const auto& [device_id, ks] : rows) {
    const model::Device* dev = t.FindDevice(device_id);
    ArchLimits limits;
    const bool have_limits = dev != nullptr && LimitsForDevice(*dev, &limits);
    const int32_t sm_count = dev != nullptr ? dev->sm_count : kMissingI32;
    std::vector<Edge> fill, occ;
    double total = 0, with_bpsm = 0, with_occ = 0;
    for (uint32_t i : ks) {
      const KernelLaunchFigures f = KernelFigures(t, i, sm_count, have_limits ? &limits : nullptr);
      const double dur = static_cast<double>(k.end_ns[i] - k.start_ns[i]);
      total += dur;
      if (IsValid(f.blocks_per_sm)) {
        with_bpsm += dur;
        fill.push_back({k.start_ns[i], f.blocks_per_sm, 1});
        fill.push_back({k.end_ns[i], -f.blocks_per_sm, -1});
      }
      if (IsValid(f.occupancy_ratio)) {
        with_occ += dur;
        occ.push_back({k.start_ns[i], f.occupancy_ratio, 1});
        occ.push_back({k.end_ns[i], -f.occupancy_ratio, -1});
      }
    }
    KernelFillSteps s;
    s.device_id = device_id;
    s.sm_fill = SweepSteps(fill, [](double sum, int64_t) { return std::min(1.0, sum); });
    s.occupancy = SweepSteps(occ, [](double sum, int64_t n) {
      return n > 0 ? std::clamp(sum / static_cast<double>(n), 0.0, 1.0) : 0.0;
    });
    if (total > 0) {
      s.sm_fill_coverage = with_bpsm / total;
      s.occupancy_coverage = with_occ / total;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuwhy::analysis
