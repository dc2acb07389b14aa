#include "analysis/detectors/multi_gpu_detector.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/gpu_arch/name_memo.h"

namespace gpuwhy::analysis::detectors {

namespace {
// Kernel names in examples and metric names: demangled, abbreviated to this many bytes.
constexpr size_t kCommNameChars = 60;
}  // namespace

std::vector<Finding> DetectCommunication(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  for (const DeviceTimeline& d : in.timeline.devices) {
    if (d.comm_busy.empty()) continue;
    IntervalList windows;
    for (const StepWindow& w : d.steps) windows.push_back({w.start_ns, w.end_ns});
    IntervalList comm = Intersect(d.comm_busy, windows);
    int64_t comm_ns = TotalLength(comm);
    if (comm_ns <= 0) continue;
    // Exposed: comm minus (compute ∩ windows). comm lies in the windows, so
    // that is |comm| - |comm ∩ compute|, without a copy of the compute union
    // (about one interval per kernel).
    const IntervalList& compute = d.ComputeBusy();
    int64_t exposed = comm_ns - OverlapLength(comm, compute);
    double total = static_cast<double>(d.steps_total_ns);
    double comm_ratio = static_cast<double>(comm_ns) / total;
    double overlap = 1.0 - static_cast<double>(exposed) / static_cast<double>(comm_ns);
    Finding f;
    f.id = "communication.exposed";
    f.category = Category::kCommunication;
    f.rank = in.rank;
    f.title = "Communication on the critical path";
    SetLoss(f, d, exposed);
    if (comm_ratio > 0.10 && f.severity < Severity::kMedium) f.severity = Severity::kMedium;
    // Worst comm kernels by duration, with their names. Count and time per
    // interned name first, then per shown name (several ids can share their
    // first kCommNameChars demangled characters).
    std::unordered_map<StringId, std::pair<int64_t, int64_t>> by_id;  // id → (count, ns)
    std::vector<uint32_t> rows;
    KernelInfoMemo names(t);
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      if (t.kernels.device_id[i] != d.device_id || !IsValid(t.kernels.start_ns[i])) continue;
      if (names.Get(t.kernels.name[i]).kernel_class != KernelClass::kCommunication ||
          Timeline::StepIndexAt(d, t.kernels.start_ns[i]) < 0)
        continue;
      auto& e = by_id[t.kernels.name[i]];
      ++e.first;
      e.second += t.kernels.end_ns[i] - t.kernels.start_ns[i];
      rows.push_back(static_cast<uint32_t>(i));
    }
    // Metric names stay plain text: the demangled name cut, not abbreviated.
    std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // name → (count, ns)
    for (const auto& [id, e] : by_id) {
      auto& n = by_name[std::string(names.Demangled(id).substr(0, kCommNameChars))];
      n.first += e.first;
      n.second += e.second;
    }
    // The three longest; among equals the earlier row.
    const size_t shown = std::min<size_t>(rows.size(), 3);
    std::partial_sort(rows.begin(), rows.begin() + static_cast<ptrdiff_t>(shown), rows.end(),
                      [&](uint32_t a, uint32_t b) {
                        const int64_t da = t.kernels.end_ns[a] - t.kernels.start_ns[a];
                        const int64_t db = t.kernels.end_ns[b] - t.kernels.start_ns[b];
                        return da != db ? da > db : a < b;
                      });
    for (size_t k = 0; k < shown; ++k) {
      uint32_t i = rows[k];
      Example ex;
      ex.what = AbbreviateSymbol(names.Demangled(t.kernels.name[i]), kCommNameChars);
      ex.start_ns = t.kernels.start_ns[i];
      ex.dur_ns = t.kernels.end_ns[i] - t.kernels.start_ns[i];
      int32_t si = Timeline::StepIndexAt(d, ex.start_ns);
      if (si >= 0 && d.steps_from_markers) ex.step = d.steps[static_cast<size_t>(si)].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      // Its time outside compute ∩ windows.
      const int64_t hidden =
          OverlapLength(Intersect({{ex.start_ns, t.kernels.end_ns[i]}}, windows), compute);
      ex.detail = "exposed " + FormatMs(std::max<int64_t>(ex.dur_ns, 0) - hidden);
      f.examples.push_back(std::move(ex));
    }
    f.summary = "Communication kernels take " + FormatPct(comm_ratio) + " of the step (" +
                std::to_string(rows.size()) + " kernels); " + FormatPct(overlap) +
                " of it overlaps compute, leaving " + FormatPct(f.lost_step_ratio) + " exposed.";
    AddMetric(f, "comm_step_ratio", comm_ratio, "ratio", "communication share of step");
    AddMetric(f, "comm_overlap_ratio", overlap, "ratio", "communication overlapped by compute");
    AddMetric(f, "comm_exposed_step_ratio", f.lost_step_ratio, "ratio", "exposed communication");
    AddMetric(f, "comm_kernels", static_cast<double>(rows.size()), "count", "communication kernels");
    for (const auto& [name, e] : by_name)
      if (f.evidence.size() < 10)
        AddMetric(f, "comm_ns." + name, static_cast<double>(e.second), "ns", name);
    f.recommendations.push_back(
        {FixKind::kCommOverlap,
         "Overlap communication with compute: DDP bucket_cap_mb tuning, FSDP prefetch "
         "(forward/backward_prefetch), async collectives launched before the compute that hides them."});
    f.recommendations.push_back(
        {FixKind::kCommOverlap,
         "Communicate less often or less: gradient accumulation (no_sync), bf16/fp16 gradient "
         "compression, a larger batch per rank."});
    f.caveats.push_back(
        "NCCL kernel time includes waiting for late peers; a long collective on one rank often "
        "means another rank is slow (see the cross-rank findings).");
    f.caveats.push_back("Time lost is an upper bound: communication time not hidden behind compute.");
    out.push_back(std::move(f));
  }
  return out;
}

