#include "import/nsys/nsys_importer.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <limits>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/nsys/sqlite_db.h"
#include "import/nsys/sqlite_page_reader.h"
#include "import/sqlite_kind.h"

namespace gpuwhy::import {

using model::ApiKind;
using model::CopyKind;
using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;
using model::MemoryKind;
using model::MigrationCause;
using model::RangeKind;
using model::SyncKind;

bool LooksLikeSqlite(std::string_view prefix) {
  static constexpr char kMagic[] = "SQLite format 3";  // followed by a NUL in the header
  return prefix.size() >= sizeof(kMagic) && std::memcmp(prefix.data(), kMagic, sizeof(kMagic)) == 0;
}

bool NsysImporter::Sniff(const SourceInfo& src) const {
  SqliteKind kind = SqliteKindOfSource(src);
  return kind == SqliteKind::kNsys || kind == SqliteKind::kOther;
}

namespace {

// Pid/tid of an nsys globalTid / globalPid: (vm << 48) | (pid << 24) | tid.
int32_t PidOf(int64_t global) {
  return IsValid(global) ? static_cast<int32_t>((global >> 24) & 0xFFFFFF) : kMissingI32;
}
int64_t TidOf(int64_t global) { return IsValid(global) ? (global & 0xFFFFFF) : kMissingI64; }

// nsys copy kinds 0..13 (CUPTI's 0..10, then Unified HtoD/DtoH/DtoD) are the
// model's values.
CopyKind CopyKindOf(int64_t v) {
  if (v >= 0 && v <= 13) return static_cast<CopyKind>(v);
  return CopyKind::kUnknown;
}

// ENUM_CUDA_UNIF_MEM_MIGRATION 0..5 are the model's values.
MigrationCause MigrationCauseOf(int64_t v) {
  if (v >= 0 && v <= 5) return static_cast<MigrationCause>(v);
  return MigrationCause::kUnknown;
}

// nsys ENUM_CUDA_MEM_KIND: 0 Pageable, 1 Pinned, 2 Device, 3 Array, 4 Managed,
// 5 Device Static, 6 Managed Static, 7 Unknown; the model counts from 1.
MemoryKind MemKindOf(int64_t v) {
  if (v >= 0 && v <= 6) return static_cast<MemoryKind>(v + 1);
  return MemoryKind::kUnknown;
}

SyncKind SyncKindOf(int64_t v) {
  if (v >= 1 && v <= 4) return static_cast<SyncKind>(v);
  return SyncKind::kUnknown;
}

// RepairUtf8: `s` with every invalid UTF-8 sequence replaced by U+FFFD.
// Returns false (and leaves `out` untouched) when `s` is already valid.
bool RepairUtf8(std::string_view s, std::string* out) {
  auto valid_at = [&](size_t i, size_t* len) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) { *len = 1; return true; }
    if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
    else return false;
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid too.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    *len = n;
    return true;
  };
  size_t i = 0, len = 0;
  while (i < s.size() && valid_at(i, &len)) i += len;
  if (i == s.size()) return false;
  out->assign(s.substr(0, i));
  while (i < s.size()) {
    if (valid_at(i, &len)) {
      out->append(s.substr(i, len));
      i += len;
    } else {
      out->append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return true;
}

// MetricMapping: how a GPU_METRICS name becomes a counter series.
struct MetricMapping {
  CounterKind kind = CounterKind::kOther;
  CounterUnit unit = CounterUnit::kPercent;
  double scale = 1.0;  // raw value * scale = stored value
  int dram = 0;        // 1 read, 2 write share (summed into kDramActive)
};

MetricMapping MapMetric(std::string_view full) {
  // Newer nsys appends units ("SMs Active [Throughput %]"); match the stem.
  std::string_view name = full.substr(0, full.find(" ["));
  MetricMapping m;
  auto is = [&](std::string_view a) { return name == a; };
  auto has = [&](std::string_view a) { return name.find(a) != std::string_view::npos; };
  if (is("SM Active") || is("SMs Active")) {
    m = {CounterKind::kSmActive, CounterUnit::kRatio, 0.01, 0};
  } else if (is("Tensor Active") || is("Tensor Active / FP16 Active")) {
    m = {CounterKind::kTensorActive, CounterUnit::kRatio, 0.01, 0};
  } else if (is("GR Active")) {
    m = {CounterKind::kGrEngineActive, CounterUnit::kRatio, 0.01, 0};
  } else if (is("Compute Warps In Flight") || is("Compute Warps in Flight")) {
    m = {CounterKind::kSmOccupancy, CounterUnit::kRatio, 0.01, 0};
  } else if (is("GPC Clock Frequency")) {
    m = {CounterKind::kSmClockMhz, CounterUnit::kMhz, 1e-6, 0};
  } else if (has("Clock Frequency")) {
    m = {CounterKind::kOther, CounterUnit::kMhz, 1e-6, 0};
  } else if (has("Requests")) {
    m = {CounterKind::kOther, CounterUnit::kCount, 1.0, 0};
  } else if (has("DRAM Read")) {
    m.dram = 1;
  } else if (has("DRAM Write")) {
    m.dram = 2;
  }
  return m;
}

int64_t MedianPeriod(const std::vector<int64_t>& ts) {
  if (ts.size() < 2) return kMissingI64;
  std::vector<int64_t> d;
  d.reserve(ts.size() - 1);
  for (size_t i = 1; i < ts.size(); ++i)
    if (ts[i] > ts[i - 1]) d.push_back(ts[i] - ts[i - 1]);
  if (d.empty()) return kMissingI64;
  std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

// IntArgs: one row decoded by SqlitePageReader (NULL = kMissingI64) with
// the getters of SqliteArgs, giving the same values for integer cells.
class IntArgs {
 public:
  explicit IntArgs(const int64_t* v) : v_(v) {}
  int64_t I64(int i) const { return v_[i]; }
  int32_t I32(int i) const {
    int64_t v = v_[i];
    return (v < INT32_MIN + 1 || v > INT32_MAX) ? kMissingI32 : static_cast<int32_t>(v);
  }

 private:
  const int64_t* v_;
};

// kKernelColumns: the kernel columns read, in KernelRow's argument order.
constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
const std::initializer_list<std::string_view> kKernelColumns = {"start",
                                                                "end",
                                                                "deviceId",
                                                                "streamId",
                                                                "correlationId",
                                                                "globalPid",
                                                                "demangledName",
                                                                "shortName",
                                                                "gridX",
                                                                "gridY",
                                                                "gridZ",
                                                                "blockX",
                                                                "blockY",
                                                                "blockZ",
                                                                "registersPerThread",
                                                                "staticSharedMemory",
                                                                "dynamicSharedMemory",
                                                                "graphId"};

// KernelPart: the kernel rows of one rowid range, read on the helper thread.
// Rows are kept as structs so the merge is one Append per row; buffers are
// recycled between ranges so their pages are touched once.
struct KernelPart {
  std::vector<model::KernelRow> rows;
  model::ImportStats stats;
  uint64_t seen = 0;
  Status status = Status::Ok();
};

// KernelSink: where KernelRow puts a row: a model table or a part's buffer.
inline void Put(model::KernelTable& t, const model::KernelRow& r) { t.Append(r); }
inline void Put(std::vector<model::KernelRow>& v, const model::KernelRow& r) { v.push_back(r); }

class Reader {
 public:
  Reader(const SqliteDb& db, model::Trace& t, NsysScanStats& scan, const NsysReadOptions& options)
      : db_(db), t_(t), scan_(scan), options_(options) {}

  Status Run();

 private:
  // Select: a prepared SELECT over `cols` of `table`; absent columns read NULL.
  Result<SqliteStmt> Select(std::string_view table, std::initializer_list<std::string_view> cols,
                            std::string_view tail = "") const;
  // ColumnList: `cols` quoted and comma-separated, NULL for absent columns.
  std::string ColumnList(std::string_view table, std::initializer_list<std::string_view> cols) const;
  // Scan: calls row(const SqliteArgs&) for each row of `table` (see
  // SqliteDb::ScanRows); absent columns read NULL; `*rows` counts rows seen.
  template <typename RowFn>
  Status Scan(std::string_view table, std::initializer_list<std::string_view> cols, RowFn&& row,
              uint64_t* rows, std::string_view tail = "") const {
    return db_.ScanRows(ColumnList(table, cols), fmt::format("\"{}\" {}", table, tail), table,
                        row, rows);
  }
  Status RowError(std::string_view table, uint64_t row) const {
    return InvalidInput(fmt::format("{}: corrupt SQLite database: {} (table {}, row {})",
                                    db_.path(), SqliteErrorText(db_.get()), table, row));
  }
  size_t RowEstimate(std::string_view table) const;
  StringId Str(int64_t nsys_id) const {
    if (!IsValid(nsys_id) || nsys_id < 0) return kEmptyString;
    if (static_cast<uint64_t>(nsys_id) < dense_.size()) return dense_[static_cast<size_t>(nsys_id)];
    auto it = sparse_.find(nsys_id);
    return it == sparse_.end() ? kEmptyString : it->second;
  }
  StringId InternRepaired(std::string_view s);

  Status Meta();
  Status Strings();
  Status Gpus();
  Status Kernels();
  // KernelRow: one kernel row into `out`; touches nothing else of the Reader
  // but the read-only string map, so both reader threads may call it.
  template <typename Args, typename Sink>
  void KernelRow(const Args& a, Sink& out, model::ImportStats& stats) const;
  // DirectScan: calls row(const IntArgs&) for each row of `table` in rowid
  // order, decoded by SqlitePageReader; `cols` absent from the table read
  // NULL. Any error means "fall back to the sqlite3 path": the caller drops
  // what `row` stored.
  template <typename RowFn>
  Status DirectScan(std::string_view table, std::initializer_list<std::string_view> cols,
                    RowFn&& row, uint64_t* rows) const;
  // KernelRange: scan rowids [lo, hi] of the kernel table on `db` into `out`.
  template <typename Sink>
  Status KernelRange(const SqliteDb& db, const std::string& cols, int64_t lo, int64_t hi,
                     Sink& out, model::ImportStats& stats, uint64_t* seen) const;
  Status KernelsParallel(const std::string& cols, int64_t lo, int64_t hi);
  Status Memcpys();
  Status Memsets();
  Status Runtime();
  Status Syncs();
  Status Nvtx();
  Status Osrt();
  Status Overhead();
  Status ProcessesAndThreads();
  Status Metrics();
  Status GenericEvents();
  void AddMetricSample(int64_t type_id, std::string_view name, int64_t ts, double raw);
  void FinishMetrics();
  int32_t MetricDevice(int64_t type_id) const;
  void GpuProcesses();

  const SqliteDb& db_;
  model::Trace& t_;
  NsysScanStats& scan_;
  NsysReadOptions options_;
  std::vector<StringId> dense_;
  std::unordered_map<int64_t, StringId> sparse_;
  std::string scratch_;
  std::map<int64_t, int32_t> gpu_id_to_ordinal_;
  std::vector<model::Device> listed_devices_;
  std::map<std::pair<int64_t, std::string>, size_t> metric_series_;
  std::vector<MetricMapping> metric_map_;
};

std::string Reader::ColumnList(std::string_view table,
                               std::initializer_list<std::string_view> cols) const {
  std::vector<std::string> have = db_.Columns(table);
  std::string sql;
  bool first = true;
  for (std::string_view c : cols) {
    if (!first) sql += ", ";
    first = false;
    if (std::find(have.begin(), have.end(), c) != have.end()) {
      sql += '"';
      sql += c;
      sql += '"';
    } else {
      sql += "NULL";
    }
  }
  return sql;
}

Result<SqliteStmt> Reader::Select(std::string_view table,
                                  std::initializer_list<std::string_view> cols,
                                  std::string_view tail) const {
  return db_.Prepare(fmt::format("SELECT {} FROM \"{}\" {}", ColumnList(table, cols), table, tail));
}

size_t Reader::RowEstimate(std::string_view table) const {
  Result<SqliteStmt> st = db_.Prepare(fmt::format("SELECT max(rowid) FROM \"{}\"", table));
  if (!st.ok() || st->Step() != SQLITE_ROW) return 0;
  int64_t n = st->I64(0);
  return (IsValid(n) && n > 0 && n < (int64_t{1} << 31)) ? static_cast<size_t>(n) : 0;
}

StringId Reader::InternRepaired(std::string_view s) {
  if (RepairUtf8(s, &scratch_)) {
    t_.stats.Bump(ImportStat::invalid_utf8);
    return t_.strings.Intern(scratch_);
  }
  return t_.strings.Intern(s);
}

Status Reader::Meta() {
  for (std::string_view table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (!db_.HasTable(table)) continue;
    ASSIGN_OR_RETURN(SqliteStmt st, Select(table, {"name", "value"}));
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      if (st.Text(0) == "EXPORT_SCHEMA_VERSION") t_.info.format_version = std::string(st.Text(1));
    }
    if (rc != SQLITE_DONE) return RowError(table, 0);
  }
  if (db_.HasTable("TARGET_INFO_SESSION_START_TIME")) {
    ASSIGN_OR_RETURN(SqliteStmt st, Select("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}));
    if (st.Step() == SQLITE_ROW) t_.info.base_time_ns = st.I64(0);
  }
  return Status::Ok();
}

Status Reader::Strings() {
  if (!db_.HasTable("StringIds")) return Status::Ok();
  ASSIGN_OR_RETURN(SqliteStmt st, Select("StringIds", {"id", "value"}));
  int rc;
  uint64_t row = 0;
  while ((rc = st.Step()) == SQLITE_ROW) {
    ++row;
    int64_t id = st.I64(0);
    if (!IsValid(id) || id < 0) continue;
    StringId sid = InternRepaired(st.Text(1));
    // Ids are dense from 0 in every export seen; a sparse map guards the rest.
    if (id < (int64_t{1} << 26)) {
      if (static_cast<size_t>(id) >= dense_.size()) dense_.resize(static_cast<size_t>(id) + 1, 0);
      dense_[static_cast<size_t>(id)] = sid;
    } else {
      sparse_[id] = sid;
    }
  }
  scan_.string_rows = row;
  if (rc != SQLITE_DONE) return RowError("StringIds", row);
  return Status::Ok();
}

Status Reader::Gpus() {
  if (!db_.HasTable("TARGET_INFO_GPU")) return Status::Ok();
  ASSIGN_OR_RETURN(
      SqliteStmt st,
      Select("TARGET_INFO_GPU",
             {"id", "cuDevice", "name", "uuid", "smCount", "computeMajor", "computeMinor",
              "totalMemory", "maxThreadsPerBlock", "maxBlocksPerSm", "maxRegistersPerSm",
              "maxRegistersPerBlock", "maxShmemPerSm", "maxShmemPerBlock", "maxShmemPerBlockOptin",
              "threadsPerWarp", "maxWarpsPerSm", "busLocation"}));
  int rc;
  uint64_t row = 0;
  while ((rc = st.Step()) == SQLITE_ROW) {
    ++row;
    model::Device d;
    int64_t id = st.I64(0), cu = st.I64(1);
    // CUPTI's deviceId is the CUDA ordinal (cuDevice); `id` is nsys's own.
    int64_t ordinal = IsValid(cu) ? cu : id;
    if (!IsValid(ordinal)) continue;
    d.device_id = static_cast<int32_t>(ordinal);
    if (IsValid(id)) gpu_id_to_ordinal_[id] = d.device_id;
    d.vendor = model::Vendor::kNvidia;
    d.name = InternRepaired(st.Text(2));
    d.uuid = InternRepaired(st.Text(3));
    d.sm_count = st.I32(4);
    d.cc_major = st.I32(5);
    d.cc_minor = st.I32(6);
    d.total_memory_bytes = st.I64(7);
    d.max_threads_per_block = st.I32(8);
    d.max_blocks_per_sm = st.I32(9);
    d.regs_per_sm = st.I32(10);
    d.regs_per_block = st.I32(11);
    d.smem_per_sm_bytes = st.I64(12);
    d.smem_per_block_bytes = st.I64(13);
    d.smem_per_block_optin_bytes = st.I64(14);
    d.warp_size = st.I32(15);
    int32_t warps = st.I32(16);
    if (IsValid(warps) && IsValid(d.warp_size)) d.max_threads_per_sm = warps * d.warp_size;
    // busLocation "dddd:bb:dd.f" -> (domain << 16) | (bus << 8) | (device << 3) | function.
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    std::string loc(st.Text(17));
    if (std::sscanf(loc.c_str(), "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
      d.pcie_bus_id = (int64_t{dom} << 16) | (int64_t{bus} << 8) | (int64_t{dev} << 3) | fn;
    listed_devices_.push_back(d);
  }
  if (rc != SQLITE_DONE) return RowError("TARGET_INFO_GPU", row);
  return Status::Ok();
}

// ReadSpan: columns 0 and 1 of a row as [start, end]. False (counted as
// missing_ts) when either is NULL; a reversed span is clamped to zero length,
// and counted as negative_dur when `count_reversed`.
template <typename Args>
inline bool ReadSpan(const Args& a, model::ImportStats& stats, bool count_reversed,
                     int64_t* start, int64_t* end) {
  *start = a.I64(0);
  *end = a.I64(1);
  if (!IsValid(*start) || !IsValid(*end)) {
    stats.Bump(ImportStat::missing_ts);
    return false;
  }
  if (!PlausibleTimeNs(*start) || !PlausibleTimeNs(*end)) {
    stats.Bump(ImportStat::time_out_of_range);
    return false;
  }
  if (*end < *start) {
    if (count_reversed) stats.Bump(ImportStat::negative_dur);
    *end = *start;
  }
  return true;
}

// flatten: the hot row path; inlining Append's 22 push_backs and the getters
// is worth ~10% of the import (measured with perf on a 1 M-row export).
template <typename Args, typename Sink>
[[gnu::flatten]] void Reader::KernelRow(const Args& a, Sink& out, model::ImportStats& stats) const {
  model::KernelRow r;
  if (!ReadSpan(a, stats, true, &r.start_ns, &r.end_ns)) return;
  r.device_id = a.I32(2);
  r.stream_id = a.I64(3);
  r.correlation_id = a.I64(4);
  r.pid = PidOf(a.I64(5));
  StringId name = Str(a.I64(6));
  r.name = name != kEmptyString ? name : Str(a.I64(7));
  r.grid_x = a.I32(8);
  r.grid_y = a.I32(9);
  r.grid_z = a.I32(10);
  r.block_x = a.I32(11);
  r.block_y = a.I32(12);
  r.block_z = a.I32(13);
  r.registers_per_thread = a.I32(14);
  r.static_shared_mem_bytes = a.I32(15);
  r.dynamic_shared_mem_bytes = a.I32(16);
  // In int64: two valid int32 sizes can overflow int32 (corrupt or fuzzed rows).
  const int64_t smem = static_cast<int64_t>(r.static_shared_mem_bytes) + r.dynamic_shared_mem_bytes;
  r.shared_mem_bytes = IsValid(r.static_shared_mem_bytes) && IsValid(r.dynamic_shared_mem_bytes) &&
                               smem <= std::numeric_limits<int32_t>::max()
                           ? static_cast<int32_t>(smem)
                           : kMissingI32;
  r.graph_id = a.I64(17);
  Put(out, r);
}

template <typename Sink>
Status Reader::KernelRange(const SqliteDb& db, const std::string& cols, int64_t lo, int64_t hi,
                           Sink& out, model::ImportStats& stats, uint64_t* seen) const {
  uint64_t n = 0;
  Status st = db.ScanRows(
      cols, fmt::format("\"CUPTI_ACTIVITY_KIND_KERNEL\" WHERE rowid BETWEEN {} AND {}", lo, hi),
      "CUPTI_ACTIVITY_KIND_KERNEL", [&](const SqliteArgs& a) { KernelRow(a, out, stats); }, &n);
  *seen += n;
  return st;
}

Status Reader::Kernels() {
  constexpr std::string_view kTable = kKernelTable;
  if (!db_.HasTable(kTable)) return Status::Ok();
  const std::string cols = ColumnList(kTable, kKernelColumns);
  const size_t estimate = RowEstimate(kTable);
  t_.kernels.Reserve(estimate);
  if (options_.direct_reader && t_.kernels.empty()) {
    const model::ImportStats saved = t_.stats;
    Status direct = DirectScan(
        kTable, kKernelColumns, [&](const IntArgs& a) { KernelRow(a, t_.kernels, t_.stats); },
        &scan_.kernel_rows);
    if (direct.ok()) {
      scan_.kernel_direct = true;
      scan_.kernel_readers = 1;
      return Status::Ok();
    }
    // Not the layout the page reader knows: drop its rows, read through sqlite3.
    scan_.direct_fallback = fmt::format("{}: {}", kTable, direct.message());
    scan_.kernel_rows = 0;
    t_.stats = saved;
    t_.kernels = model::KernelTable{};
    t_.kernels.Reserve(estimate);
  }
  // The rowid span decides whether a second reader pays off; a table without
  // rowids (not an nsys layout) is read in one pass.
  int64_t lo = kMissingI64, hi = kMissingI64;
  if (Result<SqliteStmt> st = db_.Prepare(fmt::format(
          "SELECT min(rowid), max(rowid) FROM \"{}\"", kTable));
      st.ok() && st->Step() == SQLITE_ROW) {
    lo = st->I64(0);
    hi = st->I64(1);
  }
  int threads = options_.threads;
  if (threads <= 0) threads = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  const int64_t chunk = std::max<int64_t>(1, options_.chunk_rows);
  bool parallel = threads >= 2 && !db_.in_memory() && IsValid(lo) && IsValid(hi) && hi >= lo &&
                  (hi - lo) / chunk >= 1;
  scan_.kernel_readers = parallel ? 2 : 1;
  if (parallel) return KernelsParallel(cols, lo, hi);
  return db_.ScanRows(
      cols, fmt::format("\"{}\"", kTable), kTable,
      [&](const SqliteArgs& a) { KernelRow(a, t_.kernels, t_.stats); }, &scan_.kernel_rows);
}

template <typename RowFn>
Status Reader::DirectScan(std::string_view table, std::initializer_list<std::string_view> cols,
                          RowFn&& row, uint64_t* rows) const {
  ASSIGN_OR_RETURN(PageTablePlan plan,
                   PlanIntTable(db_.get(), table, std::vector<std::string_view>(cols)));
  Result<SqlitePageReader> pages = db_.in_memory() ? SqlitePageReader::OpenImage(ImageOf(db_.get()))
                                                   : SqlitePageReader::OpenFile(db_.path());
  if (!pages.ok()) return pages.status();
  const size_t n_cols = plan.columns.size();
  return pages->ScanInts(
      plan,
      [&](const int64_t* values, size_t n_rows) {
        for (size_t i = 0; i < n_rows; ++i) row(IntArgs(values + i * n_cols));
      },
      rows);
}

Status Reader::KernelsParallel(const std::string& cols, int64_t lo, int64_t hi) {
  // Rowid chunks 0, 2, 4, ... are read here straight into the trace; chunks
  // 1, 3, 5, ... by a helper thread on its own connection into KernelParts
  // that are appended in order. Rows therefore keep the rowid order of a
  // single scan, and at most 2 finished parts wait (bounded memory).
  const int64_t chunk = std::max<int64_t>(1, options_.chunk_rows);
  const int64_t n_chunks = (hi - lo) / chunk + 1;
  auto range = [&](int64_t k, int64_t* a, int64_t* b) {
    *a = lo + k * chunk;
    *b = (hi - *a < chunk) ? hi : *a + chunk - 1;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::deque<KernelPart> ready;
  std::vector<std::vector<model::KernelRow>> spare;  // recycled row buffers
  bool stop = false;
  auto work = [&] {
    Result<SqliteDb> db = SqliteDb::OpenReadOnly(db_.path());
    for (int64_t k = 1; k < n_chunks; k += 2) {
      KernelPart part;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!spare.empty()) {
          part.rows = std::move(spare.back());
          spare.pop_back();
        }
      }
      part.rows.clear();
      part.rows.reserve(static_cast<size_t>(chunk));
      if (!db.ok()) {
        part.status = db.status();
      } else {
        int64_t a = 0, b = 0;
        range(k, &a, &b);
        part.status = KernelRange(*db, cols, a, b, part.rows, part.stats, &part.seen);
      }
      bool failed = !part.status.ok();
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return stop || ready.size() < 2; });
      if (stop) return;
      ready.push_back(std::move(part));
      cv.notify_all();
      if (failed) return;
    }
  };
  std::thread helper;
  try {
    helper = std::thread(work);
  } catch (const std::system_error&) {
    // No thread to be had (resource limits): one reader, same rows.
    scan_.kernel_readers = 1;
    return db_.ScanRows(
        cols, "\"CUPTI_ACTIVITY_KIND_KERNEL\"", "CUPTI_ACTIVITY_KIND_KERNEL",
        [&](const SqliteArgs& a) { KernelRow(a, t_.kernels, t_.stats); }, &scan_.kernel_rows);
  }
  Status result = Status::Ok();
  for (int64_t k = 0; k < n_chunks && result.ok(); ++k) {
    if (k % 2 == 0) {
      int64_t a = 0, b = 0;
      range(k, &a, &b);
      result = KernelRange(db_, cols, a, b, t_.kernels, t_.stats, &scan_.kernel_rows);
      continue;
    }
    KernelPart part;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !ready.empty(); });
      part = std::move(ready.front());
      ready.pop_front();
      cv.notify_all();
    }
    scan_.kernel_rows += part.seen;
    t_.stats.Merge(part.stats);
    if (!part.status.ok()) {
      result = part.status;
      break;
    }
    for (const model::KernelRow& r : part.rows) t_.kernels.Append(r);
    std::lock_guard<std::mutex> lock(mu);
    spare.push_back(std::move(part.rows));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv.notify_all();
  helper.join();
  return result;
}

Status Reader::Memcpys() {
  constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
  if (!db_.HasTable(kTable)) return Status::Ok();
  t_.memcpys.Reserve(RowEstimate(kTable));
  return Scan(
      kTable,
      {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
       "srcKind", "dstKind", "srcDeviceId", "dstDeviceId", "migrationCause"},
      [&](const SqliteArgs& st) __attribute__((flatten)) {
        model::MemcpyRow r;
        if (!ReadSpan(st, t_.stats, true, &r.start_ns, &r.end_ns)) return;
        r.device_id = st.I32(2);
        r.stream_id = st.I64(3);
        r.correlation_id = st.I64(4);
        r.pid = PidOf(st.I64(5));
        r.bytes = st.I64(6);
        int64_t ck = st.I64(7), sk = st.I64(8), dk = st.I64(9);
        r.copy_kind = CopyKindOf(ck);
        r.src_kind = MemKindOf(sk);
        r.dst_kind = MemKindOf(dk);
        // Migrations carry no memory kinds (nsys writes NULL or Unknown).
        if (model::IsUvmMigration(r.copy_kind)) {
          r.migration_cause = MigrationCauseOf(st.I64(12));
          if (r.src_kind == MemoryKind::kUnknown) r.src_kind = MemoryKind::kManaged;
          if (r.dst_kind == MemoryKind::kUnknown) r.dst_kind = MemoryKind::kManaged;
        }
        if (r.copy_kind == CopyKind::kUnknown || r.src_kind == MemoryKind::kUnknown ||
            r.dst_kind == MemoryKind::kUnknown)
          t_.stats.Bump(ImportStat::unknown_memcpy_kind);
        r.src_device_id = st.I32(10);
        r.dst_device_id = st.I32(11);
        t_.memcpys.Append(r);
      },
      &scan_.memcpy_rows);
}

Status Reader::Memsets() {
  constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_MEMSET";
  if (!db_.HasTable(kTable)) return Status::Ok();
  return Scan(
      kTable,
      {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "memKind"},
      [&](const SqliteArgs& st) __attribute__((flatten)) {
        model::MemsetRow r;
        if (!ReadSpan(st, t_.stats, true, &r.start_ns, &r.end_ns)) return;
        r.device_id = st.I32(2);
        r.stream_id = st.I64(3);
        r.correlation_id = st.I64(4);
        r.pid = PidOf(st.I64(5));
        r.bytes = st.I64(6);
        r.dst_kind = MemKindOf(st.I64(7));
        t_.memsets.Append(r);
      },
      &scan_.memset_rows);
}

Status Reader::Runtime() {
  constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db_.HasTable(kTable)) return Status::Ok();
  const size_t estimate = RowEstimate(kTable);
  t_.api_calls.Reserve(t_.api_calls.size() + estimate);
  model::ApiRow r;
  // Generic: rows come as SqliteArgs from sqlite3 or IntArgs from the page reader.
  auto row = [&](const auto& st) __attribute__((flatten)) {
    if (!ReadSpan(st, t_.stats, true, &r.start_ns, &r.end_ns)) return;
    int64_t cls = st.I64(2);
    int64_t gtid = st.I64(3);
    r.pid = PidOf(gtid);
    r.tid = TidOf(gtid);
    r.correlation_id = st.I64(4);
    r.name = Str(st.I64(5));
    if (cls == 0) {
      r.kind = ApiKind::kRuntime;
    } else if (cls == 1) {
      r.kind = ApiKind::kDriver;
    } else {
      std::string_view n = t_.Str(r.name);
      r.kind = n.substr(0, 4) == "cuda" ? ApiKind::kRuntime
               : n.substr(0, 2) == "cu" ? ApiKind::kDriver
                                        : ApiKind::kOther;
    }
    t_.api_calls.Append(r);
  };
  const std::initializer_list<std::string_view> cols = {"start",     "end",           "eventClass",
                                                        "globalTid", "correlationId", "nameId"};
  if (options_.direct_reader && t_.api_calls.empty()) {
    const model::ImportStats saved = t_.stats;
    Status direct = DirectScan(kTable, cols, row, &scan_.runtime_rows);
    if (direct.ok()) {
      scan_.runtime_direct = true;
      return Status::Ok();
    }
    scan_.direct_fallback = fmt::format("{}: {}", kTable, direct.message());
    scan_.runtime_rows = 0;
    t_.stats = saved;
    t_.api_calls = model::ApiTable{};
    t_.api_calls.Reserve(estimate);
  }
  return Scan(kTable, cols, row, &scan_.runtime_rows);
}

