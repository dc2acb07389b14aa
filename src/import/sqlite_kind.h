// SqliteKind: which profiler wrote a SQLite database, told by its tables.
//
// Contract: the one place that decides which importer reads a SQLite file.
// Every SQLite importer's Sniff() asks SqliteKindOfSource() and claims only
// its own kind; the nsys importer also claims kOther, so a foreign database
// gets one clear error line instead of "unknown format". Decided from table
// and view names (and, for rocprof v1, a column name) only: no rows are read.
#pragma once

#include <string_view>

#include "import/importer.h"
#include "import/nsys/sqlite_db.h"

namespace gpuwhy::import {

enum class SqliteKind {
  kNotSqlite,   // no SQLite header
  kNsys,        // `nsys export --type sqlite`: StringIds + metadata / CUPTI tables
  kRocpd,       // rocprofv3 (ROCm >= 7) rocpd: rocpd_info_* / rocpd_track / rocpd_timestamp
  kRpd,         // rocmProfileData .rpd: rocpd_op + rocpd_api
  kRocprofV1,   // rocprof v1 results.db: KERN / OPS / HIP / HSA / COPY tables
  kOther,       // SQLite, none of the above (or unreadable: the reader says why)
};

// ClassifySqlite: the kind of an opened database (never kNotSqlite).
SqliteKind ClassifySqlite(const SqliteDb& db);

// SqliteKindOfSource: kNotSqlite without the SQLite header in src.prefix;
// otherwise opens src.path read-only and classifies it (kOther when it does
// not open). The last answer is remembered per path, size and mtime, so the
// importers asking in turn open the file once.
SqliteKind SqliteKindOfSource(const SourceInfo& src);

// SqliteKindName: a short human name ("rocprofv3 rocpd", "RPD", ...).
std::string_view SqliteKindName(SqliteKind kind);

}  // namespace gpuwhy::import
