// XSpace importer ("xplane"): the raw protobuf that the JAX / XLA / TensorFlow
// profiler writes (`jax.profiler.trace(dir)` → `<host>.xplane.pb`, also
// `.xplane.pb.gz`), decoded with libprotobuf from the vendored schema
// (third_party/xplane/xplane.proto). Recognised by content, never by name.
//
// Contract (the mapping, docs/log_formats.md "JAX / XLA XSpace"):
// - Plane `/device:GPU:N` and `/device:TPU:N` are device N (TPUs with
//   Vendor::kGoogle, GPUs with the plane's `device_vendor`). Other device planes
//   (SparseCore, custom) are skipped and counted (`unmapped_plane`).
// - On a GPU plane, `Stream #S...` lines are stream S: kernels (with
//   `kernel_details` launch configuration), memcpys (`memcpy_details`) and
//   memsets; `XLA Ops` are then GPU annotations. A device plane without stream
//   lines (TPU) has its `XLA Ops` events as the kernels, on a stream whose id is
//   the line's id. `Steps` events are step ranges (step = `step_num`,
//   `group_id` or the event's numeric name); other device lines (`XLA Modules`,
//   `Async XLA Ops`, `XLA TraceMe`, ...) are GPU annotations on the device.
// - Host planes (`/host:CPU`, `/host:TPU-runtime`, ...): each line is a thread
//   (tid = line id); an event with a `correlation_id` is an API call, one with a
//   `step_num` a step range, others CPU ops. `/host:CUPTI` events are driver or
//   runtime calls, `/host:python-tracer` Python functions, `/host:NVTX-CUPTI`
//   NVTX ranges.
// - Times: an event starts at line.timestamp_ns + offset_ps / 1000 and lasts
//   duration_ps / 1000, floored to int64 ns. Session-relative lines (the
//   profiler's post-processed form) are shifted by the `Task Environment`
//   plane's `profile_start_time` when it is there (clock "unix_realtime");
//   without it the clock is "xplane_session" (ns since the profile started).
// - A file that is not a readable XSpace is one error line naming the byte
//   offset (and, when its binary bytes were replaced by U+FFFD as happens when
//   it is saved as text, says so). A file with no device event gpuwhy maps is
//   one error line naming the planes it holds.
// - Built without protobuf (cmake -DGPUWHY_XPLANE, cmake/deps.cmake), the
//   sniff still recognises the file and Read gives one kUnsupported line
//   saying which packages to install.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// LooksLikeXSpace: true when `prefix` (a file's first bytes) opens with an
// XSpace's first plane: field 1 (length-delimited) whose first fields are an
// optional id and a name starting "/device:", "/host:" or "/virtualdevice:"
// or naming "Task Environment". Conservative: any other first bytes (gzip,
// SQLite, .nsys-rep, .gwrec, JSON, text) are false.
bool LooksLikeXSpace(std::string_view prefix);

// XSpaceReaderBuilt: true when this build has the protobuf reader
// (GPUWHY_XPLANE with libprotobuf found); false when ReadXSpace* only return
// the kUnsupported line saying how to enable it.
bool XSpaceReaderBuilt();

// ReadXSpaceBytes: import the serialized XSpace `bytes` (not gzipped) into
// `trace` (which starts empty); `path` names the source in error messages and
// TraceInfo. On error `trace` holds partial data the caller discards.
Status ReadXSpaceBytes(std::string_view bytes, const std::string& path, model::Trace& trace);

// ReadXSpaceFile: read the file at `path` (gunzipped when it is gzip) and
// import it as ReadXSpaceBytes does.
Status ReadXSpaceFile(const std::string& path, model::Trace& trace);

class XplaneImporter final : public Importer {
 public:
  std::string_view name() const override { return "xplane"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeXSpace(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override {
    return ReadXSpaceFile(src.path, trace);
  }
};

}  // namespace gpuwhy::import