Status Reader::Syncs() {
  constexpr std::string_view kTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  if (!db_.HasTable(kTable)) return Status::Ok();
  return Scan(
      kTable,
      {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "syncType",
       "eventId"},
      [&](const SqliteArgs& st) __attribute__((flatten)) {
        model::SyncRow r;
        if (!ReadSpan(st, t_.stats, true, &r.start_ns, &r.end_ns)) return;
        r.device_id = st.I32(2);
        r.stream_id = st.I64(3);
        r.correlation_id = st.I64(4);
        r.pid = PidOf(st.I64(5));
        r.kind = SyncKindOf(st.I64(6));
        r.event_id = st.I64(7);
        // Context synchronization has no stream (nsys writes the stream as NULL or -1).
        if (r.kind == SyncKind::kContextSynchronize) r.stream_id = kMissingI64;
        t_.syncs.Append(r);
      },
      &scan_.sync_rows);
}

// EmitNvtxOp: PyTorch's emit_nvtx() names each op's NVTX range
// "<op>[, seq = N][, op_id = N][, sizes = [[..], ..]][, input_op_ids = [..]]"
// (torch/csrc/profiler/util.cpp getNvtxStr). Such a range is a framework op:
// `op` gets the op name and `sizes` the recorded input shapes (a JSON list in
// the same layout as Kineto's Input Dims), empty when absent. False for any
// other NVTX text.
bool EmitNvtxOp(std::string_view text, std::string_view* op, std::string_view* sizes) {
  size_t comma = text.find(", ");
  std::string_view name = text.substr(0, comma);
  // An op name: a namespaced identifier ("aten::mm", "flash_attn::_flash_attn_forward").
  size_t ns = name.find("::");
  if (name.empty() || ns == std::string_view::npos || ns == 0 || ns + 2 >= name.size()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.'))
      return false;
  *op = name;
  *sizes = {};
  if (comma == std::string_view::npos) return false;  // a bare name is any NVTX range
  std::string_view rest = text.substr(comma);
  auto starts = [&](std::string_view key) { return rest.substr(0, key.size()) == key; };
  if (!starts(", seq = ") && !starts(", op_id = ") && !starts(", sizes = ")) return false;
  size_t at = rest.find(", sizes = [");
  if (at != std::string_view::npos) {
    std::string_view list = rest.substr(at + 10);
    // The list ends at its matching bracket.
    int depth = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i] == '[') ++depth;
      else if (list[i] == ']' && --depth == 0) {
        *sizes = list.substr(0, i + 1);
        break;
      }
    }
  }
  return true;
}

