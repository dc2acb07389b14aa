#include "analysis/anchor_compat/hta_compat.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace gpuwhy::analysis {
namespace {

// HTA's JSON loader turns fractional-µs timestamps into integers without
// letting touching events overlap: start = ceil(ts), end = floor(ts + dur),
// dur = end - start (trace_parser.py, pytorch/pytorch#122425). A sub-µs event
// that crosses no integer µs thus gets end < start (dur -1). Integer-µs traces
// are unchanged by this. The model holds the exact decimal ns, so integer
// division gives the same integers as HTA's float ceil/floor.
int64_t FloorUs(int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); }
int64_t CeilUs(int64_t ns) { return -FloorUs(-ns); }

struct Ev {
  int64_t ts_us, end_us;
  int64_t stream;
  int64_t corr;
  HtaKernelType type;
  bool idle_candidate;  // kernel/memcpy/memset (not sync)
};

}  // namespace

HtaKernelType HtaKernelTypeOf(std::string_view n) {
  if (n.starts_with("nccl") || n.starts_with("hip") || n.starts_with("hccl") ||
      n.find("ncclKernel") != std::string_view::npos) {
    return HtaKernelType::kCommunication;
  }
  if (n.starts_with("Memcpy") || n.starts_with("hipMemcpy") || n.starts_with("Memset") ||
      n.starts_with("hipMemset") || n.starts_with("dma")) {
    return HtaKernelType::kMemory;
  }
  const bool non_compute =
      n.find("Memcpy") != std::string_view::npos || n.find("Memset") != std::string_view::npos ||
      n.find("dma") != std::string_view::npos || n.find("Sync") != std::string_view::npos ||
      n.starts_with("Stream Wait Event") || n.starts_with("runFunction") ||
      (n.starts_with("cuda") && n.find("LaunchKernel") != std::string_view::npos);
  return non_compute ? HtaKernelType::kOther : HtaKernelType::kComputation;
}

