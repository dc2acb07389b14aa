// libFuzzer entry: arbitrary text through the rocprof CSV sniffer
// (ClassifyRocprofCsv) and parser (ParseRocprofCsv). A failure must be one
// line naming the input; a success must keep the model invariants
// (rocm_fuzz_check.h).
#include <string>
#include <string_view>

#include "import/rocm/rocprof_csv_importer.h"
#include "rocm_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::ClassifyRocprofCsv(text);
  static const std::string kName = "fuzz.csv";
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ParseRocprofCsv(text, kName, trace);
  if (!st.ok()) {
    const std::string& m = st.message();
    if (m.empty() || m.find(kName) == std::string::npos || m.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  gpuwhy::fuzz::RocmCheckTrace(trace);
  return 0;
}
