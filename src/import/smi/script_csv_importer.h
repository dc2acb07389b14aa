// Monitoring-script CSV importer ("monitor-csv"): logs that scripts write
// with a header of their own (`timestamp,gpu_index,utilization_gpu_percent,
// power_W`, `time,util,mem,watts`, gpuutiliz's whitespace-separated
// `timestamp dev_uuid dev_util_pc ...`). Last in the registry's order: the
// formats with a known header (nvidia-smi, DCGM) are read by their own
// importers first, and headers of profiler CSVs (rocprof, Nsight Compute) are
// refused here whatever the order.
//
// Contract: columns are recognised by meaning from their names: time, GPU
// index or UUID, GPU utilization, memory utilization, memory used/total,
// power and its limit, temperature, SM/memory clocks, the GPU name. Units come
// from the name (`_pct`, `[%]`, `_W`, `(MiB)`, `_gb`, `_mhz`), from a unit in
// the cells (`45 %`), else from the values (utilization <= 1 throughout is a
// ratio, else percent; power above 5000 is mW); each column's reading is one
// line of TraceInfo::import_notes. Cells `N/A` and friends are missing. Times:
// ISO-8601, nvidia-smi's `2024/01/31 12:34:56.789`, epoch s/ms/us/ns; small
// numbers (< 1e8) are seconds (or ms by name) since the log's start, on a
// clock of their own ("log_relative"); without a time column, row indexes.
// A header with no column readable as utilization is InvalidInput naming the
// columns (one line).
#pragma once

#include <string_view>

#include "import/importer.h"

namespace gpuwhy::import {

// LooksLikeScriptCsv: a header of name-like cells (comma, tab, semicolon or
// whitespace separated) with a utilization-like column, or two monitoring
// columns (power, memory, temperature, clocks) beside a time or GPU column,
// followed by a data row of the same width; never a profiler CSV's header.
bool LooksLikeScriptCsv(std::string_view prefix);

// ReadScriptCsvText: parse the whole log into `trace` and Finalize().
Status ReadScriptCsvText(std::string_view text, model::Trace& trace);

class ScriptCsvImporter final : public Importer {
 public:
  std::string_view name() const override { return "monitor-csv"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeScriptCsv(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
