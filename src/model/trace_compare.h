// Exact comparison of two trace models, for tests that must prove two import
// settings produce the same model (e.g. the Kineto importer with and without
// early table sizing).
#pragma once

#include <string>

#include "model/trace.h"

namespace gpuwhy::model {

// DescribeDifference: empty when `a` and `b` are bit-identical: every event
// table column (byte for byte, NaN payloads included), the string pool by id,
// devices, processes, threads, streams, counter series, rank and trace info
// and every import counter. Otherwise one line naming the first difference
// found, e.g. "kernels.start_ns differs".
std::string DescribeDifference(const Trace& a, const Trace& b);

}  // namespace gpuwhy::model
