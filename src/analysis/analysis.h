// Analysis: the aggregate result that every renderer takes.
//
// Lifecycle: the CLI imports traces, calls AnalyzeTraces() once, and hands the
// Analysis to report::RenderTerminal / report::RenderJson. Nothing in here
// refers back into a model::Trace (strings are copied), so the traces may be
// freed before rendering.
//
// Adding a section (utilization, nsys compat tables, findings, ...):
//   1. put its result type in your own folder (src/analysis/<name>/) and add
//      ONE member to TraceAnalysis below (std::optional when it may not apply);
//   2. fill it in AnalyzeTrace() in analysis.cc (one call);
//   3. add a renderer section file in report/terminal and report/json and one
//      line in their section lists (see report/terminal/sections.h).
// Per-device results should be a vector keyed by device_id so device-scoped
// renderer sections can find the entry of the device they are drawing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/anchor_compat/hta_compat.h"
#include "analysis/anchor_compat/tb_plugin_compat.h"
#include "analysis/anchor_compat/tracelens_compat.h"
#include "analysis/nsys_compat/nsys_compat.h"
#include "analysis/detectors/diagnosis.h"
#include "analysis/diff/run_profile.h"
#include "analysis/summary/device_summary.h"
#include "analysis/throughput/measured_kernels.h"
#include "analysis/utilization/utilization.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// AnalysisOptions: options of every section, grouped per section.
struct AnalysisOptions {
  SummaryOptions summary;
  UtilizationOptions utilization;
  detectors::DiagnosisOptions diagnosis;  // --scenario (src/analysis/detectors)
  // compat: anchor-tool reproductions to compute (`--compat tbplugin|hta|nsys|tracelens`).
  struct Compat {
    bool tbplugin = false;
    bool hta = false;
    bool nsys = false;
    bool tracelens = false;
  } compat;
};

// InputInfo: identity of one analyzed input (copied from TraceInfo/RankInfo).
struct InputInfo {
  std::string path;
  std::string format;          // "kineto-json", ...
  std::string format_version;  // empty when unknown
  int64_t size_bytes = kMissingI64;  // set by the caller (analysis does no I/O)
  std::string clock;
  int32_t rank = kMissingI32;
  int32_t world_size = kMissingI32;
  std::string backend;         // distributed backend, empty when unknown
  std::string hostname;
  std::vector<std::string> merged_inputs;  // counter inputs merged into this trace
  // import_notes: how the importer read the source (model TraceInfo::import_notes);
  // kept in .gwsum summaries from version 2.1.
  std::vector<std::string> import_notes;
  bool host_only_profile = false;  // TraceInfo::host_only_profile
};

// TraceAnalysis: all sections for one trace (one rank).
struct TraceAnalysis {
  InputInfo input;
  TraceSummary summary;  // per-device summary (src/analysis/summary)
  UtilizationResult utilization;  // surface vs real, curve class (src/analysis/utilization)
  std::optional<TbPluginResult> tbplugin;  // --compat tbplugin (src/analysis/anchor_compat)
  std::optional<HtaResult> hta;            // --compat hta (src/analysis/anchor_compat)
  std::optional<TraceLensResult> tracelens;  // --compat tracelens (src/analysis/anchor_compat)
  std::optional<nsys_compat::NsysCompatReport> nsys;  // --compat nsys (src/analysis/nsys_compat)
  // measured_kernels: a kernel profiler's per-kernel figures and bound
  // (Nsight Compute; src/analysis/throughput/measured_kernels.h), when the
  // input is such a report or one was joined to the trace.
  std::optional<MeasuredKernels> measured_kernels;
  // Sections of other components are added here, one member each.
};

// Analysis: the whole run: one TraceAnalysis per input, in input order.
struct Analysis {
  std::string tool_version;  // e.g. "0.1.0"; set by the caller
  std::vector<TraceAnalysis> traces;
  // diagnosis: ranked root causes over all inputs (one job's ranks), from
  // src/analysis/detectors; missing only when there are no inputs.
  std::optional<detectors::Diagnosis> diagnosis;
  // profile: the figures `gpuwhy diff` compares (src/analysis/diff), set by
  // AttachDiagnosis(); JSON reports carry it as "run_profile".
  RunProfile profile;
};

// RankSummary: one rank's whole share of an Analysis: its report sections and
// the digest its part of the diagnosis is merged from. A `.gwsum` file
// (docs/gwsum.md) stores one; `gpuwhy analyze` of raw traces builds one per
// trace in memory and merges them the same way, so both paths share one code
// path from here on. Plain data; refers to no trace.
struct RankSummary {
  TraceAnalysis analysis;
  detectors::RankDigest digest;
};

// SummarizeRank: AnalyzeTrace() and the trace's digest (curve shape and
// throughput from the utilization section). Pure; input path/size left as
// AnalyzeTrace leaves them.
RankSummary SummarizeRank(const model::Trace& trace, const AnalysisOptions& options);

// MergeRankSummaries: the Analysis of one job's ranks from their summaries, in
// input order: the report sections as they are, the diagnosis from
// DiagnoseDigests(), the run profile. The caller sets tool_version.
Analysis MergeRankSummaries(std::vector<RankSummary> ranks, const AnalysisOptions& options);

// DigestOptionsOf: the digest options taken from a trace's analysis (the
// busiest device's curve verdict, its throughput result; `ta` must outlive
// the digest call).
detectors::DigestOptions DigestOptionsOf(const TraceAnalysis& ta);

// AnalyzeTrace: every section for one trace. Pure; `size_bytes` of the input
// is left missing (the caller knows the file).
TraceAnalysis AnalyzeTrace(const model::Trace& trace, const AnalysisOptions& options);

// AttachDiagnosis: run the detectors over all `traces` (one job's ranks, in
// the same order as analysis.traces) and set analysis.diagnosis; the curve
// shape comes from each TraceAnalysis's utilization section.
void AttachDiagnosis(const std::vector<model::Trace>& traces, const AnalysisOptions& options,
                     Analysis& analysis);

// AnalyzeTraces: AnalyzeTrace() for each trace, in order, then AttachDiagnosis().
Analysis AnalyzeTraces(const std::vector<model::Trace>& traces, const AnalysisOptions& options);

}  // namespace gpuwhy::analysis
