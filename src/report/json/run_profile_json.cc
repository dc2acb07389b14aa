#include "report/json/run_profile_json.h"

#include <simdjson.h>

#include <ostream>
#include <string>

#include "report/json/json_renderer.h"

namespace gpuwhy::report {

namespace dx = analysis::detectors;

void WriteRunProfile(const analysis::RunProfile& p, JsonWriter& w) {
  w.BeginObject();
  w.Field("label", p.label);
  w.FieldInt32("rank_count", p.rank_count);
  w.FieldBool("per_step_basis", p.per_step_basis);
  w.FieldInt32("step_count", p.step_count);
  w.FieldDouble("step_mean_ns", p.step_mean_ns, 1);
  w.FieldDouble("step_p50_ns", p.step_p50_ns, 1);
  w.FieldDouble("step_p95_ns", p.step_p95_ns, 1);
  w.FieldDouble("step_stddev_ns", p.step_stddev_ns, 1);
  w.FieldDouble("slowest_rank_step_mean_ns", p.slowest_rank_step_mean_ns, 1);
  w.FieldDouble("busy_ratio", p.busy_ratio, 6);
  w.FieldDouble("idle_ratio", p.idle_ratio, 6);
  w.Key("idle_ns_per_step");
  if (p.has_idle_causes) {
    w.BeginObject();
    for (size_t c = 0; c < dx::kIdleCauseCount; ++c)
      w.FieldDouble(dx::ToString(static_cast<dx::IdleCause>(c)), p.idle_ns_per_step[c], 1);
    w.EndObject();
  } else {
    w.Null();
  }
  w.FieldDouble("surface_ratio", p.surface_ratio, 6);
  w.FieldDouble("real_ratio", p.real_ratio, 6);
  w.FieldDouble("mfu_ratio", p.mfu_ratio, 6);
  w.FieldDouble("busy_mfu_ratio", p.busy_mfu_ratio, 6);
  w.Field("curve_class", p.curve_class);
  w.Field("bottleneck", p.bottleneck);
  w.Field("top_line", p.top_line);
  w.Key("findings");
  w.BeginArray();
  for (const auto& f : p.findings) {
    w.BeginObject();
    w.Field("id", f.id);
    w.Field("title", f.title);
    w.FieldInt("lost_per_step_ns", f.lost_per_step_ns);
    w.FieldDouble("lost_step_ratio", f.lost_step_ratio, 6);
    w.FieldInt("predicted_step_ns_after_fix", f.predicted_step_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top_kernels");
  w.BeginArray();
  for (const auto& k : p.top_kernels) {
    w.BeginObject();
    w.Field("name", k.name);
    w.FieldInt("count", k.count);
    w.FieldInt("total_ns", k.total_ns);
    w.EndObject();
  }
  w.EndArray();
  w.FieldDouble("copies_per_step", p.copies_per_step, 3);
  w.FieldDouble("copy_bytes_per_step", p.copy_bytes_per_step, 1);
  w.FieldDouble("syncs_per_step", p.syncs_per_step, 3);
  w.EndObject();
}

namespace {

double Num(simdjson::dom::element o, const char* key) {
  simdjson::dom::element v;
  if (o[key].get(v) != simdjson::SUCCESS || v.is_null()) return kMissingF64;
  double d;
  if (v.get_double().get(d) == simdjson::SUCCESS) return d;
  int64_t i;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return kMissingF64;
}

int64_t Int(simdjson::dom::element o, const char* key) {
  simdjson::dom::element v;
  int64_t i;
  if (o[key].get(v) != simdjson::SUCCESS || v.is_null()) return kMissingI64;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d;
  if (v.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return kMissingI64;
}

std::string Str(simdjson::dom::element o, const char* key) {
  std::string_view s;
  if (o[key].get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s);
}

}  // namespace

bool IsSavedReport(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '{') return false;
  return head.find("\"schema_version\"") != std::string_view::npos &&
         head.find("\"gpuwhy\"") != std::string_view::npos;
}

Result<analysis::RunProfile> ReadRunProfile(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(text);
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS)
    return InvalidInput(std::string("not a JSON report: ") + simdjson::error_message(err));
  simdjson::dom::element o;
  if (doc["run_profile"].get(o) != simdjson::SUCCESS || !o.is_object())
    return InvalidInput("the JSON report has no \"run_profile\" (made by an older gpuwhy?)");
  analysis::RunProfile p;
  p.label = Str(o, "label");
  int64_t v = Int(o, "rank_count");
  p.rank_count = IsValid(v) ? static_cast<int32_t>(v) : 0;
  bool b = false;
  if (o["per_step_basis"].get_bool().get(b) == simdjson::SUCCESS) p.per_step_basis = b;
  v = Int(o, "step_count");
  p.step_count = IsValid(v) ? static_cast<int32_t>(v) : kMissingI32;
  p.step_mean_ns = Num(o, "step_mean_ns");
  p.step_p50_ns = Num(o, "step_p50_ns");
  p.step_p95_ns = Num(o, "step_p95_ns");
  p.step_stddev_ns = Num(o, "step_stddev_ns");
  p.slowest_rank_step_mean_ns = Num(o, "slowest_rank_step_mean_ns");
  p.busy_ratio = Num(o, "busy_ratio");
  p.idle_ratio = Num(o, "idle_ratio");
  simdjson::dom::element idle;
  if (o["idle_ns_per_step"].get(idle) == simdjson::SUCCESS && idle.is_object()) {
    p.has_idle_causes = true;
    for (size_t c = 0; c < dx::kIdleCauseCount; ++c) {
      std::string key(dx::ToString(static_cast<dx::IdleCause>(c)));
      p.idle_ns_per_step[c] = Num(idle, key.c_str());
    }
  } else {
    p.idle_ns_per_step.fill(kMissingF64);
  }
  p.surface_ratio = Num(o, "surface_ratio");
  p.real_ratio = Num(o, "real_ratio");
  p.mfu_ratio = Num(o, "mfu_ratio");
  p.busy_mfu_ratio = Num(o, "busy_mfu_ratio");
  p.curve_class = Str(o, "curve_class");
  p.bottleneck = Str(o, "bottleneck");
  p.top_line = Str(o, "top_line");
  simdjson::dom::array arr;
  if (o["findings"].get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element f : arr) {
      if (!f.is_object()) continue;
      p.findings.push_back({Str(f, "id"), Str(f, "title"), Int(f, "lost_per_step_ns"),
                            Num(f, "lost_step_ratio"), Int(f, "predicted_step_ns_after_fix")});
    }
  }
  if (o["top_kernels"].get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element k : arr) {
      if (!k.is_object()) continue;
      int64_t c = Int(k, "count"), t = Int(k, "total_ns");
      p.top_kernels.push_back({Str(k, "name"), IsValid(c) ? c : 0, IsValid(t) ? t : 0});
    }
  }
  p.copies_per_step = Num(o, "copies_per_step");
  p.copy_bytes_per_step = Num(o, "copy_bytes_per_step");
  p.syncs_per_step = Num(o, "syncs_per_step");
  return p;
}

