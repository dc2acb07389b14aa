// ROCm SQLite importers, each claiming its own kind of database
// (import/sqlite_kind.h decides by tables):
//
// - "rocpd-sqlite": rocprofv3's rocpd database (ROCm >= 7, `<pid>_results.db`;
//   schema version 3 of rocprofiler-sdk's rocpd_tables.sql). Read from the
//   per-session tables `rocpd_*<uuid>` (a uuid-free view only where no such
//   table exists), in either layout: start/end, agent, queue and stream in
//   each event row (as released), or start_id/end_id/track_id rows pointing
//   at rocpd_timestamp / rocpd_track. Kernel dispatches (grid work-items become workgroups;
//   names from rocpd_info_kernel_symbol), memory copies, regions (HIP/HSA API
//   calls; roctx markers become ranges) joined on rocpd_event.correlation_id,
//   PMC values (rocpd_pmc_event) as per-dispatch counter series, GPU agents
//   (rocpd_info_agent: product and gfx names, CU count and limits from
//   extdata) and processes. Device ids are the agents' logical indexes, as
//   rocprofv3's CSV "Agent N" shows them. Clock "rocprofiler".
// - "rpd-sqlite": rocmProfileData `.rpd` (rocpd_op / rocpd_api /
//   rocpd_api_ops / rocpd_kernelapi / rocpd_copyapi / rocpd_monitor). GPU ops
//   become kernels, copies and memsets; an op's API call is its launch and
//   the API row id is the correlation id of both. hipLaunchKernel grids are
//   workgroups already; hipExtModuleLaunchKernel / hipHccModuleLaunchKernel
//   grids are work-items and become workgroups. `UserMarker` rows become
//   ranges; sclk monitor samples a clock series. An op's stream is its
//   queueId. Clock "rpd".
// - "rocprof-v1-db": rocprof v1 `results.db` (tables OPS / KERN, COPY, HIP,
//   HSA with BeginNs/EndNs). `Index` is the correlation id linking an API
//   call to its kernel or copy. Clock "hsa_system".
//
// Each reader reads its tables whole into id-indexed arrays and scans the
// event tables once instead of joining per row: integer tables straight from
// their B-tree pages (SqlitePageReader, as the nsys reader does), others and
// any the page reader refuses through SqliteDb::ScanRows; rocpd's event table
// on a second thread with its own connection. A
// database of its kind with no row gpuwhy maps is one error line saying what
// it holds (exit 2); corrupt pages are one error line naming the table and row.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// RocmSqliteScan: rows read per kind of table (tests and benches).
struct RocmSqliteScan {
  uint64_t kernel_rows = 0;
  uint64_t copy_rows = 0;
  uint64_t api_rows = 0;
  uint64_t timestamp_rows = 0;
  uint64_t pmc_rows = 0;
};

// ReadRocmSqlite: import the rocpd, RPD or rocprof v1 database at `path`
// (whichever it is) into `trace` and Finalize() it. Any other database is an
// error naming what was found.
Status ReadRocmSqlite(const std::string& path, model::Trace& trace, RocmSqliteScan* scan = nullptr);

// ReadRocmSqliteImage: the same from an in-memory database image (fuzzer).
Status ReadRocmSqliteImage(std::string_view bytes, const std::string& name, model::Trace& trace);

class RocpdImporter final : public Importer {
 public:
  std::string_view name() const override { return "rocpd-sqlite"; }
  bool Sniff(const SourceInfo& src) const override;
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadRocmSqlite(src.path, trace);
  }
};

class RpdImporter final : public Importer {
 public:
  std::string_view name() const override { return "rpd-sqlite"; }
  bool Sniff(const SourceInfo& src) const override;
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadRocmSqlite(src.path, trace);
  }
};

class RocprofV1DbImporter final : public Importer {
 public:
  std::string_view name() const override { return "rocprof-v1-db"; }
  bool Sniff(const SourceInfo& src) const override;
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadRocmSqlite(src.path, trace);
  }
};

}  // namespace gpuwhy::import
