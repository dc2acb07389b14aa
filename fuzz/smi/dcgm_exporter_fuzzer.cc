// libFuzzer entry: arbitrary text through ReadDcgmExporterText (and the
// LooksLikeDcgmExporter sniffer); the invariants checked are in text_fuzz_check.h.
#include "text_fuzz_check.h"
#include "import/smi/dcgm_exporter_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpuwhy::fuzz::RunTextFuzz(
      data, size, [](std::string_view t) { return gpuwhy::import::LooksLikeDcgmExporter(t); },
      [](std::string_view t, gpuwhy::model::Trace& tr) {
        return gpuwhy::import::ReadDcgmExporterText(t, tr);
      });
}
