#include "report/perfetto/perfetto_renderer.h"

#include <set>
#include <string>
#include <utility>

#include "report/json/json_writer.h"

namespace gpuwhy::report {
namespace {

using analysis::TraceView;

// Kineto's spelling of memory kinds in copy and memset names.
std::string_view KinetoMemoryKind(model::MemoryKind k) {
  switch (k) {
    case model::MemoryKind::kPageable: return "Pageable";
    case model::MemoryKind::kPinned: return "Pinned";
    case model::MemoryKind::kDevice: return "Device";
    case model::MemoryKind::kArray: return "Array";
    case model::MemoryKind::kManaged: return "Managed";
    case model::MemoryKind::kDeviceStatic: return "Device Static";
    case model::MemoryKind::kManagedStatic: return "Managed Static";
    case model::MemoryKind::kUnknown: break;
  }
  return {};
}

std::string_view KinetoSyncName(model::SyncKind k) {
  switch (k) {
    case model::SyncKind::kEventSynchronize: return "Event Sync";
    case model::SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case model::SyncKind::kStreamSynchronize: return "Stream Sync";
    case model::SyncKind::kContextSynchronize: return "Context Sync";
    case model::SyncKind::kUnknown: break;
  }
  return "Sync";
}

std::string_view ApiCategory(model::ApiKind k) {
  switch (k) {
    case model::ApiKind::kRuntime: return "cuda_runtime";
    case model::ApiKind::kDriver: return "cuda_driver";
    case model::ApiKind::kOsRuntime: return "os_runtime";
    case model::ApiKind::kOther: break;
  }
  return "privateuse1_runtime";  // Kineto's category for other backends' runtimes
}

std::string_view RangeCategory(model::RangeKind k) {
  switch (k) {
    case model::RangeKind::kCpuOp: return "cpu_op";
    case model::RangeKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case model::RangeKind::kPythonFunction: return "python_function";
    case model::RangeKind::kOsRuntime: return "os_runtime";
    case model::RangeKind::kUserAnnotation:
    case model::RangeKind::kNvtx:
    case model::RangeKind::kOther: break;
  }
  return "user_annotation";
}

// Writer: the event helpers over one JsonWriter.
class Writer {
 public:
  explicit Writer(JsonWriter& w) : w_(w) {}

  // Begin: {"ph":ph,"cat":cat,"name":name,"pid":pid,"tid":tid,"ts":ts, ...
  void Begin(std::string_view ph, std::string_view cat, std::string_view name, int64_t pid,
             int64_t tid, int64_t ts_ns) {
    w_.BeginObject();
    w_.Field("ph", ph);
    if (!cat.empty()) w_.Field("cat", cat);
    w_.Field("name", name);
    w_.FieldInt("pid", pid);
    Tid(pid, tid);
    w_.FieldScaled("ts", ts_ns, 3);
  }
  // Tid: a missing host tid is written as legacy Kineto does ("tid":"<pid>"),
  // a string that viewers show as a thread and the importer reads as missing.
  void Tid(int64_t pid, int64_t tid) {
    if (IsValid(tid)) {
      w_.FieldInt("tid", tid);
    } else {
      w_.Field("tid", std::to_string(pid));
    }
  }
  void Dur(int64_t start_ns, int64_t end_ns) { w_.FieldScaled("dur", end_ns - start_ns, 3); }
  // Int: an arg when valid (missing args are left out, never 0).
  void Int(std::string_view key, int64_t v) {
    if (IsValid(v)) w_.FieldInt(key, v);
  }
  void Int32(std::string_view key, int32_t v) {
    if (IsValid(v)) w_.FieldInt(key, v);
  }
  void Float(std::string_view key, double v, int decimals) {
    if (IsValid(v)) w_.FieldDouble(key, v, decimals);
  }
  void Str(std::string_view key, std::string_view v) {
    if (!v.empty()) w_.Field(key, v);
  }
  void Triple(std::string_view key, int32_t x, int32_t y, int32_t z) {
    if (!IsValid(x)) return;
    w_.Key(key);
    w_.BeginArray();
    w_.Int(x);
    w_.Int(IsValid(y) ? y : 1);
    w_.Int(IsValid(z) ? z : 1);
    w_.EndArray();
  }
  void Meta(std::string_view what, int64_t pid, int64_t tid, std::string_view name) {
    w_.BeginObject();
    w_.Field("ph", "M");
    w_.Field("name", what);
    w_.FieldInt("pid", pid);
    if (IsValid(tid)) w_.FieldInt("tid", tid);
    w_.Key("args");
    w_.BeginObject();
    w_.Field("name", name);
    w_.EndObject();
    w_.EndObject();
  }
  void SortIndex(std::string_view what, int64_t pid, int64_t tid, int64_t index) {
    w_.BeginObject();
    w_.Field("ph", "M");
    w_.Field("name", what);
    w_.FieldInt("pid", pid);
    if (IsValid(tid)) w_.FieldInt("tid", tid);
    w_.Key("args");
    w_.BeginObject();
    w_.FieldInt("sort_index", index);
    w_.EndObject();
    w_.EndObject();
  }
  void Flow(std::string_view ph, int64_t id, int64_t pid, int64_t tid, int64_t ts_ns) {
    w_.BeginObject();
    w_.Field("ph", ph);
    w_.Field("cat", "ac2g");
    w_.Field("name", "ac2g");
    w_.FieldInt("id", id);
    w_.FieldInt("pid", pid);
    Tid(pid, tid);
    w_.FieldScaled("ts", ts_ns, 3);
    if (ph == "f") w_.Field("bp", "e");
    w_.EndObject();
  }
  JsonWriter& json() { return w_; }

