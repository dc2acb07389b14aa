#include "import/rocm/rocm_sqlite_importer.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <functional>
#include <map>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/nsys/sqlite_db.h"
#include "import/nsys/sqlite_page_reader.h"
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
  RocmIdVec(T missing, uint64_t rows) : missing_(missing), cap_(rows * 4 + 4096) {
    v_.reserve(static_cast<size_t>(std::min<uint64_t>(rows + 1, uint64_t{1} << 26)));
  }
  bool Put(int64_t id, T v) {
    if (!IsValid(id) || id < 0 || static_cast<uint64_t>(id) >= cap_) return false;
    const auto i = static_cast<size_t>(id);
    if (i == v_.size()) {  // the usual case: ids dense and in order
      v_.push_back(std::move(v));
      return true;
    }
    if (i > v_.size()) v_.resize(i + 1, missing_);
    v_[i] = std::move(v);
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

// RocmCountRows: a size hint for the id-indexed arrays of `table`: its
// largest rowid (a B-tree descent, not a scan), or its row count for a view.
uint64_t RocmCountRows(const SqliteDb& db, const std::string& table) {
  for (const char* q : {"SELECT max(rowid) FROM {}", "SELECT count(*) FROM {}"}) {
    std::string sql = fmt::format(fmt::runtime(q), RocmQuoted(table));
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) continue;
    SqliteStmt st(raw);
    if (st.Step() != SQLITE_ROW) continue;
    int64_t n = st.I64(0);
    if (IsValid(n) && n >= 0) return static_cast<uint64_t>(n);
  }
  return 0;
}

// RocmRequire: an error naming the first of `cols` that `table` lacks (a
// table of the right name but another layout), else OK.
Status RocmRequire(const SqliteDb& db, const std::string& table,
                   std::initializer_list<std::string_view> cols, std::string_view what) {
  std::vector<std::string> have = db.Columns(table);
  for (std::string_view c : cols)
    if (RocmSqlCol(have, c) == "NULL")
      return InvalidInput(fmt::format("{}: {} table {} has no column {}: not the layout gpuwhy "
                                      "reads",
                                      db.path(), what, OneLine(table, 80), c));
  return Status::Ok();
}

// RocmInts: one row of integer columns (NULL = kMissingI64), from the page
// reader or from SQL.
struct RocmInts {
  const int64_t* v;
  int64_t I64(int i) const { return v[i]; }
  int32_t I32(int i) const { return rocm::ClampI32(v[i]); }
};

