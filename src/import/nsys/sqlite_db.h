// SqliteDb / SqliteStmt: a thin RAII layer over the sqlite3 C API for the nsys
// importer and its tools.
//
// Contract: OpenReadOnly() opens a file read-only through an `immutable=1`
// URI, so read-only or shared files work and no journal is touched. Errors
// come back as Status values naming the path and what SQLite said; nothing
// throws. Statements are prepared once and stepped; column getters return the
// kMissing* sentinels for SQL NULL.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"
#include "base/units.h"

namespace gpuwhy::import {

class SqliteStmt {
 public:
  SqliteStmt() = default;
  explicit SqliteStmt(sqlite3_stmt* s) : stmt_(s) {}
  SqliteStmt(SqliteStmt&& o) noexcept : stmt_(o.stmt_) { o.stmt_ = nullptr; }
  SqliteStmt& operator=(SqliteStmt&& o) noexcept {
    if (this != &o) {
      sqlite3_finalize(stmt_);
      stmt_ = o.stmt_;
      o.stmt_ = nullptr;
    }
    return *this;
  }
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;
  ~SqliteStmt() { sqlite3_finalize(stmt_); }

  // Step: SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  bool IsNull(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  // I64/I32: the integer value, or the missing sentinel for NULL.
  // NULL reads as 0 through sqlite3_column_int64, so the type is asked only
  // for zeros (halves the calls on the hot kernel path).
  int64_t I64(int i) const {
    int64_t v = sqlite3_column_int64(stmt_, i);
    return (v == 0 && IsNull(i)) ? kMissingI64 : v;
  }
  int32_t I32(int i) const {
    int64_t v = sqlite3_column_int64(stmt_, i);
    if (v == 0 && IsNull(i)) return kMissingI32;
    return (v < INT32_MIN + 1 || v > INT32_MAX) ? kMissingI32 : static_cast<int32_t>(v);
  }
  double F64(int i) const { return IsNull(i) ? kMissingF64 : sqlite3_column_double(stmt_, i); }
  // Text: the raw bytes (may be invalid UTF-8); empty for NULL.
  std::string_view Text(int i) const {
    const unsigned char* p = sqlite3_column_text(stmt_, i);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, i))};
  }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// SqliteArgs: the values of one row inside a SqliteDb::ScanRows callback, with
// the same getters (and the same NULL -> kMissing* rules) as SqliteStmt.
// Valid only during the callback.
class SqliteArgs {
 public:
  explicit SqliteArgs(sqlite3_value** v) : v_(v) {}
  bool IsNull(int i) const { return sqlite3_value_type(v_[i]) == SQLITE_NULL; }
  int64_t I64(int i) const {
    int64_t v = sqlite3_value_int64(v_[i]);
    return (v == 0 && IsNull(i)) ? kMissingI64 : v;
  }
  int32_t I32(int i) const {
    int64_t v = sqlite3_value_int64(v_[i]);
    if (v == 0 && IsNull(i)) return kMissingI32;
    return (v < INT32_MIN + 1 || v > INT32_MAX) ? kMissingI32 : static_cast<int32_t>(v);
  }
  double F64(int i) const { return IsNull(i) ? kMissingF64 : sqlite3_value_double(v_[i]); }
  std::string_view Text(int i) const {
    const unsigned char* p = sqlite3_value_text(v_[i]);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v_[i]))};
  }

 private:
  sqlite3_value** v_;
};

class SqliteDb {
 public:
  SqliteDb() = default;
  SqliteDb(SqliteDb&& o) noexcept
      : db_(o.db_), path_(std::move(o.path_)), tables_(std::move(o.tables_)),
        views_(std::move(o.views_)), in_memory_(o.in_memory_) {
    o.db_ = nullptr;
  }
  SqliteDb& operator=(SqliteDb&& o) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  // OpenReadOnly: open `path` read-only (immutable). Probes the header so a
  // non-database file fails here with "not a SQLite database".
  static Result<SqliteDb> OpenReadOnly(const std::string& path);

  // OpenImage: a read-only in-memory database holding a copy of `bytes` (a
  // SQLite file image); `name` stands for the path in messages. Fails like
  // OpenReadOnly for an image that is not a database.
  static Result<SqliteDb> OpenImage(std::string_view bytes, const std::string& name);

  // Prepare: compile `sql`; the error names the path and the statement.
  Result<SqliteStmt> Prepare(std::string_view sql) const;
  // in_memory: true for OpenImage databases (no path another connection could open).
  bool in_memory() const { return in_memory_; }
  // Tables: names of every table in sqlite_master.
  const std::vector<std::string>& Tables() const { return tables_; }
  bool HasTable(std::string_view name) const;
  // Views: names of every view in sqlite_master (rocpd databases read
  // through views over per-session tables).
  const std::vector<std::string>& Views() const { return views_; }
  bool HasView(std::string_view name) const;
  // Columns: column names of the table or view `table` (empty when absent).
  std::vector<std::string> Columns(std::string_view table) const;
  // ScanRows: runs `SELECT <agg>(<args>) FROM <from>` where <agg> is an
  // aggregate function registered here that calls `row(const SqliteArgs&)`
  // once per source row, in the same order a plain SELECT would return them.
  // This skips the per-row sqlite3_step return and the per-column
  // sqlite3_column_* API calls (mutex, error checks), which cost more than
  // the B-tree scan itself on wide tables. `args` is a comma list of column
  // names or expressions. Returns the step error (corrupt page, ...) as a
  // Status naming the path and `what`; `*rows` counts the rows seen.
  template <typename RowFn>
  Status ScanRows(std::string_view args, std::string_view from, std::string_view what, RowFn&& row,
                  uint64_t* rows) const {
    struct Ctx {
      uint64_t rows;
      std::remove_reference_t<RowFn>* fn;
    } ctx{0, &row};
    auto step = [](sqlite3_context* c, int, sqlite3_value** v) {
      Ctx* x = static_cast<Ctx*>(sqlite3_user_data(c));
      ++x->rows;
      (*x->fn)(SqliteArgs(v));
    };
    Status st = RunScan(args, from, what, &ctx, step, &ctx.rows);
    *rows = ctx.rows;
    return st;
  }
  // Error: a Status naming the path, `what` and SQLite's last message.
  Status Error(std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* get() const { return db_; }

 private:
  using StepFn = void (*)(sqlite3_context*, int, sqlite3_value**);
  // RunScan: registers `step` with user data `ctx`, runs the scan; `rows` (the
  // count `step` keeps) goes into the error message.
  Status RunScan(std::string_view args, std::string_view from, std::string_view what, void* ctx,
                 StepFn step, const uint64_t* rows) const;

  sqlite3* db_ = nullptr;
  std::string path_;
  std::vector<std::string> tables_;
  std::vector<std::string> views_;
  bool in_memory_ = false;
};

// OneLine: `s` with every control character (newline, tab, ...) turned into a
// space and cut to `max_bytes` (with "..."), so text taken from a database
// (SQLite's messages quote schema SQL) keeps an error message on one line.
std::string OneLine(std::string_view s, size_t max_bytes = 240);

// SqliteErrorText: OneLine(sqlite3_errmsg(db)).
std::string SqliteErrorText(sqlite3* db);

// SqliteUri: "file:" URI of `path` with `?immutable=1` (and %, ?, # escaped).
std::string SqliteUri(const std::string& path);

}  // namespace gpuwhy::import
