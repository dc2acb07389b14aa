#include "import/nsys/sqlite_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace gpuwhy::import {

std::string OneLine(std::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 3);
  for (char c : s.substr(0, max_bytes))
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) ? ' ' : c;
  if (s.size() > max_bytes) out += "...";
  return out;
}

std::string SqliteErrorText(sqlite3* db) { return OneLine(sqlite3_errmsg(db)); }

std::string SqliteUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    switch (c) {
      case '%': uri += "%25"; break;
      case '?': uri += "%3f"; break;
      case '#': uri += "%23"; break;
      default: uri += c;
    }
  }
  uri += "?immutable=1";
  return uri;
}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
  if (this != &o) {
    sqlite3_close(db_);
    db_ = o.db_;
    path_ = std::move(o.path_);
    tables_ = std::move(o.tables_);
    views_ = std::move(o.views_);
    in_memory_ = o.in_memory_;
    o.db_ = nullptr;
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

namespace {

// ReadTableList: fills `tables` and `views`; reading sqlite_master touches
// page 1, so a corrupt or foreign file fails here.
Status ReadTableList(sqlite3* db, const std::string& path, std::vector<std::string>& tables,
                     std::vector<std::string>& views) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(
      db, "SELECT type, name FROM sqlite_master WHERE type='table' OR type='view'", -1, &raw,
      nullptr);
  if (rc != SQLITE_OK)
    return InvalidInput(
        fmt::format("{}: not a valid SQLite database ({})", path, SqliteErrorText(db)));
  SqliteStmt st(raw);
  while ((rc = st.Step()) == SQLITE_ROW)
    (st.Text(0) == "view" ? views : tables).emplace_back(st.Text(1));
  if (rc != SQLITE_DONE)
    return InvalidInput(fmt::format("{}: corrupt SQLite database: {} (reading the table list)",
                                    path, SqliteErrorText(db)));
  return Status::Ok();
}

}  // namespace

Result<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path) {
  SqliteDb db;
  db.path_ = path;
  int rc = sqlite3_open_v2(SqliteUri(path).c_str(), &db.db_,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? SqliteErrorText(db.db_) : sqlite3_errstr(rc);
    return InvalidInput(fmt::format("{}: cannot open as SQLite: {}", path, msg));
  }
  RETURN_IF_ERROR(ReadTableList(db.db_, path, db.tables_, db.views_));
  return db;
}

Result<SqliteDb> SqliteDb::OpenImage(std::string_view bytes, const std::string& name) {
  SqliteDb db;
  db.path_ = name;
  db.in_memory_ = true;
  int rc = sqlite3_open_v2(":memory:", &db.db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK)
    return InvalidInput(fmt::format("{}: cannot open an in-memory SQLite database: {}", name,
                                    sqlite3_errstr(rc)));
  // sqlite3_deserialize takes ownership of a sqlite3_malloc'd copy.
  auto* buf = static_cast<unsigned char*>(sqlite3_malloc64(bytes.empty() ? 1 : bytes.size()));
  if (buf == nullptr) return InvalidInput(fmt::format("{}: out of memory", name));
  if (!bytes.empty()) std::memcpy(buf, bytes.data(), bytes.size());
  rc = sqlite3_deserialize(db.db_, "main", buf, static_cast<sqlite3_int64>(bytes.size()),
                           static_cast<sqlite3_int64>(bytes.size()),
                           SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK)
    return InvalidInput(fmt::format("{}: cannot load the SQLite image: {}", name,
                                    SqliteErrorText(db.db_)));
  RETURN_IF_ERROR(ReadTableList(db.db_, name, db.tables_, db.views_));
  return db;
}

Result<SqliteStmt> SqliteDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  if (rc != SQLITE_OK)
    return InvalidInput(fmt::format("{}: SQLite error {} preparing `{}`", path_, SqliteErrorText(db_),
                                    OneLine(sql, 120)));
  return SqliteStmt(raw);
}

bool SqliteDb::HasTable(std::string_view name) const {
  return std::find(tables_.begin(), tables_.end(), name) != tables_.end();
}

bool SqliteDb::HasView(std::string_view name) const {
  return std::find(views_.begin(), views_.end(), name) != views_.end();
}

std::vector<std::string> SqliteDb::Columns(std::string_view table) const {
  std::vector<std::string> cols;
  if (!HasTable(table) && !HasView(table)) return cols;
  std::string sql = fmt::format("PRAGMA table_info(\"{}\")", table);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) return cols;
  SqliteStmt st(raw);
  while (st.Step() == SQLITE_ROW) cols.emplace_back(st.Text(1));
  return cols;
}

Status SqliteDb::RunScan(std::string_view args, std::string_view from, std::string_view what,
                         void* ctx, StepFn step, const uint64_t* rows) const {
  static constexpr char kFn[] = "gpuwhy_scan_rows";
  // Registered per scan so the user-data pointer is this scan's callback; the
  // connection is read-only, registering a function writes nothing.
  int rc = sqlite3_create_function_v2(db_, kFn, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, ctx,
                                      nullptr, step, [](sqlite3_context*) {}, nullptr);
  if (rc != SQLITE_OK) return Error(fmt::format("cannot register the row scanner for {}", what));
  Status st = Status::Ok();
  {
    Result<SqliteStmt> stmt = Prepare(fmt::format("SELECT {}({}) FROM {}", kFn, args, from));
    if (!stmt.ok()) {
      st = stmt.status();
    } else {
      rc = stmt->Step();
      if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        st = InvalidInput(fmt::format("{}: corrupt SQLite database: {} (table {}, row {})", path_,
                                      SqliteErrorText(db_), what,
                                      *rows));
    }
  }
  sqlite3_create_function_v2(db_, kFn, -1, SQLITE_UTF8, nullptr, nullptr, nullptr, nullptr,
                             nullptr);
  return st;
}

Status SqliteDb::Error(std::string_view what) const {
  return InvalidInput(fmt::format("{}: {}: {}", path_, what, SqliteErrorText(db_)));
}

}  // namespace gpuwhy::import
