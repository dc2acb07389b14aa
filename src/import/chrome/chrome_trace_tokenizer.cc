// The Chrome Trace Event tokenizer's event-at-a-time interface
// (chrome_trace_tokenizer.h): a dialect of the one streaming tokenizer
// (chrome_stream_tokenizer.h) that hands every event, as views of its fields
// and args, to a mapping callback.
#include "import/chrome/chrome_trace_tokenizer.h"

#include <charconv>
#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "import/chrome/chrome_stream_tokenizer.h"

namespace gpuwhy::import {

namespace {

using namespace chrome_lex;  // NOLINT(google-build-using-namespace)

std::string_view ChromeTrimWs(std::string_view t) {
  while (!t.empty() && IsWs(t.back())) t.remove_suffix(1);
  while (!t.empty() && IsWs(t.front())) t.remove_prefix(1);
  return t;
}

// ChromeParseInt: the whole of `t` as an integer (optional '-').
bool ChromeParseInt(std::string_view t, int64_t* out) {
  t = ChromeTrimWs(t);
  if (t.empty()) return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

// ChromeGenericArgs: the event-view dialect's part of a parsed event: the
// fields Kineto's mapping does not read, and where its args sit in the
// dialect's arg list.
struct ChromeGenericArgs {
  std::string_view bp, pid_str, id_str, ts_text, dur_text;
  uint32_t arg_begin = 0, arg_count = 0;
  uint8_t seen = 0;  // kSeen* bits
  bool bad = false;  // "args" was not an object
};

using ChromeParsed = ChromeRawEvent<ChromeGenericArgs>;

// ChromeSegment: a segment's events, kept until the merge hands them out.
// Their views point into the segment's bytes, which live until then, or
// into `strings` (decoded escapes).
struct ChromeSegment {
  std::vector<ChromeParsed> events;
  std::vector<uint64_t> index;  // each event's position in the segment's elements
  std::vector<ChromeArg> args;
  std::deque<std::string> strings;
  model::ImportStats stats;
  // Mapping form: the dialect's mapping of the segment's events (which are
  // then not kept above).
  std::unique_ptr<ChromeSegmentMapper> mapper;
};

// ChromeArgKey: args keys are not classified here; the key's text is kept.
enum class ChromeArgKey : uint8_t { kKey = 0, kEnd = 0xff };

class ChromeEventReader : public ChromeStreamTokenizer<ChromeEventReader, ChromeGenericArgs, ChromeSegment> {
  using Base = ChromeStreamTokenizer<ChromeEventReader, ChromeGenericArgs, ChromeSegment>;
  friend Base;

 public:
  static constexpr bool kArrayForm = true, kStringNumbers = true, kTimeText = true, kSkipBom = true;
  static constexpr const char* kNotObjectText =
      "not a Chrome trace (the top-level JSON value is neither an object nor an array)";

  ChromeEventReader(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                    const ChromeEventFn& fn, model::Trace* grow, const ChromeTokenizerOptions& o)
      : Base(in, o), stats_(&stats), doc_(doc), fn_(&fn), grow_(grow),
        args_(&own_args_) {}
  ChromeEventReader(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                    ChromeMapping& mapping, model::Trace* grow, const ChromeTokenizerOptions& o)
      : Base(in, o), stats_(&stats), doc_(doc), grow_(grow), mapping_(&mapping),
        args_(&own_args_) {}
  ChromeEventReader(InputStream& in, ChromeSegment& seg)
      : Base(in), stats_(&seg.stats), seg_(&seg), args_(&seg.args) {}
  // InheritFrom: a segment parser of a mapping reader maps its events itself.
  void InheritFrom(ChromeEventReader& reader) {
    if (reader.mapping_ != nullptr && seg_->mapper == nullptr) seg_->mapper = reader.mapping_->NewSegment();
  }

  static void ResetSegment(ChromeSegment& s) {
    s.events.clear();
    s.index.clear();
    s.args.clear();
    s.strings.clear();
    s.stats = model::ImportStats();
    if (s.mapper != nullptr) s.mapper->Reset();  // kept, with its buffers, for the next segment
  }
  void SegmentDone(ChromeSegment&) {}
  void MergeSegment(ChromeSegment& s, uint64_t end_offset) {
    stats_->Merge(s.stats);
    if (s.mapper != nullptr) {
      mapping_->Merge(*s.mapper, MergeGrowth(end_offset));
      return;
    }
    for (size_t i = 0; i < s.events.size(); ++i) Deliver(s.events[i], event_index_ + s.index[i], s.args);
  }

  Lex ParseArgs(const char*& p, const char* end, ChromeGenericArgs* a, int ctx) {
    ++p;  // '{'
    args_->resize(args_mark_);  // drop what an attempt that ran out of bytes added
    a->arg_begin = static_cast<uint32_t>(args_mark_);
    bool first = true;
    const SeparatorMemo::Slot* prev = learn_ ? args_memo_.Start() : nullptr;
    std::string_view key;
    bool decoded = false;
    const auto read_key = [this, &key, &decoded](const char*& q, const char* e, ChromeArgKey* k) {
      *k = ChromeArgKey::kKey;
      decoded = true;
      return lex_.String(q, e, &key);
    };
    for (;;) {
      ChromeArgKey k;
      const char* s = p;
      decoded = false;
      Lex r = NextKey(args_memo_, prev, ctx, first, p, end, kArgsText, read_key, &k);
      if (r != Lex::kOk) return r;
      if (k == ChromeArgKey::kEnd) break;
      first = false;
      if (!decoded) {
        // Replayed from the memo: its bytes hold the key plainly (no
        // backslash), between the first two quotes.
        const char* q0 = static_cast<const char*>(std::memchr(s, '"', static_cast<size_t>(p - s)));
        const char* q1 = static_cast<const char*>(std::memchr(q0 + 1, '"', static_cast<size_t>(p - q0 - 1)));
        key = std::string_view(q0 + 1, static_cast<size_t>(q1 - q0 - 1));
      }
      ChromeArg arg;
      arg.key = key;
      if (*p == '"') {
        r = lex_.String(p, end, &arg.text);
        arg.is_string = true;
      } else {
        const char* v = p;
        r = lex_.SkipValue(p, end, 2);
        arg.text = std::string_view(v, static_cast<size_t>(p - v));
      }
      if (r != Lex::kOk) return r;
      args_->push_back(arg);
    }
    a->arg_count = static_cast<uint32_t>(args_->size() - a->arg_begin);
    return Lex::kOk;
  }
  void BadArgs(ChromeGenericArgs* a) { a->bad = true; }

  void Commit(ChromeParsed& ev) {
    if (seg_ == nullptr) {
      Deliver(ev, event_index_, *args_);
      return;
    }
    if (seg_->mapper != nullptr) {
      // Mapped here, now: the views are still valid, nothing is kept.
      seg_->mapper->Event(View(ev, event_index_, *args_));
      return;
    }
    // Keep the event for the merge; decoded escapes live in the lexer's
    // scratch until the next event, so they are copied.
    for (std::string_view* v : {&ev.ph, &ev.cat, &ev.name, &ev.tid_str, &ev.args.bp,
                                &ev.args.pid_str, &ev.args.id_str})
      *v = Keep(*v);
    if (ev.has_args) {
      for (size_t i = ev.args.arg_begin; i < args_->size(); ++i) {
        (*args_)[i].key = Keep((*args_)[i].key);
        (*args_)[i].text = Keep((*args_)[i].text);
      }
      args_mark_ = args_->size();
    }
    seg_->events.push_back(ev);
    seg_->index.push_back(event_index_);
  }
  void Malformed() { stats_->Bump(model::ImportStat::malformed_event); }
  model::Trace* GrowTarget() { return grow_; }

  Status TopLevelValue(const std::string& key, char c, uint64_t) {
    doc_->top_keys.push_back(key);
    if (key == "displayTimeUnit" && c == '"') {
      JVal v;
      RETURN_IF_ERROR(ParseDom(&v, "inside a top-level value"));
      doc_->display_time_unit = v.text;
      return Status::Ok();
    }
    return SkipLargeValue();
  }
  Status ArrayTop() { return Status::Ok(); }  // arrays are read (kArrayForm)
  Status NoTraceEvents() const {
    return InvalidInput(in_.path() + ": JSON object has no traceEvents array (not a Chrome trace)");
  }
  Status Done() {
    doc_->array_form = array_form_;
    doc_->events = event_index_;
    doc_->json_bytes = bytes();
    doc_->segments = segments_;
    if (bad_utf8_total_ > 0) stats_->Bump(model::ImportStat::invalid_utf8, bad_utf8_total_);
    return Status::Ok();
  }

 private:
  // Keep: v, or a copy when it is not in the segment's bytes.
  std::string_view Keep(std::string_view v) {
    if (v.empty() || (v.data() >= Buf() && v.data() + v.size() <= Buf() + len_)) return v;
    return seg_->strings.emplace_back(v);
  }

  static ChromeId Id(int64_t num, std::string_view str, bool present) {
    ChromeId id;
    id.present = present;
    id.num = num;
    id.str = str;
    int64_t n = 0;
    if (!IsValid(num) && !str.empty() && ChromeParseInt(str, &n)) id.num = n;
    return id;
  }

  void Deliver(const ChromeParsed& ev, uint64_t index, const std::vector<ChromeArg>& args) {
    const ChromeEvent e = View(ev, index, args);
    if (mapping_ != nullptr) mapping_->Event(e);
    else (*fn_)(e);
  }

  static ChromeEvent View(const ChromeParsed& ev, uint64_t index, const std::vector<ChromeArg>& args) {
    ChromeEvent e;
    e.index = index;
    e.ph = ev.ph;
    e.cat = ev.cat;
    e.name = ev.name;
    e.bp = ev.args.bp;
    e.pid = Id(ev.pid, ev.args.pid_str, (ev.args.seen & kSeenPid) != 0);
    e.tid = Id(ev.tid, ev.tid_str, (ev.args.seen & kSeenTid) != 0);
    e.id = Id(ev.id, ev.args.id_str, (ev.args.seen & kSeenId) != 0);
    e.ts_ns = ev.ts_ns;
    e.dur_ns = ev.dur_ns;
    e.ts_bad = ev.ts_bad;
    e.dur_bad = ev.dur_bad;
    e.ts_text = ChromeTrimWs(ev.args.ts_text);
    e.dur_text = ChromeTrimWs(ev.args.dur_text);
    e.has_args = ev.has_args || ev.args.bad;
    e.args_bad = ev.args.bad;
    if (ev.has_args)
      e.args = std::span<const ChromeArg>(args.data() + ev.args.arg_begin, ev.args.arg_count);
    return e;
  }

  model::ImportStats* stats_;
  ChromeDocument* doc_ = nullptr;
  const ChromeEventFn* fn_ = nullptr;
  model::Trace* grow_ = nullptr;   // the mapping's tables, sized once for the input
  ChromeSegment* seg_ = nullptr;  // segment mode: where events are kept
  ChromeMapping* mapping_ = nullptr;  // mapping form (the reader only)
  std::vector<ChromeArg> own_args_;
  std::vector<ChromeArg>* args_;
  size_t args_mark_ = 0;  // args_ entries that belong to kept events
};

}  // namespace

const ChromeArg* ChromeEvent::Arg(std::string_view key) const {
  for (const ChromeArg& a : args)
    if (a.key == key) return &a;
  return nullptr;
}

std::string_view ChromeEvent::ArgText(std::string_view key) const {
  const ChromeArg* a = Arg(key);
  return a != nullptr ? a->text : std::string_view();
}

int64_t ChromeEvent::ArgInt(std::string_view key) const {
  const ChromeArg* a = Arg(key);
  int64_t v = 0;
  if (a == nullptr || !ChromeParseInt(a->text, &v)) return kMissingI64;
  return v;
}

void ResetChromePart(model::Trace& t) {
  t.strings = StringPool();
  t.info = model::TraceInfo();
  t.processes.clear();
  t.threads.clear();
  t.streams.clear();
  t.counters.clear();
  t.devices.clear();
  t.stats = model::ImportStats();
  t.ForEachEventTable([](auto& table) { table.Clear(); });
}

void ChromeNames::Note(const ChromeEvent& ev) {
  if (ev.name == "process_name" && IsValid(ev.pid.num)) {
    process[ev.pid.num] = std::string(ev.ArgText("name"));
  } else if (ev.name == "thread_name" && IsValid(ev.pid.num) && IsValid(ev.tid.num)) {
    thread[{ev.pid.num, ev.tid.num}] = std::string(ev.ArgText("name"));
  }
}

void ChromeNames::Absorb(ChromeNames& later) {
  for (auto& [pid, name] : later.process) process[pid] = std::move(name);
  for (auto& [key, name] : later.thread) thread[key] = std::move(name);
}

InputStreamOptions ChromeStreamOptions() {
  InputStreamOptions o;
  o.read_ahead = true;
  return o;
}

char ChromeTraceHead(std::string_view prefix) {
  size_t i = prefix.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < prefix.size() && IsWs(prefix[i])) ++i;
  if (i >= prefix.size()) return 0;
  return prefix[i] == '{' || prefix[i] == '[' ? prefix[i] : 0;
}

Status ReadChromeTrace(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                       const ChromeEventFn& fn, model::Trace* grow, int threads) {
  ChromeTokenizerOptions o;
  o.threads = threads;
  ChromeEventReader reader(in, stats, doc, fn, grow, o);
  return ChromeEventReader::DrainForGzipCause(in, reader.Run());
}

Status ReadChromeTrace(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                       ChromeMapping& mapping, model::Trace* grow, const ChromeReadOptions& options) {
  ChromeTokenizerOptions o;
  o.threads = options.threads;
  if (options.segment_bytes != 0) o.segment_bytes = options.segment_bytes;
  if (options.chunk_bytes != 0) o.chunk_bytes = options.chunk_bytes;
  ChromeEventReader reader(in, stats, doc, mapping, grow, o);
  return ChromeEventReader::DrainForGzipCause(in, reader.Run());
}

// Why: occupancy args ("0.3", "1.2", "2") are read per kernel, and
// from_chars cost ~1% of an import. m and 10^k (k <= 15) are exact doubles and
// IEEE division rounds correctly (Clinger's fast path).
bool FastDecimal(std::string_view t, double* out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  const bool neg = i == 1;
  uint64_t m = 0;
  int digits = 0, frac = 0;
  const size_t int_begin = i;
  for (; i < t.size() && IsDigit(t[i]); ++i, ++digits) m = m * 10 + static_cast<uint64_t>(t[i] - '0');
  if (i == int_begin) return false;
  if (i < t.size() && t[i] == '.') {
    const size_t frac_begin = ++i;
    for (; i < t.size() && IsDigit(t[i]); ++i, ++digits) m = m * 10 + static_cast<uint64_t>(t[i] - '0');
    frac = static_cast<int>(i - frac_begin);
    if (frac == 0) return false;
  }
  if (i != t.size() || digits > 15) return false;
  const double v = static_cast<double>(m) / kPow10[frac];
  *out = neg ? -v : v;
  return true;
}

bool MicrosTextToNs(std::string_view t, int64_t* ns) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
    neg = t[i] == '-';
    ++i;
  }
  uint64_t ip = 0;
  size_t int_digits = 0;
  while (i < t.size() && IsDigit(t[i])) {
    if (ip > 922'337'203'685'477ull) return false;  // ip*1000 would overflow int64
    ip = ip * 10 + static_cast<uint64_t>(t[i] - '0');
    ++i;
    ++int_digits;
  }
  uint64_t frac = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && IsDigit(t[i])) {
      if (frac_digits < 3) frac = frac * 10 + static_cast<uint64_t>(t[i] - '0');
      else if (frac_digits == 3) round_up = t[i] >= '5';
      ++frac_digits;
      ++i;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    // Rare exponent form: a double is as exact as the text allows here.
    std::string copy(t);
    char* endp = nullptr;
    long double v = std::strtold(copy.c_str(), &endp);
    if (endp != copy.c_str() + copy.size() || !std::isfinite(v)) return false;
    long double x = v * 1000.0L;
    if (x > 9.2e18L || x < -9.2e18L) return false;
    *ns = static_cast<int64_t>(std::llroundl(x));
    return true;
  }
  if (i != t.size()) return false;
  for (size_t k = frac_digits; k < 3; ++k) frac *= 10;
  uint64_t v = ip * 1000 + frac + (round_up ? 1 : 0);
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  *ns = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

}  // namespace gpuwhy::import
