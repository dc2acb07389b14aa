// libFuzzer entry: arbitrary bytes through the PyTorch legacy autograd-profiler mapping
// (import::ReadTorchLegacyStream); the checks are fuzz/chrome_dialect_fuzz.h's.
#include "../chrome_dialect_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpuwhy::fuzz::FuzzChromeDialect(data, size, &gpuwhy::import::ReadTorchLegacyStream);
}
