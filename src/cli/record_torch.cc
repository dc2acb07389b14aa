// `gpuwhy record --torch`: see record_torch.h and docs/python.md.
#include "cli/record_torch.h"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/commands.h"

namespace gpuwhy::cli {
namespace {

namespace fs = std::filesystem;

std::string TorchHostName() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string TorchReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// TorchDefaultDir: ./gpuwhy-torch-<YYYYmmdd-HHMMSS>.
std::string TorchDefaultDir() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "gpuwhy-torch-%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string FindTorchShim() {
  auto has = [](const std::string& d) {
    return !d.empty() && access((d + "/sitecustomize.py").c_str(), R_OK) == 0;
  };
  if (const char* p = std::getenv("GPUWHY_TORCH_SHIM"); p && *p) return has(p) ? p : "";
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::string dir(buf, static_cast<size_t>(n));
    dir.resize(dir.rfind('/'));
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(dir) / GPUWHY_TORCH_SHIM_INSTALL_REL, ec);
    if (!ec && has(p.string())) return p.string();
  }
  if (has(GPUWHY_TORCH_SHIM_BUILD_DIR)) return GPUWHY_TORCH_SHIM_BUILD_DIR;
  return "";
}

int RecordTorch(TorchRecordOptions o, std::ostream& out, std::ostream& err) {
  const char* kPrefix = "gpuwhy record --torch: ";
  long first = 0, end = 0;
  if (!ParseTorchSteps(o.steps, &first, &end)) {
    err << kPrefix << "--steps " << o.steps << ": want A:B with 1 <= A < B\n";
    return 1;
  }
  if (!o.step_on.empty()) {
    size_t colon = o.step_on.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == o.step_on.size()) {
      err << kPrefix << "--step-on " << o.step_on
          << ": want MODULE:QUALNAME (e.g. mypkg.train:Trainer.train_step)\n";
      return 1;
    }
  }
  std::string shim = FindTorchShim();
  if (shim.empty()) {
    err << kPrefix << "the shim (sitecustomize.py) was not found next to the gpuwhy binary "
        << "nor in " << GPUWHY_TORCH_SHIM_INSTALL_REL << " from it (set GPUWHY_TORCH_SHIM)\n";
    return 2;
  }
  std::error_code ec;
  fs::path dir = fs::absolute(o.out_dir.empty() ? TorchDefaultDir() : o.out_dir, ec);
  if (!ec) fs::create_directories(dir, ec);
  if (ec) {
    err << kPrefix << "cannot create " << (o.out_dir.empty() ? TorchDefaultDir() : o.out_dir)
        << ": " << ec.message() << "\n";
    return 2;
  }
  dir = dir.lexically_normal();
  // Status files of an earlier run in the same folder would be read as this one's.
  fs::remove_all(dir / "status", ec);

  // The shim's settings; every process of the job inherits them.
  std::string pythonpath = shim;
  if (const char* p = std::getenv("PYTHONPATH"); p && *p) pythonpath += std::string(":") + p;
  setenv("PYTHONPATH", pythonpath.c_str(), 1);
  setenv("GPUWHY_TORCH_DIR", dir.c_str(), 1);
  setenv("GPUWHY_TORCH_STEPS", o.steps.c_str(), 1);
  setenv("GPUWHY_TORCH_STEP_ON", o.step_on.c_str(), 1);
  setenv("GPUWHY_TORCH_STACK", o.stack ? "1" : "0", 1);
  setenv("GPUWHY_TORCH_MEMORY", o.memory ? "1" : "0", 1);
  unsetenv("GPUWHY_TORCH_ROOT");  // this job's first Python process becomes the root

  // NVML sampling beside the trace; without a GPU it is silent and the
  // recording is dropped.
  o.record.argv = o.argv;
  o.record.output_path =
      (dir / record::DefaultRecordingName(TorchHostName(), static_cast<int32_t>(getpid()),
                                          record::RankFromEnv()))
          .string();
  o.record.quiet_without_nvml = true;
  Result<record::RecordResult> res = record::RunAndRecord(o.record, err);
  if (!res.ok()) {
    err << res.status().message() << "\n";
    return 2;
  }
  const record::RecordResult& r = res.value();
  if (!r.sampled) fs::remove(r.output_path, ec);

  std::vector<TorchStatus> statuses;
  std::vector<std::string> traces;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "status", ec)) {
    if (e.path().extension() != ".txt") continue;
    statuses.push_back(ParseTorchStatus(TorchReadFile(e.path())));
  }
  std::sort(statuses.begin(), statuses.end(), [](const TorchStatus& a, const TorchStatus& b) {
    return std::make_pair(a.rank, a.pid) < std::make_pair(b.rank, b.pid);
  });
  for (const TorchStatus& s : statuses) {
    if (!s.trace.empty() && s.recorded > 0 && fs::exists(s.trace, ec)) traces.push_back(s.trace);
  }
  std::string line = TorchOutcome(statuses, first, end, dir.string(), r.sampled);
  if (!line.empty()) err << kPrefix << line << "\n";
  if (traces.empty()) return r.exit_code;
  if (line.empty()) {
    err << kPrefix << traces.size() << " trace" << (traces.size() == 1 ? "" : "s") << " in "
        << dir.string() << "\n";
  }
  if (o.no_report) return r.exit_code;

  // The report is `gpuwhy analyze` of the traces (a rank set when there are
  // several) and, when a GPU was sampled, of the recording beside them.
  std::vector<std::string> args = {"analyze"};
  args.insert(args.end(), traces.begin(), traces.end());
  if (r.sampled) args.push_back(r.output_path);
  if (o.json) args.push_back("--json");
  if (!o.html_path.empty()) {
    args.push_back("--html");
    args.push_back(o.html_path);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  AnalyzeMain(static_cast<int>(argv.size()), argv.data(), out, err);
  return r.exit_code;
}

}  // namespace gpuwhy::cli
