// The libFuzzer check shared by the Chrome-trace dialect fuzzers
// (fuzz/{torch_legacy,jax_trace,rocprof_json}): arbitrary bytes (plain or
// gzip, by magic) through the Chrome Trace Event tokenizer and one dialect's
// mapping. Checked: an error always says what and where (one line); on
// success no GPU row ends before it starts and the tables are sorted
// (Trace::Finalize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/input_stream.h"
#include "import/chrome/chrome_dialects.h"

namespace gpuwhy::fuzz {

template <typename Table>
void CheckChromeRows(const Table& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && t.start_ns[i] < t.start_ns[i - 1]) std::abort();
    if (IsValid(t.end_ns[i]) && t.end_ns[i] < t.start_ns[i]) std::abort();
  }
}

// FuzzChromeDialect: one input through `read` (a dialect's stream reader).
inline int FuzzChromeDialect(const uint8_t* data, size_t size,
                             Status (*read)(InputStream&, model::Trace&,
                                            const import::ChromeReadOptions&)) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto in = OpenMemoryStream(bytes, "fuzz.json");
  model::Trace trace;
  Status st = read(*in, trace, import::ChromeReadOptions{});
  if (st.ok()) {
    CheckChromeRows(trace.kernels);
    CheckChromeRows(trace.memcpys);
    CheckChromeRows(trace.memsets);
  } else if (st.message().empty() || st.message().find('\n') != std::string_view::npos) {
    std::abort();
  }
  return 0;
}

}  // namespace gpuwhy::fuzz
