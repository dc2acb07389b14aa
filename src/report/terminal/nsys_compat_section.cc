// Terminal section "nsys_compat" (`--compat nsys`): the nsys stats reports and
// analyze rules gpuwhy reproduces, laid out like `nsys stats` tables.
// Formatting only: every number comes from analysis::nsys_compat.
#include <fmt/format.h>

#include <string>

#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

namespace nc = analysis::nsys_compat;

constexpr size_t kMaxRows = 10;  // per table; nsys prints all, the terminal keeps the top

void Title(std::ostream& out, std::string_view name, std::string_view what) {
  out << "\n  nsys " << name << " — " << what << '\n';
}

void StatTable(const TerminalContext& ctx, std::ostream& out, std::string_view report,
               std::string_view what, std::string_view count_label,
               const std::vector<nc::StatRow>& rows) {
  if (rows.empty()) return;
  Title(out, report, what);
  out << fmt::format("  {:>8} {:>16} {:>10} {:>14} {:>14} {:>12} {:>14} {:>14}\n      {}\n",
                     "Time (%)", "Total Time (ns)", count_label, "Avg (ns)", "Med (ns)",
                     "Min (ns)", "Max (ns)", "StdDev (ns)", "Name");
  for (size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const nc::StatRow& r = rows[i];
    std::string line = fmt::format(
        "  {:>8.1f} {:>16} {:>10} {:>14.1f} {:>14.1f} {:>12} {:>14} {:>14.1f}", r.time_pct,
        r.stats.total_ns, r.stats.count, r.stats.avg_ns, r.stats.med_ns, r.stats.min_ns,
        r.stats.max_ns, r.stats.stddev_ns);
    out << line << '\n';
    // The name goes on its own line so a narrow terminal cuts the name, not the numbers.
    out << FitWidth("      " + r.name, static_cast<size_t>(ctx.options.width)) << '\n';
  }
  if (rows.size() > kMaxRows) out << "  ... " << rows.size() - kMaxRows << " more rows\n";
}

std::string KindName(model::MemoryKind k) {
  switch (k) {
    case model::MemoryKind::kPageable: return "Pageable";
    case model::MemoryKind::kPinned: return "Pinned";
    case model::MemoryKind::kDevice: return "Device";
    case model::MemoryKind::kArray: return "Array";
    case model::MemoryKind::kManaged: return "Managed";
    case model::MemoryKind::kDeviceStatic: return "Device Static";
    case model::MemoryKind::kManagedStatic: return "Managed Static";
    case model::MemoryKind::kUnknown: break;
  }
  return "Unknown";
}

void MemopTable(const TerminalContext& ctx, std::ostream& out, std::string_view rule,
                std::string_view what, const std::vector<nc::MemopRuleRow>& rows) {
  if (rows.empty()) return;
  Title(out, rule, what);
  out << fmt::format("  {:>12} {:>14} {:>9} {:>9} {:>10} {:>8} {:>4} {:>6}  {}\n", "Duration (ns)",
                     "Start (ns)", "Src Kind", "Dst Kind", "Bytes (MB)", "PID", "Dev", "Strm",
                     "API Name");
  for (size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const nc::MemopRuleRow& r = rows[i];
    std::string line = fmt::format(
        "  {:>12} {:>14} {:>9} {:>9} {:>10.3f} {:>8} {:>4} {:>6}  {}", r.dur_ns, r.start_ns,
        r.src_kind == model::MemoryKind::kUnknown ? "-" : KindName(r.src_kind),
        KindName(r.dst_kind), IsValid(r.bytes) ? static_cast<double>(r.bytes) / 1e6 : 0.0,
        FormatInt(r.pid), FormatInt(r.device_id), IsValid(r.stream_id) ? std::to_string(r.stream_id) : "n/a",
        r.api_name);
    out << FitWidth(line, static_cast<size_t>(ctx.options.width)) << '\n';
  }
  if (rows.size() > kMaxRows) out << "  ... " << rows.size() - kMaxRows << " more rows\n";
}

}  // namespace

