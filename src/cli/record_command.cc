// `gpuwhy record [-o FILE] [--interval MS] [--trace [--trace-kinds LIST]] -- CMD ARGS...`:
// run CMD, sample the GPUs (and with --trace, trace every CUDA process through
// libgpuwhy_inject.so, docs/record-trace.md), then print the same analysis
// `gpuwhy analyze` prints.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

// CLI11 trips -Wnull-dereference in inlined std::string code; not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include "cli/analyze_command.h"
#include "cli/commands.h"
#include "cli/record_torch.h"
#include "import/registry.h"
#include "record/record_runner.h"

namespace gpuwhy::cli {
namespace {

#if GPUWHY_HAVE_CUPTI
// FindInjectLibrary: $GPUWHY_INJECT_LIBRARY, else libgpuwhy_inject.so next to
// the gpuwhy binary (the build tree), in the install layout's library folder
// relative to the binary (GPUWHY_INJECT_INSTALL_REL, e.g.
// ../lib/x86_64-linux-gnu/gpuwhy), or in ../lib/gpuwhy or ../lib; empty when
// none exists.
std::string FindInjectLibrary() {
  if (const char* p = std::getenv("GPUWHY_INJECT_LIBRARY"); p && *p) return p;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string dir(buf, static_cast<size_t>(n));
  dir.resize(dir.rfind('/'));
  for (const char* rel :
       {"/libgpuwhy_inject.so", "/" GPUWHY_INJECT_INSTALL_REL "/libgpuwhy_inject.so",
        "/../lib/gpuwhy/libgpuwhy_inject.so", "/../lib/libgpuwhy_inject.so"}) {
    std::string p = dir + rel;
    if (access(p.c_str(), R_OK) == 0) {
      char real[4096];
      return realpath(p.c_str(), real) ? std::string(real) : p;
    }
  }
  return "";
}
#endif

}  // namespace

int RecordMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // Everything after "--" is the command, untouched by option parsing.
  std::vector<std::string> command;
  int split = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      split = i;
      break;
    }
  }
  for (int i = split + 1; i < argc; ++i) command.emplace_back(argv[i]);

  CLI::App app{"run a command and sample the GPUs it uses", "gpuwhy record"};
  record::RecordOptions options;
  int interval_ms = 100;
  bool no_report = false;
  bool json = false;
  app.add_option("-o,--output", options.output_path,
                 "recording file (default gpuwhy-<host>-<pid>[.rank<R>].gwrec)");
  app.add_option("--interval", interval_ms, "sampling interval in milliseconds (default 100)")
      ->check(CLI::Range(10, 60000));
  app.add_flag("--no-report", no_report, "do not print the analysis when the command ends");
  app.add_flag("--json", json, "print the analysis as JSON");
  bool no_dcgm = false;
  app.add_option("--dcgm", options.dcgm_host,
                 "DCGM host engine (HOST, HOST:PORT or a unix socket path; default 127.0.0.1) "
                 "for the real figures of GPUs without GPM");
  app.add_flag("--no-dcgm", no_dcgm, "do not try DCGM");
  app.add_flag("--trace", options.trace,
               "also trace kernels, copies, syncs and API calls of every CUDA process through "
               "CUPTI injection (no code change; docs/record-trace.md)");
  app.add_option("--trace-kinds", options.trace_kinds,
                 "with --trace: comma list of kernel,memcpy,memset,sync,event,runtime,driver,"
                 "overhead,jit,nvtx (default: all but jit)");
  TorchRecordOptions torch;
  bool torch_mode = false;
  app.add_flag("--torch", torch_mode,
               "profile a PyTorch script with torch.profiler, no code change (docs/python.md); "
               "-o is then the output folder (default ./gpuwhy-torch-<time>/)");
  app.add_option("--steps", torch.steps,
                 "with --torch: record steps A..B-1 after A warm-up steps (default 5:10)");
  app.add_option("--step-on", torch.step_on,
                 "with --torch: the function one call of which is a step, MODULE:QUALNAME "
                 "(default torch.optim.optimizer:Optimizer.step)");
  app.add_flag("--stack", torch.stack, "with --torch: record Python stacks");
  app.add_flag("--memory", torch.memory, "with --torch: record memory allocations");
  app.add_option("--html", torch.html_path, "with --torch: also write the HTML report to FILE");
  app.footer("usage: gpuwhy record [options] -- CMD ARGS...\n"
             "       gpuwhy record --torch [--steps A:B] [--step-on MODULE:QUALNAME] [--stack] "
             "[--memory] [-o DIR] [--html FILE] [--json] -- python train.py ARGS...\n"
             "The exit code is CMD's (128+N when a signal N killed it).");
  try {
    app.parse(split, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? 0 : 1;
  }
  if (command.empty()) {
    err << "gpuwhy record: no command given; usage: gpuwhy record [options] -- CMD ARGS...\n";
    return 1;
  }
  if (!torch_mode) {
    for (const char* opt : {"--steps", "--step-on", "--stack", "--memory", "--html"}) {
      if (app.count(opt) > 0) {
        err << "gpuwhy record: " << opt << " needs --torch\n";
        return 1;
      }
    }
  }
  if (torch_mode && options.trace) {
    err << "gpuwhy record: --torch and --trace do not go together (torch.profiler and the CUPTI "
           "injection would both subscribe to CUPTI)\n";
    return 1;
  }
  if (torch_mode) {
    torch.argv = command;
    torch.out_dir = options.output_path;
    torch.json = json;
    torch.no_report = no_report;
    torch.record = options;
    torch.record.output_path.clear();
    torch.record.dcgm = !no_dcgm;
    torch.record.interval_ns = static_cast<int64_t>(interval_ms) * kNsPerMs;
    torch.record.gpuwhy_version = ToolVersion();
    return RecordTorch(std::move(torch), out, err);
  }
  if (!options.trace_kinds.empty() && !options.trace) {
    err << "gpuwhy record: --trace-kinds needs --trace\n";
    return 1;
  }
  // Checked here once, not by the library in every traced process.
  static constexpr std::string_view kKinds[] = {"kernel", "memcpy",  "memset",   "sync", "event",
                                                "runtime", "driver", "overhead", "jit",  "nvtx"};
  for (size_t pos = 0; pos < options.trace_kinds.size();) {
    size_t comma = options.trace_kinds.find(',', pos);
    if (comma == std::string::npos) comma = options.trace_kinds.size();
    std::string_view w = std::string_view(options.trace_kinds).substr(pos, comma - pos);
    pos = comma + 1;
    if (w.empty() || std::find(std::begin(kKinds), std::end(kKinds), w) != std::end(kKinds)) continue;
    err << "gpuwhy record: unknown --trace-kinds word '" << w
        << "' (known: kernel,memcpy,memset,sync,event,runtime,driver,overhead,jit,nvtx)\n";
    return 1;
  }
  if (options.trace) {
#if !GPUWHY_HAVE_CUPTI
    err << "gpuwhy record: --trace is not available: this gpuwhy was built without the CUDA "
           "toolkit (no cupti.h), so libgpuwhy_inject.so was not built\n";
    return 1;
#else
    options.inject_library = FindInjectLibrary();
    if (options.inject_library.empty()) {
      err << "gpuwhy record: --trace: libgpuwhy_inject.so not found next to the gpuwhy binary "
             "nor in " GPUWHY_INJECT_INSTALL_REL " from it (set GPUWHY_INJECT_LIBRARY)\n";
      return 1;
    }
#endif
  }
  options.argv = command;
  options.dcgm = !no_dcgm;
  options.interval_ns = static_cast<int64_t>(interval_ms) * kNsPerMs;
  options.gpuwhy_version = ToolVersion();

  Result<record::RecordResult> res = record::RunAndRecord(options, err);
  if (!res.ok()) {
    err << res.status().message() << "\n";
    return 2;
  }
  const record::RecordResult& r = res.value();
  if (!r.sampled) {
    err << "gpuwhy record: nothing was sampled (" << r.nvml_status << "); recording: "
        << r.output_path << "\n";
  } else {
    err << "gpuwhy record: " << r.samples << " samples from " << r.device_count << " GPU"
        << (r.device_count == 1 ? "" : "s") << " in " << r.output_path << "\n";
  }
  if (options.trace) {
    if (r.traced_streams > 0) {
      err << "gpuwhy record: traced " << r.traced_streams << " CUDA process"
          << (r.traced_streams == 1 ? "" : "es") << " into " << r.output_path << "\n";
    } else {
      err << "gpuwhy record: nothing was traced (" << r.trace_status << ")\n";
    }
  }
  if (!no_report && (r.sampled || r.traced_streams > 0)) {
    // The analysis reads the recording back through the importer, exactly as
    // `gpuwhy analyze FILE` would.
    // One trace per rank when the command was a launcher of several ranks.
    Result<std::vector<model::Trace>> ranks = import::ImportFileRanks(r.output_path);
    if (!ranks.ok()) {
      err << ranks.status().message() << "\n";
    } else {
      std::vector<model::Trace> traces = std::move(ranks).value();
      AnalyzeOptions ao;
      ao.json = json;
      AnalyzeAndRender(traces, ao, out);
    }
  }
  return r.exit_code;
}

}  // namespace gpuwhy::cli
