#include "import/rocm/rocm_sqlite_importer.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/nsys/sqlite_db.h"
#include "import/rocm/rocm_common.h"
#include "import/sqlite_kind.h"

namespace gpuwhy::import {

using model::ImportStat;

namespace {

// RocmIdVec: values indexed by a table's INTEGER PRIMARY KEY. Ids are dense
// from 1 in every writer; a row whose id is far past the row count (a
// damaged or hand-made file) is counted and left out instead of growing the
// array without bound.
template <typename T>
class RocmIdVec {
 public:
  RocmIdVec(T missing, uint64_t rows) : missing_(missing), cap_(rows * 4 + 4096) {}
  bool Put(int64_t id, T v) {
    if (!IsValid(id) || id < 0 || static_cast<uint64_t>(id) >= cap_) return false;
    if (static_cast<size_t>(id) >= v_.size()) v_.resize(static_cast<size_t>(id) + 1, missing_);
    v_[static_cast<size_t>(id)] = std::move(v);
    return true;
  }
  const T& Get(int64_t id) const {
    if (!IsValid(id) || id < 0 || static_cast<uint64_t>(id) >= v_.size()) return missing_;
    return v_[static_cast<size_t>(id)];
  }

 private:
  T missing_;
  uint64_t cap_;
  std::vector<T> v_;
};

// RocmSqlCol: `name` quoted when `cols` has it, else NULL (older schemas).
std::string RocmSqlCol(const std::vector<std::string>& cols, std::string_view name) {
  for (const std::string& c : cols)
    if (c == name) return fmt::format("\"{}\"", name);
  return "NULL";
}

std::string RocmQuoted(std::string_view table) { return fmt::format("\"{}\"", table); }

uint64_t RocmCountRows(const SqliteDb& db, const std::string& table) {
  uint64_t rows = 0;
  (void)db.ScanRows("1", RocmQuoted(table), table, [](const SqliteArgs&) {}, &rows);
  return rows;
}

// ---- rocprofv3 rocpd -------------------------------------------------------

// RocpdTablesOf: the per-session tables `<prefix><uuid>` (the uuid suffix
// starts with '_' or is empty); without one, a view of that name.
std::vector<std::string> RocpdSuffixes(const SqliteDb& db, std::string_view prefix) {
  std::vector<std::string> out;
  for (const std::string& t : db.Tables()) {
    if (t.size() < prefix.size() || t.compare(0, prefix.size(), prefix) != 0) continue;
    std::string suffix = t.substr(prefix.size());
    if (!suffix.empty() && suffix[0] != '_') continue;
    out.push_back(suffix);
  }
  if (out.empty() && db.HasView(prefix)) out.emplace_back();
  return out;
}

class RocpdReader {
 public:
  RocpdReader(const SqliteDb& db, model::Trace& t, RocmSqliteScan* scan)
      : db_(db), t_(t), scan_(scan) {}
  Status Run();

 private:
  Status Session(const std::string& sfx);
  bool Has(const std::string& table) const { return db_.HasTable(table) || db_.HasView(table); }
  StringId Str(int64_t id) {
    if (!IsValid(id)) return kEmptyString;
    auto it = interned_.find(id);
    if (it != interned_.end()) return it->second;
    StringId s = t_.strings.Intern(strings_.Get(id));
    interned_.emplace(id, s);
    return s;
  }

  const SqliteDb& db_;
  model::Trace& t_;
  RocmSqliteScan* scan_;
  RocmIdVec<std::string> strings_{std::string(), 0};
  std::unordered_map<int64_t, StringId> interned_;
  std::map<std::pair<int32_t, std::string>, size_t> series_of_;
};

struct RocpdTrack {
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  int32_t device = kMissingI32;
  int64_t stream = kMissingI64;
};

struct RocpdEvent {
  int64_t correlation_id = kMissingI64;
  int64_t category_id = kMissingI64;
};

// RocpdAgentExt: CU count and limits from rocpd_info_agent.extdata (the
// rocprofiler agent struct as JSON; the same names as agent_info.csv, lower case).
void RocpdAgentExt(std::string_view json, rocm::AmdAgent* a) {
  if (json.empty()) return;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size()).get(root)) return;
  auto num = [&](const char* key) -> int64_t {
    int64_t v = 0;
    if (root[key].get_int64().get(v) == simdjson::SUCCESS) return v;
    uint64_t u = 0;
    if (root[key].get_uint64().get(u) == simdjson::SUCCESS && u < (uint64_t{1} << 62))
      return static_cast<int64_t>(u);
    return kMissingI64;
  };
  a->cu_count = rocm::ClampI32(num("cu_count"));
  a->wave_size = rocm::ClampI32(num("wave_front_size"));
  a->max_waves_per_cu = rocm::ClampI32(num("max_waves_per_cu"));
  a->max_workgroup_size = rocm::ClampI32(num("workgroup_max_size"));
  int64_t kb = num("lds_size_in_kb");
  if (IsValid(kb) && kb > 0 && kb < (int64_t{1} << 40)) a->lds_bytes = kb * 1024;
}

