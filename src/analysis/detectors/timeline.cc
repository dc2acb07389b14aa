#include "analysis/detectors/timeline.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/gpu_arch/name_memo.h"
#include "analysis/steps/run_phases.h"
#include "analysis/summary/sync_api_table.h"

namespace gpuwhy::analysis::detectors {

namespace {

bool Valid(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// RowOrder: an op table's rows by (start, end); empty when the table already
// is in that order (every Finalize()d table).
std::vector<uint32_t> RowOrder(const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
  bool sorted = false;
  return model::SortOrder(start, end, &sorted);
}

// OpStream: the rows of one op table (kernels, copies or sets) on one device
// in (start, end) order, rows with an invalid interval skipped. It reads the
// table in place: a copy of every op for the merge below was 54 MB at 100x,
// at the timeline's peak.
struct OpStream {
  const std::vector<int32_t>* device;
  const std::vector<int64_t>* start;
  const std::vector<int64_t>* end;
  const std::vector<int64_t>* corr;
  const std::vector<uint32_t>* order;  // RowOrder(); empty: table order
  int32_t dev = kMissingI32;
  size_t pos = 0;
  uint32_t row = UINT32_MAX;  // the current row; UINT32_MAX when done

  template <typename Table>
  static OpStream Of(const Table& t, const std::vector<uint32_t>& order, int32_t dev) {
    OpStream s{&t.device_id, &t.start_ns, &t.end_ns, &t.correlation_id, &order, dev};
    s.Next();
    return s;
  }
  // Next: advance to the next row of the device with a valid interval.
  void Next() {
    const size_t n = device->size();
    while (pos < n) {
      const uint32_t r = order->empty() ? static_cast<uint32_t>(pos) : (*order)[pos];
      ++pos;
      if ((*device)[r] == dev && Valid((*start)[r], (*end)[r])) {
        row = r;
        return;
      }
    }
    row = UINT32_MAX;
  }
  bool done() const { return row == UINT32_MAX; }
  int64_t start_ns() const { return (*start)[row]; }
  int64_t end_ns() const { return (*end)[row]; }
  int64_t correlation_id() const { return (*corr)[row]; }
};

// AppendToUnion: extend `u` (a union built in start order) by [s, e), e >= s;
// touching intervals merge.
void AppendToUnion(IntervalList& u, int64_t s, int64_t e) {
  if (!u.empty() && s <= u.back().end_ns) u.back().end_ns = std::max(u.back().end_ns, e);
  else u.push_back({s, e});
}

// ShrinkUnion: as MergeIntervals leaves its result: capacity over twice the
// size is given back.
void ShrinkUnion(IntervalList& u) {
  if (u.size() < u.capacity() / 2) u.shrink_to_fit();
}

}  // namespace

std::string_view ToString(IdleCause c) {
  switch (c) {
    case IdleCause::kDataLoader: return "dataloader";
    case IdleCause::kSync: return "sync";
    case IdleCause::kHostLaunch: return "host_launch";
    case IdleCause::kKernelWait: return "kernel_wait";
    case IdleCause::kH2dSync: return "h2d_sync";
    case IdleCause::kHostBusy: return "host_busy";
    case IdleCause::kOther: break;
  }
  return "other";
}

std::string_view CauseFindingId(IdleCause c) {
  switch (c) {
    case IdleCause::kDataLoader: return "data_loading.dataloader";
    case IdleCause::kSync: return "sync.host_sync";
    case IdleCause::kH2dSync: return "data_loading.h2d_copies";
    case IdleCause::kHostLaunch: return "launch_bound.fragmented";
    case IdleCause::kKernelWait: return "launch_bound.fragmented";
    case IdleCause::kHostBusy: return "host.busy_elsewhere";
    case IdleCause::kOther: break;
  }
  return {};
}

int64_t OverlapLength(const IntervalList& a, int64_t s, int64_t e) {
  return e <= s ? 0 : IntersectLength(a, s, e);
}

int64_t OverlapLength(const IntervalList& a, const IntervalList& b) {
  return IntersectLength(a, b);
}

bool IsDataLoaderRange(std::string_view name) {
  return (name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
         name.starts_with("enumerate(DataPipe)#");
}

bool IsLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  return IsKernelLaunchApi(name, kind, cbid);
}

bool IsGraphLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  return RuntimeApiRoleOf(name, kind, cbid) == RuntimeApiRole::kGraphLaunch;
}

bool IsHostBlockingApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  const SyncApiEntry* e = MatchSyncApi(name, kind, cbid);
  return e != nullptr && e->api_class != SyncApiClass::kGpuWait;
}

