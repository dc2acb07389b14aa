#include "analysis/analysis.h"

namespace gpuwhy::analysis {

TraceAnalysis AnalyzeTrace(const model::Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis out;
  const model::TraceInfo& info = trace.info;
  out.input.path = info.source_path;
  out.input.format = info.format;
  out.input.format_version = info.format_version;
  out.input.clock = info.clock;
  out.input.rank = trace.rank.rank;
  out.input.world_size = trace.rank.world_size;
  out.input.backend = std::string(trace.Str(trace.rank.backend));
  out.input.hostname = std::string(trace.Str(trace.rank.hostname));

  out.summary = SummarizeDevices(trace, options.summary);
  // Other sections: one call each, below.
  out.utilization = AnalyzeUtilization(trace, options.utilization);
  if (options.compat.tbplugin) out.tbplugin = ReproduceTbPlugin(trace);
  if (options.compat.hta) out.hta = ReproduceHta(trace);
  if (options.compat.nsys) out.nsys = nsys_compat::ComputeNsysCompat(trace);
  return out;
}

void AttachDiagnosis(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
                     Analysis& analysis) {
  if (traces.empty()) return;
  // One diagnosis for the set; the curve shape comes from the utilization section.
  std::vector<const model::Trace*> ptrs;
  for (const model::Trace& t : traces) ptrs.push_back(&t);
  detectors::DiagnosisOptions dopt = options.diagnosis;
  for (const TraceAnalysis& ta : analysis.traces) {
    const DeviceUtilization* best = nullptr;
    for (const DeviceUtilization& du : ta.utilization.devices)
      if (best == nullptr || du.kernel_time_ns > best->kernel_time_ns) best = &du;
    dopt.curve_shapes.push_back(best != nullptr ? ToString(best->verdict.curve_class)
                                                : "INSUFFICIENT_DATA");
  }
  analysis.diagnosis = detectors::Diagnose(ptrs, dopt);
}

Analysis AnalyzeTraces(const std::vector<model::Trace>& traces, const AnalysisOptions& options) {
  Analysis out;
  out.traces.reserve(traces.size());
  for (const model::Trace& t : traces) out.traces.push_back(AnalyzeTrace(t, options));
  AttachDiagnosis(traces, options, out);
  return out;
}

}  // namespace gpuwhy::analysis