Status RocpdReader::Session(const std::string& sfx) {
  auto table = [&](std::string_view prefix) { return fmt::format("{}{}", prefix, sfx); };
  uint64_t rows = 0;
  // Strings.
  std::string st = table("rocpd_string");
  if (Has(st)) {
    strings_ = RocmIdVec<std::string>(std::string(), RocmCountRows(db_, st));
    interned_.clear();
    RETURN_IF_ERROR(db_.ScanRows(
        "id, string", RocmQuoted(st), st,
        [&](const SqliteArgs& a) {
          if (!strings_.Put(a.I64(0), std::string(a.Text(1)))) t_.stats.Bump(ImportStat::garbage_row);
        },
        &rows));
  }
  // Processes and threads: tracks name them by row id.
  std::unordered_map<int64_t, int32_t> pid_of;
  std::unordered_map<int64_t, int64_t> tid_of;
  std::string pt = table("rocpd_info_process");
  if (Has(pt))
    RETURN_IF_ERROR(db_.ScanRows("id, pid, command", RocmQuoted(pt), pt, [&](const SqliteArgs& a) {
      int32_t pid = a.I32(1);
      pid_of[a.I64(0)] = pid;
      if (IsValid(pid) && !a.Text(2).empty()) {
        bool known = false;
        for (const model::Process& p : t_.processes) known = known || p.pid == pid;
        if (!known) t_.processes.push_back({pid, t_.strings.Intern(a.Text(2).substr(0, 256))});
      }
    }, &rows));
  std::string tt = table("rocpd_info_thread");
  if (Has(tt))
    RETURN_IF_ERROR(db_.ScanRows("id, tid", RocmQuoted(tt), tt,
                                 [&](const SqliteArgs& a) { tid_of[a.I64(0)] = a.I64(1); }, &rows));
  // Agents: GPU rows become devices numbered by logical index.
  std::unordered_map<int64_t, int32_t> device_of;
  std::string at = table("rocpd_info_agent");
  if (Has(at)) {
    std::vector<std::string> cols = db_.Columns(at);
    std::string args = fmt::format("id, type, {}, {}, {}, {}, {}", RocmSqlCol(cols, "logical_index"),
                                   RocmSqlCol(cols, "name"), RocmSqlCol(cols, "product_name"),
                                   RocmSqlCol(cols, "extdata"), RocmSqlCol(cols, "generic_name"));
    RETURN_IF_ERROR(db_.ScanRows(args, RocmQuoted(at), at, [&](const SqliteArgs& a) {
      int32_t logical = IsValid(a.I32(2)) ? a.I32(2) : a.I32(0);
      device_of[a.I64(0)] = logical;
      if (a.Text(1) != "GPU") return;
      rocm::AmdAgent agent;
      agent.id = logical;
      // `name` is the gfx name in early writers, the product name later
      // (with the gfx name in generic_name).
      agent.arch_name = std::string(a.Text(6).empty() ? a.Text(3) : a.Text(6));
      agent.product_name = std::string(a.Text(4));
      RocpdAgentExt(a.Text(5), &agent);
      rocm::AddAmdDevice(t_, agent);
    }, &rows));
  }
  auto device = [&](int64_t agent_row) {
    auto it = device_of.find(agent_row);
    return it == device_of.end() ? kMissingI32 : it->second;
  };
  // Tracks.
  std::string trt = table("rocpd_track");
  RocmIdVec<RocpdTrack> tracks(RocpdTrack{}, Has(trt) ? RocmCountRows(db_, trt) : 0);
  if (Has(trt))
    RETURN_IF_ERROR(db_.ScanRows(
        "id, pid, tid, agent_id, queue_id, stream_id", RocmQuoted(trt), trt,
        [&](const SqliteArgs& a) {
          RocpdTrack k;
          auto p = pid_of.find(a.I64(1));
          k.pid = p != pid_of.end() ? p->second : a.I32(1);
          auto th = tid_of.find(a.I64(2));
          k.tid = th != tid_of.end() ? th->second : a.I64(2);
          k.device = device(a.I64(3));
          k.stream = IsValid(a.I64(5)) ? a.I64(5) : a.I64(4);
          if (!tracks.Put(a.I64(0), k)) t_.stats.Bump(ImportStat::garbage_row);
        },
        &rows));
  // EventTrack: the track of a row, from its track_id or its own columns.
  auto event_track = [&](const SqliteArgs& a, int track, int agent, int queue, int stream, int pid,
                         int tid) {
    RocpdTrack k = tracks.Get(a.I64(track));
    if (!IsValid(k.device) && IsValid(a.I64(agent))) k.device = device(a.I64(agent));
    if (!IsValid(k.stream)) k.stream = IsValid(a.I64(stream)) ? a.I64(stream) : a.I64(queue);
    if (!IsValid(k.pid) && IsValid(a.I64(pid))) {
      auto p = pid_of.find(a.I64(pid));
      k.pid = p != pid_of.end() ? p->second : a.I32(pid);
    }
    if (!IsValid(k.tid) && IsValid(a.I64(tid))) {
      auto th = tid_of.find(a.I64(tid));
      k.tid = th != tid_of.end() ? th->second : a.I64(tid);
    }
    return k;
  };
  // Columns of an event table: "start_id" (track layout) or "start" (direct).
  auto layout = [&](const std::string& tbl, bool* direct) {
    std::vector<std::string> cols = db_.Columns(tbl);
    *direct = RocmSqlCol(cols, "start_id") == "NULL";
    return fmt::format("{}, {}, {}, {}, {}, {}, {}, {}", RocmSqlCol(cols, "track_id"),
                       *direct ? RocmSqlCol(cols, "start") : RocmSqlCol(cols, "start_id"),
                       *direct ? RocmSqlCol(cols, "end") : RocmSqlCol(cols, "end_id"),
                       RocmSqlCol(cols, "agent_id"), RocmSqlCol(cols, "queue_id"),
                       RocmSqlCol(cols, "stream_id"), RocmSqlCol(cols, "pid"),
                       RocmSqlCol(cols, "tid"));
  };
  // Timestamps: the largest table after the events; read once into an array.
  std::string tst = table("rocpd_timestamp");
  uint64_t ts_rows = Has(tst) ? RocmCountRows(db_, tst) : 0;
  RocmIdVec<int64_t> ts(kMissingI64, ts_rows);
  if (Has(tst))
    RETURN_IF_ERROR(db_.ScanRows("id, value", RocmQuoted(tst), tst, [&](const SqliteArgs& a) {
      int64_t v = a.I64(1);
      if (IsValid(v) && !rocm::TimeOk(v)) {
        t_.stats.Bump(ImportStat::time_out_of_range);
        return;
      }
      if (!ts.Put(a.I64(0), v)) t_.stats.Bump(ImportStat::garbage_row);
    }, &rows));
  if (scan_) scan_->timestamp_rows += rows;
  // Events: correlation ids and categories.
  std::string et = table("rocpd_event");
  RocmIdVec<RocpdEvent> events(RocpdEvent{}, Has(et) ? RocmCountRows(db_, et) : 0);
  if (Has(et))
    RETURN_IF_ERROR(db_.ScanRows("id, correlation_id, category_id", RocmQuoted(et), et,
                                 [&](const SqliteArgs& a) {
                                   if (!events.Put(a.I64(0), {a.I64(1), a.I64(2)}))
                                     t_.stats.Bump(ImportStat::garbage_row);
                                 },
                                 &rows));
  // Schema 3 as released keeps start/end (and agent, queue, stream, pid,
  // tid) in each event row; the later layout points at rocpd_timestamp and
  // rocpd_track rows instead. Both are read: `direct` says which.
  auto interval = [&](bool direct, int64_t start, int64_t end, int64_t* s, int64_t* e) {
    *s = direct ? start : ts.Get(start);
    *e = direct ? end : ts.Get(end);
    if (direct && ((IsValid(*s) && !rocm::TimeOk(*s)) || (IsValid(*e) && !rocm::TimeOk(*e)))) {
      t_.stats.Bump(ImportStat::time_out_of_range);
      return false;
    }
    if (!IsValid(*s) || !IsValid(*e)) {
      t_.stats.Bump(ImportStat::missing_ts);
      return false;
    }
    if (*e < *s) {
      t_.stats.Bump(ImportStat::negative_dur);
      *e = *s;
    }
    return true;
  };
  // Kernel symbols.
  struct Symbol {
    StringId name = kEmptyString;
    int32_t vgpr = kMissingI32;
  };
  std::string kst = table("rocpd_info_kernel_symbol");
  RocmIdVec<Symbol> symbols(Symbol{}, Has(kst) ? RocmCountRows(db_, kst) : 0);
  if (Has(kst)) {
    std::vector<std::string> cols = db_.Columns(kst);
    std::string args = fmt::format("id, {}, {}, {}", RocmSqlCol(cols, "kernel_name"),
                                   RocmSqlCol(cols, "display_name"),
                                   RocmSqlCol(cols, "arch_vgpr_count"));
    RETURN_IF_ERROR(db_.ScanRows(args, RocmQuoted(kst), kst, [&](const SqliteArgs& a) {
      std::string_view n = a.Text(2).empty() ? a.Text(1) : a.Text(2);
      if (!symbols.Put(a.I64(0), {t_.strings.Intern(rocm::StemOf(n)), a.I32(3)}))
        t_.stats.Bump(ImportStat::garbage_row);
    }, &rows));
  }
  // Kernel dispatches.
  std::unordered_map<int64_t, std::pair<int32_t, int64_t>> dispatch_of_event;  // -> device, end
  std::string kdt = table("rocpd_kernel_dispatch");
  if (Has(kdt)) {
    bool direct = false;
    std::string common = layout(kdt, &direct);
    std::vector<std::string> cols = db_.Columns(kdt);
    RETURN_IF_ERROR(db_.ScanRows(
        fmt::format("{}, kernel_id, {}, workgroup_size_x, workgroup_size_y, workgroup_size_z, "
                    "grid_size_x, grid_size_y, grid_size_z, {}",
                    common, RocmSqlCol(cols, "group_segment_size"), RocmSqlCol(cols, "event_id")),
        RocmQuoted(kdt), kdt,
        [&](const SqliteArgs& a) {
          // 0 track, 1 start, 2 end, 3 agent, 4 queue, 5 stream, 6 pid, 7 tid,
          // 8 kernel, 9 lds, 10-12 workgroup, 13-15 grid, 16 event.
          model::KernelRow k;
          if (!interval(direct, a.I64(1), a.I64(2), &k.start_ns, &k.end_ns)) return;
          RocpdTrack tr = event_track(a, 0, 3, 4, 5, 6, 7);
          const Symbol& sym = symbols.Get(a.I64(8));
          k.device_id = tr.device;
          k.stream_id = tr.stream;
          k.name = sym.name;
          k.registers_per_thread = sym.vgpr;
          k.shared_mem_bytes = a.I32(9);
          int32_t* g[3] = {&k.grid_x, &k.grid_y, &k.grid_z};
          int32_t* b[3] = {&k.block_x, &k.block_y, &k.block_z};
          for (int i = 0; i < 3; ++i) {
            int64_t w = a.I64(10 + i);
            *b[i] = rocm::ClampI32(w);
            *g[i] = rocm::Workgroups(a.I64(13 + i), w);
          }
          int64_t event = a.I64(16);
          k.correlation_id = events.Get(event).correlation_id;
          if (!IsValid(k.correlation_id)) t_.stats.Bump(ImportStat::missing_correlation);
          t_.kernels.Append(k);
          if (IsValid(tr.pid)) t_.kernels.pid.Set(t_.kernels.size() - 1, tr.pid);
          if (IsValid(event)) dispatch_of_event[event] = {k.device_id, k.end_ns};
        },
        &rows));
    if (scan_) scan_->kernel_rows += rows;
  }
  // Memory copies.
  std::string mct = table("rocpd_memory_copy");
  if (Has(mct)) {
    bool direct = false;
    std::string common = layout(mct, &direct);
    RETURN_IF_ERROR(db_.ScanRows(
        common + ", name_id, dst_agent_id, src_agent_id, size, event_id", RocmQuoted(mct), mct,
        [&](const SqliteArgs& a) {
          // 0-7 as for dispatches, 8 name, 9 dst, 10 src, 11 size, 12 event.
          model::MemcpyRow m;
          if (!interval(direct, a.I64(1), a.I64(2), &m.start_ns, &m.end_ns)) return;
          m.copy_kind = rocm::CopyKindOfDirection(strings_.Get(a.I64(8)));
          if (m.copy_kind == model::CopyKind::kUnknown)
            t_.stats.Bump(ImportStat::unknown_memcpy_kind);
          int32_t dst = device(a.I64(9)), src = device(a.I64(10));
          // The GPU side of the copy is its device (the host is an agent too).
          m.device_id = m.copy_kind == model::CopyKind::kHtoD ? dst : src;
          if (!t_.FindDevice(m.device_id)) m.device_id = t_.FindDevice(dst) ? dst : src;
          RocpdTrack tr = event_track(a, 0, 3, 4, 5, 6, 7);
          m.stream_id = tr.stream;
          m.pid = tr.pid;
          m.bytes = a.I64(11);
          m.correlation_id = events.Get(a.I64(12)).correlation_id;
          t_.memcpys.Append(m);
          if (m.copy_kind == model::CopyKind::kDtoD) {
            t_.memcpys.src_device_id.Set(t_.memcpys.size() - 1, src);
            t_.memcpys.dst_device_id.Set(t_.memcpys.size() - 1, dst);
          }
        },
        &rows));
    if (scan_) scan_->copy_rows += rows;
  }
  // Regions: HIP / HSA API calls, roctx markers.
  std::string rt = table("rocpd_region");
  if (Has(rt)) {
    StringId roctx = t_.strings.Intern("roctx");
    bool direct = false;
    std::string common = layout(rt, &direct);
    RETURN_IF_ERROR(db_.ScanRows(
        common + ", name_id, event_id", RocmQuoted(rt), rt,
        [&](const SqliteArgs& a) {
          int64_t s, e;
          if (!interval(direct, a.I64(1), a.I64(2), &s, &e)) return;
          RocpdTrack tr = event_track(a, 0, 3, 4, 5, 6, 7);
          const RocpdEvent& ev = events.Get(a.I64(9));
          std::string_view category = strings_.Get(ev.category_id);
          if (rocm::IsMarkerDomain(category)) {
            model::RangeRow r;
            r.pid = tr.pid;
            r.tid = tr.tid;
            r.start_ns = s;
            r.end_ns = e;
            r.name = Str(a.I64(8));
            r.kind = model::RangeKind::kUserAnnotation;
            t_.ranges.Append(r);
            t_.ranges.domain.Set(t_.ranges.size() - 1, roctx);
            return;
          }
          model::ApiRow r;
          r.pid = tr.pid;
          r.tid = tr.tid;
          r.start_ns = s;
          r.end_ns = e;
          r.name = Str(a.I64(8));
          r.correlation_id = ev.correlation_id;
          r.kind = rocm::ApiKindOfDomain(category);
          t_.api_calls.Append(r);
        },
        &rows));
    if (scan_) scan_->api_rows += rows;
  }
  // PMC values: one series per device and counter, at the dispatch's end.
  std::string pmt = table("rocpd_pmc_event"), pit = table("rocpd_info_pmc");
  if (Has(pmt) && Has(pit)) {
    std::unordered_map<int64_t, std::string> pmc_name;
    RETURN_IF_ERROR(db_.ScanRows("id, name", RocmQuoted(pit), pit, [&](const SqliteArgs& a) {
      pmc_name[a.I64(0)] = std::string(a.Text(1));
    }, &rows));
    StringId source = t_.strings.Intern("rocprofv3 rocpd pmc");
    RETURN_IF_ERROR(db_.ScanRows("event_id, pmc_id, value", RocmQuoted(pmt), pmt,
                                 [&](const SqliteArgs& a) {
      auto d = dispatch_of_event.find(a.I64(0));
      auto n = pmc_name.find(a.I64(1));
      if (d == dispatch_of_event.end() || n == pmc_name.end()) {
        t_.stats.Bump(ImportStat::garbage_row);
        return;
      }
      auto key = std::make_pair(d->second.first, n->second);
      auto [it, added] = series_of_.try_emplace(key, t_.counters.size());
      if (added) {
        model::CounterSeries cs;
        cs.name = t_.strings.Intern(n->second);
        cs.unit = model::CounterUnit::kCount;
        cs.device_id = d->second.first;
        cs.source = source;
        t_.counters.push_back(std::move(cs));
      }
      double v = a.F64(2);
      if (v < 0) {  // counts are never negative: a wrapped or damaged value
        t_.stats.Bump(ImportStat::negative_value);
        v = kMissingF64;
      }
      t_.counters[it->second].ts_ns.push_back(d->second.second);
      t_.counters[it->second].value.push_back(v);
    }, &rows));
    if (scan_) scan_->pmc_rows += rows;
  }
  return Status::Ok();
}

