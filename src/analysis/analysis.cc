#include "analysis/analysis.h"

#include <future>
#include <span>
#include <string>
#include <vector>

#include "analysis/detectors/timeline.h"

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
  out.input.import_notes = info.import_notes;
  out.input.host_only_profile = info.host_only_profile;
  out.input.rank = trace.rank.rank;
  out.input.world_size = trace.rank.world_size;
  out.input.backend = std::string(trace.Str(trace.rank.backend));
  out.input.hostname = std::string(trace.Str(trace.rank.hostname));
}

// Host-side sections: the device summary and the anchor reproductions.
void AnalyzeHostSections(const model::Trace& trace, const RunSteps& run,
                         const AnalysisOptions& options, TraceAnalysis& out) {
  out.summary = SummarizeDevices(trace, options.summary, run);
  if (options.compat.tbplugin) out.tbplugin = ReproduceTbPlugin(trace);
  if (options.compat.hta) out.hta = ReproduceHta(trace);
  if (options.compat.tracelens) out.tracelens = ReproduceTraceLensTimeline(trace);
  if (options.compat.nsys) out.nsys = nsys_compat::ComputeNsysCompat(trace);
  if (trace.info.kernels_untimed || HasMeasuredFigures(trace))
    out.measured_kernels = AnalyzeMeasuredKernels(trace);
}

}  // namespace

TraceAnalysis AnalyzeTrace(const model::Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis out;
  FillInput(trace, out);
  // The run's steps and phases, built once for every section (run_phases.h).
  const RunSteps run = BuildRunSteps(trace);
  AnalyzeHostSections(trace, run, options, out);
  // Other sections: one call each, below.
  out.utilization = AnalyzeUtilization(trace, options.utilization, run);
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
// as for .gwsum summaries). It reads the utilization sections, not the host
// ones. `timelines`: BuildTimeline() of each trace, already built, or empty.
// `runs`: BuildRunSteps() of each trace, or empty (then built here).
void Diagnose(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
              const std::vector<detectors::Timeline>& timelines, const std::vector<RunSteps>& runs,
              Analysis& analysis) {
  std::vector<detectors::RankDigest> digests;
  digests.reserve(traces.size());
  for (size_t i = 0; i < traces.size(); ++i) {
    const detectors::DigestOptions o = DigestOptionsOf(analysis.traces[i]);
    if (!timelines.empty()) {
      digests.push_back(detectors::DigestRank(traces[i], timelines[i], o));
    } else {
      const RunSteps run = runs.empty() ? BuildRunSteps(traces[i]) : RunSteps();
      digests.push_back(detectors::DigestRank(
          traces[i], detectors::BuildTimeline(traces[i], runs.empty() ? run : runs[i]), o));
    }
  }
  analysis.diagnosis = detectors::DiagnoseDigests(digests, options.diagnosis.scenario);
}

// kOverlapModelBytes: up to this much model (all traces together), the
// diagnosis timelines are built on a third thread while utilization and the
// host sections run; above it, after them, one at a time. The timeline reads
// no section, so only memory decides: the overlap adds up to about a ninth to
// the peak. On the 100x bench trace (763 MB of model) eight paired warm runs
// (both orders alternating within a round) took the analysis after the
// import from 962-1558 ms to 689-1539 ms, faster in 7 rounds of 8, and the
// whole run from 3.64-5.84 s to 3.23-5.25 s, faster in all 8 (by 0.16-0.62
// s), at a peak of 1,041,512-1,151,196 KiB against 1,010,252-1,036,304 KiB.
// (Unpaired runs had hidden the gain in this machine's noise:
// docs/performance.md.) The 10x one (76 MB) gains about 0.1 s of 1 s. Past
// 1 GiB of model the ninth is worth more than the time.
inline constexpr size_t kOverlapModelBytes = size_t{1} << 30;

// OverlapTimelines: whether the traces' timelines overlap the other sections.
bool OverlapTimelines(std::span<const model::Trace> traces) {
  size_t bytes = 0;
  for (const model::Trace& t : traces) bytes += t.memory_bytes();
  return bytes <= kOverlapModelBytes;
}

}  // namespace

