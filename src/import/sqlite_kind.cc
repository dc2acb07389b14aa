#include "import/sqlite_kind.h"

#include <sys/stat.h>

#include <mutex>
#include <string>

#include "import/nsys/nsys_importer.h"

namespace gpuwhy::import {

namespace {

bool SqliteKindStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

bool SqliteKindAnyNamed(const SqliteDb& db, std::string_view prefix) {
  for (const std::string& t : db.Tables())
    if (SqliteKindStartsWith(t, prefix)) return true;
  for (const std::string& v : db.Views())
    if (SqliteKindStartsWith(v, prefix)) return true;
  return false;
}

}  // namespace

SqliteKind ClassifySqlite(const SqliteDb& db) {
  // rocpd (rocprofiler-sdk): per-session tables `rocpd_info_agent<uuid>`,
  // `rocpd_track<uuid>`, `rocpd_timestamp<uuid>`, and views without the uuid.
  // RPD shares the `rocpd_` prefix but has none of these.
  if (SqliteKindAnyNamed(db, "rocpd_info_") || SqliteKindAnyNamed(db, "rocpd_timestamp") ||
      SqliteKindAnyNamed(db, "rocpd_track"))
    return SqliteKind::kRocpd;
  if (db.HasTable("rocpd_op") && db.HasTable("rocpd_api")) return SqliteKind::kRpd;
  bool meta = db.HasTable("META_DATA_EXPORT") || db.HasTable("EXPORT_META_DATA") ||
              db.HasTable("TARGET_INFO_GPU") || db.HasTable("ANALYSIS_DETAILS") ||
              db.HasTable("CUPTI_ACTIVITY_KIND_KERNEL");
  if (db.HasTable("StringIds") && meta) return SqliteKind::kNsys;
  // rocprof v1 writes one table per trace domain, each with BeginNs/EndNs
  // (KERN may hold only Index/KernelName when kernels went to OPS).
  for (std::string_view t : {"KERN", "OPS", "HIP", "HSA", "COPY"}) {
    if (!db.HasTable(t)) continue;
    for (const std::string& c : db.Columns(t))
      if (c == "BeginNs" || c == "KernelName") return SqliteKind::kRocprofV1;
  }
  return SqliteKind::kOther;
}

SqliteKind SqliteKindOfSource(const SourceInfo& src) {
  if (!LooksLikeSqlite(src.prefix)) return SqliteKind::kNotSqlite;
  struct stat st {};
  if (::stat(src.path.c_str(), &st) != 0) return SqliteKind::kOther;
  static std::mutex mu;
  static std::string last_path;
  static int64_t last_size = -1, last_mtime_ns = -1;
  static SqliteKind last_kind = SqliteKind::kOther;
  int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  std::lock_guard<std::mutex> lock(mu);
  if (src.path == last_path && last_size == st.st_size && last_mtime_ns == mtime_ns)
    return last_kind;
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(src.path);
  SqliteKind kind = db.ok() ? ClassifySqlite(*db) : SqliteKind::kOther;
  last_path = src.path;
  last_size = st.st_size;
  last_mtime_ns = mtime_ns;
  last_kind = kind;
  return kind;
}

std::string_view SqliteKindName(SqliteKind kind) {
  switch (kind) {
    case SqliteKind::kNotSqlite: return "not SQLite";
    case SqliteKind::kNsys: return "Nsight Systems export";
    case SqliteKind::kRocpd: return "rocprofv3 rocpd database";
    case SqliteKind::kRpd: return "rocmProfileData RPD";
    case SqliteKind::kRocprofV1: return "rocprof v1 results.db";
    case SqliteKind::kOther: return "SQLite database";
  }
  return "SQLite database";
}

}  // namespace gpuwhy::import