Status Reader::Nvtx() {
  constexpr std::string_view kTable = "NVTX_EVENTS";
  if (!db_.HasTable(kTable)) return Status::Ok();
  constexpr int64_t kMark = 34, kPushPop = 59, kStartEnd = 60, kDomainCreate = 75;
  // Domains first: their create rows may follow the ranges that use them.
  std::unordered_map<int64_t, StringId> domains;
  {
    ASSIGN_OR_RETURN(SqliteStmt st, Select(kTable, {"domainId", "text", "textId"},
                                           "WHERE eventType = 75"));
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      StringId name = st.IsNull(1) ? Str(st.I64(2)) : InternRepaired(st.Text(1));
      if (IsValid(st.I64(0))) domains[st.I64(0)] = name;
    }
    if (rc != SQLITE_DONE) return RowError(kTable, 0);
  }
  ASSIGN_OR_RETURN(SqliteStmt st, Select(kTable, {"start", "end", "eventType", "text", "textId",
                                                  "globalTid", "domainId"}));
  int rc;
  uint64_t row = 0;
  while ((rc = st.Step()) == SQLITE_ROW) {
    ++row;
    int64_t type = st.I64(2);
    if (type == kDomainCreate) continue;
    if (type != kMark && type != kPushPop && type != kStartEnd) {
      t_.stats.Bump(ImportStat::unknown_category);
      continue;
    }
    StringId name = st.IsNull(3) ? Str(st.I64(4)) : InternRepaired(st.Text(3));
    int64_t gtid = st.I64(5);
    StringId domain = kEmptyString;
    if (int64_t dom = st.I64(6); IsValid(dom) && dom != 0) {
      auto it = domains.find(dom);
      if (it != domains.end()) domain = it->second;
    }
    int64_t start = st.I64(0), end = st.I64(1);
    if (!IsValid(start)) {
      t_.stats.Bump(ImportStat::missing_ts);
      continue;
    }
    if (!PlausibleTimeNs(start) || (IsValid(end) && !PlausibleTimeNs(end))) {
      t_.stats.Bump(ImportStat::time_out_of_range);
      continue;
    }
    if (type == kMark) {
      model::MarkerRow m;
      m.pid = PidOf(gtid);
      m.tid = TidOf(gtid);
      m.ts_ns = start;
      m.name = name;
      m.domain = domain;
      t_.markers.Append(m);
      continue;
    }
    if (!IsValid(end)) {  // a range never closed before the capture ended
      t_.stats.Bump(ImportStat::missing_dur);
      continue;
    }
    model::RangeRow r;
    r.pid = PidOf(gtid);
    r.tid = TidOf(gtid);
    r.start_ns = start;
    r.end_ns = std::max(start, end);
    r.name = name;
    r.kind = RangeKind::kNvtx;
    r.domain = domain;
    std::string_view op, sizes;
    if (type == kPushPop && EmitNvtxOp(t_.Str(name), &op, &sizes)) {
      // torch.autograd.profiler.emit_nvtx: a framework op, with its shapes
      // when recorded (record_shapes=True); the dtypes are never written.
      r.kind = RangeKind::kCpuOp;
      std::string op_name(op), dims(sizes);
      r.name = t_.strings.Intern(op_name);
      if (!dims.empty()) r.input_dims = t_.strings.Intern(dims);
    }
    t_.ranges.Append(r);
  }
  scan_.nvtx_rows = row;
  if (rc != SQLITE_DONE) return RowError(kTable, row);
  return Status::Ok();
}