 private:
  JsonWriter& w_;
};

bool Timed(int64_t start_ns, int64_t end_ns) {
  return IsValid(start_ns) && IsValid(end_ns) && end_ns >= start_ns;
}

// Tid: a stream as a tid; 0 when the source named none (the Kineto importer
// then counts the event's stream as missing again).
int64_t StreamTid(int64_t stream) { return IsValid(stream) ? stream : 0; }

// DevicePid: a device's pid; events with no device go to one unnamed pid.
int64_t DevicePid(int64_t off, int32_t device) {
  return off + (IsValid(device) ? device : kHostCountersPid - 1);
}

std::string Labeled(std::string name, const TraceView& tv) {
  if (!tv.label.empty()) name += " (" + tv.label + ")";
  return name;
}

void WriteMetadata(Writer& out, const TraceView& tv) {
  const model::Trace& t = *tv.trace;
  const int64_t off = tv.pid_offset;
  std::set<int32_t> gpus;
  std::set<std::pair<int32_t, int64_t>> streams, sync_rows;
  auto add = [&](const std::vector<int32_t>& dev, const std::vector<int64_t>& stream) {
    for (size_t i = 0; i < dev.size(); ++i) {
      if (!IsValid(dev[i])) continue;
      gpus.insert(dev[i]);
      streams.insert({dev[i], StreamTid(stream[i])});
    }
  };
  add(t.kernels.device_id, t.kernels.stream_id);
  add(t.memcpys.device_id, t.memcpys.stream_id);
  add(t.memsets.device_id, t.memsets.stream_id);
  for (size_t i = 0; i < t.syncs.size(); ++i)
    if (IsValid(t.syncs.device_id[i])) sync_rows.insert({t.syncs.device_id[i], t.syncs.stream_id[i]});
  for (const analysis::DeviceView& d : tv.devices)
    if (IsValid(d.device_id)) gpus.insert(d.device_id);
  for (int32_t g : gpus) {
    const model::Device* device = t.FindDevice(g);
    const std::string noun(model::DeviceNoun(device ? device->vendor : model::Vendor::kUnknown));
    out.Meta("process_name", off + g, kMissingI64, Labeled(noun + " " + std::to_string(g), tv));
    // Devices after the host processes, as in Kineto traces.
    out.SortIndex("process_sort_index", off + g, kMissingI64, 5000 + g);
    out.Meta("thread_name", off + g, kIdleCauseTid, noun + " idle cause (gpuwhy)");
    out.SortIndex("thread_sort_index", off + g, kIdleCauseTid, -2);
    out.Meta("thread_name", off + g, kFindingsTid, "findings (gpuwhy)");
    out.SortIndex("thread_sort_index", off + g, kFindingsTid, -1);
  }
  for (const auto& [dev, stream] : streams)
    out.Meta("thread_name", off + dev, stream, "stream " + std::to_string(stream));
  for (const auto& [dev, stream] : sync_rows)
    out.Meta("thread_name", off + dev, kSyncTidBase + (IsValid(stream) ? stream : -1),
             IsValid(stream) ? "stream " + std::to_string(stream) + " (sync)" : "context (sync)");
  for (const model::Process& p : t.processes)
    if (IsValid(p.pid) && !gpus.contains(p.pid))
      out.Meta("process_name", off + p.pid, kMissingI64, Labeled(std::string(t.Str(p.name)), tv));
  for (const model::Thread& th : t.threads)
    if (IsValid(th.pid) && IsValid(th.tid))
      out.Meta("thread_name", off + th.pid, th.tid, t.Str(th.name));
  for (const analysis::DeviceView& d : tv.devices)
    if (!IsValid(d.device_id))
      out.Meta("process_name", off + kHostCountersPid, kMissingI64, Labeled("host counters", tv));
}

void WriteGpuEvents(Writer& out, const TraceView& tv) {
  const model::Trace& t = *tv.trace;
  const int64_t off = tv.pid_offset;
  JsonWriter& w = out.json();
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (!Timed(k.start_ns[i], k.end_ns[i])) continue;
    const int64_t pid = DevicePid(off, k.device_id[i]), tid = StreamTid(k.stream_id[i]);
    out.Begin("X", "kernel", t.Str(k.name[i]), pid, tid, k.start_ns[i]);
    out.Dur(k.start_ns[i], k.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int32("device", k.device_id[i]);
    out.Int("stream", k.stream_id[i]);
    out.Int("correlation", k.correlation_id[i]);
    out.Int("External id", k.external_id[i]);
    out.Triple("grid", k.grid_x[i], k.grid_y[i], k.grid_z[i]);
    out.Triple("block", k.block_x[i], k.block_y[i], k.block_z[i]);
    out.Int32("registers per thread", k.registers_per_thread[i]);
    out.Int32("shared memory", k.shared_mem_bytes[i]);
    out.Float("blocks per SM", k.blocks_per_sm[i], 6);
    out.Float("warps per SM", k.warps_per_sm[i], 6);
    out.Float("est. achieved occupancy %", k.est_occupancy_pct[i], 3);
    out.Int("graph id", k.graph_id[i]);
    if (const uint32_t c = tv.kernel_collective[i]; c != UINT32_MAX) {
      const auto& co = t.collectives;
      out.Str("Collective name", t.Str(co.collective_name[c]));
      out.Int("In msg nelems", co.in_msg_nelems[c]);
      out.Int("Out msg nelems", co.out_msg_nelems[c]);
      out.Int32("Group size", co.group_size[c]);
      out.Str("dtype", t.Str(co.dtype[c]));
      out.Str("Process Group Name", t.Str(co.process_group_name[c]));
      out.Str("Process Group Description", t.Str(co.process_group_desc[c]));
      out.Str("Process Group Ranks", t.Str(co.process_group_ranks[c]));
      out.Int("Seq", co.seq[c]);
    }
    w.EndObject();
    w.EndObject();
    if (tv.kernel_has_api[i]) out.Flow("f", tv.flow_id_offset + k.correlation_id[i], pid, tid, k.start_ns[i]);
  }
  const auto& m = t.memcpys;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!Timed(m.start_ns[i], m.end_ns[i])) continue;
    std::string name = "Memcpy";
    if (m.copy_kind[i] != model::CopyKind::kUnknown) name += " " + std::string(model::ToString(m.copy_kind[i]));
    const std::string_view src = KinetoMemoryKind(m.src_kind[i]), dst = KinetoMemoryKind(m.dst_kind[i]);
    if (!src.empty() && !dst.empty()) name += " (" + std::string(src) + " -> " + std::string(dst) + ")";
    const int64_t pid = DevicePid(off, m.device_id[i]), tid = StreamTid(m.stream_id[i]);
    out.Begin("X", "gpu_memcpy", name, pid, tid, m.start_ns[i]);
    out.Dur(m.start_ns[i], m.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int32("device", m.device_id[i]);
    out.Int("stream", m.stream_id[i]);
    out.Int("correlation", m.correlation_id[i]);
    out.Int("External id", m.external_id[i]);
    out.Int("bytes", m.bytes[i]);
    out.Int32("fromDevice", m.src_device_id[i]);
    out.Int32("toDevice", m.dst_device_id[i]);
    out.Int("graph id", m.graph_id[i]);
    w.EndObject();
    w.EndObject();
    if (tv.memcpy_has_api[i]) out.Flow("f", tv.flow_id_offset + m.correlation_id[i], pid, tid, m.start_ns[i]);
  }
  const auto& s = t.memsets;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!Timed(s.start_ns[i], s.end_ns[i])) continue;
    const std::string_view dst = KinetoMemoryKind(s.dst_kind[i]);
    const std::string name = dst.empty() ? "Memset" : "Memset (" + std::string(dst) + ")";
    const int64_t pid = DevicePid(off, s.device_id[i]), tid = StreamTid(s.stream_id[i]);
    out.Begin("X", "gpu_memset", name, pid, tid, s.start_ns[i]);
    out.Dur(s.start_ns[i], s.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int32("device", s.device_id[i]);
    out.Int("stream", s.stream_id[i]);
    out.Int("correlation", s.correlation_id[i]);
    out.Int("External id", s.external_id[i]);
    out.Int("bytes", s.bytes[i]);
    out.Int("graph id", s.graph_id[i]);
    w.EndObject();
    w.EndObject();
    if (tv.memset_has_api[i]) out.Flow("f", tv.flow_id_offset + s.correlation_id[i], pid, tid, s.start_ns[i]);
  }
  const auto& y = t.syncs;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!Timed(y.start_ns[i], y.end_ns[i]) || !IsValid(y.device_id[i])) continue;
    const std::string_view name = KinetoSyncName(y.kind[i]);
    out.Begin("X", "cuda_sync", name, off + y.device_id[i],
              kSyncTidBase + (IsValid(y.stream_id[i]) ? y.stream_id[i] : -1), y.start_ns[i]);
    out.Dur(y.start_ns[i], y.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int32("device", y.device_id[i]);
    out.Int("stream", y.stream_id[i]);
    out.Int("correlation", y.correlation_id[i]);
    w.Field("cuda_sync_kind", name);
    out.Int("wait_on_stream", y.wait_on_stream_id[i]);
    out.Int("wait_on_cuda_event_id", y.event_id[i]);
    w.EndObject();
    w.EndObject();
  }
}

