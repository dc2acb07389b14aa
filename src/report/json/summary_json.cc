// JSON keys of the per-device summary (docs/json-schema.md, "summary").
// Formatting only: every number comes from analysis::TraceSummary.
#include <string>

#include "analysis/summary/device_summary.h"
#include "report/json/json_sections.h"

namespace gpuwhy::report {

namespace {

// Fixed decimals keep goldens stable: ratios to 1e-6, ns means to 0.1 ns.
constexpr int kRatioDecimals = 6;
constexpr int kNsDecimals = 1;
constexpr int kGbpsDecimals = 3;

void WriteDurationStats(JsonWriter& w, const analysis::DurationStats& s) {
  w.BeginObject();
  w.FieldInt("count", s.count);
  w.FieldInt("total_ns", s.total_ns);
  w.FieldInt("min_ns", s.min_ns);
  w.FieldInt("p50_ns", s.p50_ns);
  w.FieldInt("p90_ns", s.p90_ns);
  w.FieldInt("p95_ns", s.p95_ns);
  w.FieldInt("p99_ns", s.p99_ns);
  w.FieldInt("max_ns", s.max_ns);
  w.FieldDouble("mean_ns", s.mean_ns, kNsDecimals);
  w.FieldDouble("stddev_ns", s.stddev_ns, kNsDecimals);
  w.EndObject();
}

void WriteTransferFields(JsonWriter& w, const analysis::TransferStats& s) {
  w.FieldInt("count", s.count);
  // bytes is null when no event of the group had a byte count.
  w.FieldInt("bytes", s.count > 0 && s.count_missing_bytes == s.count ? kMissingI64 : s.bytes);
  w.FieldInt("count_missing_bytes", s.count_missing_bytes);
  w.FieldInt("total_ns", s.total_ns);
  w.FieldDouble("bandwidth_gbps", s.bandwidth_gbps, kGbpsDecimals);
}

void WriteTransfer(JsonWriter& w, const analysis::TransferStats& s) {
  w.BeginObject();
  WriteTransferFields(w, s);
  w.EndObject();
}

void WriteSteps(JsonWriter& w, const analysis::StepSummary& s) {
  w.BeginObject();
  w.FieldBool("has_steps", s.has_steps);
  w.FieldInt32("first_step", s.first_step);
  w.FieldInt32("last_step", s.last_step);
  w.FieldInt("window_start_ns", s.window_start_ns);
  w.FieldInt("window_end_ns", s.window_end_ns);
  w.Key("step_time");
  WriteDurationStats(w, s.step_time);
  w.EndObject();
}

void WriteKernels(JsonWriter& w, const analysis::KernelSummary& k) {
  w.BeginObject();
  w.Key("duration");
  WriteDurationStats(w, k.duration);
  w.FieldInt("distinct_names", k.distinct_names);
  w.Key("short_kernels");
  w.BeginArray();
  for (const analysis::ShortKernelBucket& b : k.short_kernels) {
    w.BeginObject();
    w.FieldInt("threshold_ns", b.threshold_ns);
    w.FieldInt("count", b.count);
    w.FieldDouble("count_ratio", b.count_ratio, kRatioDecimals);
    w.FieldInt("time_ns", b.time_ns);
    w.FieldDouble("time_ratio", b.time_ratio, kRatioDecimals);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top");
  w.BeginArray();
  for (const analysis::KernelNameStats& n : k.top) {
    w.BeginObject();
    w.Field("name", n.name);
    w.Field("raw_name", n.raw_name);
    w.Field("class", analysis::ToString(n.kernel_class));
    w.Field("family", n.family);
    w.FieldBool("tensor_core", n.tensor_core);
    w.FieldInt("count", n.count);
    w.FieldInt("total_ns", n.total_ns);
    w.FieldDouble("mean_ns", n.mean_ns, kNsDecimals);
    w.FieldInt("max_ns", n.max_ns);
    w.FieldDouble("time_ratio", n.time_ratio, kRatioDecimals);
    w.EndObject();
  }
  w.EndArray();
  w.Key("other");
  w.BeginObject();
  w.FieldInt("count", k.other_count);
  w.FieldInt("total_ns", k.other_total_ns);
  w.FieldDouble("time_ratio", k.other_time_ratio, kRatioDecimals);
  w.EndObject();
  w.Key("class_time_ratio");
  w.BeginObject();
  for (int c = 0; c < analysis::kKernelClassCount; ++c)
    w.FieldDouble(analysis::ToString(static_cast<analysis::KernelClass>(c)),
                  k.class_time_ratio[static_cast<size_t>(c)], kRatioDecimals);
  w.EndObject();
  w.FieldDouble("tensor_core_time_ratio", k.tensor_core_time_ratio, kRatioDecimals);
  w.EndObject();
}

}  // namespace

void WriteTraceSummaryJson(const JsonContext& ctx, JsonWriter& w) {
  const analysis::TraceSummary& s = ctx.trace.summary;
  w.Key("extent");
  w.BeginObject();
  w.FieldInt("start_ns", s.extent_start_ns);
  w.FieldInt("end_ns", s.extent_end_ns);
  w.FieldInt("dur_ns", s.extent_ns);
  w.FieldBool("from_counters", s.extent_from_counters);
  w.EndObject();
  w.Key("devices_without_events");
  w.BeginArray();
  for (int32_t id : s.devices_without_events) w.Int32(id);
  w.EndArray();
  w.FieldBool("host_api_attributed_to_all", s.host_api_attributed_to_all);
}

void WriteImportStatsJson(const JsonContext& ctx, JsonWriter& w) {
  w.Key("import_stats");
  w.BeginArray();
  for (const analysis::ImportStatLine& l : ctx.trace.summary.import_stats) {
    w.BeginObject();
    w.Field("name", l.name);
    std::string_view sev = "info";
    if (l.severity == model::StatSeverity::kRepaired) sev = "repaired";
    if (l.severity == model::StatSeverity::kDataLoss) sev = "data_loss";
    w.Field("severity", sev);
    w.Key("count");
    w.Uint(l.count);
    w.Field("description", l.description);
    w.EndObject();
  }
  w.EndArray();
}

void WriteDeviceSummaryJson(const JsonContext& /*ctx*/, const analysis::DeviceSummary& d,
                            JsonWriter& w) {
  w.Key("span");
  w.BeginObject();
  w.FieldInt("start_ns", d.span_start_ns);
  w.FieldInt("end_ns", d.span_end_ns);
  w.FieldInt("dur_ns", d.span_ns);
  w.EndObject();
  w.FieldBool("has_events", d.has_events);

  w.Key("counters");
  w.BeginArray();
  for (const analysis::CounterSummary& c : d.counters) {
    w.BeginObject();
    w.Field("kind", model::ToString(c.kind));
    w.Field("unit", model::ToString(c.unit));
    w.Field("name", c.name);
    w.Field("source", c.source);
    w.FieldInt("period_ns", c.period_ns);
    w.FieldInt("samples", c.samples);
    w.FieldInt("valid_samples", c.valid_samples);
    w.FieldInt("first_ns", c.first_ns);
    w.FieldInt("last_ns", c.last_ns);
    w.FieldDouble("mean", c.mean, 6);
    w.FieldDouble("min", c.min, 6);
    w.FieldDouble("max", c.max, 6);
    w.EndObject();
  }
  w.EndArray();

  if (!d.has_events) {
    // Event sections have no meaning without events: null, never zeros.
    for (const char* k : {"steps", "busy", "kernels", "memcpy", "memset"}) {
      w.Key(k);
      w.Null();
    }
    w.Key("sync_api");
    w.BeginArray();
    w.EndArray();
    w.Key("sync_events");
    w.BeginArray();
    w.EndArray();
    return;
  }

  w.Key("steps");
  WriteSteps(w, d.steps);

  w.Key("busy");
  w.BeginObject();
  w.FieldInt("kernel_busy_ns", d.busy.kernel_busy_ns);
  w.FieldDouble("kernel_busy_ratio", d.busy.kernel_busy_ratio, kRatioDecimals);
  w.FieldInt("gpu_busy_ns", d.busy.gpu_busy_ns);
  w.FieldDouble("gpu_busy_ratio", d.busy.gpu_busy_ratio, kRatioDecimals);
  w.FieldInt("idle_ns", d.busy.idle_ns);
  w.FieldDouble("idle_ratio", d.busy.idle_ratio, kRatioDecimals);
  w.EndObject();

  w.Key("kernels");
  WriteKernels(w, d.kernels);

  w.Key("memcpy");
  w.BeginObject();
  w.Key("total");
  WriteTransfer(w, d.memcpy_total);
  w.Key("by_direction");
  w.BeginArray();
  for (const analysis::MemcpyGroup& g : d.memcpy_by_direction) {
    w.BeginObject();
    w.Field("copy_kind", model::ToString(g.copy_kind));
    WriteTransferFields(w, g.stats);
    w.EndObject();
  }
  w.EndArray();
  w.Key("by_kind_pair");
  w.BeginArray();
  for (const analysis::MemcpyGroup& g : d.memcpy_by_kind_pair) {
    w.BeginObject();
    w.Field("copy_kind", model::ToString(g.copy_kind));
    w.Field("src_kind", model::ToString(g.src_kind));
    w.Field("dst_kind", model::ToString(g.dst_kind));
    WriteTransferFields(w, g.stats);
    w.EndObject();
  }
  w.EndArray();
  if (d.uvm.total.count > 0) {
    w.Key("uvm");
    w.BeginObject();
    w.Key("total");
    WriteTransfer(w, d.uvm.total);
    w.FieldInt("union_ns", d.uvm.union_ns);
    w.FieldInt("beside_kernels_ns", d.uvm.beside_kernels_ns);
    w.FieldInt("in_gaps_ns", d.uvm.in_gaps_ns);
    w.Key("by_cause");
    w.BeginArray();
    for (const analysis::UvmCauseGroup& c : d.uvm.by_cause) {
      w.BeginObject();
      w.Field("cause", model::ToString(c.cause));
      WriteTransferFields(w, c.stats);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();

  w.Key("memset");
  w.BeginObject();
  w.Key("total");
  WriteTransfer(w, d.memset_total);
  w.Key("by_kind");
  w.BeginArray();
  for (const analysis::MemsetGroup& g : d.memset_by_kind) {
    w.BeginObject();
    w.Field("dst_kind", model::ToString(g.dst_kind));
    WriteTransferFields(w, g.stats);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();

  w.Key("sync_api");
  w.BeginArray();
  for (const analysis::SyncApiStats& s : d.sync_apis) {
    w.BeginObject();
    w.Field("name", s.name);
    w.Field("class", analysis::ToString(s.api_class));
    w.FieldBool("host_blocking", s.host_blocking);
    w.FieldInt("count", s.count);
    w.FieldInt("total_ns", s.total_ns);
    w.FieldInt("max_ns", s.max_ns);
    w.EndObject();
  }
  w.EndArray();

  w.Key("sync_events");
  w.BeginArray();
  for (const analysis::SyncEventStats& s : d.sync_events) {
    w.BeginObject();
    w.Field("kind", model::ToString(s.kind));
    w.FieldInt("count", s.count);
    w.FieldInt("total_ns", s.total_ns);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace gpuwhy::report
