#include "analysis/analysis.h"

#include <future>
#include <string>

namespace gpuwhy::analysis {

namespace {

// FillInput: what the input is (the diagnosis and run profile read it, so it
// is set before any section runs).
void FillInput(const model::Trace& trace, TraceAnalysis& out) {
  const model::TraceInfo& info = trace.info;
  out.input.path = info.source_path;
  out.input.format = info.format;
  out.input.format_version = info.format_version;
  out.input.clock = info.clock;
  out.input.merged_inputs = info.merged_inputs;
  out.input.rank = trace.rank.rank;
  out.input.world_size = trace.rank.world_size;
  out.input.backend = std::string(trace.Str(trace.rank.backend));
  out.input.hostname = std::string(trace.Str(trace.rank.hostname));
}

// Host-side sections: the device summary and the anchor reproductions.
void AnalyzeHostSections(const model::Trace& trace, const AnalysisOptions& options,
                         TraceAnalysis& out) {
  out.summary = SummarizeDevices(trace, options.summary);
  if (options.compat.tbplugin) out.tbplugin = ReproduceTbPlugin(trace);
  if (options.compat.hta) out.hta = ReproduceHta(trace);
  if (options.compat.tracelens) out.tracelens = ReproduceTraceLensTimeline(trace);
  if (options.compat.nsys) out.nsys = nsys_compat::ComputeNsysCompat(trace);
}

}  // namespace

TraceAnalysis AnalyzeTrace(const model::Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis out;
  FillInput(trace, out);
  AnalyzeHostSections(trace, options, out);
  // Other sections: one call each, below.
  out.utilization = AnalyzeUtilization(trace, options.utilization);
  return out;
}

detectors::DigestOptions DigestOptionsOf(const TraceAnalysis& ta) {
  detectors::DigestOptions o;
  const DeviceUtilization* best = nullptr;
  for (const DeviceUtilization& du : ta.utilization.devices)
    if (best == nullptr || du.kernel_time_ns > best->kernel_time_ns) best = &du;
  o.curve_shape = best != nullptr ? ToString(best->verdict.curve_class) : "INSUFFICIENT_DATA";
  o.curve_note = best != nullptr ? best->window_note : std::string();
  o.curve_reason = best != nullptr ? best->verdict.reason : std::string();
  o.throughput = &ta.utilization.throughput;
  return o;
}

namespace {

// Diagnose: the diagnosis alone, merged from per-rank digests (the same merge
// as for .gwsum summaries). It reads the utilization sections, not the host ones.
void Diagnose(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
              Analysis& analysis) {
  std::vector<detectors::RankDigest> digests;
  digests.reserve(traces.size());
  for (size_t i = 0; i < traces.size(); ++i)
    digests.push_back(detectors::DigestRank(traces[i], DigestOptionsOf(analysis.traces[i])));
  analysis.diagnosis = detectors::DiagnoseDigests(digests, options.diagnosis.scenario);
}

}  // namespace

void AttachDiagnosis(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
                     Analysis& analysis) {
  if (traces.empty()) return;
  Diagnose(traces, options, analysis);
  analysis.profile = ProfileOf(analysis);
}

RankSummary SummarizeRank(const model::Trace& trace, const AnalysisOptions& options) {
  RankSummary out;
  FillInput(trace, out.analysis);
  // The host sections on a worker, utilization and the digest (which reads
  // only utilization) here, as AnalyzeTraces does: on two cores this takes a
  // third off the analysis of a large trace.
  std::future<void> host = std::async(std::launch::async,
                                      [&] { AnalyzeHostSections(trace, options, out.analysis); });
  out.analysis.utilization = AnalyzeUtilization(trace, options.utilization);
  out.digest = detectors::DigestRank(trace, DigestOptionsOf(out.analysis));
  host.get();
  return out;
}

Analysis MergeRankSummaries(std::vector<RankSummary> ranks, const AnalysisOptions& options) {
  Analysis out;
  if (ranks.empty()) return out;
  std::vector<detectors::RankDigest> digests;
  digests.reserve(ranks.size());
  for (RankSummary& r : ranks) {
    out.traces.push_back(std::move(r.analysis));
    digests.push_back(std::move(r.digest));
  }
  out.diagnosis = detectors::DiagnoseDigests(digests, options.diagnosis.scenario);
  out.profile = ProfileOf(out);
  return out;
}

Analysis AnalyzeTraces(const std::vector<model::Trace>& traces, const AnalysisOptions& options) {
  Analysis out;
  out.traces.resize(traces.size());
  for (size_t i = 0; i < traces.size(); ++i) FillInput(traces[i], out.traces[i]);
  // Sections are pure functions of const traces, so they run concurrently:
  // the summary and compat sections on a worker, utilization and then the
  // diagnosis (which needs the curve shapes) here. Why: on a 2-core machine
  // this halves the analysis wall time of a large trace.
  std::future<void> host = std::async(std::launch::async, [&] {
    for (size_t i = 0; i < traces.size(); ++i) AnalyzeHostSections(traces[i], options, out.traces[i]);
  });
  for (size_t i = 0; i < traces.size(); ++i)
    out.traces[i].utilization = AnalyzeUtilization(traces[i], options.utilization);
  if (!traces.empty()) Diagnose(traces, options, out);
  host.get();
  // The run profile reads every section, so it waits for the host sections.
  if (!traces.empty()) out.profile = ProfileOf(out);
  return out;
}

}  // namespace gpuwhy::analysis