std::vector<const IdleGap*> RecurringGaps(const DeviceTimeline& d, IdleCause cause, size_t sorted) {
  std::vector<const IdleGap*> out;
  for (const IdleGap& g : d.gaps)
    if (g.cause == cause && !g.one_off) out.push_back(&g);
  auto longer = [](const IdleGap* a, const IdleGap* b) {
    return a->attributed_ns != b->attributed_ns ? a->attributed_ns > b->attributed_ns
                                                : a->start_ns < b->start_ns;
  };
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min(sorted, out.size())),
                    out.end(), longer);
  return out;
}

int32_t Timeline::StepIndexAt(const DeviceTimeline& device, int64_t t) {
  const auto& w = device.steps;
  auto it = std::upper_bound(w.begin(), w.end(), t,
                             [](int64_t x, const StepWindow& s) { return x < s.start_ns; });
  if (it == w.begin()) return -1;
  --it;
  return t < it->end_ns ? static_cast<int32_t>(it - w.begin()) : -1;
}

const DeviceTimeline* Timeline::Primary() const {
  const DeviceTimeline* best = nullptr;
  for (const DeviceTimeline& d : devices)
    if (best == nullptr || TotalLength(d.kernel_busy) > TotalLength(best->kernel_busy)) best = &d;
  return best;
}

