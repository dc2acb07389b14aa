#include "import/registry.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "base/ascii.h"
#include "base/input_stream.h"
#include "import/chrome/chrome_dialects.h"
#include "import/kineto/kineto_importer.h"
#include "import/ncu/ncu_csv_importer.h"
#include "import/ncu/ncu_report_importer.h"
#include "import/nsys/nsys_importer.h"
#include "import/nsys/nsys_report_importer.h"
#include "import/smi/dcgm_exporter_importer.h"
#include "import/smi/dcgm_importer.h"
#include "import/smi/script_csv_importer.h"
#include "import/smi/smi_csv_importer.h"
#include "import/smi/smi_table_importer.h"
#include "import/recording/recording_importer.h"
#include "import/rocm/rocm_sqlite_importer.h"
#include "import/rocm/rocprof_csv_importer.h"
#include "import/xplane/xplane_importer.h"

namespace gpuwhy::import {

namespace {

constexpr size_t kSniffBytes = size_t{64} << 10;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// SkippedInDirectory: files a directory expansion never treats as traces.
bool SkippedInDirectory(const std::filesystem::path& p) {
  std::string name = p.filename().string();
  if (name.empty() || name[0] == '.') return true;  // hidden files, editor droppings
  std::string lower = AsciiLower(name);
  static constexpr std::string_view kSkip[] = {
      ".md", ".rst", ".html", ".htm", ".py", ".sh", ".cc", ".h", ".cpp", ".png", ".jpg",
      ".jpeg", ".svg", ".pdf", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".zip", ".tar",
      ".tgz", ".tar.gz", ".whl", ".pt", ".pth", ".ckpt", ".sha256", ".lock", ".pyc",
  };
  for (std::string_view ext : kSkip)
    if (EndsWith(lower, ext)) return true;
  return false;
}

// NeedsSniffInDirectory: extensions that are traces only sometimes (.txt may be
// an nvidia-smi log or a README); those are kept only when an importer
// recognises their content.
bool NeedsSniffInDirectory(const std::filesystem::path& p) {
  std::string lower = AsciiLower(p.filename().string());
  return EndsWith(lower, ".txt") || EndsWith(lower, ".out") || p.extension().empty();
}

bool AnyImporterSniffs(const std::string& path) {
  Result<std::string> prefix = ReadPrefix(path, kSniffBytes);
  if (!prefix.ok()) return false;
  SourceInfo src;
  src.path = path;
  src.prefix = std::move(prefix).value();
  for (const auto& imp : BuiltinImporters())
    if (imp->Sniff(src)) return true;
  return false;
}

}  // namespace

std::vector<std::unique_ptr<Importer>> BuiltinImporters(const ImportOptions& options) {
  // Sniff order: the first importer that recognises the content wins. Append
  // new formats here (one line each).
  std::vector<std::unique_ptr<Importer>> v;
  KinetoOptions kineto;
  kineto.threads = options.parse_threads;
  // Chrome-trace dialects other than Kineto (import/chrome/chrome_dialects.h),
  // before Kineto, whose sniff claims any trace object or event array.
  v.push_back(std::make_unique<TorchLegacyImporter>());
  v.push_back(std::make_unique<JaxTraceImporter>());
  v.push_back(std::make_unique<RocprofJsonImporter>());
  v.push_back(std::make_unique<KinetoImporter>(kineto));
  // SQLite files: import/sqlite_kind.h tells each importer its own kind.
  v.push_back(std::make_unique<RocpdImporter>());
  v.push_back(std::make_unique<RpdImporter>());
  v.push_back(std::make_unique<RocprofV1DbImporter>());
  v.push_back(std::make_unique<NsysImporter>());
  // .nsys-rep / .qdrep: through `nsys export` when nsys is on PATH.
  v.push_back(std::make_unique<NsysReportImporter>());
  v.push_back(std::make_unique<DcgmExporterImporter>());
  // Nsight Compute CSV pages, and .ncu-rep through `ncu --import` when on PATH.
  v.push_back(std::make_unique<NcuCsvImporter>());
  v.push_back(std::make_unique<NcuReportImporter>());
  v.push_back(std::make_unique<DcgmImporter>());
  v.push_back(std::make_unique<SmiDmonImporter>());
  v.push_back(std::make_unique<SmiCsvImporter>());
  // After the CSV importer: a --query-gpu log that starts with one table
  // snapshot is a CSV log.
  v.push_back(std::make_unique<SmiTableImporter>());
  v.push_back(std::make_unique<SmiQueryImporter>());
  v.push_back(std::make_unique<RecordingImporter>());
  // JAX/XLA XSpace protobuf (*.xplane.pb): binary, no magic; a conservative sniff.
  v.push_back(std::make_unique<XplaneImporter>());
  v.push_back(std::make_unique<RocprofCsvImporter>());
  // Last: a CSV with a header of its own, read by the meaning of its columns.
  v.push_back(std::make_unique<ScriptCsvImporter>());
  return v;
}

namespace {

// ImportWith: stat and sniff `path`, then let the first importer that
// recognises it fill `traces` (one trace, or one per rank when `ranks`).
Status ImportWith(const std::string& path, bool ranks, const ImportOptions& options,
                  std::vector<model::Trace>* traces) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(path + ": no such file");
    return IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode))
    return IoError(path + ": is a directory (name the trace files, or pass the directory "
                          "where a list of inputs is expected)");
  if (st.st_size == 0) return InvalidInput(path + ": empty file (0 bytes), not a trace");

  ASSIGN_OR_RETURN(std::string prefix, ReadPrefix(path, kSniffBytes));
  SourceInfo src;
  src.path = path;
  src.size_bytes = static_cast<uint64_t>(st.st_size);
  src.gzip = false;
  {
    ASSIGN_OR_RETURN(std::unique_ptr<InputStream> probe, OpenInputStream(path));
    src.gzip = probe->compressed();
  }
  src.prefix = std::move(prefix);
  for (const auto& imp : BuiltinImporters(options)) {
    if (!imp->Sniff(src)) continue;
    std::vector<model::Trace> out;
    if (ranks) {
      Status s = imp->ReadRanks(src, &out);
      if (!s.ok()) return s;  // the partial traces are dropped here
    } else {
      model::Trace trace;
      Status s = imp->Read(src, trace);
      if (!s.ok()) return s;
      out.push_back(std::move(trace));
    }
    for (model::Trace& t : out) {
      if (t.info.source_path.empty()) t.info.source_path = path;
      if (t.info.format.empty()) t.info.format = std::string(imp->name());
    }
    *traces = std::move(out);
    return Status::Ok();
  }
  std::string names;
  for (const auto& imp : BuiltinImporters()) {
    if (!names.empty()) names += ", ";
    names += imp->name();
  }
  return InvalidInput(fmt::format("{}: unknown trace format (not one of: {}){}", path, names,
                                  src.gzip ? " after gunzip" : ""));
}

}  // namespace

