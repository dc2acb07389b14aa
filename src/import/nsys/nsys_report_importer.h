// Nsight Systems report importer ("nsys-report"): `.nsys-rep` and legacy
// `.qdrep` files, recognised by content (the "NVIDIA Tegra Profiler Report"
// header both generations start with), never by file name.
//
// Contract: the report's own format is not decoded here. When `nsys` is on
// PATH, Read() runs `nsys export --type sqlite --output <tmp>/x.sqlite <file>`
// (no shell, a timeout), imports the export with ReadNsysSqlite
// (nsys_importer.h) and removes the temporary directory on every path.
// TraceInfo::format is "nsys-report"; format_version names the nsys version
// that wrote the report and the one that exported it ("2021.1.1.66, exported
// by nsys 2024.2.3.38").
// Without `nsys` on PATH, or when the export fails, Read() returns one
// kUnsupported Status of one line naming the file, the nsys version that wrote
// it (when the file states it) and either the export command to run or nsys's
// own message.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// kNsysReportMagic: the first bytes of every Nsight Systems report seen
// (.qdrep 2020.3 to .nsys-rep 2023.3), followed by a format number ("1.\n").
inline constexpr std::string_view kNsysReportMagic = "NVIDIA Tegra Profiler Report ";

// LooksLikeNsysReport: true when `prefix` starts with kNsysReportMagic.
bool LooksLikeNsysReport(std::string_view prefix);

// NsysReportVersion: the version of Nsight Systems that wrote the report at
// `path` (e.g. "2021.1.1.66"), read from the metadata record at the file's
// end; empty when the file cannot be read or states none. Never fails.
std::string NsysReportVersion(const std::string& path);

// NsysReportVersionIn: as NsysReportVersion, from bytes of the file's tail:
// the last length-prefixed string of the form YYYY.N.N.N[-build] it holds,
// without the build suffix; empty when there is none.
std::string NsysReportVersionIn(std::string_view tail);

// ReadNsysReport: import the report at `path` through `nsys export` (see the
// file comment) into `trace` (which starts empty). On error `trace` is left
// with partial data the caller discards.
Status ReadNsysReport(const std::string& path, model::Trace& trace);

class NsysReportImporter final : public Importer {
 public:
  std::string_view name() const override { return "nsys-report"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeNsysReport(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadNsysReport(src.path, trace);
  }
};

}  // namespace gpuwhy::import