Status RocpdReader::Run() {
  t_.info.format = "rocpd-sqlite";
  t_.info.clock = "rocprofiler";
  std::vector<std::string> sessions = RocpdSuffixes(db_, "rocpd_timestamp");
  for (const std::string& s : RocpdSuffixes(db_, "rocpd_info_agent"))
    if (std::find(sessions.begin(), sessions.end(), s) == sessions.end()) sessions.push_back(s);
  for (const std::string& s : sessions) RETURN_IF_ERROR(Session(s));
  // Schema version from the metadata table, when there.
  for (const std::string& s : RocpdSuffixes(db_, "rocpd_metadata")) {
    uint64_t rows = 0;
    std::string mt = "rocpd_metadata" + s;
    (void)db_.ScanRows("tag, value", RocmQuoted(mt), mt, [&](const SqliteArgs& a) {
      if (a.Text(0) == "schema_version") t_.info.format_version = "schema " + std::string(a.Text(1));
    }, &rows);
  }
  if (t_.kernels.size() + t_.memcpys.size() == 0) {
    return InvalidInput(fmt::format(
        "{}: rocprofv3 rocpd database with {} GPU agents, {} API calls and no kernel dispatch "
        "or memory copy: nothing to analyse (profile with --kernel-trace / --memory-copy-trace)",
        db_.path(), t_.devices.size(), t_.api_calls.size()));
  }
  return Status::Ok();
}

