// What `gpuwhy record --torch` reads back from its shim: the status file each
// Python process of the job writes (python/gpuwhy_torch_shim/sitecustomize.py),
// --steps, and the one line each outcome gets (docs/python.md). Pure string
// functions, apart from the rest of the CLI so the fuzzer links only them.
#pragma once

#include <string>
#include <vector>

namespace gpuwhy::cli {

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

}  // namespace gpuwhy::cli
