#include "analysis/detectors/sync_detector.h"

#include <algorithm>
#include <map>
#include <string>

#include "analysis/detectors/host_activity.h"
#include "analysis/summary/sync_api_table.h"

namespace gpuwhy::analysis::detectors {

namespace {

// kScalarReadMaxBytes: a DtoH this small before a sync is a scalar read
// (`.item()`, `print(t)`, `if t.any():`), per PyTorch's memcpy_and_sync.
constexpr int64_t kScalarReadMaxBytes = 8;

// SyncEventName: the API a cuda_sync event of `kind` stands for.
std::string_view SyncEventName(model::SyncKind kind) {
  switch (kind) {
    case model::SyncKind::kEventSynchronize: return "cudaEventSynchronize";
    case model::SyncKind::kStreamSynchronize: return "cudaStreamSynchronize";
    case model::SyncKind::kContextSynchronize: return "cudaDeviceSynchronize";
    case model::SyncKind::kStreamWaitEvent: return "cudaStreamWaitEvent";
    case model::SyncKind::kUnknown: break;
  }
  return "synchronize";
}

struct Pattern {
  int64_t count = 0;
  int64_t ns = 0;
};

}  // namespace

std::vector<Finding> DetectSyncs(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  const model::ApiTable& api = t.api_calls;
  const Timeline& tl = in.timeline;
  if (tl.blocking_api_rows.empty() && tl.blocking_sync_rows.empty()) return out;
  const model::SyncTable& sy = t.syncs;

  // Copies by correlation id, to tell what the call before a sync copied
  // (that call: Timeline::blocking_prev_row).
  std::vector<std::pair<int64_t, uint32_t>> memcpy_by_corr;
  for (size_t i = 0; i < t.memcpys.size(); ++i)
    if (IsValid(t.memcpys.correlation_id[i]))
      memcpy_by_corr.emplace_back(t.memcpys.correlation_id[i], static_cast<uint32_t>(i));
  std::sort(memcpy_by_corr.begin(), memcpy_by_corr.end());
  auto find_memcpy = [&](int64_t corr) -> int64_t {
    auto it = std::lower_bound(memcpy_by_corr.begin(), memcpy_by_corr.end(),
                               std::make_pair(corr, uint32_t{0}));
    if (it == memcpy_by_corr.end() || it->first != corr) return -1;
    return it->second;
  };

  for (const DeviceTimeline& d : tl.devices) {
    std::map<std::string, Pattern> by_name;
    Pattern scalar_reads, tensor_reads;
    int64_t blocked_ns = 0, calls = 0;
    std::vector<int64_t> per_step_calls(d.steps.size(), 0);
    for (size_t bi = 0; bi < tl.blocking_api_rows.size(); ++bi) {
      const uint32_t row = tl.blocking_api_rows[bi];
      int32_t si = Timeline::StepIndexAt(d, api.start_ns[row]);
      if (si < 0) continue;
      int64_t dur = api.end_ns[row] - api.start_ns[row];
      ++calls;
      blocked_ns += dur;
      ++per_step_calls[static_cast<size_t>(si)];
      std::string name(CanonicalApiName(t.Str(api.name[row])));
      Pattern& p = by_name[name];
      ++p.count;
      p.ns += dur;
      // `.item()` / `.cpu()`: a DtoH cudaMemcpyAsync just before, same thread.
      const SyncApiEntry* e = MatchSyncApi(t.Str(api.name[row]), api.kind[row], api.cbid[row]);
      if (e == nullptr || e->api_class != SyncApiClass::kExplicitSync) continue;
      const uint32_t prev = tl.blocking_prev_row[bi];
      if (prev == UINT32_MAX) continue;
      int64_t mrow = find_memcpy(api.correlation_id[prev]);
      if (mrow < 0) continue;
      size_t m = static_cast<size_t>(mrow);
      if (t.memcpys.copy_kind[m] != model::CopyKind::kDtoH) continue;
      int64_t bytes = t.memcpys.bytes[m];
      Pattern& q = (IsValid(bytes) && bytes <= kScalarReadMaxBytes) ? scalar_reads : tensor_reads;
      ++q.count;
      q.ns += dur;
    }
    // cuda_sync events no API call accounts for (runtime events missing).
    int64_t event_calls = 0;
    for (uint32_t row : tl.blocking_sync_rows) {
      if (IsValid(sy.device_id[row]) && sy.device_id[row] != d.device_id) continue;
      int32_t si = Timeline::StepIndexAt(d, sy.start_ns[row]);
      if (si < 0) continue;
      int64_t dur = sy.end_ns[row] - sy.start_ns[row];
      ++calls;
      ++event_calls;
      blocked_ns += dur;
      ++per_step_calls[static_cast<size_t>(si)];
      Pattern& p = by_name[std::string(SyncEventName(sy.kind[row]))];
      ++p.count;
      p.ns += dur;
    }
    if (calls == 0) continue;
    int64_t h2d_waits = 0;
    for (size_t bi = 0; bi < tl.blocking_api_rows.size(); ++bi)
      if (tl.blocking_is_h2d[bi] && Timeline::StepIndexAt(d, api.start_ns[tl.blocking_api_rows[bi]]) >= 0)
        ++h2d_waits;

    // GPU idle that began inside a blocking call.
    int64_t sync_idle = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kSync)];
    constexpr size_t kExamples = 5;
    const std::vector<const IdleGap*> worst = RecurringGaps(d, IdleCause::kSync, kExamples);

