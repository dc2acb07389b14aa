// Nsight Systems SQLite export importer ("nsys-sqlite").
//
// Contract: reads `nsys export --type sqlite` files of every schema seen in
// the wild (EXPORT_SCHEMA_VERSION 2.9.1 to 3.24.0) into the trace model:
// kernels, memcpy, memset, CUDA runtime + driver API (eventClass 0/1), sync,
// NVTX push/pop and start/end ranges (domain names from eventType 75 rows) and
// marks, TARGET_INFO_GPU devices (ordinal = cuDevice, the CUDA ordinal CUPTI
// uses, falling back to id), GPU_METRICS (or the 2022-style GENERIC_EVENTS
// JSON) as counter series, PROCESSES / ThreadNames, OSRT_API (api_calls with
// ApiKind::kOsRuntime) and PROFILER_OVERHEAD (ranges, kind kOther, domain
// kProfilerOverheadDomain).
//
// Clock: every *_ns value is nsys session time as exported (ns, may be
// negative); TraceInfo::clock is "nsys_session" and base_time_ns is
// TARGET_INFO_SESSION_START_TIME.utcEpochNs when present (UTC wall time of
// session time 0), so wall-clock logs can be aligned by adding it.
//
// CUPTI_ACTIVITY_KIND_KERNEL and _RUNTIME are decoded straight from the
// database file format by SqlitePageReader (sqlite_page_reader.h) when their
// layout is the plain one it knows, else read through sqlite3; the model is
// bit-identical either way (NsysScanStats says which path ran and why).
//
// The file is opened read-only with an immutable URI. Absent tables mean "no
// such data". A file that is not SQLite, a corrupt database, or a SQLite file
// without the nsys tables is one Status naming the path (and the table). Bad
// rows (NULL start/end) bump trace.stats and are skipped; invalid UTF-8 in
// StringIds is repaired (U+FFFD) and counted.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// Domain of the ranges made from PROFILER_OVERHEAD rows (nsys's gpu_gaps and
// gpu_time_util rules treat some of them as GPU work).
inline constexpr std::string_view kProfilerOverheadDomain = "nsys:PROFILER_OVERHEAD";
// Source name of counter series read from GPU_METRICS / GENERIC_EVENTS.
inline constexpr std::string_view kNsysMetricsSource = "nsys GPU_METRICS";

// NsysScanStats: row counts read per table (for tests and benchmarks).
struct NsysScanStats {
  uint64_t kernel_rows = 0;
  uint64_t memcpy_rows = 0;
  uint64_t memset_rows = 0;
  uint64_t runtime_rows = 0;
  uint64_t sync_rows = 0;
  uint64_t nvtx_rows = 0;
  uint64_t osrt_rows = 0;
  uint64_t overhead_rows = 0;
  uint64_t metric_rows = 0;
  uint64_t string_rows = 0;
  // kernel_readers: threads that read the kernel table (1 or 2).
  int kernel_readers = 1;
  // kernel_direct / runtime_direct: CUPTI_ACTIVITY_KIND_KERNEL / _RUNTIME
  // was read by SqlitePageReader (the file format decoded here, not the
  // SQLite VM).
  bool kernel_direct = false;
  bool runtime_direct = false;
  // direct_fallback: "TABLE: why" for the last table the page reader handed
  // back to the sqlite3 path (empty when none was).
  std::string direct_fallback;
};

// NsysReadOptions: how the kernel table is read. Results never depend on them:
// rows keep the table's rowid order whatever the thread count.
struct NsysReadOptions {
  // threads: readers of CUPTI_ACTIVITY_KIND_KERNEL, each on its own read-only
  // connection. 0 = automatic: 2 when the machine has 2+ hardware threads and
  // the table spans at least 2 chunks, else 1. Values above 2 act as 2.
  int threads = 0;
  // chunk_rows: rowids per range handed to one reader (at most 2 finished
  // ranges wait for the merge, so extra memory is ~3 chunks of kernel rows).
  int64_t chunk_rows = int64_t{1} << 16;
  // direct_reader: read CUPTI_ACTIVITY_KIND_KERNEL and _RUNTIME with
  // SqlitePageReader first (one thread; any layout it does not know goes to
  // the sqlite3 readers, `threads` above included). The model is the same
  // either way.
  bool direct_reader = true;
};

// ReadNsysSqlite: import the export at `path` into `trace` (which starts
// empty) and Finalize() it. On error `trace` holds partial data.
Status ReadNsysSqlite(const std::string& path, model::Trace& trace, NsysScanStats* scan = nullptr,
                      const NsysReadOptions& options = {});

// ReadNsysSqliteImage: the same import from a SQLite database image in memory
// (the bytes of a .sqlite file; copied, the caller keeps `bytes`). `name`
// stands for the path in error messages and TraceInfo::source_path. Always one
// reader thread. Used by the fuzzer and for exports that are not files.
Status ReadNsysSqliteImage(std::string_view bytes, const std::string& name, model::Trace& trace,
                           NsysScanStats* scan = nullptr);

// LooksLikeSqlite: true when `prefix` starts with the SQLite 3 header.
bool LooksLikeSqlite(std::string_view prefix);

class NsysImporter final : public Importer {
 public:
  std::string_view name() const override { return "nsys-sqlite"; }
  // Sniff: nsys exports, and every SQLite file no other importer claims
  // (import/sqlite_kind.h), so a foreign database gets a clear "not an nsys
  // export" error instead of "unknown format".
  bool Sniff(const SourceInfo& src) const override;
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadNsysSqlite(src.path, trace);
  }
};

}  // namespace gpuwhy::import
