// JSON section "nsys_compat" (trace key, only with `--compat nsys`): the nsys
// stats reports and analyze rules reproduced by analysis::nsys_compat, one key
// per nsys report/rule name, rows as nsys orders them, times in ns.
#include <string>

#include "report/json/json_sections.h"

namespace gpuwhy::report {

namespace {

namespace nc = analysis::nsys_compat;

void Stats(JsonWriter& w, const nc::DurationStats& s) {
  w.FieldInt("count", s.count);
  w.FieldInt("total_ns", s.total_ns);
  w.FieldDouble("avg_ns", s.avg_ns, 1);
  w.FieldDouble("med_ns", s.med_ns, 1);
  w.FieldInt("min_ns", s.min_ns);
  w.FieldInt("max_ns", s.max_ns);
  w.FieldDouble("stddev_ns", s.stddev_ns, 1);
}

void StatRows(JsonWriter& w, std::string_view key, const std::vector<nc::StatRow>& rows) {
  w.Key(key);
  w.BeginArray();
  for (const nc::StatRow& r : rows) {
    w.BeginObject();
    w.Field("name", r.name);
    w.FieldDouble("time_pct", r.time_pct, 2);
    Stats(w, r.stats);
    w.EndObject();
  }
  w.EndArray();
}

std::string_view KindName(model::MemoryKind k) {
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
  return "Unknown";
}

void MemopRows(JsonWriter& w, std::string_view key, const std::vector<nc::MemopRuleRow>& rows) {
  w.Key(key);
  w.BeginArray();
  for (const nc::MemopRuleRow& r : rows) {
    w.BeginObject();
    w.FieldInt("dur_ns", r.dur_ns);
    w.FieldInt("start_ns", r.start_ns);
    w.Key("src_kind");
    if (r.src_kind == model::MemoryKind::kUnknown) w.Null(); else w.String(KindName(r.src_kind));
    w.Field("dst_kind", KindName(r.dst_kind));
    w.FieldInt("bytes", r.bytes);
    w.FieldInt32("pid", r.pid);
    w.FieldInt32("device_id", r.device_id);
    w.FieldInt("stream_id", r.stream_id);
    w.Field("api_name", r.api_name);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteNsysCompatJson(const JsonContext& ctx, JsonWriter& w) {
  if (!ctx.trace.nsys) return;
  const nc::NsysCompatReport& r = *ctx.trace.nsys;
  w.Key("nsys_compat");
  w.BeginObject();
  StatRows(w, "cuda_gpu_kern_sum", r.kern_sum);
  StatRows(w, "cuda_api_sum", r.api_sum);
  StatRows(w, "cuda_gpu_mem_time_sum", r.mem_time_sum);
  w.Key("cuda_kern_exec_sum");
  w.BeginArray();
  for (const nc::KernExecRow& k : r.kern_exec_sum) {
    w.BeginObject();
    w.FieldInt32("pid", k.pid);
    w.FieldInt("tid", k.tid);
    w.FieldInt32("device_id", k.device_id);
    w.Field("api_name", k.api_name);
    w.Field("kernel_name", k.kernel_name);
    w.FieldInt("q_count", k.q_count);
    for (auto [name, s] : {std::pair<const char*, const nc::DurationStats*>{"total", &k.total},
                           {"api", &k.api}, {"queue", &k.queue}, {"kernel", &k.kernel}}) {
      w.Key(name);
      w.BeginObject();
      Stats(w, *s);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("cuda_api_sync");
  w.BeginArray();
  for (const nc::ApiSyncRow& s : r.api_sync) {
    w.BeginObject();
    w.FieldInt("dur_ns", s.dur_ns);
    w.FieldInt("start_ns", s.start_ns);
    w.FieldInt32("pid", s.pid);
    w.FieldInt("tid", s.tid);
    w.Field("api_name", s.api_name);
    w.EndObject();
  }
  w.EndArray();
  MemopRows(w, "cuda_memcpy_async", r.memcpy_async);
  MemopRows(w, "cuda_memcpy_sync", r.memcpy_sync);
  MemopRows(w, "cuda_memset_sync", r.memset_sync);
  w.Key("gpu_gaps");
  w.BeginArray();
  for (const nc::GapRow& g : r.gaps) {
    w.BeginObject();
    w.FieldInt("dur_ns", g.dur_ns);
    w.FieldInt("start_ns", g.start_ns);
    w.FieldInt32("pid", g.pid);
    w.FieldInt32("device_id", g.device_id);
    w.EndObject();
  }
  w.EndArray();
  w.Key("gpu_time_util");
  w.BeginArray();
  for (const nc::UtilRow& u : r.time_util) {
    w.BeginObject();
    w.FieldDouble("in_use_pct", u.in_use_pct, 1);
    w.FieldInt("dur_ns", u.dur_ns);
    w.FieldInt("start_ns", u.start_ns);
    w.FieldInt32("pid", u.pid);
    w.FieldInt32("device_id", u.device_id);
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.BeginArray();
  for (const std::string& n : r.notes) w.String(n);
  w.EndArray();
  w.EndObject();
}

}  // namespace gpuwhy::report
