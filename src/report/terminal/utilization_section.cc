// Terminal section "utilization": surface vs real per device, sparklines of the
// curve at the fine and at NVML's period, the curve class and its evidence.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {
namespace {

constexpr size_t kSparkWidth = 64;

// Fixed: `v` with `decimals` places.
std::string Fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

// Wrapped: `s` word-wrapped to the width, continuation lines indented by 4 more.
void Wrapped(const TerminalContext& ctx, std::ostream& out, const std::string& s) {
  const size_t width = static_cast<size_t>(ctx.options.width);
  std::string line(kSectionIndent, ' ');
  size_t pos = 0;
  bool first = true;
  while (pos < s.size()) {
    size_t next = s.find(' ', pos);
    if (next == std::string::npos) next = s.size();
    const std::string word = s.substr(pos, next - pos);
    if (DisplayWidth(line) + DisplayWidth(word) + 1 > width && DisplayWidth(line) > kSectionIndent + 4) {
      out << line << '\n';
      line = std::string(kSectionIndent + 4, ' ');
      first = true;
    }
    if (!first) line += ' ';
    line += word;
    first = false;
    pos = next + 1;
  }
  if (DisplayWidth(line) > kSectionIndent) out << line << '\n';
}

std::string Pct(double ratio) { return IsValid(ratio) ? FormatPct(ratio) : std::string(kNa); }

std::string PeriodText(int64_t ns) { return IsValid(ns) ? FormatDuration(ns) : std::string(kNa); }

std::string Tflops(double v) { return IsValid(v) ? Fixed(v, v < 10 ? 2 : 1) : std::string(kNa); }

// RenderThroughput: the real-throughput lines (MFU, busy-time MFU, top op).
void RenderThroughput(const TerminalContext& ctx, int32_t device_id, std::ostream& out) {
  const analysis::ThroughputResult& tr = ctx.trace.utilization.throughput;
  const analysis::DeviceThroughput* d = nullptr;
  for (const auto& x : tr.devices)
    if (x.device_id == device_id) d = &x;
  if (d == nullptr) {
    Wrapped(ctx, out, "  real throughput  n/a (" +
                          (tr.note.empty() ? std::string("no GPU op linked to an op with shapes")
                                           : tr.note) + ")");
    return;
  }
  std::string line = "  real throughput  MFU " + Pct(d->mfu_ratio) + " of " +
                     (d->window.empty() ? std::string("window") : d->window) + ", " +
                     Pct(d->busy_mfu_ratio) + " of busy time";
  if (!d->gpu_model.empty() && IsValid(d->peak_tflops))
    line += "   (" + d->gpu_model + " " + std::string(analysis::ToString(d->dominant_precision)) +
            " peak " + Tflops(d->peak_tflops) + " TFLOP/s)";
  Wrapped(ctx, out, line);
  std::string detail = "    modelled ops " + Tflops(d->achieved_tflops) +
                       " TFLOP/s over busy time; matrix ops " + Pct(d->matrix_share) +
                       " of op GPU time";
  if (!d->note.empty()) detail += "; " + d->note;
  Wrapped(ctx, out, detail);
  const int64_t placed = d->memory_bound_time_ns + d->compute_bound_time_ns;
  if (!d->gpu_model.empty() && placed > 0) {
    std::string roof = "    roofline: " +
                       Pct(static_cast<double>(d->memory_bound_time_ns) /
                           static_cast<double>(placed)) +
                       " of placed op time below the ridge (memory-bound), " +
                       Pct(static_cast<double>(d->compute_bound_time_ns) /
                           static_cast<double>(placed)) +
                       " above it";
    if (d->tf32_matrix_time_ns > 0 || d->fp32_matrix_time_ns > 0)
      roof += "; fp32 matrix ops " +
              Pct(static_cast<double>(d->fp32_matrix_time_ns) /
                  static_cast<double>(std::max<int64_t>(1, d->matrix_time_ns))) +
              " (SIMT), TF32 " +
              Pct(static_cast<double>(d->tf32_matrix_time_ns) /
                  static_cast<double>(std::max<int64_t>(1, d->matrix_time_ns))) +
              " of matrix time";
    Wrapped(ctx, out, roof);
  }
  for (const analysis::OpAggregate& op : d->top_ops) {
    if (!analysis::IsMatrixClass(op.op_class) || !IsValid(op.roof.achieved_tflops)) continue;
    std::string top = "    top matrix op " + op.name + " " + op.params + " (" +
                      std::string(analysis::ToString(op.precision)) + ", x" +
                      std::to_string(op.count) + "): " + Tflops(op.roof.achieved_tflops) +
                      " TFLOP/s";
    if (IsValid(op.roof.compute_roof_ratio))
      top += ", " + Pct(op.roof.compute_roof_ratio) + " of compute roof";
    if (!op.roof.bound.empty()) top += ", " + op.roof.bound + "-bound";
    Wrapped(ctx, out, top);
    break;
  }
}

}  // namespace