void AttachDiagnosis(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
                     Analysis& analysis) {
  if (traces.empty()) return;
  Diagnose(traces, options, {}, {}, analysis);
  analysis.profile = ProfileOf(analysis);
}

RankSummary SummarizeRank(const model::Trace& trace, const AnalysisOptions& options) {
  RankSummary out;
  FillInput(trace, out.analysis);
  // The run's steps and phases, built once for every section (run_phases.h).
  const RunSteps run = BuildRunSteps(trace);
  // The host sections on a worker, utilization and the digest (which reads
  // only utilization) here, as AnalyzeTraces does: on two cores this takes a
  // third off the analysis of a large trace.
  std::future<void> host = std::async(
      std::launch::async, [&] { AnalyzeHostSections(trace, run, options, out.analysis); });
  std::future<detectors::Timeline> timeline;
  if (OverlapTimelines({&trace, 1}))
    timeline = std::async(std::launch::async, [&] { return detectors::BuildTimeline(trace, run); });
  out.analysis.utilization = AnalyzeUtilization(trace, options.utilization, run);
  // Past kOverlapModelBytes the timeline is built alone, for memory: after utilization
  // and the host sections, in the heap they freed. (A host section still
  // running beside the timeline added its own arrays to the timeline's peak.
  // Giving the freed heap back first, malloc_trim, only made the timeline
  // fault it in again: at 100x ~5,000 more faults and 0.2 s.)
  if (!timeline.valid()) host.get();
  const detectors::DigestOptions o = DigestOptionsOf(out.analysis);
  out.digest = timeline.valid() ? detectors::DigestRank(trace, timeline.get(), o)
                                : detectors::DigestRank(trace, detectors::BuildTimeline(trace, run), o);
  if (host.valid()) host.get();
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
  // The run's steps and phases of each trace, built once for every section.
  std::vector<RunSteps> runs;
  runs.reserve(traces.size());
  for (const model::Trace& t : traces) runs.push_back(BuildRunSteps(t));
  // Sections are pure functions of const traces, so they run concurrently:
  // the summary and compat sections on a worker, utilization and then the
  // diagnosis (which needs the curve shapes) here. Why: on a 2-core machine
  // this halves the analysis wall time of a large trace.
  std::future<void> host = std::async(std::launch::async, [&] {
    for (size_t i = 0; i < traces.size(); ++i)
      AnalyzeHostSections(traces[i], runs[i], options, out.traces[i]);
  });
  // The diagnosis timelines too, on a third thread, when the traces are small
  // enough for their memory to overlap utilization's (OverlapTimelines).
  std::future<std::vector<detectors::Timeline>> timelines;
  if (!traces.empty() && OverlapTimelines(traces)) {
    timelines = std::async(std::launch::async, [&] {
      std::vector<detectors::Timeline> v;
      v.reserve(traces.size());
      for (size_t i = 0; i < traces.size(); ++i) v.push_back(detectors::BuildTimeline(traces[i], runs[i]));
      return v;
    });
  }
  for (size_t i = 0; i < traces.size(); ++i)
    out.traces[i].utilization = AnalyzeUtilization(traces[i], options.utilization, runs[i]);
  if (!traces.empty() && !timelines.valid()) host.get();  // as SummarizeRank
  if (!traces.empty()) {
    const std::vector<detectors::Timeline> built =
        timelines.valid() ? timelines.get() : std::vector<detectors::Timeline>();
    Diagnose(traces, options, built, runs, out);
  }
  if (host.valid()) host.get();
  // The run profile reads every section, so it waits for the host sections.
  if (!traces.empty()) out.profile = ProfileOf(out);
  return out;
}

}  // namespace gpuwhy::analysis
