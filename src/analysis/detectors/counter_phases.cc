#include "analysis/detectors/counter_phases.h"

#include <algorithm>
#include <cmath>

#include "analysis/utilization/utilization.h"

namespace gpuwhy::analysis::detectors {

namespace {

constexpr double kIdleBelow = 0.10;      // a sample under 10% GPU-Util is idle
constexpr double kPhaseMinShare = 0.05;  // an idle stretch >= 5% of the sampled time is a phase
constexpr double kDipMaxShare = 0.10;    // a dip is <= 10% of its work phase
constexpr int64_t kDipMaxNs = 60 * kNsPerS;
constexpr double kLoadingBytes = 1024.0 * 1024.0 * 1024.0;  // memory held while loading

const model::CounterSeries* LongestSeries(const model::Trace& t, model::CounterKind kind,
                                          int32_t dev) {
  const model::CounterSeries* best = nullptr;
  for (const model::CounterSeries& s : t.counters)
    if (s.kind == kind && s.device_id == dev && !s.ts_are_indexes &&
        (best == nullptr || s.value.size() > best->value.size()))
      best = &s;
  return best;
}

// HeldAt: the latest valid sample of `s` at or before `ts` (NaN when none).
// `cursor` walks forward with ascending `ts`.
double HeldAt(const model::CounterSeries* s, int64_t ts, size_t* cursor) {
  if (s == nullptr) return kMissingF64;
  while (*cursor < s->ts_ns.size() && s->ts_ns[*cursor] <= ts) ++*cursor;
  for (size_t i = *cursor; i > 0; --i)
    if (IsValid(s->value[i - 1])) return s->value[i - 1];
  return kMissingF64;
}

// PhaseSample: one valid GPU-Util sample and what held with it.
struct PhaseSample {
  int64_t ts = 0;
  int64_t hold = 0;  // sampled time it stands for
  double util = 0;
  double mem = kMissingF64;
  std::vector<int32_t> pids;  // processes alive at ts, ascending
};

// PhaseRun: consecutive samples [first, last] of one state.
struct PhaseRun {
  bool idle = false;
  size_t first = 0, last = 0;
  int64_t observed = 0;
};

void AccumulatePhase(CounterPhase& p, const std::vector<PhaseSample>& s, size_t first,
                     size_t last) {
  double u = 0, m = 0, mw = 0;
  for (size_t i = first; i <= last; ++i) {
    const PhaseSample& x = s[i];
    const double h = static_cast<double>(x.hold);
    p.observed_ns = AddSat(p.observed_ns, x.hold);
    p.idle_ns = AddSat(p.idle_ns, SatFromDouble(h * (1.0 - x.util)));
    u += h * x.util;
    if (IsValid(x.mem)) {
      m += h * x.mem;
      mw += h;
    }
    for (int32_t pid : x.pids)
      if (std::find(p.pids.begin(), p.pids.end(), pid) == p.pids.end()) p.pids.push_back(pid);
    ++p.samples;
  }
  if (!IsValid(p.start_ns)) p.start_ns = s[first].ts;
  p.end_ns = AddSat(s[last].ts, s[last].hold);
  p.util_ratio = p.observed_ns > 0 ? u / static_cast<double>(p.observed_ns) : kMissingF64;
  if (mw > 0) p.mem_used_bytes = m / mw;
  std::sort(p.pids.begin(), p.pids.end());
}

}  // namespace

const char* PhaseKindName(PhaseKind k) {
  switch (k) {
    case PhaseKind::kSetup:
      return "set-up";
    case PhaseKind::kWork:
      return "work";
    case PhaseKind::kPause:
      return "pause";
    case PhaseKind::kIdleTail:
      return "idle tail";
    case PhaseKind::kIdle:
      return "idle";
  }
  return "idle";
}

CounterPhases FindCounterPhases(const model::Trace& t, int32_t dev) {
  CounterPhases out;
  out.device_id = dev;
  const model::CounterSeries* util = LongestSeries(t, model::CounterKind::kGpuUtil, dev);
  if (util == nullptr || !IsValid(util->period_ns) || util->period_ns <= 0) return out;
  const int64_t period = util->period_ns;
  out.period_ns = period;
  const int64_t max_hold = MulSat(kMaxHoldPeriods, period);
  const model::CounterSeries* mem = LongestSeries(t, model::CounterKind::kMemUsedBytes, dev);

  // Process lifetimes on this device (timed rows only).
  struct Life {
    int32_t pid;
    int64_t first, last;
  };
  std::vector<Life> lives;
  for (size_t i = 0; i < t.gpu_processes.size(); ++i)
    if (t.gpu_processes.device_id[i] == dev && IsValid(t.gpu_processes.first_seen_ns[i]) &&
        IsValid(t.gpu_processes.last_seen_ns[i]))
      lives.push_back({t.gpu_processes.pid[i], t.gpu_processes.first_seen_ns[i],
                       t.gpu_processes.last_seen_ns[i]});
  out.has_processes = !lives.empty();

  // Processes alive at each sample: a sweep over lifetimes sorted by start
  // (samples are in time order after Finalize()).
  std::sort(lives.begin(), lives.end(),
            [](const Life& a, const Life& b) { return a.first < b.first; });
  std::vector<Life> alive;
  size_t next_life = 0;
  std::vector<PhaseSample> s;
  size_t mem_cursor = 0;
  const size_t n = util->value.size();
  for (size_t i = 0; i < n; ++i) {
    const double u = util->value[i];
    if (!IsValid(u)) continue;
    PhaseSample x;
    x.ts = util->ts_ns[i];
    // As TimeWeightedMean(): until the next sample, at most kMaxHoldPeriods.
    const int64_t gap = i + 1 < n ? util->ts_ns[i + 1] - x.ts : period;
    x.hold = std::clamp<int64_t>(gap, 0, max_hold);
    if (gap > max_hold) {
      out.holes.push_back({AddSat(x.ts, max_hold), x.ts + gap});
      out.hole_ns = AddSat(out.hole_ns, gap - max_hold);
    }
    x.util = std::clamp(u, 0.0, 1.0);
    x.mem = HeldAt(mem, x.ts, &mem_cursor);
    while (next_life < lives.size() && lives[next_life].first <= x.ts)
      alive.push_back(lives[next_life++]);
    std::erase_if(alive, [&](const Life& l) { return l.last < x.ts; });
    for (const Life& l : alive)
      if (std::find(x.pids.begin(), x.pids.end(), l.pid) == x.pids.end()) x.pids.push_back(l.pid);
    std::sort(x.pids.begin(), x.pids.end());
    out.observed_ns = AddSat(out.observed_ns, x.hold);
    s.push_back(std::move(x));
  }
  if (s.size() < 5 || out.observed_ns <= 0) return out;

  // Runs of idle / active samples.
  std::vector<PhaseRun> runs;
  auto push = [&runs](bool idle, size_t first, size_t last, int64_t observed) {
    if (!runs.empty() && runs.back().idle == idle) {
      runs.back().last = last;
      runs.back().observed = AddSat(runs.back().observed, observed);
    } else {
      runs.push_back({idle, first, last, observed});
    }
  };
  for (size_t i = 0; i < s.size(); ++i) push(s[i].util < kIdleBelow, i, i, s[i].hold);
  bool any_active = false;
  for (const PhaseRun& r : runs) any_active = any_active || !r.idle;
  // A lone active sample between idle runs is a blip, not work; an idle run
  // under 5% of the sampled time is the work's own texture, not a phase.
  const auto total = static_cast<double>(out.observed_ns);
  std::vector<PhaseRun> relabelled = std::move(runs);
  runs.clear();
  for (size_t k = 0; k < relabelled.size(); ++k) {
    PhaseRun r = relabelled[k];
    if (!r.idle && r.first == r.last && relabelled.size() > 1)
      r.idle = true;
    else if (r.idle && any_active && static_cast<double>(r.observed) < kPhaseMinShare * total)
      r.idle = false;
    push(r.idle, r.first, r.last, r.observed);
  }
  // Relabelled blips may have joined short idle runs into a long one, or a
  // blip may stand alone between two phases: settle once more.
  relabelled = std::move(runs);
  runs.clear();
  for (PhaseRun r : relabelled) {
    if (r.idle && any_active && static_cast<double>(r.observed) < kPhaseMinShare * total)
      r.idle = false;
    push(r.idle, r.first, r.last, r.observed);
  }
  struct Group {
    bool idle;
    size_t first, last;
  };
  std::vector<Group> final_groups;
  for (const PhaseRun& r : runs) final_groups.push_back({r.idle, r.first, r.last});

  bool any_work = false;
  for (const Group& g : final_groups) any_work = any_work || !g.idle;
  for (size_t gi = 0; gi < final_groups.size(); ++gi) {
    const Group& g = final_groups[gi];
    CounterPhase p;
    AccumulatePhase(p, s, g.first, g.last);
    if (!any_work) {
      p.kind = PhaseKind::kIdle;
    } else if (!g.idle) {
      p.kind = PhaseKind::kWork;
    } else if (gi + 1 == final_groups.size()) {
      p.kind = PhaseKind::kIdleTail;
    } else if (out.phases.empty()) {
      p.kind = PhaseKind::kSetup;
    } else {
      // Between two work phases: the next one's set-up when a new process
      // starts working, else a pause of the same job.
      CounterPhase next;
      const Group& ng = final_groups[gi + 1];
      AccumulatePhase(next, s, ng.first, ng.last);
      const std::vector<int32_t>& before = out.phases.back().pids;
      bool fresh = false;
      for (int32_t pid : next.pids)
        fresh = fresh || std::find(before.begin(), before.end(), pid) == before.end();
      p.kind = fresh ? PhaseKind::kSetup : PhaseKind::kPause;
    }
    if (p.kind == PhaseKind::kSetup) {
      for (size_t i = g.first; i <= g.last; ++i) {
        const bool held = !s[i].pids.empty() || (IsValid(s[i].mem) && s[i].mem >= kLoadingBytes);
        int64_t& part = held ? p.loading_ns : p.no_process_ns;
        part = AddSat(part, s[i].hold);
        if (held && IsValid(s[i].mem))
          p.loading_peak_bytes =
              IsValid(p.loading_peak_bytes) ? std::max(p.loading_peak_bytes, s[i].mem) : s[i].mem;
      }
    }
    out.phases.push_back(std::move(p));
  }

  // The main work phase and its dips.
  for (size_t i = 0; i < out.phases.size(); ++i)
    if (out.phases[i].kind == PhaseKind::kWork &&
        (out.main_work == static_cast<size_t>(-1) ||
         out.phases[i].observed_ns > out.phases[out.main_work].observed_ns))
      out.main_work = i;
  if (out.main_work == static_cast<size_t>(-1)) return out;
  const CounterPhase& w = out.phases[out.main_work];
  size_t first = 0;
  while (first < s.size() && s[first].ts < w.start_ns) ++first;
  size_t last = first;
  while (last + 1 < s.size() && s[last + 1].ts < w.end_ns) ++last;
  std::vector<double> us;
  for (size_t i = first; i <= last; ++i) us.push_back(s[i].util);
  std::nth_element(us.begin(), us.begin() + static_cast<ptrdiff_t>(us.size() / 2), us.end());
  const double median = us[us.size() / 2];
  if (median >= 0.5) {
    const double bar = median / 2;
    const int64_t max_dip = std::min<int64_t>(
        kDipMaxNs, SatFromDouble(kDipMaxShare * static_cast<double>(w.observed_ns)));
    for (size_t i = first; i <= last;) {
      if (s[i].util >= bar) {
        ++i;
        continue;
      }
      size_t j = i;
      CounterDip d;
      d.start_ns = s[i].ts;
      d.min_util_ratio = s[i].util;
      while (j <= last && s[j].util < bar) {
        d.dur_ns = AddSat(d.dur_ns, s[j].hold);
        d.idle_ns =
            AddSat(d.idle_ns, SatFromDouble(static_cast<double>(s[j].hold) * (1.0 - s[j].util)));
        d.min_util_ratio = std::min(d.min_util_ratio, s[j].util);
        ++j;
      }
      // A dip has work on both sides, inside the phase.
      if (i > first && j <= last && d.dur_ns <= max_dip) out.dips.push_back(d);
      i = j;
    }
    if (out.dips.size() >= 3) {
      std::vector<int64_t> gaps;
      for (size_t k = 1; k < out.dips.size(); ++k)
        gaps.push_back(out.dips[k].start_ns - out.dips[k - 1].start_ns);
      std::vector<int64_t> sorted = gaps;
      std::sort(sorted.begin(), sorted.end());
      const int64_t m = sorted[sorted.size() / 2];
      size_t steady = 0;
      for (int64_t g : gaps)
        steady +=
            std::abs(static_cast<double>(g) - static_cast<double>(m)) * 4 <= static_cast<double>(m)
                ? 1
                : 0;
      // Periodic dips are rare against the work: the period is >= 10 sample
      // periods and >= 10 dips long, and the dips fill <= 20% of the phase;
      // gaps every few samples are the loop's own rhythm (bursts), not a task.
      int64_t dip_ns = 0;
      for (const CounterDip& d : out.dips) dip_ns = AddSat(dip_ns, d.dur_ns);
      const int64_t mean_dip = dip_ns / static_cast<int64_t>(out.dips.size());
      if (m > 0 && static_cast<double>(steady) >= 0.7 * static_cast<double>(gaps.size()) &&
          m >= MulSat(10, period) && m >= MulSat(10, mean_dip) &&
          static_cast<double>(dip_ns) <= 0.2 * static_cast<double>(w.observed_ns))
        out.dip_period_ns = m;
    }
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
