#include "analysis/anchor_compat/tracelens_compat.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>
#include <unordered_set>
#include <vector>

#include "analysis/utilization/intervals.h"

namespace gpuwhy::analysis {

namespace {

bool ContainsCi(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

bool IsRocclrCopy(std::string_view name) {
  static const std::regex re(
      "^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?"
      "(Aligned)?)(\\.kd)?$");
  return std::regex_match(name.begin(), name.end(), re);
}

TraceLensTimeline Compute(const model::Trace& t, bool linked_only,
                          const std::unordered_set<int64_t>& launches,
                          const std::unordered_set<int64_t>& graph_launches) {
  TraceLensTimeline r;
  std::vector<Interval> comp, comm, mem, all;
  // Linked: an ac2g flow from a runtime/driver call in the trace, or a graph
  // launch with the same correlation id.
  auto keep = [&](int64_t corr) {
    return !linked_only || (IsValid(corr) && (launches.count(corr) != 0 || graph_launches.count(corr) != 0));
  };
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ++r.events_all;
    if (!keep(t.kernels.correlation_id[i])) continue;
    Interval iv{t.kernels.start_ns[i], t.kernels.end_ns[i]};
    std::string_view name = t.Str(t.kernels.name[i]);
    if (IsRocclrCopy(name)) mem.push_back(iv);
    else if (ContainsCi(name, "nccl") || ContainsCi(name, "rccl") ||
             ContainsCi(name, "cross_device_reduce"))
      comm.push_back(iv);
    else comp.push_back(iv);
    all.push_back(iv);
    ++r.events_used;
  }
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    ++r.events_all;
    if (!keep(t.memcpys.correlation_id[i])) continue;
    Interval iv{t.memcpys.start_ns[i], t.memcpys.end_ns[i]};
    mem.push_back(iv);
    all.push_back(iv);
    ++r.events_used;
  }
  for (size_t i = 0; i < t.memsets.size(); ++i) {
    ++r.events_all;
    if (!keep(t.memsets.correlation_id[i])) continue;
    Interval iv{t.memsets.start_ns[i], t.memsets.end_ns[i]};
    comp.push_back(iv);
    all.push_back(iv);
    ++r.events_used;
  }
  if (r.events_used == 0) {
    r.error = "No GPU events found in the trace";
    return r;
  }
  // Zero-length events still bound the window (TraceLens keeps them).
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Interval& iv : all) {
    lo = std::min(lo, iv.start_ns);
    hi = std::max(hi, iv.end_ns);
  }
  std::vector<Interval> mcomp = MergeIntervals(comp), mcomm = MergeIntervals(comm);
  std::vector<Interval> mmem = MergeIntervals(mem), mall = MergeIntervals(all);
  auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
  r.ok = true;
  r.total_us = us(hi - lo);
  r.computation_us = us(TotalLength(mcomp));
  r.exposed_comm_us = us(TotalLength(Subtract(mcomm, mcomp)));
  r.exposed_memcpy_us = us(TotalLength(Subtract(Subtract(mmem, mcomp), mcomm)));
  r.busy_us = us(TotalLength(mall));
  r.idle_us = r.total_us - r.busy_us;
  r.total_comm_us = us(TotalLength(mcomm));
  r.total_memcpy_us = us(TotalLength(mmem));
  return r;
}

}  // namespace

TraceLensResult ReproduceTraceLensTimeline(const model::Trace& trace) {
  std::unordered_set<int64_t> flows(trace.info.ac2g_flow_ids.begin(), trace.info.ac2g_flow_ids.end());
  std::unordered_set<int64_t> launches, graph_launches;
  for (size_t i = 0; i < trace.api_calls.size(); ++i) {
    int64_t corr = trace.api_calls.correlation_id[i];
    if (!IsValid(corr) || (trace.api_calls.kind[i] != model::ApiKind::kRuntime &&
                           trace.api_calls.kind[i] != model::ApiKind::kDriver))
      continue;
    if (flows.count(corr) != 0) launches.insert(corr);
    std::string_view name = trace.Str(trace.api_calls.name[i]);
    if (name == "cudaGraphLaunch" || name == "hipGraphLaunch") graph_launches.insert(corr);
  }
  TraceLensResult r;
  r.linked = Compute(trace, true, launches, graph_launches);
  r.all = Compute(trace, false, launches, graph_launches);
  return r;
}

}  // namespace gpuwhy::analysis