namespace {

// Launch-cadence bounds: a host wait this short is launch overhead whatever
// the thread ran (one op's dispatch), and no wait longer than the upper bound
// is cadence.
constexpr int64_t kMinCadenceNs = 50 * kNsPerUs;
constexpr int64_t kMaxCadenceNs = 1 * kNsPerMs;

// kMaxLaunchGapNs: no gap this long is launch overhead, whatever the thread
// ran: at 5-20 µs a launch it would be thousands of launches with no kernel
// starting (a 300 ms gap is never "launching work").
constexpr int64_t kMaxLaunchGapNs = 100 * kNsPerMs;

// Host-wait candidates: gaps longer than the launch cadence whose host window
// (the whole gap less DataLoader time, on the launching thread) needs a
// breakdown before it is decided: an HTA host_wait, or a sync wait followed by
// more host time than a restart. They are named by their slot, the gap's index
// counted over all devices' gaps (gap_base), and kept nowhere else: their
// windows lie in the sweep's queries (a 10 M-event host-busy capture has
// 1.7 M of them).

// DecideHostWait: the cause of a candidate's gap from its host breakdown
// (timeline.h file comment): a blocking call holding half the wait makes it
// sync / h2d_sync; a gap that began in a sync stays the sync's when the rest
// is its restart (launching); launch calls and short dispatch holding the
// larger share of a gap of launching size, launch cadence; else host work
// that launched nothing, named by the item that held it.
void DecideHostWait(const HostBreakdown& b, int64_t w, const std::vector<bool>& row_is_h2d,
                    IdleGap* g) {
  const bool after_sync = g->cause == IdleCause::kSync || g->cause == IdleCause::kH2dSync;
  const int64_t blocking = b.by_work[static_cast<size_t>(HostWork::kBlocking)];
  if (b.top_blocking.valid() && 2 * blocking >= w) {
    g->cause = row_is_h2d[b.top_blocking.row] ? IdleCause::kH2dSync : IdleCause::kSync;
    g->set_sync_api_row(b.top_blocking.row);
    return;
  }
  const int64_t launchy = b.by_work[static_cast<size_t>(HostWork::kLaunch)] +
                          b.by_work[static_cast<size_t>(HostWork::kDispatch)];
  const int64_t elsewhere = b.by_work[static_cast<size_t>(HostWork::kCpuWork)] +
                            b.by_work[static_cast<size_t>(HostWork::kOtherApi)] + b.untraced_ns;
  if (after_sync) {
    // The sync's restart bubble (launching), or time the trace does not show,
    // stays the sync's; traced work holding most of the gap takes it.
    const int64_t work = b.by_work[static_cast<size_t>(HostWork::kCpuWork)] +
                         b.by_work[static_cast<size_t>(HostWork::kOtherApi)];
    if (launchy >= elsewhere || 2 * work <= w) return;
  } else if (launchy >= elsewhere + blocking && w <= kMaxLaunchGapNs) {
    g->cause = IdleCause::kHostLaunch;
    return;
  }
  g->cause = IdleCause::kHostBusy;
  if (b.holder.valid()) g->set_host_what(b.holder, /*held=*/true);
  else if (b.top[0].ns > 0) g->set_host_what(b.top[0].example);
  else g->set_host_what({});
}

// MarkOneOffGaps: flag the gaps that hold most of the idle without repeating
// (timeline.h file comment), by their lengths alone (causes are decided
// later); SumIdleByCause() then adds the totals.
void MarkOneOffGaps(DeviceTimeline& d) {
  struct Whole {
    int64_t start_ns, end_ns, len;
    int32_t step_index;
  };
  // Without step markers, idle before the first kernel or after the last
  // (set-up uploads, teardown copy-back) is a phase of its own, never the loop.
  // With loop phases (run_phases.h) those are the phase gaps (step index -1,
  // outside idle_ns); without a loop, the rule above on the whole capture.
  int64_t edge_idle = 0;
  auto is_edge = [&](const IdleGap& g) {
    if (g.step_index < 0) return true;
    return !d.steps_from_markers && !d.has_loop_phases && !d.kernel_busy.empty() &&
           (g.end_ns <= d.kernel_busy.front().start_ns || g.start_ns >= d.kernel_busy.back().end_ns);
  };
  for (const IdleGap& g : d.gaps)
    if (is_edge(g) && g.step_index >= 0) edge_idle += g.attributed_ns;
  // ForEachInner: each whole gap that is not an edge gap, once. The pieces of
  // one gap are adjacent in d.gaps. No copy of the gaps is made: on a
  // 2 M-event trace they are about as many as the kernels.
  auto for_each_inner = [&](auto&& fn) {
    const IdleGap* prev = nullptr;
    for (const IdleGap& g : d.gaps) {
      const bool same = prev != nullptr && prev->start_ns == g.start_ns && prev->end_ns == g.end_ns;
      prev = &g;
      if (same || is_edge(g)) continue;
      fn(Whole{g.start_ns, g.end_ns, g.end_ns - g.start_ns, g.step_index});
    }
  };
  // The two longest inner gaps (the earlier one first on equal lengths).
  Whole top[2] = {};
  size_t inner = 0;
  for_each_inner([&](const Whole& w) {
    if (inner == 0 || w.len > top[0].len) {
      top[1] = top[0];
      top[0] = w;
    } else if (inner == 1 || w.len > top[1].len) {
      top[1] = w;
    }
    ++inner;
  });
  std::vector<Whole> one_off;
  const int64_t idle = d.idle_ns - edge_idle;
  // Saturating: on a damaged trace one gap may span most of int64.
  if (idle > 0 && inner > 0 && MulSat(50, idle) >= d.steps_total_ns) {
    size_t k = 0;
    if (MulSat(10, top[0].len) >= MulSat(8, idle)) {
      k = 1;
    } else if (inner >= 2 && MulSat(10, AddSat(top[0].len, top[1].len)) >= MulSat(8, idle)) {
      k = 2;
    }
    bool isolated = false;
    if (k > 0 && d.steps_from_markers && d.steps.size() >= 2) {
      // Steps with a gap at least half the smaller chosen one.
      const int64_t bar = top[k - 1].len / 2;
      std::vector<bool> seen(d.steps.size(), false);
      for_each_inner([&](const Whole& w) {
        if (w.len >= bar && w.step_index >= 0) seen[static_cast<size_t>(w.step_index)] = true;
      });
      const size_t n = static_cast<size_t>(std::count(seen.begin(), seen.end(), true));
      isolated = n <= k && n < d.steps.size();
    } else if (k > 0 && !d.steps_from_markers) {
      const int64_t s0 = d.steps.front().start_ns, e0 = d.steps.back().end_ns;
      auto edge = [&](const Whole& w) { return w.start_ns == s0 || w.end_ns == e0; };
      isolated = k == 1 || (edge(top[0]) && edge(top[1]));
    }
    if (isolated) one_off.assign(top, top + k);
  }
  auto is_one_off = [&](const IdleGap& g) {
    for (const Whole& w : one_off)
      if (w.start_ns == g.start_ns && w.end_ns == g.end_ns) return true;
    return false;
  };
  for (IdleGap& g : d.gaps) {
    g.edge = is_edge(g);
    g.one_off = g.edge || is_one_off(g);
  }
}

// SumIdleByCause: idle_by_cause, recurring_idle_by_cause and one_off_idle_ns
// from the decided, flagged gaps.
void SumIdleByCause(DeviceTimeline& d) {
  d.idle_by_cause = {};
  d.recurring_idle_by_cause = {};
  d.one_off_idle_ns = 0;
  for (const IdleGap& g : d.gaps) {
    // Set-up and teardown gaps (step index -1) lie outside the loop's idle.
    if (g.step_index >= 0) d.idle_by_cause[static_cast<size_t>(g.cause)] += g.attributed_ns;
    if (g.one_off) d.one_off_idle_ns += g.attributed_ns;
    else d.recurring_idle_by_cause[static_cast<size_t>(g.cause)] += g.attributed_ns;
  }
}

}  // namespace

Timeline BuildTimeline(const model::Trace& trace) { return BuildTimeline(trace, BuildRunSteps(trace)); }

