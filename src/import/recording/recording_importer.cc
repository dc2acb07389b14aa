#include "import/recording/recording_importer.h"

#include <algorithm>
#include <map>
#include <string>
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

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int64_t Id(uint32_t v) { return v == wire::kTraceMissingU32 ? kMissingI64 : static_cast<int64_t>(v); }
int32_t Dev(uint32_t v) { return v == wire::kTraceMissingU32 ? kMissingI32 : static_cast<int32_t>(v); }
// Ts: a trace record's time; 0 (never set) and times past kMaxAbsTimeNs are missing.
int64_t Ts(int64_t v) { return v > 0 && PlausibleTimeNs(v) ? v : kMissingI64; }

// OutOfRange: `ts` is a valid time past kMaxAbsTimeNs, counted; the caller
// drops what it times (a marker, a process list).
bool OutOfRange(int64_t ts, model::ImportStats& stats) {
  if (!IsValid(ts) || PlausibleTimeNs(ts)) return false;
  stats.Bump(model::ImportStat::time_out_of_range);
  return true;
}

// SetSpan: a row's start and end from a trace record; an end before the start
// (a damaged record) is clamped to it and counted, as the other importers do.
template <typename Row>
void SetSpan(Row& r, int64_t start, int64_t end, model::ImportStats& stats) {
  r.start_ns = Ts(start);
  r.end_ns = Ts(end);
  if (IsValid(r.start_ns) && IsValid(r.end_ns) && r.end_ns < r.start_ns) {
    r.end_ns = r.start_ns;
    stats.Bump(model::ImportStat::negative_dur);
  }
}

// NvtxStep: N of an NVTX range named like a numbered step ("ProfilerStep#12",
// "step 3", "train_step_7": "step", then non-digits, then a number at the end),
// else missing; so torch.cuda.nvtx step ranges mark steps as ProfilerStep#N does.
int32_t NvtxStep(std::string_view name) {
  size_t end = name.size(), digits = end;
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == end || end - digits > 9) return kMissingI32;
  std::string lower(name.substr(0, digits));
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  size_t at = lower.rfind("step");
  if (at == std::string::npos) return kMissingI32;
  for (size_t i = at + 4; i < lower.size(); ++i)
    if (lower[i] != ' ' && lower[i] != '#' && lower[i] != '_' && lower[i] != '-' && lower[i] != ':')
      return kMissingI32;
  return static_cast<int32_t>(std::stol(std::string(name.substr(digits))));
}

// StreamDevices: the CUDA device ordinals a stream's records name.
std::set<int32_t> StreamDevices(const RecTrace& rt) {
  std::set<int32_t> out;
  for (const auto& k : rt.kernels) out.insert(Dev(k.device));
  for (const auto& c : rt.copies) out.insert(Dev(c.device));
  for (const auto& [ctx, dev] : rt.contexts) out.insert(Dev(dev));
  out.erase(kMissingI32);
  return out;
}

// DeviceMap: CUDA device ordinal -> NVML index for one stream. CUPTI numbers
// devices as the process sees them, after CUDA_VISIBLE_DEVICES (Slurm sets it
// per task, so a task's device 0 may be GPU 3); NVML's process lists say on
// which GPUs the process really ran. One ordinal and one GPU: that is the
// mapping. Otherwise ordinals stand for themselves, and when NVML saw the
// process elsewhere, `*mismatch` says so rather than guess an order.
std::map<int32_t, int32_t> DeviceMap(const Recording& rec, const RecTrace& rt, std::string* mismatch) {
  std::map<int32_t, int32_t> map;
  const std::set<int32_t> ordinals = StreamDevices(rt);
  for (int32_t o : ordinals) map[o] = o;
  if (!IsValid(rt.pid) || ordinals.empty()) return map;
  std::set<int32_t> seen_on;
  for (const RecProcessList& pl : rec.process_lists) {
    for (const RecProcess& p : pl.processes) {
      if (p.pid == rt.pid) seen_on.insert(pl.device);
    }
  }
  if (seen_on.empty() || seen_on == ordinals) return map;
  if (ordinals.size() == 1 && seen_on.size() == 1) {
    map[*ordinals.begin()] = *seen_on.begin();
    return map;
  }
  std::string o, g;
  for (int32_t v : ordinals) o += (o.empty() ? "" : ",") + std::to_string(v);
  for (int32_t v : seen_on) g += (g.empty() ? "" : ",") + std::to_string(v);
  *mismatch = fmt::format("process {} used CUDA devices {} and NVML saw it on GPUs {}; its kernels keep "
                          "the CUDA numbers", rt.pid, o, g);
  return map;
}