Status Reader::Osrt() {
  constexpr std::string_view kTable = "OSRT_API";
  if (!db_.HasTable(kTable)) return Status::Ok();
  model::ApiRow r;
  r.kind = ApiKind::kOsRuntime;
  return Scan(
      kTable, {"start", "end", "globalTid", "nameId"},
      [&](const SqliteArgs& st) __attribute__((flatten)) {
        if (!ReadSpan(st, t_.stats, false, &r.start_ns, &r.end_ns)) return;
        int64_t gtid = st.I64(2);
        r.pid = PidOf(gtid);
        r.tid = TidOf(gtid);
        r.name = Str(st.I64(3));
        t_.api_calls.Append(r);
      },
      &scan_.osrt_rows);
}

Status Reader::Overhead() {
  constexpr std::string_view kTable = "PROFILER_OVERHEAD";
  if (!db_.HasTable(kTable)) return Status::Ok();
  StringId domain = t_.strings.Intern(kProfilerOverheadDomain);
  return Scan(
      kTable, {"start", "end", "globalTid", "nameId"},
      [&](const SqliteArgs& st) __attribute__((flatten)) {
        model::RangeRow r;
        if (!ReadSpan(st, t_.stats, false, &r.start_ns, &r.end_ns)) return;
        int64_t gtid = st.I64(2);
        r.pid = PidOf(gtid);
        r.tid = TidOf(gtid);
        r.name = Str(st.I64(3));
        r.kind = RangeKind::kOther;
        r.domain = domain;
        t_.ranges.Append(r);
      },
      &scan_.overhead_rows);
}