void RenderDeviceUtilization(const TerminalContext& ctx, const analysis::DeviceSummary& device,
                             std::ostream& out) {
  const analysis::UtilizationResult& ur = ctx.trace.utilization;
  const analysis::DeviceUtilization* d = nullptr;
  for (const auto& x : ur.devices) {
    if (x.device_id == device.device_id) d = &x;
  }
  if (d == nullptr) return;
  out << '\n';
  if (!device.has_events && d->series.empty() && !IsValid(d->real_ratio.value)) {
    Wrapped(ctx, out,
            std::string("utilization: no GPU-Util or SM-activity samples in this source, so "
                        "surface and real utilization are n/a (class ") +
                analysis::ToString(d->verdict.curve_class) + ")");
    return;
  }
  SectionLine(ctx, out, "utilization: surface vs real");
  SectionLine(ctx, out,
       "  surface GPU-Util  " + Pct(d->surface_ratio.value) + "   (" + d->surface_ratio.source +
           ")");
  // Graphics-engine activity (DCGM GRACT) is busy time, not SM activity.
  std::string real = analysis::RealIsGrEngineActivity(*d)
                         ? "  real (graphics engine, not SM)  " + Pct(d->real_ratio.value)
                         : "  real (SM active)  " + Pct(d->real_ratio.value);
  if (IsValid(d->gap_pp)) real += "   gap " + Fixed(d->gap_pp, 1) + " pp";
  if (!d->real_ratio.source.empty()) real += "   (" + d->real_ratio.source + ")";
  SectionLine(ctx, out, real);
  if (device.has_events)
    SectionLine(ctx, out,
       "  SM fill " + Pct(d->sm_fill_ratio.value) +
           (d->occupancy_ratio.source.rfind("measured", 0) == 0 ? " | occupancy (measured, ncu) "
                                                                : " | est. occupancy ") +
           Pct(d->occupancy_ratio.value) + " | tensor-core kernels " +
           Pct(d->tensor_core_share.value) + " of kernel time");
  if (device.has_events) RenderThroughput(ctx, device.device_id, out);
  if (d->kernel_time_ns > 0) {
    std::string cls = "  kernel time:";
    for (int c = 0; c < analysis::kKernelClassCount; ++c) {
      cls += " " + std::string(analysis::ToString(static_cast<analysis::KernelClass>(c))) + " " +
             Fixed(d->class_share[static_cast<size_t>(c)] * 100.0, 0) + "%";
    }
    SectionLine(ctx, out, cls);
    if (d->triton_share > 0 || d->graph_share > 0) {
      SectionLine(ctx, out,
           "  Triton kernels " + Pct(d->triton_share) + ", CUDA-graph kernels " +
               Pct(d->graph_share) + " of kernel time");
    }
  }
  struct C {
    const char* name;
    const analysis::Figure* f;
  };
  const C counters[] = {{"SM active", &d->counter_sm_active},
                        {"SM occupancy", &d->counter_sm_occupancy},
                        {"tensor active", &d->counter_tensor_active},
                        {"DRAM active", &d->counter_dram_active},
                        {"power/limit", &d->counter_power_ratio}};
  for (const C& c : counters) {
    if (IsValid(c.f->value)) {
      SectionLine(ctx, out,
           std::string("  ") + c.name + " " + Pct(c.f->value) + "  (" + c.f->source + ")");
    }
  }
  for (const analysis::UtilSeries& s : d->series) {
    if (s.label == "nvml_1s") continue;  // the 1/6 s line already shows the coarse view
    std::string label = s.label == "fine"      ? "curve @"
                        : s.label == "step"    ? "per step @"
                        : s.label == "counter" ? "counter @"
                                               : "NVML @";
    label += PeriodText(s.period_ns);
    label.resize(std::max<size_t>(label.size(), 20), ' ');
    SectionLine(ctx, out,
         "  " + label + Sparkline(s.util_ratio, ctx.options.ascii, kSparkWidth) + " " + Pct(s.mean_ratio));
  }
  const analysis::CurveVerdict& v = d->verdict;
  Wrapped(ctx, out,
          std::string("  class ") + analysis::ToString(v.curve_class) + " (confidence " +
              Fixed(v.confidence, 2) + "): " + v.reason);
  const auto& f = v.features;
  if (f.sample_count > 0) {
    std::string h = "  histogram (10% bins):";
    for (int32_t n : f.histogram) h += " " + std::to_string(n);
    h += "  mean " + Pct(f.mean_ratio) + " sd " + Pct(f.stddev_ratio);
    SectionLine(ctx, out, h);
  }
  if (d->gaps.count > 0) {
    std::string g = "  idle gaps: " + FormatCount(d->gaps.count) + ", p50 " +
                    FormatDurationF(d->gaps.p50_ns) + ", p95 " + FormatDurationF(d->gaps.p95_ns) +
                    "; " + Pct(d->gaps.long_gap_idle_share) + " of idle in gaps >= 1 ms";
    if (IsValid(d->gaps.long_gap_ns_per_step)) {
      g += " (" + FormatDurationF(d->gaps.long_gap_ns_per_step) + "/step)";
    }
    SectionLine(ctx, out, g);
  }
  const analysis::StepStats& st = ur.steps.stats;
  if (st.count > 0) {
    SectionLine(ctx, out,
         "  steps: " + std::to_string(st.count) + " (" + analysis::ToString(ur.steps.source) +
             "), mean " + FormatDurationF(st.mean_ns) + ", p50 " + FormatDurationF(st.p50_ns) +
             ", p95 " + FormatDurationF(st.p95_ns) + ", jitter " +
             (IsValid(st.jitter_ratio) ? Fixed(st.jitter_ratio, 3) : std::string(kNa)));
  }
  if (!d->window_note.empty()) Wrapped(ctx, out, "  " + d->window_note);
  if (!d->aliasing_note.empty()) Wrapped(ctx, out, "  aliasing: " + d->aliasing_note);
  if (!v.aliasing_note.empty()) Wrapped(ctx, out, "  note: " + v.aliasing_note);
}

}  // namespace gpuwhy::report