HtaResult ReproduceHta(const model::Trace& t, int64_t delay_us) {
  HtaResult out;
  // Last-step filter.
  int64_t last_step_us = kMissingI64;
  {
    for (size_t i = 0; i < t.ranges.size(); ++i) {
      if (!IsValid(t.ranges.step[i]) || t.ranges.kind[i] == model::RangeKind::kGpuUserAnnotation)
        continue;
      ++out.profiler_steps;
      const int64_t ts = CeilUs(t.ranges.start_ns[i]);
      if (!IsValid(last_step_us) || ts > last_step_us) last_step_us = ts;
    }
  }
  out.last_step_dropped = out.profiler_steps > 1;
  std::unordered_map<int64_t, int64_t> runtime_ts;  // correlation -> ts µs
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    const int64_t c = t.api_calls.correlation_id[i];
    if (!IsValid(c)) continue;
    const int64_t ts = CeilUs(t.api_calls.start_ns[i]);
    if (out.last_step_dropped && ts >= last_step_us) continue;
    runtime_ts.emplace(c, ts);
  }
  auto keep = [&](int64_t corr) {
    if (!out.last_step_dropped || !IsValid(corr)) return true;
    return runtime_ts.count(corr) > 0;
  };

  std::vector<Ev> ev;
  auto add = [&](int64_t s, int64_t e, int64_t stream, int64_t corr, HtaKernelType ty, bool idle) {
    if (!keep(corr)) return;
    ev.push_back({CeilUs(s), FloorUs(e), stream, corr, ty, idle});
  };
  const auto& k = t.kernels;
  std::unordered_map<StringId, HtaKernelType> type_cache;
  for (size_t i = 0; i < k.size(); ++i) {
    auto it = type_cache.find(k.name[i]);
    if (it == type_cache.end())
      it = type_cache.emplace(k.name[i], HtaKernelTypeOf(t.Str(k.name[i]))).first;
    add(k.start_ns[i], k.end_ns[i], k.stream_id[i], k.correlation_id[i], it->second, true);
  }
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    add(t.memcpys.start_ns[i], t.memcpys.end_ns[i], t.memcpys.stream_id[i],
        t.memcpys.correlation_id[i], HtaKernelType::kMemory, true);
  }
  for (size_t i = 0; i < t.memsets.size(); ++i) {
    add(t.memsets.start_ns[i], t.memsets.end_ns[i], t.memsets.stream_id[i],
        t.memsets.correlation_id[i], HtaKernelType::kMemory, true);
  }
  for (size_t i = 0; i < t.syncs.size(); ++i) {
    if (!IsValid(t.syncs.stream_id[i]) || t.syncs.stream_id[i] == -1) continue;
    add(t.syncs.start_ns[i], t.syncs.end_ns[i], t.syncs.stream_id[i], t.syncs.correlation_id[i],
        HtaKernelType::kOther, false);
  }
  out.gpu_events = static_cast<int64_t>(ev.size());
  if (ev.empty()) return out;

  // Temporal breakdown on merged integer intervals.
  auto merged_len = [](std::vector<std::pair<int64_t, int64_t>> v, int64_t* first, int64_t* last) {
    std::sort(v.begin(), v.end());
    int64_t len = 0, cs = 0, ce = 0;
    bool open = false;
    for (const auto& [s, e] : v) {
      if (!open) {
        cs = s;
        ce = e;
        open = true;
        if (first) *first = s;
      } else if (s <= ce) {
        ce = std::max(ce, e);
      } else {
        len += ce - cs;
        cs = s;
        ce = e;
      }
    }
    if (open) len += ce - cs;
    if (last) *last = ce;
    return len;
  };
  std::vector<std::pair<int64_t, int64_t>> all, comp;
  for (const Ev& e : ev) {
    all.emplace_back(e.ts_us, e.end_us);
    if (e.type == HtaKernelType::kComputation) comp.emplace_back(e.ts_us, e.end_us);
  }
  int64_t first = 0, last = 0;
  const int64_t busy = merged_len(all, &first, &last);
  HtaTemporal& tp = out.temporal;
  tp.total_us = last - first;
  tp.idle_us = tp.total_us - busy;
  tp.compute_us = merged_len(comp, nullptr, nullptr);
  tp.non_compute_us = tp.total_us - tp.compute_us - tp.idle_us;
  if (tp.total_us > 0) {
    const double tot = static_cast<double>(tp.total_us);
    tp.idle_pct = static_cast<double>(tp.idle_us) / tot * 100.0;
    tp.compute_pct = static_cast<double>(tp.compute_us) / tot * 100.0;
    tp.non_compute_pct = static_cast<double>(tp.non_compute_us) / tot * 100.0;
  }

  // Idle-time breakdown per stream.
  std::map<int64_t, std::vector<const Ev*>> by_stream;
  for (const Ev& e : ev) {
    if (e.idle_candidate) by_stream[e.stream].push_back(&e);
  }
  for (auto& [stream, list] : by_stream) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Ev* a, const Ev* b) { return a->ts_us < b->ts_us; });
    HtaIdleStream s;
    s.stream_id = stream;
    for (size_t i = 1; i < list.size(); ++i) {
      const int64_t prev_end = list[i - 1]->end_us;
      // HTA sums every interval to the previous event's end, negative ones
      // (overlap on the stream) included.
      const int64_t idle = list[i]->ts_us - prev_end;
      if (idle == 0) continue;
      auto rt = IsValid(list[i]->corr) ? runtime_ts.find(list[i]->corr) : runtime_ts.end();
      if (rt != runtime_ts.end() && rt->second > prev_end) {
        s.host_wait_us += idle;
      } else if (idle < delay_us) {
        s.kernel_wait_us += idle;
      } else {
        s.other_us += idle;
      }
    }
    out.idle_streams.push_back(s);
  }
  return out;
}

}  // namespace gpuwhy::analysis
