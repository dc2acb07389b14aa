#include "analysis/detectors/host_activity.h"

#include <algorithm>

namespace gpuwhy::analysis::detectors {

namespace {

bool Valid(int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; }

// Item: one range or API call of a thread, for the sweeps.
struct Item {
  int64_t start_ns;
  int64_t end_ns;
  HostItemRef ref;
};

bool Before(const Item& a, const Item& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;  // parents first
  return !a.ref.is_api && b.ref.is_api;                  // a range encloses a call
}

void Credit(std::vector<HostTally>* names, const model::Trace& t, HostItemRef item, int64_t ns) {
  const StringId name = ItemName(t, item);
  for (HostTally& h : *names) {
    if (h.name == name) {
      h.ns += ns;
      return;
    }
  }
  names->push_back({name, item, ns, 0});
}

}  // namespace

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

HostActivityIndex HostActivityIndex::Build(const model::Trace& t,
                                           std::vector<std::pair<int32_t, int64_t>> threads,
                                           const std::vector<bool>& is_launch,
                                           const std::vector<bool>& is_blocking) {
  HostActivityIndex idx;
  idx.trace_ = &t;
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  if (threads.empty()) return idx;
  auto slot = [&](int32_t pid, int64_t tid) -> int {
    // Missing pids match any pid of the tid (nsys rows always carry both).
    auto it = std::lower_bound(threads.begin(), threads.end(), std::make_pair(pid, tid));
    if (it != threads.end() && *it == std::make_pair(pid, tid)) return static_cast<int>(it - threads.begin());
    return -1;
  };
  std::vector<std::vector<Item>> items(threads.size());
  const model::RangeTable& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.kind[i] == model::RangeKind::kGpuUserAnnotation || IsValid(r.step[i])) continue;
    if (!Valid(r.start_ns[i], r.end_ns[i])) continue;
    const int s = slot(r.pid[i], r.tid[i]);
    if (s >= 0) items[s].push_back({r.start_ns[i], r.end_ns[i], {static_cast<uint32_t>(i), false}});
  }
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Valid(a.start_ns[i], a.end_ns[i])) continue;
    const int s = slot(a.pid[i], a.tid[i]);
    if (s >= 0) items[s].push_back({a.start_ns[i], a.end_ns[i], {static_cast<uint32_t>(i), true}});
  }

  std::vector<bool> range_launches(r.size(), false);
  for (size_t ti = 0; ti < threads.size(); ++ti) {
    std::vector<Item>& v = items[ti];
    std::sort(v.begin(), v.end(), Before);
    ThreadIndex th;
    th.pid = threads[ti].first;
    th.tid = threads[ti].second;

    // Launch cadence: spacing of consecutive launch calls.
    {
      std::vector<int64_t> d;
      int64_t prev = kMissingI64;
      for (const Item& it : v) {
        if (!it.ref.is_api || !is_launch[it.ref.row]) continue;
        if (IsValid(prev)) d.push_back(it.start_ns - prev);
        prev = it.start_ns;
      }
      if (!d.empty()) {
        std::nth_element(d.begin(), d.begin() + static_cast<long>(d.size() / 2), d.end());
        th.launch_p50_ns = d[d.size() / 2];
      }
    }

    // Pass 1: which ranges launch kernels somewhere inside them (a launch
    // marks its enclosing range; a marked range marks its parent when it ends).
    {
      std::vector<const Item*> stack;
      auto pop = [&]() {
        const Item* top = stack.back();
        stack.pop_back();
        if (!top->ref.is_api && range_launches[top->ref.row] && !stack.empty() &&
            !stack.back()->ref.is_api)
          range_launches[stack.back()->ref.row] = true;
      };
      for (const Item& it : v) {
        while (!stack.empty() && stack.back()->end_ns <= it.start_ns) pop();
        if (it.ref.is_api && is_launch[it.ref.row]) {
          for (auto p = stack.rbegin(); p != stack.rend(); ++p) {
            if (!(*p)->ref.is_api) {
              range_launches[(*p)->ref.row] = true;
              break;
            }
          }
        }
        stack.push_back(&it);
      }
      while (!stack.empty()) pop();
    }

    // Pass 2: innermost-item segments, each with the outermost enclosing
    // range that launches nothing.
    {
      struct Open {
        const Item* item;
        uint32_t outer;  // outermost non-launching range at or above this level
      };
      std::vector<Open> stack;
      int64_t cur = kMissingI64;
      auto work_of = [&](const Item& it) {
        if (it.ref.is_api) {
          if (is_launch[it.ref.row]) return HostWork::kLaunch;
          if (is_blocking[it.ref.row]) return HostWork::kBlocking;
          return HostWork::kOtherApi;
        }
        return range_launches[it.ref.row] ? HostWork::kDispatch : HostWork::kCpuWork;
      };
      auto emit = [&](int64_t s, int64_t e, const Open& o) {
        if (e <= s) return;
        th.segments.push_back({s, e, o.item->ref, o.outer, work_of(*o.item)});
      };
      for (const Item& it : v) {
        while (!stack.empty() && stack.back().item->end_ns <= it.start_ns) {
          emit(cur, stack.back().item->end_ns, stack.back());
          cur = std::max(cur, stack.back().item->end_ns);
          stack.pop_back();
        }
        if (!stack.empty()) emit(cur, it.start_ns, stack.back());
        cur = IsValid(cur) ? std::max(cur, it.start_ns) : it.start_ns;
        uint32_t outer = stack.empty() ? UINT32_MAX : stack.back().outer;
        if (outer == UINT32_MAX && !it.ref.is_api && !range_launches[it.ref.row]) outer = it.ref.row;
        stack.push_back({&it, outer});
      }
      while (!stack.empty()) {
        emit(cur, stack.back().item->end_ns, stack.back());
        cur = std::max(cur, stack.back().item->end_ns);
        stack.pop_back();
      }
    }
    idx.threads_.push_back(std::move(th));
  }
  return idx;
}

