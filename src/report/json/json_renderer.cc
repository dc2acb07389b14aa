#include "report/json/json_renderer.h"

#include <fmt/format.h>

#include <ostream>

#include "report/json/json_sections.h"
#include "report/json/run_profile_json.h"
#include "report/json/json_writer.h"

namespace gpuwhy::report {

void RenderJson(const analysis::Analysis& analysis, std::ostream& out,
                const JsonOptions& /*options*/) {
  JsonWriter w(out);
  const auto& sections = JsonSections();
  w.BeginObject();
  w.FieldInt("schema_version", kJsonSchemaVersion);
  w.Key("tool");
  w.BeginObject();
  w.Field("name", "gpuwhy");
  w.Key("version");
  w.StringOrNull(analysis.tool_version);
  w.EndObject();
  w.Key("traces");
  w.BeginArray();
  for (const analysis::TraceAnalysis& trace : analysis.traces) {
    JsonContext ctx{analysis, trace};
    const analysis::InputInfo& in = trace.input;
    w.BeginObject();
    w.Key("input");
    w.BeginObject();
    w.Key("path");
    w.StringOrNull(in.path);
    w.Key("format");
    w.StringOrNull(in.format);
    w.Key("format_version");
    w.StringOrNull(in.format_version);
    w.Key("merged_inputs");
    w.BeginArray();
    for (const std::string& m : in.merged_inputs) w.String(m);
    w.EndArray();
    if (!in.import_notes.empty()) {  // how the importer read the source (absent when it had no choice)
      w.Key("import_notes");
      w.BeginArray();
      for (const std::string& m : in.import_notes) w.String(m);
      w.EndArray();
    }
    if (in.host_only_profile) {  // only host-only profiles write it
      w.Key("host_only_profile");
      w.Bool(true);
    }
    w.FieldInt("size_bytes", in.size_bytes);
    w.Key("clock");
    w.StringOrNull(in.clock);
    w.FieldInt32("rank", in.rank);
    w.FieldInt32("world_size", in.world_size);
    w.Key("backend");
    w.StringOrNull(in.backend);
    w.Key("hostname");
    w.StringOrNull(in.hostname);
    w.EndObject();
    for (const JsonSection& s : sections)
      if (s.placement == JsonPlacement::kTrace && s.trace_fn) s.trace_fn(ctx, w);
    w.Key("devices");
    w.BeginArray();
    for (const analysis::DeviceSummary& d : trace.summary.devices) {
      w.BeginObject();
      w.FieldInt32("device_id", d.device_id);
      w.Key("name");
      w.StringOrNull(d.name);
      w.Field("vendor", model::ToString(d.vendor));
      w.FieldInt32("sm_count", d.sm_count);
      w.Key("compute_capability");
      if (IsValid(d.cc_major) && IsValid(d.cc_minor)) {
        w.String(fmt::format("{}.{}", d.cc_major, d.cc_minor));
      } else {
        w.Null();
      }
      w.FieldInt("total_memory_bytes", d.total_memory_bytes);
      w.FieldInt("stream_count", d.stream_count);
      for (const JsonSection& s : sections)
        if (s.placement == JsonPlacement::kDevice && s.device_fn) s.device_fn(ctx, d, w);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  // What `gpuwhy diff` reads back from a saved report (docs/diff.md).
  w.Key("run_profile");
  WriteRunProfile(analysis.profile, w);
  w.EndObject();
}

}  // namespace gpuwhy::report
