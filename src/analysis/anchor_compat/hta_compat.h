// Reproduction of Holistic Trace Analysis (HTA) breakdowns
// (`gpuwhy analyze --compat hta`).
//
// Contract: ReproduceHta() is pure and mimics HTA's quirks (docs/utilization.md):
// integer-µs timestamps as HTA's loader makes them (start = ceil(ts), end =
// floor(ts + dur), so a sub-µs event may end before it starts), the last
// ProfilerStep dropped (only GPU events whose correlated runtime call starts
// before it are kept, when there are >= 2 steps), GPU events = kernels,
// memcpys, memsets and sync events with a stream. Temporal breakdown: window
// = first to last GPU event; idle = window - |∪ events|; compute = |∪
// COMPUTATION kernels|; non-compute = rest. Idle-time breakdown per stream
// over kernels/memcpys/memsets in start order: the interval to the previous
// event's end (negative on overlap, summed like HTA does) is host_wait when
// the correlated runtime call started after that end, kernel_wait when
// shorter than consecutive_kernel_delay_us, else other.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// HtaKernelType: HTA's name-based kernel type.
enum class HtaKernelType : uint8_t { kCommunication = 0, kMemory, kComputation, kOther };

// HtaKernelTypeOf: HTA's get_kernel_type() regexes, applied to a GPU event name.
HtaKernelType HtaKernelTypeOf(std::string_view name);

// HtaTemporal: get_temporal_breakdown() for one rank (µs and %).
struct HtaTemporal {
  int64_t idle_us = 0;
  int64_t compute_us = 0;
  int64_t non_compute_us = 0;
  int64_t total_us = 0;
  double idle_pct = kMissingF64;
  double compute_pct = kMissingF64;
  double non_compute_pct = kMissingF64;
};

// HtaIdleStream: get_idle_time_breakdown() for one stream (µs).
struct HtaIdleStream {
  int64_t stream_id = kMissingI64;
  int64_t host_wait_us = 0;
  int64_t kernel_wait_us = 0;
  int64_t other_us = 0;
};

// HtaResult: both breakdowns.
struct HtaResult {
  int32_t profiler_steps = 0;
  bool last_step_dropped = false;
  int64_t gpu_events = 0;  // after the last-step filter
  HtaTemporal temporal;
  std::vector<HtaIdleStream> idle_streams;  // by stream id
};

// ReproduceHta: see the file comment.
HtaResult ReproduceHta(const model::Trace& trace, int64_t consecutive_kernel_delay_us = 30);

}  // namespace gpuwhy::analysis
