// nvidia-smi text importers.
//
// SmiCsvImporter ("nvidia-smi-csv"): `nvidia-smi --query-gpu=... --format=csv`
// logs with any subset and order of columns, with or without units and
// headers (including the single-column noheader "N %" form), several GPUs
// interleaved (index / uuid / pci.bus_id), appended multi-job logs (repeated
// or changed headers), a truncated last line, full `nvidia-smi` table dumps in
// between (skipped as garbage rows). SmiDmonImporter ("nvidia-smi-dmon"):
// `nvidia-smi dmon` and `pmon` text (pmon rows go to gpu_processes).
// Both write CounterSeries (source "nvidia-smi") in canonical units; see
// smi_common.h for value and timestamp rules.
#pragma once

#include <string_view>

#include "import/importer.h"

namespace gpuwhy::import {

// LooksLikeSmiCsv / LooksLikeSmiDmon: content sniffers (the file name is not used).
bool LooksLikeSmiCsv(std::string_view prefix);
bool LooksLikeSmiDmon(std::string_view prefix);

// ReadSmiCsvText / ReadSmiDmonText: parse the whole log text into `trace` and Finalize().
Status ReadSmiCsvText(std::string_view text, model::Trace& trace);
Status ReadSmiDmonText(std::string_view text, model::Trace& trace);

class SmiCsvImporter final : public Importer {
 public:
  std::string_view name() const override { return "nvidia-smi-csv"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeSmiCsv(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

class SmiDmonImporter final : public Importer {
 public:
  std::string_view name() const override { return "nvidia-smi-dmon"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeSmiDmon(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