void RenderNsysCompat(const TerminalContext& ctx, std::ostream& out) {
  if (!ctx.trace.nsys) return;
  const nc::NsysCompatReport& r = *ctx.trace.nsys;
  out << "\n  nsys compat (reproduces nsys 2024.2 stats/analyze from the model)\n";
  StatTable(ctx, out, "cuda_gpu_kern_sum", "kernel time by name (Time % of summed kernel time)",
            "Instances", r.kern_sum);
  StatTable(ctx, out, "cuda_api_sum", "CUDA API time by call", "Num Calls", r.api_sum);
  StatTable(ctx, out, "cuda_gpu_mem_time_sum", "memory operation time", "Count", r.mem_time_sum);
  if (!r.kern_exec_sum.empty()) {
    Title(out, "cuda_kern_exec_sum", "launch (API) / queue / kernel time per launch site");
    out << fmt::format("  {:>8} {:>8} {:>6} {:>14} {:>14} {:>14} {:>14}\n      {}\n", "Count",
                       "QCount", "DevId", "TAvg (ns)", "AAvg (ns)", "QAvg (ns)", "KAvg (ns)",
                       "API Name / Kernel Name");
    for (size_t i = 0; i < r.kern_exec_sum.size() && i < kMaxRows; ++i) {
      const nc::KernExecRow& k = r.kern_exec_sum[i];
      std::string line = fmt::format(
          "  {:>8} {:>8} {:>6} {:>14.1f} {:>14.1f} {:>14} {:>14.1f}", k.total.count, k.q_count,
          FormatInt(k.device_id), k.total.avg_ns, k.api.avg_ns,
          k.q_count ? fmt::format("{:.1f}", k.queue.avg_ns) : std::string("n/a"), k.kernel.avg_ns);
      out << line << '\n'
          << FitWidth("      " + k.api_name + " / " + k.kernel_name,
                      static_cast<size_t>(ctx.options.width))
          << '\n';
    }
  }
  if (!r.api_sync.empty()) {
    Title(out, "cuda_api_sync", "host-blocking synchronization calls (longest first)");
    for (size_t i = 0; i < r.api_sync.size() && i < kMaxRows; ++i) {
      const nc::ApiSyncRow& s = r.api_sync[i];
      out << FitWidth(fmt::format("  {:>12} ns at {:>14}  pid {} tid {}  {}", s.dur_ns, s.start_ns,
                                  FormatInt(s.pid), IsValid(s.tid) ? std::to_string(s.tid) : "n/a",
                                  s.api_name),
                      static_cast<size_t>(ctx.options.width))
          << '\n';
    }
    out << "  " << r.api_sync.size() << " calls in all\n";
  }
  MemopTable(ctx, out, "cuda_memcpy_async", "async memcpy made synchronous by pageable memory",
             r.memcpy_async);
  MemopTable(ctx, out, "cuda_memcpy_sync", "synchronous memcpy blocking the host", r.memcpy_sync);
  MemopTable(ctx, out, "cuda_memset_sync", "synchronous memset blocking the host", r.memset_sync);
  if (!r.gaps.empty()) {
    Title(out, "gpu_gaps", "GPU idle > 500 ms");
    for (const nc::GapRow& g : r.gaps)
      out << fmt::format("  {:>14} at {:>14}  pid {} device {}\n", FormatDuration(g.dur_ns),
                         g.start_ns, FormatInt(g.pid), FormatInt(g.device_id));
  }
  if (!r.time_util.empty()) {
    Title(out, "gpu_time_util", "regions under 50% GPU time use (30 chunks, summed op time)");
    for (const nc::UtilRow& u : r.time_util)
      out << fmt::format("  {:>5.1f}% in-use for {:>12} from {:>14}  pid {} device {}\n",
                         u.in_use_pct, FormatDuration(u.dur_ns), u.start_ns, FormatInt(u.pid),
                         FormatInt(u.device_id));
  }
  for (const std::string& n : r.notes) out << "  note: " << n << '\n';
}

}  // namespace gpuwhy::report
