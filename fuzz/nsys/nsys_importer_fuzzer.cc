// libFuzzer entry: the input bytes are a SQLite database image, loaded
// read-only in memory (ReadNsysSqliteImage, the same Reader as the file path)
// and imported. A failure must be a Status with a one-line message naming the
// image; a success must satisfy the model invariants: every event table sorted
// by start, no interval ending before it starts, kernel names resolvable in the
// string pool, counter series with as many values as timestamps and values NaN
// or >= 0 (negative raw samples must have been marked missing).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "import/nsys/nsys_importer.h"

namespace {

void CheckIntervals(const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
  if (start.size() != end.size()) std::abort();
  for (size_t i = 0; i < start.size(); ++i) {
    if (i > 0 && start[i] < start[i - 1]) std::abort();
    if (!gpuwhy::IsValid(start[i]) || !gpuwhy::IsValid(end[i]) || end[i] < start[i]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::LooksLikeSqlite(bytes);
  static const std::string kName = "fuzz.sqlite";
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadNsysSqliteImage(bytes, kName, trace);
  if (!st.ok()) {
    const std::string& m = st.message();
    if (m.empty() || m.find(kName) == std::string::npos || m.find('\n') != std::string::npos)
      std::abort();  // every error is one line that says where
    return 0;
  }
  const auto& k = trace.kernels;
  CheckIntervals(k.start_ns, k.end_ns);
  for (gpuwhy::StringId name : k.name) (void)trace.Str(name);
  CheckIntervals(trace.memcpys.start_ns, trace.memcpys.end_ns);
  CheckIntervals(trace.memsets.start_ns, trace.memsets.end_ns);
  CheckIntervals(trace.api_calls.start_ns, trace.api_calls.end_ns);
  CheckIntervals(trace.syncs.start_ns, trace.syncs.end_ns);
  CheckIntervals(trace.ranges.start_ns, trace.ranges.end_ns);
  for (const auto& s : trace.counters) {
    if (s.ts_ns.size() != s.value.size()) std::abort();
    for (double v : s.value)
      if (!std::isnan(v) && v < 0) std::abort();
  }
  return 0;
}