// ---- rocmProfileData RPD ---------------------------------------------------

class RpdReader {
 public:
  RpdReader(const SqliteDb& db, model::Trace& t, RocmSqliteScan* scan)
      : db_(db), t_(t), scan_(scan) {}
  Status Run();

 private:
  const SqliteDb& db_;
  model::Trace& t_;
  RocmSqliteScan* scan_;
};

Status RpdReader::Run() {
  t_.info.format = "rpd-sqlite";
  t_.info.clock = "rpd";
  uint64_t rows = 0;
  // Strings, interned on use.
  RocmIdVec<std::string> strings(std::string(), RocmCountRows(db_, "rocpd_string"));
  if (db_.HasTable("rocpd_string"))
    RETURN_IF_ERROR(db_.ScanRows("id, string", "rocpd_string", "rocpd_string",
                                 [&](const SqliteArgs& a) {
                                   if (!strings.Put(a.I64(0), std::string(a.Text(1))))
                                     t_.stats.Bump(ImportStat::garbage_row);
                                 },
                                 &rows));
  std::unordered_map<int64_t, StringId> interned;
  auto str = [&](int64_t id) {
    auto it = interned.find(id);
    if (it != interned.end()) return it->second;
    StringId s = t_.strings.Intern(rocm::StemOf(strings.Get(id)));
    interned.emplace(id, s);
    return s;
  };
  // Launch configuration per API row (grids are workgroups for
  // hipLaunchKernel, work-items for the module launches).
  struct Launch {
    int64_t grid[3] = {kMissingI64, kMissingI64, kMissingI64};
    int64_t wg[3] = {kMissingI64, kMissingI64, kMissingI64};
    int32_t lds = kMissingI32;
    int64_t stream = kMissingI64;
    bool work_items = false;
  };
  std::unordered_map<int64_t, Launch> launch;
  std::unordered_map<int64_t, int64_t> copy_bytes;
  std::unordered_map<int64_t, int64_t> op_api;  // op id -> api id
  if (db_.HasTable("rocpd_api_ops"))
    RETURN_IF_ERROR(db_.ScanRows("api_id, op_id", "rocpd_api_ops", "rocpd_api_ops",
                                 [&](const SqliteArgs& a) { op_api[a.I64(1)] = a.I64(0); }, &rows));
  // API calls (markers apart).
  std::unordered_map<int64_t, StringId> api_name;
  RETURN_IF_ERROR(db_.ScanRows(
      "id, pid, tid, start, \"end\", apiName_id, args_id", "rocpd_api", "rocpd_api",
      [&](const SqliteArgs& a) {
        int64_t s = a.I64(3), e = a.I64(4);
        if (!IsValid(s) || !IsValid(e) || !rocm::TimeOk(s) || !rocm::TimeOk(e)) {
          t_.stats.Bump(ImportStat::missing_ts);
          return;
        }
        if (e < s) {
          t_.stats.Bump(ImportStat::negative_dur);
          e = s;
        }
        std::string_view name = strings.Get(a.I64(5));
        if (name == "UserMarker") {
          model::RangeRow r;
          r.pid = a.I32(1);
          r.tid = a.I64(2);
          r.start_ns = s;
          r.end_ns = e;
          r.name = str(a.I64(6));
          r.kind = model::RangeKind::kUserAnnotation;
          t_.ranges.Append(r);
          return;
        }
        model::ApiRow r;
        r.pid = a.I32(1);
        r.tid = a.I64(2);
        r.start_ns = s;
        r.end_ns = e;
        r.name = str(a.I64(5));
        api_name[a.I64(0)] = r.name;
        r.correlation_id = a.I64(0);
        r.kind = model::ApiKind::kRuntime;
        t_.api_calls.Append(r);
      },
      &rows));
  if (scan_) scan_->api_rows += rows;
  if (db_.HasTable("rocpd_kernelapi"))
    RETURN_IF_ERROR(db_.ScanRows(
        "api_ptr_id, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize, "
        "stream",
        "rocpd_kernelapi", "rocpd_kernelapi",
        [&](const SqliteArgs& a) {
          Launch l;
          for (int i = 0; i < 3; ++i) {
            l.grid[i] = a.I64(1 + i);
            l.wg[i] = a.I64(4 + i);
          }
          l.lds = a.I32(7);
          l.stream = rocm::ParseI64(a.Text(8));
          auto n = api_name.find(a.I64(0));
          if (n != api_name.end()) {
            std::string_view api = t_.Str(n->second);
            l.work_items = api.find("ModuleLaunch") != std::string_view::npos;
          }
          launch[a.I64(0)] = l;
        },
        &rows));
  if (db_.HasTable("rocpd_copyapi"))
    RETURN_IF_ERROR(db_.ScanRows("api_ptr_id, size", "rocpd_copyapi", "rocpd_copyapi",
                                 [&](const SqliteArgs& a) { copy_bytes[a.I64(0)] = a.I64(1); },
                                 &rows));
  // GPU ops.
  RETURN_IF_ERROR(db_.ScanRows(
      "id, gpuId, queueId, start, \"end\", description_id, opType_id", "rocpd_op", "rocpd_op",
      [&](const SqliteArgs& a) {
        int64_t s = a.I64(3), e = a.I64(4);
        if (!IsValid(s) || !IsValid(e) || !rocm::TimeOk(s) || !rocm::TimeOk(e)) {
          t_.stats.Bump(ImportStat::missing_ts);
          return;
        }
        if (e < s) {
          t_.stats.Bump(ImportStat::negative_dur);
          e = s;
        }
        std::string_view type = strings.Get(a.I64(6));
        auto api = op_api.find(a.I64(0));
        int64_t corr = api == op_api.end() ? kMissingI64 : api->second;
        if (!IsValid(corr)) t_.stats.Bump(ImportStat::missing_correlation);
        if (type.find("Copy") != std::string_view::npos) {
          model::MemcpyRow m;
          m.start_ns = s;
          m.end_ns = e;
          m.device_id = a.I32(1);
          m.stream_id = a.I64(2);
          m.correlation_id = corr;
          m.copy_kind = rocm::CopyKindOfDirection(type);
          if (m.copy_kind == model::CopyKind::kUnknown)
            t_.stats.Bump(ImportStat::unknown_memcpy_kind);
          auto b = copy_bytes.find(corr);
          if (b != copy_bytes.end()) m.bytes = b->second;
          t_.memcpys.Append(m);
          if (scan_) ++scan_->copy_rows;
          return;
        }
        if (type == "FillBuffer" || type.find("Memset") != std::string_view::npos) {
          model::MemsetRow m;
          m.start_ns = s;
          m.end_ns = e;
          m.device_id = a.I32(1);
          m.stream_id = a.I64(2);
          m.correlation_id = corr;
          t_.memsets.Append(m);
          return;
        }
        model::KernelRow k;
        k.start_ns = s;
        k.end_ns = e;
        k.device_id = a.I32(1);
        k.stream_id = a.I64(2);
        k.correlation_id = corr;
        std::string_view desc = strings.Get(a.I64(5));
        k.name = str(desc.empty() ? a.I64(6) : a.I64(5));
        auto l = launch.find(corr);
        if (l != launch.end()) {
          int32_t* g[3] = {&k.grid_x, &k.grid_y, &k.grid_z};
          int32_t* b[3] = {&k.block_x, &k.block_y, &k.block_z};
          for (int i = 0; i < 3; ++i) {
            *b[i] = rocm::ClampI32(l->second.wg[i]);
            *g[i] = l->second.work_items ? rocm::Workgroups(l->second.grid[i], l->second.wg[i])
                                         : rocm::ClampI32(l->second.grid[i]);
          }
          k.shared_mem_bytes = l->second.lds;
          if (IsValid(l->second.stream)) k.stream_id = l->second.stream;
        }
        t_.kernels.Append(k);
        if (scan_) ++scan_->kernel_rows;
      },
      &rows));
  // sclk samples, one series per device.
  if (db_.HasTable("rocpd_monitor")) {
    std::map<int32_t, size_t> series;
    StringId source = t_.strings.Intern("rpd rocpd_monitor");
    RETURN_IF_ERROR(db_.ScanRows(
        "deviceId, monitorType, start, value", "rocpd_monitor", "rocpd_monitor",
        [&](const SqliteArgs& a) {
          if (a.Text(1) != "sclk") return;
          double v = rocm::ParseF64(a.Text(3));
          if (v < 0) {
            t_.stats.Bump(ImportStat::negative_value);
            v = kMissingF64;
          }
          int64_t ts = a.I64(2);
          if (!IsValid(ts) || !rocm::TimeOk(ts)) {
            t_.stats.Bump(ImportStat::missing_ts);
            return;
          }
          auto [it, added] = series.try_emplace(a.I32(0), t_.counters.size());
          if (added) {
            model::CounterSeries cs;
            cs.name = t_.strings.Intern("sclk");
            cs.kind = model::CounterKind::kSmClockMhz;
            cs.unit = model::CounterUnit::kMhz;
            cs.device_id = a.I32(0);
            cs.source = source;
            t_.counters.push_back(std::move(cs));
          }
          t_.counters[it->second].ts_ns.push_back(ts);
          t_.counters[it->second].value.push_back(v);
        },
        &rows));
  }
  if (t_.kernels.size() + t_.memcpys.size() + t_.memsets.size() == 0)
    return InvalidInput(fmt::format(
        "{}: rocmProfileData RPD with {} API calls and no GPU op (rocpd_op is empty): nothing "
        "to analyse",
        db_.path(), t_.api_calls.size()));
  return Status::Ok();
}