// RocmScanInts: every row of `table` as the integer columns `cols` (a name
// the table lacks reads NULL), in rowid order. Read straight from the B-tree
// pages (SqlitePageReader, as the nsys reader reads its kernels) when the
// layout allows; otherwise, or when the page reader gives up midway after
// `undo` has dropped what it handed over, through SQL (SqliteDb::ScanRows).
template <typename Fn>
Status RocmScanInts(const SqliteDb& db, const std::string& table,
                    const std::vector<std::string>& cols, Fn&& fn,
                    const std::function<void()>& undo, uint64_t* rows) {
  std::vector<std::string_view> names(cols.begin(), cols.end());
  Result<PageTablePlan> plan = PlanIntTable(db.get(), table, names);
  if (plan.ok()) {
    Result<SqlitePageReader> pages = db.in_memory()
                                         ? SqlitePageReader::OpenImage(ImageOf(db.get()))
                                         : SqlitePageReader::OpenFile(db.path());
    if (pages.ok()) {
      const size_t n = cols.size();
      Status st = pages->ScanInts(
          *plan,
          [&](const int64_t* v, size_t n_rows) {
            for (size_t i = 0; i < n_rows; ++i) fn(RocmInts{v + i * n});
          },
          rows);
      if (st.ok()) return st;
      if (undo) undo();
    }
  }
  std::vector<std::string> have = db.Columns(table);
  std::string args;
  for (const std::string& c : cols) args += (args.empty() ? "" : ", ") + RocmSqlCol(have, c);
  std::vector<int64_t> buf(cols.size());
  return db.ScanRows(
      args, RocmQuoted(table), table,
      [&](const SqliteArgs& a) {
        for (size_t i = 0; i < buf.size(); ++i) buf[i] = a.I64(static_cast<int>(i));
        fn(RocmInts{buf.data()});
      },
      rows);
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
    const StringId kUnset = ~StringId{0};
    if (!IsValid(id)) return kEmptyString;
    StringId s = interned_.Get(id);
    if (s != kUnset) return s;
    s = t_.strings.Intern(strings_.Get(id));
    interned_.Put(id, s);
    return s;
  }

  const SqliteDb& db_;
  model::Trace& t_;
  RocmSqliteScan* scan_;
  RocmIdVec<std::string> strings_{std::string(), 0};
  uint64_t strings_size_hint_ = 0;
  RocmIdVec<StringId> interned_{~StringId{0}, 0};
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
    uint64_t n_strings = RocmCountRows(db_, st);
    strings_size_hint_ = n_strings;
    strings_ = RocmIdVec<std::string>(std::string(), n_strings);
    interned_ = RocmIdVec<StringId>(~StringId{0}, n_strings);
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
  // A page scan that gives up midway is read again through SQL: the stats it
  // bumped are put back first (id-indexed arrays are simply overwritten).
  model::ImportStats stats_before = t_.stats;
  std::function<void()> restore_stats = [&] { t_.stats = stats_before; };
  auto mark = [&] { stats_before = t_.stats; };
  // Tracks.
  std::string trt = table("rocpd_track");
  RocmIdVec<RocpdTrack> tracks(RocpdTrack{}, Has(trt) ? RocmCountRows(db_, trt) : 0);
  mark();
  if (Has(trt))
    RETURN_IF_ERROR(RocmScanInts(
        db_, trt, {"id", "pid", "tid", "agent_id", "queue_id", "stream_id"},
        [&](const RocmInts& a) {
          RocpdTrack k;
          auto p = pid_of.find(a.I64(1));
          k.pid = p != pid_of.end() ? p->second : a.I32(1);
          auto th = tid_of.find(a.I64(2));
          k.tid = th != tid_of.end() ? th->second : a.I64(2);
          k.device = device(a.I64(3));
          k.stream = IsValid(a.I64(5)) ? a.I64(5) : a.I64(4);
          if (!tracks.Put(a.I64(0), k)) t_.stats.Bump(ImportStat::garbage_row);
        },
        restore_stats, &rows));
  // EventTrack: the track of a row, from its track_id or its own columns.
  // The last (agent, pid, tid) row ids resolved: consecutive rows repeat them.
  int64_t last_agent = kMissingI64, last_pid = kMissingI64, last_tid = kMissingI64;
  int32_t last_device = kMissingI32, last_pid_v = kMissingI32;
  int64_t last_tid_v = kMissingI64;
  auto event_track = [&](const RocmInts& a, int track, int agent, int queue, int stream, int pid,
                         int tid) {
    RocpdTrack k = tracks.Get(a.I64(track));
    if (!IsValid(k.device) && IsValid(a.I64(agent))) {
      if (a.I64(agent) != last_agent) {
        last_agent = a.I64(agent);
        last_device = device(last_agent);
      }
      k.device = last_device;
    }
    if (!IsValid(k.stream)) k.stream = IsValid(a.I64(stream)) ? a.I64(stream) : a.I64(queue);
    if (!IsValid(k.pid) && IsValid(a.I64(pid))) {
      if (a.I64(pid) != last_pid) {
        last_pid = a.I64(pid);
        auto p = pid_of.find(last_pid);
        last_pid_v = p != pid_of.end() ? p->second : a.I32(pid);
      }
      k.pid = last_pid_v;
    }
    if (!IsValid(k.tid) && IsValid(a.I64(tid))) {
      if (a.I64(tid) != last_tid) {
        last_tid = a.I64(tid);
        auto th = tid_of.find(last_tid);
        last_tid_v = th != tid_of.end() ? th->second : a.I64(tid);
      }
      k.tid = last_tid_v;
    }
    return k;
  };
  Status layout_error;
  // Columns of an event table: "start_id" (track layout) or "start" (direct).
  auto layout = [&](const std::string& tbl, bool* direct) {
    std::vector<std::string> cols = db_.Columns(tbl);
    *direct = RocmSqlCol(cols, "start_id") == "NULL";
    layout_error = RocmRequire(db_, tbl, {*direct ? "start" : "start_id", *direct ? "end" : "end_id"},
                               "rocpd");
    return std::vector<std::string>{"track_id", *direct ? "start" : "start_id",
                                    *direct ? "end" : "end_id", "agent_id", "queue_id",
                                    "stream_id", "pid", "tid"};
  };
  // Timestamps: the largest table after the events; read once into an array.
  std::string tst = table("rocpd_timestamp");
  uint64_t ts_rows = Has(tst) ? RocmCountRows(db_, tst) : 0;
  RocmIdVec<int64_t> ts(kMissingI64, ts_rows);
  mark();
  if (Has(tst))
    RETURN_IF_ERROR(RocmScanInts(db_, tst, {"id", "value"}, [&](const RocmInts& a) {
      int64_t v = a.I64(1);
      if (IsValid(v) && !rocm::TimeOk(v)) {
        t_.stats.Bump(ImportStat::time_out_of_range);
        return;
      }
      if (!ts.Put(a.I64(0), v)) t_.stats.Bump(ImportStat::garbage_row);
    }, restore_stats, &rows));
  if (scan_) scan_->timestamp_rows += rows;
  // Events: correlation ids and categories.
  std::string et = table("rocpd_event");
  RocmIdVec<RocpdEvent> events(RocpdEvent{}, Has(et) ? RocmCountRows(db_, et) : 0);
  // The event table is as long as the dispatch and region tables together:
  // a file is read on a second thread over its own connection while the
  // dispatches are read here (they keep their event id until the join).
  uint64_t event_garbage = 0;
  Status event_status;
  auto read_events = [&, et](const SqliteDb& db) {
    uint64_t n = 0;
    event_garbage = 0;
    event_status = RocmScanInts(
        db, et, {"id", "correlation_id", "category_id"},
        [&](const RocmInts& a) {
          if (!events.Put(a.I64(0), {a.I64(1), a.I64(2)})) ++event_garbage;
        },
        [&] { event_garbage = 0; }, &n);
  };
  struct RocpdJoin {
    std::thread th;
    ~RocpdJoin() {
      if (th.joinable()) th.join();
    }
  } event_thread;
  bool events_pending = false;
  if (Has(et)) {
    if (!db_.in_memory() && std::thread::hardware_concurrency() >= 2) {
      events_pending = true;
      event_thread.th = std::thread([&, read_events] {
        Result<SqliteDb> own = SqliteDb::OpenReadOnly(db_.path());
        if (!own.ok()) {
          event_status = own.status();
          return;
        }
        read_events(*own);
      });
    } else {
      read_events(db_);
    }
  }
  auto join_events = [&]() -> Status {
    if (event_thread.th.joinable()) event_thread.th.join();
    t_.stats.Bump(ImportStat::garbage_row, event_garbage);
    event_garbage = 0;
    return event_status;
  };
  if (!events_pending) RETURN_IF_ERROR(join_events());
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
  // PMC values name their dispatch's event: kept only when there are some.
  bool want_pmc = Has(table("rocpd_pmc_event")) && Has(table("rocpd_info_pmc"));
  std::unordered_map<int64_t, std::pair<int32_t, int64_t>> dispatch_of_event;  // -> device, end
  std::string kdt = table("rocpd_kernel_dispatch");
  const size_t kernels_first = t_.kernels.size();
  if (Has(kdt)) {
    bool direct = false;
    std::vector<std::string> cols = layout(kdt, &direct);
    RETURN_IF_ERROR(layout_error);
    for (const char* c : {"kernel_id", "group_segment_size", "workgroup_size_x",
                          "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y",
                          "grid_size_z", "event_id"})
      cols.emplace_back(c);
    mark();
    model::KernelTable kernels_before = t_.kernels;
    RETURN_IF_ERROR(RocmScanInts(
        db_, kdt, cols,
        [&](const RocmInts& a) {
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
          k.correlation_id = event;  // the event's correlation id after the join
          t_.kernels.Append(k);
          if (IsValid(tr.pid)) t_.kernels.pid.Set(t_.kernels.size() - 1, tr.pid);
          if (IsValid(event) && want_pmc) dispatch_of_event[event] = {k.device_id, k.end_ns};
        },
        [&] {
          restore_stats();
          t_.kernels = kernels_before;
          dispatch_of_event.clear();
        },
        &rows));
    if (scan_) scan_->kernel_rows += rows;
  }
  RETURN_IF_ERROR(join_events());
  for (size_t i = kernels_first; i < t_.kernels.size(); ++i) {
    int64_t& c = t_.kernels.correlation_id[i];
    c = events.Get(c).correlation_id;
    if (!IsValid(c)) t_.stats.Bump(ImportStat::missing_correlation);
  }
  // Memory copies.
  std::string mct = table("rocpd_memory_copy");
  if (Has(mct)) {
    bool direct = false;
    std::vector<std::string> cols = layout(mct, &direct);
    RETURN_IF_ERROR(layout_error);
    for (const char* c : {"name_id", "dst_agent_id", "src_agent_id", "size", "event_id"})
      cols.emplace_back(c);
    mark();
    model::MemcpyTable copies_before = t_.memcpys;
    RETURN_IF_ERROR(RocmScanInts(
        db_, mct, cols,
        [&](const RocmInts& a) {
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
        [&] {
          restore_stats();
          t_.memcpys = copies_before;
        },
        &rows));
    if (scan_) scan_->copy_rows += rows;
  }
  // Categories, classified once per string id.
  RocmIdVec<int8_t> category_class(-1, strings_size_hint_);
  auto category_code = [&](int64_t id) -> int8_t {
    int8_t c = category_class.Get(id);
    if (c >= 0) return c;
    std::string_view name = strings_.Get(id);
    c = rocm::IsMarkerDomain(name) ? 10 : static_cast<int8_t>(rocm::ApiKindOfDomain(name));
    category_class.Put(id, c);
    return c;
  };
  auto is_marker = [&](int64_t id) { return category_code(id) == 10; };
  auto category_kind = [&](int64_t id) { return static_cast<model::ApiKind>(category_code(id)); };
  // Regions: HIP / HSA API calls, roctx markers.
  std::string rt = table("rocpd_region");
  if (Has(rt)) {
    StringId roctx = t_.strings.Intern("roctx");
    bool direct = false;
    std::vector<std::string> cols = layout(rt, &direct);
    RETURN_IF_ERROR(layout_error);
    cols.emplace_back("name_id");
    cols.emplace_back("event_id");
    mark();
    model::ApiTable api_before = t_.api_calls;
    model::RangeTable ranges_before = t_.ranges;
    RETURN_IF_ERROR(RocmScanInts(
        db_, rt, cols,
        [&](const RocmInts& a) {
          int64_t s, e;
          if (!interval(direct, a.I64(1), a.I64(2), &s, &e)) return;
          RocpdTrack tr = event_track(a, 0, 3, 4, 5, 6, 7);
          const RocpdEvent& ev = events.Get(a.I64(9));
          if (is_marker(ev.category_id)) {
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
          r.kind = category_kind(ev.category_id);
          t_.api_calls.Append(r);
        },
        [&] {
          restore_stats();
          t_.api_calls = api_before;
          t_.ranges = ranges_before;
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
  uint64_t n_strings = RocmCountRows(db_, "rocpd_string");
  RocmIdVec<std::string> strings(std::string(), n_strings);
  if (db_.HasTable("rocpd_string"))
    RETURN_IF_ERROR(db_.ScanRows("id, string", "rocpd_string", "rocpd_string",
                                 [&](const SqliteArgs& a) {
                                   if (!strings.Put(a.I64(0), std::string(a.Text(1))))
                                     t_.stats.Bump(ImportStat::garbage_row);
                                 },
                                 &rows));
  const StringId kUnset = ~StringId{0};
  RocmIdVec<StringId> interned(kUnset, n_strings);
  auto str = [&](int64_t id) {
    StringId s = interned.Get(id);
    if (s != kUnset) return s;
    s = t_.strings.Intern(rocm::StemOf(strings.Get(id)));
    interned.Put(id, s);
    return s;
  };
  // What a string names, classified once per id: 1 UserMarker, 2 a module
  // launch (grids in work-items), 3 a copy op, 4 a fill / memset op, 0 other.
  RocmIdVec<int8_t> klass(-1, n_strings);
  auto kind = [&](int64_t id) -> int8_t {
    int8_t k = klass.Get(id);
    if (k >= 0) return k;
    std::string_view n = strings.Get(id);
    auto has = [&](std::string_view x) { return n.find(x) != std::string_view::npos; };
    k = n == "UserMarker"                     ? 1
        : has("ModuleLaunch")                 ? 2
        : has("Copy")                         ? 3
        : (n == "FillBuffer" || has("Memset")) ? 4
                                              : 0;
    klass.Put(id, k);
    return k;
  };
  model::ImportStats stats_before = t_.stats;
  std::function<void()> restore_stats = [&] { t_.stats = stats_before; };
  auto mark = [&] { stats_before = t_.stats; };
  auto interval = [&](int64_t s, int64_t* e) {
    if (!IsValid(s) || !IsValid(*e) || !rocm::TimeOk(s) || !rocm::TimeOk(*e)) {
      t_.stats.Bump(ImportStat::missing_ts);
      return false;
    }
    if (*e < s) {
      t_.stats.Bump(ImportStat::negative_dur);
      *e = s;
    }
    return true;
  };
  // API calls (markers apart); a call's name decides how its grid reads.
  RETURN_IF_ERROR(RocmRequire(db_, "rocpd_api", {"id", "start", "end", "apiName_id"}, "RPD"));
  RETURN_IF_ERROR(
      RocmRequire(db_, "rocpd_op", {"id", "gpuId", "start", "end", "opType_id"}, "RPD"));
  uint64_t n_api = RocmCountRows(db_, "rocpd_api");
  RocmIdVec<int8_t> api_module(0, n_api);
  mark();
  model::ApiTable api_before = t_.api_calls;
  model::RangeTable ranges_before = t_.ranges;
  RETURN_IF_ERROR(RocmScanInts(
      db_, "rocpd_api", {"id", "pid", "tid", "start", "end", "apiName_id", "args_id"},
      [&](const RocmInts& a) {
        int64_t s = a.I64(3), e = a.I64(4);
        if (!interval(s, &e)) return;
        int8_t k = kind(a.I64(5));
        if (k == 1) {
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
        if (k == 2) api_module.Put(a.I64(0), 1);
        r.correlation_id = a.I64(0);
        r.kind = model::ApiKind::kRuntime;
        t_.api_calls.Append(r);
      },
      [&] {
        restore_stats();
        t_.api_calls = api_before;
        t_.ranges = ranges_before;
      },
      &rows));
  if (scan_) scan_->api_rows += rows;
  // Launch configuration per API row (hipLaunchKernel grids are workgroups,
  // module launches' work-items).
  struct Launch {
    int32_t grid[3] = {kMissingI32, kMissingI32, kMissingI32};
    int32_t wg[3] = {kMissingI32, kMissingI32, kMissingI32};
    int32_t lds = kMissingI32;
    bool set = false;
  };
  RocmIdVec<Launch> launch(Launch{}, n_api);
  if (db_.HasTable("rocpd_kernelapi"))
    RETURN_IF_ERROR(RocmScanInts(
        db_, "rocpd_kernelapi",
        {"api_ptr_id", "gridX", "gridY", "gridZ", "workgroupX", "workgroupY", "workgroupZ",
         "groupSegmentSize"},
        [&](const RocmInts& a) {
          Launch l;
          bool items = api_module.Get(a.I64(0)) == 1;
          for (int i = 0; i < 3; ++i) {
            l.wg[i] = a.I32(4 + i);
            l.grid[i] = items ? rocm::Workgroups(a.I64(1 + i), a.I64(4 + i)) : a.I32(1 + i);
          }
          l.lds = a.I32(7);
          l.set = true;
          launch.Put(a.I64(0), l);
        },
        nullptr, &rows));
  RocmIdVec<int64_t> copy_bytes(kMissingI64, n_api);
  if (db_.HasTable("rocpd_copyapi"))
    RETURN_IF_ERROR(RocmScanInts(
        db_, "rocpd_copyapi", {"api_ptr_id", "size"},
        [&](const RocmInts& a) { copy_bytes.Put(a.I64(0), a.I64(1)); }, nullptr, &rows));
  uint64_t n_ops = RocmCountRows(db_, "rocpd_op");
  RocmIdVec<int64_t> op_api(kMissingI64, n_ops);  // op id -> api id
  if (db_.HasTable("rocpd_api_ops"))
    RETURN_IF_ERROR(RocmScanInts(
        db_, "rocpd_api_ops", {"api_id", "op_id"},
        [&](const RocmInts& a) { op_api.Put(a.I64(1), a.I64(0)); }, nullptr, &rows));
  // GPU ops.
  mark();
  model::KernelTable kernels_before = t_.kernels;
  model::MemcpyTable copies_before = t_.memcpys;
  model::MemsetTable memsets_before = t_.memsets;
  RocmSqliteScan scan_before = scan_ ? *scan_ : RocmSqliteScan{};
  RETURN_IF_ERROR(RocmScanInts(
      db_, "rocpd_op", {"id", "gpuId", "queueId", "start", "end", "description_id", "opType_id"},
      [&](const RocmInts& a) {
        int64_t s = a.I64(3), e = a.I64(4);
        if (!interval(s, &e)) return;
        int8_t type = kind(a.I64(6));
        int64_t corr = op_api.Get(a.I64(0));
        if (!IsValid(corr)) t_.stats.Bump(ImportStat::missing_correlation);
        if (type == 3) {
          model::MemcpyRow m;
          m.start_ns = s;
          m.end_ns = e;
          m.device_id = a.I32(1);
          m.stream_id = a.I64(2);
          m.correlation_id = corr;
          m.copy_kind = rocm::CopyKindOfDirection(strings.Get(a.I64(6)));
          if (m.copy_kind == model::CopyKind::kUnknown)
            t_.stats.Bump(ImportStat::unknown_memcpy_kind);
          m.bytes = copy_bytes.Get(corr);
          t_.memcpys.Append(m);
          if (scan_) ++scan_->copy_rows;
          return;
        }
        if (type == 4) {
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
        k.name = str(strings.Get(a.I64(5)).empty() ? a.I64(6) : a.I64(5));
        const Launch& l = launch.Get(corr);
        if (l.set) {
          k.grid_x = l.grid[0];
          k.grid_y = l.grid[1];
          k.grid_z = l.grid[2];
          k.block_x = l.wg[0];
          k.block_y = l.wg[1];
          k.block_z = l.wg[2];
          k.shared_mem_bytes = l.lds;
        }
        t_.kernels.Append(k);
        if (scan_) ++scan_->kernel_rows;
      },
      [&] {
        restore_stats();
        t_.kernels = kernels_before;
        t_.memcpys = copies_before;
        t_.memsets = memsets_before;
        if (scan_) *scan_ = scan_before;
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

// RocprofV1Interval: BeginNs/EndNs (args 0 and 1) checked; false (counted in
// `stats`) when the row has no usable interval.
bool RocprofV1Interval(const SqliteArgs& a, model::ImportStats& stats, int64_t* s, int64_t* e) {
  *s = a.I64(0);
  *e = a.I64(1);
  if (!IsValid(*s) || !IsValid(*e) || !rocm::TimeOk(*s) || !rocm::TimeOk(*e)) {
    stats.Bump(ImportStat::missing_ts);
    return false;
  }
  if (*e < *s) {
    stats.Bump(ImportStat::negative_dur);
    *e = *s;
  }
  return true;
}

// RocprofV1Api: the HIP and HSA tables of `db` into `t`'s API rows.
Status RocprofV1Api(const SqliteDb& db, model::Trace& t, uint64_t* api_rows, uint64_t* rows) {
  for (std::string_view table : {"HIP", "HSA"}) {
    if (!db.HasTable(table)) continue;
    std::vector<std::string> cols = db.Columns(table);
    std::string args = fmt::format("{}, {}, {}, {}, {}, {}", RocmSqlCol(cols, "BeginNs"),
                                   RocmSqlCol(cols, "EndNs"), RocmSqlCol(cols, "pid"),
                                   RocmSqlCol(cols, "tid"), RocmSqlCol(cols, "Name"),
                                   RocmSqlCol(cols, "Index"));
    RETURN_IF_ERROR(db.ScanRows(args, RocmQuoted(table), table, [&](const SqliteArgs& a) {
      int64_t s, e;
      if (!RocprofV1Interval(a, t.stats, &s, &e)) return;
      model::ApiRow r;
      r.start_ns = s;
      r.end_ns = e;
      r.pid = a.I32(2);
      r.tid = a.I64(3);
      r.name = t.strings.Intern(a.Text(4));
      r.correlation_id = a.I64(5);
      r.kind = table == "HIP" ? model::ApiKind::kRuntime : model::ApiKind::kDriver;
      t.api_calls.Append(r);
      ++*api_rows;
    }, rows));
  }
  return Status::Ok();
}

Status RocprofV1DbRead(const SqliteDb& db, model::Trace& t, RocmSqliteScan* scan) {
  t.info.format = "rocprof-v1-db";
  t.info.clock = "hsa_system";
  uint64_t rows = 0;
  // The API tables are as long as the GPU-op tables (one call per launch):
  // on a file and two cores a second connection reads them meanwhile into a
  // part that is appended after the GPU ops, which is where one pass puts
  // them (tables are separate, strings interned in the same order).
  struct ApiPart {
    model::Trace part;
    uint64_t api_rows = 0, rows = 0;
    Status status;
    std::thread th;
    ~ApiPart() {
      if (th.joinable()) th.join();
    }
  } api;
  if (!db.in_memory() && std::thread::hardware_concurrency() >= 2 &&
      (db.HasTable("HIP") || db.HasTable("HSA"))) {
    try {
      api.th = std::thread([&api, path = db.path()] {
        Result<SqliteDb> own = SqliteDb::OpenReadOnly(path);
        api.status = own.ok() ? RocprofV1Api(*own, api.part, &api.api_rows, &api.rows) : own.status();
      });
    } catch (const std::system_error&) {
      // No thread to be had: one pass below.
    }
  }
  // GPU ops: OPS holds kernels (and copies in some releases), COPY copies.
  Status ops_status = [&]() -> Status {
    for (std::string_view table : {"OPS", "COPY", "KERN"}) {
      if (!db.HasTable(table)) continue;
      std::vector<std::string> cols = db.Columns(table);
      if (RocmSqlCol(cols, "BeginNs") == "NULL") continue;  // KERN with names only
      std::string args = fmt::format("BeginNs, EndNs, {}, {}, {}, {}, {}", RocmSqlCol(cols, "dev-id"),
                                     RocmSqlCol(cols, "queue-id"), RocmSqlCol(cols, "Name"),
                                     RocmSqlCol(cols, "Index"), RocmSqlCol(cols, "pid"));
      RETURN_IF_ERROR(db.ScanRows(args, RocmQuoted(table), table, [&](const SqliteArgs& a) {
        int64_t s, e;
        if (!RocprofV1Interval(a, t.stats, &s, &e)) return;
        std::string_view name = a.Text(4);
        // Kernel names are long: only a Copy* name can be a copy.
        model::CopyKind kind = (table == "COPY" || name.rfind("Copy", 0) == 0)
                                   ? rocm::CopyKindOfDirection(name)
                                   : model::CopyKind::kUnknown;
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
    return Status::Ok();
  }();
  uint64_t api_rows = 0;
  if (api.th.joinable()) {
    api.th.join();
    RETURN_IF_ERROR(ops_status);  // the error one pass would have met first
    RETURN_IF_ERROR(api.status);
    std::vector<StringId> remap;
    t.strings.InternAll(api.part.strings, &remap);
    t.AppendEventsFrom(api.part, remap);
    t.stats.Merge(api.part.stats);
    api_rows = api.api_rows;
    rows += api.rows;
  } else {
    RETURN_IF_ERROR(ops_status);
    RETURN_IF_ERROR(RocprofV1Api(db, t, &api_rows, &rows));
  }
  if (scan) scan->api_rows += api_rows;
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
