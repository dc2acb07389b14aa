// Kineto / PyTorch-profiler Chrome-trace JSON importer: the Kineto dialect of
// the Chrome Trace Event tokenizer (import/chrome/chrome_stream_tokenizer.h).
//
// Contract: reads `export_chrome_trace` output of every vintage (2021 legacy
// categories Kernel/Runtime/Memcpy/Memset/Operator, integer absolute µs, and
// fractional µs relative to baseTimeNanoseconds) into the trace model. The
// parser streams: it never holds the JSON text, only one input chunk plus the
// event being parsed, so peak memory follows the size of the model. Top-level
// keys may come in any order (baseTimeNanoseconds after traceEvents is fine).
// Per-event problems bump trace.stats counters; container problems (not JSON,
// truncated, top level not an object, traceEvents/deviceProperties not arrays)
// return one Status naming the path and the decompressed byte offset (0-based;
// for truncation, the offset of the first missing byte). For gzip input a
// parse error is replaced by the gzip error when the stream turns out corrupt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/input_stream.h"
#include "base/status.h"
#include "import/chrome/chrome_trace_tokenizer.h"  // MicrosTextToNs, FastDecimal
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// KinetoOptions: parser tuning; tests shrink chunk_bytes to split events
// across every possible chunk boundary.
struct KinetoOptions {
  size_t chunk_bytes = size_t{1} << 20;  // bytes requested from the stream per refill
  // reserve_after_bytes: JSON bytes read before the event tables are sized
  // for the whole input (Trace::ReserveForGrowth, from the share of the file
  // read so far): enough to average over many steps, early enough that
  // little was copied yet. 0 turns it off; an estimate past half the
  // machine's memory is not reserved. The model is the same either way.
  uint64_t reserve_after_bytes = uint64_t{32} << 20;
  // threads: traceEvents parsers. Above 1, the events are cut into segments
  // of at least segment_bytes (a cut waits for the next read that passes it)
  // at event boundaries, parsed on that many threads into segment-local
  // tables, and merged in file order; the model, counters and errors are
  // bit-identical to the one-thread parse (tests assert it on every shared
  // trace; the fuzzer on every input). An array that fits in one segment is
  // parsed on the calling thread. 0 picks one per core, at most 4 (more
  // gained nothing on a 16-core machine and cost memory). 1 MiB segments: on
  // the 10x bench trace, 4 MiB ones parsed no faster and held 40 MB more
  // (docs/performance.md).
  int threads = 0;
  size_t segment_bytes = size_t{1} << 20;
  // learn_repeats: replay what repeats from event to event, checked byte for
  // byte, instead of lexing it again: the bytes between an event's values
  // (whitespace, punctuation, the next key) as they came in earlier events of
  // its kind, and the last value of fields that repeat (pid, tid, device,
  // stream, cbid) when the same digits are there. The model, counters and
  // errors are the same either way (tests assert it); off is for those tests
  // and for measuring.
  bool learn_repeats = true;
  // Used by KinetoImporter::Read when opening the file. Read-ahead is on: the
  // inflate thread saves ~0.1 s of 1.3 s on the 10x bench trace (bench/import).
  InputStreamOptions stream = ReadAheadOn();

  static InputStreamOptions ReadAheadOn() {
    InputStreamOptions o;
    o.read_ahead = true;
    return o;
  }
};

// KinetoScanStats: what the scanner saw, for throughput figures.
struct KinetoScanStats {
  uint64_t trace_events = 0;  // elements of the traceEvents array
  uint64_t json_bytes = 0;    // decompressed bytes parsed
  // reserve_factor: the growth the event tables were sized for once
  // reserve_after_bytes had been read (0: they were not sized).
  double reserve_factor = 0;
  // segments: traceEvents segments merged from the parallel parse (0: one
  // thread parsed them); serial_fallback: a cut turned out not to be an
  // event boundary (a string held "},{"), so the rest was parsed on one thread.
  uint64_t segments = 0;
  bool serial_fallback = false;
  // jax_layout: the document was refused as a JAX/XLA profile (device
  // processes, no event Kineto maps); KinetoImporter::Read then reads it
  // with the jax-trace-json dialect.
  bool jax_layout = false;
};

// ReadKinetoStream: parse a Kineto JSON document from `in` into `trace` (which
// starts empty) and Finalize() it. On error `trace` holds partial data and
// must be discarded by the caller. `scan` (optional) receives counts.
Status ReadKinetoStream(InputStream& in, const KinetoOptions& options, model::Trace& trace,
                        KinetoScanStats* scan = nullptr);

// LooksLikeKineto: true when `prefix` (decompressed first bytes of a file) is a
// JSON object with Kineto/Chrome-trace keys (traceEvents, schemaVersion,
// deviceProperties, ...), or Chrome's bare event array ("[{...\"ph\"..."), which
// is claimed only so that the importer can refuse it with a clear message.
// Content only; the file name is not consulted.
bool LooksLikeKineto(std::string_view prefix);

// KinetoImporter: the Importer for "kineto-json".
class KinetoImporter final : public Importer {
 public:
  KinetoImporter() = default;
  explicit KinetoImporter(KinetoOptions options) : options_(options) {}
  std::string_view name() const override { return "kineto-json"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeKineto(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;

 private:
  KinetoOptions options_;
};

}  // namespace gpuwhy::import
