// Reproduction of TraceLens's GPU timeline (`gpuwhy analyze --compat tracelens`;
// TreePerfAnalyzer.get_df_gpu_timeline at AMD-AGI/TraceLens 171dd74).
//
// Contract: ReproduceTraceLensTimeline() is pure. GPU events are kernels,
// memcpys and memsets. Linked only (TraceLens's default): an "ac2g" flow with
// the event's correlation id starts at a runtime/driver call in the trace, or
// a cudaGraphLaunch/hipGraphLaunch has that correlation id (a launch outside
// the trace, a call without a flow, or legacy flows leave it unlinked).
// Categories: memcpy = memcpys plus rocclr copy kernels; communication =
// kernels named nccl/rccl/cross_device_reduce; computation = every other
// kernel and every memset. One union per category across all streams and
// devices; total = first to last kept event; exposed comm = |COMM - COMP|,
// exposed memcpy = |MEMCPY - COMP - COMM|, busy = |ALL|, idle = total - busy.
#pragma once

#include <cstdint>
#include <string>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// TraceLensTimeline: one gpu_timeline sheet (µs; ok false with `error` as
// TraceLens raises it when no GPU event is kept).
struct TraceLensTimeline {
  bool ok = false;
  std::string error;
  int64_t events_used = 0;
  int64_t events_all = 0;
  double total_us = kMissingF64;
  double computation_us = kMissingF64;
  double exposed_comm_us = kMissingF64;
  double exposed_memcpy_us = kMissingF64;
  double busy_us = kMissingF64;
  double idle_us = kMissingF64;
  double total_comm_us = kMissingF64;
  double total_memcpy_us = kMissingF64;
};

// TraceLensResult: the default (linked-only) timeline and the
// include_unlinked_kernels=True one.
struct TraceLensResult {
  TraceLensTimeline linked;
  TraceLensTimeline all;
};

// ReproduceTraceLensTimeline: see the file comment.
TraceLensResult ReproduceTraceLensTimeline(const model::Trace& trace);

}  // namespace gpuwhy::analysis