// TraceToTables: one CUPTI trace stream into the event tables (pid = the stream's process).
void TraceToTables(const Recording& rec, const RecTrace& rt, model::Trace& trace, StringId domain) {
  auto name = [&](uint32_t id) {
    return id < rt.names.size() && !rt.names[id].empty() ? trace.strings.Intern(rt.names[id])
                                                         : kEmptyString;
  };
  std::string mismatch;
  const std::map<int32_t, int32_t> device_map = DeviceMap(rec, rt, &mismatch);
  // Device of a record: the NVML index its CUDA ordinal maps to.
  auto gpu = [&](uint32_t v) {
    int32_t d = Dev(v);
    auto it = device_map.find(d);
    return it == device_map.end() ? d : it->second;
  };
  std::map<uint32_t, int32_t> ctx_device;
  for (const auto& [ctx, dev] : rt.contexts) ctx_device[ctx] = gpu(dev);
  const int32_t pid = rt.pid;
  if (IsValid(pid)) {
    model::Process p;
    p.pid = pid;
    p.name = trace.strings.Intern(Basename(rt.exe));
    trace.processes.push_back(p);
  }
  if (rt.cupti_version != 0) trace.info.cupti_version = std::to_string(rt.cupti_version);
  if (!IsValid(trace.rank.rank) && IsValid(rt.rank)) trace.rank.rank = rt.rank;
  if (!IsValid(trace.rank.local_rank) && IsValid(rt.local_rank)) trace.rank.local_rank = rt.local_rank;
  if (!IsValid(trace.rank.world_size) && IsValid(rt.world_size)) trace.rank.world_size = rt.world_size;
  auto note = [&](int64_t ts, const std::string& text) {
    if (OutOfRange(ts, trace.stats)) return;
    model::MarkerRow m;
    m.ts_ns = ts;
    m.pid = pid;
    m.name = trace.strings.Intern(text);
    m.domain = domain;
    trace.markers.Append(m);
  };
  if (!rt.status.empty()) note(rt.start_wall_ns, fmt::format("process {} not traced: {}", pid, rt.status));
  if (!mismatch.empty()) note(rt.start_wall_ns, mismatch);
  for (const auto& [ordinal, index] : device_map) {
    if (ordinal != index) {
      note(rt.start_wall_ns, fmt::format("process {}: CUDA device {} is GPU {} (NVML saw the process there; "
                                         "CUDA_VISIBLE_DEVICES renumbers devices)", pid, ordinal, index));
    }
  }
  uint64_t dropped = rt.Stat(wire::TraceStat::kDroppedRecords);
  uint64_t rejected = rt.Stat(wire::TraceStat::kRejectedBuffers);
  if (dropped > 0 || rejected > 0) {
    // A refused buffer loses at least one record even when CUPTI reports no count.
    trace.stats.Bump(model::ImportStat::trace_records_dropped, std::max<uint64_t>(dropped, rejected));
    note(rt.start_wall_ns,
         fmt::format("trace of process {}: {} records dropped, {} buffer requests refused (trace "
                     "buffers full; raise GPUWHY_TRACE_BUFFERS)", pid, dropped, rejected));
  }

  for (const wire::WireKernel& k : rt.kernels) {
    model::KernelRow r;
    r.device_id = gpu(k.device);
    r.stream_id = Id(k.stream);
    SetSpan(r, k.start_ns, k.end_ns, trace.stats);
    r.correlation_id = Id(k.correlation);
    r.name = name(k.name);
    r.grid_x = k.grid[0], r.grid_y = k.grid[1], r.grid_z = k.grid[2];
    r.block_x = k.block[0], r.block_y = k.block[1], r.block_z = k.block[2];
    r.registers_per_thread = k.registers_per_thread;
    r.static_shared_mem_bytes = k.static_shared_bytes;
    r.dynamic_shared_mem_bytes = k.dynamic_shared_bytes;
    // In int64: a damaged record's two int32 sizes may sum past int32 (then missing).
    const int64_t shared = int64_t{k.static_shared_bytes} + k.dynamic_shared_bytes;
    r.shared_mem_bytes =
        shared >= 0 && shared <= INT32_MAX ? static_cast<int32_t>(shared) : kMissingI32;
    if (k.graph_id != 0) r.graph_id = k.graph_id;
    r.pid = pid;
    trace.kernels.Append(r);
  }
  for (const wire::WireCopy& c : rt.copies) {
    if (c.op == static_cast<uint8_t>(wire::TraceCopyOp::kMemset)) {
      model::MemsetRow r;
      r.device_id = gpu(c.device);
      r.stream_id = Id(c.stream);
      SetSpan(r, c.start_ns, c.end_ns, trace.stats);
      r.correlation_id = Id(c.correlation);
      r.bytes = c.bytes;
      r.dst_kind = c.dst_kind <= 7 ? static_cast<model::MemoryKind>(c.dst_kind) : model::MemoryKind::kUnknown;
      if (c.graph_id != 0) r.graph_id = c.graph_id;
      r.pid = pid;
      trace.memsets.Append(r);
      continue;
    }
    model::MemcpyRow r;
    r.device_id = gpu(c.device);
    r.stream_id = Id(c.stream);
    SetSpan(r, c.start_ns, c.end_ns, trace.stats);
    r.correlation_id = Id(c.correlation);
    r.bytes = c.bytes;
    r.copy_kind = c.copy_kind <= 10 ? static_cast<model::CopyKind>(c.copy_kind) : model::CopyKind::kUnknown;
    r.src_kind = c.src_kind <= 7 ? static_cast<model::MemoryKind>(c.src_kind) : model::MemoryKind::kUnknown;
    r.dst_kind = c.dst_kind <= 7 ? static_cast<model::MemoryKind>(c.dst_kind) : model::MemoryKind::kUnknown;
    r.src_device_id = gpu(c.src_device);
    r.dst_device_id = gpu(c.dst_device);
    if (c.graph_id != 0) r.graph_id = c.graph_id;
    r.pid = pid;
    trace.memcpys.Append(r);
  }
  for (const wire::WireApi& a : rt.api) {
    model::ApiRow r;
    r.pid = pid;
    r.tid = Id(a.tid);
    SetSpan(r, a.start_ns, a.end_ns, trace.stats);
    r.correlation_id = Id(a.correlation);
    r.name = name(a.name);
    r.cbid = static_cast<int32_t>(a.cbid);
    r.kind = a.kind == static_cast<uint8_t>(wire::TraceApiKind::kDriver) ? model::ApiKind::kDriver
             : a.kind == static_cast<uint8_t>(wire::TraceApiKind::kRuntime) ? model::ApiKind::kRuntime
                                                                              : model::ApiKind::kOther;
    trace.api_calls.Append(r);
  }
  for (const wire::WireSync& s : rt.syncs) {
    model::SyncRow r;
    auto it = ctx_device.find(s.context);
    r.device_id = it == ctx_device.end() ? kMissingI32 : it->second;
    r.stream_id = Id(s.stream);
    SetSpan(r, s.start_ns, s.end_ns, trace.stats);
    r.correlation_id = Id(s.correlation);
    r.kind = s.type <= 4 ? static_cast<model::SyncKind>(s.type) : model::SyncKind::kUnknown;
    r.event_id = Id(s.event_id);
    r.pid = pid;
    trace.syncs.Append(r);
  }
  StringId nvtx = trace.strings.Intern("nvtx");
  for (const wire::WireRange& g : rt.ranges) {
    model::RangeRow r;
    r.pid = pid;
    r.tid = Id(g.tid);
    SetSpan(r, g.start_ns, g.end_ns, trace.stats);
    r.name = name(g.name);
    if (g.name < rt.names.size()) r.step = NvtxStep(rt.names[g.name]);
    r.kind = model::RangeKind::kNvtx;
    r.domain = g.domain != 0 ? name(g.domain) : nvtx;
    trace.ranges.Append(r);
  }
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
    if (!keep(pl.device) || OutOfRange(pl.ts_ns, trace.stats)) continue;
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
  if (!rec.run.nvml_status.empty() && !OutOfRange(rec.run.start_wall_ns, trace.stats)) {
    model::MarkerRow m;
    m.ts_ns = rec.run.start_wall_ns;
    m.pid = rec.run.gpuwhy_pid;
    m.name = trace.strings.Intern("nothing was sampled: " + rec.run.nvml_status);
    m.domain = domain;
    trace.markers.Append(m);
  }
  for (const RecEvent& e : rec.events) {
    if (OutOfRange(e.ts_ns, trace.stats)) continue;
    model::MarkerRow m;
    m.ts_ns = e.ts_ns;
    m.pid = rec.run.gpuwhy_pid;
    m.name = trace.strings.Intern(EventText(e));
    m.domain = domain;
    trace.markers.Append(m);
  }

  for (const RecTrace& rt : rec.traces) TraceToTables(rec, rt, trace, domain);

  if (rec.torn_tail) trace.stats.Bump(model::ImportStat::truncated_tail);
  if (rec.unknown_frames) trace.stats.Bump(model::ImportStat::unknown_field, rec.unknown_frames);
  if (rec.bad_samples) trace.stats.Bump(model::ImportStat::malformed_event, rec.bad_samples);
  if (rec.samples_out_of_range)
    trace.stats.Bump(model::ImportStat::time_out_of_range, rec.samples_out_of_range);
  trace.Finalize();
}

