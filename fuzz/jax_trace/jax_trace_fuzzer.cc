// libFuzzer entry: arbitrary bytes (plain or gzip, by magic) through the
// Chrome Trace Event tokenizer and the JAX/XLA trace JSON mapping (ReadJaxTraceStream). Checked: an
// error always says what and where (one line); on success no GPU row ends
// before it starts and the tables are sorted (Trace::Finalize).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/input_stream.h"
#include "import/chrome/chrome_dialects.h"

namespace {

template <typename Table>
void CheckRows(const Table& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && t.start_ns[i] < t.start_ns[i - 1]) std::abort();
    if (gpuwhy::IsValid(t.end_ns[i]) && t.end_ns[i] < t.start_ns[i]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto in = gpuwhy::OpenMemoryStream(bytes, "fuzz.json");
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadJaxTraceStream(*in, trace);
  if (st.ok()) {
    CheckRows(trace.kernels);
    CheckRows(trace.memcpys);
    CheckRows(trace.memsets);
  } else if (st.message().empty() || st.message().find('\n') != std::string_view::npos) {
    std::abort();
  }
  return 0;
}
