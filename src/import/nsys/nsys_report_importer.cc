#include "import/nsys/nsys_report_importer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "base/ascii.h"
#include "base/subprocess.h"
#include "import/nsys/nsys_importer.h"
#include "import/shell_word.h"

namespace gpuwhy::import {

namespace {

// The version record sits in the last few KiB of every report seen; 64 KiB
// leaves room for a longer command line or environment in it.
constexpr size_t kReportTailBytes = size_t{64} << 10;
// An export of a large report takes minutes; a hung nsys must not hang gpuwhy.
constexpr int64_t kNsysExportTimeoutMs = int64_t{30} * 60 * 1000;
constexpr int64_t kNsysVersionTimeoutMs = int64_t{60} * 1000;

bool RepDigit(char c) { return c >= '0' && c <= '9'; }
bool RepAlnum(char c) { return RepDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// RepVersionLength: length of the version token YYYY.N.N.N[-build] at the
// start of `s` (0 when there is none). The build suffix is alphanumeric.
size_t RepVersionLength(std::string_view s) {
  size_t i = 0;
  for (; i < 4; ++i)
    if (i >= s.size() || !RepDigit(s[i])) return 0;
  for (int part = 0; part < 3; ++part) {
    if (i >= s.size() || s[i] != '.') return 0;
    size_t start = ++i;
    while (i < s.size() && RepDigit(s[i])) ++i;
    if (i == start) return 0;
  }
  if (i + 1 < s.size() && s[i] == '-' && RepAlnum(s[i + 1])) {
    ++i;
    while (i < s.size() && RepAlnum(s[i])) ++i;
  }
  return i;
}

// RepNumericVersion: "2023.3.1.92-233133147223v0" -> "2023.3.1.92".
std::string RepNumericVersion(std::string_view v) { return std::string(v.substr(0, v.find('-'))); }

// RepShellWord: the one shell-quoting rule of the report importers (shell_word.h).
std::string RepShellWord(std::string_view s) { return ShellWord(s); }

// RepSqlitePath: where the export of `path` should go: its extension replaced
// by ".sqlite" (a name without one gets ".sqlite" appended).
std::string RepSqlitePath(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return path + ".sqlite";
  return path.substr(0, dot) + ".sqlite";
}

// RepToolMessage: nsys's own complaint as one line: the line that says why
// (an "error"/"newer than" line) when there is one, else the last non-empty
// line; capped so that the error stays one readable line.
std::string RepToolMessage(const ProcessResult& r) {
  std::string text = r.stderr_text.empty() ? r.stdout_text : r.stderr_text + "\n" + r.stdout_text;
  std::string best, last;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    size_t lead = line.find_first_not_of(" \t");
    line = lead == std::string::npos ? std::string() : line.substr(lead);
    if (!line.empty()) {
      std::string lower = AsciiLower(line);
      if (best.empty() && (lower.find("newer than") != std::string::npos ||
                           lower.find("error") != std::string::npos))
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

// RepWrittenBy: " (written by Nsight Systems V)" or "" when unknown.
std::string RepWrittenBy(const std::string& version) {
  return version.empty() ? std::string() : " (written by Nsight Systems " + version + ")";
}

// RepNsysVersion: the version `nsys --version` prints, e.g. "2024.2.3.38";
// its first output line when it prints no version token; "" when it fails.
std::string RepNsysVersion(const std::string& nsys) {
  ProcessOptions o;
  o.timeout_ms = kNsysVersionTimeoutMs;
  Result<ProcessResult> r = RunProcess({nsys, "--version"}, o);
  if (!r.ok() || r->exit_code != 0) return {};
  const std::string& s = r->stdout_text;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && RepDigit(s[i - 1])) continue;
    size_t n = RepVersionLength(std::string_view(s).substr(i));
    if (n > 0) return RepNumericVersion(std::string_view(s).substr(i, n));
  }
  std::string first = s.substr(0, s.find('\n'));
  return first;
}

// RepExportAndRead: run the export into `dir` and import it.
Status RepExportAndRead(const std::string& nsys, const std::string& path,
                        const std::string& version, const std::string& dir, model::Trace& trace) {
  const std::string written_by = RepWrittenBy(version);
  const std::string nsys_version = RepNsysVersion(nsys);
  const std::string nsys_name = nsys_version.empty() ? "nsys" : "nsys " + nsys_version;
  const std::string sqlite = dir + "/x.sqlite";
  ProcessOptions o;
  o.timeout_ms = kNsysExportTimeoutMs;
  Result<ProcessResult> r =
      RunProcess({nsys, "export", "--type", "sqlite", "--output", sqlite, path}, o);
  if (!r.ok())
    return gpuwhy::Unsupported(
        fmt::format("{}: Nsight Systems report{}; {}", path, written_by, r.status().message()));
  if (r->timed_out)
    return gpuwhy::Unsupported(
        fmt::format("{}: Nsight Systems report{}; `{} export` did not finish in {} s", path,
                    written_by, nsys_name, kNsysExportTimeoutMs / 1000));
  std::error_code ec;
  if (r->exit_code != 0 || !std::filesystem::exists(sqlite, ec)) {
    std::string why = RepToolMessage(*r);
    if (why.empty())
      why = r->exit_code >= 0 ? fmt::format("exit code {}", r->exit_code)
                              : fmt::format("killed by signal {}", r->term_signal);
    return gpuwhy::Unsupported(
        fmt::format("{}: Nsight Systems report{}; {} could not export it: {}", path, written_by,
                    nsys_name, why));
  }
  Status st = ReadNsysSqlite(sqlite, trace);
  if (!st.ok()) {
    // The message names the temporary file, which is gone by now.
    std::string msg = st.message();
    if (msg.rfind(sqlite, 0) == 0) msg = msg.substr(sqlite.size());
    return Status(st.code(), fmt::format("{}: the SQLite export made by {}{}", path, nsys_name,
                                         msg.rfind(":", 0) == 0 ? msg : ": " + msg));
  }
  trace.info.source_path = path;
  trace.info.format = "nsys-report";
  // Short: the terminal header shows it after the path and format. The export
  // schema follows from the exporting version.
  trace.info.format_version =
      (version.empty() ? std::string() : version + ", ") + "exported by " + nsys_name;
  return Status::Ok();
}

}  // namespace

bool LooksLikeNsysReport(std::string_view prefix) {
  return prefix.substr(0, kNsysReportMagic.size()) == kNsysReportMagic;
}

std::string NsysReportVersionIn(std::string_view tail) {
  // The metadata record is protobuf: a length byte, then the string.
  std::string found;
  for (size_t i = 1; i < tail.size(); ++i) {
    if (!RepDigit(tail[i])) continue;
    // The string is exactly as long as its length byte says (the byte after
    // it is the next field's tag, which may look like part of a build suffix).
    const size_t n = static_cast<unsigned char>(tail[i - 1]);
    if (n < 10 || i + n > tail.size()) continue;  // 10: "2020.3.2.6"
    std::string_view s = tail.substr(i, n);
    if (RepVersionLength(s) != n) continue;
    found = RepNumericVersion(s);
    i += n - 1;
  }
  return found;
}

std::string NsysReportVersion(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  if (size <= 0) return {};
  std::streamoff start =
      std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kReportTailBytes));
  in.seekg(start);
  std::string tail(static_cast<size_t>(size - start), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<size_t>(in.gcount()));
  return NsysReportVersionIn(tail);
}

Status ReadNsysReport(const std::string& path, model::Trace& trace) {
  const std::string version = NsysReportVersion(path);
  const std::string nsys = FindOnPath("nsys");
  if (nsys.empty()) {
    const std::string written_by = RepWrittenBy(version);
    const std::string out = RepSqlitePath(path);
    return gpuwhy::Unsupported(fmt::format(
        "{}: Nsight Systems report{}; gpuwhy reads its SQLite export and `nsys` is not on PATH: "
        "run `nsys export --type sqlite --output {} {}`, then `gpuwhy analyze {}`",
        path, written_by, RepShellWord(out), RepShellWord(path), RepShellWord(out)));
  }
  ASSIGN_OR_RETURN(std::string dir, MakeTempDir("gpuwhy-nsys-export-"));
  Status st = RepExportAndRead(nsys, path, version, dir, trace);
  RemoveTree(dir);
  return st;
}

}  // namespace gpuwhy::import
