// libFuzzer entry: arbitrary bytes as a `record --torch` status file (one
// per Python process, written by the shim) and as --steps. Invariants: the
// parse never fails and keeps no line break in a value; the outcome line of
// one, two or three such files is one line (no '\n'), whatever the numbers
// say (a recorded count past the window or near LONG_MAX must not overflow).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/torch_status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuwhy::cli::TorchStatus s = gpuwhy::cli::ParseTorchStatus(text);
  for (const std::string* v : {&s.rank, &s.python, &s.torch, &s.torch_error, &s.hook, &s.trace,
                               &s.error}) {
    if (v->find('\n') != std::string::npos) std::abort();
  }
  long first = 5, end = 10;
  if (gpuwhy::cli::ParseTorchSteps(text.substr(0, 40), &first, &end) && !(first >= 1 && end > first))
    std::abort();
  const size_t half = size / 2;
  gpuwhy::cli::TorchStatus t = gpuwhy::cli::ParseTorchStatus(text.substr(half));
  std::vector<std::vector<gpuwhy::cli::TorchStatus>> sets = {{s}, {s, t}, {t, s, s}};
  for (const auto& set : sets) {
    for (bool sampled : {false, true}) {
      std::string line = gpuwhy::cli::TorchOutcome(set, first, end, "/d", sampled);
      if (line.find('\n') != std::string::npos) std::abort();
    }
  }
  return 0;
}