Status Reader::ProcessesAndThreads() {
  if (db_.HasTable("PROCESSES")) {
    ASSIGN_OR_RETURN(SqliteStmt st, Select("PROCESSES", {"globalPid", "pid", "name"}));
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      model::Process p;
      p.pid = st.I32(1);
      if (!IsValid(p.pid)) p.pid = PidOf(st.I64(0));
      p.name = InternRepaired(st.Text(2));
      t_.processes.push_back(p);
    }
    if (rc != SQLITE_DONE) return RowError("PROCESSES", 0);
  }
  if (db_.HasTable("ThreadNames")) {
    ASSIGN_OR_RETURN(SqliteStmt st, Select("ThreadNames", {"nameId", "globalTid"}));
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      model::Thread th;
      int64_t gtid = st.I64(1);
      th.pid = PidOf(gtid);
      th.tid = TidOf(gtid);
      th.name = Str(st.I64(0));
      t_.threads.push_back(th);
    }
    if (rc != SQLITE_DONE) return RowError("ThreadNames", 0);
  }
  return Status::Ok();
}

int32_t Reader::MetricDevice(int64_t type_id) const {
  // GPU_METRICS typeId: the low byte is nsys's GPU id (TARGET_INFO_GPU.id).
  int64_t gpu = type_id & 0xFF;
  auto it = gpu_id_to_ordinal_.find(gpu);
  return it != gpu_id_to_ordinal_.end() ? it->second : static_cast<int32_t>(gpu);
}

