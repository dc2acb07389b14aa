#include "analysis/detectors/host_activity.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "base/parallel.h"

namespace gpuwhy::analysis::detectors {

namespace {

bool Valid(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// kParallelSweepRows: range and API rows from which threads are swept on two
// workers (small traces are not worth a thread).
constexpr size_t kParallelSweepRows = size_t{1} << 16;

// Item: one range or API call of a thread, for the sweeps (8 bytes: start
// and end are read from the table; the main thread of a 21 M-event trace has
// about 10 M items).
struct Item {
  HostItemRef ref;
};

// Starts, Ends: the start and end of an item, from its table.
struct Starts {
  const model::Trace& t;
  int64_t operator()(const Item& it) const {
    return it.ref.is_api ? t.api_calls.start_ns[it.ref.row] : t.ranges.start_ns[it.ref.row];
  }
};
struct Ends {
  const model::Trace& t;
  int64_t operator()(const Item& it) const {
    return it.ref.is_api ? t.api_calls.end_ns[it.ref.row] : t.ranges.end_ns[it.ref.row];
  }
};

// AddTop: credit `ns` of `item` to the breakdown's top list: exact while it
// has room, then the smallest entry gives way to a larger credit.
void AddTop(HostBreakdown& b, StringId name, HostItemRef item, int64_t ns) {
  HostTally* empty = nullptr;
  HostTally* smallest = nullptr;
  for (HostTally& h : b.top) {
    if (h.ns > 0 && h.name == name) {
      h.ns += ns;
      return;
    }
    if (h.ns == 0) {
      if (empty == nullptr) empty = &h;
    } else if (smallest == nullptr || h.ns < smallest->ns) {
      smallest = &h;
    }
  }
  if (empty != nullptr) {
    *empty = {name, item, ns, 0};
  } else if (smallest != nullptr && ns > smallest->ns) {
    *smallest = {name, item, ns, 0};
  }
}

// ThreadRows: the range and API rows of each swept thread, in table order
// (built by BuildThreadRows), so that each pass over a thread's items reads
// its own rows, not both whole tables. Without it every pass scans both
// tables: no memory, and enough for the usual one to three launching
// threads, but the sweeps then cost threads × rows (2,000 threads on a 10 M-event
// trace: 9.3–10.4 s against 2.3–2.4 s with the index; docs/performance.md).
struct ThreadRows {
  std::vector<uint32_t> range_rows, api_rows;  // grouped by thread
  std::vector<size_t> range_begin, api_begin;  // thread g: [begin[g], begin[g + 1])
};

// kMaxScanPasses: the most whole-table passes (one per thread, plus one per
// query entry) made without ThreadRows. The index costs a pass to build and
// 4 bytes per row of the swept threads: 40 MB on the 100× bench copy, whose
// two launching threads scan in 4 passes (listing them there raised the
// digest's transient peak by about 70 MB and the timeline's time by 40–55
// ms, in one analysis_bench run).
constexpr size_t kMaxScanPasses = 16;

// BuildThreadRows: ThreadRows for `keys` (sorted, unique); rows of other
// threads are left out. Linear in rows (a binary search on a cache miss).
ThreadRows BuildThreadRows(const model::Trace& t, const std::vector<ThreadKey>& keys) {
  ThreadRows out;
  auto index = [&](const auto& table, std::vector<uint32_t>* rows, std::vector<size_t>* begin) {
    // group_of: row i's index in `keys`, or keys.size(). Rows of one thread
    // often follow each other, so the last key looked up is tried first.
    std::optional<ThreadKey> last;
    size_t last_g = keys.size();
    auto group_of = [&](size_t i) {
      const ThreadKey k{table.pid[i], table.tid[i]};
      if (!last || k != *last) {
        auto it = std::lower_bound(keys.begin(), keys.end(), k);
        last = k;
        last_g =
            it != keys.end() && *it == k ? static_cast<size_t>(it - keys.begin()) : keys.size();
      }
      return last_g;
    };
    begin->assign(keys.size() + 1, 0);
    for (size_t i = 0; i < table.size(); ++i) {
      const size_t g = group_of(i);
      if (g < keys.size()) ++(*begin)[g + 1];
    }
    for (size_t g = 0; g < keys.size(); ++g) (*begin)[g + 1] += (*begin)[g];
    rows->resize(begin->back());
    std::vector<size_t> at(begin->begin(), begin->end() - 1);
    for (size_t i = 0; i < table.size(); ++i) {
      const size_t g = group_of(i);
      if (g < keys.size()) (*rows)[at[g]++] = static_cast<uint32_t>(i);
    }
  };
  index(t.ranges, &out.range_rows, &out.range_begin);
  index(t.api_calls, &out.api_rows, &out.api_begin);
  return out;
}

// ThreadItems: the thread's ranges (no step ranges, no GPU annotations) and
// API calls, in call-stack order: by start, parents (longer) first, a range
// before a call that starts with it. Produced one at a time, not listed: the
// two sweeping threads of a 21 M-event trace held 10 M items (81 MB) as lists.
// Reads thread `g`'s rows of `rows`, or scans both tables when `rows` is null.
class ThreadItems {
 public:
  ThreadItems(const model::Trace& t, int32_t pid, int64_t tid, const ThreadRows* rows, size_t g)
      : r_(t.ranges),
        a_(t.api_calls),
        pid_(pid),
        tid_(tid),
        rrows_(rows != nullptr ? rows->range_rows.data() + rows->range_begin[g] : nullptr),
        arows_(rows != nullptr ? rows->api_rows.data() + rows->api_begin[g] : nullptr),
        rn_(rows != nullptr ? rows->range_begin[g + 1] - rows->range_begin[g] : r_.size()),
        an_(rows != nullptr ? rows->api_begin[g + 1] - rows->api_begin[g] : a_.size()),
        end_{t} {
    i_ = NextRange(0);
    j_ = NextApi(0);
  }
  // Next: the next item into *out; false after the last.
  bool Next(Item* out) {
    if (at_ == group_.size() && !Fill()) return false;
    *out = group_[at_++];
    return true;
  }

 private:
  uint32_t RangeRow(size_t i) const {
    return rrows_ != nullptr ? rrows_[i] : static_cast<uint32_t>(i);
  }
  uint32_t ApiRow(size_t j) const {
    return arows_ != nullptr ? arows_[j] : static_cast<uint32_t>(j);
  }
  bool RangeKept(uint32_t row) const {
    return r_.tid[row] == tid_ && r_.pid[row] == pid_ &&
           r_.kind[row] != model::RangeKind::kGpuUserAnnotation && !IsValid(r_.step[row]) &&
           Valid(r_.start_ns[row], r_.end_ns[row]);
  }
  bool ApiKept(uint32_t row) const {
    return a_.tid[row] == tid_ && a_.pid[row] == pid_ && Valid(a_.start_ns[row], a_.end_ns[row]);
  }
  size_t NextRange(size_t i) const {
    while (i < rn_ && !RangeKept(RangeRow(i))) ++i;
    return i;
  }
  size_t NextApi(size_t j) const {
    while (j < an_ && !ApiKept(ApiRow(j))) ++j;
    return j;
  }
  // Fill: the rows that start at the next start time, in order. Both tables
  // are sorted by (start, end) (Trace::Finalize), so the order is a merge,
  // not a sort: rows that start together are put parents (longer) first, a
  // range before a call, table order on full ties.
  bool Fill() {
    group_.clear();
    at_ = 0;
    if (i_ >= rn_ && j_ >= an_) return false;
    const int64_t s =
        j_ >= an_ || (i_ < rn_ && r_.start_ns[RangeRow(i_)] <= a_.start_ns[ApiRow(j_)])
            ? r_.start_ns[RangeRow(i_)]
            : a_.start_ns[ApiRow(j_)];
    for (; i_ < rn_ && r_.start_ns[RangeRow(i_)] == s; i_ = NextRange(i_ + 1))
      group_.push_back({{RangeRow(i_), false}});
    for (; j_ < an_ && a_.start_ns[ApiRow(j_)] == s; j_ = NextApi(j_ + 1))
      group_.push_back({{ApiRow(j_), true}});
    if (group_.size() > 1) {
      std::stable_sort(group_.begin(), group_.end(), [&](const Item& x, const Item& y) {
        const int64_t ex = end_(x), ey = end_(y);
        if (ex != ey) return ex > ey;
        return !x.ref.is_api && y.ref.is_api;
      });
    }
    return true;
  }

  const model::RangeTable& r_;
  const model::ApiTable& a_;
  int32_t pid_;
  int64_t tid_;
  const uint32_t* rrows_;  // the thread's range rows, table order (null: every row)
  const uint32_t* arows_;  // the thread's API rows, table order (null: every row)
  size_t rn_, an_;         // how many rows each holds
  Ends end_;
  size_t i_ = 0, j_ = 0;     // next kept position in rrows_ / arows_
  std::vector<Item> group_;  // rows of one start time, in order
  size_t at_ = 0;            // next of group_ to hand out
};

}  // namespace

std::map<ThreadKey, int64_t> LaunchCadence(const model::Trace& t,
                                           const std::vector<bool>& is_launch) {
  std::map<ThreadKey, std::vector<int64_t>> starts;
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i)
    if (is_launch[i] && IsValid(a.start_ns[i])) starts[{a.pid[i], a.tid[i]}].push_back(a.start_ns[i]);
  std::map<ThreadKey, int64_t> out;
  for (auto& [key, v] : starts) {
    if (v.size() < 2) continue;
    std::sort(v.begin(), v.end());
    std::vector<int64_t> d(v.size() - 1);
    for (size_t i = 1; i < v.size(); ++i) d[i - 1] = v[i] - v[i - 1];
    std::nth_element(d.begin(), d.begin() + static_cast<long>(d.size() / 2), d.end());
    out[key] = d[d.size() / 2];
  }
  return out;
}

void ComputeHostBreakdowns(const model::Trace& t, const std::vector<bool>& is_launch,
                           const std::vector<bool>& is_blocking,
                           std::vector<ThreadWindows> queries, std::vector<HostBreakdown>* out) {
  std::stable_sort(queries.begin(), queries.end(), [](const ThreadWindows& a, const ThreadWindows& b) {
    return std::make_pair(a.pid, a.tid) < std::make_pair(b.pid, b.tid);
  });
  // One group per thread: its consecutive entries share the thread's items.
  std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) of queries
  for (size_t i = 0; i < queries.size(); ++i) {
    if (queries[i].windows.empty()) continue;
    if (groups.empty() || queries[groups.back().first].pid != queries[i].pid ||
        queries[groups.back().first].tid != queries[i].tid)
      groups.push_back({i, i + 1});
    else
      groups.back().second = i + 1;
  }
  size_t passes = 0;
  for (const auto& g : groups) passes += 1 + (g.second - g.first);
  std::optional<ThreadRows> rows;
  if (passes > kMaxScanPasses) {
    std::vector<ThreadKey> keys;
    keys.reserve(groups.size());
    for (const auto& g : groups) keys.push_back({queries[g.first].pid, queries[g.first].tid});
    rows = BuildThreadRows(t, keys);
  }
  const ThreadRows* rows_or_null = rows ? &*rows : nullptr;
  // A byte per range row, not a bit: threads own disjoint rows, so groups
  // swept at once never write the same byte.
  std::vector<uint8_t> range_launches(t.ranges.size(), 0);
  const Starts start{t};
  const Ends end{t};
  // Pass 2 over one entry's windows (sorted by start).
  auto sweep_windows = [&](const ThreadWindows& q, ThreadItems items) {
    // Pass 2: innermost-item segments, each with the outermost enclosing range
    // that launches nothing, handed to the windows they overlap.
    const std::vector<HostWindow>& w = q.windows;
    std::vector<int64_t> traced(w.size(), 0);
    size_t wi = 0;
    auto work_of = [&](const Item& it) {
      if (it.ref.is_api) {
        if (is_launch[it.ref.row]) return HostWork::kLaunch;
        if (is_blocking[it.ref.row]) return HostWork::kBlocking;
        return HostWork::kOtherApi;
      }
      return range_launches[it.ref.row] ? HostWork::kDispatch : HostWork::kCpuWork;
    };
    struct Open {
      Item item;
      uint32_t outer;  // outermost non-launching range at or above this level
    };
    auto emit = [&](int64_t s, int64_t e, const Open& o) {
      if (e <= s) return;
      while (wi < w.size() && w[wi].end_ns <= s) ++wi;
      const HostWork work = work_of(o.item);
      for (size_t k = wi; k < w.size() && w[k].start_ns < e; ++k) {
        const int64_t len = std::min(e, w[k].end_ns) - std::max(s, w[k].start_ns);
        if (len <= 0) continue;
        traced[k] += len;
        HostBreakdown& b = (*out)[w[k].slot];
        b.by_work[static_cast<size_t>(work)] += len;
        if (work == HostWork::kBlocking) {
          if (len > b.top_blocking_ns) {
            b.top_blocking_ns = len;
            b.top_blocking = o.item.ref;
          }
        } else if (work == HostWork::kCpuWork || work == HostWork::kOtherApi) {
          const HostItemRef outer{o.outer, false};
          const HostItemRef inner = o.item.ref;
          if (outer.valid()) AddTop(b, t.ranges.name[outer.row], outer, len);
          if (!outer.valid() || inner.is_api || inner.row != outer.row)
            AddTop(b, ItemName(t, inner), inner, len);
        }
      }
    };
    std::vector<Open> stack;
    int64_t cur = kMissingI64;
    const int64_t first = w.front().start_ns, last = w.back().end_ns;
    for (Item it; items.Next(&it);) {
      // Items that end before the first window cannot hold one open.
      if (stack.empty() && end(it) <= first) continue;
      const int64_t it_start = start(it);
      if (it_start >= last) break;
      while (!stack.empty() && end(stack.back().item) <= it_start) {
        emit(cur, end(stack.back().item), stack.back());
        cur = std::max(cur, end(stack.back().item));
        stack.pop_back();
      }
      if (!stack.empty()) emit(cur, it_start, stack.back());
      cur = IsValid(cur) ? std::max(cur, it_start) : it_start;
      uint32_t outer = stack.empty() ? UINT32_MAX : stack.back().outer;
      if (outer == UINT32_MAX && !it.ref.is_api && !range_launches[it.ref.row]) outer = it.ref.row;
      stack.push_back({it, outer});
    }
    while (!stack.empty()) {
      emit(cur, end(stack.back().item), stack.back());
      cur = std::max(cur, end(stack.back().item));
      stack.pop_back();
    }
    for (size_t k = 0; k < w.size(); ++k)
      (*out)[w[k].slot].untraced_ns += (w[k].end_ns - w[k].start_ns) - traced[k];
  };
  auto sweep_group = [&](size_t gi) {
    const std::pair<size_t, size_t>& g = groups[gi];
    const int32_t pid = queries[g.first].pid;
    const int64_t tid = queries[g.first].tid;
    {
      // Pass 1: which ranges launch kernels somewhere inside them (a launch
      // marks its enclosing range; a marked range marks its parent at its end).
      std::vector<Item> stack;
      auto pop = [&]() {
        const Item top = stack.back();
        stack.pop_back();
        if (!top.ref.is_api && range_launches[top.ref.row] && !stack.empty() &&
            !stack.back().ref.is_api)
          range_launches[stack.back().ref.row] = 1;
      };
      ThreadItems items(t, pid, tid, rows_or_null, gi);
      for (Item it; items.Next(&it);) {
        while (!stack.empty() && end(stack.back()) <= start(it)) pop();
        if (it.ref.is_api && is_launch[it.ref.row]) {
          for (auto p = stack.rbegin(); p != stack.rend(); ++p) {
            if (!p->ref.is_api) {
              range_launches[p->ref.row] = 1;
              break;
            }
          }
        }
        stack.push_back(it);
      }
      while (!stack.empty()) pop();
    }
    for (size_t qi = g.first; qi < g.second; ++qi) {
      ThreadWindows& q = queries[qi];
      if (q.windows.empty()) continue;  // inside a thread's run of entries
      std::sort(q.windows.begin(), q.windows.end(),
                [](const HostWindow& a, const HostWindow& b) { return a.start_ns < b.start_ns; });
      sweep_windows(q, ThreadItems(t, pid, tid, rows_or_null, gi));
    }
  };
  // Threads are swept at once when there are two or more of them, each with
  // its own windows' slots (a slot shared across threads adds credits in an
  // order that decides the top items, so those stay in one sequence).
  bool disjoint = groups.size() >= 2;
  if (disjoint) {
    std::vector<uint32_t> owner(out->size(), UINT32_MAX);
    for (size_t gi = 0; gi < groups.size() && disjoint; ++gi)
      for (size_t qi = groups[gi].first; qi < groups[gi].second && disjoint; ++qi)
        for (const HostWindow& w : queries[qi].windows) {
          uint32_t& o = owner[w.slot];
          if (o != UINT32_MAX && o != gi) {
            disjoint = false;
            break;
          }
          o = static_cast<uint32_t>(gi);
        }
  }
  if (disjoint && t.ranges.size() + t.api_calls.size() >= kParallelSweepRows) {
    ForEachIndexOnTwoThreads(groups.size(), [&](size_t gi) { sweep_group(gi); });
  } else {
    for (size_t gi = 0; gi < groups.size(); ++gi) sweep_group(gi);
  }
  for (HostBreakdown& b : *out)
    std::sort(b.top.begin(), b.top.end(),
              [](const HostTally& x, const HostTally& y) { return x.ns > y.ns; });
}

