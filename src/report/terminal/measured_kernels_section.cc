// Terminal: the measured per-kernel table (Nsight Compute speed of light,
// occupancy, bound) of analysis::MeasuredKernels. Formatting only.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "base/demangle.h"
#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

std::string MksPct(double v) { return std::isnan(v) ? std::string("n/a") : fmt::format("{:.0f}%", v); }

std::string MksDims(const int32_t d[3]) {
  if (!IsValid(d[0])) return "n/a";
  return fmt::format("{},{},{}", d[0], IsValid(d[1]) ? d[1] : 1, IsValid(d[2]) ? d[2] : 1);
}

}  // namespace

void RenderMeasuredKernels(const TerminalContext& ctx, std::ostream& out) {
  if (!ctx.trace.measured_kernels) return;
  const analysis::MeasuredKernels& m = *ctx.trace.measured_kernels;
  if (m.groups.empty()) return;
  out << '\n';
  if (m.untimed) {
    SectionLine(ctx, out,
                fmt::format("kernels measured (ncu): {} launches, {}, each replayed alone (no "
                            "timeline)",
                            m.kernels, FormatDuration(m.kernel_time_ns)));
  } else {
    SectionLine(ctx, out,
                fmt::format("kernels measured (ncu): {} of {} trace kernels matched (demangled "
                            "name + launch config)",
                            m.measured_kernels, m.kernels));
  }
  SectionLine(ctx, out,
              fmt::format("{:<30} {:>7} {:>4} {:>4} {:>4} {:>4} {:>4} {:>6}  {}", "kernel", "bound",
                          "SM", "mem", "DRAM", "occ", "theo", "time", "grid x block"));
  for (const analysis::MeasuredKernel& k : m.groups) {
    std::string bound(analysis::ToString(k.bound));
    if (bound.empty()) bound = "n/a";
    SectionLine(ctx, out,
                fmt::format("{:<30} {:>7} {:>4} {:>4} {:>4} {:>4} {:>4} {:>6}  ({}) x ({})",
                            AbbreviateSymbol(k.name, 30), bound, MksPct(k.sm_throughput_pct),
                            MksPct(k.memory_throughput_pct), MksPct(k.dram_throughput_pct),
                            MksPct(k.achieved_occupancy_pct), MksPct(k.theoretical_occupancy_pct),
                            std::isnan(k.time_share_ratio) ? std::string("n/a")
                                                           : FormatPct(k.time_share_ratio),
                            MksDims(k.grid), MksDims(k.block)));
    for (const analysis::MeasuredRule& r : k.rules) {
      if (r.type == "INF") continue;
      std::string s = "    ncu " + r.type + " " + r.rule;
      if (!std::isnan(r.est_speedup_pct))
        s += fmt::format(" (est. speedup {:.0f}%{})", r.est_speedup_pct,
                         r.speedup_kind.empty() ? "" : " " + r.speedup_kind);
      s += ": " + r.message;
      SectionLine(ctx, out, s);
    }
  }
  SectionLine(ctx, out,
              "  SM/mem/DRAM: % of peak throughput; occ/theo: achieved/theoretical occupancy");
  SectionLine(ctx, out,
              "  all measured (ncu); bound: the unit at >= 60% of peak, latency = neither");
}

}  // namespace gpuwhy::report
