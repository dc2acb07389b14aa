#include "analysis/detectors/uvm_detector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace gpuwhy::analysis::detectors {

using model::CopyKind;
using model::MigrationCause;

namespace {

std::string Mib(int64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return b;
}

double Share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : kMissingF64;
}

}  // namespace

UvmStats ComputeUvmStats(const model::Trace& t, const DeviceTimeline& d) {
  UvmStats st;
  st.device_id = d.device_id;
  IntervalList windows;
  {
    std::vector<Interval> w;
    for (const StepWindow& s : d.steps) w.push_back({s.start_ns, s.end_ns});
    windows = UnionOf(std::move(w));
  }
  const model::MemcpyTable& m = t.memcpys;
  std::vector<Interval> mig;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.device_id[i] != d.device_id || !model::IsUvmMigration(m.copy_kind[i])) continue;
    if (OverlapLength(windows, m.start_ns[i], std::max(m.end_ns[i], m.start_ns[i] + 1)) == 0) continue;
    ++st.count;
    const int64_t b = IsValid(m.bytes[i]) && m.bytes[i] > 0 ? m.bytes[i] : 0;
    st.bytes += b;
    switch (m.copy_kind[i]) {
      case CopyKind::kUvmHtoD: ++st.htod_count; st.htod_bytes += b; break;
      case CopyKind::kUvmDtoH: ++st.dtoh_count; st.dtoh_bytes += b; break;
      default: ++st.dtod_count; st.dtod_bytes += b; break;
    }
    const auto cause = static_cast<size_t>(m.migration_cause[i]);
    if (cause < st.by_cause.size()) ++st.by_cause[cause];
    mig.push_back({m.start_ns[i], m.end_ns[i]});
  }
  IntervalList u = Intersect(UnionOf(std::move(mig)), windows);
  st.union_ns = TotalLength(u);
  st.beside_kernels_ns = OverlapLength(u, d.kernel_busy);
  st.in_gaps_ns = st.union_ns - st.beside_kernels_ns;
  return st;
}

