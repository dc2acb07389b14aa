// RecordingImporter: reads a gpuwhy recording (`gpuwhy record`, .gwrec) into
// the trace model.
//
// Contract: sniffs by the 8-byte magic (never by file name). Produces
// devices, one CounterSeries per (device, kind) in canonical units (sources
// of merged series joined with "+", e.g. "nvml samples+nvml"), gpu_processes
// (peak memory, first/last seen, is_profiled = part of the recorded command),
// rank info from the run frame, and one marker per recorded event (domain
// "gpuwhy record"). When the recording names the devices the command used,
// only those devices are imported. A torn tail after a crash is counted
// (truncated_tail) and everything before it is kept; a corrupt recording is
// one Status with path and byte offset. info.format is "gpuwhy-recording".
#pragma once

#include <string_view>
#include <vector>

#include "import/importer.h"
#include "import/recording/recording_reader.h"
#include "model/trace.h"

namespace gpuwhy::import {

// RecordingToTrace: translate decoded frames into `trace` and Finalize() it.
void RecordingToTrace(const Recording& rec, model::Trace& trace);

// SplitRecordingByRank: when the trace streams carry two or more ranks (one
// `record --trace` around torchrun), one Recording per rank, in rank order:
// that rank's streams (a stream without a rank goes with the lowest rank, and
// a note says so), the run frame with the rank's rank, local rank and world
// size, and the sampled devices, series, process lists and events of the GPUs
// its streams used. Empty when there is nothing to split.
std::vector<Recording> SplitRecordingByRank(const Recording& rec);

class RecordingImporter final : public Importer {
 public:
  std::string_view name() const override { return "gpuwhy-recording"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeRecording(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
  // ReadRanks: one trace per rank (SplitRecordingByRank), else one.
  Status ReadRanks(const SourceInfo& src, std::vector<model::Trace>* traces) override;
};

}  // namespace gpuwhy::import
