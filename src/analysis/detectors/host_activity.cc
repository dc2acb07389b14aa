#include "analysis/detectors/host_activity.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "analysis/summary/sync_api_table.h"
#include "base/ascii.h"
#include "base/parallel.h"

namespace gpuwhy::analysis::detectors {

namespace {

bool Valid(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// kCompiledRegion: the annotation around a torch.compile'd frame's call.
constexpr std::string_view kCompiledRegion = "Torch-Compiled Region";

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
                           std::vector<ThreadWindows> queries, const HostWindowSource& source,
                           const HostBreakdownSink& sink) {
  std::stable_sort(queries.begin(), queries.end(), [](const ThreadWindows& a, const ThreadWindows& b) {
    return std::make_pair(a.pid, a.tid) < std::make_pair(b.pid, b.tid);
  });
  // One group per thread: its consecutive entries share the thread's items.
  std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) of queries
  for (size_t i = 0; i < queries.size(); ++i) {
    if (queries[i].slots.empty()) continue;
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
  // compile_name: per interned string, IsCompileRangeName, tested once for
  // each name a range has (kernel names and call names are never tested).
  std::vector<uint8_t> compile_name;
  if (!groups.empty()) {
    constexpr uint8_t kUnknown = 2;
    compile_name.assign(t.strings.size(), kUnknown);
    for (StringId n : t.ranges.name)
      if (n < compile_name.size() && compile_name[n] == kUnknown)
        compile_name[n] = IsCompileRangeName(t.Str(n)) ? 1 : 0;
    for (uint8_t& c : compile_name)
      if (c == kUnknown) c = 0;
  }
  // "Torch-Compiled Region: F/C" compiles on its first call only; later calls
  // of the same id run the compiled code.
  std::vector<uint32_t> first_of_name;
  auto is_compile = [&](uint32_t range_row) {
    const StringId n = t.ranges.name[range_row];
    if (!compile_name[n]) return false;
    if (!t.Str(n).starts_with(kCompiledRegion)) return true;
    return !first_of_name.empty() && first_of_name[n] == range_row;
  };
  for (size_t i = 0; i < compile_name.size() && first_of_name.empty(); ++i)
    if (compile_name[i] && t.Str(static_cast<StringId>(i)).starts_with(kCompiledRegion))
      first_of_name = FirstRangeRowsByName(t);
  // Pass 2 over one entry's slots (in time order).
  auto sweep_windows = [&](const ThreadWindows& q, ThreadItems items) {
    // Pass 2: innermost-item segments, each with the outermost enclosing range
    // that launches nothing, handed to the windows they overlap. A slot's
    // windows (its block) are asked of `source` when the sweep reaches them;
    // its breakdown lives until the sweep has passed its last window, then
    // goes to the sink: only the blocks the sweep is inside are held.
    const std::vector<uint32_t>& slots = q.slots;
    struct Block {
      uint32_t slot = 0;
      std::vector<Interval> parts;  // its windows, by start
      int64_t first = 0, last = 0;  // first part's start, last part's end
      int64_t len = 0;              // their summed length
      int64_t mid = 0;              // where half of that length is reached
      int64_t traced = 0;
      HostBreakdown b;
    };
    std::deque<Block> open;  // consecutive blocks, the earliest first
    std::vector<Block> spare;  // closed blocks, kept for their parts' capacity
    size_t front_i = 0;      // slot index of open.front()
    size_t next_i = 0;       // slot index of the next block to open
    auto open_next = [&]() {
      Block blk;
      if (!spare.empty()) {
        blk.parts = std::move(spare.back().parts);
        spare.pop_back();
      }
      blk.parts.clear();
      blk.slot = slots[next_i];
      source(blk.slot, &blk.parts);
      for (const Interval& iv : blk.parts) blk.len += iv.end_ns - iv.start_ns;
      blk.first = blk.parts.empty() ? INT64_MAX : blk.parts.front().start_ns;
      blk.last = blk.parts.empty() ? INT64_MIN : blk.parts.back().end_ns;
      int64_t half = blk.len / 2;
      blk.mid = blk.parts.empty() ? INT64_MIN : blk.first;  // an empty block: probed at once
      for (const Interval& iv : blk.parts) {
        const int64_t l = iv.end_ns - iv.start_ns;
        if (half <= l) {
          blk.mid = iv.start_ns + half;
          break;
        }
        half -= l;
      }
      if (open.empty()) front_i = next_i;
      ++next_i;
      open.push_back(std::move(blk));
    };
    // block_at: the block of slot index i (>= front_i), opening blocks up to it.
    auto block_at = [&](size_t i) -> Block& {
      while (next_i <= i) open_next();
      return open[i - front_i];
    };
    auto finish = [&](Block& blk) {
      HostBreakdown& b = blk.b;
      b.untraced_ns = blk.len - blk.traced;
      std::sort(b.top.begin(), b.top.end(),
                [](const HostTally& x, const HostTally& y) { return x.ns > y.ns; });
      sink(blk.slot, b);
    };
    // close_through: hand over every block whose windows all end by until_ns.
    auto close_through = [&](int64_t until_ns) {
      for (;;) {
        if (open.empty()) {
          if (next_i >= slots.size()) return;
          open_next();
        }
        Block& front = open.front();
        if (front.last > until_ns) return;
        finish(front);
        spare.push_back(std::move(front));
        open.pop_front();
        ++front_i;
      }
    };
    const int64_t piece_max = q.launch_piece_max_ns;
    auto work_of = [&](const Item& it, int64_t len) {
      if (it.ref.is_api) {
        if (is_launch[it.ref.row]) return len <= piece_max ? HostWork::kLaunch : HostWork::kOtherApi;
        if (is_blocking[it.ref.row]) return HostWork::kBlocking;
        return HostWork::kOtherApi;
      }
      if (!range_launches[it.ref.row]) return HostWork::kCpuWork;
      return len <= piece_max ? HostWork::kDispatch : HostWork::kCpuWork;
    };
    struct Open {
      Item item;
      uint32_t outer;  // outermost non-launching range at or above this level
    };
    auto emit = [&](int64_t s, int64_t e, const Open& o) {
      if (e <= s) return;
      close_through(s);
      const HostWork work = work_of(o.item, e - s);
      for (size_t i = front_i; i < slots.size(); ++i) {
        Block& blk = block_at(i);
        if (blk.parts.empty()) continue;
        if (blk.first >= e) break;
        for (const Interval& iv : blk.parts) {
          const int64_t len = std::min(e, iv.end_ns) - std::max(s, iv.start_ns);
          if (len <= 0) continue;
          blk.traced += len;
          HostBreakdown& b = blk.b;
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
      }
    };
    std::vector<Open> stack;
    // Holder probes: a slot's holder covers more than half of its length, so
    // it spans the block's `mid`; the stack when the sweep reaches `mid`
    // holds every candidate, the innermost on top.
    size_t probe_i = 0;  // slot index of the next block to probe
    auto overlap = [&](const Block& blk, int64_t s, int64_t e) {
      int64_t ov = 0;
      for (const Interval& iv : blk.parts)
        ov += std::max<int64_t>(0, std::min(e, iv.end_ns) - std::max(s, iv.start_ns));
      return ov;
    };
    auto probe_until = [&](int64_t now) {
      for (; probe_i < slots.size(); ++probe_i) {
        if (probe_i < front_i) continue;  // closed unprobed: empty blocks only
        Block& blk = block_at(probe_i);
        if (blk.mid >= now) return;
        if (blk.len == 0) continue;
        size_t found = SIZE_MAX;
        for (size_t i = stack.size(); i-- > 0;) {
          const Item& it = stack[i].item;
          const int64_t s = start(it), e = end(it);
          if (s > blk.mid || e <= blk.mid) continue;
          const int64_t ov = overlap(blk, s, e);
          if (2 * ov > blk.len) {
            found = i;
            blk.b.holder = it.ref;
            blk.b.holder_ns = ov;
            break;
          }
        }
        // Compilation at or around the holder holds the window: the
        // innermost compile annotation that spans `mid`.
        for (size_t i = found == SIZE_MAX ? 0 : found + 1; i-- > 0;) {
          const Item& it = stack[i].item;
          if (it.ref.is_api || !is_compile(it.ref.row)) continue;
          if (start(it) > blk.mid || end(it) <= blk.mid) continue;
          blk.b.holder = it.ref;
          blk.b.holder_ns = overlap(blk, start(it), end(it));
          break;
        }
      }
    };
    if (slots.empty()) return;
    int64_t cur = kMissingI64;
    const int64_t first = block_at(0).first;
    int64_t last = INT64_MIN;
    {
      std::vector<Interval> parts;
      source(slots.back(), &parts);
      last = parts.empty() ? block_at(0).last : parts.back().end_ns;
    }
    for (Item it; items.Next(&it);) {
      // Items that end before the first window cannot hold one open.
      if (stack.empty() && end(it) <= first) continue;
      const int64_t it_start = start(it);
      probe_until(it_start);
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
    probe_until(INT64_MAX);
    while (!stack.empty()) {
      emit(cur, end(stack.back().item), stack.back());
      cur = std::max(cur, end(stack.back().item));
      stack.pop_back();
    }
    close_through(INT64_MAX);
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
      if (q.slots.empty()) continue;  // inside a thread's run of entries
      sweep_windows(q, ThreadItems(t, pid, tid, rows_or_null, gi));
      std::vector<uint32_t>().swap(q.slots);  // swept: give the memory back
    }
  };
  // Threads are swept at once when there are two or more of them: each slot
  // lies in one entry, so two workers never add to the same breakdown.
  if (groups.size() >= 2 && t.ranges.size() + t.api_calls.size() >= kParallelSweepRows) {
    ForEachIndexOnTwoThreads(groups.size(), [&](size_t gi) { sweep_group(gi); });
  } else {
    for (size_t gi = 0; gi < groups.size(); ++gi) sweep_group(gi);
  }
}

bool IsCompileRangeName(std::string_view name) {
  static constexpr std::string_view kWords[] = {
      "dynamo_timed", "compile_fx", "compile_inner", "call_user_compiler", "fx_codegen_and_compile",
      "inductor_compile", "async_compile", "benchmark_all_configs", "autotun", "Autotun",
      "torch/_dynamo/convert_frame.py", "torch/_inductor/codecache.py",
      "torch/_inductor/select_algorithm.py", "triton/compiler/"};
  if (name.starts_with(kCompiledRegion)) return true;
  const std::string_view head = name.substr(0, 256);  // names can be whole stacks
  for (std::string_view w : kWords)
    if (head.find(w) != std::string_view::npos) return true;
  return false;
}

std::vector<uint32_t> FirstRangeRowsByName(const model::Trace& t) {
  std::vector<uint32_t> first(t.strings.size(), UINT32_MAX);
  const model::RangeTable& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    const StringId n = r.name[i];
    if (n >= first.size() || !IsValid(r.start_ns[i])) continue;
    uint32_t& f = first[n];
    if (f == UINT32_MAX || r.start_ns[i] < r.start_ns[f]) f = static_cast<uint32_t>(i);
  }
  return first;
}

std::vector<uint32_t> FirstApiRowsByName(const model::Trace& t) {
  std::vector<uint32_t> first(t.strings.size(), UINT32_MAX);
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i) {
    const StringId n = a.name[i];
    if (n >= first.size() || !IsValid(a.start_ns[i])) continue;
    uint32_t& f = first[n];
    if (f == UINT32_MAX || a.start_ns[i] < a.start_ns[f]) f = static_cast<uint32_t>(i);
  }
  return first;
}

namespace {

// OneOffApiKind: what a non-launch, non-sync runtime/driver call that held a
// gap is, by its canonical name (any vendor prefix).
HoldKind OneOffApiKind(std::string_view name) {
  // Drop CUPTI's suffixes (_v2, _ptsz, ...): prefixes decide below.
  auto has = [&](std::string_view p) { return name.starts_with(p); };
  if (has("cudaMalloc") || has("cudaFree") || has("hipMalloc") || has("hipFree") ||
      has("cuMemAlloc") || has("cuMemFree") || has("cuMemCreate") || has("cuMemMap") ||
      has("hipExtMallocWithFlags") || has("cudaHostAlloc") || has("hipHostMalloc") ||
      has("cuMemHostAlloc") || has("cudaMallocHost") || has("cudaHostRegister") ||
      has("cuMemHostRegister") || has("hipHostRegister"))
    return HoldKind::kAllocation;
  if (has("cuModuleLoad") || has("cuLibraryLoad") || has("hipModuleLoad") ||
      has("cuLinkComplete") || has("nvrtcCompileProgram") || has("hiprtcCompileProgram") ||
      has("cudaLibraryLoad") || has("cuModuleGetFunction") || has("hipModuleGetFunction"))
    return HoldKind::kModuleLoad;
  if (has("cuInit") || has("hipInit") || has("cuCtxCreate") || has("hipCtxCreate") ||
      has("cuDevicePrimaryCtxRetain") || has("hipDevicePrimaryCtxRetain") ||
      has("cudaSetDevice") || has("cudaInitDevice") || has("cuDevicePrimaryCtxSetFlags"))
    return HoldKind::kContext;
  return HoldKind::kOtherCall;
}

// IsCudnnName: a cuDNN op or call by name (aten::cudnn_convolution, MIOpen too).
bool IsCudnnName(std::string_view name) {
  const std::string lower = AsciiLower(name.substr(0, 200));
  return lower.find("cudnn") != std::string::npos || lower.find("miopen") != std::string::npos;
}

// IsLibraryName: ops whose first call initializes a library (cuDNN, cuBLAS,
// MIOpen, rocBLAS): convolutions, matrix products.
bool IsConvolutionName(std::string_view name) {
  return name.find("conv") != std::string_view::npos;
}

}  // namespace

HoldKind ClassifyHold(const model::Trace& t, HostItemRef item,
                      const std::vector<uint32_t>& first_row_of_range_name) {
  if (!item.valid()) return HoldKind::kNone;
  if (item.is_api) {
    const model::ApiTable& a = t.api_calls;
    const std::string_view name = t.Str(a.name[item.row]);
    const model::ApiKind kind = a.kind[item.row];
    const int32_t cbid = a.cbid[item.row];
    const RuntimeApiRole role = RuntimeApiRoleOf(name, kind, cbid);
    if (role == RuntimeApiRole::kLaunch || role == RuntimeApiRole::kGraphLaunch)
      return HoldKind::kSlowLaunch;
    if (role == RuntimeApiRole::kExplicitSync || role == RuntimeApiRole::kBlockingCopy)
      return HoldKind::kBlockingCall;
    if (kind == model::ApiKind::kOsRuntime) return HoldKind::kOtherCall;
    return OneOffApiKind(CanonicalApiName(name));
  }
  const model::RangeTable& r = t.ranges;
  const StringId n = r.name[item.row];
  const std::string_view name = t.Str(n);
  const bool first = n < first_row_of_range_name.size() && first_row_of_range_name[n] == item.row;
  if (IsCompileRangeName(name) && (!name.starts_with(kCompiledRegion) || first))
    return HoldKind::kCompile;
  const model::RangeKind kind = r.kind[item.row];
  if (kind == model::RangeKind::kCpuOp) {
    if (first && IsCudnnName(name)) return HoldKind::kCudnnFirstUse;
    if (first) return HoldKind::kFirstCall;
    return HoldKind::kOp;
  }
  if (kind == model::RangeKind::kPythonFunction) return HoldKind::kPython;
  return HoldKind::kAnnotation;
}

bool IsWarmUpHold(HoldKind kind) {
  switch (kind) {
    case HoldKind::kAllocation:
    case HoldKind::kModuleLoad:
    case HoldKind::kContext:
    case HoldKind::kSlowLaunch:
    case HoldKind::kCompile:
    case HoldKind::kCudnnFirstUse:
    case HoldKind::kFirstCall:
      return true;
    default:
      break;
  }
  return false;
}

namespace {

// InnermostUserFrame: the innermost Python frame around [s, e) on `tid`
// that is not torch's own or a built-in, cut to 64 bytes; empty when none.
// Scans at most 20000 earlier ranges, as EnclosingOps.
std::string InnermostUserFrame(const model::Trace& t, int64_t tid, int64_t s, int64_t e) {
  const model::RangeTable& r = t.ranges;
  auto it = std::upper_bound(r.start_ns.begin(), r.start_ns.end(), s);
  size_t scanned = 0;
  for (size_t i = static_cast<size_t>(it - r.start_ns.begin()); i > 0 && scanned < 20000; ++scanned) {
    --i;
    if (r.tid[i] != tid || r.kind[i] != model::RangeKind::kPythonFunction) continue;
    if (!IsValid(r.end_ns[i]) || r.end_ns[i] < e) continue;
    std::string_view name = t.Str(r.name[i]);
    if (name.starts_with("<built-in") || name.starts_with("torch/") ||
        name.find("/torch/") != std::string_view::npos || name.starts_with("nn.Module"))
      continue;
    // "/long/path/to/file.py(443): fn" -> "file.py(443): fn".
    const size_t paren = name.find('(');
    const size_t slash = name.rfind('/', paren == std::string_view::npos ? name.size() : paren);
    if (slash != std::string_view::npos) name = name.substr(slash + 1);
    return std::string(name.substr(0, 64));
  }
  return {};
}

}  // namespace

std::string DescribeHold(const model::Trace& t, HostItemRef item, HoldKind kind,
                         std::string_view note) {
  if (!item.valid()) return {};
  const bool api = item.is_api;
  const int64_t tid = api ? t.api_calls.tid[item.row] : t.ranges.tid[item.row];
  const int64_t s = api ? t.api_calls.start_ns[item.row] : t.ranges.start_ns[item.row];
  const int64_t e = api ? t.api_calls.end_ns[item.row] : t.ranges.end_ns[item.row];
  std::string_view raw = t.Str(ItemName(t, item));
  std::string name = api ? std::string(CanonicalApiName(raw)) : ReadableRangeName(raw).substr(0, 80);
  // The ops around it (a range's own name left out) and the user's frame.
  std::string ops = EnclosingOps(t, tid, s, e, /*cpu_ops_only=*/true);
  if (!api && ops.starts_with(name)) {
    const size_t cut = ops.find(" < ");
    ops = cut == std::string::npos ? std::string() : ops.substr(cut + 3);
  }
  std::string what;
  switch (kind) {
    case HoldKind::kBlockingCall: {
      const RuntimeApiRole role = RuntimeApiRoleOf(raw, t.api_calls.kind[item.row],
                                                   t.api_calls.cbid[item.row]);
      what = name + (role == RuntimeApiRole::kBlockingCopy ? " (a blocking copy" : " (a blocking sync") +
             (note.empty() ? std::string() : ", " + std::string(note)) + ")";
      break;
    }
    case HoldKind::kAllocation: what = name + " (allocation; the first ones are warm-up)"; break;
    case HoldKind::kModuleLoad: what = name + " (module load: compile/warm-up)"; break;
    case HoldKind::kContext: what = name + " (context creation: warm-up)"; break;
    case HoldKind::kSlowLaunch:
      what = name + " (one launch call far longer than launching: a lazy module load on first "
                    "launch, warm-up)";
      break;
    case HoldKind::kOtherCall: what = name + " (" + std::string(ItemKindLabel(t, item)) + ")"; break;
    case HoldKind::kCompile: what = name + " (compilation: compile/warm-up)"; break;
    case HoldKind::kCudnnFirstUse:
      what = "the first " + name + " (cuDNN algorithm search (`torch.backends.cudnn.benchmark`): "
             "warm-up on first use)";
      break;
    case HoldKind::kFirstCall: what = "the first " + name + " (its own CPU time: warm-up)"; break;
    case HoldKind::kOp: what = name + " (the op's own CPU time)"; break;
    case HoldKind::kPython: what = name + " (Python, no op)"; break;
    case HoldKind::kAnnotation: what = name + " (" + std::string(ItemKindLabel(t, item)) + ")"; break;
    case HoldKind::kNone: return {};
  }
  if (!ops.empty()) what += " in " + ops;
  // A slow launch or another call inside a cuDNN convolution is cuDNN's
  // first-use cost (the caller gives only items that held a long gap).
  if (api && kind != HoldKind::kBlockingCall && !ops.empty()) {
    const std::string_view inner = std::string_view(ops).substr(0, ops.find(" < "));
    if (IsCudnnName(inner) && IsConvolutionName(inner))
      what += " (cuDNN's first use: algorithm search (`torch.backends.cudnn.benchmark`) and "
              "kernel loading, warm-up)";
  }
  const std::string frame = InnermostUserFrame(t, tid, s, e);
  if (!frame.empty() && frame != name) what += ", from " + frame;
  return what;
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

std::string ReadableRangeName(std::string_view name) {
  if (!name.starts_with("{")) return std::string(name);
  // value('key'): the quoted value after `'key': ` in a Python dict repr.
  auto value = [name](std::string_view key) -> std::string_view {
    const std::string k = "'" + std::string(key) + "': '";
    const size_t at = name.find(k);
    if (at == std::string_view::npos) return {};
    const size_t b = at + k.size();
    const size_t e = name.find('\'', b);
    return e == std::string_view::npos ? std::string_view() : name.substr(b, e - b);
  };
  const std::string_view mod = value("mod"), op = value("op");
  if (op.empty()) return std::string(name);
  return mod.empty() ? std::string(op) : std::string(mod) + "." + std::string(op);
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
