// gpuwhy: dispatch to a subcommand. Nothing else lives here.
#include <cstring>
#include <iostream>
#include <string_view>

#include "base/memory_tuning.h"
#include "cli/analyze_command.h"
#include "cli/commands.h"

namespace {

void Usage(std::ostream& os) {
  os << "gpuwhy: why your GPU is not doing real work, and what to change\n\n"
        "usage: gpuwhy <command> [options]\n\n"
        "commands:\n"
        "  analyze FILE...   analyze traces (Kineto JSON, nsys SQLite, nvidia-smi/DCGM logs,\n"
        "                    gpuwhy recordings)\n"
        "  summarize FILE -o RANK.gwsum\n"
        "                    compact per-rank summary; analyze *.gwsum merges a rank set\n"
        "  diff BEFORE AFTER compare two runs (traces, rank sets, recordings, saved --json\n"
        "                    reports); --fail-if gates for CI\n"
        "  record -- CMD     run CMD and sample the GPUs it uses\n"
        "  watch             live view: surface against real utilization\n\n"
        "run 'gpuwhy <command> --help' for its options\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    Usage(std::cerr);
    return 1;
  }
  std::string_view cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    Usage(std::cout);
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "gpuwhy " << gpuwhy::cli::ToolVersion() << "\n";
    return 0;
  }
  // Batch commands build a large model and start no children (see memory_tuning.h).
  if (cmd == "analyze" || cmd == "diff" || cmd == "summarize") gpuwhy::TuneMemoryForBatch(argv);
  // Subcommands see argv shifted so argv[0] is "gpuwhy <command>".
  if (cmd == "analyze") return gpuwhy::cli::AnalyzeMain(argc - 1, argv + 1, std::cout, std::cerr);
  if (cmd == "summarize")
    return gpuwhy::cli::SummarizeMain(argc - 1, argv + 1, std::cout, std::cerr);
  if (cmd == "record") return gpuwhy::cli::RecordMain(argc - 1, argv + 1, std::cout, std::cerr);
  if (cmd == "diff") return gpuwhy::cli::DiffMain(argc - 1, argv + 1, std::cout, std::cerr);
  if (cmd == "watch") return gpuwhy::cli::WatchMain(argc - 1, argv + 1, std::cout, std::cerr);
  std::cerr << "gpuwhy: unknown command '" << cmd << "'\n";
  Usage(std::cerr);
  return 1;
}