std::vector<Recording> SplitRecordingByRank(const Recording& rec) {
  std::set<int32_t> ranks;
  for (const RecTrace& rt : rec.traces) {
    if (IsValid(rt.rank)) ranks.insert(rt.rank);
  }
  if (ranks.size() < 2) return {};
  std::vector<Recording> parts;
  for (int32_t rank : ranks) {
    const bool lowest = rank == *ranks.begin();
    Recording part;
    part.version_major = rec.version_major;
    part.version_minor = rec.version_minor;
    part.has_run = rec.has_run;
    part.run = rec.run;
    part.run.rank = rank;
    part.run.local_rank = kMissingI32;
    part.run.world_size = kMissingI32;
    std::set<int32_t> devices;
    for (const RecTrace& rt : rec.traces) {
      if (rt.rank != rank && !(lowest && !IsValid(rt.rank))) continue;
      part.traces.push_back(rt);
      if (rt.rank == rank) {
        if (!IsValid(part.run.local_rank)) part.run.local_rank = rt.local_rank;
        if (!IsValid(part.run.world_size)) part.run.world_size = rt.world_size;
      } else {
        RecEvent note;
        note.ts_ns = rt.start_wall_ns;
        note.kind = static_cast<uint16_t>(RecEventKind::kNote);
        note.text = fmt::format("process {} carried no RANK; its trace is analysed with rank {}", rt.pid, rank);
        part.events.push_back(std::move(note));
      }
      std::string unused;
      for (const auto& [ordinal, index] : DeviceMap(rec, rt, &unused)) devices.insert(index);
    }
    if (!IsValid(part.run.world_size)) part.run.world_size = static_cast<int32_t>(ranks.size());
    auto mine = [&](int32_t dev) { return devices.count(dev) > 0; };
    for (const RecDevice& d : rec.devices) {
      if (mine(d.index)) part.devices.push_back(d);
    }
    for (const RecSeries& sr : rec.series) {
      // Series ids index `series`: keep every slot, emptied for other GPUs.
      part.series.push_back(sr);
      if (!mine(sr.device)) {
        part.series.back().ts_ns.clear();
        part.series.back().value.clear();
      }
    }
    for (const RecProcessList& pl : rec.process_lists) {
      if (mine(pl.device)) part.process_lists.push_back(pl);
    }
    for (const RecLinks& l : rec.links) {
      if (mine(l.device)) part.links.push_back(l);
    }
    for (const RecMig& m : rec.mig) {
      if (mine(m.device)) part.mig.push_back(m);
    }
    for (const RecEvent& e : rec.events) {
      const auto kind = static_cast<RecEventKind>(e.kind);
      const bool per_device = kind == RecEventKind::kDeviceUsed || kind == RecEventKind::kDeviceLost;
      if (!per_device || mine(e.device)) part.events.push_back(e);
    }
    std::stable_sort(part.events.begin(), part.events.end(),
                     [](const RecEvent& a, const RecEvent& b) { return a.ts_ns < b.ts_ns; });
    part.has_end = rec.has_end;
    part.end_ts_ns = rec.end_ts_ns;
    part.exit_code = rec.exit_code;
    part.frames = rec.frames;
    part.unknown_frames = rec.unknown_frames;
    part.bad_samples = rec.bad_samples;
    part.samples_out_of_range = rec.samples_out_of_range;
    part.torn_tail = rec.torn_tail;
    part.torn_offset = rec.torn_offset;
    parts.push_back(std::move(part));
  }
  return parts;
}

Status RecordingImporter::ReadRanks(const SourceInfo& src, std::vector<model::Trace>* traces) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path));
  ASSIGN_OR_RETURN(Recording rec, ReadRecording(*in));
  std::vector<Recording> parts = SplitRecordingByRank(rec);
  if (parts.empty()) {
    model::Trace t;
    t.info.source_path = src.path;
    RecordingToTrace(rec, t);
    traces->push_back(std::move(t));
    return Status::Ok();
  }
  for (const Recording& part : parts) {
    model::Trace t;
    t.info.source_path = src.path;
    RecordingToTrace(part, t);
    traces->push_back(std::move(t));
  }
  return Status::Ok();
}

Status RecordingImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path));
  ASSIGN_OR_RETURN(Recording rec, ReadRecording(*in));
  trace.info.source_path = src.path;
  RecordingToTrace(rec, trace);
  return Status::Ok();
}

}  // namespace gpuwhy::import
