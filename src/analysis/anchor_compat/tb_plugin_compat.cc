#include "analysis/anchor_compat/tb_plugin_compat.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_set>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/gpu_arch/name_memo.h"
#include "analysis/steps/tb_plugin_steps.h"
#include "analysis/utilization/intervals.h"

namespace gpuwhy::analysis {
namespace {

bool IsCommOpName(std::string_view n) {
  static constexpr std::string_view kNccl[] = {"nccl:broadcast", "nccl:reduce", "nccl:all_reduce",
                                               "nccl:all_gather", "nccl:reduce_scatter"};
  for (std::string_view c : kNccl) {
    if (n == c) return true;
  }
  return n.starts_with("gloo:");
}

bool IsDataLoaderName(std::string_view n) {
  return (n.starts_with("enumerate(DataLoader)#") && n.ends_with(".__next__")) ||
         n.starts_with("enumerate(DataPipe)#");
}

}  // namespace

std::string_view ToString(TbRole r) {
  static constexpr std::string_view kNames[] = {
      "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"};
  return kNames[static_cast<size_t>(r)];
}

TbPluginResult ReproduceTbPlugin(const model::Trace& t) {
  TbPluginResult out;
  const TbPluginStepResult st = TbPluginSteps(t);
  if (st.steps.empty()) return out;
  out.step_count = static_cast<int32_t>(st.steps.size());
  const int64_t lo = st.steps.front().start_ns, hi = st.steps.back().end_ns;
  out.steps_start_ns = lo;
  out.steps_end_ns = hi;

  // Role ranges.
  std::array<std::vector<Interval>, kTbRoleCount - 1> role;
  std::unordered_set<int64_t> comm_ext;
  const auto& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    const model::RangeKind k = r.kind[i];
    if (k != model::RangeKind::kCpuOp && k != model::RangeKind::kUserAnnotation &&
        k != model::RangeKind::kPythonFunction)
      continue;
    const std::string_view name = t.Str(r.name[i]);
    if (IsValid(r.step[i]) || name.starts_with("ProfilerStep#")) continue;
    if (IsCommOpName(name) && IsValid(r.external_id[i])) comm_ext.insert(r.external_id[i]);
    const TbRole role_of = IsDataLoaderName(name) && k != model::RangeKind::kPythonFunction
                               ? TbRole::kDataLoader
                               : TbRole::kCpuExec;
    role[static_cast<size_t>(role_of)].push_back({r.start_ns[i], r.end_ns[i]});
  }
  const auto& kt = t.kernels;
  for (size_t i = 0; i < kt.size(); ++i) {
    const bool comm = IsValid(kt.external_id[i]) && comm_ext.count(kt.external_id[i]);
    role[static_cast<size_t>(comm ? TbRole::kCommunication : TbRole::kKernel)].push_back(
        {kt.start_ns[i], kt.end_ns[i]});
  }
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    role[static_cast<size_t>(TbRole::kMemcpy)].push_back(
        {t.memcpys.start_ns[i], t.memcpys.end_ns[i]});
  }
  for (size_t i = 0; i < t.memsets.size(); ++i) {
    role[static_cast<size_t>(TbRole::kMemset)].push_back(
        {t.memsets.start_ns[i], t.memsets.end_ns[i]});
  }
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    if (t.api_calls.kind[i] != model::ApiKind::kRuntime) continue;
    role[static_cast<size_t>(TbRole::kRuntime)].push_back(
        {t.api_calls.start_ns[i], t.api_calls.end_ns[i]});
  }

  // Priority-ordered exclusive ranges over the union of steps.
  std::vector<Interval> step_spans;
  for (const Step& s : st.steps) step_spans.push_back({s.start_ns, s.end_ns});
  std::vector<Interval> slots = MergeIntervals(step_spans);
  std::array<std::vector<Interval>, kTbRoleCount> cost;
  for (size_t i = 0; i < role.size(); ++i) {
    cost[i] = Intersect(slots, MergeIntervals(std::move(role[i])));
    slots = Subtract(slots, cost[i]);
  }
  cost[kTbRoleCount - 1] = slots;

  double total = 0;
  std::array<double, kTbRoleCount> sum{};
  for (const Step& s : st.steps) {
    const double len = static_cast<double>(s.end_ns - s.start_ns);
    total += len;
    double named = 0;
    for (size_t i = 0; i + 1 < kTbRoleCount; ++i) {
      const double c = static_cast<double>(IntersectLength(cost[i], s.start_ns, s.end_ns));
      sum[i] += c;
      named += c;
    }
    sum[kTbRoleCount - 1] += len - named;
  }
  const double n = static_cast<double>(st.steps.size());
  out.avg_step_us = total / n / 1e3;
  for (size_t i = 0; i < kTbRoleCount; ++i) {
    out.avg_role_us[i] = sum[i] / n / 1e3;
    out.role_pct[i] = total > 0 ? sum[i] / total * 100.0 : kMissingF64;
  }

  // GPU metrics per device.
  struct Acc {
    std::vector<Interval> busy;
    std::vector<ValueSpan> bpsm;
    double occ_w = 0, occ_sum = 0, tc = 0, all = 0;
  };
  std::map<int32_t, Acc> dev;
  NameMemo tb_tc(t, TbPluginUsesTensorCores);
  for (size_t i = 0; i < kt.size(); ++i) {
    Acc& a = dev[kt.device_id[i]];
    const int64_t s = kt.start_ns[i], e = kt.end_ns[i];
    a.busy.push_back({s, e});
    if (IsValid(kt.blocks_per_sm[i]) && kt.blocks_per_sm[i] > 0) {
      a.bpsm.push_back({s, e, static_cast<double>(kt.blocks_per_sm[i])});
    }
    const int64_t cs = std::max(s, lo), ce = std::min(e, hi);
    if (IsValid(kt.est_occupancy_pct[i]) && kt.est_occupancy_pct[i] >= 0 && cs < ce) {
      a.occ_w += static_cast<double>(ce - cs);
      a.occ_sum += static_cast<double>(kt.est_occupancy_pct[i]) * static_cast<double>(ce - cs);
    }
    const double dur = static_cast<double>(e - s);
    a.all += dur;
    if (tb_tc.Get(kt.name[i])) a.tc += dur;
  }
  const double span = static_cast<double>(hi - lo);
  // Timeline window and buckets (gpu_metrics_parser.py's get_bucket_info).
  int64_t w0 = t.info.capture_start_ns, w1 = t.info.capture_end_ns;
  if (!IsValid(w0) || !IsValid(w1) || w1 <= w0) std::tie(w0, w1) = t.TimeExtent();
  int64_t bucket = kNsPerUs, buckets = 0;
  if (IsValid(w0) && IsValid(w1) && w1 > w0) {
    const double range = static_cast<double>(w1 - w0);
    while (range / static_cast<double>(bucket) > 100.0) bucket *= 10;
    buckets = static_cast<int64_t>(range / static_cast<double>(bucket));
  }
  for (auto& [id, a] : dev) {
    TbPluginDevice d;
    d.device_id = id;
    const std::vector<Interval> merged = MergeIntervals(std::move(a.busy));
    if (buckets > 0) {
      d.util_timeline_start_ns = w0;
      d.util_timeline_bucket_ns = bucket;
      d.util_timeline.reserve(static_cast<size_t>(buckets));
      for (int64_t b = 0; b < buckets; ++b) {
        const int64_t b0 = w0 + b * bucket, b1 = b + 1 < buckets ? b0 + bucket : w1;
        d.util_timeline.push_back(static_cast<double>(IntersectLength(merged, b0, b1)) /
                                  static_cast<double>(b1 - b0));
      }
    }
    if (span > 0) {
      d.gpu_util_pct = static_cast<double>(IntersectLength(merged, lo, hi)) / span * 100.0;
      if (!a.bpsm.empty()) {
        d.sm_efficiency_pct = CappedSumIntegral(std::move(a.bpsm), 1.0, lo, hi) / span * 100.0;
      }
    }
    if (a.occ_w > 0) d.occupancy_pct = a.occ_sum / a.occ_w;
    if (a.all > 0) d.tensor_core_kernel_pct = a.tc / a.all * 100.0;
    out.devices.push_back(d);
  }
  return out;
}

}  // namespace gpuwhy::analysis
