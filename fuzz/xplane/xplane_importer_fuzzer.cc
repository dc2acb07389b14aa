// libFuzzer entry for the XSpace importer (`gpuwhy analyze X.xplane.pb`):
// LooksLikeXSpace on every input, then ReadXSpaceBytes twice: on the input as
// is, and on it wrapped as the body of one plane (a sound XSpace framing), so
// that mutations reach XPlane parsing and the mapping instead of stopping at
// the top-level framing check.
// Invariants: an error is one non-empty line; a trace that imports has its
// tables sorted and no kernel, copy or range that ends before it starts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "import/xplane/xplane_importer.h"
#include "model/trace.h"

namespace {

template <typename Table>
void XplaneFuzzSpans(const Table& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && t.start_ns[i] < t.start_ns[i - 1]) std::abort();
    if (gpuwhy::IsValid(t.start_ns[i]) && gpuwhy::IsValid(t.end_ns[i]) &&
        t.end_ns[i] < t.start_ns[i])
      std::abort();
  }
}

void XplaneFuzzCheck(std::string_view bytes) {
  gpuwhy::model::Trace trace;
  gpuwhy::Status s = gpuwhy::import::ReadXSpaceBytes(bytes, "fuzz.xplane.pb", trace);
  if (!s.ok()) {
    if (s.message().empty() || s.message().find('\n') != std::string::npos) std::abort();
    return;
  }
  XplaneFuzzSpans(trace.kernels);
  XplaneFuzzSpans(trace.memcpys);
  XplaneFuzzSpans(trace.memsets);
  XplaneFuzzSpans(trace.api_calls);
  XplaneFuzzSpans(trace.ranges);
}

// XplaneFuzzAsPlane: field 1 (planes) of an XSpace holding `body`.
std::string XplaneFuzzAsPlane(std::string_view body) {
  std::string out(1, '\x0A');
  for (uint64_t n = body.size();; n >>= 7) {
    if (n < 0x80) {
      out += static_cast<char>(n);
      break;
    }
    out += static_cast<char>((n & 0x7F) | 0x80);
  }
  out.append(body);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::LooksLikeXSpace(bytes);
  XplaneFuzzCheck(bytes);
  XplaneFuzzCheck(XplaneFuzzAsPlane(bytes));
  return 0;
}
