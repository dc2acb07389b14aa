#include "import/ncu/ncu_report_importer.h"

#include <fmt/format.h>

#include "base/subprocess.h"
#include "import/ncu/ncu_csv_importer.h"
#include "import/shell_word.h"

namespace gpuwhy::import {

namespace {

// An export of a large report takes a while; a hung ncu must not hang gpuwhy.
constexpr int64_t kNcuExportTimeoutMs = int64_t{30} * 60 * 1000;
constexpr int64_t kNcuVersionTimeoutMs = int64_t{60} * 1000;
// A page of many thousand kernels is hundreds of MB of CSV.
constexpr size_t kNcuMaxPageBytes = size_t{2} << 30;

// NcuToolLine: ncu's complaint as one short line: its first line that says
// "error", else its last non-empty line.
std::string NcuToolLine(const ProcessResult& r) {
  const std::string text = r.stderr_text + "\n" + r.stdout_text;
  std::string best, last;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) {
      if (best.empty() && (line.find("ERROR") != std::string::npos ||
                           line.find("rror") != std::string::npos))
        best = line;
      last = line;
    }
    pos = end + 1;
  }
  std::string msg = best.empty() ? last : best;
  for (char& c : msg)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (msg.size() > 400) msg = msg.substr(0, 400) + "...";
  return msg;
}

// NcuToolVersion: "ncu 2024.2.0.0" from `ncu --version` ("... Version
// 2024.2.0.0 (build ...)"), or "ncu" when it says nothing usable.
std::string NcuToolVersion(const std::string& ncu) {
  ProcessOptions o;
  o.timeout_ms = kNcuVersionTimeoutMs;
  Result<ProcessResult> r = RunProcess({ncu, "--version"}, o);
  if (!r.ok() || r->exit_code != 0) return "ncu";
  const std::string& s = r->stdout_text;
  size_t v = s.find("Version ");
  if (v == std::string::npos) return "ncu";
  v += 8;
  size_t e = v;
  while (e < s.size() && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.')) ++e;
  return e > v ? "ncu " + s.substr(v, e - v) : std::string("ncu");
}

// NcuExportPage: `ncu --import path --csv --page page`'s output.
Result<std::string> NcuExportPage(const std::string& ncu, const std::string& tool,
                                  const std::string& path, const char* page) {
  ProcessOptions o;
  o.timeout_ms = kNcuExportTimeoutMs;
  o.max_output_bytes = kNcuMaxPageBytes;
  Result<ProcessResult> r = RunProcess({ncu, "--import", path, "--csv", "--page", page}, o);
  if (!r.ok())
    return Unsupported(fmt::format("{}: Nsight Compute report; {}", path, r.status().message()));
  if (r->timed_out)
    return Unsupported(fmt::format("{}: Nsight Compute report; `{} --import` did not finish in {} s",
                                   path, tool, kNcuExportTimeoutMs / 1000));
  if (r->exit_code != 0 || !LooksLikeNcuCsv(r->stdout_text)) {
    std::string why = NcuToolLine(*r);
    if (why.empty())
      why = r->exit_code >= 0 ? fmt::format("exit code {}", r->exit_code)
                              : fmt::format("killed by signal {}", r->term_signal);
    return Unsupported(fmt::format("{}: Nsight Compute report; {} could not export its {} page: {}",
                                   path, tool, page, why));
  }
  return std::move(r->stdout_text);
}

}  // namespace

bool LooksLikeNcuReport(std::string_view prefix) {
  if (prefix.size() < 9 || prefix.substr(0, 4) != std::string_view("NVR\0", 4)) return false;
  // A little-endian format number (2 in every report seen), then a protobuf
  // field tag (0x08: field 1, varint).
  const auto b = [&](size_t i) { return static_cast<unsigned char>(prefix[i]); };
  const uint32_t version = b(4) | (b(5) << 8) | (b(6) << 16) | (uint32_t{b(7)} << 24);
  return version >= 1 && version <= 64 && b(8) == 0x08;
}

Status ReadNcuReport(const std::string& path, model::Trace& trace) {
  const std::string ncu = FindOnPath("ncu");
  if (ncu.empty()) {
    std::string base = path;
    if (size_t dot = base.rfind('.'); dot != std::string::npos && base.find('/', dot) == base.npos &&
                                      dot > 0 && base[dot - 1] != '/')
      base = base.substr(0, dot);
    const std::string out = base + ".raw.csv";
    return Unsupported(fmt::format(
        "{}: Nsight Compute report; gpuwhy reads its CSV export and `ncu` is not on PATH: run "
        "`ncu --import {} --csv --page raw > {}`, then `gpuwhy analyze {}`",
        path, ShellWord(path), ShellWord(out), ShellWord(out)));
  }
  const std::string tool = NcuToolVersion(ncu);
  ASSIGN_OR_RETURN(std::string raw, NcuExportPage(ncu, tool, path, "raw"));
  ASSIGN_OR_RETURN(std::string details, NcuExportPage(ncu, tool, path, "details"));
  Status st = ParseNcuCsvPages({NcuPage{raw, path + " (" + tool + " --page raw)"},
                                NcuPage{details, path + " (" + tool + " --page details)"}},
                               trace);
  if (!st.ok()) return st;
  trace.info.source_path = path;
  trace.info.format = "ncu-report";
  trace.info.format_version = trace.info.format_version + ", exported by " + tool;
  return Status::Ok();
}

}  // namespace gpuwhy::import
