// JSON: trace key "measured_kernels" (analysis::MeasuredKernels), present
// only when a kernel profiler's figures were read. Formatting only.
#include <cmath>

#include "report/json/json_sections.h"

namespace gpuwhy::report {

namespace {

void MkjDims(JsonWriter& w, std::string_view key, const int32_t d[3]) {
  w.Key(key);
  if (!IsValid(d[0])) {
    w.Null();
    return;
  }
  w.BeginArray();
  for (int i = 0; i < 3; ++i) w.Int32(d[i]);
  w.EndArray();
}

}  // namespace

void WriteMeasuredKernelsJson(const JsonContext& ctx, JsonWriter& w) {
  if (!ctx.trace.measured_kernels) return;
  const analysis::MeasuredKernels& m = *ctx.trace.measured_kernels;
  w.Key("measured_kernels");
  w.BeginObject();
  w.Field("source", m.source);
  w.FieldBool("untimed", m.untimed);
  w.FieldInt("kernels", m.kernels);
  w.FieldInt("matched_kernels", m.measured_kernels);
  w.FieldScaled("kernel_time_ms", m.kernel_time_ns, 6);
  w.Key("groups");
  w.BeginArray();
  for (const analysis::MeasuredKernel& k : m.groups) {
    w.BeginObject();
    w.Field("name", k.name);
    w.FieldInt32("device", k.device_id);
    MkjDims(w, "grid", k.grid);
    MkjDims(w, "block", k.block);
    w.FieldInt32("registers_per_thread", k.registers_per_thread);
    w.FieldInt32("shared_mem_bytes", k.shared_mem_bytes);
    w.FieldInt("launches", k.launches);
    w.FieldInt("measured_launches", k.measured_launches);
    w.FieldScaled("time_ms", k.time_ns, 6);
    w.FieldDouble("time_share", k.time_share_ratio, 4);
    std::string_view bound = analysis::ToString(k.bound);
    w.Key("bound");
    w.StringOrNull(bound);
    // Each figure with its label: measured by the profiler, or estimated.
    auto fig = [&w](std::string_view key, double v, std::string_view label) {
      w.Key(key);
      w.BeginObject();
      w.FieldDouble("pct", v, 2);
      w.Key("source");
      if (std::isnan(v)) w.Null(); else w.String(label);
      w.EndObject();
    };
    fig("sm_throughput", k.sm_throughput_pct, "measured (ncu)");
    fig("memory_throughput", k.memory_throughput_pct, "measured (ncu)");
    fig("dram_throughput", k.dram_throughput_pct, "measured (ncu)");
    fig("sm_active", k.sm_active_pct, "measured (ncu)");
    fig("achieved_occupancy", k.achieved_occupancy_pct, "measured (ncu)");
    fig("theoretical_occupancy", k.theoretical_occupancy_pct, "measured (ncu)");
    fig("est_occupancy", k.est_occupancy_pct, "estimated (launch config)");
    fig("tensor_pipe", k.tensor_pipe_pct, "measured (ncu)");
    w.Key("rules");
    w.BeginArray();
    for (const analysis::MeasuredRule& r : k.rules) {
      w.BeginObject();
      w.Field("rule", r.rule);
      w.Field("type", r.type);
      w.Field("message", r.message);
      w.Key("speedup_kind");
      w.StringOrNull(r.speedup_kind);
      w.FieldDouble("est_speedup_pct", r.est_speedup_pct, 2);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace gpuwhy::report
