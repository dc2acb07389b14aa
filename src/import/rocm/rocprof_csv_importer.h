// rocprof CSV importer ("rocprof-csv"): the CSV files of rocprofv3 and of
// rocprof v1, recognised by their header row, whatever their file names.
//
// rocprofv3 (`--output-format csv`) writes one file per domain; each is read
// alone into its own trace, and MergeRocprofParts() (rocprof_parts.h) joins
// the parts of one run given together:
// - kernel_trace.csv  -> kernels (Grid_Size_* work-items become workgroups)
// - hip_api_trace.csv / hsa_api_trace.csv -> api_calls; marker_api_trace.csv
//   -> ranges (domain "roctx")
// - memory_copy_trace.csv -> memcpys
// - counter_collection.csv -> per-dispatch counter values as counter series
//   (one per agent and counter, at the dispatch's end), and the dispatches
//   as kernels when the file has timestamps (ROCm 6.2+)
// - agent_info.csv -> AMD devices (product and gfx names, CU count, wave size)
// rocprof v1: results.csv (per-dispatch BeginNs/EndNs, grd/wgr work-items)
// -> kernels. Files gpuwhy reads but that hold no timeline (`--stats`
// summaries `Name,Calls,TotalDurationNs,...` of either version, v1 counter
// results without timestamps) are one error line saying what they are and
// what to give instead (exit 2): never an idle GPU.
//
// Columns are found by header name with the aliases each release used (the
// layout drifted: integer vs "Agent N" agent ids, Stream_Id, LDS/scratch
// names). Times are the profiler's ns (TraceInfo::clock "rocprofiler" for
// v3, "hsa_system" for v1). TraceInfo::format is "rocprofv3-csv" or
// "rocprof-v1-csv"; format_version names the part ("kernel_trace", ...).
// A row whose cells do not match the header bumps garbage_row (a cut last
// one truncated_tail); a number cell holding text bumps non_numeric_value.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// RocprofCsvPart: which file a header row belongs to.
enum class RocprofCsvPart {
  kNone,
  kV3KernelTrace,
  kV3ApiTrace,        // hip / hsa / marker / rccl api traces (Domain,Function,...)
  kV3MemoryCopy,
  kV3CounterCollection,
  kV3AgentInfo,
  kStats,             // `--stats` summaries of v1 and v3
  kV1Results,         // results.csv with timestamps
  kV1Counters,        // results.csv / pmc output without timestamps
};

// ClassifyRocprofCsv: the part whose header starts `prefix` (the first bytes
// of a file), or kNone.
RocprofCsvPart ClassifyRocprofCsv(std::string_view prefix);

// RocprofPartName: "kernel_trace", "hip_api_trace", ... (TraceInfo::format_version).
std::string_view RocprofPartName(RocprofCsvPart part);

// ParseRocprofCsv: import the CSV `text` into `trace` (starts empty) and
// Finalize() it. `name` stands for the path in error messages.
Status ParseRocprofCsv(std::string_view text, const std::string& name, model::Trace& trace);

class RocprofCsvImporter final : public Importer {
 public:
  std::string_view name() const override { return "rocprof-csv"; }
  bool Sniff(const SourceInfo& src) const override {
    return ClassifyRocprofCsv(src.prefix) != RocprofCsvPart::kNone;
  }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
