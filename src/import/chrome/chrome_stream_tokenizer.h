// The Chrome Trace Event tokenizer: one streaming reader of Chrome trace
// JSON under every dialect (Kineto in import/kineto, the legacy PyTorch, JAX
// and rocprof/RPD mappings in import/chrome), the way Perfetto splits
// json_trace_tokenizer from its parser. Internal to those dialects; the
// event-at-a-time interface for mappings is chrome_trace_tokenizer.h.
//
// Contract: reads `{"traceEvents": [...], ...}` (top-level keys in any order)
// and, where the dialect accepts it, a top-level array `[...]`, from any
// InputStream (plain or gzip). It streams: it holds one input chunk plus the
// event being parsed (or, on threads, a few 1 MiB segments), never the
// document. Each element of the events array is parsed into a RawEvent (the
// standard fields as views, the dialect's args record) and handed to the
// dialect's Commit; elements that are not objects are counted by the dialect
// (Malformed). With threads > 1 the array is cut into segments at event
// boundaries, parsed by segment-local dialect instances (D(in, Segment&)) and
// merged in file order by MergeSegment; dialects make that merge give exactly
// what one thread would. Container problems are one Status with the path and
// the decompressed byte offset (truncation: the offset of the first missing
// byte).
//
// The dialect D derives from ChromeStreamTokenizer<D> (CRTP, so the per-event
// hooks inline) and provides:
//   (A, S: the args record, trivially copyable, and the segment state)
//   static constexpr bool kArrayForm, kStringNumbers, kTimeText, kSkipBom;
//   D(InputStream&, Segment&);         a segment's parser
//   static void ResetSegment(Segment&); void SegmentDone(Segment&);
//   optional: void InheritFrom(D& reader) (a segment parser, on its worker);
//   void MergeSegment(Segment&, uint64_t end_offset);
//   Lex ParseArgs(const char*& p, const char* end, Args*, int ctx); void BadArgs(Args*);
//   void Commit(RawEvent&); void Malformed();
//   model::Trace* GrowTarget();  (the tables to size for the whole input; null: none)
//   Status TopLevelValue(const std::string& key, char first, uint64_t at);
//   Status ArrayTop();  (kArrayForm false: why the array is refused)
//   Status NoTraceEvents(); Status Done();
#pragma once

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "base/input_stream.h"
#include "base/status.h"
#include "base/thread_priority.h"
#include "import/chrome/chrome_lexer.h"
#include "model/trace.h"

namespace gpuwhy::import::chrome_lex {

// ChromeRawEvent: one trace event as parsed (views valid until the next
// refill, or in a segment until it is merged). A: the dialect's args record.
template <typename A>
struct ChromeRawEvent {
  std::string_view ph, cat, name;
  int64_t pid = kMissingI64, tid = kMissingI64;
  int64_t id = kMissingI64;  // flow events
  std::string_view tid_str;
  int64_t ts_ns = kMissingI64, dur_ns = kMissingI64;
  bool ts_bad = false, dur_bad = false, has_args = false;
  const char* args_begin = nullptr;
  const char* args_end = nullptr;
  A args;
};

// ResetEvent: *ev = T(), as one block copy of an empty event in 16-byte
// moves. Assigning a fresh event stored its ~60 fields one by one (about
// 160 instructions an event); memcpy became `rep movsq`, whose start-up took
// a quarter of ParseEvents' cycles. The moves are written out (no loop), as
// GCC turns a copy loop back into `rep movsq`.
template <size_t... I>
[[gnu::always_inline]] inline void CopyBlocks(char* dst, const char* src, std::index_sequence<I...>) {
#if defined(__SSE2__)
  (_mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16 * I),
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16 * I))),
   ...);
#else
  std::memcpy(dst, src, 16 * sizeof...(I));
#endif
}
template <typename T>
inline const T kEmptyRawEvent{};
template <typename T>
[[gnu::always_inline]] inline void ResetEvent(T* ev) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr size_t kBlocks = sizeof(T) / 16;
  auto* dst = reinterpret_cast<char*>(ev);
  const auto* src = reinterpret_cast<const char*>(&kEmptyRawEvent<T>);
  CopyBlocks(dst, src, std::make_index_sequence<kBlocks>());
  if constexpr (sizeof(T) % 16 != 0)
    std::memcpy(dst + kBlocks * 16, src + kBlocks * 16, sizeof(T) % 16);
}

// ---- The streaming document parser ----

// ArrayState: where the traceEvents loop stands. kElemOrEnd and kElem parse
// alike ("[]" and a trailing comma are both accepted); kCommaOrEnd follows an
// element.
enum class ArrayState : uint8_t { kElemOrEnd, kElem, kCommaOrEnd };

// SegmentEnd: how a segment parse stopped. kBoundary: at the segment's end,
// between elements (so the next segment starts at an element). kArrayEnd: at
// the ']' closing traceEvents. kUnverified: elsewhere (an element ran past the
// cut, which was then no boundary). kTruncated: the stream's last segment
// ended inside the array.
enum class SegmentEnd : uint8_t { kBoundary, kArrayEnd, kUnverified, kTruncated };

// SegmentJob: one stretch of traceEvents, parsed by a worker into `seg`
// (the dialect's segment state).
template <typename Seg>
struct SegmentJob {
  // JSON in bytes[begin, len), then kPad zero bytes. Bytes before begin are
  // no part of it (room a stream block left for the previous segment's tail).
  std::vector<char> bytes;
  size_t begin = 0;
  size_t len = 0;
  // Decompressed offset of bytes[0], modulo 2^64 (below the stream's start
  // when begin is): offsets are base + index.
  uint64_t base = 0;
  bool final = false;  // ends where the stream ends
  // Written by the worker.
  Seg seg;
  Status status;
  SegmentEnd end = SegmentEnd::kUnverified;
  ArrayState end_state = ArrayState::kElem;
  size_t end_pos = 0;  // where the parse stopped, in bytes
  uint64_t events = 0, bad_utf8 = 0;
  bool done = false;                      // guarded by the pool's mutex
};

// AutoParseThreads: the parser count when none is asked for (threads = 0).
// One thread per core, at most
// 4: measured on a 16-core machine (docs/performance.md), the 10x import
// stopped gaining past 4-6 parsers (the reader, the merge and inflate are one
// thread each) while each parser's segments in flight add memory (8 parsers
// peaked at 204 MB at 10x, 4 at 174-178 MB).
inline int AutoParseThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores >= 4 ? 4 : (cores >= 2 ? static_cast<int>(cores) : 1);
}


