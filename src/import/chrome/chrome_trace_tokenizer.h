// Chrome Trace Event tokenizer: reads a Chrome trace document and hands its
// events, one at a time, as views of their fields to a dialect mapping
// (torch_legacy_dialect.cc, jax_dialect.cc, rocprof_json_dialect.cc).
//
// Contract: reads both container forms, `{"traceEvents": [...], ...}` and a
// top-level array `[...]`, plain or gzip (base/input_stream), after an
// optional UTF-8 byte-order mark, and accepts empty `{}` events, a trailing
// comma, and numbers given as strings ("ts": "622109046136"). It is the one
// streaming tokenizer (chrome_stream_tokenizer.h, which Kineto's importer
// uses too): the document is never held whole; on threads the events array
// is cut into segments parsed in parallel and handed to `fn` in file order,
// one thread at a time. The views an event hands out stay valid only during
// the call. A broken container (not JSON, truncated, traceEvents not an
// array, top level neither object nor array) is one Status naming the path
// and the decompressed byte offset; a gzip error is reported as such.
// Elements that are not objects bump malformed_event and are skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/input_stream.h"
#include "base/status.h"
#include "base/units.h"
#include "model/import_stats.h"
#include "model/trace.h"

namespace gpuwhy::import {

// ChromeId: a pid/tid/id field. num is set when the JSON gave an integer or a
// string holding only an integer ("19147"); str holds the text of any string
// ("CPU functions", "19147").
struct ChromeId {
  int64_t num = kMissingI64;
  std::string_view str;
  bool present = false;
};

// ChromeArg: one key of an event's args. For a string value `text` is the
// unescaped string (is_string true); for any other value, its raw JSON text.
struct ChromeArg {
  std::string_view key;
  std::string_view text;
  bool is_string = false;
};

// ChromeEvent: one element of the events array, as views into the document.
struct ChromeEvent {
  uint64_t index = 0;  // position in the events array (0-based)
  std::string_view ph, cat, name, bp;
  ChromeId pid, tid, id;
  // ts_ns / dur_ns: the value read as µs (the Trace Event Format's unit),
  // converted exactly to ns; kMissingI64 when absent or not a number
  // (ts_bad / dur_bad then say it was present but unusable).
  int64_t ts_ns = kMissingI64, dur_ns = kMissingI64;
  bool ts_bad = false, dur_bad = false;
  // ts_text / dur_text: the number as written (without quotes), for
  // dialects that decide the unit from the data.
  std::string_view ts_text, dur_text;
  bool has_args = false;
  bool args_bad = false;  // "args" present but not an object
  std::span<const ChromeArg> args;

  // Arg: the arg named `key`, or nullptr.
  const ChromeArg* Arg(std::string_view key) const;
  // ArgText: its text ("" when absent).
  std::string_view ArgText(std::string_view key) const;
  // ArgInt: its value when it is an integer or a string holding one, else
  // kMissingI64.
  int64_t ArgInt(std::string_view key) const;
};

// ChromeDocument: what the tokenizer saw around the events (and, in
// `segments`, how many parallel segments it merged; 0: one thread).
struct ChromeDocument {
  bool array_form = false;           // top-level array (no traceEvents object)
  std::string display_time_unit;     // "ns" / "ms" when the object says so
  std::vector<std::string> top_keys; // keys of the top-level object, in order
  uint64_t events = 0;               // elements of the events array
  uint64_t json_bytes = 0;           // decompressed bytes parsed
  uint64_t segments = 0;
};

// ChromeEventFn: called once per object element of the events array, in
// file order, never concurrently.
using ChromeEventFn = std::function<void(const ChromeEvent&)>;

// ChromeSegmentMapper: a dialect's mapping of one segment of the events
// array: Event is called for each of the segment's events in file order on
// one worker thread (ChromeEvent::index then counts within the segment). It
// owns everything it fills, touching nothing shared. Reset readies it for
// another segment, keeping its buffers' capacity (fresh buffers per segment
// cost the import about a third of its time in page faults).
class ChromeSegmentMapper {
 public:
  virtual ~ChromeSegmentMapper() = default;
  virtual void Event(const ChromeEvent& ev) = 0;
  virtual void Reset() = 0;
};

// ChromeMapping: a dialect's mapping of a whole document, in one of two ways
// that must give the same result: Event for each event in file order (one
// thread, or what follows a segment cut the reader could not verify), or,
// per segment, NewSegment (on the segment's worker; it must not read what
// Merge changes) and then Merge (on the reader's thread, segments in file
// order, as if the segment's events had come to Event here at that point).
// `growth` for Merge: what to give Trace::AppendEventsFrom (the tables'
// projected growth, so that merged rows are not copied by doubling).
class ChromeMapping {
 public:
  virtual ~ChromeMapping() = default;
  virtual void Event(const ChromeEvent& ev) = 0;
  virtual std::unique_ptr<ChromeSegmentMapper> NewSegment() const = 0;
  virtual void Merge(ChromeSegmentMapper& segment, double growth) = 0;
};

// ResetChromePart: empty `part` (a segment mapper's trace) for the next
// segment, keeping its event tables' capacity.
void ResetChromePart(model::Trace& part);

// ChromePartMapping<Mapper>: the ChromeMapping of a dialect whose one Mapper
// class maps a whole document over the trace or one segment over its own
// part. Mapper provides: Mapper(model::Trace&); Event(const ChromeEvent&);
// Clear() (forget what it saw, keeping buffers); Absorb(Mapper& later,
// double growth) (fold in a segment that follows it in the file; growth for
// Trace::AppendEventsFrom); Finish(path, doc).
template <class Mapper>
class ChromePartMapping final : public ChromeMapping {
 public:
  explicit ChromePartMapping(model::Trace& t) : mapper_(t) {}
  void Event(const ChromeEvent& ev) override { mapper_.Event(ev); }
  std::unique_ptr<ChromeSegmentMapper> NewSegment() const override {
    return std::make_unique<Segment>();
  }
  void Merge(ChromeSegmentMapper& seg, double growth) override {
    mapper_.Absorb(static_cast<Segment&>(seg).mapper, growth);
  }
  Mapper& mapper() { return mapper_; }

