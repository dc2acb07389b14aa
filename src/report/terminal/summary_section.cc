// Terminal sections of the per-device summary: trace overview, device block,
// import notes. Formatting only: every number comes from analysis::TraceSummary.
#include <fmt/format.h>

#include <string>

#include "base/demangle.h"
#include "base/units.h"
#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

constexpr size_t kLabelWidth = 12;

// Line: "  label       text", cut to the width.
void Line(std::ostream& out, const TerminalContext& ctx, std::string_view label,
          const std::string& text) {
  std::string s(kSectionIndent, ' ');
  s += label;
  if (label.size() < kLabelWidth) s.append(kLabelWidth - label.size(), ' ');
  s += text;
  out << FitWidth(s, static_cast<size_t>(ctx.options.width)) << '\n';
}

// MemoryKindLabel: Kineto's spelling ("Pageable", "Device Static").
std::string_view MemoryKindLabel(model::MemoryKind k) {
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
  return "unknown";
}

std::string SyncKindLabel(model::SyncKind k) {
  switch (k) {
    case model::SyncKind::kEventSynchronize: return "Event Sync";
    case model::SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case model::SyncKind::kStreamSynchronize: return "Stream Sync";
    case model::SyncKind::kContextSynchronize: return "Context Sync";
    case model::SyncKind::kUnknown: break;
  }
  return "unknown";
}

std::string SyncClassLabel(analysis::SyncApiClass c) {
  switch (c) {
    case analysis::SyncApiClass::kExplicitSync: return "explicit sync";
    case analysis::SyncApiClass::kBlockingMemcpy: return "blocking copy";
    case analysis::SyncApiClass::kGpuWait: return "GPU-side wait (host not blocked)";
  }
  return "unknown";
}

// ShortClass: a kernel class in at most 7 columns, "+tc" on tensor/matrix cores.
std::string ShortClass(analysis::KernelClass c, bool tensor_core) {
  switch (c) {
    case analysis::KernelClass::kGemmConv: return tensor_core ? "gemm+tc" : "gemm";
    case analysis::KernelClass::kElementwise: return "elem";
    case analysis::KernelClass::kReduction: return "reduce";
    case analysis::KernelClass::kCopy: return "copy";
    case analysis::KernelClass::kCommunication: return "comm";
    case analysis::KernelClass::kOther: break;
  }
  return "other";
}

std::string TimeAndPct(int64_t ns, double ratio) {
  return FormatDuration(ns) + " (" + FormatPct(ratio) + ")";
}

void TransferRow(TextTable& t, std::string label, const analysis::TransferStats& s) {
  std::string bytes = FormatBytes(s.bytes);
  if (s.count_missing_bytes == s.count) bytes = std::string(kNa);
  t.AddRow({std::move(label), FormatCount(s.count), bytes, FormatDuration(s.total_ns),
            FormatGbps(s.bandwidth_gbps)});
}

// CounterValue: one counter figure in the series' unit.
std::string CounterValue(model::CounterUnit unit, double v) {
  if (!IsValid(v)) return std::string(kNa);
  switch (unit) {
    case model::CounterUnit::kRatio: return FormatPct(v);
    case model::CounterUnit::kPercent: return fmt::format("{:.1f}%", v);
    case model::CounterUnit::kMilliwatt: return fmt::format("{:.1f} W", v / 1000.0);
    case model::CounterUnit::kMhz: return fmt::format("{:.0f} MHz", v);
    case model::CounterUnit::kBytes: return FormatBytesBinary(static_cast<int64_t>(v));
    case model::CounterUnit::kBytesPerSecond: return FormatGbps(v / 1e9);
    case model::CounterUnit::kCelsius: return fmt::format("{:.0f} C", v);
    case model::CounterUnit::kBitmask: return fmt::format("0x{:x}", static_cast<uint64_t>(v));
    case model::CounterUnit::kCount:
    case model::CounterUnit::kUnknown: break;
  }
  return fmt::format("{:.4g}", v);
}