// ObjectText: what the general path says when an object's punctuation is wrong.
struct ObjectText {
  const char* comma_or_end;
  const char* key;
  const char* colon;
};
inline constexpr ObjectText kEventText{"expected ',' or '}' in a trace event",
                                "expected a string key in a trace event",
                                "expected ':' in a trace event"};
inline constexpr ObjectText kArgsText{"expected ',' or '}' in args", "expected a string key in args",
                               "expected ':' in args"};

// ---- Parallel traceEvents: segments cut at event boundaries ----

// SegmentPool: worker threads taking SegmentJobs in order of submission.
template <typename Job>
class SegmentPool {
 public:
  // Workers run a few nice steps below the calling thread. Why: the import is
  // a pipeline paced by inflate (its own thread) and the reader, which share
  // two cores with the parsers; at equal priority the parsers took the cores
  // while inflate waited, then idled for want of segments (10x: parsers idle
  // ~290 ms, the reader waiting for inflate ~190 ms of a 450 ms import).
  // Lower, they take what the feeding stages leave: 10x wall 0.564 -> 0.540 s
  // (5 interleaved runs; docs/performance.md).
  static constexpr int kWorkerNiceSteps = 5;
  template <typename Fn>
  SegmentPool(int workers, Fn fn) {
    for (int i = 0; i < workers; ++i)
      threads_.emplace_back([this, fn] {
        LowerCurrentThreadPriority(kWorkerNiceSteps);
        Loop(fn);
      });
  }
  ~SegmentPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void Submit(Job* job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job->done = false;
      todo_.push_back(job);
    }
    work_.notify_one();
  }
  // Done: whether `job` has been parsed (without waiting).
  bool Done(const Job* job) {
    std::lock_guard<std::mutex> lock(mu_);
    return job->done;
  }
  void Wait(const Job* job) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [job] { return job->done; });
  }

 private:
  template <typename Fn>
  void Loop(Fn fn) {
    for (;;) {
      Job* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_.wait(lock, [this] { return stop_ || !todo_.empty(); });
        if (stop_) return;  // jobs still queued are abandoned: the parse failed
        job = todo_.front();
        todo_.pop_front();
      }
      fn(*job);
      {
        std::lock_guard<std::mutex> lock(mu_);
        job->done = true;
      }
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<Job*> todo_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// FindCut: the last position b in [lo, len) that looks like the start of a
// traceEvents element after another: '{' then whitespace and '"', preceded by
// whitespace, ',' and whitespace after '}', all at or after `floor` (<= lo;
// the bytes before it are none of the text). A string may hold that text too,
// so the cut is checked later (SegmentEnd::kBoundary). 0 when none.
inline size_t FindCut(const char* s, size_t floor, size_t lo, size_t len) {
  size_t hi = len;
  while (hi > lo) {
    const void* hit = memrchr(s + lo, '{', hi - lo);
    if (hit == nullptr) return 0;
    size_t b = static_cast<size_t>(static_cast<const char*>(hit) - s);
    hi = b;
    size_t a = b + 1;
    while (a < len && IsWs(s[a])) ++a;
    if (a >= len || s[a] != '"') continue;
    size_t k = b;
    while (k > floor && IsWs(s[k - 1])) --k;
    if (k == floor || s[k - 1] != ',') continue;
    --k;
    while (k > floor && IsWs(s[k - 1])) --k;
    if (k == floor || s[k - 1] != '}') continue;
    return b;
  }
  return 0;
}

// EventKey: the trace-event keys the tokenizer reads.
// kEnd: no key, the event's '}' (the memo's SeparatorMemo::kEndKey).
enum class EventKey : uint8_t { kPh, kId, kTs, kCat, kDur, kPid, kTid, kName, kArgs, kOther, kBp, kEnd = 0xff };

// kSeen*: bits of a dialect's args.seen (kTimeText dialects): which id
// fields the event had, whatever their value.
inline constexpr uint8_t kSeenPid = 1, kSeenTid = 2, kSeenId = 4;

// Unquoted: the text of the value in [s, p), without a string's quotes.
inline std::string_view Unquoted(const char* s, const char* p) {
  std::string_view t(s, static_cast<size_t>(p - s));
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

// ChromeTokenizerOptions: how the document is read (KinetoOptions holds the
// same knobs for the Kineto dialect; see there for the measurements).
struct ChromeTokenizerOptions {
  size_t chunk_bytes = size_t{1} << 20;   // bytes requested from the stream per refill
  int threads = 0;                        // events-array parsers; 0: AutoParseThreads()
  size_t segment_bytes = size_t{1} << 20; // at least this much per parallel segment
  bool learn_repeats = true;              // replay repeated separators and integers
  // reserve_after_bytes: JSON bytes read before the dialect's tables
  // (GrowTarget) are sized for the whole input; 0: never.
  uint64_t reserve_after_bytes = uint64_t{32} << 20;
};

// HalfMemoryBytes: half the machine's physical memory, 0 when unknown. Read
// once: MergeGrowth asks for every merged segment, and sysconf(_SC_PHYS_PAGES)
// is a system call.
inline double HalfMemoryBytes() {
  static const double half = [] {
    const double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES));
    const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
    return pages > 0 && page_bytes > 0 ? pages * page_bytes / 2 : 0.0;
  }();
  return half;
}

// ChromeStreamTokenizer: the document driver, the traceEvents loop (one
// thread or segments on threads) and the per-event field parser; D is the
// dialect (see the file comment), A its args record, S its segment state.
template <class D, class A, class S>
class ChromeStreamTokenizer {
 public:
  using Job = SegmentJob<S>;

  ChromeStreamTokenizer(InputStream& in, const ChromeTokenizerOptions& o)
      : in_(in),
        chunk_(std::max<size_t>(o.chunk_bytes, 1)),
        threads_(o.threads != 0 ? o.threads : AutoParseThreads()),
        segment_bytes_(std::max<size_t>(o.segment_bytes, 1)),
        reserve_after_(o.reserve_after_bytes),
        learn_(o.learn_repeats) {}
  // Segment mode: a worker's parser over one SegmentJob (no stream reads).
  explicit ChromeStreamTokenizer(InputStream& in) : in_(in), chunk_(1), segment_mode_(true) {}

  // Run: the whole document; ends with the dialect's Done().
  Status Run();
  uint64_t events() const { return event_index_; }
  uint64_t bytes() const { return base_off_ + len_; }
  uint64_t segments() const { return segments_; }
  bool serial_fallback() const { return serial_fallback_; }
  // reserve_factor: the growth GrowTarget's tables were sized for (0: not).
  double reserve_factor() const { return reserve_factor_; }

