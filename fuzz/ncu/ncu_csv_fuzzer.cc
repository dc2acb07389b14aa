// libFuzzer entry: the input bytes are a file that may be an Nsight Compute
// CSV page (raw or details). Whatever the bytes, the importer returns OK with
// a well-formed model or one error line that starts with the page's label:
// - OK: at least one kernel, info.kernels_untimed, kernels laid end to end
//   from 0 (end >= start, each starts where the previous ended), every
//   measured figure missing or finite and >= 0, every rule row pointing at a
//   kernel row;
// - error: no newline in the message, which starts with "fuzz.csv".
// The input is also read as two pages (split at the first form feed) to reach
// the cross-page key, and LooksLikeNcuReport must not read past the bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "import/ncu/ncu_csv_importer.h"
#include "import/ncu/ncu_report_importer.h"
#include "model/trace.h"

namespace {

void CheckPct(const gpuwhy::model::LazyColumn<float>& c) {
  for (size_t i = 0; i < c.size(); ++i) {
    const float v = c[i];
    if (std::isnan(v)) continue;
    if (!std::isfinite(v) || v < 0) std::abort();
  }
}

void Check(const std::vector<gpuwhy::import::NcuPage>& pages) {
  gpuwhy::model::Trace t;
  gpuwhy::Status st = gpuwhy::import::ParseNcuCsvPages(pages, t);
  if (!st.ok()) {
    const std::string& m = st.message();
    if (m.find('\n') != std::string::npos || m.rfind("fuzz.csv", 0) != 0) std::abort();
    return;
  }
  const gpuwhy::model::KernelTable& k = t.kernels;
  if (k.empty() || !t.info.kernels_untimed) std::abort();
  int64_t cursor = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.start_ns[i] != cursor || k.end_ns[i] < k.start_ns[i]) std::abort();
    cursor = k.end_ns[i];
  }
  CheckPct(k.sm_throughput_pct);
  CheckPct(k.memory_throughput_pct);
  CheckPct(k.dram_throughput_pct);
  CheckPct(k.achieved_occupancy_pct);
  CheckPct(k.theoretical_occupancy_pct);
  CheckPct(k.tensor_pipe_pct);
  CheckPct(k.sm_active_pct);
  for (size_t r = 0; r < t.kernel_rules.size(); ++r)
    if (t.kernel_rules.kernel_row[r] >= k.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuwhy::import::LooksLikeNcuReport(bytes);
  if (!gpuwhy::import::LooksLikeNcuCsv(bytes)) return 0;
  const size_t ff = bytes.find('\f');
  if (ff == std::string_view::npos) {
    Check({{bytes, "fuzz.csv"}});
  } else {
    Check({{bytes.substr(0, ff), "fuzz.csv"}, {bytes.substr(ff + 1), "fuzz.csv (page 2)"}});
  }
  return 0;
}