// RenderCounters: one row per sampled counter series of the device.
void RenderCounters(const TerminalContext& ctx, const analysis::DeviceSummary& d,
                    std::ostream& out) {
  if (d.counters.empty()) return;
  TextTable t({{"counter", true}, {"source", true}, {"period"}, {"samples"}, {"mean"}, {"min"},
               {"max"}});
  for (const analysis::CounterSummary& c : d.counters) {
    std::string samples = FormatCount(c.valid_samples);
    if (c.valid_samples != c.samples) samples += "/" + FormatCount(c.samples);
    bool mask = c.unit == model::CounterUnit::kBitmask;
    // Unmapped series show the source's own name ("throttle_reason_idle").
    std::string label = c.kind == model::CounterKind::kOther && !c.name.empty()
                            ? c.name
                            : std::string(model::ToString(c.kind));
    t.AddRow({label, c.source,
              IsValid(c.period_ns) ? FormatDuration(c.period_ns)
              : c.untimed          ? std::string("untimed")
                                   : std::string(kNa),
              samples,
              mask ? std::string("-") : CounterValue(c.unit, c.mean), CounterValue(c.unit, c.min),
              CounterValue(c.unit, c.max)});
  }
  t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 0);
}

void RenderSteps(const TerminalContext& ctx, const analysis::StepSummary& st, std::ostream& out) {
  if (!st.has_steps) {
    Line(out, ctx, "steps", "none found (no ProfilerStep#N markers in this trace)");
    return;
  }
  const analysis::DurationStats& d = st.step_time;
  Line(out, ctx, "steps",
       fmt::format("{} ProfilerStep (#{}..#{}) · window {}", FormatCount(d.count),
                   st.first_step, st.last_step,
                   FormatDuration(st.window_end_ns - st.window_start_ns)));
  Line(out, ctx, "step time",
       fmt::format("mean {} · sd {} · min {} · max {}", FormatDurationF(d.mean_ns),
                   FormatDurationF(d.stddev_ns), FormatDuration(d.min_ns),
                   FormatDuration(d.max_ns)));
  Line(out, ctx, "",
       fmt::format("p50 {} · p95 {}", FormatDuration(d.p50_ns), FormatDuration(d.p95_ns)));
}

void RenderKernels(const TerminalContext& ctx, const analysis::KernelSummary& ks,
                   std::ostream& out) {
  const analysis::DurationStats& d = ks.duration;
  if (d.count == 0) {
    Line(out, ctx, "kernels", "none");
    return;
  }
  Line(out, ctx, "kernels",
       fmt::format("{} launches · {} name{} · summed time {} · mean {}", FormatCount(d.count),
                   FormatCount(ks.distinct_names), ks.distinct_names == 1 ? "" : "s",
                   FormatDuration(d.total_ns), FormatDurationF(d.mean_ns)));
  Line(out, ctx, "duration",
       fmt::format("min {} · p50 {} · p90 {} · p99 {} · max {}", FormatDuration(d.min_ns),
                   FormatDuration(d.p50_ns), FormatDuration(d.p90_ns), FormatDuration(d.p99_ns),
                   FormatDuration(d.max_ns)));
  std::string counts, times;
  for (const analysis::ShortKernelBucket& b : ks.short_kernels) {
    std::string head = fmt::format("<{} µs", b.threshold_ns / kNsPerUs);
    counts += fmt::format("{}{} {}", counts.empty() ? "" : " · ", head, FormatPct(b.count_ratio));
    times += fmt::format("{}{} {}", times.empty() ? "" : " · ", head, FormatPct(b.time_ratio));
  }
  Line(out, ctx, "short", "of launches: " + counts);
  Line(out, ctx, "", "of time:     " + times);

  std::string classes;
  for (int c = 0; c < analysis::kKernelClassCount; ++c) {
    const auto cls = static_cast<analysis::KernelClass>(c);
    const double r = ks.class_time_ratio[static_cast<size_t>(c)];
    // Zero classes are noise, except "other": it is the share no rule knows.
    if (cls != analysis::KernelClass::kOther && !(IsValid(r) && r > 0)) continue;
    classes += fmt::format("{}{} {}", classes.empty() ? "" : " · ", ShortClass(cls, false),
                           FormatPct(r));
  }
  Line(out, ctx, "classes", classes + " of kernel time");
  Line(out, ctx, "",
       "tensor/matrix cores " + FormatPct(ks.tensor_core_time_ratio) +
           " · other = no taxonomy rule knows the name");

  out << '\n';
  TextTable t({{"top kernels by total time", true},
               {"class", true},
               {"count"},
               {"total"},
               {"mean"},
               {"max"},
               {"time"}});
  for (const analysis::KernelNameStats& k : ks.top)
    t.AddRow({k.name, ShortClass(k.kernel_class, k.tensor_core), FormatCount(k.count),
              FormatDuration(k.total_ns), FormatDurationF(k.mean_ns), FormatDuration(k.max_ns),
              FormatPct(k.time_ratio)});
  if (ks.other_count > 0)
    t.AddRow({fmt::format("({} other names)", ks.distinct_names - static_cast<int64_t>(ks.top.size())),
              "", FormatCount(ks.other_count), FormatDuration(ks.other_total_ns), "", "",
              FormatPct(ks.other_time_ratio)});
  // Long demangled names lose template arguments before they lose their end.
  t.ShrinkWith([](std::string_view s, size_t cols) { return AbbreviateSymbol(s, cols); });
  t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 0);
}