  // DrainForGzipCause: a parse error on gzip input is often garbage that
  // corrupt deflate data decoded to; the gzip error found by reading on is
  // the true cause, and replaces `st` then.
  static Status DrainForGzipCause(InputStream& in, Status st) {
    if (st.ok() || !in.compressed() || st.message().find("gzip") != std::string::npos) return st;
    std::vector<char> sink(size_t{1} << 20);
    for (;;) {
      Result<size_t> got = in.Read(sink.data(), sink.size());
      if (!got.ok()) return got.status();
      if (*got == 0) return st;
    }
  }

 protected:
  using RawEvent = ChromeRawEvent<A>;
  D& d() { return static_cast<D&>(*this); }

  // Buffer management.
  Status Refill(const char* context);
  const char* Buf() const { return buf_.data(); }
  uint64_t OffsetOf(const char* p) const { return base_off_ + static_cast<uint64_t>(p - Buf()); }
  Status SyntaxError() const {
    return InvalidInput(fmt::format("{}: invalid JSON at byte {}: {}", in_.path(),
                                    OffsetOf(lex_.err_at), lex_.err_what));
  }
  Status ContainerError(uint64_t at, std::string_view what) const {
    return InvalidInput(fmt::format("{}: {} (at byte {})", in_.path(), what, at));
  }
  // Peek: make at least one non-whitespace byte available at pos_.
  Status Peek(const char* context, char* c);

  // EventsArray: the events array from pos_ (just after '['), on threads
  // when there are more than one; leaves pos_ after its ']'.
  Status EventsArray() {
    saw_events_ = true;
    return threads_ > 1 ? ParseEventsParallel() : ParseEvents(ArrayState::kElemOrEnd);
  }
  Status ParseEvents(ArrayState st);
  // ParseEventsParallel: traceEvents from pos_ (just after '[') on threads_
  // workers; leaves the parser after the array as ParseEvents does.
  Status ParseEventsParallel();
  // ParseSegment: run in a worker; parses job.bytes into job.seg.
  void ParseSegment(Job& job);
  // MergePart: append a parsed segment as if it had been parsed here.
  void MergePart(Job& job) {
    d().MergeSegment(job.seg, job.base + job.len);
    bad_utf8_total_ += job.bad_utf8;
    event_index_ += job.events;
    ++segments_;
  }
  Status SkipLargeValue();
  Status ParseDom(JVal* v, const char* context);

  // MaybeReserve: once, after reserve_after_bytes of JSON, size the
  // dialect's tables (GrowTarget) for the whole input from the share of it
  // read so far.
  void MaybeReserve(uint64_t parsed_bytes);
  // ProjectedGrowth: the input's JSON bytes in all / parsed_bytes, projected
  // from the stream's compressed and decompressed offsets; 0 when unknown.
  double ProjectedGrowth(uint64_t parsed_bytes) const;
  // FitsHalfMemory: the tables grown `growth` times stay within half the
  // machine's memory.
  bool FitsHalfMemory(double growth) const;
  // MergeGrowth: once the tables are sized, the growth that a table a merged
  // segment outgrows gets (the sizing point saw too few of its rows: a
  // trace's kernels and runtime calls often come after its CPU ops), so that
  // it is copied about once more instead of doubling, whose outgrown buffers
  // stay in the heap until the import ends; 0: plain doubling.
  double MergeGrowth(uint64_t parsed_bytes) const;
  // OnlyWhitespaceLeft: nothing but whitespace follows the top-level value.
  Status OnlyWhitespaceLeft(const char* what);
  // TopLevelValue: the value of a top-level key (traceEvents here, the rest
  // by the dialect).
  Status TopLevelValue(const std::string& key);

  // Events.
  Lex ParseEvent(const char*& p, const char* end, RawEvent* ev);
  // NextKey: the separator from p (just after '{' when `first`, else just
  // after a value) to the next value's first byte, naming its key in *k; or
  // past the object's '}', with *k = Key::kEnd. Replayed from `memo` after
  // `prev` in `ctx` when its bytes are at p, else read (Separator) and
  // learned; `prev` becomes the slot, null when the bytes were not kept (and
  // stays null: the memo is off for the rest of the object).
  template <typename Key, typename ReadKey>
  Lex NextKey(SeparatorMemo& memo, const SeparatorMemo::Slot*& prev, int ctx, bool first,
              const char*& p, const char* end, const ObjectText& text, ReadKey read_key, Key* k);
  // Separator: NextKey's general path; read_key(p, end, k) reads the key at
  // its opening quote.
  template <typename Key, typename ReadKey>
  Lex Separator(const char*& p, const char* end, bool first, const ObjectText& text,
                ReadKey read_key, Key* k);
  Lex IdValue(const char*& p, const char* end, int64_t* num, std::string_view* str);
  Lex TimeValue(const char*& p, const char* end, int64_t* ns, bool* bad);

  InputStream& in_;
  size_t chunk_;
  Lexer lex_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t base_off_ = 0;
  bool eof_ = false;
  uint64_t event_index_ = 0;
  uint64_t bad_utf8_total_ = 0;
  bool saw_events_ = false;
  bool array_form_ = false;  // the document is a top-level array of events

