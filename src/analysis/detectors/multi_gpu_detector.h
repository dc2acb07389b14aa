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
//   step, counting only each rank's idle gaps of at least kSlowHostMinGapNs.
//   Ranks are aligned by AlignRanks().
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/detectors/detector.h"
#include "analysis/detectors/rank_digest.h"
#include "analysis/detectors/timeline.h"

namespace gpuwhy::analysis::detectors {

// DetectCommunication: see the file comment.
std::vector<Finding> DetectCommunication(const DetectorInput& in);

// kSlowHostMinGapNs: the shortest idle gap of a rank that the "all ranks idle
// together" test counts. Shorter gaps are the timeline's kernel_wait or launch
// cadence (kKernelWaitThresholdNs, HTA's consecutive-kernel delay): launch
// overhead that launch_bound.fragmented reports per rank, and that ranks in
// lock step share without any host stall. The same threshold, so that the two
// findings split the idle time where the timeline does.
inline constexpr int64_t kSlowHostMinGapNs = kKernelWaitThresholdNs;
// kSlowHostGridNs: the test's time grid, 1 µs: Kineto JSON's resolution, and
// finer than ranks' clocks agree (AlignRanks; NTP/PTP across hosts).
inline constexpr int64_t kSlowHostGridNs = kNsPerUs;

// SlowHostIdle: the part of a rank's idle (step windows − busy, on its own
// clock; sorted, disjoint) that the "all ranks idle together" test counts:
// each interval cut inward to whole kSlowHostGridNs of that clock (start
// rounded up, end down), then kept when at least kSlowHostMinGapNs long.
// Idempotent. DigestRank stores this (PrimaryDigest::idle); DetectCrossRank
// applies it again to what it reads, so a summary written before the test
// had its grid and threshold (2026-12-05) gives the same finding.
IntervalList SlowHostIdle(IntervalList idle);

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