int64_t FirstCommEnd(const model::Trace& t) {
  NameMemo is_comm(t, IsCommKernel);
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (IsValid(t.kernels.end_ns[i]) && is_comm.Get(t.kernels.name[i]))
      return t.kernels.end_ns[i];
  return kMissingI64;
}

void AlignRanks(std::vector<RankInput>& ranks) {
  if (ranks.empty()) return;
  const RankDigest& r0 = *ranks[0].digest;
  const int64_t lo0 = r0.extent_start_ns, hi0 = r0.extent_end_ns;
  const int64_t c0 = r0.first_comm_end_ns;
  for (RankInput& r : ranks) {
    r.clock_offset_ns = 0;
    const int64_t lo = r.digest->extent_start_ns, hi = r.digest->extent_end_ns;
    bool same_clock = r.digest->clock == r0.clock && IsValid(lo) && IsValid(lo0) &&
                      lo < hi0 && lo0 < hi;
    if (same_clock) continue;
    // An offset past int64 (anchors read from a crafted summary) leaves the
    // rank unshifted.
    int64_t c = r.digest->first_comm_end_ns, off = 0;
    if (IsValid(c) && IsValid(c0)) {
      if (!__builtin_sub_overflow(c0, c, &off)) r.clock_offset_ns = off;
    } else if (IsValid(lo) && IsValid(lo0)) {
      if (!__builtin_sub_overflow(lo0, lo, &off)) r.clock_offset_ns = off;
    }
  }
}