void RenderTransfers(const TerminalContext& ctx, const analysis::DeviceSummary& d,
                     std::ostream& out) {
  out << '\n';
  if (d.memcpy_total.count == 0 && d.memset_total.count == 0) {
    Line(out, ctx, "transfers", "no memcpy or memset");
    return;
  }
  TextTable t({{"memcpy / memset", true}, {"count"}, {"bytes"}, {"time"}, {"bandwidth"}});
  for (const analysis::MemcpyGroup& g : d.memcpy_by_direction) {
    TransferRow(t, "Memcpy " + std::string(model::ToString(g.copy_kind)), g.stats);
    if (model::IsUvmMigration(g.copy_kind)) continue;  // by cause below, not by memory kind
    for (const analysis::MemcpyGroup& p : d.memcpy_by_kind_pair) {
      if (p.copy_kind != g.copy_kind) continue;
      TransferRow(t,
                  fmt::format("  {} -> {}", MemoryKindLabel(p.src_kind),
                              MemoryKindLabel(p.dst_kind)),
                  p.stats);
    }
  }
  if (d.uvm.total.count > 0) {
    TransferRow(t, "UVM migrations, by cause", d.uvm.total);
    for (const analysis::UvmCauseGroup& c : d.uvm.by_cause)
      TransferRow(t, "  " + std::string(model::ToString(c.cause)), c.stats);
  }
  for (const analysis::MemsetGroup& g : d.memset_by_kind)
    TransferRow(t, fmt::format("Memset ({})", MemoryKindLabel(g.dst_kind)), g.stats);
  t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 0);
  if (d.uvm.total.count > 0)
    Line(out, ctx, "migrations",
         fmt::format("UVM {}: {} beside kernels (page-fault stalls), {} in kernel gaps",
                     FormatDuration(d.uvm.union_ns), FormatDuration(d.uvm.beside_kernels_ns),
                     FormatDuration(d.uvm.in_gaps_ns)));
}

void RenderSync(const TerminalContext& ctx, const analysis::DeviceSummary& d, std::ostream& out) {
  out << '\n';
  if (d.sync_apis.empty()) {
    Line(out, ctx, "host sync", "no sync-type host API calls");
  } else {
    TextTable t({{"host sync calls", true}, {"count"}, {"host time"}, {"max"}, {"kind", true}});
    for (const analysis::SyncApiStats& s : d.sync_apis)
      t.AddRow({s.name, FormatCount(s.count), FormatDuration(s.total_ns),
                FormatDuration(s.max_ns), SyncClassLabel(s.api_class)});
    t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 0);
  }
  if (!d.sync_events.empty()) {
    out << '\n';
    TextTable t({{"cuda_sync events", true}, {"count"}, {"time"}});
    for (const analysis::SyncEventStats& s : d.sync_events)
      t.AddRow({SyncKindLabel(s.kind), FormatCount(s.count), FormatDuration(s.total_ns)});
    t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 0);
  }
}

}  // namespace

