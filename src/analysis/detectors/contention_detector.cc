#include "analysis/detectors/contention_detector.h"

#include <iterator>
#include <map>
#include <set>
#include <string>

namespace gpuwhy::analysis::detectors {

std::vector<Finding> DetectContention(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  const model::GpuProcessTable& p = t.gpu_processes;
  if (p.empty()) return out;
  std::set<int32_t> own;
  for (const model::Process& pr : t.processes) own.insert(pr.pid);
  for (size_t i = 0; i < p.size(); ++i)
    if (p.is_profiled[i]) own.insert(p.pid[i]);
  auto [lo, hi] = t.TimeExtent();
  struct Other {
    std::string name;
    int64_t mem = kMissingI64;
    bool mps = false;
    int64_t first = kMissingI64, last = kMissingI64;  // lifetime seen on the device
  };
  std::map<int32_t, std::map<int32_t, Other>> by_dev;  // device → pid → info
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.is_profiled[i] || own.count(p.pid[i]) > 0) continue;
    if (IsValid(lo) && IsValid(p.last_seen_ns[i]) && p.last_seen_ns[i] < lo) continue;
    if (IsValid(hi) && IsValid(p.first_seen_ns[i]) && p.first_seen_ns[i] > hi) continue;
    Other& o = by_dev[p.device_id[i]][p.pid[i]];
    o.name = std::string(t.Str(p.name[i]));
    o.mps = o.name.find("nvidia-cuda-mps") != std::string::npos;
    if (IsValid(p.used_memory_bytes[i]))
      o.mem = IsValid(o.mem) ? std::max(o.mem, p.used_memory_bytes[i]) : p.used_memory_bytes[i];
    if (IsValid(p.first_seen_ns[i]))
      o.first = IsValid(o.first) ? std::min(o.first, p.first_seen_ns[i]) : p.first_seen_ns[i];
    if (IsValid(p.last_seen_ns[i]))
      o.last = IsValid(o.last) ? std::max(o.last, p.last_seen_ns[i]) : p.last_seen_ns[i];
  }
  // Overlap: two of `others` were alive at once. Processes whose lifetimes
  // follow each other are phases of one job, not neighbours; without times
  // they may have overlapped.
  auto overlap = [](const std::map<int32_t, Other>& others) {
    for (auto a = others.begin(); a != others.end(); ++a)
      for (auto b = std::next(a); b != others.end(); ++b) {
        const Other& x = a->second;
        const Other& y = b->second;
        if (!IsValid(x.first) || !IsValid(x.last) || !IsValid(y.first) || !IsValid(y.last))
          return true;
        if (x.first <= y.last && y.first <= x.last) return true;
      }
    return false;
  };
  // A log with no events of its own (nvidia-smi table, pmon, -q) cannot tell
  // the job's process from the others: one process per GPU is the job, and
  // sharing needs two or more whose lifetimes overlap.
  const bool log_only = t.processes.empty() && t.event_count() == 0;
  for (const auto& [dev, others] : by_dev) {
    if (log_only && (others.size() < 2 || !overlap(others))) continue;
    Finding f;
    f.id = "contention.other_processes";
    f.category = Category::kContention;
    f.rank = in.rank;
    f.device_id = dev;
    f.title = "Other processes share the GPU";
    f.severity = Severity::kHigh;
    int64_t mem = 0;
    bool mps = false;
    for (const auto& [pid, o] : others) {
      if (IsValid(o.mem)) mem += o.mem;
      mps = mps || o.mps;
      Example ex;
      ex.what = o.name.empty() ? "pid " + std::to_string(pid) : o.name + " (pid " + std::to_string(pid) + ")";
      ex.device_id = dev;
      ex.rank = in.rank;
      if (IsValid(o.mem)) ex.detail = std::to_string(o.mem / (1 << 20)) + " MiB";
      if (f.examples.size() < 5) f.examples.push_back(std::move(ex));
    }
    const model::Device* d = t.FindDevice(dev);
    double mem_ratio = d != nullptr && IsValid(d->total_memory_bytes) && d->total_memory_bytes > 0
                           ? static_cast<double>(mem) / static_cast<double>(d->total_memory_bytes)
                           : kMissingF64;
    f.summary = std::to_string(others.size()) +
                (log_only ? " processes shared GPU " + std::to_string(dev) + " during the log"
                          : " other process(es) used GPU " + std::to_string(dev) + " during the trace") +
                ", holding " + std::to_string(mem / (1 << 20)) + " MiB" +
                (mps ? " (MPS server present)." : ".");
    AddMetric(f, "other_processes", static_cast<double>(others.size()), "count", "other processes");
    AddMetric(f, "other_memory_bytes", static_cast<double>(mem), "bytes", "memory held by others");
    AddMetric(f, "other_memory_ratio", mem_ratio, "ratio", "share of device memory held by others");
    if (mps) f.notes.push_back("An MPS server is running: processes share SMs concurrently.");
    f.recommendations.push_back(
        {FixKind::kIsolation,
         "Run on a dedicated GPU (CUDA_VISIBLE_DEVICES / scheduler exclusivity) or a MIG slice; "
         "time-slicing shares every SM with the neighbours."});
    f.recommendations.push_back(
        {FixKind::kIsolation,
         "Cap memory per process (torch.cuda.set_per_process_memory_fraction, MIG/MPS limits) so "
         "neighbours cannot push you into OOM or allocator retries."});
    f.caveats.push_back(
        "A single process's trace cannot measure how much GPU time the others took; compare step "
        "times with and without them.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