// ---- rocprof v1 results.db -------------------------------------------------

Status RocprofV1DbRead(const SqliteDb& db, model::Trace& t, RocmSqliteScan* scan) {
  t.info.format = "rocprof-v1-db";
  t.info.clock = "hsa_system";
  uint64_t rows = 0;
  auto interval = [&](const SqliteArgs& a, int64_t* s, int64_t* e) {
    *s = a.I64(0);
    *e = a.I64(1);
    if (!IsValid(*s) || !IsValid(*e) || !rocm::TimeOk(*s) || !rocm::TimeOk(*e)) {
      t.stats.Bump(ImportStat::missing_ts);
      return false;
    }
    if (*e < *s) {
      t.stats.Bump(ImportStat::negative_dur);
      *e = *s;
    }
    return true;
  };
  // GPU ops: OPS holds kernels (and copies in some releases), COPY copies.
  for (std::string_view table : {"OPS", "COPY", "KERN"}) {
    if (!db.HasTable(table)) continue;
    std::vector<std::string> cols = db.Columns(table);
    if (RocmSqlCol(cols, "BeginNs") == "NULL") continue;  // KERN with names only
    std::string args = fmt::format("BeginNs, EndNs, {}, {}, {}, {}, {}", RocmSqlCol(cols, "dev-id"),
                                   RocmSqlCol(cols, "queue-id"), RocmSqlCol(cols, "Name"),
                                   RocmSqlCol(cols, "Index"), RocmSqlCol(cols, "pid"));
    RETURN_IF_ERROR(db.ScanRows(args, RocmQuoted(table), table, [&](const SqliteArgs& a) {
      int64_t s, e;
      if (!interval(a, &s, &e)) return;
      std::string_view name = a.Text(4);
      model::CopyKind kind = rocm::CopyKindOfDirection(name);
      if (table == "COPY" || kind != model::CopyKind::kUnknown) {
        model::MemcpyRow m;
        m.start_ns = s;
        m.end_ns = e;
        m.device_id = a.I32(2);
        m.stream_id = a.I64(3);
        m.copy_kind = kind;
        if (kind == model::CopyKind::kUnknown) t.stats.Bump(ImportStat::unknown_memcpy_kind);
        m.correlation_id = a.I64(5);
        m.pid = a.I32(6);
        t.memcpys.Append(m);
        if (scan) ++scan->copy_rows;
        return;
      }
      model::KernelRow k;
      k.start_ns = s;
      k.end_ns = e;
      k.device_id = a.I32(2);
      k.stream_id = a.I64(3);
      k.name = t.strings.Intern(rocm::StemOf(name));
      k.correlation_id = a.I64(5);
      t.kernels.Append(k);
      if (IsValid(a.I32(6))) t.kernels.pid.Set(t.kernels.size() - 1, a.I32(6));
      if (scan) ++scan->kernel_rows;
    }, &rows));
  }
  for (std::string_view table : {"HIP", "HSA"}) {
    if (!db.HasTable(table)) continue;
    std::vector<std::string> cols = db.Columns(table);
    std::string args = fmt::format("{}, {}, {}, {}, {}, {}", RocmSqlCol(cols, "BeginNs"),
                                   RocmSqlCol(cols, "EndNs"), RocmSqlCol(cols, "pid"),
                                   RocmSqlCol(cols, "tid"), RocmSqlCol(cols, "Name"),
                                   RocmSqlCol(cols, "Index"));
    RETURN_IF_ERROR(db.ScanRows(args, RocmQuoted(table), table, [&](const SqliteArgs& a) {
      int64_t s, e;
      if (!interval(a, &s, &e)) return;
      model::ApiRow r;
      r.start_ns = s;
      r.end_ns = e;
      r.pid = a.I32(2);
      r.tid = a.I64(3);
      r.name = t.strings.Intern(a.Text(4));
      r.correlation_id = a.I64(5);
      r.kind = table == "HIP" ? model::ApiKind::kRuntime : model::ApiKind::kDriver;
      t.api_calls.Append(r);
      if (scan) ++scan->api_rows;
    }, &rows));
  }
  if (t.kernels.size() + t.memcpys.size() == 0)
    return InvalidInput(fmt::format(
        "{}: rocprof v1 results.db with {} API calls and no kernel or copy row (OPS / COPY "
        "empty): nothing to analyse",
        db.path(), t.api_calls.size()));
  return Status::Ok();
}