void Reader::AddMetricSample(int64_t type_id, std::string_view name, int64_t ts, double raw) {
  if (!PlausibleTimeNs(ts)) {
    t_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  auto key = std::make_pair(type_id, std::string(name));
  auto it = metric_series_.find(key);
  if (it == metric_series_.end()) {
    MetricMapping m = MapMetric(name);
    model::CounterSeries s;
    s.name = t_.strings.Intern(name);
    s.kind = m.kind;
    s.unit = m.unit;
    s.device_id = MetricDevice(type_id);
    s.source = t_.strings.Intern(kNsysMetricsSource);
    t_.counters.push_back(std::move(s));
    metric_map_.push_back(m);
    it = metric_series_.emplace(std::move(key), t_.counters.size() - 1).first;
  }
  model::CounterSeries& s = t_.counters[it->second];
  const MetricMapping& m = metric_map_[it->second];
  double v = raw * m.scale;
  // Real exports hold int32-wrapped clock samples (negative): never a value.
  if (!std::isfinite(raw) || raw < 0) {
    t_.stats.Bump(ImportStat::negative_value);
    v = kMissingF64;
  }
  s.ts_ns.push_back(ts);
  s.value.push_back(v);
}

void Reader::FinishMetrics() {
  size_t n = t_.counters.size();
  for (size_t i = 0; i < n; ++i) t_.counters[i].period_ns = MedianPeriod(t_.counters[i].ts_ns);
  // DRAM bandwidth use = read share + write share of peak, per device.
  for (size_t r = 0; r < n && r < metric_map_.size(); ++r) {
    if (metric_map_[r].dram != 1) continue;
    for (size_t w = 0; w < n && w < metric_map_.size(); ++w) {
      if (metric_map_[w].dram != 2 || t_.counters[w].device_id != t_.counters[r].device_id ||
          t_.counters[w].ts_ns != t_.counters[r].ts_ns)
        continue;
      model::CounterSeries s;
      s.name = t_.strings.Intern("DRAM Bandwidth (read + write)");
      s.kind = CounterKind::kDramActive;
      s.unit = CounterUnit::kRatio;
      s.device_id = t_.counters[r].device_id;
      s.source = t_.counters[r].source;
      s.period_ns = t_.counters[r].period_ns;
      s.ts_ns = t_.counters[r].ts_ns;
      s.value.resize(s.ts_ns.size());
      for (size_t k = 0; k < s.ts_ns.size(); ++k)
        s.value[k] = (t_.counters[r].value[k] + t_.counters[w].value[k]) / 100.0;
      t_.counters.push_back(std::move(s));
      break;
    }
  }
}

Status Reader::Metrics() {
  if (!db_.HasTable("GPU_METRICS")) return GenericEvents();
  std::map<std::pair<int64_t, int64_t>, std::string> names;
  if (db_.HasTable("TARGET_INFO_GPU_METRICS")) {
    ASSIGN_OR_RETURN(SqliteStmt st,
                     Select("TARGET_INFO_GPU_METRICS", {"typeId", "metricId", "metricName"}));
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) names[{st.I64(0), st.I64(1)}] = std::string(st.Text(2));
    if (rc != SQLITE_DONE) return RowError("TARGET_INFO_GPU_METRICS", 0);
  }
  ASSIGN_OR_RETURN(SqliteStmt st,
                   Select("GPU_METRICS", {"timestamp", "typeId", "metricId", "value"},
                          "ORDER BY typeId, metricId, timestamp"));
  int rc;
  uint64_t row = 0;
  std::string fallback;
  while ((rc = st.Step()) == SQLITE_ROW) {
    ++row;
    int64_t ts = st.I64(0), type = st.I64(1), metric = st.I64(2);
    if (!IsValid(ts) || !IsValid(type) || !IsValid(metric)) {
      t_.stats.Bump(ImportStat::missing_ts);
      continue;
    }
    auto it = names.find({type, metric});
    std::string_view name;
    if (it != names.end()) {
      name = it->second;
    } else {
      fallback = fmt::format("metric {}", metric);
      name = fallback;
    }
    double v = st.F64(3);
    if (!IsValid(v)) {
      t_.stats.Bump(ImportStat::non_numeric_value);
    }
    AddMetricSample(type, name, ts, v);
  }
  scan_.metric_rows = row;
  if (rc != SQLITE_DONE) return RowError("GPU_METRICS", row);
  FinishMetrics();
  return Status::Ok();
}

