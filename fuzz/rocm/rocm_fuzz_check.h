// RocmCheckTrace: the model invariants both ROCm fuzzers check on a
// successful import (abort = a finding): event tables sorted by start, no
// interval ending before it starts, names resolvable, counter series with as
// many values as timestamps and values NaN or >= 0.
#pragma once

#include <cmath>
#include <cstdlib>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::fuzz {

inline void RocmCheckIntervals(const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
  if (start.size() != end.size()) std::abort();
  for (size_t i = 0; i < start.size(); ++i) {
    if (i > 0 && start[i] < start[i - 1]) std::abort();
    if (!IsValid(start[i]) || !IsValid(end[i]) || end[i] < start[i]) std::abort();
  }
}

inline void RocmCheckTrace(const model::Trace& t) {
  RocmCheckIntervals(t.kernels.start_ns, t.kernels.end_ns);
  for (StringId name : t.kernels.name) (void)t.Str(name);
  for (StringId name : t.api_calls.name) (void)t.Str(name);
  RocmCheckIntervals(t.memcpys.start_ns, t.memcpys.end_ns);
  RocmCheckIntervals(t.memsets.start_ns, t.memsets.end_ns);
  RocmCheckIntervals(t.api_calls.start_ns, t.api_calls.end_ns);
  RocmCheckIntervals(t.ranges.start_ns, t.ranges.end_ns);
  for (const auto& s : t.counters) {
    if (s.ts_ns.size() != s.value.size()) std::abort();
    for (double v : s.value)
      if (!std::isnan(v) && v < 0) std::abort();
  }
  for (const auto& d : t.devices) (void)t.Str(d.name);
}

}  // namespace gpuwhy::fuzz