std::vector<Finding> DetectUvmMigrations(const DetectorInput& in) {
  std::vector<Finding> out;
  for (const DeviceTimeline& d : in.timeline.devices) {
    if (d.steps_total_ns <= 0) continue;
    const UvmStats st = ComputeUvmStats(in.trace, d);
    if (st.count == 0) continue;
    const double ratio = Share(st.union_ns, d.steps_total_ns);
    if (!IsValid(ratio) || ratio < 0.01) continue;
    Finding f;
    f.id = "data_loading.uvm_migrations";
    f.category = Category::kDataLoading;
    f.rank = in.rank;
    f.device_id = d.device_id;
    f.title = "Unified Memory page migrations stall the GPU";
    f.per_step_basis = d.steps_from_markers;
    const int64_t steps = std::max<int64_t>(1, static_cast<int64_t>(d.steps.size()));
    f.lost_per_step_ns = st.union_ns / steps;
    f.lost_step_ratio = ratio;
    f.severity = SeverityFromLoss(ratio);
    const std::string of = d.steps_from_markers ? "of the steps" : "of the span";
    const int64_t faults = st.by_cause[static_cast<size_t>(MigrationCause::kCoherence)];
    const int64_t evictions = st.by_cause[static_cast<size_t>(MigrationCause::kEviction)];
    const int64_t prefetches = st.by_cause[static_cast<size_t>(MigrationCause::kUser)] +
                               st.by_cause[static_cast<size_t>(MigrationCause::kPrefetch)];
    std::string causes;
    for (size_t c = 0; c < st.by_cause.size(); ++c) {
      if (st.by_cause[c] == 0) continue;
      if (!causes.empty()) causes += ", ";
      causes += std::string(model::ToString(static_cast<MigrationCause>(c))) + " " +
                FormatPct(Share(st.by_cause[c], st.count));
    }
    f.summary = std::to_string(st.count) + " Unified Memory page migrations (" + Mib(st.htod_bytes) +
                " host-to-device, " + Mib(st.dtoh_bytes) + " device-to-host) take " +
                FormatMs(st.union_ns) + ", " + FormatPct(ratio) + " " + of + "; " +
                FormatPct(Share(st.beside_kernels_ns, st.union_ns)) +
                " of that while kernels run (they wait on page faults) and " +
                FormatPct(Share(st.in_gaps_ns, st.union_ns)) + " in the gaps between kernels" +
                (causes.empty() ? std::string(".") : "; causes: " + causes + ".");
    AddMetric(f, "uvm_migrations", static_cast<double>(st.count), "count", "page migrations");
    AddMetric(f, "uvm_bytes", static_cast<double>(st.bytes), "bytes", "bytes migrated");
    AddMetric(f, "uvm_htod_bytes", static_cast<double>(st.htod_bytes), "bytes", "migrated to the GPU");
    AddMetric(f, "uvm_dtoh_bytes", static_cast<double>(st.dtoh_bytes), "bytes", "migrated to the host");
    AddMetric(f, "uvm_time_ns", static_cast<double>(st.union_ns), "ns", "union of migration time");
    AddMetric(f, "uvm_beside_kernels_ratio", Share(st.beside_kernels_ns, st.union_ns), "ratio",
              "migration time while a kernel runs");
    AddMetric(f, "uvm_in_gaps_ratio", Share(st.in_gaps_ns, st.union_ns), "ratio",
              "migration time with no kernel running");
    AddMetric(f, "uvm_page_fault_ratio", Share(faults, st.count), "ratio", "migrations caused by page faults");
    AddMetric(f, "uvm_eviction_ratio", Share(evictions, st.count), "ratio", "migrations caused by eviction");
    // The longest migrations, as examples.
    std::vector<size_t> rows;
    const model::MemcpyTable& m = in.trace.memcpys;
    for (size_t i = 0; i < m.size(); ++i)
      if (m.device_id[i] == d.device_id && model::IsUvmMigration(m.copy_kind[i])) rows.push_back(i);
    std::partial_sort(rows.begin(), rows.begin() + static_cast<ptrdiff_t>(std::min<size_t>(3, rows.size())),
                      rows.end(), [&](size_t a, size_t b) {
                        return m.end_ns[a] - m.start_ns[a] > m.end_ns[b] - m.start_ns[b];
                      });
    for (size_t k = 0; k < rows.size() && k < 3; ++k) {
      const size_t i = rows[k];
      Example ex;
      ex.what = "Memcpy " + std::string(model::ToString(m.copy_kind[i])) + " (" +
                std::string(model::ToString(m.migration_cause[i])) + ")";
      ex.start_ns = m.start_ns[i];
      ex.dur_ns = m.end_ns[i] - m.start_ns[i];
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      const int32_t si = Timeline::StepIndexAt(d, m.start_ns[i]);
      if (si >= 0 && d.steps_from_markers) ex.step = d.steps[static_cast<size_t>(si)].step;
      if (IsValid(m.bytes[i])) ex.detail = Mib(m.bytes[i]);
      f.examples.push_back(std::move(ex));
    }
    f.recommendations.push_back(
        {FixKind::kPrefetch,
         "Prefetch managed memory before the kernels that touch it: cudaMemPrefetchAsync(ptr, "
         "bytes, device, stream) on the compute stream (and to cudaCpuDeviceId before the host "
         "reads it back)."});
    f.recommendations.push_back(
        {FixKind::kPrefetch,
         "Tell the driver where pages belong: cudaMemAdvise(ptr, bytes, "
         "cudaMemAdviseSetPreferredLocation / SetReadMostly / SetAccessedBy, device), so they are "
         "not migrated back and forth."});
    f.recommendations.push_back(
        {FixKind::kAsyncCopies,
         "Or allocate on the device (cudaMalloc, PyTorch tensors on 'cuda' instead of a managed "
         "allocator) and copy explicitly with cudaMemcpyAsync from pinned memory."});
    if (evictions > 0)
      f.notes.push_back(std::to_string(evictions) +
                        " migrations are evictions: the working set exceeds GPU memory "
                        "(oversubscription); a smaller batch or streaming the data set avoids the "
                        "thrashing.");
    if (prefetches > 0 && prefetches * 2 >= st.count)
      f.notes.push_back("Most migrations are already prefetches: issue them earlier, on another "
                        "stream, so they overlap compute.");
    f.caveats.push_back(
        "Kernels stalled on page faults run longer than they would; the time is an upper bound "
        "on what prefetching saves, since the bytes still have to move once.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
