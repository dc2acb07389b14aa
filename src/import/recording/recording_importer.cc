#include "import/recording/recording_importer.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/input_stream.h"

namespace gpuwhy::import {
namespace {

std::string EventText(const RecEvent& e) {
  switch (static_cast<RecEventKind>(e.kind)) {
    case RecEventKind::kCommandStarted: return fmt::format("command started (pid {})", e.code);
    case RecEventKind::kCommandExited: return fmt::format("command exited (code {})", e.code);
    case RecEventKind::kDeviceLost: return fmt::format("GPU {} lost: {}", e.device, e.text);
    case RecEventKind::kDeviceUsed: return fmt::format("command uses GPU {}", e.device);
    case RecEventKind::kNote: return e.text;
  }
  return e.text.empty() ? fmt::format("event {}", e.kind) : e.text;
}

}  // namespace

void RecordingToTrace(const Recording& rec, model::Trace& trace) {
  trace.info.format = "gpuwhy-recording";
  trace.info.format_version = fmt::format("{}.{}", rec.version_major, rec.version_minor);
  trace.info.clock = "unix_realtime";
  trace.info.cuda_driver_version = rec.run.driver_version;
  if (IsValid(rec.run.rank)) trace.rank.rank = rec.run.rank;
  if (IsValid(rec.run.world_size)) trace.rank.world_size = rec.run.world_size;
  if (IsValid(rec.run.local_rank)) trace.rank.local_rank = rec.run.local_rank;
  if (!rec.run.hostname.empty()) trace.rank.hostname = trace.strings.Intern(rec.run.hostname);

  // Devices the command used (from kDeviceUsed events); empty means all.
  std::set<int32_t> used;
  for (const RecEvent& e : rec.events) {
    if (static_cast<RecEventKind>(e.kind) == RecEventKind::kDeviceUsed) used.insert(e.device);
  }
  auto keep = [&](int32_t dev) { return used.empty() || used.count(dev) > 0; };

  for (const RecDevice& d : rec.devices) {
    if (!keep(d.index)) continue;
    model::Device& m = trace.GetOrAddDevice(d.index);
    m.name = trace.strings.Intern(d.name);
    m.uuid = trace.strings.Intern(d.uuid);
    m.vendor = model::Vendor::kNvidia;
    m.sm_count = d.sm_count;
    m.cc_major = d.cc_major;
    m.cc_minor = d.cc_minor;
    m.total_memory_bytes = d.total_memory_bytes;
  }

  // One CounterSeries per (device, kind); sources merged.
  std::map<std::pair<int32_t, uint16_t>, std::vector<const RecSeries*>> groups;
  for (const RecSeries& s : rec.series) {
    if (!keep(s.device) || s.ts_ns.empty()) continue;
    groups[{s.device, s.kind}].push_back(&s);
  }
  for (const auto& [key, list] : groups) {
    model::CounterSeries cs;
    cs.device_id = key.first;
    cs.kind = static_cast<model::CounterKind>(key.second);
    cs.unit = static_cast<model::CounterUnit>(list.front()->unit);
    cs.name = trace.strings.Intern(list.front()->name);
    std::string sources;
    size_t most = 0;
    for (const RecSeries* s : list) {
      if (!sources.empty()) sources += "+";
      sources += s->source;
      cs.ts_ns.insert(cs.ts_ns.end(), s->ts_ns.begin(), s->ts_ns.end());
      cs.value.insert(cs.value.end(), s->value.begin(), s->value.end());
      if (s->ts_ns.size() > most && IsValid(s->period_ns)) {
        most = s->ts_ns.size();
        cs.period_ns = s->period_ns;
      }
    }
    cs.source = trace.strings.Intern(sources);
    trace.counters.push_back(std::move(cs));
  }

  // Processes: one gpu_processes row per (device, pid).
  std::map<std::pair<int32_t, int32_t>, model::GpuProcessRow> procs;
  std::map<int32_t, std::string> names;
  for (const RecProcessList& pl : rec.process_lists) {
    if (!keep(pl.device)) continue;
    for (const RecProcess& p : pl.processes) {
      auto [it, fresh] = procs.try_emplace({pl.device, p.pid});
      model::GpuProcessRow& r = it->second;
      if (fresh) {
        r.device_id = pl.device;
        r.pid = p.pid;
        r.name = trace.strings.Intern(p.name);
        r.first_seen_ns = pl.ts_ns;
      }
      r.last_seen_ns = std::max(r.last_seen_ns, pl.ts_ns);
      if (IsValid(p.used_memory_bytes)) {
        r.used_memory_bytes = IsValid(r.used_memory_bytes)
                                  ? std::max(r.used_memory_bytes, p.used_memory_bytes)
                                  : p.used_memory_bytes;
      }
      r.is_profiled = r.is_profiled || p.in_target;
      if (!p.name.empty()) names[p.pid] = p.name;
    }
  }
  for (const auto& [key, row] : procs) trace.gpu_processes.Append(row);
  for (const auto& [pid, name] : names) {
    model::Process p;
    p.pid = pid;
    p.name = trace.strings.Intern(name);
    trace.processes.push_back(p);
  }

  StringId domain = trace.strings.Intern("gpuwhy record");
  if (!rec.run.nvml_status.empty()) {
    model::MarkerRow m;
    m.ts_ns = rec.run.start_wall_ns;
    m.pid = rec.run.gpuwhy_pid;
    m.name = trace.strings.Intern("nothing was sampled: " + rec.run.nvml_status);
    m.domain = domain;
    trace.markers.Append(m);
  }
  for (const RecEvent& e : rec.events) {
    model::MarkerRow m;
    m.ts_ns = e.ts_ns;
    m.pid = rec.run.gpuwhy_pid;
    m.name = trace.strings.Intern(EventText(e));
    m.domain = domain;
    trace.markers.Append(m);
  }

  if (rec.torn_tail) trace.stats.Bump(model::ImportStat::truncated_tail);
  if (rec.unknown_frames) trace.stats.Bump(model::ImportStat::unknown_field, rec.unknown_frames);
  if (rec.bad_samples) trace.stats.Bump(model::ImportStat::malformed_event, rec.bad_samples);
  trace.Finalize();
}

Status RecordingImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path));
  ASSIGN_OR_RETURN(Recording rec, ReadRecording(*in));
  trace.info.source_path = src.path;
  RecordingToTrace(rec, trace);
  return Status::Ok();
}

}  // namespace gpuwhy::import