const HostActivityIndex::ThreadIndex* HostActivityIndex::Find(int32_t pid, int64_t tid) const {
  for (const ThreadIndex& th : threads_)
    if (th.pid == pid && th.tid == tid) return &th;
  return nullptr;
}

bool HostActivityIndex::HasThread(int32_t pid, int64_t tid) const {
  const ThreadIndex* th = Find(pid, tid);
  return th != nullptr && !th->segments.empty();
}

int64_t HostActivityIndex::LaunchIntervalP50Ns(int32_t pid, int64_t tid) const {
  const ThreadIndex* th = Find(pid, tid);
  return th == nullptr ? kMissingI64 : th->launch_p50_ns;
}

HostBreakdown HostActivityIndex::Breakdown(int32_t pid, int64_t tid, int64_t s, int64_t e,
                                           std::unordered_map<StringId, HostTally>* names) const {
  HostBreakdown b;
  if (e <= s) return b;
  const ThreadIndex* th = Find(pid, tid);
  int64_t traced = 0;
  // Per-window credit, so HostTally::windows counts each name once.
  std::vector<HostTally> local;
  if (th != nullptr) {
    const auto& seg = th->segments;
    auto it = std::upper_bound(seg.begin(), seg.end(), s,
                               [](int64_t t, const Segment& x) { return t < x.end_ns; });
    for (; it != seg.end() && it->start_ns < e; ++it) {
      const int64_t len = std::min(e, it->end_ns) - std::max(s, it->start_ns);
      if (len <= 0) continue;
      traced += len;
      b.by_work[static_cast<size_t>(it->work)] += len;
      if (it->work == HostWork::kBlocking) {
        if (len > b.top_blocking_ns) {
          b.top_blocking_ns = len;
          b.top_blocking = it->inner;
        }
      } else if (it->work == HostWork::kCpuWork || it->work == HostWork::kOtherApi) {
        const HostItemRef outer{it->outer_range, false};
        const HostItemRef shown = outer.valid() ? outer : it->inner;
        Credit(&local, *trace_, shown, len);
        if (outer.valid() && outer.row != it->inner.row) Credit(&local, *trace_, it->inner, len);
      }
    }
  }
  b.untraced_ns = (e - s) - traced;
  for (const HostTally& h : local) {
    if (h.ns > b.top_cpu_ns) {
      b.top_cpu_ns = h.ns;
      b.top_cpu = h.example;
    }
  }
  if (names != nullptr) {
    for (const HostTally& h : local) {
      HostTally& n = (*names)[h.name];
      if (!n.example.valid()) {
        n.name = h.name;
        n.example = h.example;
      }
      n.ns += h.ns;
      ++n.windows;
    }
  }
  return b;
}

}  // namespace gpuwhy::analysis::detectors