void WriteHostEvents(Writer& out, const TraceView& tv) {
  const model::Trace& t = *tv.trace;
  const int64_t off = tv.pid_offset;
  JsonWriter& w = out.json();
  const auto& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Timed(a.start_ns[i], a.end_ns[i]) || !IsValid(a.pid[i])) continue;
    const int64_t pid = off + a.pid[i], tid = a.tid[i];
    out.Begin("X", ApiCategory(a.kind[i]), t.Str(a.name[i]), pid, tid, a.start_ns[i]);
    out.Dur(a.start_ns[i], a.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int("correlation", a.correlation_id[i]);
    out.Int("External id", a.external_id[i]);
    out.Int32("cbid", a.cbid[i]);
    w.EndObject();
    w.EndObject();
    if (tv.api_has_gpu_op[i]) out.Flow("s", tv.flow_id_offset + a.correlation_id[i], pid, tid, a.start_ns[i]);
  }
  const auto& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!Timed(r.start_ns[i], r.end_ns[i])) continue;
    const bool gpu = r.kind[i] == model::RangeKind::kGpuUserAnnotation;
    int64_t pid = 0, tid = 0;
    if (gpu) {
      if (!IsValid(r.device_id[i])) continue;
      pid = off + r.device_id[i];
      tid = StreamTid(r.stream_id[i]);
    } else {
      if (!IsValid(r.pid[i])) continue;
      pid = off + r.pid[i];
      tid = r.tid[i];
    }
    out.Begin("X", RangeCategory(r.kind[i]), t.Str(r.name[i]), pid, tid, r.start_ns[i]);
    out.Dur(r.start_ns[i], r.end_ns[i]);
    w.Key("args");
    w.BeginObject();
    out.Int("External id", r.external_id[i]);
    if (gpu) {
      out.Int32("device", r.device_id[i]);
      out.Int("stream", r.stream_id[i]);
    }
    out.Str("domain", t.Str(r.domain[i]));
    w.EndObject();
    w.EndObject();
  }
  const auto& mk = t.markers;
  for (size_t i = 0; i < mk.size(); ++i) {
    if (!IsValid(mk.ts_ns[i]) || !IsValid(mk.pid[i])) continue;
    const std::string_view domain = t.Str(mk.domain[i]);
    out.Begin("i", domain.empty() ? "marker" : domain, t.Str(mk.name[i]), off + mk.pid[i],
              mk.tid[i], mk.ts_ns[i]);
    w.Field("s", "t");
    w.EndObject();
  }
}

