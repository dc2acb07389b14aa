// RunTextFuzz: the shared libFuzzer body for the nvidia-smi / DCGM text parsers.
// Feeds arbitrary text through a sniffer and a reader; aborts (a finding) when
// an error has no message, or a successful import breaks the model invariants:
// every counter series has as many values as timestamps, and values are NaN or
// >= 0 (negative or wrapped samples must have been marked missing).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy::fuzz {

template <typename Sniff, typename Read>
int RunTextFuzz(const uint8_t* data, size_t size, Sniff sniff, Read read) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)sniff(text);
  model::Trace trace;
  Status st = read(text, trace);
  if (!st.ok()) {
    if (st.message().empty()) std::abort();
    return 0;
  }
  for (const auto& s : trace.counters) {
    if (s.ts_ns.size() != s.value.size()) std::abort();
    for (double v : s.value)
      if (!std::isnan(v) && v < 0) std::abort();
  }
  return 0;
}

}  // namespace gpuwhy::fuzz