  int threads_ = 1;
  size_t segment_bytes_ = 0;
  StreamBlock block_;  // the parallel reader's spare buffer, swapped with each block read
  bool segment_mode_ = false;
  bool segment_final_ = false;
  SegmentEnd segment_end_ = SegmentEnd::kUnverified;
  ArrayState segment_state_ = ArrayState::kElem;
  uint64_t segments_ = 0;
  bool serial_fallback_ = false;
  uint64_t reserve_after_ = 0;
  bool reserved_ = false;
  double reserve_factor_ = 0;
  // Learned separators of events' keys and of their args' keys.
  bool learn_ = true;
  SeparatorMemo event_memo_, args_memo_;
  GapMemo gap_memo_;
  IntMemo pid_memo_, tid_memo_;
};

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::Refill(const char* context) {
  if (eof_) {
    return InvalidInput(fmt::format("{}: truncated JSON at byte {} ({})", in_.path(),
                                    base_off_ + len_, context));
  }
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    base_off_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  if (buf_.size() < len_ + chunk_ + kPad) buf_.resize(std::max(buf_.size() * 2, len_ + chunk_ + kPad));
  size_t got_total = 0;
  // Read until the request is met or the stream ends, so tiny test chunks still progress.
  while (got_total == 0) {
    Result<size_t> got = in_.Read(buf_.data() + len_, chunk_);
    if (!got.ok()) return got.status();
    if (*got == 0) {
      eof_ = true;
      break;
    }
    len_ += *got;
    got_total += *got;
  }
  std::memset(buf_.data() + len_, 0, kPad);
  return Status::Ok();
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::Peek(const char* context, char* c) {
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    if (SkipWs(p, end)) {
      pos_ = static_cast<size_t>(p - Buf());
      *c = *p;
      return Status::Ok();
    }
    pos_ = len_;
    RETURN_IF_ERROR(Refill(context));
  }
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::ParseDom(JVal* v, const char* context) {
  for (;;) {
    const char* p = Buf() + pos_;
    *v = JVal();
    Lex r = lex_.Dom(p, Buf() + len_, v, 0);
    if (r == Lex::kOk) {
      pos_ = static_cast<size_t>(p - Buf());
      return Status::Ok();
    }
    if (r == Lex::kError) return SyntaxError();
    RETURN_IF_ERROR(Refill(context));
  }
}

// SkipLargeValue: skip an unknown top-level value of any size with a byte
// state machine, so a huge unused array does not have to fit in the buffer.
template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::SkipLargeValue() {
  char c = 0;
  RETURN_IF_ERROR(Peek("inside a top-level value", &c));
  if (c != '{' && c != '[' && c != '"') {
    for (;;) {
      const char* p = Buf() + pos_;
      Lex r = lex_.Skip(p, Buf() + len_, 0);
      if (r == Lex::kOk) {
        pos_ = static_cast<size_t>(p - Buf());
        return Status::Ok();
      }
      if (r == Lex::kError) return SyntaxError();
      RETURN_IF_ERROR(Refill("inside a top-level value"));
    }
  }
  int depth = 0;
  bool in_str = false, escape = false;
  std::vector<char> stack;
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    for (; p < end; ++p) {
      char ch = *p;
      if (in_str) {
        if (escape) {
          escape = false;
        } else if (ch == '\\') {
          escape = true;
        } else if (ch == '"') {
          in_str = false;
          if (depth == 0) {
            pos_ = static_cast<size_t>(p + 1 - Buf());
            return Status::Ok();
          }
        }
        continue;
      }
      if (ch == '"') {
        in_str = true;
      } else if (ch == '{' || ch == '[') {
        if (++depth > kMaxDepth) return ContainerError(OffsetOf(p), "JSON nested too deeply");
        stack.push_back(ch == '{' ? '}' : ']');
      } else if (ch == '}' || ch == ']') {
        if (stack.empty() || stack.back() != ch)
          return InvalidInput(fmt::format("{}: invalid JSON at byte {}: mismatched '{}'",
                                          in_.path(), OffsetOf(p), ch));
        stack.pop_back();
        if (--depth == 0) {
          pos_ = static_cast<size_t>(p + 1 - Buf());
          return Status::Ok();
        }
      }
    }
    pos_ = len_;
    RETURN_IF_ERROR(Refill("inside a top-level value"));
  }
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::Run() {
  buf_.resize(chunk_ + kPad);
  char c = 0;
  if constexpr (D::kSkipBom) {
    // A UTF-8 byte-order mark before the JSON (Windows tools write one).
    while (!eof_ && len_ < 3) RETURN_IF_ERROR(Refill("the first bytes"));
    if (len_ >= 3 && std::memcmp(Buf(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  }
  {
    Status st = Peek("expected a JSON object", &c);
    if (!st.ok()) {
      if (!eof_) return st;  // a read or gzip error, not an empty document
      if (base_off_ + len_ == 0)
        return InvalidInput(in_.path() + ": empty input (no JSON object)");
      // Only whitespace.
      return InvalidInput(in_.path() + ": no JSON object (only whitespace)");
    }
  }
  if (c == '[') {
    if constexpr (!D::kArrayForm) {
      return d().ArrayTop();
    } else {
      ++pos_;
      array_form_ = true;
      RETURN_IF_ERROR(EventsArray());
      RETURN_IF_ERROR(OnlyWhitespaceLeft("array"));
      return d().Done();
    }
  }
  if (c != '{') return ContainerError(OffsetOf(Buf() + pos_), D::kNotObjectText);
  ++pos_;
  bool first = true;
  for (;;) {
    RETURN_IF_ERROR(Peek("inside the top-level object", &c));
    if (c == '}') {
      if (!first) {
        // A trailing comma before '}' is tolerated.
      }
      ++pos_;
      break;
    }
    if (c != '"') {
      lex_.Error(Buf() + pos_, "expected a string key in the top-level object");
      return SyntaxError();
    }
    std::string key;
    for (;;) {
      const char* p = Buf() + pos_;
      std::string_view sv;
      std::string tmp;
      Lex r = lex_.String(p, Buf() + len_, &sv, &tmp);
      if (r == Lex::kOk) {
        key.assign(sv);
        pos_ = static_cast<size_t>(p - Buf());
        break;
      }
      if (r == Lex::kError) return SyntaxError();
      RETURN_IF_ERROR(Refill("inside a top-level key"));
    }
    RETURN_IF_ERROR(Peek("after a top-level key", &c));
    if (c != ':') {
      lex_.Error(Buf() + pos_, "expected ':' after a top-level key");
      return SyntaxError();
    }
    ++pos_;
    RETURN_IF_ERROR(TopLevelValue(key));
    first = false;
    RETURN_IF_ERROR(Peek("inside the top-level object", &c));
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '}') {
      ++pos_;
      break;
    }
    lex_.Error(Buf() + pos_, "expected ',' or '}' in the top-level object");
    return SyntaxError();
  }
  RETURN_IF_ERROR(OnlyWhitespaceLeft("object"));
  if (!saw_events_) return d().NoTraceEvents();
  return d().Done();
}

template <class D, class A, class S>
double ChromeStreamTokenizer<D, A, S>::ProjectedGrowth(uint64_t parsed_bytes) const {
  const double parsed = static_cast<double>(parsed_bytes);
  const double raw_total = static_cast<double>(in_.raw_size());
  const double raw_done = static_cast<double>(in_.raw_offset());
  const double out_done = static_cast<double>(in_.offset());
  if (parsed <= 0 || raw_total <= 0 || raw_done <= 0 || out_done <= 0) return 0;
  // The stream's own ratio of JSON to file bytes so far (1 for plain files).
  return out_done * raw_total / raw_done / parsed;
}

template <class D, class A, class S>
bool ChromeStreamTokenizer<D, A, S>::FitsHalfMemory(double growth) const {
  // A guess past half the machine's memory is left to doubling: an input that
  // large fails either way, and a wrong guess must not fail one that fits.
  const double half = HalfMemoryBytes();
  const model::Trace* t = const_cast<D&>(static_cast<const D&>(*this)).GrowTarget();
  return half <= 0 || static_cast<double>(t->memory_bytes()) * growth <= half;
}

template <class D, class A, class S>
double ChromeStreamTokenizer<D, A, S>::MergeGrowth(uint64_t parsed_bytes) const {
  if (reserve_factor_ <= 0) return 0;  // not sized: plain doubling
  // Near the end (or where the projection runs short) a table still grows
  // by a quarter at a time, not by doubling.
  const double g = std::max(1.25, ProjectedGrowth(parsed_bytes) * 1.05);
  return FitsHalfMemory(g) ? g : 0;
}

template <class D, class A, class S>
void ChromeStreamTokenizer<D, A, S>::MaybeReserve(uint64_t parsed_bytes) {
  if (reserved_ || reserve_after_ == 0 || parsed_bytes < reserve_after_) return;
  reserved_ = true;
  model::Trace* t = d().GrowTarget();
  if (t == nullptr) return;
  const double factor = ProjectedGrowth(parsed_bytes);
  // Near the end doubling costs little; past it, the file grew or lied.
  if (factor < 1.25) return;
  if (!FitsHalfMemory(factor * 1.05)) return;
  try {
    t->ReserveForGrowth(factor * 1.05);
    reserve_factor_ = factor * 1.05;
  } catch (const std::bad_alloc&) {
    // Address space refused: the tables keep growing by doubling.
  }
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::OnlyWhitespaceLeft(const char* what) {
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    if (SkipWs(p, end))
      return ContainerError(OffsetOf(p), fmt::format("unexpected data after the top-level JSON {}", what));
    pos_ = len_;
    if (eof_) return Status::Ok();
    RETURN_IF_ERROR(Refill("after the top-level object"));
  }
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::TopLevelValue(const std::string& key) {
  char c = 0;
  RETURN_IF_ERROR(Peek("after a top-level key", &c));
  const uint64_t at = OffsetOf(Buf() + pos_);
  if (key == "traceEvents") {
    if (c != '[') return ContainerError(at, "traceEvents is not an array");
    ++pos_;
    return EventsArray();
  }
  return d().TopLevelValue(key, c, at);
}

template <class D, class A, class S>
void ChromeStreamTokenizer<D, A, S>::ParseSegment(Job& job) {
  D::ResetSegment(job.seg);
  D sub(in_, job.seg);
  // A dialect that maps events on the workers hands each segment parser
  // what it needs from the reader (read only, set before the workers start).
  if constexpr (requires(D& a, D& b) { a.InheritFrom(b); }) sub.InheritFrom(d());
  sub.learn_ = learn_;
  sub.buf_.swap(job.bytes);
  sub.pos_ = job.begin;
  sub.len_ = job.len;
  sub.base_off_ = job.base;
  sub.eof_ = true;
  sub.segment_final_ = job.final;
  try {
    job.status = sub.ParseEvents(ArrayState::kElem);
  } catch (const std::bad_alloc&) {
    job.status = InvalidInput(fmt::format("{}: out of memory parsing traceEvents at byte {}",
                                          in_.path(), job.base + job.begin));
  }
  sub.SegmentDone(job.seg);
  sub.buf_.swap(job.bytes);
  job.end = sub.segment_end_;
  job.end_state = sub.segment_state_;
  job.end_pos = sub.pos_;
  job.events = sub.event_index_;
  job.bad_utf8 = sub.bad_utf8_total_;
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::ParseEvents(ArrayState st) {
  using enum ArrayState;
  RawEvent ev;
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    // The bytes between two events (",", newlines and indents, "{") are
    // replayed as the last ones seen, like the separators in an event.
    const char* gap = nullptr;  // where the bytes after the last event began
    for (;;) {
      if (st == kCommaOrEnd) {
        if (gap_memo_.Matches(p, end)) {
          p += gap_memo_.len - 1;  // at '{'
          st = kElem;
        } else {
          gap = p;
        }
      }
      if (!SkipWs(p, end)) break;
      if (st == kCommaOrEnd) {
        if (*p == ',') {
          ++p;
          st = kElem;
          continue;
        }
        if (*p == ']') {
          pos_ = static_cast<size_t>(p + 1 - Buf());
          segment_end_ = SegmentEnd::kArrayEnd;
          return Status::Ok();
        }
        lex_.Error(p, "expected ',' or ']' in traceEvents");
        return SyntaxError();
      }
      if (*p == ']') {
        // "[]" ends here; "[..., ]" (a trailing comma) is tolerated.
        pos_ = static_cast<size_t>(p + 1 - Buf());
        segment_end_ = SegmentEnd::kArrayEnd;
        return Status::Ok();
      }
      const char* start = p;
      if (*p == '{') {
        if (gap != nullptr && learn_) {
          gap_memo_.Learn(gap, p + 1);
          gap = nullptr;
        }
        ResetEvent(&ev);
        lex_.ResetScratch();
        lex_.bad_utf8 = 0;  // counted per successful parse, not per retry
        Lex r = ParseEvent(p, end, &ev);
        if (r == Lex::kMore) {
          p = start;
          break;
        }
        if (r == Lex::kError) return SyntaxError();
        bad_utf8_total_ += lex_.bad_utf8;
        d().Commit(ev);
      } else {
        Lex r = lex_.Skip(p, end, 0);
        if (r == Lex::kMore) {
          p = start;
          break;
        }
        if (r == Lex::kError) return SyntaxError();
        d().Malformed();
      }
      ++event_index_;
      st = kCommaOrEnd;
    }
    pos_ = static_cast<size_t>(p - Buf());
    if (segment_mode_) {
      // The coordinator decides what the stop means (it knows the event
      // count before this segment, for the truncation message).
      segment_state_ = st;
      segment_end_ = segment_final_ ? SegmentEnd::kTruncated
                     : (st == kElem && pos_ == len_) ? SegmentEnd::kBoundary
                                                     : SegmentEnd::kUnverified;
      return Status::Ok();
    }
    if (eof_) {
      return InvalidInput(fmt::format("{}: truncated JSON at byte {} (inside traceEvents, after event {})",
                                      in_.path(), base_off_ + len_, event_index_));
    }
    MaybeReserve(OffsetOf(Buf() + pos_));
    RETURN_IF_ERROR(Refill("inside traceEvents"));
  }
}

template <class D, class A, class S>
Status ChromeStreamTokenizer<D, A, S>::ParseEventsParallel() {
  // The reader (this thread) cuts the decompressed stream into segments of
  // about segment_bytes_ that start at an element, workers parse them into
  // segment-local tables, and this thread merges them in file order. A
  // segment counts only when the one before it stopped exactly at its cut
  // (kBoundary); otherwise the rest is parsed here, on one thread.
  std::vector<std::unique_ptr<Job>> spare;
  auto take_job = [&]() -> std::unique_ptr<Job> {
    if (spare.empty()) return std::make_unique<Job>();
    std::unique_ptr<Job> j = std::move(spare.back());
    spare.pop_back();
    j->begin = 0;
    j->len = 0;
    j->final = false;
    return j;
  };
  auto room = [&](Job& j, size_t want) {
    // Sized once for a segment plus a read; only an element longer than a
    // segment grows it further (by doubling).
    if (j.bytes.size() < j.len + want + kPad)
      j.bytes.resize(std::max(j.len + want + kPad, j.len >= segment_bytes_ ? 2 * j.len : 0));
  };
  std::unique_ptr<Job> cur = take_job();
  cur->len = len_ - pos_;
  cur->base = OffsetOf(Buf() + pos_);
  room(*cur, segment_bytes_ + chunk_);
  std::memcpy(cur->bytes.data(), Buf() + pos_, cur->len);
  size_t searched = 0;  // cur bytes before this hold no cut
  bool reader_eof = eof_;
  Status read_error;

  // Hand everything not yet merged back to the one-thread parser: buf_ gets
  // `from`'s bytes from `at` on, then the later segments' and cur's.
  std::deque<std::unique_ptr<Job>> in_flight;
  std::unique_ptr<SegmentPool<Job>> pool;
  auto take_over = [&](Job& from, size_t at) {
    pool.reset();  // joins the workers; later segments are dropped
    size_t total = from.len - at + cur->len - cur->begin;
    for (const auto& j : in_flight) total += (j.get() == &from) ? 0 : j->len - j->begin;
    std::vector<char> b(total + chunk_ + kPad);
    size_t n = 0;
    auto put = [&](const Job& j, size_t off) {
      std::memcpy(b.data() + n, j.bytes.data() + off, j.len - off);
      n += j.len - off;
    };
    put(from, at);
    for (const auto& j : in_flight)
      if (j.get() != &from) put(*j, j->begin);
    put(*cur, cur->begin);
    std::memset(b.data() + n, 0, kPad);
    buf_.swap(b);
    base_off_ = from.base + at;
    pos_ = 0;
    len_ = n;
    eof_ = reader_eof;
  };

  for (;;) {
    // Merge finished segments in order; wait for the oldest when enough are
    // queued (memory stays bounded) or when nothing is left to read.
    while (!in_flight.empty()) {
      Job& head = *in_flight.front();
      const bool must = in_flight.size() >= static_cast<size_t>(2 * threads_) || reader_eof ||
                        !read_error.ok();
      if (!must && !pool->Done(&head)) break;
      pool->Wait(&head);
      if (!head.status.ok()) return head.status;
      MergePart(head);
      switch (head.end) {
        case SegmentEnd::kBoundary:
          MaybeReserve(head.base + head.len);
          spare.push_back(std::move(in_flight.front()));
          in_flight.pop_front();
          continue;
        case SegmentEnd::kTruncated:
          return InvalidInput(fmt::format("{}: truncated JSON at byte {} (inside traceEvents, after event {})",
                                          in_.path(), head.base + head.len, event_index_));
        case SegmentEnd::kArrayEnd:
          take_over(head, head.end_pos);
          return Status::Ok();
        case SegmentEnd::kUnverified: {
          serial_fallback_ = true;
          ArrayState st = head.end_state;
          take_over(head, head.end_pos);
          return ParseEvents(st);
        }
      }
    }
    if (!read_error.ok()) return read_error;
    if (reader_eof) {
      if (pool == nullptr) {
        // The whole array fit in one segment: parse it here.
        buf_.swap(cur->bytes);
        base_off_ = cur->base;
        pos_ = cur->begin;
        len_ = cur->len;
        eof_ = true;
        return ParseEvents(ArrayState::kElem);
      }
      // The last segment; merging it ends the loop (a final segment stops at
      // ']', truncation or an error, never at a boundary).
      cur->final = true;
      in_flight.push_back(std::move(cur));
      pool->Submit(in_flight.back().get());
      cur = take_job();  // empty: take_over appends nothing from it
      continue;
    }
    // Read one chunk into cur. When cur holds only the last segment's tail,
    // the stream's next block becomes cur's buffer with the tail put in
    // front of it: a read-ahead stream hands over the buffer it inflated
    // into, so the bytes are not copied.
    size_t got = 0;
    const size_t tail = cur->len - cur->begin;
    if (tail <= kStreamBlockFront) {
      Status st = in_.ReadBlock(&block_, kStreamBlockFront, chunk_, kPad);
      if (!st.ok()) {
        read_error = st;
        if (pool == nullptr) return read_error;
        continue;
      }
      got = block_.end - block_.begin;
      if (got > 0) {
        const size_t at = block_.begin - tail;
        std::memcpy(block_.buf.data() + at, cur->bytes.data() + cur->begin, tail);
        cur->base = cur->base + cur->begin - at;
        cur->bytes.swap(block_.buf);  // the old buffer goes back with the next block
        cur->begin = at;
        cur->len = block_.end;
        searched = at;
      }
    } else {
      room(*cur, chunk_);
      Result<size_t> r = in_.Read(cur->bytes.data() + cur->len, chunk_);
      if (!r.ok()) {
        read_error = r.status();
        if (pool == nullptr) return read_error;
        continue;
      }
      got = *r;
      cur->len += got;
    }
    if (got == 0) {
      reader_eof = true;
      room(*cur, 0);
      std::memset(cur->bytes.data() + cur->len, 0, kPad);
      continue;
    }
    if (cur->len - cur->begin < segment_bytes_) continue;
    size_t cut = FindCut(cur->bytes.data(), cur->begin, searched, cur->len);
    if (cut == 0) {
      // One element longer than a segment: keep reading (a pattern may
      // straddle the end, so look at the last bytes again next time).
      searched = std::max(cur->begin, cur->len > 64 ? cur->len - 64 : 0);
      continue;
    }
    std::unique_ptr<Job> next = take_job();
    next->len = cur->len - cut;
    next->base = cur->base + cut;
    next->final = false;
    room(*next, 0);
    std::memcpy(next->bytes.data(), cur->bytes.data() + cut, next->len);
    cur->len = cut;
    cur->final = false;
    std::memset(cur->bytes.data() + cur->len, 0, kPad);
    searched = 0;
    if (pool == nullptr)
      pool = std::make_unique<SegmentPool<Job>>(threads_, [this](Job& j) { ParseSegment(j); });
    in_flight.push_back(std::move(cur));
    pool->Submit(in_flight.back().get());
    cur = std::move(next);
  }
}

template <class D, class A, class S>
Lex ChromeStreamTokenizer<D, A, S>::IdValue(const char*& p, const char* end, int64_t* num, std::string_view* str) {
  if (*p == '"') return lex_.String(p, end, str);
  if (*p == '-' || IsDigit(*p)) {
    bool ok = false;
    Lex r = lex_.Int(p, end, num, &ok);
    if (r == Lex::kOk && !ok) *num = kMissingI64;
    return r;
  }
  return lex_.Skip(p, end, 1);
}

template <class D, class A, class S>
Lex ChromeStreamTokenizer<D, A, S>::TimeValue(const char*& p, const char* end, int64_t* ns, bool* bad) {
  if (IsDigit(*p)) {
    // Fast path for "123" and "123.456": integer µs * 1000 + up to 3 fraction
    // digits; anything longer or stranger goes through MicrosTextToNs.
    const char* q = p;
    int64_t ip = 0;
    // Up to 16 digits: epoch µs (1.7e15) fit; the bound check keeps *1000 in int64.
    LeadingDigits(q, end, &ip);
    while (q < end && IsDigit(*q) && q - p < 16) ip = ip * 10 + (*q++ - '0');
    if (q == end) return Lex::kMore;
    int64_t frac = 0;
    bool simple = !IsNumChar(*q) && ip <= std::numeric_limits<int64_t>::max() / 1000 - 1;
    if (*q == '.') {
      const char* f = q + 1;
      int n = 0;
      while (f < end && IsDigit(*f) && n < 3) frac = frac * 10 + (*f++ - '0'), ++n;
      if (f == end) return Lex::kMore;
      if (n > 0 && !IsNumChar(*f) && ip <= std::numeric_limits<int64_t>::max() / 1000 - 1) {
        for (; n < 3; ++n) frac *= 10;
        simple = true;
        q = f;
      }
    }
    if (simple) {
      *ns = ip * 1000 + frac;
      p = q;
      return Lex::kOk;
    }
  }
  if (*p == '-' || IsDigit(*p)) {
    std::string_view t;
    Lex r = lex_.Number(p, end, &t);
    if (r != Lex::kOk) return r;
    if (!MicrosTextToNs(t, ns)) {
      *ns = kMissingI64;
      *bad = true;
    }
    return Lex::kOk;
  }
  if constexpr (D::kStringNumbers) {
    // Tools that write numbers as strings ("ts": "622109046136").
    if (*p == '"') {
      std::string_view t;
      Lex r = lex_.String(p, end, &t);
      if (r == Lex::kOk && !MicrosTextToNs(t, ns)) {
        *ns = kMissingI64;
        *bad = true;
      }
      return r;
    }
  }
  // A string or other value where a number belongs: drop the event later.
  *bad = true;
  return lex_.Skip(p, end, 1);
}


// KeyWord: the bytes of `text` (at most 8, its NUL left out) as a
// little-endian word.
template <size_t N>
inline constexpr uint64_t KeyWord(const char (&text)[N]) {
  static_assert(N - 1 <= 8);
  uint64_t w = 0;
  for (size_t i = 0; i + 1 < N; ++i) w |= static_cast<uint64_t>(static_cast<unsigned char>(text[i])) << (8 * i);
  return w;
}

// MatchEventKey: p at a key's opening quote. When the key is one the
// importer reads, written plainly (no escapes), moves p past its closing
// quote and returns it: one 8-byte load and a masked compare (the key with
// its closing quote is at most 5 bytes), where the general path searched
// for the quote, then compared the text. kOther leaves p alone.
inline EventKey MatchEventKey(const char*& p, const char* end) {
  if (end - p < 7) return EventKey::kOther;  // the longest match reads p[1..5]
  uint64_t w;
  std::memcpy(&w, p + 1, 8);  // within the buffers' kPad padding
  EventKey k = EventKey::kOther;
  // take: whether the bytes after the quote are `key` (its closing quote
  // included); if so, k is `as` and p moves past them.
  auto take = [&]<size_t N>(const char (&key)[N], EventKey as) {
    constexpr uint64_t kMask = (uint64_t{1} << (8 * (N - 1))) - 1;
    if ((w & kMask) != KeyWord(key)) return false;
    k = as;
    p += N;  // the opening quote and the key's N - 1 bytes
    return true;
  };
  switch (static_cast<char>(w & 0xff)) {
    case 'p': take("ph\"", EventKey::kPh) || take("pid\"", EventKey::kPid); break;
    case 't': take("ts\"", EventKey::kTs) || take("tid\"", EventKey::kTid); break;
    case 'i': take("id\"", EventKey::kId); break;
    case 'c': take("cat\"", EventKey::kCat); break;
    case 'd': take("dur\"", EventKey::kDur); break;
    case 'n': take("name\"", EventKey::kName); break;
    case 'a': take("args\"", EventKey::kArgs); break;
    default: break;
  }
  return k;
}

// ClassifyEventKey: the same for a key's decoded text (escapes, or a key the
// fast match does not know).
inline EventKey ClassifyEventKey(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (Eq(key, "ph")) return EventKey::kPh;
      if (Eq(key, "id")) return EventKey::kId;
      if (Eq(key, "ts")) return EventKey::kTs;
      if (Eq(key, "bp")) return EventKey::kBp;
      break;
    case 3:
      if (Eq(key, "cat")) return EventKey::kCat;
      if (Eq(key, "dur")) return EventKey::kDur;
      if (Eq(key, "pid")) return EventKey::kPid;
      if (Eq(key, "tid")) return EventKey::kTid;
      break;
    case 4:
      if (Eq(key, "name")) return EventKey::kName;
      if (Eq(key, "args")) return EventKey::kArgs;
      break;
    default:
      break;
  }
  return EventKey::kOther;
}

template <class D, class A, class S>
template <typename Key, typename ReadKey>
Lex ChromeStreamTokenizer<D, A, S>::Separator(const char*& p, const char* end, bool first, const ObjectText& text,
                            ReadKey read_key, Key* k) {
  if (!SkipWs(p, end)) return Lex::kMore;
  if (*p == '}') {
    ++p;
    *k = Key::kEnd;
    return Lex::kOk;
  }
  if (!first) {
    if (*p != ',') return lex_.Error(p, text.comma_or_end);
    ++p;
    if (!SkipWs(p, end)) return Lex::kMore;
  }
  if (*p != '"') return lex_.Error(p, text.key);
  Lex r = read_key(p, end, k);
  if (r != Lex::kOk) return r;
  if (!SkipWs(p, end)) return Lex::kMore;
  if (*p != ':') return lex_.Error(p, text.colon);
  ++p;
  if (!SkipWs(p, end)) return Lex::kMore;
  return Lex::kOk;
}

template <class D, class A, class S>
template <typename Key, typename ReadKey>
[[gnu::always_inline]] inline Lex ChromeStreamTokenizer<D, A, S>::NextKey(SeparatorMemo& memo,
                                                        const SeparatorMemo::Slot*& prev, int ctx,
                                                        bool first, const char*& p, const char* end,
                                                        const ObjectText& text, ReadKey read_key,
                                                        Key* k) {
  const SeparatorMemo::Slot* slot =
      prev != nullptr && end - p > static_cast<ptrdiff_t>(SeparatorMemo::kMaxLen)
          ? memo.Find(prev, ctx, p)
          : nullptr;
  if (slot != nullptr) {
    p += slot->len;
    *k = static_cast<Key>(slot->key);
  } else {
    const char* s = p;
    Lex r = Separator(p, end, first, text, read_key, k);
    if (r != Lex::kOk) return r;
    if (prev != nullptr) slot = memo.Learn(prev, ctx, s, p, static_cast<uint8_t>(*k));
  }
  prev = slot;
  return Lex::kOk;
}

template <class D, class A, class S>
Lex ChromeStreamTokenizer<D, A, S>::ParseEvent(const char*& p, const char* end, RawEvent* ev) {
  ++p;  // '{'
  bool first = true;
  // prev: the memo slot of the last separator (Start() at the start). Past a
  // separator the memo could not keep (null), it stays off for the rest of the event.
  const SeparatorMemo::Slot* prev = learn_ ? event_memo_.Start() : nullptr;
  int ctx = PhContext(ev->ph);
  const auto read_key = [this](const char*& q, const char* e, EventKey* key) {
    *key = MatchEventKey(q, e);
    if (*key != EventKey::kOther) return Lex::kOk;
    std::string_view text;
    Lex r = lex_.String(q, e, &text);
    if (r == Lex::kOk) *key = ClassifyEventKey(text);
    return r;
  };
  for (;;) {
    EventKey k;
    Lex r = NextKey(event_memo_, prev, ctx, first, p, end, kEventText, read_key, &k);
    if (r != Lex::kOk) return r;
    if (k == EventKey::kEnd) return Lex::kOk;
    first = false;
    switch (k) {
      case EventKey::kPh:
        r = *p == '"' ? lex_.String(p, end, &ev->ph) : lex_.Skip(p, end, 1);
        ctx = PhContext(ev->ph);
        break;
      case EventKey::kId: {  // flow id (ac2g: the correlation id)
        std::string_view str;
        r = IdValue(p, end, &ev->id, &str);
        if constexpr (D::kTimeText) ev->args.id_str = str, ev->args.seen |= kSeenId;
        break;
      }
      case EventKey::kTs:
        if constexpr (D::kTimeText) {
          const char* s = p;
          r = TimeValue(p, end, &ev->ts_ns, &ev->ts_bad);
          if (r == Lex::kOk) ev->args.ts_text = Unquoted(s, p);
        } else {
          r = TimeValue(p, end, &ev->ts_ns, &ev->ts_bad);
        }
        break;
      case EventKey::kCat:
        r = *p == '"' ? lex_.String(p, end, &ev->cat) : lex_.Skip(p, end, 1);
        break;
      case EventKey::kDur:
        if constexpr (D::kTimeText) {
          const char* s = p;
          r = TimeValue(p, end, &ev->dur_ns, &ev->dur_bad);
          if (r == Lex::kOk) ev->args.dur_text = Unquoted(s, p);
        } else {
          r = TimeValue(p, end, &ev->dur_ns, &ev->dur_bad);
        }
        break;
      case EventKey::kPid: {
        if constexpr (D::kTimeText) ev->args.seen |= kSeenPid;
        if (learn_ && pid_memo_.Take(p, end, &ev->pid)) break;
        const char* s = p;
        std::string_view str;
        r = IdValue(p, end, &ev->pid, &str);
        if (r == Lex::kOk && IsValid(ev->pid)) pid_memo_.Learn(s, p, ev->pid);
        if constexpr (D::kTimeText) ev->args.pid_str = str;
        break;
      }
      case EventKey::kTid: {
        if constexpr (D::kTimeText) ev->args.seen |= kSeenTid;
        if (learn_ && tid_memo_.Take(p, end, &ev->tid)) break;
        const char* s = p;
        r = IdValue(p, end, &ev->tid, &ev->tid_str);
        if (r == Lex::kOk && IsValid(ev->tid)) tid_memo_.Learn(s, p, ev->tid);
        break;
      }
      case EventKey::kName:
        r = *p == '"' ? lex_.String(p, end, &ev->name) : lex_.Skip(p, end, 1);
        break;
      case EventKey::kArgs:
        if (*p == '{') {
          ev->has_args = true;
          ev->args_begin = p;
          r = d().ParseArgs(p, end, &ev->args, CatContext(ev->cat));
          ev->args_end = p;
        } else {
          d().BadArgs(&ev->args);
          r = lex_.Skip(p, end, 1);
        }
        break;
      case EventKey::kBp:
        if constexpr (D::kTimeText) {
          r = *p == '"' ? lex_.String(p, end, &ev->args.bp) : lex_.Skip(p, end, 1);
          break;
        }
        [[fallthrough]];
      case EventKey::kOther:
      case EventKey::kEnd:
        r = lex_.SkipValue(p, end, 1);
        break;
    }
    if (r != Lex::kOk) return r;
  }
}
}  // namespace gpuwhy::import::chrome_lex