void RenderDiffJson(const analysis::RunDiff& d, const std::vector<std::string>& violations,
                    std::ostream& out) {
  JsonWriter w(out);
  w.BeginObject();
  w.FieldInt("schema_version", kJsonSchemaVersion);
  w.Field("kind", "gpuwhy-diff");
  w.Field("headline", d.headline);
  w.FieldBool("noise_known", d.noise_known);
  w.FieldBool("step_change_beyond_noise", d.step_change_beyond_noise);
  w.FieldDouble("step_noise_ns", d.step_noise_ns, 1);
  w.Key("metrics");
  w.BeginArray();
  for (const auto& m : d.metrics) {
    w.BeginObject();
    w.Field("name", m.name);
    w.Field("label", m.label);
    w.Field("unit", m.unit);
    w.FieldDouble("before", m.before, 6);
    w.FieldDouble("after", m.after, 6);
    w.FieldDouble("change_ratio", m.change_ratio, 6);
    w.FieldDouble("change_pp", m.change_pp, 4);
    w.EndObject();
  }
  w.EndArray();
  w.Key("idle_by_cause");
  w.BeginArray();
  for (size_t c = 0; c < d.idle_before_ns.size() && c < dx::kIdleCauseCount; ++c) {
    w.BeginObject();
    w.Field("cause", dx::ToString(static_cast<dx::IdleCause>(c)));
    w.FieldDouble("before_ns_per_step", d.idle_before_ns[c], 1);
    w.FieldDouble("after_ns_per_step", d.idle_after_ns[c], 1);
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings");
  w.BeginArray();
  for (const auto& f : d.findings) {
    w.BeginObject();
    w.Field("id", f.id);
    w.Field("status", f.status);
    w.FieldInt("before_lost_per_step_ns", f.before_lost_ns);
    w.FieldInt("after_lost_per_step_ns", f.after_lost_ns);
    w.FieldInt("predicted_step_ns_after_fix", f.predicted_step_ns);
    w.FieldDouble("prediction_error_ratio", f.prediction_error_ratio, 4);
    w.EndObject();
  }
  w.EndArray();
  w.Key("kernels");
  w.BeginArray();
  for (const auto& k : d.kernels) {
    w.BeginObject();
    w.Field("name", k.name);
    w.Field("status", k.status);
    w.FieldDouble("before_count_per_step", k.before_count, 3);
    w.FieldDouble("after_count_per_step", k.after_count, 3);
    w.FieldDouble("before_ns_per_step", k.before_ns, 1);
    w.FieldDouble("after_ns_per_step", k.after_ns, 1);
    w.EndObject();
  }
  w.EndArray();
  w.Key("failed_gates");
  w.BeginArray();
  for (const std::string& v : violations) w.String(v);
  w.EndArray();
  w.Key("before");
  WriteRunProfile(d.before, w);
  w.Key("after");
  WriteRunProfile(d.after, w);
  w.EndObject();
  out << '\n';
}

}  // namespace gpuwhy::report