 private:
  struct Segment final : ChromeSegmentMapper {
    model::Trace part;
    Mapper mapper{part};
    void Event(const ChromeEvent& ev) override { mapper.Event(ev); }
    void Reset() override {
      ResetChromePart(part);
      mapper.Clear();
    }
  };
  Mapper mapper_;
};

// ChromeNames: a document's process_name and thread_name metadata, by pid and
// by (pid, tid); a name given later replaces an earlier one.
struct ChromeNames {
  std::map<int64_t, std::string> process;
  std::map<std::pair<int64_t, int64_t>, std::string> thread;
  // Note: take args.name of `ev` when it is a process_name (with a pid) or
  // thread_name (with a pid and a tid) event.
  void Note(const ChromeEvent& ev);
  // Absorb: the names of a later stretch of the document (a segment's),
  // moved in.
  void Absorb(ChromeNames& later);
  void Clear() {
    process.clear();
    thread.clear();
  }
};

// ChromeLaneHash: hash of a (pid, tid) line, for std::unordered_map (whose
// prime bucket count needs no mixing beyond the multiplies).
struct ChromeLaneHash {
  size_t operator()(const std::pair<int64_t, int64_t>& k) const {
    return static_cast<size_t>((static_cast<uint64_t>(k.first) * 0x9E3779B97F4A7C15ull) ^
                               (static_cast<uint64_t>(k.second) * 0xBF58476D1CE4E5B9ull));
  }
};

// ChromeReadOptions: how the events array is read (tests set small segments
// to exercise the merge; 0: the defaults).
struct ChromeReadOptions {
  int threads = 0;           // events-array parsers (0: one per core, at most 4; 1: no segments)
  size_t segment_bytes = 0;  // bytes per parallel segment (0: 1 MiB)
  size_t chunk_bytes = 0;    // bytes read per refill (0: 1 MiB)
};

// ReadChromeTrace: parse the whole of `in` as a Chrome trace, calling `fn`
// for each event object in file order; non-object elements bump
// stats.malformed_event. On error returns one Status (path + byte offset).
// `grow` (optional): the trace the mapping fills; after 32 MiB of JSON its
// event tables are sized for the whole input (Trace::ReserveForGrowth, from
// the share read so far), as Kineto's are, so they are not copied by doubling.
// `threads`: events-array parsers (0: one per core, at most 4; 1: no
// segments); the events, their order and the counters are the same for any.
Status ReadChromeTrace(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                       const ChromeEventFn& fn, model::Trace* grow = nullptr, int threads = 0);

// ReadChromeTrace (mapping form): as above, but on threads each segment's
// events are mapped on its worker (ChromeMapping::NewSegment) and merged in
// file order, so the mapping runs in parallel as well as the parse.
Status ReadChromeTrace(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                       ChromeMapping& mapping, model::Trace* grow = nullptr,
                       const ChromeReadOptions& options = {});

// ReadChromeDialect<Mapper>: import `in` into `trace` (empty) with a
// ChromePartMapping<Mapper>, then Mapper::Finish.
template <class Mapper>
Status ReadChromeDialect(InputStream& in, model::Trace& trace, const ChromeReadOptions& options) {
  ChromePartMapping<Mapper> m(trace);
  ChromeDocument doc;
  RETURN_IF_ERROR(ReadChromeTrace(in, trace.stats, &doc, m, &trace, options));
  return m.mapper().Finish(in.path(), doc);
}

// ChromeStreamOptions: how dialects open their input: read-ahead on (gzip
// is inflated on its own thread, as for Kineto).
InputStreamOptions ChromeStreamOptions();

// ChromeTraceHead: for sniffers: the first non-whitespace byte of `prefix`
// ('{' or '['; 0 when neither), after an optional UTF-8 byte-order mark.
char ChromeTraceHead(std::string_view prefix);

// MicrosTextToNs: convert the decimal text of a µs value ("1713738903328187",
// "12.345", "0.0005", "1.5e3") to int64 ns exactly: integer part * 1000 plus
// up to three fraction digits, rounding half away from zero beyond that (no
// lossy double for plain decimals). False when the text is not a number or
// overflows.
bool MicrosTextToNs(std::string_view text, int64_t* ns);

// FastDecimal: the JSON number text `t` when it is "d+" or "d+.d+",
// optionally negative, of at most 15 digits: the same double, bit for bit, as
// std::from_chars (correctly rounded). False, *out untouched, for any other
// text (exponents, more digits, a bare '.'), which callers parse in full.
bool FastDecimal(std::string_view t, double* out);

}  // namespace gpuwhy::import