void RenderTraceOverview(const TerminalContext& ctx, std::ostream& out) {
  const analysis::TraceSummary& s = ctx.trace.summary;
  const analysis::InputInfo& in = ctx.trace.input;
  std::string rank = IsValid(in.rank) ? FormatInt(in.rank) : std::string(kNa);
  if (IsValid(in.world_size)) rank += " of " + FormatInt(in.world_size);
  Line(out, ctx, "extent",
       fmt::format("{} ({}) · rank {}", FormatDuration(s.extent_ns),
                   s.extent_from_counters ? "first to last counter sample"
                                          : "first to last event, host and GPU",
                   rank));
  size_t with_events = 0, counters_only = 0;
  for (const analysis::DeviceSummary& d : s.devices) (d.has_events ? with_events : counters_only)++;
  if (s.devices.empty()) {
    Line(out, ctx, "devices",
         in.host_only_profile ? "no GPU profiled (the profiler recorded host activity only)"
                              : "no GPU activity in this trace");
  } else if (counters_only == 0) {
    Line(out, ctx, "devices", fmt::format("{} with GPU events", with_events));
  } else if (with_events == 0) {
    Line(out, ctx, "devices",
         fmt::format("{} with sampled counters only (no kernel timeline)", counters_only));
  } else {
    Line(out, ctx, "devices",
         fmt::format("{} with GPU events, {} with sampled counters only", with_events,
                     counters_only));
  }
  if (!s.devices_without_events.empty()) {
    std::string ids;
    for (int32_t id : s.devices_without_events) ids += (ids.empty() ? "" : ", ") + FormatInt(id);
    Line(out, ctx, "", "declared without GPU events: " + ids);
  }
}

void RenderDeviceSummary(const TerminalContext& ctx, const analysis::DeviceSummary& d,
                         std::ostream& out) {
  if (!d.has_events) {
    Line(out, ctx, "span", FormatDuration(d.span_ns) + " (first to last counter sample)");
    out << '\n';
    RenderCounters(ctx, d, out);
    return;
  }
  if (!IsValid(d.busy.kernel_busy_ratio) && !IsValid(d.busy.idle_ns) &&
      IsValid(d.busy.kernel_busy_ns)) {
    // Kernels replayed one at a time (a kernel profiler): no span to share out.
    Line(out, ctx, "timeline",
         "none: " + FormatDuration(d.busy.kernel_busy_ns) +
             " of kernels, each replayed alone (a kernel profiler), so no busy or idle share");
  } else {
    Line(out, ctx, "span", FormatDuration(d.span_ns) + " (first to last GPU event)");
    RenderSteps(ctx, d.steps, out);
    Line(out, ctx, "busy",
         fmt::format("kernels {} · kernels+memcpy+memset {}",
                     TimeAndPct(d.busy.kernel_busy_ns, d.busy.kernel_busy_ratio),
                     TimeAndPct(d.busy.gpu_busy_ns, d.busy.gpu_busy_ratio)));
    Line(out, ctx, "idle", TimeAndPct(d.busy.idle_ns, d.busy.idle_ratio) + " of the span");
  }
  out << '\n';
  RenderKernels(ctx, d.kernels, out);
  RenderTransfers(ctx, d, out);
  RenderSync(ctx, d, out);
  if (!d.counters.empty()) {
    out << '\n';
    RenderCounters(ctx, d, out);
  }
}

void RenderImportStats(const TerminalContext& ctx, std::ostream& out) {
  const analysis::TraceSummary& s = ctx.trace.summary;
  if (s.host_api_attributed_to_all && s.devices.size() > 1) {
    out << '\n';
    Line(out, ctx, "note",
         "some host sync calls have no device link; they are counted on every device");
  }
  out << '\n';
  if (s.import_stats.empty()) {
    Line(out, ctx, "import", "clean: no events skipped or repaired");
    return;
  }
  TextTable t({{"import notes", true}, {"count"}, {"meaning", true}});
  for (const analysis::ImportStatLine& l : s.import_stats)
    t.AddRow({l.name, FormatCount(static_cast<int64_t>(l.count)), l.description});
  t.Render(out, kSectionIndent, static_cast<size_t>(ctx.options.width), 2);
}

}  // namespace gpuwhy::report
