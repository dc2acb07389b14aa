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

// TorchStatus: what one Python process of the job wrote at exit
// (<dir>/status/<host>.<pid>.txt, KEY=VALUE lines).
struct TorchStatus {
  int pid = -1;
  bool root = false;         // the job's first Python process
  std::string rank;          // empty outside a launcher
  std::string python;        // sys.executable
  std::string torch;         // "1" imported, "0" not imported, "missing" not importable
  std::string torch_error;
  std::string hook;          // MODULE:QUALNAME
  bool hooked = false;
  long steps = 0;            // calls of the step function
  long recorded = 0;         // steps in the trace
  std::string trace;         // the trace file, empty when none was written
  bool cuda = false;         // the process initialised CUDA
  std::string error;
};

// ParseTorchStatus: one status file's text; unknown keys are ignored.
TorchStatus ParseTorchStatus(const std::string& text);

// ParseTorchSteps: "A:B" with 1 <= A < B into first/end; false when malformed.
bool ParseTorchSteps(const std::string& s, long* first, long* end);

// TorchOutcome: the one line the run gets when the statuses show no trace
// (torch not importable, no step, too few steps, no Python process), or the
// CPU-only line when traces exist but no process initialised CUDA; empty when
// the traces are of a GPU run. `gpu_sampled`: NVML sampled a GPU during the
// run (said in the CPU-only line).
std::string TorchOutcome(const std::vector<TorchStatus>& statuses, long first, long end,
                         const std::string& out_dir, bool gpu_sampled);

// FindTorchShim: the folder holding the shim's sitecustomize.py:
// $GPUWHY_TORCH_SHIM, else the install layout's folder relative to the
// binary, else the build tree's; empty when none exists.
std::string FindTorchShim();

// RecordTorch: run it all; returns CMD's exit code (2 when the run could not
// be set up: no shim, an output folder that cannot be made).
int RecordTorch(TorchRecordOptions options, std::ostream& out, std::ostream& err);

}  // namespace gpuwhy::cli
