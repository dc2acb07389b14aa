// Importer: translates one file format into the trace model.
//
// Contract: importers only translate; they never call analysis. Per-event
// problems bump a counter in trace.stats and the import continues. A broken
// container returns a non-OK Status whose message names what went wrong and
// where (path plus byte offset, line or event index); the caller then discards
// the partial trace. Read() ends with trace.Finalize().
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy::import {

// SourceInfo: what the registry learnt while sniffing a path.
struct SourceInfo {
  std::string path;
  std::string prefix;     // first bytes, decompressed when gzip (up to 64 KiB)
  bool gzip = false;
  uint64_t size_bytes = 0;
};

class Importer {
 public:
  virtual ~Importer() = default;
  // name: stable format name, e.g. "kineto-json" (also TraceInfo::format).
  virtual std::string_view name() const = 0;
  // Sniff: true when this importer recognises the source by its content.
  virtual bool Sniff(const SourceInfo& src) const = 0;
  // Read: import the whole source into `trace` (which starts empty).
  virtual Status Read(const SourceInfo& src, model::Trace& trace) = 0;
  // ReadRanks: import the source as one trace per rank it holds (a recording
  // of a whole torchrun job holds several); by default the one trace of
  // Read(). `traces` starts empty; on error it is left empty.
  virtual Status ReadRanks(const SourceInfo& src, std::vector<model::Trace>* traces) {
    model::Trace t;
    RETURN_IF_ERROR(Read(src, t));
    traces->push_back(std::move(t));
    return Status::Ok();
  }
};

}  // namespace gpuwhy::import
