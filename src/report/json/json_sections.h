// JSON report sections: each section writes its keys into the trace object or
// into each device object, from one function in its own file, listed once in
// json_sections.cc.
//
// Adding a section:
//   1. write `report/json/<name>_json.cc` with a TraceJsonFn or DeviceJsonFn
//      that writes one key (your section name) and its value with JsonWriter;
//   2. declare it below and add one line to JsonSections() in json_sections.cc;
//   3. add the .cc to report/json/CMakeLists.txt and document the keys in
//      docs/json-schema.md (new keys are a compatible change).
#pragma once

#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "report/json/json_writer.h"

namespace gpuwhy::report {

// JsonContext: what a section may look at while writing one trace.
struct JsonContext {
  const analysis::Analysis& analysis;
  const analysis::TraceAnalysis& trace;
};

enum class JsonPlacement {
  kTrace,   // keys of traces[i]
  kDevice,  // keys of traces[i].devices[j]
};

using TraceJsonFn = void (*)(const JsonContext& ctx, JsonWriter& w);
using DeviceJsonFn = void (*)(const JsonContext& ctx, const analysis::DeviceSummary& device,
                              JsonWriter& w);

// JsonSection: one registered section; the function matching placement is set.
struct JsonSection {
  std::string_view name;
  JsonPlacement placement;
  TraceJsonFn trace_fn = nullptr;
  DeviceJsonFn device_fn = nullptr;
};

// JsonSections: every section in output order.
const std::vector<JsonSection>& JsonSections();

// ---- Sections (one file each) ----
// summary_json.cc: trace keys "extent", "devices_without_events",
// "host_api_attributed_to_all", "import_stats"; device keys "span", "steps",
// "busy", "kernels", "memcpy", "memset", "sync_api", "sync_events".
void WriteTraceSummaryJson(const JsonContext& ctx, JsonWriter& w);
void WriteDeviceSummaryJson(const JsonContext& ctx, const analysis::DeviceSummary& device,
                            JsonWriter& w);
void WriteImportStatsJson(const JsonContext& ctx, JsonWriter& w);
// utilization_json.cc: device key "utilization"; trace keys "step_detection", "compat"
// (the latter only with --compat tbplugin/hta).
void WriteDeviceUtilizationJson(const JsonContext& ctx, const analysis::DeviceSummary& device,
                                JsonWriter& w);
void WriteStepsJson(const JsonContext& ctx, JsonWriter& w);
void WriteCompatJson(const JsonContext& ctx, JsonWriter& w);
// nsys_compat_section.cc: trace key "nsys_compat" (only with --compat nsys).
void WriteNsysCompatJson(const JsonContext& ctx, JsonWriter& w);
// measured_kernels_json.cc: trace key "measured_kernels" (only with a kernel
// profiler's figures: Nsight Compute alone or joined to a trace).
void WriteMeasuredKernelsJson(const JsonContext& ctx, JsonWriter& w);
// findings_section.cc: key "diagnosis" (findings, fixes, caveats), in traces[0] only.
void WriteDiagnosisJson(const JsonContext& ctx, JsonWriter& w);

}  // namespace gpuwhy::report