Status ReadRocmDb(const SqliteDb& db, model::Trace& trace, RocmSqliteScan* scan) {
  SqliteKind kind = ClassifySqlite(db);
  switch (kind) {
    case SqliteKind::kRocpd: {
      RocpdReader r(db, trace, scan);
      RETURN_IF_ERROR(r.Run());
      break;
    }
    case SqliteKind::kRpd: {
      RpdReader r(db, trace, scan);
      RETURN_IF_ERROR(r.Run());
      break;
    }
    case SqliteKind::kRocprofV1: RETURN_IF_ERROR(RocprofV1DbRead(db, trace, scan)); break;
    default:
      return InvalidInput(fmt::format("{}: SQLite database is not a rocpd, RPD or rocprof v1 "
                                      "results.db ({})",
                                      db.path(), SqliteKindName(kind)));
  }
  trace.Finalize();
  for (model::Device& d : trace.devices) d.vendor = model::Vendor::kAmd;
  return Status::Ok();
}

}  // namespace

Status ReadRocmSqlite(const std::string& path, model::Trace& trace, RocmSqliteScan* scan) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  RETURN_IF_ERROR(ReadRocmDb(db, trace, scan));
  trace.info.source_path = path;
  return Status::Ok();
}

Status ReadRocmSqliteImage(std::string_view bytes, const std::string& name, model::Trace& trace) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenImage(bytes, name));
  return ReadRocmDb(db, trace, nullptr);
}

bool RocpdImporter::Sniff(const SourceInfo& src) const {
  return SqliteKindOfSource(src) == SqliteKind::kRocpd;
}
bool RpdImporter::Sniff(const SourceInfo& src) const {
  return SqliteKindOfSource(src) == SqliteKind::kRpd;
}
bool RocprofV1DbImporter::Sniff(const SourceInfo& src) const {
  return SqliteKindOfSource(src) == SqliteKind::kRocprofV1;
}

}  // namespace gpuwhy::import
