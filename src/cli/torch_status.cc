// record --torch's status files and outcome lines: see torch_status.h.
#include "cli/torch_status.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuwhy::cli {
namespace {

constexpr const char* kTorchDefaultHook = "torch.optim.optimizer:Optimizer.step";

bool TorchParseLong(const std::string& s, long* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *v = x;
  return true;
}

// TorchStepRange: "ProfilerStep#A..#B" of a run that recorded `n` steps from A.
std::string TorchStepRange(long first, long n) {
  if (n == 1) return "ProfilerStep#" + std::to_string(first);
  return "ProfilerStep#" + std::to_string(first) + "..#" + std::to_string(first + n - 1);
}

}  // namespace

TorchStatus ParseTorchStatus(const std::string& text) {
  TorchStatus s;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    long n = 0;
    if (k == "pid" && TorchParseLong(v, &n)) s.pid = static_cast<int>(n);
    else if (k == "root") s.root = v == "1";
    else if (k == "rank") s.rank = v;
    else if (k == "python") s.python = v;
    else if (k == "torch") s.torch = v;
    else if (k == "torch_error") s.torch_error = v;
    else if (k == "hook") s.hook = v;
    else if (k == "hooked") s.hooked = v == "1";
    else if (k == "steps" && TorchParseLong(v, &n)) s.steps = n;
    else if (k == "recorded" && TorchParseLong(v, &n)) s.recorded = n;
    else if (k == "trace") s.trace = v;
    else if (k == "cuda") s.cuda = v == "1";
    else if (k == "error") s.error = v;
  }
  return s;
}

bool ParseTorchSteps(const std::string& s, long* first, long* end) {
  size_t colon = s.find(':');
  if (colon == std::string::npos) return false;
  long a = 0, b = 0;
  if (!TorchParseLong(s.substr(0, colon), &a) || !TorchParseLong(s.substr(colon + 1), &b))
    return false;
  if (a < 1 || b <= a) return false;
  *first = a;
  *end = b;
  return true;
}

std::string TorchOutcome(const std::vector<TorchStatus>& statuses, long first, long end,
                         const std::string& out_dir, bool gpu_sampled) {
  if (statuses.empty()) {
    return "no Python process of the job ran the shim, so nothing was profiled (is CMD a "
           "Python program? `python -I` or `-E` ignores PYTHONPATH)";
  }
  std::vector<const TorchStatus*> users;
  const TorchStatus* missing = nullptr;
  for (const TorchStatus& s : statuses) {
    if (s.torch == "1") users.push_back(&s);
    else if (s.torch == "missing" && missing == nullptr) missing = &s;
  }
  if (users.empty()) {
    if (missing != nullptr) {
      return "torch is not importable by " + missing->python + " (" + missing->torch_error +
             "); install PyTorch for that interpreter, or run the script with one that has it";
    }
    return "the script never imported torch, so nothing was profiled";
  }
  long traces = 0, max_steps = 0, recorded = 0;
  bool cuda = false, hooked = false;
  std::string hook = users.front()->hook, error;
  for (const TorchStatus* s : users) {
    if (!s->trace.empty() && s->recorded > 0) {
      ++traces;
      // No trace holds more than the window (a status file is data, not a promise).
      recorded = std::max(recorded, std::min(s->recorded, end - first));
    }
    max_steps = std::max(max_steps, s->steps);
    cuda = cuda || s->cuda;
    hooked = hooked || s->hooked;
    if (error.empty()) error = s->error;
  }
  if (traces == 0) {
    if (!error.empty()) return "nothing was profiled: " + error;
    if (!hooked) {
      return "no step happened: the step function " + hook +
             " was never hooked (its module was never imported); name the script's step "
             "function with --step-on MODULE:QUALNAME";
    }
    if (max_steps == 0) {
      std::string why = "no step happened: " + hook + " was never called";
      if (hook == kTorchDefaultHook) {
        why += " (the script has no optimizer: for inference, name the function that runs "
               "one step with --step-on MODULE:QUALNAME)";
      }
      return why;
    }
    return "only " + std::to_string(max_steps) + " step" + (max_steps == 1 ? "" : "s") +
           " happened (calls of " + hook + "); recording starts at step " +
           std::to_string(first) + ", after it: lower A in --steps A:B";
  }
  if (!cuda) {
    return std::string("a CPU-only run: the script never used a GPU") +
           (gpu_sampled ? " (NVML sampled the GPUs beside it)" : "") + "; recorded " +
           std::to_string(recorded) +
           " step" + (recorded == 1 ? "" : "s") + " (" + TorchStepRange(first, recorded) +
           ") of " + std::to_string(max_steps) + " in " + std::to_string(traces) + " trace" +
           (traces == 1 ? "" : "s") + " under " + out_dir;
  }
  return "";
}

}  // namespace gpuwhy::cli
