// JSON sections "utilization" (per device), "step_detection" and "compat" (per trace):
// every number the utilization analysis and the anchor reproductions hold.
#include <string>

#include "report/json/json_sections.h"

namespace gpuwhy::report {
namespace {

void WriteFigure(JsonWriter& w, std::string_view key, const analysis::Figure& f, int decimals) {
  w.Key(key);
  w.BeginObject();
  w.FieldDouble("value", f.value, decimals);
  w.Key("source");
  w.StringOrNull(f.source);
  w.EndObject();
}

void WriteVerdict(JsonWriter& w, std::string_view key, const analysis::CurveVerdict& v) {
  w.Key(key);
  w.BeginObject();
  w.Field("class", analysis::ToString(v.curve_class));
  w.FieldDouble("confidence", v.confidence, 3);
  w.Field("reason", v.reason);
  w.FieldBool("aliased", v.aliased);
  w.Key("aliasing_note");
  w.StringOrNull(v.aliasing_note);
  const analysis::CurveFeatures& f = v.features;
  w.Key("features");
  w.BeginObject();
  w.FieldInt32("sample_count", f.sample_count);
  w.FieldInt("period_ns", f.period_ns);
  w.Key("histogram_10pct_bins");
  w.BeginArray();
  for (int32_t n : f.histogram) w.Int32(n);
  w.EndArray();
  w.FieldDouble("share_below_10pct", f.share_below_10, 4);
  w.FieldDouble("share_above_90pct", f.share_above_90, 4);
  w.FieldDouble("mean_ratio", f.mean_ratio, 4);
  w.FieldDouble("stddev_ratio", f.stddev_ratio, 4);
  w.FieldDouble("real_util_ratio", f.real_util_ratio, 4);
  w.FieldInt("step_period_ns", f.step_period_ns);
  w.FieldDouble("long_gap_idle_share", f.long_gap_idle_share, 4);
  w.FieldDouble("gap_p95_ns", f.gap_p95_ns, 0);
  w.EndObject();
  w.EndObject();
}

}  // namespace

namespace {

void WriteRoof(JsonWriter& w, const analysis::Roofline& r) {
  w.FieldDouble("achieved_tflops", r.achieved_tflops, 3);
  w.FieldDouble("achieved_gbps", r.achieved_gbps, 3);
  w.FieldDouble("intensity_flops_per_byte", r.intensity, 3);
  w.FieldDouble("compute_roof_ratio", r.compute_roof_ratio, 4);
  w.FieldDouble("bandwidth_roof_ratio", r.bandwidth_roof_ratio, 4);
  w.FieldDouble("ridge_flops_per_byte", r.ridge, 3);
  w.Key("bound");
  w.StringOrNull(r.bound);
}

void WriteAggregate(JsonWriter& w, const analysis::OpAggregate& a, bool unique_op) {
  w.BeginObject();
  w.Field("name", a.name);
  if (unique_op) {
    w.Field("input_dims", a.input_dims);
    w.Field("input_types", a.input_types);
    w.Field("params", a.params);
    w.Field("op_class", analysis::ToString(a.op_class));
    w.Field("precision", analysis::ToString(a.precision));
  }
  w.FieldInt("count", a.count);
  w.FieldDouble("flops", a.flops, 0);
  w.FieldDouble("bytes", a.bytes, 0);
  w.FieldInt("gpu_time_ns", a.gpu_time_ns);
  WriteRoof(w, a.roof);
  w.EndObject();
}

// WriteThroughput: "throughput" of one device (null figures with a note when
// the trace has no shapes or the GPU has no peak row).
void WriteThroughput(JsonWriter& w, const analysis::ThroughputResult& tr, int32_t device_id) {
  const analysis::DeviceThroughput* d = nullptr;
  for (const auto& x : tr.devices)
    if (x.device_id == device_id) d = &x;
  w.Key("throughput");
  w.BeginObject();
  w.FieldInt("ops_with_shapes", tr.ops_with_shapes);
  if (d == nullptr) {
    w.Field("note", tr.note.empty() ? "no GPU op linked to an op with shapes" : tr.note);
    w.EndObject();
    return;
  }
  w.Key("note");
  w.StringOrNull(d->note);
  w.Key("gpu_model");
  w.StringOrNull(d->gpu_model);
  w.Key("peak_source");
  w.StringOrNull(d->peak_source);
  w.Field("dominant_precision", analysis::ToString(d->dominant_precision));
  w.FieldDouble("peak_tflops", d->peak_tflops, 2);
  w.FieldDouble("mem_bw_gbps", d->mem_bw_gbps, 1);
  w.FieldInt("modelled_ops", d->modelled_ops);
  w.FieldInt("op_gpu_time_ns", d->op_gpu_time_ns);
  w.FieldInt("modelled_gpu_time_ns", d->modelled_gpu_time_ns);
  w.FieldDouble("matrix_flops", d->matrix_flops, 0);
  w.Key("window");
  w.StringOrNull(d->window);
  w.FieldInt("window_ns", d->window_ns);
  w.FieldInt("busy_ns", d->busy_ns);
  w.FieldDouble("mfu_ratio", d->mfu_ratio, 4);
  w.FieldDouble("busy_mfu_ratio", d->busy_mfu_ratio, 4);
  w.FieldDouble("matrix_share", d->matrix_share, 4);
  w.FieldDouble("achieved_tflops", d->achieved_tflops, 3);
  w.FieldInt("matrix_time_ns", d->matrix_time_ns);
  w.FieldInt("fp32_matrix_time_ns", d->fp32_matrix_time_ns);
  w.FieldInt("tf32_matrix_time_ns", d->tf32_matrix_time_ns);
  // The roofline split needs a peak-table row: null without one.
  const bool placed = !d->gpu_model.empty();
  w.FieldInt("memory_bound_time_ns", placed ? d->memory_bound_time_ns : kMissingI64);
  w.FieldInt("compute_bound_time_ns", placed ? d->compute_bound_time_ns : kMissingI64);
  w.FieldDouble("memory_bound_bytes", placed ? d->memory_bound_bytes : kMissingF64, 0);
  w.Key("classes");
  w.BeginArray();
  for (const auto& c : d->classes) WriteAggregate(w, c, false);
  w.EndArray();
  w.Key("top_ops");
  w.BeginArray();
  for (const auto& o : d->top_ops) WriteAggregate(w, o, true);
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WriteDeviceUtilizationJson(const JsonContext& ctx, const analysis::DeviceSummary& device,
                                JsonWriter& w) {
  const analysis::DeviceUtilization* d = nullptr;
  for (const auto& x : ctx.trace.utilization.devices) {
    if (x.device_id == device.device_id) d = &x;
  }
  w.Key("utilization");
  if (d == nullptr) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.FieldInt("window_start_ns", d->window_start_ns);
  w.FieldInt("window_end_ns", d->window_end_ns);
  w.FieldInt("kernel_count", d->kernel_count);
  w.FieldInt("kernel_time_ns", d->kernel_time_ns);
  WriteFigure(w, "surface_ratio", d->surface_ratio, 4);
  WriteFigure(w, "real_ratio", d->real_ratio, 4);
  w.FieldDouble("gap_pp", d->gap_pp, 2);
  WriteFigure(w, "sm_fill_ratio", d->sm_fill_ratio, 4);
  w.FieldDouble("sm_fill_coverage", d->sm_fill_coverage, 4);
  WriteFigure(w, "occupancy_ratio", d->occupancy_ratio, 4);
  w.FieldDouble("occupancy_coverage", d->occupancy_coverage, 4);
  WriteFigure(w, "tensor_core_share", d->tensor_core_share, 4);
  w.Key("kernel_class_share");
  w.BeginObject();
  for (int c = 0; c < analysis::kKernelClassCount; ++c) {
    w.FieldDouble(analysis::ToString(static_cast<analysis::KernelClass>(c)),
                  d->kernel_time_ns > 0 ? d->class_share[static_cast<size_t>(c)] : kMissingF64, 4);
  }
  w.EndObject();
  w.FieldDouble("triton_share", d->triton_share, 4);
  w.FieldDouble("cuda_graph_share", d->graph_share, 4);
  w.Key("counters");
  w.BeginObject();
  WriteFigure(w, "sm_active_ratio", d->counter_sm_active, 4);
  WriteFigure(w, "sm_occupancy_ratio", d->counter_sm_occupancy, 4);
  WriteFigure(w, "tensor_active_ratio", d->counter_tensor_active, 4);
  WriteFigure(w, "dram_active_ratio", d->counter_dram_active, 4);
  WriteFigure(w, "power_over_limit_ratio", d->counter_power_ratio, 4);
  WriteFigure(w, "sm_clock_mhz", d->counter_sm_clock_mhz, 1);
  w.EndObject();
  w.Key("gaps");
  w.BeginObject();
  w.FieldInt("count", d->gaps.count);
  w.FieldDouble("p50_ns", d->gaps.p50_ns, 0);
  w.FieldDouble("p95_ns", d->gaps.p95_ns, 0);
  w.FieldDouble("max_ns", d->gaps.max_ns, 0);
  w.FieldDouble("idle_ratio", d->gaps.idle_ratio, 4);
  w.FieldDouble("long_gap_idle_share", d->gaps.long_gap_idle_share, 4);
  w.FieldDouble("long_gaps_per_step", d->gaps.long_gaps_per_step, 3);
  w.FieldDouble("long_gap_ns_per_step", d->gaps.long_gap_ns_per_step, 0);
  w.EndObject();
  w.Key("series");
  w.BeginArray();
  for (const analysis::UtilSeries& s : d->series) {
    w.BeginObject();
    w.Field("label", s.label);
    w.Field("source", s.source);
    w.FieldInt("period_ns", s.period_ns);
    w.FieldInt("start_ns", s.start_ns);
    w.FieldDouble("mean_ratio", s.mean_ratio, 4);
    w.Key("util_ratio");
    w.BeginArray();
    for (double v : s.util_ratio) w.Double(v, 4);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  WriteThroughput(w, ctx.trace.utilization.throughput, d->device_id);
  WriteVerdict(w, "curve", d->verdict);
  w.Key("curve_window");
  w.StringOrNull(d->verdict_window);
  w.FieldInt("curve_window_ns", d->verdict_window_ns);
  // Set-up and teardown around the loop: only with curve_window "loop".
  const bool loop = d->verdict_window == "loop";
  w.FieldInt("setup_ns", loop ? d->setup_ns : kMissingI64);
  w.FieldInt("teardown_ns", loop ? d->teardown_ns : kMissingI64);
  if (d->has_active_verdict) {
    WriteVerdict(w, "curve_kernel_active", d->active_verdict);
  } else {
    w.Key("curve_kernel_active");
    w.Null();
  }
  w.Key("window_note");
  w.StringOrNull(d->window_note);
  // Only a trace timeline is rebuilt at NVML's period; counter-only devices
  // have no such verdict (null, not an empty one).
  bool has_nvml_series = false;
  for (const analysis::UtilSeries& s : d->series) has_nvml_series |= s.label == "nvml_1/6s";
  if (has_nvml_series) {
    WriteVerdict(w, "curve_at_nvml_period", d->nvml_verdict);
  } else {
    w.Key("curve_at_nvml_period");
    w.Null();
  }
  w.Key("aliasing_note");
  w.StringOrNull(d->aliasing_note);
  w.EndObject();
}

void WriteStepsJson(const JsonContext& ctx, JsonWriter& w) {
  const analysis::StepResult& s = ctx.trace.utilization.steps;
  w.Key("step_detection");
  w.BeginObject();
  w.Field("source", analysis::ToString(s.source));
  w.Key("marker");
  w.StringOrNull(s.marker_name);
  w.FieldInt32("period_kernels", s.period_kernels);
  w.FieldInt32("count", s.stats.count);
  w.FieldDouble("mean_ns", s.stats.mean_ns, 0);
  w.FieldDouble("p50_ns", s.stats.p50_ns, 0);
  w.FieldDouble("p95_ns", s.stats.p95_ns, 0);
  w.FieldDouble("stddev_ns", s.stats.stddev_ns, 0);
  w.FieldDouble("jitter_ratio", s.stats.jitter_ratio, 4);
  w.FieldDouble("p95_over_p50", s.stats.p95_over_p50, 4);
  w.Key("steps");
  w.BeginArray();
  for (const analysis::Step& st : s.steps) {
    w.BeginObject();
    w.FieldInt32("number", st.number);
    w.FieldInt("start_ns", st.start_ns);
    w.FieldInt("end_ns", st.end_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteCompatJson(const JsonContext& ctx, JsonWriter& w) {
  if (!ctx.trace.tbplugin && !ctx.trace.hta && !ctx.trace.tracelens) return;
  w.Key("compat");
  w.BeginObject();
  if (ctx.trace.tbplugin) {
    const analysis::TbPluginResult& r = *ctx.trace.tbplugin;
    w.Key("tbplugin");
    w.BeginObject();
    w.FieldInt32("step_count", r.step_count);
    w.FieldInt("steps_start_ns", r.steps_start_ns);
    w.FieldInt("steps_end_ns", r.steps_end_ns);
    w.FieldDouble("avg_step_us", r.avg_step_us, 3);
    w.Key("breakdown");
    w.BeginArray();
    for (int i = 0; i < analysis::kTbRoleCount; ++i) {
      w.BeginObject();
      w.Field("role", analysis::ToString(static_cast<analysis::TbRole>(i)));
      // Without steps there is no per-step breakdown: null, not 0.
      const bool steps = IsValid(r.step_count) && r.step_count > 0;
      w.FieldDouble("avg_us", steps ? r.avg_role_us[static_cast<size_t>(i)] : kMissingF64, 3);
      w.FieldDouble("pct", steps ? r.role_pct[static_cast<size_t>(i)] : kMissingF64, 4);
      w.EndObject();
    }
    w.EndArray();
    w.Key("devices");
    w.BeginArray();
    for (const analysis::TbPluginDevice& d : r.devices) {
      w.BeginObject();
      w.FieldInt32("device_id", d.device_id);
      w.FieldDouble("gpu_utilization_pct", d.gpu_util_pct, 4);
      w.FieldDouble("est_sm_efficiency_pct", d.sm_efficiency_pct, 4);
      w.FieldDouble("est_achieved_occupancy_pct", d.occupancy_pct, 4);
      w.FieldDouble("tensor_core_kernel_pct", d.tensor_core_kernel_pct, 4);
      w.FieldInt("util_timeline_start_ns", d.util_timeline_start_ns);
      w.FieldInt("util_timeline_bucket_ns", d.util_timeline_bucket_ns);
      w.Key("util_timeline_ratio");
      w.BeginArray();
      for (double v : d.util_timeline) w.Double(v, 6);
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  if (ctx.trace.hta) {
    const analysis::HtaResult& h = *ctx.trace.hta;
    w.Key("hta");
    w.BeginObject();
    w.FieldInt32("profiler_steps", h.profiler_steps);
    w.FieldBool("last_step_dropped", h.last_step_dropped);
    w.FieldInt("gpu_events", h.gpu_events);
    w.Key("temporal");
    w.BeginObject();
    w.FieldInt("idle_us", h.temporal.idle_us);
    w.FieldInt("compute_us", h.temporal.compute_us);
    w.FieldInt("non_compute_us", h.temporal.non_compute_us);
    w.FieldInt("total_us", h.temporal.total_us);
    w.FieldDouble("idle_pct", h.temporal.idle_pct, 4);
    w.FieldDouble("compute_pct", h.temporal.compute_pct, 4);
    w.FieldDouble("non_compute_pct", h.temporal.non_compute_pct, 4);
    w.EndObject();
    w.Key("idle_time_by_stream");
    w.BeginArray();
    for (const analysis::HtaIdleStream& s : h.idle_streams) {
      w.BeginObject();
      w.FieldInt("stream_id", s.stream_id);
      w.FieldInt("host_wait_us", s.host_wait_us);
      w.FieldInt("kernel_wait_us", s.kernel_wait_us);
      w.FieldInt("other_us", s.other_us);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  if (ctx.trace.tracelens) {
    w.Key("tracelens");
    w.BeginObject();
    auto timeline = [&](std::string_view key, const analysis::TraceLensTimeline& t) {
      w.Key(key);
      w.BeginObject();
      w.FieldBool("ok", t.ok);
      w.Key("error");
      w.StringOrNull(t.error);
      w.FieldInt("events_used", t.events_used);
      w.FieldInt("events_all", t.events_all);
      w.FieldDouble("total_us", t.total_us, 3);
      w.FieldDouble("computation_us", t.computation_us, 3);
      w.FieldDouble("exposed_comm_us", t.exposed_comm_us, 3);
      w.FieldDouble("exposed_memcpy_us", t.exposed_memcpy_us, 3);
      w.FieldDouble("busy_us", t.busy_us, 3);
      w.FieldDouble("idle_us", t.idle_us, 3);
      w.FieldDouble("total_comm_us", t.total_comm_us, 3);
      w.FieldDouble("total_memcpy_us", t.total_memcpy_us, 3);
      w.EndObject();
    };
    timeline("linked", ctx.trace.tracelens->linked);
    timeline("all", ctx.trace.tracelens->all);
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace gpuwhy::report