Status Reader::GenericEvents() {
  // 2022.x exports carry GPU metrics only as one JSON object per sample.
  if (!db_.HasTable("GENERIC_EVENTS")) return Status::Ok();
  ASSIGN_OR_RETURN(SqliteStmt st, Select("GENERIC_EVENTS", {"timestamp", "rawTimestamp",
                                                            "typeId", "data"}));
  simdjson::ondemand::parser parser;
  simdjson::padded_string buf;
  int rc;
  uint64_t row = 0;
  while ((rc = st.Step()) == SQLITE_ROW) {
    ++row;
    int64_t ts = st.IsNull(0) ? st.I64(1) : st.I64(0);
    int64_t type = st.I64(2);
    if (!IsValid(ts) || !IsValid(type)) {
      t_.stats.Bump(ImportStat::missing_ts);
      continue;
    }
    buf = simdjson::padded_string(st.Text(3));
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    if (parser.iterate(buf).get(doc) || doc.get_object().get(obj)) {
      t_.stats.Bump(ImportStat::malformed_event);
      continue;
    }
    bool bad = false;
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key)) { bad = true; break; }
      std::string name(key);
      simdjson::ondemand::value val;
      if (field.value().get(val)) { bad = true; break; }
      double v = kMissingF64;
      std::string_view text;
      // Error codes, not the throwing conversion: a damaged value must not
      // throw out of the importer (found by the fuzzer).
      simdjson::ondemand::json_type vt;
      if (val.type().get(vt)) { bad = true; break; }
      if (vt == simdjson::ondemand::json_type::string) {
        if (!val.get_string().get(text)) {
          std::string tmp(text);
          char* endp = nullptr;
          v = std::strtod(tmp.c_str(), &endp);
          if (endp == tmp.c_str()) v = kMissingF64;
        }
      } else if (vt == simdjson::ondemand::json_type::number) {
        if (val.get_double().get(v)) v = kMissingF64;
      }
      if (!IsValid(v)) t_.stats.Bump(ImportStat::non_numeric_value);
      AddMetricSample(type, name, ts, v);
    }
    if (bad) t_.stats.Bump(ImportStat::malformed_event);
  }
  scan_.metric_rows = row;
  if (rc != SQLITE_DONE) return RowError("GENERIC_EVENTS", row);
  FinishMetrics();
  return Status::Ok();
}

