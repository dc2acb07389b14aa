// Nsight Compute report importer ("ncu-report"): `.ncu-rep` files,
// recognised by content (the "NVR\0" container header followed by a small
// little-endian format number, seen in reports of ncu 2020.3 to 2024.1),
// never by file name.
//
// Contract: the report's own (protobuf) format is not decoded here. When
// `ncu` is on PATH, Read() runs `ncu --import FILE --csv --page raw` and
// `ncu --import FILE --csv --page details` (no shell, a timeout each, output
// captured in memory) and reads both pages with ParseNcuCsvPages
// (ncu_csv_importer.h): raw gives every metric, details the rule results.
// TraceInfo::format is "ncu-report"; format_version names the pages and the
// ncu that exported them. Without `ncu` on PATH, or when the export fails,
// Read() returns one kUnsupported Status of one line naming the file and
// either the export command to run or ncu's own message.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// LooksLikeNcuReport: true when `prefix` starts with the .ncu-rep header.
bool LooksLikeNcuReport(std::string_view prefix);

// ReadNcuReport: import the report at `path` through `ncu --import` (see the
// file comment) into `trace` (which starts empty).
Status ReadNcuReport(const std::string& path, model::Trace& trace);

class NcuReportImporter final : public Importer {
 public:
  std::string_view name() const override { return "ncu-report"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeNcuReport(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadNcuReport(src.path, trace);
  }
};

}  // namespace gpuwhy::import
