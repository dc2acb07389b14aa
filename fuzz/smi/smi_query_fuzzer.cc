// libFuzzer entry: arbitrary text through ReadSmiQueryText (-q text and -q -x XML, and the
// LooksLikeSmiQuery sniffer); the invariants checked are in text_fuzz_check.h.
#include "text_fuzz_check.h"
#include "import/smi/smi_table_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpuwhy::fuzz::RunTextFuzz(
      data, size, [](std::string_view t) { return gpuwhy::import::LooksLikeSmiQuery(t); },
      [](std::string_view t, gpuwhy::model::Trace& tr) { return gpuwhy::import::ReadSmiQueryText(t, tr); });
}
