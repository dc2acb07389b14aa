// Nsight Compute CSV importer ("ncu-csv"): the raw page (`ncu --csv --page
// raw`, one row per profiled kernel launch after a units row) and the details
// page (`ncu --csv --page details`, one row per kernel, section and metric,
// plus ncu's rule results), recognised by content (the fixed leading columns
// "ID","Process ID","Process Name","Host Name", then "Kernel Name"), never by
// file name. Also the same text printed by a live `ncu --csv` run (its
// leading `==PROF==` / `==WARNING==` lines are skipped).
//
// Contract:
// - One kernel row per launch ID, in ID order. Nsight Compute replays each
//   launch alone, so there is no timeline: each kernel's measured duration
//   (gpu__time_duration / "Duration", scaled by its own unit: the raw page's
//   units row, the details page's Metric Unit) is kept, and kernels are laid
//   end to end from 0 in launch order on clock "kernel-order" with
//   TraceInfo::kernels_untimed set. Analyses must not read gaps from it.
// - Launch configuration: grid and block from the "(x, y, z)" columns,
//   registers per thread, static and dynamic shared memory (bytes).
// - Measured figures (0..100, missing when not collected): SM, memory and
//   DRAM throughput of peak, achieved and theoretical occupancy, tensor pipe
//   activity; names from ncu 2020.3 to 2024.2 ("SOL SM" and "Compute (SM)
//   Throughput", metric names on either page).
// - Rule results of the details page go to trace.kernel_rules.
// - Device: ordinal, name and SM count when the page states them, CC "8.6".
// - A cell that should be a number and is text bumps non_numeric_value; a
//   row with fewer cells than the header bumps garbage_row; a kernel without
//   a duration is dropped (missing_dur). A header that is not ncu's, a quote
//   left open, or no kernel row with a duration is one Status naming the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// LooksLikeNcuCsv: true when `prefix` (after any `==` lines) starts with the
// header of an Nsight Compute raw or details CSV page.
bool LooksLikeNcuCsv(std::string_view prefix);

// NcuPage: one CSV page to read and the name its errors start with.
struct NcuPage {
  std::string_view text;
  std::string label;  // e.g. the path, or "ncu --page raw of x.ncu-rep"
};

// ParseNcuCsvPages: read one or more pages of the same report (e.g. raw and
// details) into `trace` (which starts empty): a kernel is keyed by its ID
// across pages, the first page that gives a figure wins. Sets info.format
// "ncu-csv", format_version ("raw page", "details page" or both), clock and
// kernels_untimed; calls Finalize(). Errors are one line: label, line, what.
Status ParseNcuCsvPages(const std::vector<NcuPage>& pages, model::Trace& trace);

class NcuCsvImporter final : public Importer {
 public:
  std::string_view name() const override { return "ncu-csv"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeNcuCsv(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
