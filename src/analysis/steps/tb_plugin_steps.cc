#include "analysis/steps/tb_plugin_steps.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "base/sorted_search.h"

namespace gpuwhy::analysis {
namespace {

constexpr int64_t kMaxTs = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinTs = std::numeric_limits<int64_t>::min() + 1;

struct DeviceOp {
  int64_t start_ns;
  int64_t end_ns;
};

struct Runtime {
  int64_t start_ns;
  int64_t end_ns;
  int64_t correlation_id;
};

}  // namespace

TbPluginStepResult TbPluginSteps(const model::Trace& t) {
  TbPluginStepResult out;
  // Host steps.
  std::vector<Step> steps;
  const auto& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!IsValid(r.step[i]) || r.kind[i] == model::RangeKind::kGpuUserAnnotation) continue;
    steps.push_back({r.step[i], r.start_ns[i], r.end_ns[i]});
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
  out.has_profiler_steps = !steps.empty();
  if (steps.empty()) {
    int64_t lo = kMaxTs, hi = kMinTs;
    for (size_t i = 0; i < r.size(); ++i) {
      if (r.kind[i] != model::RangeKind::kCpuOp && r.kind[i] != model::RangeKind::kPythonFunction)
        continue;
      lo = std::min(lo, r.start_ns[i]);
      hi = std::max(hi, r.end_ns[i]);
    }
    if (lo < hi) steps.push_back({0, lo, hi});
  }
  out.host_step_count = static_cast<int32_t>(steps.size());
  if (steps.empty()) return out;

  // Device ops, and their indexes sorted by correlation id. Why not a hash map
  // of vectors: one allocation per correlation id made this function 6% of a
  // whole `analyze` run on 2 M events; a sorted pair array is one allocation.
  std::vector<DeviceOp> all_ops;
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  auto add_ops = [&](const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& corr) {
    for (size_t i = 0; i < start.size(); ++i) {
      if (IsValid(corr[i])) by_corr.emplace_back(corr[i], static_cast<uint32_t>(all_ops.size()));
      all_ops.push_back({start[i], end[i]});
    }
  };
  all_ops.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
  by_corr.reserve(all_ops.capacity());
  // One run per table (RunIndex): runtime calls, which look their ids up,
  // come in start order too.
  std::vector<size_t> run_begin;
  auto add_run = [&](const auto& table) {
    run_begin.push_back(by_corr.size());
    add_ops(table.start_ns, table.end_ns, table.correlation_id);
  };
  add_run(t.kernels);
  add_run(t.memcpys);
  add_run(t.memsets);
  RunIndex corr_index(by_corr, run_begin, [](const std::pair<int64_t, uint32_t>& e) { return e.first; },
                      std::less<std::pair<int64_t, uint32_t>>());

  // Runtime calls in start order, as row numbers: 4 bytes a call where a
  // copied (start, end, correlation) took 24, grown by doubling and then
  // stable-sorted with a buffer of its size (about 300 MB at 21 M events).
  // A Finalize()d table is already in start order; the sort is a fallback.
  const auto& a = t.api_calls;
  std::vector<uint32_t> runtimes;
  {
    size_t count = 0;
    for (size_t i = 0; i < a.size(); ++i) count += a.kind[i] == model::ApiKind::kRuntime;
    runtimes.reserve(count);
  }
  for (size_t i = 0; i < a.size(); ++i)
    if (a.kind[i] == model::ApiKind::kRuntime) runtimes.push_back(static_cast<uint32_t>(i));
  auto earlier = [&a](uint32_t x, uint32_t y) { return a.start_ns[x] < a.start_ns[y]; };
  if (!std::is_sorted(runtimes.begin(), runtimes.end(), earlier))
    std::stable_sort(runtimes.begin(), runtimes.end(), earlier);

  // Two-way merge of runtimes into host steps (tb_plugin _find_device_steps).
  const size_t n = steps.size();
  std::vector<std::pair<int64_t, int64_t>> dev(n, {kMaxTs, kMinTs});
  std::vector<int64_t> matched(n, 0);
  std::vector<uint8_t> matched_op(all_ops.size(), 0);
  bool any_matched = false;
  size_t is = 0, ir = 0;
  int64_t dmin = kMaxTs, dmax = kMinTs;
  while (is < n && ir < runtimes.size()) {
    const uint32_t row = runtimes[ir];
    const Runtime rt{a.start_ns[row], a.end_ns[row], a.correlation_id[row]};
    if (rt.start_ns < steps[is].start_ns) {
      ++ir;
    } else if (rt.end_ns <= steps[is].end_ns) {
      if (IsValid(rt.correlation_id)) {
        corr_index.ForEach(rt.correlation_id, [&](const std::pair<int64_t, uint32_t>& e) {
          const DeviceOp& op = all_ops[e.second];
          dmin = std::min(dmin, op.start_ns);
          dmax = std::max(dmax, op.end_ns);
          matched_op[e.second] = 1;
          any_matched = true;
          ++matched[is];
          return true;
        });
      }
      ++ir;
    } else if (rt.start_ns < steps[is].end_ns) {
      ++ir;
    } else {
      dev[is] = {dmin, dmax};
      ++is;
      dmin = kMaxTs;
      dmax = kMinTs;
    }
  }
  while (is < n) {
    dev[is] = {dmin, dmax};
    dmin = kMaxTs;
    dmax = kMinTs;
    ++is;
  }

  // Device adjustment (tb_plugin _update_steps_duration).
  if (any_matched) {
    int64_t prev_end = steps[0].start_ns;
    if (dev[0].first != kMaxTs) {
      for (size_t k = 0; k < all_ops.size(); ++k) {
        if (matched_op[k] == 0 && all_ops[k].end_ns < dev[0].first) {
          prev_end = std::max(prev_end, all_ops[k].end_ns);
        }
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const int64_t start = std::max(prev_end, steps[i].start_ns);
      int64_t end = steps[i].end_ns;
      if (dev[i].first == kMaxTs) {
        end = std::max(end, start);
      } else {
        end = std::max(end, dev[i].second);
        if (end < start) end = start;
      }
      steps[i].start_ns = start;
      steps[i].end_ns = end;
      prev_end = end;
    }
    // Tail removal.
    if (n > 1) {
      int64_t last = static_cast<int64_t>(n) - 1;
      while (last >= 0 && matched[static_cast<size_t>(last)] == 0) --last;
      if (last >= 0) {
        size_t keep = static_cast<size_t>(last) + 1;
        if (last > 0 && static_cast<double>(matched[static_cast<size_t>(last) - 1]) * 0.8 >
                            static_cast<double>(matched[static_cast<size_t>(last)])) {
          keep = static_cast<size_t>(last);
        }
        steps.resize(keep);
        matched.resize(keep);
      }
    }
  }
  out.steps = std::move(steps);
  out.device_ops_per_step = std::move(matched);
  return out;
}

}  // namespace gpuwhy::analysis
