#include "import/nsys/sqlite_db.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuwhy::import {

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
    o.db_ = nullptr;
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

Result<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path) {
  SqliteDb db;
  db.path_ = path;
  int rc = sqlite3_open_v2(SqliteUri(path).c_str(), &db.db_,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc);
    return InvalidInput(fmt::format("{}: cannot open as SQLite: {}", path, msg));
  }
  // Reading sqlite_master touches page 1: a corrupt or foreign file fails here.
  sqlite3_stmt* raw = nullptr;
  rc = sqlite3_prepare_v2(db.db_, "SELECT name FROM sqlite_master WHERE type='table'", -1, &raw,
                          nullptr);
  if (rc != SQLITE_OK)
    return InvalidInput(fmt::format("{}: not a valid SQLite database ({})", path,
                                    sqlite3_errmsg(db.db_)));
  SqliteStmt st(raw);
  while ((rc = st.Step()) == SQLITE_ROW) db.tables_.emplace_back(st.Text(0));
  if (rc != SQLITE_DONE)
    return InvalidInput(fmt::format("{}: corrupt SQLite database: {} (reading the table list)",
                                    path, sqlite3_errmsg(db.db_)));
  return db;
}

Result<SqliteStmt> SqliteDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  if (rc != SQLITE_OK)
    return InvalidInput(fmt::format("{}: SQLite error {} preparing `{}`", path_, sqlite3_errmsg(db_),
                                    sql.substr(0, 120)));
  return SqliteStmt(raw);
}

bool SqliteDb::HasTable(std::string_view name) const {
  return std::find(tables_.begin(), tables_.end(), name) != tables_.end();
}

std::vector<std::string> SqliteDb::Columns(std::string_view table) const {
  std::vector<std::string> cols;
  if (!HasTable(table)) return cols;
  std::string sql = fmt::format("PRAGMA table_info(\"{}\")", table);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) return cols;
  SqliteStmt st(raw);
  while (st.Step() == SQLITE_ROW) cols.emplace_back(st.Text(1));
  return cols;
}

Status SqliteDb::Error(std::string_view what) const {
  return InvalidInput(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

}  // namespace gpuwhy::import
