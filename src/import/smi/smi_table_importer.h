// nvidia-smi full-report importers: the logs newcomers have.
//
// SmiTableImporter ("nvidia-smi-table"): the default `nvidia-smi` table,
// once or in a loop (`nvidia-smi -l 60 >> gpu.log`, `watch -n 1 nvidia-smi`
// captured to a file, cron). Layouts of driver branches 418..580: the
// 3-column GPU block with 2 header lines (< 450) or 3 (MIG M., >= 450), the
// wider 535+/550+ columns (Disp.A / Disp.M, `Pwr:Usage/Cap` moved), Windows'
// TCC/WDDM column, the "MIG devices" table (skipped: MIG slices are not
// whole GPUs), and the process table with or without GI/CI ids. Fields are
// found by their header labels (Bus-Id, Pwr:Usage/Cap, Memory-Usage,
// GPU-Util, ...), not by column offsets. Each report's time is the ctime
// banner line before it (`Thu Dec  3 14:46:09 2026`, also the tail of a
// `watch` header); reports without banners are untimed (ts_are_indexes).
//
// SmiQueryImporter ("nvidia-smi-q"): `nvidia-smi -q` text and `nvidia-smi -q
// -x` XML, single or repeated (`-l`): Timestamp, product name, bus id, FB
// memory, utilization, temperature, power draw / limit, clocks, performance
// state, processes.
//
// Both: a GPU row or process row that cannot be parsed bumps
// malformed_table_row; a truncated last line bumps truncated_tail; an input
// with no readable GPU at all, or XML whose tags do not nest, is one
// InvalidInput naming the line or byte offset. Series source "nvidia-smi".
#pragma once

#include <string_view>

#include "import/importer.h"

namespace gpuwhy::import {

// LooksLikeSmiTable: a `| NVIDIA-SMI <version> ... Driver Version:` line.
bool LooksLikeSmiTable(std::string_view prefix);
// LooksLikeSmiQuery: the "==NVSMI LOG==" banner (-q) or <nvidia_smi_log> (-q -x).
bool LooksLikeSmiQuery(std::string_view prefix);

// ReadSmiTableText / ReadSmiQueryText: parse the whole text into `trace` and Finalize().
Status ReadSmiTableText(std::string_view text, model::Trace& trace);
Status ReadSmiQueryText(std::string_view text, model::Trace& trace);

class SmiTableImporter final : public Importer {
 public:
  std::string_view name() const override { return "nvidia-smi-table"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeSmiTable(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

class SmiQueryImporter final : public Importer {
 public:
  std::string_view name() const override { return "nvidia-smi-q"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeSmiQuery(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