void WriteGpuwhyTracks(Writer& out, const TraceView& tv) {
  JsonWriter& w = out.json();
  const int64_t off = tv.pid_offset;
  for (const analysis::DeviceView& d : tv.devices) {
    const int64_t pid = off + (IsValid(d.device_id) ? d.device_id : kHostCountersPid);
    for (const analysis::CounterTrack& c : d.counters) {
      for (const analysis::CounterPoint& p : c.points) {
        w.BeginObject();
        w.Field("ph", "C");
        w.Field("cat", "gpuwhy");
        w.Field("name", c.name);
        w.FieldInt("pid", pid);
        w.FieldScaled("ts", p.ts_ns, 3);
        w.Key("args");
        w.BeginObject();
        w.FieldDouble(c.unit, p.value, 3);
        w.EndObject();
        w.EndObject();
      }
    }
    for (const analysis::IdleSlice& s : d.idle) {
      out.Begin("X", "gpuwhy_idle", analysis::detectors::ToString(s.cause), pid, kIdleCauseTid,
                s.start_ns);
      out.Dur(s.start_ns, s.end_ns);
      w.Key("args");
      w.BeginObject();
      w.Field("cause", analysis::detectors::ToString(s.cause));
      w.Key("finding");
      w.StringOrNull(s.finding_id);
      w.FieldBool("one_off", s.one_off);
      w.FieldBool("edge", s.edge);
      out.Int32("step", s.step);
      w.FieldInt("gap_ns", s.gap_end_ns - s.gap_start_ns);
      w.EndObject();
      w.EndObject();
    }
  }
  for (const analysis::FindingMark& f : tv.findings) {
    const bool on_device = IsValid(f.device_id);
    out.Begin("i", "gpuwhy_finding", f.id, on_device ? off + f.device_id : off,
              on_device ? kFindingsTid : 0, f.ts_ns);
    w.Field("s", on_device ? "t" : "g");
    w.Key("args");
    w.BeginObject();
    w.Field("finding", f.id);
    w.Field("title", f.title);
    w.Field("severity", f.severity);
    w.FieldInt("lost_per_step_ns", f.lost_per_step_ns);
    w.FieldDouble("lost_step_ratio", f.lost_step_ratio, 4);
    if (f.example_index >= 0) {
      w.FieldInt("example", f.example_index);
      out.Str("what", f.what);
      out.Str("detail", f.detail);
      out.Int("example_dur_ns", f.dur_ns);
      out.Int32("step", f.step);
    } else {
      w.Field("placed", "no timed example: at the start of the window");
    }
    w.EndObject();
    w.EndObject();
  }
}