namespace {

// GridFloor, GridCeil: t rounded down / up to kSlowHostGridNs into *out; false
// when that is not an int64 (a summary read from disk may hold any value).
bool GridFloor(int64_t t, int64_t* out) {
  int64_t q = t / kSlowHostGridNs;
  if (t % kSlowHostGridNs < 0) {
    if (q == std::numeric_limits<int64_t>::min() / kSlowHostGridNs) return false;
    --q;
  }
  *out = q * kSlowHostGridNs;
  return true;
}
bool GridCeil(int64_t t, int64_t* out) {
  int64_t q = t / kSlowHostGridNs;
  if (t % kSlowHostGridNs > 0) {
    if (q == std::numeric_limits<int64_t>::max() / kSlowHostGridNs) return false;
    ++q;
  }
  *out = q * kSlowHostGridNs;
  return true;
}

// ClampToI64: `v` rounded toward zero and clamped into int64 (SatFromDouble),
// NaN read as 0. A plain cast is undefined past the range, which per-step
// figures averaged from a crafted summary can reach (double(INT64_MAX) is 2^63).
int64_t ClampToI64(double v) { return IsValid(v) ? SatFromDouble(v) : 0; }

// ShiftClamped: `idle` moved by `offset_ns`, each edge clamped to the int64
// range; intervals that the clamp empties are dropped. Order is kept: the
// shift and the clamp are both monotone.
IntervalList ShiftClamped(IntervalList idle, int64_t offset_ns) {
  auto shift = [offset_ns](int64_t t) { return AddSat(t, offset_ns); };
  size_t kept = 0;
  for (const Interval& iv : idle) {
    const Interval moved{shift(iv.start_ns), shift(iv.end_ns)};
    if (moved.end_ns > moved.start_ns) idle[kept++] = moved;
  }
  idle.resize(kept);
  return idle;
}

}  // namespace

IntervalList SlowHostIdle(IntervalList idle) {
  // In place: at 100× scale the list held 2.2 M gaps, and a second list
  // beside it would raise the peak.
  size_t kept = 0;
  for (const Interval& iv : idle) {
    int64_t s = 0, e = 0;
    if (!GridCeil(iv.start_ns, &s) || !GridFloor(iv.end_ns, &e) || e <= s) continue;
    // Unsigned: the length of any e > s, without overflow.
    if (static_cast<uint64_t>(e) - static_cast<uint64_t>(s) >=
        static_cast<uint64_t>(kSlowHostMinGapNs))
      idle[kept++] = {s, e};
  }
  idle.resize(kept);
  idle.shrink_to_fit();
  return idle;
}

