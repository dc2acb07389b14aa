// libFuzzer entry: arbitrary text through ReadScriptCsvText (and the
// LooksLikeScriptCsv sniffer); the invariants checked are in text_fuzz_check.h.
#include "text_fuzz_check.h"
#include "import/smi/script_csv_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpuwhy::fuzz::RunTextFuzz(
      data, size, [](std::string_view t) { return gpuwhy::import::LooksLikeScriptCsv(t); },
      [](std::string_view t, gpuwhy::model::Trace& tr) {
        return gpuwhy::import::ReadScriptCsvText(t, tr);
      });
}
