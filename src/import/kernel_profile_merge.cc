#include "import/kernel_profile_merge.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include "base/demangle.h"

namespace gpuwhy::import {

namespace {

// KpmKey: a kernel's demangled name without whitespace, grid and block.
using KpmKey = std::tuple<std::string, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t>;

// KpmNorm: the name as the join compares it (demangled, no whitespace):
// profilers and tracers space template arguments differently.
std::string KpmNorm(DemangleMemo& memo, std::string_view name) {
  std::string_view d = memo.Get(name);
  std::string out;
  out.reserve(d.size());
  for (char c : d)
    if (c != ' ' && c != '\t' && c != '\n') out += c;
  return out;
}

// KpmMean: a duration-weighted mean of one figure.
struct KpmMean {
  double sum = 0, weight = 0;
  void Add(float v, double w) {
    if (std::isnan(v)) return;
    sum += double(v) * w;
    weight += w;
  }
  float Get() const { return weight > 0 ? static_cast<float>(sum / weight) : kMissingF32; }
};

constexpr size_t kKpmFigures = 7;

// KpmEntry: what the profile measured for one key.
struct KpmEntry {
  KpmMean mean[kKpmFigures];
  int32_t registers = kMissingI32;
  int32_t shared_mem = kMissingI32;
  std::vector<uint32_t> profile_rows;  // for the rules
  bool matched = false;
};

// KpmColumns: the measured columns of a kernel table, in one order.
std::array<model::LazyColumn<float>*, kKpmFigures> KpmColumns(model::KernelTable& k) {
  return {&k.sm_active_pct,          &k.sm_throughput_pct,         &k.memory_throughput_pct,
          &k.dram_throughput_pct,    &k.achieved_occupancy_pct,    &k.theoretical_occupancy_pct,
          &k.tensor_pipe_pct};
}
std::array<const model::LazyColumn<float>*, kKpmFigures> KpmColumns(const model::KernelTable& k) {
  return {&k.sm_active_pct,          &k.sm_throughput_pct,         &k.memory_throughput_pct,
          &k.dram_throughput_pct,    &k.achieved_occupancy_pct,    &k.theoretical_occupancy_pct,
          &k.tensor_pipe_pct};
}

std::string KpmFileName(const std::string& p) {
  size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

bool IsKernelProfile(const model::Trace& t) { return t.info.kernels_untimed && !t.kernels.empty(); }

KernelJoinNote JoinKernelProfile(const model::Trace& profile, model::Trace& trace) {
  KernelJoinNote note;
  DemangleMemo memo;
  const model::KernelTable& pk = profile.kernels;
  const auto pcols = KpmColumns(pk);
  std::map<KpmKey, KpmEntry> entries;
  std::unordered_map<std::string, std::vector<const KpmKey*>> by_name;
  for (uint32_t i = 0; i < pk.size(); ++i) {
    KpmKey key{KpmNorm(memo, profile.Str(pk.name[i])),
               pk.grid_x[i], pk.grid_y[i], pk.grid_z[i],
               pk.block_x[i], pk.block_y[i], pk.block_z[i]};
    auto [it, added] = entries.try_emplace(std::move(key));
    KpmEntry& e = it->second;
    if (added) by_name[std::get<0>(it->first)].push_back(&it->first);
    const double w = double(std::max<int64_t>(1, pk.end_ns[i] - pk.start_ns[i]));
    for (size_t f = 0; f < kKpmFigures; ++f) e.mean[f].Add((*pcols[f])[i], w);
    if (!IsValid(e.registers)) e.registers = pk.registers_per_thread[i];
    if (!IsValid(e.shared_mem)) e.shared_mem = pk.shared_mem_bytes[i];
    e.profile_rows.push_back(i);
  }
  note.profile_keys = static_cast<int64_t>(entries.size());
  // Rules of each profile row.
  std::multimap<uint32_t, size_t> rules_of;
  for (size_t r = 0; r < profile.kernel_rules.size(); ++r)
    rules_of.emplace(profile.kernel_rules.kernel_row[r], r);

  model::KernelTable& tk = trace.kernels;
  const auto tcols = KpmColumns(tk);
  note.trace_kernels = static_cast<int64_t>(tk.size());
  std::unordered_map<StringId, std::string> norm_of;  // per trace name id
  for (uint32_t i = 0; i < tk.size(); ++i) {
    auto n = norm_of.find(tk.name[i]);
    if (n == norm_of.end()) n = norm_of.emplace(tk.name[i], KpmNorm(memo, trace.Str(tk.name[i]))).first;
    KpmEntry* e = nullptr;
    if (IsValid(tk.grid_x[i]) && IsValid(tk.block_x[i])) {
      auto it = entries.find(KpmKey{n->second, tk.grid_x[i], tk.grid_y[i], tk.grid_z[i],
                                    tk.block_x[i], tk.block_y[i], tk.block_z[i]});
      if (it != entries.end()) e = &it->second;
    } else if (auto b = by_name.find(n->second); b != by_name.end() && b->second.size() == 1) {
      e = &entries.find(*b->second.front())->second;
    }
    if (e == nullptr) continue;
    ++note.matched_kernels;
    for (size_t f = 0; f < kKpmFigures; ++f) {
      const float v = e->mean[f].Get();
      if (!std::isnan(v)) tcols[f]->Set(i, v);
    }
    if (!IsValid(tk.registers_per_thread[i])) tk.registers_per_thread[i] = e->registers;
    if (!IsValid(tk.shared_mem_bytes[i])) tk.shared_mem_bytes[i] = e->shared_mem;
    if (e->matched) continue;
    e->matched = true;
    ++note.matched_keys;
    for (uint32_t prow : e->profile_rows) {
      auto [b, end] = rules_of.equal_range(prow);
      for (auto it = b; it != end; ++it) {
        const size_t r = it->second;
        model::KernelRuleRow rr;
        rr.kernel_row = i;
        rr.section = trace.strings.Intern(profile.Str(profile.kernel_rules.section[r]));
        rr.rule = trace.strings.Intern(profile.Str(profile.kernel_rules.rule[r]));
        rr.type = trace.strings.Intern(profile.Str(profile.kernel_rules.type[r]));
        rr.message = trace.strings.Intern(profile.Str(profile.kernel_rules.message[r]));
        rr.speedup_kind = trace.strings.Intern(profile.Str(profile.kernel_rules.speedup_kind[r]));
        rr.est_speedup_pct = profile.kernel_rules.est_speedup_pct[r];
        trace.kernel_rules.Append(rr);
      }
    }
  }
  return note;
}

bool SameProfiledKernels(const model::Trace& a, const model::Trace& b) {
  const model::KernelTable& x = a.kernels;
  const model::KernelTable& y = b.kernels;
  if (x.size() != y.size() || x.empty()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (a.Str(x.name[i]) != b.Str(y.name[i]) || x.grid_x[i] != y.grid_x[i] ||
        x.grid_y[i] != y.grid_y[i] || x.grid_z[i] != y.grid_z[i] || x.block_x[i] != y.block_x[i] ||
        x.block_y[i] != y.block_y[i] || x.block_z[i] != y.block_z[i])
      return false;
  }
  return true;
}

void CombineProfilePages(model::Trace& into, const model::Trace& from) {
  model::KernelTable& k = into.kernels;
  const auto to_cols = KpmColumns(k);
  const auto from_cols = KpmColumns(from.kernels);
  for (uint32_t i = 0; i < k.size(); ++i) {
    for (size_t f = 0; f < kKpmFigures; ++f)
      if (std::isnan((*to_cols[f])[i])) {
        const float v = (*from_cols[f])[i];
        if (!std::isnan(v)) to_cols[f]->Set(i, v);
      }
    if (!IsValid(k.registers_per_thread[i]))
      k.registers_per_thread[i] = from.kernels.registers_per_thread[i];
    if (!IsValid(k.shared_mem_bytes[i])) k.shared_mem_bytes[i] = from.kernels.shared_mem_bytes[i];
  }
  for (size_t r = 0; r < from.kernel_rules.size(); ++r) {
    model::KernelRuleRow rr;
    rr.kernel_row = from.kernel_rules.kernel_row[r];
    rr.section = into.strings.Intern(from.Str(from.kernel_rules.section[r]));
    rr.rule = into.strings.Intern(from.Str(from.kernel_rules.rule[r]));
    rr.type = into.strings.Intern(from.Str(from.kernel_rules.type[r]));
    rr.message = into.strings.Intern(from.Str(from.kernel_rules.message[r]));
    rr.speedup_kind = into.strings.Intern(from.Str(from.kernel_rules.speedup_kind[r]));
    rr.est_speedup_pct = from.kernel_rules.est_speedup_pct[r];
    into.kernel_rules.Append(rr);
  }
  if (into.info.format_version.find(from.info.format_version) == std::string::npos)
    into.info.format_version += " + " + from.info.format_version;
}

std::vector<KernelJoinNote> MergeKernelProfiles(std::vector<model::Trace>& traces,
                                                std::vector<std::string>& paths) {
  std::vector<KernelJoinNote> notes;
  // Pages of one report (raw and details) become one profile first.
  {
    std::vector<bool> gone(traces.size(), false);
    for (size_t a = 0; a < traces.size(); ++a) {
      if (gone[a] || !IsKernelProfile(traces[a])) continue;
      for (size_t b = a + 1; b < traces.size(); ++b) {
        if (gone[b] || !IsKernelProfile(traces[b]) || !SameProfiledKernels(traces[a], traces[b]))
          continue;
        CombineProfilePages(traces[a], traces[b]);
        traces[a].info.merged_inputs.push_back(
            KpmFileName(paths[b]) + " (" + traces[b].info.format +
            "): another page of the same report (same kernels, launch order and configs), "
            "figures combined");
        gone[b] = true;
      }
    }
    std::vector<model::Trace> kt;
    std::vector<std::string> kp;
    for (size_t i = 0; i < traces.size(); ++i) {
      if (gone[i]) continue;
      kt.push_back(std::move(traces[i]));
      kp.push_back(std::move(paths[i]));
    }
    traces = std::move(kt);
    paths = std::move(kp);
  }
  std::vector<size_t> timed;
  for (size_t i = 0; i < traces.size(); ++i)
    if (!traces[i].info.kernels_untimed && !traces[i].kernels.empty()) timed.push_back(i);
  if (timed.empty()) return notes;
  std::vector<bool> merged(traces.size(), false);
  for (size_t p = 0; p < traces.size(); ++p) {
    if (!IsKernelProfile(traces[p])) continue;
    for (size_t t : timed) {
      KernelJoinNote note = JoinKernelProfile(traces[p], traces[t]);
      note.profile_path = paths[p];
      note.into_path = paths[t];
      char line[512];
      std::snprintf(line, sizeof line,
                    "%s (%s): measured (ncu) figures for %lld of %lld trace kernels (demangled "
                    "name + launch config); %lld of %lld profiled (name, launch config) pairs found in the trace",
                    KpmFileName(note.profile_path).c_str(), traces[p].info.format.c_str(),
                    static_cast<long long>(note.matched_kernels),
                    static_cast<long long>(note.trace_kernels),
                    static_cast<long long>(note.matched_keys),
                    static_cast<long long>(note.profile_keys));
      traces[t].info.merged_inputs.emplace_back(line);
      notes.push_back(std::move(note));
    }
    merged[p] = true;
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