std::vector<Finding> DetectCrossRank(const std::vector<RankInput>& ranks) {
  std::vector<Finding> out;
  if (ranks.size() < 2) return out;
  struct PerRank {
    int32_t rank;
    int64_t step_ns, compute_ns, comm_ns;
    const PrimaryDigest* d;
    int64_t offset;
  };
  std::vector<PerRank> pr;
  for (const RankInput& r : ranks) {
    if (!r.digest->primary) continue;
    const PrimaryDigest* d = &*r.digest->primary;
    if (d->steps.empty()) continue;
    double n = static_cast<double>(d->steps.size());
    pr.push_back({r.rank, d->steps_total_ns / static_cast<int64_t>(d->steps.size()),
                  ClampToI64(static_cast<double>(d->compute_in_steps_ns) / n),
                  ClampToI64(static_cast<double>(d->comm_in_steps_ns) / n), d, r.clock_offset_ns});
  }
  if (pr.size() < 2) return out;
  double mean_compute = 0, mean_step = 0;
  for (const PerRank& p : pr) {
    mean_compute += static_cast<double>(p.compute_ns);
    mean_step += static_cast<double>(p.step_ns);
  }
  mean_compute /= static_cast<double>(pr.size());
  mean_step /= static_cast<double>(pr.size());
  auto slowest = std::max_element(pr.begin(), pr.end(), [](const PerRank& a, const PerRank& b) {
    return a.compute_ns < b.compute_ns;
  });
  auto fastest = std::min_element(pr.begin(), pr.end(), [](const PerRank& a, const PerRank& b) {
    return a.compute_ns < b.compute_ns;
  });
  double excess = static_cast<double>(slowest->compute_ns) - mean_compute;
  if (mean_step > 0 && excess / mean_step > 0.01) {
    Finding f;
    f.id = "imbalance.stragglers";
    f.category = Category::kImbalance;
    f.rank = slowest->rank;
    f.title = "Load imbalance across ranks";
    f.step_count = static_cast<int32_t>(slowest->d->steps.size());
    f.per_step_basis = slowest->d->steps_from_markers;
    f.lost_per_step_ns = ClampToI64(excess);
    f.lost_step_ratio = excess / mean_step;
    f.severity = SeverityFromLoss(f.lost_step_ratio);
    f.summary = "Rank " + std::to_string(slowest->rank) + " computes " +
                FormatMs(slowest->compute_ns) + " per step against a mean of " +
                FormatMs(ClampToI64(mean_compute)) + " (fastest rank " +
                std::to_string(fastest->rank) + ": " + FormatMs(fastest->compute_ns) +
                "); the others wait for it in their collectives.";
    AddMetric(f, "ranks", static_cast<double>(pr.size()), "count", "ranks");
    AddMetric(f, "max_compute_ns_per_step", static_cast<double>(slowest->compute_ns), "ns",
              "slowest rank compute per step");
    AddMetric(f, "mean_compute_ns_per_step", mean_compute, "ns", "mean compute per step");
    AddMetric(f, "min_compute_ns_per_step", static_cast<double>(fastest->compute_ns), "ns",
              "fastest rank compute per step");
    AddMetric(f, "imbalance_ratio", mean_compute > 0 ? excess / mean_compute : kMissingF64, "ratio",
              "(max - mean) / mean compute");
    std::vector<PerRank> sorted = pr;
    std::sort(sorted.begin(), sorted.end(),
              [](const PerRank& a, const PerRank& b) { return a.compute_ns > b.compute_ns; });
    for (size_t i = 0; i < sorted.size() && i < 3; ++i) {
      Example ex;
      ex.what = "rank " + std::to_string(sorted[i].rank);
      ex.dur_ns = sorted[i].compute_ns;
      ex.rank = sorted[i].rank;
      ex.device_id = sorted[i].d->device_id;
      ex.detail = "compute per step; comm " + FormatMs(sorted[i].comm_ns);
      f.examples.push_back(std::move(ex));
    }
    f.recommendations.push_back(
        {FixKind::kLoadBalance,
         "Balance the work per rank: equal batch/sequence lengths per rank (bucketing), balanced "
         "embedding-table sharding or expert placement, no rank-0-only work in the step."});
    f.caveats.push_back(
        "Time lost assumes perfect balance (slowest rank at the mean); an upper bound.");
    out.push_back(std::move(f));
  }
  // Slow host: every rank idle at the same instant (on the aligned clock), in
  // gaps of at least kSlowHostMinGapNs on every rank.
  IntervalList all_idle;
  bool first = true;
  for (const PerRank& p : pr) {
    // The digest's idle is on the rank's clock; shifting commutes with the
    // intersection.
    IntervalList idle = ShiftClamped(SlowHostIdle(p.d->idle), p.offset);
    all_idle = first ? idle : Intersect(all_idle, idle);
    first = false;
  }
  int64_t common = TotalLength(all_idle);
  int64_t steps_total = pr[0].d->steps_total_ns;
  if (steps_total > 0 && static_cast<double>(common) / static_cast<double>(steps_total) > 0.05) {
    Finding f;
    f.id = "imbalance.slow_host";
    f.category = Category::kImbalance;
    f.title = "All ranks idle together: the host side is slow";
    f.step_count = static_cast<int32_t>(pr[0].d->steps.size());
    f.per_step_basis = pr[0].d->steps_from_markers;
    f.lost_per_step_ns = common / std::max<int64_t>(1, f.step_count);
    f.lost_step_ratio = static_cast<double>(common) / static_cast<double>(steps_total);
    f.severity = SeverityFromLoss(f.lost_step_ratio);
    f.summary = "All " + std::to_string(pr.size()) + " ranks are idle at the same time " +
                FormatPct(f.lost_step_ratio) + " of the step: a shared host-side cause (input, "
                "Python, checkpointing), not one straggler.";
    AddMetric(f, "common_idle_step_ratio", f.lost_step_ratio, "ratio", "all ranks idle together");
    f.recommendations.push_back(
        {FixKind::kHostSpeed,
         "Look at what every rank does on the host in those windows (data loading, logging, "
         "checkpoints); see the per-rank data-loading and sync findings."});
    f.caveats.push_back("Needs aligned clocks across hosts (NTP/PTP); offsets come from AlignRanks.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