void Reader::GpuProcesses() {
  // One row per (device, pid) with GPU work, first/last seen from the events.
  struct Span { int64_t first = INT64_MAX, last = INT64_MIN; };
  std::map<std::pair<int32_t, int32_t>, Span> spans;
  auto scan = [&](const std::vector<int32_t>& dev, const auto& pid,  // stored or lazy
                  const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
    std::pair<int32_t, int32_t> last_key{kMissingI32, kMissingI32};
    Span* cur = nullptr;
    for (size_t i = 0; i < dev.size(); ++i) {
      std::pair<int32_t, int32_t> key{dev[i], pid[i]};
      if (cur == nullptr || key != last_key) {
        cur = &spans[key];
        last_key = key;
      }
      cur->first = std::min(cur->first, start[i]);
      cur->last = std::max(cur->last, end[i]);
    }
  };
  scan(t_.kernels.device_id, t_.kernels.pid, t_.kernels.start_ns, t_.kernels.end_ns);
  scan(t_.memcpys.device_id, t_.memcpys.pid, t_.memcpys.start_ns, t_.memcpys.end_ns);
  scan(t_.memsets.device_id, t_.memsets.pid, t_.memsets.start_ns, t_.memsets.end_ns);
  for (const auto& [key, span] : spans) {
    model::GpuProcessRow r;
    r.device_id = key.first;
    r.pid = key.second;
    for (const model::Process& p : t_.processes)
      if (p.pid == r.pid) r.name = p.name;
    r.first_seen_ns = span.first;
    r.last_seen_ns = span.last;
    r.is_profiled = true;
    t_.gpu_processes.Append(r);
  }
}

Status Reader::Run() {
  // An nsys export always has StringIds plus its metadata or target tables.
  bool meta = db_.HasTable("META_DATA_EXPORT") || db_.HasTable("EXPORT_META_DATA") ||
              db_.HasTable("TARGET_INFO_GPU") || db_.HasTable("ANALYSIS_DETAILS") ||
              db_.HasTable("CUPTI_ACTIVITY_KIND_KERNEL");
  if (!db_.HasTable("StringIds") || !meta) {
    std::string found;
    for (size_t i = 0; i < db_.Tables().size() && i < 8; ++i)
      found += (i ? ", " : "") + OneLine(db_.Tables()[i], 64);
    if (db_.Tables().size() > 8) found += ", ...";
    return InvalidInput(fmt::format(
        "{}: SQLite database is not an Nsight Systems export (no StringIds / META_DATA_EXPORT "
        "tables), nor a rocprofv3 rocpd, RPD or rocprof results.db (tables found: {})",
        db_.path(), found.empty() ? "none" : found));
  }
  t_.info.format = "nsys-sqlite";
  t_.info.clock = "nsys_session";
  RETURN_IF_ERROR(Meta());
  RETURN_IF_ERROR(Strings());
  RETURN_IF_ERROR(Gpus());
  RETURN_IF_ERROR(ProcessesAndThreads());
  RETURN_IF_ERROR(Kernels());
  RETURN_IF_ERROR(Memcpys());
  RETURN_IF_ERROR(Memsets());
  RETURN_IF_ERROR(Runtime());
  RETURN_IF_ERROR(Syncs());
  RETURN_IF_ERROR(Nvtx());
  RETURN_IF_ERROR(Osrt());
  RETURN_IF_ERROR(Overhead());
  RETURN_IF_ERROR(Metrics());
  GpuProcesses();
  // TARGET_INFO_GPU lists every GPU of the node; keep the ones with traced
  // activity, or all of them when nothing was traced (so a report can say so).
  bool any_gpu_work = !t_.kernels.empty() || !t_.memcpys.empty() || !t_.memsets.empty() ||
                      !t_.syncs.empty() || !t_.counters.empty();
  for (const model::Device& d : listed_devices_) {
    bool used = !any_gpu_work;
    auto in = [&](const std::vector<int32_t>& col) {
      return std::find(col.begin(), col.end(), d.device_id) != col.end();
    };
    if (!used) used = in(t_.kernels.device_id) || in(t_.memcpys.device_id) ||
                      in(t_.memsets.device_id) || in(t_.syncs.device_id);
    for (const model::CounterSeries& s : t_.counters) used = used || s.device_id == d.device_id;
    if (used && t_.FindDevice(d.device_id) == nullptr) t_.devices.push_back(d);
  }
  return Status::Ok();
}

}  // namespace

namespace {

Status ReadOpened(const SqliteDb& db, model::Trace& trace, NsysScanStats* scan,
                  const NsysReadOptions& options) {
  NsysScanStats local;
  Reader reader(db, trace, scan ? *scan : local, options);
  RETURN_IF_ERROR(reader.Run());
  if (trace.info.source_path.empty()) trace.info.source_path = db.path();
  trace.Finalize();
  return Status::Ok();
}

}  // namespace

Status ReadNsysSqlite(const std::string& path, model::Trace& trace, NsysScanStats* scan,
                      const NsysReadOptions& options) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  return ReadOpened(db, trace, scan, options);
}

Status ReadNsysSqliteImage(std::string_view bytes, const std::string& name, model::Trace& trace,
                           NsysScanStats* scan) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenImage(bytes, name));
  NsysReadOptions one_thread;
  one_thread.threads = 1;
  return ReadOpened(db, trace, scan, one_thread);
}

}  // namespace gpuwhy::import
