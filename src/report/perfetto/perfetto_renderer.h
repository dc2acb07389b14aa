// RenderPerfetto: an analysis::PerfettoView as a Chrome JSON trace (Trace
// Event Format) that Perfetto UI and chrome://tracing open, and that gpuwhy's
// own Kineto importer reads back (docs/perfetto.md lists the tracks).
//
// Contract: formats only. The trace's GPU events keep their Kineto layout
// (pid = device, tid = stream; categories kernel / gpu_memcpy / gpu_memset /
// cuda_runtime / cuda_driver / cpu_op / user_annotation / python_function;
// args device, stream, correlation, External id, launch config) with ac2g
// flows from launch to GPU op; gpuwhy adds counter ("C") events, an
// idle-cause slice track and finding instants per device. Timestamps are µs
// written exactly from int64 ns with 3 decimals. Every string is escaped
// (invalid UTF-8 becomes U+FFFD). The view's traces must be alive.
#pragma once

#include <ostream>

#include "analysis/perfetto/perfetto_view.h"

namespace gpuwhy::report {

// Track ids on a device's pid, beside its streams (tid = stream id).
inline constexpr int64_t kIdleCauseTid = 1'000'000'001;
inline constexpr int64_t kFindingsTid = 1'000'000'002;
// kSyncTidBase: cuda_sync events of stream N go to tid kSyncTidBase + N
// (Kineto's "stream N (sync)" rows), so they never overlap the stream's kernels.
inline constexpr int64_t kSyncTidBase = 1'100'000'000;
// kHostCountersPid: pid (plus the rank offset) of counters with no device.
inline constexpr int64_t kHostCountersPid = 9'999'999;

// RenderPerfetto: see the file comment. Writes one JSON object to `out`; the
// caller checks the stream's state.
void RenderPerfetto(const analysis::PerfettoView& view, std::ostream& out);

}  // namespace gpuwhy::report
