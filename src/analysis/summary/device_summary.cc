#include "analysis/summary/device_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/summary/sync_api_table.h"
#include "analysis/summary/summary_math.h"
#include "analysis/utilization/intervals.h"
#include "base/sorted_search.h"

namespace gpuwhy::analysis {

namespace {

// Span: [start, end] of a step on the host.
using Span = std::pair<int64_t, int64_t>;

// TransferAcc: TransferStats plus the duration of events with known bytes,
// which is the bandwidth denominator.
struct TransferAcc {
  TransferStats stats;
  int64_t known_bytes_ns = 0;

  void Add(int64_t bytes, int64_t dur_ns) {
    ++stats.count;
    stats.total_ns = AddSat(stats.total_ns, dur_ns);
    if (IsValid(bytes) && bytes >= 0) {
      stats.bytes = AddSat(stats.bytes, bytes);
      known_bytes_ns = AddSat(known_bytes_ns, dur_ns);
    } else {
      ++stats.count_missing_bytes;
    }
  }
  TransferStats Finish() const {
    TransferStats s = stats;
    // bytes per ns is GB/s (1e9 bytes per 1e9 ns).
    if (s.bytes > 0 && known_bytes_ns > 0)
      s.bandwidth_gbps = static_cast<double>(s.bytes) / static_cast<double>(known_bytes_ns);
    return s;
  }
};

struct NameAcc {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
};

// DeviceAcc: everything collected for one device in the single pass.
struct DeviceAcc {
  int32_t device_id = kMissingI32;
  // The kernels' intervals are not kept: KernelUnion() reads them from the
  // table (at 100x a copy of them, and of them with the copies and sets, was
  // 70 MB while the timeline ran beside this section).
  bool has_ops = false;
  int64_t span_start_ns = kMissingI64, span_end_ns = kMissingI64;  // over every op
  std::vector<Interval> copy_set_iv;  // memcpy + memset
  // The kernel durations are not kept either: their statistics come from
  // DurationStatsOf() over the table (a copy was 8 bytes a kernel and its
  // sort the longest step of this section at 100x); the short-kernel tallies
  // are counted as the kernels are read.
  std::array<ShortKernelBucket, kShortKernelThresholdsNs.size()> short_kernels{};
  std::unordered_map<StringId, NameAcc> by_name;
  std::set<int64_t> streams;
  std::array<TransferAcc, 14> memcpy_dir{};  // by CopyKind value
  std::vector<Interval> uvm_iv;       // Unified Memory migrations
  std::map<uint8_t, TransferAcc> uvm_cause;
  TransferAcc uvm_total;
  std::map<std::tuple<uint8_t, uint8_t, uint8_t>, TransferAcc> memcpy_pair;
  TransferAcc memcpy_total;
  std::map<uint8_t, TransferAcc> memset_kind;
  TransferAcc memset_total;
  std::array<SyncEventStats, 5> sync_kind{};
  std::map<std::string_view, SyncApiStats> sync_api;
  std::map<int32_t, Span> steps;  // step number -> [start, end]
};

int64_t Dur(int64_t start, int64_t end) { return end > start ? end - start : 0; }

double Ratio(int64_t part, int64_t whole) {
  if (!IsValid(part) || !IsValid(whole) || whole <= 0) return kMissingF64;
  return static_cast<double>(part) / static_cast<double>(whole);
}

struct SyncCacheKey {
  StringId name;
  model::ApiKind kind;
  int32_t cbid;
  bool operator==(const SyncCacheKey&) const = default;
};
struct SyncCacheHash {
  size_t operator()(const SyncCacheKey& k) const {
    return std::hash<uint64_t>()((static_cast<uint64_t>(k.name) << 32) ^
                                 (static_cast<uint64_t>(static_cast<uint32_t>(k.cbid)) << 3) ^
                                 static_cast<uint64_t>(k.kind));
  }
};

// SummarizeCounter: the statistics of one counter series.
CounterSummary SummarizeCounter(const model::Trace& trace, const model::CounterSeries& cs) {
  CounterSummary c;
  c.kind = cs.kind;
  c.unit = cs.unit;
  c.name = std::string(trace.Str(cs.name));
  c.source = std::string(trace.Str(cs.source));
  c.period_ns = cs.period_ns;
  c.untimed = cs.ts_are_indexes;
  c.samples = static_cast<int64_t>(cs.value.size());
  double sum = 0;
  for (size_t i = 0; i < cs.value.size(); ++i) {
    if (!cs.ts_are_indexes && i < cs.ts_ns.size() && IsValid(cs.ts_ns[i])) {
      c.first_ns = IsValid(c.first_ns) ? std::min(c.first_ns, cs.ts_ns[i]) : cs.ts_ns[i];
      c.last_ns = IsValid(c.last_ns) ? std::max(c.last_ns, cs.ts_ns[i]) : cs.ts_ns[i];
    }
    const double v = cs.value[i];
    if (!IsValid(v)) continue;
    ++c.valid_samples;
    sum += v;
    c.min = IsValid(c.min) ? std::min(c.min, v) : v;
    c.max = IsValid(c.max) ? std::max(c.max, v) : v;
  }
  if (c.valid_samples > 0) c.mean = sum / static_cast<double>(c.valid_samples);
  return c;
}

// KernelUnionFigures: |K| for K the union of a device's kernels, and |K ∩ a|,
// |K ∩ b| for two other unions (copies and sets; UVM migrations).
struct KernelUnionFigures {
  int64_t kernel_ns = 0, with_a_ns = 0, with_b_ns = 0;
};

// KernelUnion: those figures for device `dev`, reading the kernel table in
// (start, end) order (`order`: model::SortOrder of the table). A kernel counts
// as in the single pass: valid start and end, an end before the start taken
// as the start. `a` and `b` are merged (MergeIntervals).
KernelUnionFigures KernelUnion(const model::KernelTable& k, const std::vector<uint32_t>& order,
                               int32_t dev, const std::vector<Interval>& a,
                               const std::vector<Interval>& b) {
  KernelUnionFigures out;
  bool open = false;
  int64_t cur_s = 0, cur_e = 0;
  auto close = [&] {
    out.kernel_ns += cur_e - cur_s;
    out.with_a_ns += IntersectLength(a, cur_s, cur_e);
    out.with_b_ns += IntersectLength(b, cur_s, cur_e);
  };
  for (size_t p = 0; p < k.size(); ++p) {
    const size_t i = order.empty() ? p : order[p];
    if (k.device_id[i] != dev || !IsValid(k.start_ns[i]) || !IsValid(k.end_ns[i])) continue;
    const int64_t s = k.start_ns[i], e = std::max(k.end_ns[i], s);
    if (open && s <= cur_e) {
      cur_e = std::max(cur_e, e);
      continue;
    }
    if (open) close();
    open = true;
    cur_s = s;
    cur_e = e;
  }
  if (open) close();
  return out;
}

}  // namespace

TraceSummary SummarizeDevices(const model::Trace& trace, const SummaryOptions& options) {
  TraceSummary out;
  auto [lo, hi] = trace.TimeExtent();
  out.extent_start_ns = lo;
  out.extent_end_ns = hi;
  if (IsValid(lo) && IsValid(hi)) out.extent_ns = hi - lo;

  // Devices that have GPU events, by id. Index into `accs`.
  std::map<int32_t, size_t> dev_index;
  std::vector<DeviceAcc> accs;
  auto acc_for = [&](int32_t id) -> DeviceAcc& {
    auto [it, added] = dev_index.try_emplace(id, accs.size());
    if (added) {
      accs.emplace_back();
      accs.back().device_id = id;
    }
    return accs[it->second];
  };
  // (correlation id, device) of every GPU event; sorted below. Why a sorted
  // array, not a hash map: one allocation instead of one node per event.
  // seq (the insertion order, in what would be padding) makes a plain sort
  // keep the first event of each id first, as a stable sort would, without
  // the stable sort's n-element buffer.
  struct CorrDevice {
    int64_t corr;
    int32_t device;
    uint32_t seq;
  };
  std::vector<CorrDevice> corr_device;
  const model::KernelTable& k = trace.kernels;
  const model::MemcpyTable& m = trace.memcpys;
  const model::MemsetTable& ms = trace.memsets;
  const model::SyncTable& sy = trace.syncs;
  corr_device.reserve(k.size() + m.size() + ms.size() + sy.size());
  auto add_corr = [&](int64_t corr, int32_t device) {
    corr_device.push_back({corr, device, static_cast<uint32_t>(corr_device.size())});
  };
  {
    // Exact per-device sizes first: on a 21 M-event trace growth by doubling
    // held up to twice these arrays, and this runs beside the timeline.
    // Devices are created here in the order the loops below would create
    // them (that order is the report's).
    std::vector<std::pair<size_t, size_t>> n;  // by acc index: (kernels, all ops)
    auto count = [&](const std::vector<int32_t>& dev, const std::vector<int64_t>& s,
                     const std::vector<int64_t>& e, bool kernel) {
      for (size_t i = 0; i < dev.size(); ++i) {
        if (!IsValid(dev[i]) || !IsValid(s[i]) || !IsValid(e[i])) continue;
        const size_t idx = static_cast<size_t>(&acc_for(dev[i]) - accs.data());
        if (idx >= n.size()) n.resize(idx + 1);
        n[idx].first += kernel ? 1 : 0;
        ++n[idx].second;
      }
    };
    count(k.device_id, k.start_ns, k.end_ns, true);
    count(m.device_id, m.start_ns, m.end_ns, false);
    count(ms.device_id, ms.start_ns, ms.end_ns, false);
    for (size_t idx = 0; idx < n.size(); ++idx) {
      DeviceAcc& a = accs[idx];
      a.copy_set_iv.reserve(n[idx].second - n[idx].first);
    }
  }

  // widen: the device's op span (every op with a valid interval).
  auto widen = [](DeviceAcc& a, int64_t s, int64_t e) {
    a.span_start_ns = a.has_ops ? std::min(a.span_start_ns, s) : s;
    a.span_end_ns = a.has_ops ? std::max(a.span_end_ns, e) : e;
    a.has_ops = true;
  };
  // kernel_counted: kernel row i enters its device's figures; its duration
  // is kernel_dur(i). One definition for the accumulation below and the
  // duration statistics, which read the table again.
  auto kernel_counted = [&k](size_t i) {
    return IsValid(k.device_id[i]) && IsValid(k.start_ns[i]) && IsValid(k.end_ns[i]);
  };
  auto kernel_dur = [&k](size_t i) { return std::max(k.end_ns[i], k.start_ns[i]) - k.start_ns[i]; };
  std::vector<size_t> run_begin;  // where each table's entries begin
  run_begin.push_back(corr_device.size());
  for (size_t i = 0; i < k.size(); ++i) {
    if (!kernel_counted(i)) continue;
    DeviceAcc& a = acc_for(k.device_id[i]);
    int64_t s = k.start_ns[i], e = s + kernel_dur(i);
    widen(a, s, e);
    for (size_t b = 0; b < kShortKernelThresholdsNs.size(); ++b) {
      if (e - s >= kShortKernelThresholdsNs[b]) continue;
      ++a.short_kernels[b].count;
      a.short_kernels[b].time_ns += e - s;
    }
    NameAcc& n = a.by_name[k.name[i]];
    ++n.count;
    n.total_ns += e - s;
    n.max_ns = std::max(n.max_ns, e - s);
    if (IsValid(k.stream_id[i])) a.streams.insert(k.stream_id[i]);
    if (IsValid(k.correlation_id[i])) add_corr(k.correlation_id[i], k.device_id[i]);
  }
  run_begin.push_back(corr_device.size());
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsValid(m.device_id[i]) || !IsValid(m.start_ns[i]) || !IsValid(m.end_ns[i])) continue;
    DeviceAcc& a = acc_for(m.device_id[i]);
    int64_t s = m.start_ns[i], e = std::max(m.end_ns[i], s);
    widen(a, s, e);
    a.copy_set_iv.push_back({s, e});
    auto dir = static_cast<uint8_t>(m.copy_kind[i]);
    if (dir >= a.memcpy_dir.size()) dir = 0;
    a.memcpy_dir[dir].Add(m.bytes[i], e - s);
    a.memcpy_pair[{dir, static_cast<uint8_t>(m.src_kind[i]), static_cast<uint8_t>(m.dst_kind[i])}]
        .Add(m.bytes[i], e - s);
    a.memcpy_total.Add(m.bytes[i], e - s);
    if (model::IsUvmMigration(m.copy_kind[i])) {
      a.uvm_iv.push_back({s, e});
      a.uvm_cause[static_cast<uint8_t>(m.migration_cause[i])].Add(m.bytes[i], e - s);
      a.uvm_total.Add(m.bytes[i], e - s);
    }
    if (IsValid(m.stream_id[i])) a.streams.insert(m.stream_id[i]);
    if (IsValid(m.correlation_id[i])) add_corr(m.correlation_id[i], m.device_id[i]);
  }
  run_begin.push_back(corr_device.size());
  for (size_t i = 0; i < ms.size(); ++i) {
    if (!IsValid(ms.device_id[i]) || !IsValid(ms.start_ns[i]) || !IsValid(ms.end_ns[i])) continue;
    DeviceAcc& a = acc_for(ms.device_id[i]);
    int64_t s = ms.start_ns[i], e = std::max(ms.end_ns[i], s);
    widen(a, s, e);
    a.copy_set_iv.push_back({s, e});
    a.memset_kind[static_cast<uint8_t>(ms.dst_kind[i])].Add(ms.bytes[i], e - s);
    a.memset_total.Add(ms.bytes[i], e - s);
    if (IsValid(ms.stream_id[i])) a.streams.insert(ms.stream_id[i]);
    if (IsValid(ms.correlation_id[i])) add_corr(ms.correlation_id[i], ms.device_id[i]);
  }
  // Sync events count for their device but are not busy time (HTA #149).
  run_begin.push_back(corr_device.size());
  for (size_t i = 0; i < sy.size(); ++i) {
    if (!IsValid(sy.device_id[i]) || !IsValid(sy.start_ns[i]) || !IsValid(sy.end_ns[i])) continue;
    DeviceAcc& a = acc_for(sy.device_id[i]);
    auto kind = static_cast<uint8_t>(sy.kind[i]);
    if (kind >= a.sync_kind.size()) kind = 0;
    ++a.sync_kind[kind].count;
    a.sync_kind[kind].total_ns += Dur(sy.start_ns[i], sy.end_ns[i]);
    if (IsValid(sy.correlation_id[i])) add_corr(sy.correlation_id[i], sy.device_id[i]);
  }

  // Which devices each process launched work on (via its calls' correlation ids).
  const model::ApiTable& api = trace.api_calls;
  // The first GPU event of a correlation id names its device. The entries
  // came in runs, one per table (RunIndex); lookups come in API order, where
  // ids rise too. seq (the insertion order) orders equal ids when the runs
  // must be sorted.
  RunIndex corr_index(corr_device, run_begin, [](const CorrDevice& e) { return e.corr; },
                      [](const CorrDevice& a, const CorrDevice& b) {
                        return a.corr != b.corr ? a.corr < b.corr : a.seq < b.seq;
                      });
  // DeviceOfCorr: the device of correlation id c's first GPU event, or missing.
  auto device_of_corr = [&](int64_t c) -> int32_t {
    int32_t dev = kMissingI32;
    if (IsValid(c)) {
      corr_index.ForEach(c, [&](const CorrDevice& e) {
        dev = e.device;
        return false;  // the first one names it
      });
    }
    return dev;
  };
  std::map<int32_t, std::set<int32_t>> pid_devices;
  int32_t last_pid = kMissingI32, last_dev = kMissingI32;
  for (size_t i = 0; i < api.size(); ++i) {
    const int32_t dev = device_of_corr(api.correlation_id[i]);
    if (!IsValid(dev)) continue;
    if (api.pid[i] == last_pid && dev == last_dev) continue;  // already inserted
    last_pid = api.pid[i];
    last_dev = dev;
    pid_devices[last_pid].insert(last_dev);
  }
  // Devices a host event of `pid` is attributed to (cases 2 and 3 above).
  std::vector<int32_t> all_devices;
  for (const auto& [id, idx] : dev_index) all_devices.push_back(id);
  auto devices_of_pid = [&](int32_t pid, bool* to_all) -> std::vector<int32_t> {
    auto it = pid_devices.find(pid);
    if (it != pid_devices.end()) return {it->second.begin(), it->second.end()};
    *to_all = true;
    return all_devices;
  };

  // Sync-type host calls. Matching is cached per (name, layer, cbid).
  std::unordered_map<SyncCacheKey, const SyncApiEntry*, SyncCacheHash> match_cache;
  for (size_t i = 0; i < api.size(); ++i) {
    if (!IsValid(api.start_ns[i]) || !IsValid(api.end_ns[i])) continue;
    SyncCacheKey key{api.name[i], api.kind[i], api.cbid[i]};
    auto cit = match_cache.find(key);
    if (cit == match_cache.end())
      cit = match_cache.emplace(key, MatchSyncApi(trace.Str(key.name), key.kind, key.cbid)).first;
    const SyncApiEntry* entry = cit->second;
    if (entry == nullptr) continue;
    int64_t dur = Dur(api.start_ns[i], api.end_ns[i]);
    std::vector<int32_t> targets;
    if (const int32_t dev = device_of_corr(api.correlation_id[i]); IsValid(dev)) {
      targets.push_back(dev);
    } else {
      bool to_all = false;
      targets = devices_of_pid(api.pid[i], &to_all);
      if (to_all && !targets.empty()) out.host_api_attributed_to_all = true;
    }
    for (int32_t d : targets) {
      SyncApiStats& st = accs[dev_index.at(d)].sync_api[entry->name];
      if (st.count == 0) {
        st.name = std::string(entry->name);
        st.api_class = entry->api_class;
        st.host_blocking = entry->api_class != SyncApiClass::kGpuWait;
        st.max_ns = 0;
      }
      ++st.count;
      st.total_ns += dur;
      st.max_ns = std::max(st.max_ns, dur);
    }
  }

  // Steps: host ranges with a step number, attributed like host API calls.
  const model::RangeTable& r = trace.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!IsValid(r.step[i]) || r.kind[i] == model::RangeKind::kGpuUserAnnotation) continue;
    if (!IsValid(r.start_ns[i]) || !IsValid(r.end_ns[i])) continue;
    bool unused = false;
    for (int32_t d : devices_of_pid(r.pid[i], &unused)) {
      auto [it, added] = accs[dev_index.at(d)].steps.try_emplace(
          r.step[i], Span{r.start_ns[i], r.end_ns[i]});
      if (!added) {
        it->second.first = std::min(it->second.first, r.start_ns[i]);
        it->second.second = std::max(it->second.second, r.end_ns[i]);
      }
    }
  }

  // Finish each device. Kernel names are classified and demangled once each.
  KernelInfoMemo kernel_names(trace);
  // The kernel rows in (start, end) order, when the table is not in it already.
  bool kernels_sorted = false;
  const std::vector<uint32_t> kernel_order = model::SortOrder(k.start_ns, k.end_ns, &kernels_sorted);
  for (DeviceAcc& a : accs) {
    DeviceSummary d;
    d.device_id = a.device_id;
    if (const model::Device* dev = trace.FindDevice(a.device_id)) {
      d.name = std::string(trace.Str(dev->name));
      d.vendor = dev->vendor;
      d.sm_count = dev->sm_count;
      d.cc_major = dev->cc_major;
      d.cc_minor = dev->cc_minor;
      d.total_memory_bytes = dev->total_memory_bytes;
    }
    d.stream_count = static_cast<int64_t>(a.streams.size());

    if (a.has_ops) {
      const std::vector<Interval> copy_set = MergeIntervals(std::move(a.copy_set_iv));
      const std::vector<Interval> uvm = MergeIntervals(std::move(a.uvm_iv));
      const KernelUnionFigures ku = KernelUnion(k, kernel_order, a.device_id, copy_set, uvm);
      d.span_start_ns = a.span_start_ns;
      d.span_end_ns = a.span_end_ns;
      d.span_ns = d.span_end_ns - d.span_start_ns;
      d.busy.kernel_busy_ns = ku.kernel_ns;
      // |K ∪ C| = |K| + |C| − |K ∩ C|.
      d.busy.gpu_busy_ns = AddSat(AddSat(ku.kernel_ns, TotalLength(copy_set)), -ku.with_a_ns);
      d.busy.idle_ns = d.span_ns - d.busy.gpu_busy_ns;
      d.busy.kernel_busy_ratio = Ratio(d.busy.kernel_busy_ns, d.span_ns);
      d.busy.gpu_busy_ratio = Ratio(d.busy.gpu_busy_ns, d.span_ns);
      d.busy.idle_ratio = Ratio(d.busy.idle_ns, d.span_ns);
      if (trace.info.kernels_untimed) {
        // A kernel profiler replays each kernel alone and lays them end to end:
        // the kernel time is real, a busy or idle share of that span is not.
        d.busy.idle_ns = kMissingI64;
        d.busy.kernel_busy_ratio = d.busy.gpu_busy_ratio = d.busy.idle_ratio = kMissingF64;
      }
      if (a.uvm_total.stats.count > 0) {
        d.uvm.total = a.uvm_total.Finish();
        d.uvm.union_ns = TotalLength(uvm);
        d.uvm.beside_kernels_ns = ku.with_b_ns;
        d.uvm.in_gaps_ns = d.uvm.union_ns - d.uvm.beside_kernels_ns;
        for (const auto& [cause, acc] : a.uvm_cause)
          d.uvm.by_cause.push_back({static_cast<model::MigrationCause>(cause), acc.Finish()});
      }
    }

    // Steps.
    if (!a.steps.empty()) {
      d.steps.has_steps = true;
      d.steps.first_step = a.steps.begin()->first;
      d.steps.last_step = a.steps.rbegin()->first;
      std::vector<int64_t> durs;
      durs.reserve(a.steps.size());
      int64_t ws = a.steps.begin()->second.first, we = a.steps.begin()->second.second;
      for (const auto& [n, iv] : a.steps) {
        durs.push_back(Dur(iv.first, iv.second));
        ws = std::min(ws, iv.first);
        we = std::max(we, iv.second);
      }
      d.steps.window_start_ns = ws;
      d.steps.window_end_ns = we;
      d.steps.step_time = ComputeDurationStats(durs);
    }

    // Kernels.
    KernelSummary& ks = d.kernels;
    ks.duration = DurationStatsOf([&](auto&& visit) {
      for (size_t i = 0; i < k.size(); ++i)
        if (k.device_id[i] == a.device_id && kernel_counted(i)) visit(kernel_dur(i));
    });
    for (size_t b = 0; b < kShortKernelThresholdsNs.size(); ++b) {
      ShortKernelBucket& bucket = ks.short_kernels[b];
      bucket = a.short_kernels[b];
      bucket.threshold_ns = kShortKernelThresholdsNs[b];
      bucket.count_ratio = Ratio(bucket.count, ks.duration.count);
      bucket.time_ratio = Ratio(bucket.time_ns, ks.duration.total_ns);
    }
    ks.distinct_names = static_cast<int64_t>(a.by_name.size());
    ks.class_time_ratio.fill(kMissingF64);
    std::vector<KernelNameStats> names;
    names.reserve(a.by_name.size());
    for (const auto& [id, n] : a.by_name) {
      const KernelInfo& info = kernel_names.Get(id);
      ks.class_time_ns[static_cast<size_t>(info.kernel_class)] += n.total_ns;
      if (info.tensor_core) ks.tensor_core_time_ns += n.total_ns;
      KernelNameStats s;
      s.raw_name = std::string(trace.Str(id));
      s.name = std::string(kernel_names.Demangled(id));
      s.kernel_class = info.kernel_class;
      s.family = std::string(info.family);
      s.tensor_core = info.tensor_core;
      s.count = n.count;
      s.total_ns = n.total_ns;
      s.mean_ns = static_cast<double>(n.total_ns) / static_cast<double>(n.count);
      s.max_ns = n.max_ns;
      s.time_ratio = Ratio(n.total_ns, ks.duration.total_ns);
      names.push_back(std::move(s));
    }
    std::sort(names.begin(), names.end(), [](const KernelNameStats& x, const KernelNameStats& y) {
      return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.name < y.name;
    });
    size_t top = static_cast<size_t>(std::max(0, options.top_kernels));
    for (size_t i = 0; i < names.size(); ++i) {
      if (i < top) {
        ks.top.push_back(std::move(names[i]));
      } else {
        ks.other_count += names[i].count;
        ks.other_total_ns += names[i].total_ns;
      }
    }
    if (names.size() > top) ks.other_time_ratio = Ratio(ks.other_total_ns, ks.duration.total_ns);
    if (ks.duration.total_ns > 0) {
      for (size_t c = 0; c < ks.class_time_ns.size(); ++c)
        ks.class_time_ratio[c] = Ratio(ks.class_time_ns[c], ks.duration.total_ns);
      ks.tensor_core_time_ratio = Ratio(ks.tensor_core_time_ns, ks.duration.total_ns);
    }

    // Transfers.
    for (size_t dir = 0; dir < a.memcpy_dir.size(); ++dir) {
      if (a.memcpy_dir[dir].stats.count == 0) continue;
      MemcpyGroup g;
      g.copy_kind = static_cast<model::CopyKind>(dir);
      g.stats = a.memcpy_dir[dir].Finish();
      d.memcpy_by_direction.push_back(g);
    }
    for (const auto& [key, acc] : a.memcpy_pair) {
      MemcpyGroup g;
      g.copy_kind = static_cast<model::CopyKind>(std::get<0>(key));
      g.src_kind = static_cast<model::MemoryKind>(std::get<1>(key));
      g.dst_kind = static_cast<model::MemoryKind>(std::get<2>(key));
      g.stats = acc.Finish();
      d.memcpy_by_kind_pair.push_back(g);
    }
    d.memcpy_total = a.memcpy_total.Finish();
    for (const auto& [kind, acc] : a.memset_kind) {
      MemsetGroup g;
      g.dst_kind = static_cast<model::MemoryKind>(kind);
      g.stats = acc.Finish();
      d.memset_by_kind.push_back(g);
    }
    d.memset_total = a.memset_total.Finish();

    for (const auto& [name, st] : a.sync_api) d.sync_apis.push_back(st);
    for (size_t kind = 0; kind < a.sync_kind.size(); ++kind) {
      if (a.sync_kind[kind].count == 0) continue;
      SyncEventStats s = a.sync_kind[kind];
      s.kind = static_cast<model::SyncKind>(kind);
      d.sync_events.push_back(s);
    }
    out.devices.push_back(std::move(d));
  }

  // Counter series: onto their event device, or onto a counters-only device.
  std::map<int32_t, DeviceSummary> counter_only;
  for (const model::CounterSeries& cs : trace.counters) {
    if (!IsValid(cs.device_id)) continue;  // host-level series are not per device
    DeviceSummary* d = nullptr;
    for (DeviceSummary& e : out.devices)
      if (e.device_id == cs.device_id) d = &e;
    if (d == nullptr) {
      auto [it, added] = counter_only.try_emplace(cs.device_id);
      d = &it->second;
      if (added) {
        d->device_id = cs.device_id;
        d->has_events = false;
        if (const model::Device* dev = trace.FindDevice(cs.device_id)) {
          d->name = std::string(trace.Str(dev->name));
          d->vendor = dev->vendor;
          d->sm_count = dev->sm_count;
          d->cc_major = dev->cc_major;
          d->cc_minor = dev->cc_minor;
          d->total_memory_bytes = dev->total_memory_bytes;
        }
      }
    }
    d->counters.push_back(SummarizeCounter(trace, cs));
    if (!d->has_events) {
      const CounterSummary& c = d->counters.back();
      if (IsValid(c.first_ns)) {
        d->span_start_ns = IsValid(d->span_start_ns) ? std::min(d->span_start_ns, c.first_ns)
                                                     : c.first_ns;
        d->span_end_ns = IsValid(d->span_end_ns) ? std::max(d->span_end_ns, c.last_ns) : c.last_ns;
        d->span_ns = d->span_end_ns - d->span_start_ns;
      }
    }
  }
  for (auto& [id, d] : counter_only) out.devices.push_back(std::move(d));
  if (!IsValid(out.extent_ns)) {
    for (const DeviceSummary& d : out.devices) {
      if (d.has_events || !IsValid(d.span_start_ns)) continue;
      out.extent_start_ns = IsValid(out.extent_start_ns) ? std::min(out.extent_start_ns, d.span_start_ns)
                                                         : d.span_start_ns;
      out.extent_end_ns = IsValid(out.extent_end_ns) ? std::max(out.extent_end_ns, d.span_end_ns)
                                                     : d.span_end_ns;
      out.extent_ns = out.extent_end_ns - out.extent_start_ns;
      out.extent_from_counters = true;
    }
  }

  for (const model::Device& dev : trace.devices)
    if (IsValid(dev.device_id) && dev_index.count(dev.device_id) == 0 &&
        counter_only.count(dev.device_id) == 0)
      out.devices_without_events.push_back(dev.device_id);
  std::sort(out.devices_without_events.begin(), out.devices_without_events.end());
  out.devices_without_events.erase(
      std::unique(out.devices_without_events.begin(), out.devices_without_events.end()),
      out.devices_without_events.end());

  for (size_t i = 0; i < model::kImportStatCount; ++i) {
    uint64_t n = trace.stats.Get(i);
    if (n == 0) continue;
    const model::ImportStatInfo& info = model::kImportStatInfo[i];
    out.import_stats.push_back(
        {std::string(info.name), info.severity, std::string(info.description), n});
  }
  return out;
}

TraceSummary SummarizeDevices(const model::Trace& trace, const SummaryOptions& options,
                              const RunSteps& run) {
  TraceSummary out = SummarizeDevices(trace, options);
  for (DeviceSummary& d : out.devices) {
    const DeviceSteps* ds = run.Find(d.device_id);
    if (ds == nullptr || !ds->from_markers) continue;
    StepSummary& st = d.steps;
    st.has_steps = true;
    std::vector<int64_t> durs;
    durs.reserve(ds->windows.size());
    st.first_step = st.last_step = ds->windows.front().step;
    for (const StepWindow& w : ds->windows) {
      durs.push_back(w.end_ns - w.start_ns);
      st.first_step = std::min(st.first_step, w.step);
      st.last_step = std::max(st.last_step, w.step);
    }
    st.window_start_ns = ds->windows.front().start_ns;
    st.window_end_ns = ds->windows.back().end_ns;
    st.step_time = ComputeDurationStats(durs);
  }
  return out;
}

}  // namespace gpuwhy::analysis
