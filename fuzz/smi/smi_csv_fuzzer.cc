// libFuzzer entry: arbitrary text through ReadSmiCsvText (and the LooksLikeSmiCsv sniffer).
// Invariants on success: every counter series has as many values as
// timestamps, ratios are NaN or >= 0, and an error always has a message.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "import/smi/smi_csv_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::LooksLikeSmiCsv(text);
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadSmiCsvText(text, trace);
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
