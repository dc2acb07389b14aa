// Terminal section "compat": the TensorBoard plugin's and HTA's figures as
// those tools compute them (`--compat tbplugin|hta`).
#include <cstdio>
#include <string>

#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {
namespace {


std::string F2(double v) {
  if (!IsValid(v)) return std::string(kNa);
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string F0(double v) {
  if (!IsValid(v)) return std::string(kNa);
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

}  // namespace

void RenderCompat(const TerminalContext& ctx, std::ostream& out) {
  const size_t width = static_cast<size_t>(ctx.options.width);
  if (ctx.trace.tbplugin) {
    const analysis::TbPluginResult& r = *ctx.trace.tbplugin;
    out << '\n';
    SectionLine(ctx, out, "compat tbplugin: TensorBoard profiler plugin overview (its definitions)");
    SectionLine(ctx, out,
         "  steps " + std::to_string(r.step_count) + " (device-adjusted), avg step " +
             F0(r.avg_step_us) + " us");
    for (const analysis::TbPluginDevice& d : r.devices) {
      SectionLine(ctx, out,
           "  GPU " + std::to_string(d.device_id) + ": GPU Utilization " + F2(d.gpu_util_pct) +
               " %  Est. SM Efficiency " + F2(d.sm_efficiency_pct) +
               " %  Est. Achieved Occupancy " + F2(d.occupancy_pct) + " %");
      SectionLine(ctx, out,
           "         Tensor Cores (plugin allowlist) " + F2(d.tensor_core_kernel_pct) +
               " % of kernel time");
      if (!d.util_timeline.empty())
        SectionLine(ctx, out,
             "         utilization timeline @" + FormatDuration(d.util_timeline_bucket_ns) + " " +
                 Sparkline(d.util_timeline, ctx.options.ascii, 100));
    }
    if (r.step_count > 0) {
      TextTable t({{"step time breakdown", true}, {"avg us"}, {"%"}});
      for (int i = 0; i < analysis::kTbRoleCount; ++i) {
        t.AddRow({std::string(analysis::ToString(static_cast<analysis::TbRole>(i))),
                  F0(r.avg_role_us[static_cast<size_t>(i)]),
                  F2(r.role_pct[static_cast<size_t>(i)])});
      }
      t.Render(out, kSectionIndent + 2, width, 0);
    }
  }
  if (ctx.trace.hta) {
    const analysis::HtaResult& h = *ctx.trace.hta;
    out << '\n';
    SectionLine(ctx, out, "compat hta: Holistic Trace Analysis breakdowns (its definitions)");
    SectionLine(ctx, out,
         "  temporal: idle " + F2(h.temporal.idle_pct) + " %, compute " +
             F2(h.temporal.compute_pct) + " %, non-compute " + F2(h.temporal.non_compute_pct) +
             " % of " + std::to_string(h.temporal.total_us) + " us" +
             (h.last_step_dropped ? " (last step dropped)" : ""));
    if (!h.idle_streams.empty()) {
      TextTable t(
          {{"idle time by stream", true}, {"host_wait us"}, {"kernel_wait us"}, {"other us"}});
      for (const analysis::HtaIdleStream& s : h.idle_streams) {
        t.AddRow({"stream " + std::to_string(s.stream_id), std::to_string(s.host_wait_us),
                  std::to_string(s.kernel_wait_us), std::to_string(s.other_us)});
      }
      t.Render(out, kSectionIndent + 2, width, 0);
    }
  }
  if (ctx.trace.tracelens) {
    out << '\n';
    SectionLine(ctx, out, "compat tracelens: TraceLens GPU timeline (its definitions)");
    auto line = [&](const char* label, const analysis::TraceLensTimeline& t) {
      if (!t.ok) {
        SectionLine(ctx, out, std::string("  ") + label + ": " + t.error + " (" +
                           std::to_string(t.events_all) + " GPU events, none kept)");
        return;
      }
      auto ms = [](double us) { return F2(us / 1e3); };
      auto pct = [&](double us) { return F2(t.total_us > 0 ? us / t.total_us * 100 : kMissingF64); };
      SectionLine(ctx, out, std::string("  ") + label + " (" + std::to_string(t.events_used) + "/" +
                         std::to_string(t.events_all) + " GPU events): total " + ms(t.total_us) +
                         " ms, computation " + pct(t.computation_us) + " %, exposed comm " +
                         pct(t.exposed_comm_us) + " %, exposed memcpy " +
                         pct(t.exposed_memcpy_us) + " %, busy " + pct(t.busy_us) + " %, idle " +
                         pct(t.idle_us) + " %");
    };
    line("linked kernels (default)", ctx.trace.tracelens->linked);
    line("all GPU events (--unlinked)", ctx.trace.tracelens->all);
  }
}

}  // namespace gpuwhy::report