void WriteDeviceProperties(JsonWriter& w, const analysis::PerfettoView& view) {
  std::set<int32_t> seen;
  w.Key("deviceProperties");
  w.BeginArray();
  for (const TraceView& tv : view.traces) {
    for (const model::Device& d : tv.trace->devices) {
      if (!IsValid(d.device_id) || !seen.insert(d.device_id).second) continue;
      w.BeginObject();
      w.FieldInt("id", d.device_id);
      const std::string_view name = tv.trace->Str(d.name);
      if (!name.empty()) w.Field("name", name);
      auto i64 = [&](std::string_view k, int64_t v) {
        if (IsValid(v)) w.FieldInt(k, v);
      };
      auto i32 = [&](std::string_view k, int32_t v) {
        if (IsValid(v)) w.FieldInt(k, v);
      };
      i64("totalGlobalMem", d.total_memory_bytes);
      i32("computeMajor", d.cc_major);
      i32("computeMinor", d.cc_minor);
      i32("maxThreadsPerBlock", d.max_threads_per_block);
      i32("maxThreadsPerMultiprocessor", d.max_threads_per_sm);
      i32("maxBlocksPerMultiprocessor", d.max_blocks_per_sm);
      i32("regsPerBlock", d.regs_per_block);
      i32("regsPerMultiprocessor", d.regs_per_sm);
      i32("warpSize", d.warp_size);
      i64("sharedMemPerBlock", d.smem_per_block_bytes);
      i64("sharedMemPerMultiprocessor", d.smem_per_sm_bytes);
      i64("sharedMemPerBlockOptin", d.smem_per_block_optin_bytes);
      i32("numSms", d.sm_count);
      w.EndObject();
    }
  }
  w.EndArray();
}

}  // namespace

void RenderPerfetto(const analysis::PerfettoView& view, std::ostream& out) {
  JsonWriter w(out, JsonWriter::Style::kCompact);
  Writer ev(w);
  w.BeginObject();
  w.Field("displayTimeUnit", "ns");
  WriteDeviceProperties(w, view);
  w.Key("traceEvents");
  w.BeginArray();
  for (const TraceView& tv : view.traces) {
    WriteMetadata(ev, tv);
    WriteHostEvents(ev, tv);
    WriteGpuEvents(ev, tv);
    WriteGpuwhyTracks(ev, tv);
  }
  w.EndArray();
  w.EndObject();
  out << '\n';
}

}  // namespace gpuwhy::report
