// JSON section "diagnosis": every finding with evidence, examples, time lost,
// recommendations and caveats, plus the top line, scenario and fixes. Written
// once, into traces[0], because the diagnosis covers all inputs
// ("scope": "all_inputs"). Formatting only.
#include "report/json/json_sections.h"

namespace gpuwhy::report {

namespace {

namespace dx = analysis::detectors;

void WriteFinding(const dx::Finding& f, JsonWriter& w) {
  w.BeginObject();
  w.Field("id", f.id);
  w.Field("category", dx::ToString(f.category));
  w.Field("severity", dx::ToString(f.severity));
  w.Field("title", f.title);
  w.Field("summary", f.summary);
  w.FieldInt32("device_id", f.device_id);
  w.FieldInt32("rank", f.rank);
  w.FieldInt("lost_per_step_ns", f.lost_per_step_ns);
  w.FieldDouble("lost_step_ratio", f.lost_step_ratio, 4);
  w.FieldBool("lost_is_upper_bound", f.lost_is_upper_bound);
  w.FieldInt("predicted_step_ns_after_fix", f.predicted_step_ns);
  w.Key("prediction_assumption");
  w.StringOrNull(f.prediction_assumption);
  w.FieldBool("per_step_basis", f.per_step_basis);
  w.FieldInt32("step_count", f.step_count);
  w.Key("evidence");
  w.BeginArray();
  for (const dx::Metric& m : f.evidence) {
    w.BeginObject();
    w.Field("name", m.name);
    w.FieldDouble("value", m.value, 6);
    w.Field("unit", m.unit);
    w.Field("label", m.label);
    w.EndObject();
  }
  w.EndArray();
  w.Key("examples");
  w.BeginArray();
  for (const dx::Example& e : f.examples) {
    w.BeginObject();
    w.Field("what", e.what);
    w.FieldInt("start_ns", e.start_ns);
    w.FieldInt("dur_ns", e.dur_ns);
    w.FieldInt32("step", e.step);
    w.FieldInt32("device_id", e.device_id);
    w.FieldInt32("rank", e.rank);
    w.Field("detail", e.detail);
    w.EndObject();
  }
  w.EndArray();
  w.Key("recommendations");
  w.BeginArray();
  for (const dx::Recommendation& r : f.recommendations) {
    w.BeginObject();
    w.Field("kind", dx::ToString(r.kind));
    w.Field("text", r.text);
    w.EndObject();
  }
  w.EndArray();
  w.Key("caveats");
  w.BeginArray();
  for (const std::string& c : f.caveats) w.String(c);
  w.EndArray();
  w.Key("notes");
  w.BeginArray();
  for (const std::string& n : f.notes) w.String(n);
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WriteDiagnosisJson(const JsonContext& ctx, JsonWriter& w) {
  if (!ctx.analysis.diagnosis || ctx.analysis.traces.empty() ||
      &ctx.trace != &ctx.analysis.traces.front())
    return;
  const dx::Diagnosis& d = *ctx.analysis.diagnosis;
  w.Key("diagnosis");
  w.BeginObject();
  w.Field("scope", "all_inputs");
  w.Field("top_line", d.top_line);
  w.Field("scenario", dx::ToString(d.scenario));
  w.FieldBool("scenario_inferred", d.scenario_inferred);
  w.Field("scenario_reason", d.scenario_reason);
  w.Field("curve_shape", d.curve_shape);
  w.Key("curve_reason");
  w.StringOrNull(d.curve_reason);
  w.Key("curve_note");
  w.StringOrNull(d.curve_note);
  w.Field("bottleneck", d.bottleneck);
  w.FieldDouble("idle_step_ratio", d.idle_step_ratio, 4);
  w.FieldDouble("host_wait_idle_ratio", d.host_wait_idle_ratio, 4);
  w.FieldDouble("kernel_step_ratio", d.kernel_step_ratio, 4);
  w.Key("idle_ns_per_step_by_cause");
  w.BeginObject();
  for (size_t c = 0; c < dx::kIdleCauseCount; ++c)
    w.FieldDouble(dx::ToString(static_cast<dx::IdleCause>(c)), d.idle_ns_per_step_by_cause[c], 0);
  w.EndObject();
  w.FieldDouble("mfu_ratio", d.mfu_ratio, 4);
  w.FieldDouble("busy_mfu_ratio", d.busy_mfu_ratio, 4);
  w.Key("real_throughput");
  w.StringOrNull(d.real_throughput);
  w.FieldBool("per_step_basis", d.per_step_basis);
  w.FieldInt32("step_count", d.step_count);
  w.FieldInt32("rank_count", d.rank_count);
  w.Key("findings");
  w.BeginArray();
  for (const dx::Finding& f : d.findings) WriteFinding(f, w);
  w.EndArray();
  w.Key("fixes");
  w.BeginArray();
  for (const dx::Fix& x : d.fixes) {
    w.BeginObject();
    w.Field("kind", dx::ToString(x.kind));
    w.Field("text", x.text);
    w.Field("finding_id", x.finding_id);
    w.FieldDouble("lost_step_ratio", x.lost_step_ratio, 4);
    w.EndObject();
  }
  w.EndArray();
  w.Key("caveats");
  w.BeginArray();
  for (const std::string& c : d.caveats) w.String(c);
  w.EndArray();
  w.EndObject();
}

}  // namespace gpuwhy::report