    Finding f;
    f.id = "sync.host_sync";
    f.category = Category::kSync;
    f.rank = in.rank;
    f.title = "Host-blocking synchronization";
    SetLoss(f, d, sync_idle);
    if (sync_idle <= 0) f.severity = Severity::kInfo;
    double steps = static_cast<double>(d.steps.size());
    std::string per = d.steps_from_markers ? "per step" : "in the profiled span";
    f.summary = std::to_string(calls) + " host-blocking sync calls (" +
                FormatMs(blocked_ns / std::max<int64_t>(1, static_cast<int64_t>(d.steps.size()))) +
                " of host time " + per + "); the GPU then sat idle " +
                FormatMs(f.lost_per_step_ns == kMissingI64 ? 0 : f.lost_per_step_ns) + " " + per +
                " (" + FormatPct(f.lost_step_ratio) + ").";
    AddMetric(f, "sync_calls", static_cast<double>(calls), "count", "host-blocking calls");
    AddMetric(f, "sync_calls_per_step", static_cast<double>(calls) / steps, "count",
              "blocking calls per step");
    AddMetric(f, "host_blocked_ns_per_step", static_cast<double>(blocked_ns) / steps, "ns",
              "host blocked per step");
    AddMetric(f, "gpu_idle_after_sync_ns_per_step", static_cast<double>(sync_idle) / steps, "ns",
              "GPU idle after syncs per step");
    for (const auto& [name, p] : by_name)
      AddMetric(f, "calls." + name, static_cast<double>(p.count), "count", name + " calls");
    if (scalar_reads.count > 0)
      AddMetric(f, "scalar_reads", static_cast<double>(scalar_reads.count), "count",
                "scalar reads to host (.item()/print)");
    if (tensor_reads.count > 0)
      AddMetric(f, "tensor_reads", static_cast<double>(tensor_reads.count), "count",
                "tensor copies to host (.cpu()/.to('cpu'))");
    if (h2d_waits > 0) {
      AddMetric(f, "h2d_copy_waits", static_cast<double>(h2d_waits), "count",
                "calls waiting on an HtoD copy");
      f.notes.push_back(std::to_string(h2d_waits) +
                        " of these calls wait on a host-to-device copy; their GPU idle is counted "
                        "under data_loading.h2d_copies.");
    }
    int64_t steps_with_sync = 0;
    for (int64_t c : per_step_calls) steps_with_sync += c > 0;
    AddMetric(f, "steps_with_sync_ratio", static_cast<double>(steps_with_sync) / steps, "ratio",
              "steps with a blocking call");
    if (event_calls > 0)
      f.notes.push_back(std::to_string(event_calls) +
                        " of these come from cuda_sync events with no matching runtime call in "
                        "the trace.");
    for (size_t i = 0; i < worst.size() && i < kExamples; ++i) {
      const IdleGap& g = *worst[i];
      const bool from_api = g.sync_api_row() != UINT32_MAX;
      if (!from_api && g.sync_event_row() == UINT32_MAX) continue;
      // The blocking runtime call, or the cuda_sync event that stands in for it.
      const uint32_t row = from_api ? g.sync_api_row() : g.sync_event_row();
      const int64_t s = from_api ? api.start_ns[row] : sy.start_ns[row];
      const int64_t e = from_api ? api.end_ns[row] : sy.end_ns[row];
      Example ex;
      ex.what = from_api ? std::string(CanonicalApiName(t.Str(api.name[row])))
                         : std::string(SyncEventName(sy.kind[row]));
      ex.start_ns = s;
      ex.dur_ns = e - s;
      if (d.steps_from_markers) ex.step = d.steps[static_cast<size_t>(g.step_index)].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      ex.detail = "GPU idle " + FormatMs(g.attributed_ns) + " after it";
      if (!from_api) ex.detail += " (cuda_sync event)";
      std::string ops = from_api ? EnclosingOps(t, api.tid[row], s, e, true) : std::string();
      if (!ops.empty()) ex.detail += "; in " + ops;
      f.examples.push_back(std::move(ex));
    }

    if (scalar_reads.count > 0)
      f.recommendations.push_back(
          {FixKind::kFewerSyncs,
           "Read scalars (loss.item(), print(tensor), if t.any()) every N steps, not every step: "
           "accumulate on the GPU (total += loss.detach()) and call .item() once per log interval."});
    else
      f.recommendations.push_back(
          {FixKind::kFewerSyncs,
           "Synchronize less often: log every N steps, keep metrics on the GPU, and drop "
           "torch.cuda.synchronize() outside timing code."});
    if (tensor_reads.count > 0 || by_name.count("cudaMemcpy") > 0)
      f.recommendations.push_back(
          {FixKind::kAsyncCopies,
           "Copy results to the host asynchronously: .to('cpu', non_blocking=True) into pinned "
           "memory plus a CUDA event, or cudaMemcpyAsync instead of cudaMemcpy."});
    f.recommendations.push_back(
        {FixKind::kAsyncCopies,
         "Make the GPU wait instead of the host (events + cudaStreamWaitEvent), and find hidden "
         "syncs with torch.cuda.set_sync_debug_mode('warn')."});
    f.caveats.push_back(
        "Time lost is an upper bound: the GPU idle that followed the blocking calls. Some syncs are "
        "needed (data-dependent shapes, checkpoints).");
    f.caveats.push_back("Async copies keep pinned buffers alive longer and raise the memory peak.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