Timeline BuildTimeline(const model::Trace& trace, const RunSteps& run_steps) {
  Timeline tl;
  const model::ApiTable& api = trace.api_calls;

  // Correlation → api row (launches and copies; the first row wins).
  CorrelationIndex corr_index;
  corr_index.Build(api);
  {
    // HtoD memcpy correlation ids, to tell copy-then-sync from other syncs.
    std::vector<int64_t> h2d_corr;
    for (size_t i = 0; i < trace.memcpys.size(); ++i)
      if (trace.memcpys.copy_kind[i] == model::CopyKind::kHtoD && IsValid(trace.memcpys.correlation_id[i]))
        h2d_corr.push_back(trace.memcpys.correlation_id[i]);
    std::sort(h2d_corr.begin(), h2d_corr.end());
    auto is_h2d = [&](int64_t corr) {
      return IsValid(corr) && std::binary_search(h2d_corr.begin(), h2d_corr.end(), corr);
    };
    std::map<int64_t, uint32_t> last_on_tid;  // previous call on each thread
    ApiPredicateMemo blocking(trace, IsHostBlockingApi);
    for (size_t i = 0; i < api.size(); ++i) {
      const auto last = last_on_tid.try_emplace(api.tid[i], UINT32_MAX).first;
      const uint32_t prev_row = last->second;
      last->second = static_cast<uint32_t>(i);
      if (!Valid(api.start_ns[i], api.end_ns[i])) continue;
      if (!blocking(i)) continue;
      tl.blocking_api_rows.push_back(static_cast<uint32_t>(i));
      tl.blocking_prev_row.push_back(prev_row);
      tl.blocking_is_h2d.push_back(is_h2d(api.correlation_id[i]) ||
                                   (prev_row != UINT32_MAX && is_h2d(api.correlation_id[prev_row])));
    }
  }
  {
    // cuda_sync events with no runtime call of the same correlation id. When
    // the call is there it decides (blocking or not): old nsys exports label
    // cudaStreamWaitEvent records as stream synchronizes.
    const model::SyncTable& sy = trace.syncs;
    for (size_t i = 0; i < sy.size(); ++i) {
      const model::SyncKind kind = sy.kind[i];
      if (kind != model::SyncKind::kEventSynchronize && kind != model::SyncKind::kStreamSynchronize &&
          kind != model::SyncKind::kContextSynchronize)
        continue;
      if (!Valid(sy.start_ns[i], sy.end_ns[i])) continue;
      if (IsValid(sy.correlation_id[i]) && corr_index.FindRow(sy.correlation_id[i]) != UINT32_MAX)
        continue;
      tl.blocking_sync_rows.push_back(static_cast<uint32_t>(i));
    }
    std::stable_sort(tl.blocking_sync_rows.begin(), tl.blocking_sync_rows.end(),
                     [&](uint32_t a, uint32_t b) { return sy.start_ns[a] < sy.start_ns[b]; });
  }
  {
    std::vector<Interval> dl;
    const model::RangeTable& r = trace.ranges;
    for (size_t i = 0; i < r.size(); ++i) {
      if (r.kind[i] == model::RangeKind::kGpuUserAnnotation) continue;
      if (!Valid(r.start_ns[i], r.end_ns[i])) continue;
      if (IsDataLoaderRange(trace.Str(r.name[i]))) dl.push_back({r.start_ns[i], r.end_ns[i]});
    }
    tl.dataloader = UnionOf(std::move(dl));
  }

  // Devices with GPU work, and how many ops each has (exact sizes: growth by
  // doubling would hold up to twice these at the timeline's peak).
  const model::KernelTable& k = trace.kernels;
  const model::MemcpyTable& mc = trace.memcpys;
  const model::MemsetTable& ms = trace.memsets;
  std::map<int32_t, size_t> n_kern, n_ops;
  {
    int32_t last = kMissingI32;
    size_t* slot = nullptr;
    for (size_t i = 0; i < k.size(); ++i) {
      if (!IsValid(k.device_id[i])) continue;
      if (k.device_id[i] != last || slot == nullptr) {
        last = k.device_id[i];
        slot = &n_kern[last];
      }
      ++*slot;
    }
    n_ops = n_kern;
    for (const auto* col : {&mc.device_id, &ms.device_id})
      for (int32_t id : *col)
        if (IsValid(id)) ++n_ops[id];
  }
  const std::vector<uint32_t> kernel_order = RowOrder(k.start_ns, k.end_ns);
  const std::vector<uint32_t> memcpy_order = RowOrder(mc.start_ns, mc.end_ns);
  const std::vector<uint32_t> memset_order = RowOrder(ms.start_ns, ms.end_ns);
  std::vector<bool> is_comm_name(trace.strings.size(), false), known(trace.strings.size(), false);


  // What the launching threads did, to split HTA's host_wait into launch
  // cadence and host work that launched nothing: waits within the thread's
  // launch cadence are decided at once, longer ones after one sweep of the
  // thread's ranges and calls (host_activity.h).
  std::vector<bool> api_is_launch(api.size(), false), api_is_blocking(api.size(), false);
  {
    ApiPredicateMemo launch(trace, IsLaunchApi);
    for (size_t i = 0; i < api.size(); ++i) api_is_launch[i] = launch(i);
  }
  // Blocking calls that wait on a host-to-device copy, by api row.
  std::vector<bool> row_is_h2d(api.size(), false);
  for (size_t bi = 0; bi < tl.blocking_api_rows.size(); ++bi) {
    api_is_blocking[tl.blocking_api_rows[bi]] = true;
    row_is_h2d[tl.blocking_api_rows[bi]] = tl.blocking_is_h2d[bi];
  }
  const std::map<ThreadKey, int64_t> cadence = LaunchCadence(trace, api_is_launch);
  // gap_base: per device, the slot of its first gap (the gaps before it).
  std::vector<uint32_t> gap_base;
  uint32_t gaps_before = 0;  // the gaps of the devices kept so far
  bool any_candidate = false;
  // The candidates' host windows, one query entry per (thread, device).
  std::vector<ThreadWindows> queries;
  std::map<std::tuple<int32_t, int64_t, uint32_t>, size_t> query_of;  // (pid, tid, device)

  for (const auto& device_ops : n_ops) {
    // Named, not bound: lambdas below capture it (clang before 16 cannot capture a binding).
    const int32_t dev = device_ops.first;
    const size_t dev_op_count = device_ops.second;
    DeviceTimeline d;
    d.device_id = dev;
    // One merge of the device's kernels, copies and sets in (start, end)
    // order, ties in that order: the busy union, the op that began each of
    // its intervals (whose launch ended the gap before it), and the kernel,
    // communication and compute unions (DeviceTimeline::ComputeBusy).
    // starter: per busy interval, the api row that launched the op beginning
    // it (UINT32_MAX: none found); 4 bytes an interval, not an 8-byte id.
    std::vector<uint32_t> starter;
    {
      const size_t kernels = n_kern.count(dev) ? n_kern.at(dev) : 0;
      d.busy.reserve(dev_op_count);  // capacity that stays unused is never touched
      starter.reserve(dev_op_count);
      d.kernel_busy.reserve(kernels);
      OpStream streams[3] = {OpStream::Of(k, kernel_order, dev), OpStream::Of(mc, memcpy_order, dev),
                             OpStream::Of(ms, memset_order, dev)};
      for (;;) {
        OpStream* next = nullptr;
        for (OpStream& st : streams) {
          if (st.done()) continue;
          if (next == nullptr || st.start_ns() < next->start_ns() ||
              (st.start_ns() == next->start_ns() && st.end_ns() < next->end_ns()))
            next = &st;
        }
        if (next == nullptr) break;
        const int64_t s0 = next->start_ns(), e0 = next->end_ns();
        const size_t busy_before = d.busy.size();
        AppendToUnion(d.busy, s0, e0);  // empty ops too: one still ends a gap
        if (d.busy.size() != busy_before) {
          const int64_t corr = next->correlation_id();
          starter.push_back(IsValid(corr) ? corr_index.FindRow(corr) : UINT32_MAX);
        }
        if (next == &streams[0] && e0 > s0) {
          const StringId n = k.name[next->row];
          if (!known[n]) {
            known[n] = true;
            is_comm_name[n] = IsCommKernel(trace.Str(n));
          }
          if (is_comm_name[n]) {
            if (d.comm_busy.empty()) {  // the first: the compute union so far is every kernel's
              d.compute_busy.reserve(kernels);
              d.compute_busy.assign(d.kernel_busy.begin(), d.kernel_busy.end());
            }
            AppendToUnion(d.comm_busy, s0, e0);
          } else if (!d.comm_busy.empty()) {
            AppendToUnion(d.compute_busy, s0, e0);
          }
          AppendToUnion(d.kernel_busy, s0, e0);
        }
        next->Next();
      }
      ShrinkUnion(d.kernel_busy);
      ShrinkUnion(d.compute_busy);
      ShrinkUnion(d.comm_busy);
    }
    if (d.busy.empty()) continue;
    // Steps and phases: the run's one definition (analysis/steps/run_phases.h).
    if (const DeviceSteps* ds = run_steps.Find(dev); ds != nullptr) {
      d.steps = ds->windows;
      d.steps_from_markers = ds->from_markers;
      const LoopPhases& ph = ds->phases;
      if (ph.has_loop && (ph.setup_ns() > 0 || ph.teardown_ns() > 0)) {
        // Set-up before the loop and teardown after it are phases of their
        // own, whose gaps are one-off and never count in the loop's idle.
        d.has_loop_phases = true;
        if (ph.setup_ns() > 0) d.phases.push_back({ph.capture_start_ns, ph.loop_start_ns});
        if (ph.teardown_ns() > 0) d.phases.push_back({ph.loop_end_ns, ph.capture_end_ns});
        d.setup_ns = ph.setup_ns();
        d.teardown_ns = ph.teardown_ns();
      }
    }
    if (d.steps.empty()) {
      StepWindow w;
      w.step = 0;
      w.start_ns = w.host_start_ns = d.busy.front().start_ns;
      w.end_ns = w.host_end_ns = d.busy.back().end_ns;
      d.steps.push_back(w);
    }
    for (const StepWindow& w : d.steps) d.steps_total_ns += w.end_ns - w.start_ns;

    // Idle gaps inside windows, attributed.
    // Blocking calls sorted by start with a running max of their end, so
    // "some call covers t" is one binary search.
    std::vector<int64_t> bstart, bmaxend;
    std::vector<uint32_t> bmaxrow;
    for (uint32_t row : tl.blocking_api_rows) {
      bstart.push_back(api.start_ns[row]);
      bool take = bmaxend.empty() || api.end_ns[row] > bmaxend.back();
      bmaxend.push_back(take ? api.end_ns[row] : bmaxend.back());
      bmaxrow.push_back(take ? row : bmaxrow.back());
    }
    // The same structure over this device's blocking cuda_sync events
    // (device-less events count on every device).
    std::vector<int64_t> estart, emaxend;
    std::vector<uint32_t> emaxrow;
    for (uint32_t row : tl.blocking_sync_rows) {
      const int32_t sd = trace.syncs.device_id[row];
      if (IsValid(sd) && sd != dev) continue;
      estart.push_back(trace.syncs.start_ns[row]);
      bool take = emaxend.empty() || trace.syncs.end_ns[row] > emaxend.back();
      emaxend.push_back(take ? trace.syncs.end_ns[row] : emaxend.back());
      emaxrow.push_back(take ? row : emaxrow.back());
    }
    auto covering_sync_event = [&](int64_t t) -> uint32_t {
      auto it = std::upper_bound(estart.begin(), estart.end(), t);
      if (it == estart.begin()) return UINT32_MAX;
      size_t i = static_cast<size_t>(it - estart.begin()) - 1;
      return emaxend[i] >= t ? emaxrow[i] : UINT32_MAX;
    };
    auto covering_sync = [&](int64_t t) -> uint32_t {
      auto it = std::upper_bound(bstart.begin(), bstart.end(), t);
      if (it == bstart.begin()) return UINT32_MAX;
      size_t i = static_cast<size_t>(it - bstart.begin()) - 1;
      return bmaxend[i] >= t ? bmaxrow[i] : UINT32_MAX;
    };

    // One gap per busy interval and window edge at most (DataLoader splits
    // may add pieces): growth by doubling would hold up to twice the gaps.
    d.gaps.reserve(d.busy.size() + d.steps.size() + 1);
    // The step windows, then the set-up and teardown phases (step index -1).
    for (size_t wi = 0; wi < d.steps.size() + d.phases.size(); ++wi) {
      const bool in_phase = wi >= d.steps.size();
      StepWindow phase_window;
      if (in_phase) {
        phase_window.start_ns = d.phases[wi - d.steps.size()].start_ns;
        phase_window.end_ns = d.phases[wi - d.steps.size()].end_ns;
      }
      const StepWindow& w = in_phase ? phase_window : d.steps[wi];
      // Busy intervals overlapping the window; gaps between them (and at the edges).
      auto it = std::upper_bound(d.busy.begin(), d.busy.end(), w.start_ns,
                                 [](int64_t t, const Interval& i) { return t < i.end_ns; });
      int64_t cur = w.start_ns;
      auto emit = [&](int64_t g0, int64_t g1, uint32_t next_row) {
        if (g1 <= g0) return;
        int64_t len = g1 - g0;
        if (!in_phase) d.idle_ns += len;
        int64_t dl = OverlapLength(tl.dataloader, g0, g1);
        auto piece = [&](int64_t ns, IdleCause cause) {
          IdleGap g;
          g.start_ns = g0;
          g.end_ns = g1;
          g.attributed_ns = ns;
          g.cause = cause;
          g.step_index = in_phase ? -1 : static_cast<int32_t>(wi);
          g.edge = in_phase;
          return g;
        };
        if (dl > 0) d.gaps.push_back(piece(dl, IdleCause::kDataLoader));
        int64_t rest = len - dl;
        if (rest <= 0) return;
        IdleGap g = piece(rest, IdleCause::kOther);
        uint32_t srow = covering_sync(g0);
        uint32_t erow = srow == UINT32_MAX ? covering_sync_event(g0) : UINT32_MAX;
        // The launch of the op that ends the gap, and the launching thread's cadence.
        const uint32_t lrow = next_row;
        auto threshold_of = [&](uint32_t row) {
          auto it_c = cadence.find({api.pid[row], api.tid[row]});
          return std::clamp<int64_t>(
              it_c != cadence.end() ? 4 * std::min(it_c->second, kMaxCadenceNs) : 0,
              kMinCadenceNs, kMaxCadenceNs);
        };
        // add_candidate: break the launching thread's time in the whole gap
        // (less DataLoader time) down before deciding.
        auto add_candidate = [&](uint32_t row, int64_t threshold) {
          const uint32_t device = static_cast<uint32_t>(tl.devices.size());
          auto [it_q, fresh] =
              query_of.try_emplace({api.pid[row], api.tid[row], device}, queries.size());
          if (fresh) queries.push_back({api.pid[row], api.tid[row], {}, threshold});
          queries[it_q->second].slots.push_back(gaps_before + static_cast<uint32_t>(d.gaps.size()));
          any_candidate = true;
        };
        if (srow != UINT32_MAX) {
          g.cause = row_is_h2d[srow] ? IdleCause::kH2dSync : IdleCause::kSync;
          g.set_sync_api_row(srow);
          // A sync owns its wait and the restart after it, not host work that
          // follows: when the launching thread (the sync's own) ran longer than
          // its launch cadence after the call returned, the breakdown decides.
          if (lrow != UINT32_MAX && api.pid[lrow] == api.pid[srow] &&
              api.tid[lrow] == api.tid[srow] && IsValid(api.end_ns[srow]) &&
              g1 - std::max(g0, api.end_ns[srow]) > threshold_of(lrow))
            add_candidate(lrow, threshold_of(lrow));
        } else if (erow != UINT32_MAX) {
          g.cause = IdleCause::kSync;
          g.set_sync_event_row(erow);
        } else {
          if (lrow != UINT32_MAX && api.start_ns[lrow] > g0) {
            // HTA host_wait: launch cadence unless the gap is long (decided below).
            g.cause = IdleCause::kHostLaunch;
            g.launch_api_row = lrow;
            const int64_t threshold = threshold_of(lrow);
            if (rest > threshold) add_candidate(lrow, threshold);
          } else if (len < kKernelWaitThresholdNs) {
            g.cause = IdleCause::kKernelWait;
          }
        }
        d.gaps.push_back(g);
      };
      for (; it != d.busy.end() && it->start_ns < w.end_ns; ++it) {
        size_t bi = static_cast<size_t>(it - d.busy.begin());
        if (it->start_ns > cur) emit(cur, it->start_ns, starter[bi]);
        cur = std::max(cur, it->end_ns);
      }
      if (cur < w.end_ns) emit(cur, w.end_ns, UINT32_MAX);
    }

    // Kernels and launches inside the windows.
    for (size_t i = 0; i < k.size(); ++i) {
      if (k.device_id[i] != dev || !Valid(k.start_ns[i], k.end_ns[i])) continue;
      if (Timeline::StepIndexAt(d, k.start_ns[i]) < 0) continue;
      ++d.kernel_count;
      d.kernel_ns = AddSat(d.kernel_ns, k.end_ns[i] - k.start_ns[i]);
    }
    gap_base.push_back(gaps_before);
    gaps_before += static_cast<uint32_t>(d.gaps.size());
    tl.devices.push_back(std::move(d));
  }

  // Long host waits: one-off gaps flagged by length first, then one sweep
  // per launching thread hands each candidate's breakdown over as soon as
  // it is complete: the gap is decided, warm-up named, and what the host
  // ran in recurring host-busy gaps tallied, and the breakdown dropped.
  {
    for (DeviceTimeline& d : tl.devices) MarkOneOffGaps(d);
    const std::vector<uint32_t> first_rows =
        any_candidate ? FirstRangeRowsByName(trace) : std::vector<uint32_t>();
    const std::vector<uint32_t> first_api_rows =
        any_candidate ? FirstApiRowsByName(trace) : std::vector<uint32_t>();
    struct NameTally {
      HostTally tally;
      uint32_t first_candidate = UINT32_MAX;  // the example's: the earliest candidate's
    };
    std::vector<std::unordered_map<StringId, NameTally>> names(tl.devices.size());
    std::mutex mu;  // the sink may run on two workers (host_activity.h)
    auto device_of = [&](uint32_t slot) {
      return static_cast<size_t>(std::upper_bound(gap_base.begin(), gap_base.end(), slot) -
                                 gap_base.begin() - 1);
    };
    // A candidate's windows: its gap less DataLoader time (the gap's piece).
    auto source = [&](uint32_t slot, std::vector<Interval>* parts) {
      const size_t device = device_of(slot);
      const IdleGap& g = tl.devices[device].gaps[slot - gap_base[device]];
      if (g.attributed_ns == g.end_ns - g.start_ns) {
        parts->push_back({g.start_ns, g.end_ns});
      } else {
        for (const Interval& part : Subtract({{g.start_ns, g.end_ns}}, tl.dataloader))
          parts->push_back(part);
      }
    };
    auto sink = [&](uint32_t slot, const HostBreakdown& b) {
      const size_t device = device_of(slot);
      DeviceTimeline& d = tl.devices[device];
      IdleGap& g = d.gaps[slot - gap_base[device]];
      DecideHostWait(b, g.attributed_ns, row_is_h2d, &g);
      if (g.cause != IdleCause::kHostBusy) return;
      // A first use (module load, context, a slow first launch, compilation,
      // an op's or cuDNN's first call) holding the gap is warm-up: one-off,
      // unless a single marked step leaves nothing to tell it from.
      if (!g.one_off && b.holder.valid() && (!d.steps_from_markers || d.steps.size() >= 2)) {
        const uint32_t row = b.holder.row;
        const bool first = b.holder.is_api ? first_api_rows[trace.api_calls.name[row]] == row
                                           : first_rows[trace.ranges.name[row]] == row;
        const HoldKind kind = ClassifyHold(trace, b.holder, first_rows);
        // A slow launch, a module load or a context creation is one-off
        // whenever it holds a gap; an op or an allocation on its first call.
        const bool once = kind == HoldKind::kSlowLaunch || kind == HoldKind::kModuleLoad ||
                          kind == HoldKind::kContext;
        if (IsWarmUpHold(kind) && (once || first)) g.one_off = true;
      }
      if (g.one_off) return;
      std::lock_guard<std::mutex> lock(mu);
      ++d.host_busy_gaps;
      d.host_busy_window_ns += g.attributed_ns;
      d.host_busy_untraced_ns += b.untraced_ns;
      for (const HostTally& h : b.top) {
        if (h.ns <= 0) continue;
        NameTally& n = names[device][h.name];
        if (slot < n.first_candidate) {
          n.first_candidate = slot;
          n.tally.name = h.name;
          n.tally.example = h.example;
        }
        n.tally.ns += h.ns;
        ++n.tally.windows;
      }
    };
    // Each entry's slots in time order (gaps of windows visited out of time
    // order, such as phases after the steps, would break it).
    for (ThreadWindows& q : queries) {
      auto start_of = [&](uint32_t slot) {
        const size_t device = device_of(slot);
        return tl.devices[device].gaps[slot - gap_base[device]].start_ns;
      };
      auto before = [&](uint32_t a, uint32_t b) { return start_of(a) < start_of(b); };
      if (!std::is_sorted(q.slots.begin(), q.slots.end(), before))
        std::stable_sort(q.slots.begin(), q.slots.end(), before);
    }
    ComputeHostBreakdowns(trace, api_is_launch, api_is_blocking, std::move(queries), source, sink);
    for (size_t di = 0; di < tl.devices.size(); ++di) {
      DeviceTimeline& d = tl.devices[di];
      SumIdleByCause(d);
      for (auto& [id, n] : names[di]) d.host_busy_names.push_back(n.tally);
      std::sort(d.host_busy_names.begin(), d.host_busy_names.end(),
                [](const HostTally& a, const HostTally& b) {
                  return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
                });
    }
  }

  // Launch calls: attributed to the device of their first GPU op (one pass).
  {
    std::vector<int32_t> dev_of_corr(corr_index.size(), kMissingI32);
    auto note = [&](int64_t corr, int32_t dev) {
      const size_t i = corr_index.Find(corr);
      if (i != SIZE_MAX && !IsValid(dev_of_corr[i])) dev_of_corr[i] = dev;
    };
    for (size_t i = 0; i < k.size(); ++i)
      if (IsValid(k.correlation_id[i])) note(k.correlation_id[i], k.device_id[i]);
    for (size_t i = 0; i < api.size(); ++i) {
      if (!Valid(api.start_ns[i], api.end_ns[i])) continue;
      if (!api_is_launch[i]) continue;
      const size_t ci = corr_index.Find(api.correlation_id[i]);
      const int32_t dev = ci == SIZE_MAX ? kMissingI32 : dev_of_corr[ci];
      for (DeviceTimeline& d : tl.devices) {
        bool mine = IsValid(dev) ? d.device_id == dev : tl.devices.size() == 1;
        if (!mine) continue;
        // Only calls inside the device's windows count.
        int32_t si = Timeline::StepIndexAt(d, api.start_ns[i]);
        if (si < 0 && d.steps_from_markers) continue;
        ++d.launch_api_count;
        d.launch_api_ns += api.end_ns[i] - api.start_ns[i];
      }
    }
  }
  return tl;
}

}  // namespace gpuwhy::analysis::detectors
