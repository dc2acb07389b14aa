#include "import/trace_merge.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

namespace gpuwhy::import {

namespace {

constexpr int64_t kQuarterHourNs = 15LL * 60 * kNsPerS;
constexpr int kMaxQuarterHours = 14 * 4;  // +-14 h covers every time zone

bool HasEvents(const model::Trace& t) {
  return !t.kernels.empty() || !t.memcpys.empty() || !t.memsets.empty() || !t.api_calls.empty() ||
         !t.ranges.empty() || !t.syncs.empty() || !t.markers.empty() || !t.collectives.empty();
}

bool HasGpuEvents(const model::Trace& t) {
  return !t.kernels.empty() || !t.memcpys.empty() || !t.memsets.empty();
}

// CounterSpan: first and last timestamp over timed counter series.
std::pair<int64_t, int64_t> CounterSpan(const model::Trace& t) {
  int64_t lo = kMissingI64, hi = kMissingI64;
  for (const model::CounterSeries& s : t.counters) {
    if (s.ts_are_indexes || s.ts_ns.empty()) continue;
    lo = IsValid(lo) ? std::min(lo, s.ts_ns.front()) : s.ts_ns.front();
    hi = IsValid(hi) ? std::max(hi, s.ts_ns.back()) : s.ts_ns.back();
  }
  return {lo, hi};
}

int64_t Overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  return std::max<int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

// MeanUtilIn: mean GPU-Util (any device) of samples in [lo, hi]; -1 when none.
double MeanUtilIn(const model::Trace& t, int64_t lo, int64_t hi) {
  double sum = 0;
  int64_t n = 0;
  for (const model::CounterSeries& s : t.counters) {
    if (s.kind != model::CounterKind::kGpuUtil || s.ts_are_indexes) continue;
    auto it = std::lower_bound(s.ts_ns.begin(), s.ts_ns.end(), lo);
    for (; it != s.ts_ns.end() && *it <= hi; ++it) {
      double v = s.value[static_cast<size_t>(it - s.ts_ns.begin())];
      if (IsValid(v)) {
        sum += v;
        ++n;
      }
    }
  }
  return n > 0 ? sum / static_cast<double>(n) : -1.0;
}

// DeviceMap: counter-input device id -> event-trace device id.
std::map<int32_t, int32_t> DeviceMap(const model::Trace& from, const model::Trace& to) {
  std::map<int32_t, int32_t> m;
  for (const model::CounterSeries& s : from.counters)
    if (IsValid(s.device_id)) m[s.device_id] = s.device_id;
  for (size_t i = 0; i < from.gpu_processes.size(); ++i)
    if (IsValid(from.gpu_processes.device_id[i]))
      m[from.gpu_processes.device_id[i]] = from.gpu_processes.device_id[i];
  for (auto& [id, target] : m) {
    const model::Device* fd = from.FindDevice(id);
    if (fd == nullptr || !IsValid(fd->pcie_bus_id)) continue;
    for (const model::Device& td : to.devices)
      if (IsValid(td.pcie_bus_id) && td.pcie_bus_id == fd->pcie_bus_id) target = td.device_id;
  }
  return m;
}

// UnixOffset: what to add to `t`'s times to get unix-epoch ns, or missing
// when its clock has no known relation to wall-clock time. nsys times count
// from the session start, whose epoch time TARGET_INFO_SESSION_START_TIME gives.
int64_t UnixOffset(const model::Trace& t) {
  if (t.info.clock == "unix_realtime") return 0;
  if (t.info.clock == "nsys_session" && IsValid(t.info.base_time_ns)) return t.info.base_time_ns;
  return kMissingI64;
}

std::string FileName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string OffsetText(int64_t ns) {
  if (ns == 0) return "overlapping wall clock";
  char b[96];
  const double h = static_cast<double>(ns) / (3600.0 * kNsPerS);
  std::snprintf(b, sizeof b, "timestamps shifted by %+.2g h (local time read as UTC)", h);
  return b;
}

// Merge: move `from`'s counters and process rows into `to`.
MergeNote Merge(model::Trace& from, model::Trace& to, int64_t offset_ns, int64_t lo, int64_t hi) {
  MergeNote note;
  note.offset_ns = offset_ns;
  const std::map<int32_t, int32_t> dev = DeviceMap(from, to);
  auto map_dev = [&](int32_t id) {
    auto it = dev.find(id);
    return it == dev.end() ? id : it->second;
  };
  for (const model::CounterSeries& s : from.counters) {
    if (s.ts_are_indexes) continue;  // untimed samples cannot be placed on the trace clock
    model::CounterSeries out;
    out.name = to.strings.Intern(from.Str(s.name));
    out.kind = s.kind;
    out.unit = s.unit;
    out.device_id = IsValid(s.device_id) ? map_dev(s.device_id) : s.device_id;
    out.source = to.strings.Intern(from.Str(s.source));
    out.period_ns = s.period_ns;
    // A sample at ts describes the period before it (NVML's GPU-Util), so
    // the window keeps (lo, hi + one period].
    const int64_t pad = IsValid(s.period_ns) ? s.period_ns : 0;
    for (size_t i = 0; i < s.ts_ns.size() && i < s.value.size(); ++i) {
      const int64_t ts = s.ts_ns[i] + offset_ns;
      if (ts <= lo || ts > hi + pad) {
        ++note.samples_dropped;
        continue;
      }
      out.ts_ns.push_back(ts);
      out.value.push_back(s.value[i]);
      ++note.samples_kept;
    }
    if (out.ts_ns.empty()) continue;
    ++note.series;
    to.counters.push_back(std::move(out));
  }
  const model::GpuProcessTable& p = from.gpu_processes;
  for (size_t i = 0; i < p.size(); ++i) {
    model::GpuProcessRow r = p.Get(i);
    r.device_id = IsValid(r.device_id) ? map_dev(r.device_id) : r.device_id;
    r.name = to.strings.Intern(from.Str(r.name));
    if (IsValid(r.first_seen_ns)) r.first_seen_ns += offset_ns;
    if (IsValid(r.last_seen_ns)) r.last_seen_ns += offset_ns;
    to.gpu_processes.Append(r);
  }
  // Device facts the event trace lacks (name, memory) come from the log.
  for (const model::Device& fd : from.devices) {
    if (!IsValid(fd.device_id)) continue;
    model::Device& td = to.GetOrAddDevice(map_dev(fd.device_id));
    if (to.Str(td.name).empty() && !from.Str(fd.name).empty()) td.name = to.strings.Intern(from.Str(fd.name));
    if (!IsValid(td.total_memory_bytes)) td.total_memory_bytes = fd.total_memory_bytes;
    if (!IsValid(td.pcie_bus_id)) td.pcie_bus_id = fd.pcie_bus_id;
  }
  note.how = OffsetText(offset_ns);
  return note;
}

}  // namespace

bool IsCounterOnly(const model::Trace& t) {
  return !HasEvents(t) && (!t.counters.empty() || !t.gpu_processes.empty());
}

std::vector<MergeNote> MergeCounterInputs(std::vector<model::Trace>& traces,
                                          std::vector<std::string>& paths) {
  std::vector<MergeNote> notes;
  std::vector<bool> merged(traces.size(), false);
  for (size_t c = 0; c < traces.size(); ++c) {
    model::Trace& from = traces[c];
    if (!IsCounterOnly(from) || from.info.clock != "unix_realtime") continue;
    auto [c0, c1] = CounterSpan(from);
    if (!IsValid(c0)) continue;
    // The best (event trace, offset): most of the event extent covered.
    struct Candidate {
      size_t trace;
      int64_t offset;
      double cover;
    };
    std::vector<Candidate> cands;
    for (size_t e = 0; e < traces.size(); ++e) {
      const model::Trace& to = traces[e];
      const int64_t to_unix = UnixOffset(to);
      if (e == c || merged[e] || !HasGpuEvents(to) || !IsValid(to_unix)) continue;
      auto [e0, e1] = to.TimeExtent();
      if (!IsValid(e0) || e1 <= e0) continue;
      e0 += to_unix;
      e1 += to_unix;
      for (int q = -kMaxQuarterHours; q <= kMaxQuarterHours; ++q) {
        const int64_t off = q * kQuarterHourNs;
        const double cover = static_cast<double>(Overlap(c0 + off, c1 + off, e0, e1)) /
                             static_cast<double>(e1 - e0);
        if (cover > 0) cands.push_back({e, off, cover});
      }
    }
    if (cands.empty()) continue;
    double best_cover = 0;
    for (const Candidate& k : cands) best_cover = std::max(best_cover, k.cover);
    // A log longer than 15 min fits several offsets equally. Prefer no shift,
    // then whole hours (most zones), then the busiest GPU-Util in the window
    // (the profiled steps ran), then the smallest shift.
    const Candidate* pick = nullptr;
    double pick_util = -1;
    size_t fitting = 0;
    for (const Candidate& k : cands) {
      if (k.cover < best_cover - 1e-9) continue;
      ++fitting;
      auto [e0, e1] = traces[k.trace].TimeExtent();
      const int64_t to_unix = UnixOffset(traces[k.trace]);
      const double util = MeanUtilIn(from, e0 + to_unix - k.offset, e1 + to_unix - k.offset);
      auto rank = [&](const Candidate& x, double u) {
        return std::make_tuple(x.offset == 0, x.offset % (4 * kQuarterHourNs) == 0, u,
                               -std::llabs(x.offset));
      };
      if (pick == nullptr || rank(k, util) > rank(*pick, pick_util)) {
        pick = &k;
        pick_util = util;
      }
    }
    const size_t best = pick->trace;
    const int64_t best_offset = pick->offset;
    model::Trace& to = traces[best];
    auto [e0, e1] = to.TimeExtent();
    // The log's unix times plus the zone shift, onto the event trace's clock.
    MergeNote note = Merge(from, to, best_offset - UnixOffset(to), e0, e1);
    note.offset_ns = best_offset;
    note.how = OffsetText(best_offset);
    if (fitting > 1 && best_offset != 0)
      note.how += " (" + std::to_string(fitting) + " shifts fit; chose the busiest samples)";
    note.counter_path = paths[c];
    note.into_path = paths[best];
    char line[512];
    std::snprintf(line, sizeof line,
                  "%s (%s): %lld series, %lld samples in the trace window (%lld outside dropped), "
                  "%s",
                  FileName(note.counter_path).c_str(), from.info.format.c_str(),
                  static_cast<long long>(note.series), static_cast<long long>(note.samples_kept),
                  static_cast<long long>(note.samples_dropped), note.how.c_str());
    to.info.merged_inputs.emplace_back(line);
    // How the log was read stays visible once it is folded in.
    for (const std::string& n : from.info.import_notes)
      to.info.import_notes.push_back(FileName(note.counter_path) + ": " + n);
    to.Finalize();
    merged[c] = true;
    notes.push_back(std::move(note));
  }
  std::vector<model::Trace> kept_traces;
  std::vector<std::string> kept_paths;
  for (size_t i = 0; i < traces.size(); ++i) {
    if (merged[i]) continue;
    kept_traces.push_back(std::move(traces[i]));
    kept_paths.push_back(std::move(paths[i]));
  }
  traces = std::move(kept_traces);
  paths = std::move(kept_paths);
  return notes;
}

}  // namespace gpuwhy::import
