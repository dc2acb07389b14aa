// Multi-GPU detectors: communication share and overlap per rank, and
// stragglers / load imbalance / a slow host across a rank set.
//
// Contract:
// - DetectCommunication() (per trace) returns "communication.exposed" per
//   device with communication kernels (NCCL, RCCL, custom all-reduce /
//   all-to-all); time lost = communication not overlapped by compute kernels
//   (an upper bound for perfect overlap). Severity rises above the TB-plugin
//   10%-of-step rule.
// - DetectCrossRank() (a rank set, >= 2 ranks) returns "imbalance.stragglers"
//   when per-rank compute time per step differs (time lost = max − mean
//   compute, what perfect balance saves per step), and "imbalance.slow_host"
//   when all ranks are idle at the same time (aligned clocks) for > 5% of the
//   step. Ranks are aligned by AlignRanks().
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"
#include "analysis/detectors/rank_digest.h"

namespace gpuwhy::analysis::detectors {

// DetectCommunication: see the file comment.
std::vector<Finding> DetectCommunication(const DetectorInput& in);

// RankInput: one rank of a multi-rank set (same job): its digest (what the
// cross-rank detectors read; never the trace), its rank number and its clock offset.
struct RankInput {
  const RankDigest* digest = nullptr;
  int32_t rank = kMissingI32;
  int64_t clock_offset_ns = 0;  // add to this rank's times to align with rank set time
};

// FirstCommEnd: end of the first communication kernel of `t` (AlignRanks' anchor), or missing.
int64_t FirstCommEnd(const model::Trace& t);

// AlignRanks: clock offsets that put every rank on rank 0's clock. Same clock
// name and overlapping spans: offset 0 (Kineto/nsys use the realtime clock).
// Otherwise: align the end of each rank's first communication kernel (a
// collective ends at about the same time everywhere). Sets clock_offset_ns.
void AlignRanks(std::vector<RankInput>& ranks);

// DetectCrossRank: see the file comment.
std::vector<Finding> DetectCrossRank(const std::vector<RankInput>& ranks);

}  // namespace gpuwhy::analysis::detectors
