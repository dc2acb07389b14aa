#include "model/trace_compare.h"

#include <string>
#include <tuple>

#include <fmt/format.h>

namespace gpuwhy::model {
namespace {

// Fields(x): the members that define equality, as a tuple of references.
auto Fields(const Device& d) {
  return std::tie(d.device_id, d.name, d.vendor, d.uuid, d.sm_count, d.cc_major, d.cc_minor,
                  d.total_memory_bytes, d.max_threads_per_sm, d.max_threads_per_block,
                  d.max_blocks_per_sm, d.regs_per_sm, d.regs_per_block, d.smem_per_sm_bytes,
                  d.smem_per_block_bytes, d.smem_per_block_optin_bytes, d.warp_size,
                  d.pcie_bus_id);
}
auto Fields(const Process& p) { return std::tie(p.pid, p.name); }
auto Fields(const Thread& t) { return std::tie(t.pid, t.tid, t.name); }
auto Fields(const Stream& s) { return std::tie(s.device_id, s.stream_id, s.name, s.priority); }
auto Fields(const RankInfo& r) {
  return std::tie(r.rank, r.world_size, r.local_rank, r.backend, r.hostname, r.pg_count);
}
auto Fields(const TraceInfo& i) {
  return std::tie(i.source_path, i.format, i.format_version, i.clock, i.base_time_ns,
                  i.capture_start_ns, i.capture_end_ns, i.merged_inputs, i.import_notes, i.host_only_profile,
                  i.ac2g_flow_ids,
                  i.cuda_runtime_version, i.cuda_driver_version, i.cupti_version);
}

template <typename T>
std::string VectorDiff(const char* what, const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return fmt::format("{}: {} rows against {}", what, a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (Fields(a[i]) != Fields(b[i])) return fmt::format("{}[{}] differs", what, i);
  return {};
}

template <typename Table>
std::string TableDiff(const char* what, const Table& a, const Table& b) {
  if (a.size() != b.size()) return fmt::format("{}: {} rows against {}", what, a.size(), b.size());
  if (const char* col = a.FirstDifferentColumn(b)) return fmt::format("{}.{} differs", what, col);
  return {};
}

std::string CounterDiff(const std::vector<CounterSeries>& a, const std::vector<CounterSeries>& b) {
  if (a.size() != b.size()) return fmt::format("counters: {} series against {}", a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const CounterSeries& x = a[i];
    const CounterSeries& y = b[i];
    if (std::tie(x.name, x.kind, x.unit, x.device_id, x.source, x.period_ns, x.ts_are_indexes) !=
            std::tie(y.name, y.kind, y.unit, y.device_id, y.source, y.period_ns, y.ts_are_indexes) ||
        !SameBits(x.ts_ns, y.ts_ns) || !SameBits(x.value, y.value))
      return fmt::format("counters[{}] differs", i);
  }
  return {};
}

}  // namespace

std::string DescribeDifference(const Trace& a, const Trace& b) {
  if (a.strings.size() != b.strings.size())
    return fmt::format("strings: {} against {}", a.strings.size(), b.strings.size());
  for (StringId id = 0; id < static_cast<StringId>(a.strings.size()); ++id)
    if (a.strings.Get(id) != b.strings.Get(id)) return fmt::format("strings[{}] differs", id);
  if (Fields(a.info) != Fields(b.info)) return "trace info differs";
  if (Fields(a.rank) != Fields(b.rank)) return "rank info differs";
  for (size_t i = 0; i < kImportStatCount; ++i)
    if (a.stats.Get(i) != b.stats.Get(i))
      return fmt::format("import counter {}: {} against {}", kImportStatInfo[i].name,
                         a.stats.Get(i), b.stats.Get(i));
  // Every part is compared (a test helper: clarity over early exit).
  for (const std::string& d : {
           VectorDiff("devices", a.devices, b.devices),
           VectorDiff("processes", a.processes, b.processes),
           VectorDiff("threads", a.threads, b.threads),
           VectorDiff("streams", a.streams, b.streams),
           TableDiff("kernels", a.kernels, b.kernels),
           TableDiff("memcpys", a.memcpys, b.memcpys),
           TableDiff("memsets", a.memsets, b.memsets),
           TableDiff("api_calls", a.api_calls, b.api_calls),
           TableDiff("syncs", a.syncs, b.syncs),
           TableDiff("ranges", a.ranges, b.ranges),
           TableDiff("markers", a.markers, b.markers),
           TableDiff("collectives", a.collectives, b.collectives),
           TableDiff("kernel_rules", a.kernel_rules, b.kernel_rules),
           TableDiff("gpu_processes", a.gpu_processes, b.gpu_processes),
           CounterDiff(a.counters, b.counters),
       })
    if (!d.empty()) return d;
  return {};
}

}  // namespace gpuwhy::model
