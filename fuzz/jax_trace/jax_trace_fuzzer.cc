// libFuzzer entry: arbitrary bytes through the JAX/XLA trace JSON mapping
// (import::ReadJaxTraceStream); the checks are fuzz/chrome_dialect_fuzz.h's.
#include "../chrome_dialect_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpuwhy::fuzz::FuzzChromeDialect(data, size, &gpuwhy::import::ReadJaxTraceStream);
}
