// libFuzzer entry: the input bytes are a SQLite database image, loaded
// read-only in memory (ReadNsysSqliteImage, the same Reader as the file path)
// and imported. A failure must be a Status with a one-line message naming the
// image; a success must satisfy the model invariants: every event table sorted
// by start, no interval ending before it starts, kernel names resolvable in the
// string pool, counter series with as many values as timestamps and values NaN
// or >= 0 (negative raw samples must have been marked missing).
// The kernel and runtime tables go through SqlitePageReader there (over the
// in-memory image); the page reader is also run straight on the bytes with a
// fixed plan for root pages 1..8, so damaged pages reach it even when
// sqlite_master does not parse. It may refuse (fall back), never crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "import/nsys/nsys_importer.h"
#include "import/nsys/sqlite_page_reader.h"

namespace {

void CheckIntervals(const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
  if (start.size() != end.size()) std::abort();
  for (size_t i = 0; i < start.size(); ++i) {
    if (i > 0 && start[i] < start[i - 1]) std::abort();
    if (!gpuwhy::IsValid(start[i]) || !gpuwhy::IsValid(end[i]) || end[i] < start[i]) std::abort();
  }
}

// ScanPages: SqlitePageReader over `bytes` as a table at root pages 1..8
// with wanted columns in slots 0..5, a rowid alias, an absent column and
// known / unknown defaults.
void ScanPages(std::string_view bytes) {
  using gpuwhy::import::PageColumn;
  using gpuwhy::import::SqlitePageReader;
  gpuwhy::Result<SqlitePageReader> r = SqlitePageReader::OpenImage(bytes);
  if (!r.ok()) return;
  gpuwhy::import::PageTablePlan plan;
  for (int slot = 0; slot < 6; ++slot) plan.columns.push_back(PageColumn{slot, false, 3, slot != 5});
  plan.columns.push_back(PageColumn{1, true, 0, true});
  plan.columns.push_back(PageColumn{-1, false, 0, true});
  for (uint32_t root = 1; root <= 8 && root <= r->page_count(); ++root) {
    plan.root_page = root;
    uint64_t rows = 0, sum = 0;
    gpuwhy::Status st = r->ScanInts(
        plan,
        [&](const int64_t* v, size_t n) {
          for (size_t i = 0; i < n * plan.columns.size(); ++i) sum += static_cast<uint64_t>(v[i]);
        },
        &rows);
    if (st.ok() && st.message().find('\n') != std::string::npos) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::LooksLikeSqlite(bytes);
  ScanPages(bytes);
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
