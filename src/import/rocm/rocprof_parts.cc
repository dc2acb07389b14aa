#include "import/rocm/rocprof_parts.h"

#include <fmt/format.h>

namespace gpuwhy::import {

namespace {

bool RocprofPartHasGpuEvents(const model::Trace& t) {
  return t.kernels.size() + t.memcpys.size() + t.memsets.size() > 0;
}

// RocprofPartWhat: what a part without GPU events holds, for the refusal.
std::string RocprofPartWhat(const model::Trace& t) {
  if (t.api_calls.size() + t.ranges.size() > 0)
    return fmt::format("{} host API calls and {} markers", t.api_calls.size(), t.ranges.size());
  if (!t.counters.empty())
    return fmt::format("{} counter series without dispatch timestamps", t.counters.size());
  return fmt::format("{} GPU agents", t.devices.size());
}

void RocprofFillDevice(model::Device& to, const model::Device& from, const model::Trace& src,
                       model::Trace& dst) {
  to.vendor = model::Vendor::kAmd;
  if (to.name == kEmptyString && from.name != kEmptyString)
    to.name = dst.strings.Intern(src.Str(from.name));
  auto fill = [](auto& a, const auto& b) {
    if (!IsValid(a) && IsValid(b)) a = b;
  };
  fill(to.sm_count, from.sm_count);
  fill(to.warp_size, from.warp_size);
  fill(to.max_threads_per_sm, from.max_threads_per_sm);
  fill(to.max_threads_per_block, from.max_threads_per_block);
  fill(to.smem_per_block_bytes, from.smem_per_block_bytes);
}

void RocprofMergeInto(model::Trace& from, model::Trace& to) {
  std::vector<StringId> remap(from.strings.size());
  for (size_t i = 0; i < remap.size(); ++i)
    remap[i] = to.strings.Intern(from.strings.Get(static_cast<StringId>(i)));
  to.AppendEventsFrom(from, remap);
  for (model::CounterSeries& s : from.counters) {
    s.name = remap[s.name];
    s.source = remap[s.source];
    to.counters.push_back(std::move(s));
  }
  // Agent info names every agent of the node; only the GPUs the run's
  // events use become devices (the others did not run anything here).
  for (const model::Device& d : from.devices)
    for (model::Device& td : to.devices)
      if (td.device_id == d.device_id) RocprofFillDevice(td, d, from, to);
  to.stats.Merge(from.stats);
  to.info.format_version += "+" + from.info.format_version;
}

}  // namespace

Status MergeRocprofParts(std::vector<model::Trace>& traces, std::vector<std::string>& paths) {
  std::vector<size_t> parts;
  for (size_t i = 0; i < traces.size(); ++i)
    if (traces[i].info.format == "rocprofv3-csv") parts.push_back(i);
  if (parts.empty()) return Status::Ok();
  size_t into = traces.size();
  for (size_t i : parts)
    if (RocprofPartHasGpuEvents(traces[i])) {
      into = i;
      break;
    }
  if (into == traces.size()) {
    const model::Trace& t = traces[parts[0]];
    return InvalidInput(fmt::format(
        "{}: rocprofv3 {} CSV holds {} and no kernel dispatch or memory copy: nothing to "
        "analyse alone; give kernel_trace.csv (and memory_copy_trace.csv) of the same run with it",
        paths[parts[0]], t.info.format_version, RocprofPartWhat(t)));
  }
  if (parts.size() == 1) return Status::Ok();
  for (size_t i : parts)
    if (i != into) RocprofMergeInto(traces[i], traces[into]);
  traces[into].Finalize();
  // Drop the merged parts (from the back, keeping the indexes valid).
  for (size_t k = parts.size(); k-- > 0;) {
    size_t i = parts[k];
    if (i == into) continue;
    traces.erase(traces.begin() + static_cast<std::ptrdiff_t>(i));
    paths.erase(paths.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return Status::Ok();
}

}  // namespace gpuwhy::import