Result<model::Trace> ImportFile(const std::string& path, const ImportOptions& options) {
  std::vector<model::Trace> traces;
  RETURN_IF_ERROR(ImportWith(path, false, options, &traces));
  return std::move(traces.front());
}

Result<std::vector<model::Trace>> ImportFileRanks(const std::string& path,
                                                  const ImportOptions& options) {
  std::vector<model::Trace> traces;
  RETURN_IF_ERROR(ImportWith(path, true, options, &traces));
  return traces;
}

Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    fs::file_status fst = fs::status(arg, ec);
    if (ec || !fs::exists(fst)) return NotFound(arg + ": no such file or directory");
    if (!fs::is_directory(fst)) {
      out.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec);
    if (ec) return IoError(fmt::format("{}: cannot list directory: {}", arg, ec.message()));
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return IoError(fmt::format("{}: cannot list directory: {}", arg, ec.message()));
      const fs::directory_entry& e = *it;
      std::string name = e.path().filename().string();
      if (e.is_directory(ec)) {
        if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
        continue;
      }
      if (!e.is_regular_file(ec)) continue;
      if (SkippedInDirectory(e.path())) continue;
      if (e.file_size(ec) == 0) continue;
      if (NeedsSniffInDirectory(e.path()) && !AnyImporterSniffs(e.path().string())) continue;
      found.push_back(e.path().string());
    }
    if (found.empty()) return InvalidInput(arg + ": directory contains no trace files");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace gpuwhy::import
