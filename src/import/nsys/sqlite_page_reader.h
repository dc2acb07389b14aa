// SqlitePageReader: a direct reader of the SQLite 3 database file format for
// one rowid table whose wanted columns all hold integers (the nsys kernel
// table), bypassing the SQLite VM's per-row record decoding.
//
// Lifecycle: PlanIntTable() asks an open sqlite3 connection (the cheap part:
// sqlite_master and PRAGMA table_xinfo) where the table's B-tree starts and
// which record slot each wanted column is; OpenFile()/OpenImage() check the
// database header; ScanInts() walks the table B-tree in rowid order (the
// order a plain SELECT returns) and hands each leaf page's rows, decoded to
// int64, to a callback.
//
// Contract: every non-OK Status means "use the sqlite3 path instead"; it
// says why (for tests and benchmarks) and is never an import error. It comes
// back for anything outside the plain layout this reader knows: WAL mode (or
// a -wal file), unusual header values, a page type other than table interior
// (0x05) / leaf (0x0d) (so WITHOUT ROWID tables), virtual tables, generated columns, a
// REAL, text or blob value in a wanted column, a default it cannot evaluate,
// a page number out of range or seen twice, any offset outside its page, or
// a file that changed during the scan. Rows already handed to the callback
// must then be discarded by the caller. Every offset read from the file is
// bounds-checked, so malformed input never reads out of bounds; nothing
// throws. Memory stays bounded: a file is read by pread in blocks of at most
// 256 KiB (one cached block plus one copy per B-tree level), never whole.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy::import {

// PageColumn: where one wanted column comes from in a table record.
struct PageColumn {
  // slot: the column's index in the record; -1 = not in the table (reads NULL).
  int slot = -1;
  // is_rowid: an INTEGER PRIMARY KEY alias; the value is the cell's rowid.
  bool is_rowid = false;
  // default_value: the value when a record is shorter than `slot` (a column
  // added by ALTER TABLE); kMissingI64 for NULL.
  int64_t default_value = 0;
  // default_known: false when the DEFAULT is not NULL or an integer literal;
  // a short record then makes the scan fall back.
  bool default_known = true;
};

// PageTablePlan: what ScanInts() needs about one table.
struct PageTablePlan {
  uint32_t root_page = 0;
  std::vector<PageColumn> columns;
};

// PlanIntTable: the plan for reading `columns` of rowid table `table` through
// connection `db`; a name that is not a column of the table gets slot -1.
// Fails (fall back) for a missing, virtual or WITHOUT ROWID table, hidden
// (generated) columns, or a wanted column with REAL affinity.
Result<PageTablePlan> PlanIntTable(sqlite3* db, std::string_view table,
                                   const std::vector<std::string_view>& columns);

// ImageOf: the bytes of an in-memory (deserialized) database held by `db`
// without copying, or an empty view when it has none.
std::string_view ImageOf(sqlite3* db);

class SqlitePageReader {
 public:
  // IntRowsFn: called once per leaf page with `n_rows` rows of
  // plan.columns.size() values each (row-major, NULL = kMissingI64); the
  // buffer is valid only during the call.
  using IntRowsFn = std::function<void(const int64_t* values, size_t n_rows)>;

  SqlitePageReader() = default;
  SqlitePageReader(SqlitePageReader&& o) noexcept;
  SqlitePageReader& operator=(SqlitePageReader&& o) noexcept;
  SqlitePageReader(const SqlitePageReader&) = delete;
  SqlitePageReader& operator=(const SqlitePageReader&) = delete;
  ~SqlitePageReader();

  // OpenFile: open `path` read-only and check its header (see the contract).
  static Result<SqlitePageReader> OpenFile(const std::string& path);
  // OpenImage: read the database image `bytes` (not copied: the caller keeps
  // it alive and unchanged while the reader is used).
  static Result<SqlitePageReader> OpenImage(std::string_view bytes);

  // ScanInts: all rows of the table `plan` describes, in rowid order, through
  // `rows`; `*n_rows` counts the rows handed over (also on failure).
  Status ScanInts(const PageTablePlan& plan, const IntRowsFn& rows, uint64_t* n_rows);

  uint32_t page_size() const { return page_size_; }
  uint32_t page_count() const { return page_count_; }

 private:
  // Page: page `pgno` (1-based), `page_size_` bytes, valid until the next call.
  Result<const uint8_t*> Page(uint32_t pgno);
  // GatherOverflow: the record of a cell whose local part is `local` bytes of a
  // `total`-byte payload continued on overflow page `next`, gathered in scratch_.
  Status GatherOverflow(const uint8_t* local, uint32_t n_local, uint64_t total, uint32_t next,
                        std::vector<uint8_t>* visited);
  // ReadRaw: bytes [at, at + n) of page `pgno` into `out`, bypassing the block cache.
  Status ReadRaw(uint32_t pgno, uint32_t at, uint32_t n, uint8_t* out) const;
  Status DecodeLeaf(const uint8_t* page, uint32_t pgno, const PageTablePlan& plan,
                    std::vector<uint8_t>* visited);
  Status Unchanged() const;

  int fd_ = -1;
  std::string path_;
  const uint8_t* image_ = nullptr;  // OpenImage bytes, or null for a file
  uint64_t size_ = 0;               // file / image size in bytes
  uint32_t page_size_ = 0;
  uint32_t usable_ = 0;  // page size less reserved bytes
  uint32_t page_count_ = 0;
  uint8_t header_[100] = {};
  int64_t mtime_ns_ = 0;
  uint64_t ino_ = 0;
  // Block cache of a file: bytes [block_off_, block_off_ + block_.size()).
  std::vector<uint8_t> block_;
  uint64_t block_off_ = 0;
  bool block_valid_ = false;
  std::vector<uint8_t> scratch_;  // an overflowing record, reassembled
  std::vector<int64_t> values_;   // one leaf page's decoded rows
};

}  // namespace gpuwhy::import
