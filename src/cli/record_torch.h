// `gpuwhy record --torch [...] -- CMD`: profile an unmodified PyTorch script
// (docs/python.md). The work is done by a sitecustomize shim
// (python/gpuwhy_torch_shim/sitecustomize.py) that gpuwhy puts first on
// PYTHONPATH; this side sets its environment, runs CMD (with NVML sampling
// beside it when a GPU is present), reads the status file each Python process
// of the job left, and analyzes the traces that were written.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/torch_status.h"
#include "record/record_runner.h"

namespace gpuwhy::cli {

// TorchRecordOptions: the `record --torch` command line.
struct TorchRecordOptions {
  std::vector<std::string> argv;  // CMD ARGS (non-empty)
  std::string out_dir;            // empty: ./gpuwhy-torch-<time>/
  std::string steps = "5:10";     // A:B: steps A..B-1 are recorded, 1 <= A < B
  std::string step_on;            // MODULE:QUALNAME; empty: torch.optim Optimizer.step
  bool stack = false;             // with_stack
  bool memory = false;            // profile_memory
  bool json = false;              // the report as JSON
  std::string html_path;          // also write the HTML report there
  bool no_report = false;
  record::RecordOptions record;   // NVML sampling settings (interval, DCGM)
};

// FindTorchShim: the folder holding the shim's sitecustomize.py:
// $GPUWHY_TORCH_SHIM, else the install layout's folder relative to the
// binary, else the build tree's; empty when none exists.
std::string FindTorchShim();

// RecordTorch: run it all; returns CMD's exit code (2 when the run could not
// be set up: no shim, an output folder that cannot be made).
int RecordTorch(TorchRecordOptions options, std::ostream& out, std::ostream& err);

}  // namespace gpuwhy::cli
