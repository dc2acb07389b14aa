// libFuzzer entry: arbitrary bytes as a request head for the /metrics
// server's parser. Invariants: the views it returns lie inside the input, and
// a valid head has a non-empty method and target and an HTTP/ version.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "live/prometheus_exporter.h"

namespace {

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view head(reinterpret_cast<const char*>(data), size);
  gpuwhy::live::HttpRequestHead r = gpuwhy::live::ParseRequestHead(head);
  if (!Inside(r.method, head) || !Inside(r.target, head) || !Inside(r.version, head)) std::abort();
  if (r.valid && (r.method.empty() || r.target.empty() || r.version.substr(0, 5) != "HTTP/"))
    std::abort();
  if (!r.valid && r.keep_alive) std::abort();
  return 0;
}