std::string EnclosingOps(const model::Trace& t, int64_t tid, int64_t s, int64_t e,
                         bool cpu_ops_only) {
  const model::RangeTable& r = t.ranges;
  auto it = std::upper_bound(r.start_ns.begin(), r.start_ns.end(), s);
  std::vector<std::string_view> found;
  size_t scanned = 0;
  for (size_t i = static_cast<size_t>(it - r.start_ns.begin()); i > 0 && scanned < 20000; ++scanned) {
    --i;
    if (r.tid[i] != tid || IsValid(r.step[i])) continue;
    const model::RangeKind k = r.kind[i];
    const bool wanted = k == model::RangeKind::kCpuOp ||
                        (!cpu_ops_only && (k == model::RangeKind::kPythonFunction ||
                                           k == model::RangeKind::kUserAnnotation ||
                                           k == model::RangeKind::kNvtx));
    if (!wanted || !IsValid(r.end_ns[i]) || r.end_ns[i] < e) continue;
    found.push_back(t.Str(r.name[i]));
    if (found.size() >= 3) break;
  }
  std::string out;
  for (std::string_view name : found) {
    if (!out.empty()) out += " < ";
    out += std::string(name.substr(0, 48));
  }
  return out;
}

StringId ItemName(const model::Trace& t, HostItemRef item) {
  if (!item.valid()) return kEmptyString;
  return item.is_api ? t.api_calls.name[item.row] : t.ranges.name[item.row];
}

std::string_view ItemKindLabel(const model::Trace& t, HostItemRef item) {
  if (!item.valid()) return "untraced";
  if (item.is_api) {
    switch (t.api_calls.kind[item.row]) {
      case model::ApiKind::kRuntime: return "runtime call";
      case model::ApiKind::kDriver: return "driver call";
      case model::ApiKind::kOsRuntime: return "OS call";
      case model::ApiKind::kOther: break;
    }
    return "API call";
  }
  switch (t.ranges.kind[item.row]) {
    case model::RangeKind::kCpuOp: return "CPU op";
    case model::RangeKind::kUserAnnotation: return "annotation";
    case model::RangeKind::kPythonFunction: return "Python";
    case model::RangeKind::kNvtx: return "NVTX range";
    case model::RangeKind::kOsRuntime: return "OS call";
    case model::RangeKind::kGpuUserAnnotation:
    case model::RangeKind::kOther: break;
  }
  return "range";
}

}  // namespace gpuwhy::analysis::detectors
