#include "import/kineto/kineto_importer.h"

#include "import/chrome/chrome_dialects.h"
#include "import/chrome/chrome_stream_tokenizer.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

// The Kineto dialect of the Chrome Trace Event tokenizer
// (import/chrome/chrome_stream_tokenizer.h): Kineto's args record and its
// mapping into the model, the per-segment tables and their merge.

namespace gpuwhy::import {

namespace {

// The tokenizer's lexer and driver (SWAR helpers, Lexer, memos, RawEvent).
using namespace chrome_lex;  // NOLINT(google-build-using-namespace)
using model::ApiKind;
using model::CopyKind;
using model::ImportStat;
using model::MemoryKind;
using model::RangeKind;
using model::SyncKind;

// ---- One trace event, as parsed (views valid until the next refill) ----

struct Args {
  int64_t device = kMissingI64, stream = kMissingI64, correlation = kMissingI64;
  int64_t external_id = kMissingI64, cbid = kMissingI64, regs = kMissingI64, smem = kMissingI64;
  int64_t graph_id = kMissingI64, bytes = kMissingI64, from_device = kMissingI64;
  int64_t to_device = kMissingI64, wait_on_stream = kMissingI64, event_id = kMissingI64;
  int64_t in_nelems = kMissingI64, out_nelems = kMissingI64, group_size = kMissingI64;
  int64_t seq = kMissingI64;
  int32_t grid[3] = {kMissingI32, kMissingI32, kMissingI32};
  int32_t block[3] = {kMissingI32, kMissingI32, kMissingI32};
  float blocks_per_sm = kMissingF32, warps_per_sm = kMissingF32, occupancy = kMissingF32;
  bool inf_occupancy = false;
  bool has_collective = false;
  uint32_t bad_type = 0;
  std::string_view sync_kind, coll_name, dtype, pg_name, pg_desc, pg_ranks, meta_name, labels;
  // Raw JSON text of the recorded-shape args (record_shapes=True), kept verbatim.
  std::string_view input_dims, input_types, input_strides, concrete_inputs;
};

using RawEvent = ChromeRawEvent<Args>;

enum class Cat : uint8_t {
  kKernel, kMemcpy, kMemset, kRuntime, kDriver, kOtherApi, kSync, kCpuOp, kUserAnnotation,
  kGpuUserAnnotation, kPython, kUnknown,
};

Cat ClassifyCat(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (Eq(c, "kernel") || Eq(c, "Kernel")) return Cat::kKernel;
      if (Eq(c, "Memcpy")) return Cat::kMemcpy;
      if (Eq(c, "Memset")) return Cat::kMemset;
      if (Eq(c, "cpu_op")) return Cat::kCpuOp;
      break;
    case 7:
      if (Eq(c, "Runtime")) return Cat::kRuntime;
      break;
    case 8:
      if (Eq(c, "Operator")) return Cat::kCpuOp;
      break;
    case 9:
      if (Eq(c, "cuda_sync")) return Cat::kSync;
      break;
    case 10:
      if (Eq(c, "gpu_memcpy")) return Cat::kMemcpy;
      if (Eq(c, "gpu_memset")) return Cat::kMemset;
      break;
    case 11:
      if (Eq(c, "cuda_driver")) return Cat::kDriver;
      if (Eq(c, "xpu_runtime")) return Cat::kOtherApi;
      break;
    case 12:
      if (Eq(c, "cuda_runtime")) return Cat::kRuntime;
      break;
    case 15:
      if (Eq(c, "user_annotation")) return Cat::kUserAnnotation;
      if (Eq(c, "python_function")) return Cat::kPython;
      break;
    case 19:
      if (Eq(c, "gpu_user_annotation")) return Cat::kGpuUserAnnotation;
      if (Eq(c, "privateuse1_runtime")) return Cat::kOtherApi;
      break;
    default:
      break;
  }
  return Cat::kUnknown;
}

// ParseStepNumber: N of "ProfilerStep#N", or kMissingI32.
int32_t ParseStepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix)
    return kMissingI32;
  int32_t n = 0;
  auto [ptr, ec] = std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), n);
  if (ec != std::errc() || ptr != name.data() + name.size()) return kMissingI32;
  return n;
}

CopyKind ParseCopyKind(std::string_view k) {
  static constexpr std::pair<std::string_view, CopyKind> kKinds[] = {
      {"HtoD", CopyKind::kHtoD}, {"DtoH", CopyKind::kDtoH}, {"DtoD", CopyKind::kDtoD},
      {"HtoH", CopyKind::kHtoH}, {"PtoP", CopyKind::kPtoP}, {"HtoA", CopyKind::kHtoA},
      {"AtoH", CopyKind::kAtoH}, {"AtoA", CopyKind::kAtoA}, {"AtoD", CopyKind::kAtoD},
      {"DtoA", CopyKind::kDtoA}, {"HostToDevice", CopyKind::kHtoD},
      {"DeviceToHost", CopyKind::kDtoH}, {"DeviceToDevice", CopyKind::kDtoD},
      {"HostToHost", CopyKind::kHtoH}, {"PeerToPeer", CopyKind::kPtoP},
  };
  for (const auto& [text, kind] : kKinds)
    if (k == text) return kind;
  return CopyKind::kUnknown;
}

MemoryKind ParseMemoryKind(std::string_view k) {
  while (!k.empty() && k.front() == ' ') k.remove_prefix(1);
  while (!k.empty() && k.back() == ' ') k.remove_suffix(1);
  static constexpr std::pair<std::string_view, MemoryKind> kKinds[] = {
      {"Pageable", MemoryKind::kPageable},      {"Pinned", MemoryKind::kPinned},
      {"Device", MemoryKind::kDevice},          {"Array", MemoryKind::kArray},
      {"Managed", MemoryKind::kManaged},        {"Device Static", MemoryKind::kDeviceStatic},
      {"Managed Static", MemoryKind::kManagedStatic},
  };
  for (const auto& [text, kind] : kKinds)
    if (k == text) return kind;
  return MemoryKind::kUnknown;
}

// ParseMemcpyName: "Memcpy HtoD (Pageable -> Device)" into kinds; false when
// the name does not follow that pattern.
bool ParseMemcpyName(std::string_view name, CopyKind* kind, MemoryKind* src, MemoryKind* dst) {
  constexpr std::string_view kPrefix = "Memcpy ";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view rest = name.substr(kPrefix.size());
  size_t sp = rest.find(' ');
  *kind = ParseCopyKind(rest.substr(0, sp));
  if (sp != std::string_view::npos) {
    std::string_view paren = rest.substr(sp + 1);
    if (paren.size() >= 2 && paren.front() == '(' && paren.back() == ')') {
      paren = paren.substr(1, paren.size() - 2);
      size_t arrow = paren.find("->");
      if (arrow != std::string_view::npos) {
        *src = ParseMemoryKind(paren.substr(0, arrow));
        *dst = ParseMemoryKind(paren.substr(arrow + 2));
      }
    }
  }
  return *kind != CopyKind::kUnknown;
}

SyncKind ParseSyncKind(std::string_view k) {
  if (Eq(k, "Event Sync")) return SyncKind::kEventSynchronize;
  if (Eq(k, "Stream Wait Event")) return SyncKind::kStreamWaitEvent;
  if (Eq(k, "Stream Sync")) return SyncKind::kStreamSynchronize;
  if (Eq(k, "Context Sync")) return SyncKind::kContextSynchronize;
  return SyncKind::kUnknown;
}

// StreamFromTid: N of a legacy GPU tid string "stream N".
int64_t StreamFromTid(std::string_view t) {
  constexpr std::string_view kPrefix = "stream ";
  if (t.substr(0, kPrefix.size()) != kPrefix) return kMissingI64;
  t.remove_prefix(kPrefix.size());
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return kMissingI64;
  return v;
}

int32_t ToI32(int64_t v) {
  if (!IsValid(v) || v < std::numeric_limits<int32_t>::min() + 1 ||
      v > std::numeric_limits<int32_t>::max())
    return kMissingI32;
  return static_cast<int32_t>(v);
}

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() &&
           std::tolower(static_cast<unsigned char>(hay[i + j])) ==
               std::tolower(static_cast<unsigned char>(needle[j])))
      ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

enum class ArgKey : uint8_t;

// KinetoSegment: what a worker's Kineto parser leaves for the merge: the
// segment-local tables (`part`) and the side state Finish needs.
struct KinetoSegment {
  model::Trace part;
  int64_t min_ts_ns = std::numeric_limits<int64_t>::max();
  bool saw_hip = false, saw_cuda = false;
  std::vector<std::string> counter_keys;  // key of each part.counters series
};

ChromeTokenizerOptions KinetoTokenizerOptions(const KinetoOptions& o) {
  ChromeTokenizerOptions t;
  t.chunk_bytes = o.chunk_bytes;
  t.threads = o.threads;
  t.segment_bytes = o.segment_bytes;
  t.learn_repeats = o.learn_repeats;
  t.reserve_after_bytes = o.reserve_after_bytes;
  return t;
}

class KinetoParser : public ChromeStreamTokenizer<KinetoParser, Args, KinetoSegment> {
  using Base = ChromeStreamTokenizer<KinetoParser, Args, KinetoSegment>;
  friend Base;

 public:
  // The dialect's switches (chrome_stream_tokenizer.h): Kineto writes an
  // object, numbers as numbers, and no byte-order mark.
  static constexpr bool kArrayForm = false, kStringNumbers = false, kTimeText = false,
                        kSkipBom = false;
  static constexpr const char* kNotObjectText = "not a JSON object (a Kineto trace starts with '{')";

  KinetoParser(InputStream& in, const KinetoOptions& options, model::Trace& trace)
      : Base(in, KinetoTokenizerOptions(options)), trace_(trace) {}
  // Segment mode: a worker's parser over one segment (no stream reads).
  KinetoParser(InputStream& in, KinetoSegment& seg) : Base(in), trace_(seg.part) {}

  bool jax_layout() const { return jax_layout_; }

  // Tokenizer hooks.
  static void ResetSegment(KinetoSegment& seg);
  void SegmentDone(KinetoSegment& seg) {
    seg.min_ts_ns = min_ts_ns_;
    seg.saw_hip = saw_hip_;
    seg.saw_cuda = saw_cuda_;
    seg.counter_keys.assign(seg.part.counters.size(), std::string());
    for (const auto& [key, idx] : counter_index_) seg.counter_keys[idx] = key;
  }
  // MergeSegment: append a parsed segment to trace_ as if it had been parsed
  // here: string ids remapped in first-use order, side tables merged by the
  // rules CommitMetadata/CommitCounter apply event by event.
  void MergeSegment(KinetoSegment& seg, uint64_t end_offset);
  // ParseArgs: the args object at p; ctx: CatContext() of the event.
  Lex ParseArgs(const char*& p, const char* end, Args* a, int ctx);
  void BadArgs(Args* a) { ++a->bad_type; }
  void Commit(RawEvent& ev);
  void Malformed() { trace_.stats.Bump(ImportStat::malformed_event); }
  // GrowTarget: the tables the tokenizer sizes for the whole input.
  model::Trace* GrowTarget() { return &trace_; }
  Status TopLevelValue(const std::string& key, char c, uint64_t at);
  Status ArrayTop();
  Status NoTraceEvents() const {
    return InvalidInput(in_.path() + ": JSON object has no traceEvents array (not a Kineto trace)");
  }
  Status Done() {
    Finish();
    return UnmappedLayout();
  }

 private:
  Lex ArgValue(ArgKey k, const char*& p, const char* end, Args* a);
  Lex ArgInt(const char*& p, const char* end, int64_t* out, Args* a);
  Lex ArgIntRepeat(IntMemo& memo, const char*& p, const char* end, int64_t* out, Args* a);
  Lex ArgFloat(const char*& p, const char* end, float* out, bool* inf, Args* a);
  Lex ArgStr(const char*& p, const char* end, std::string_view* out, Args* a);
  // ArgRaw: skip one JSON value and keep its raw text (views the buffer).
  Lex ArgRaw(const char*& p, const char* end, std::string_view* out) {
    const char* s = p;
    Lex r = lex_.Skip(p, end, 2);
    if (r == Lex::kOk) *out = std::string_view(s, static_cast<size_t>(p - s));
    return r;
  }
  Lex ArgTriple(const char*& p, const char* end, int32_t* out, Args* a);

  void CommitComplete(RawEvent& ev);
  void CommitMetadata(const RawEvent& ev);
  void CommitCounter(const RawEvent& ev);
  void AddRange(const RawEvent& ev, RangeKind kind, int32_t step);
  void Finish();
  // UnmappedLayout: an error naming the layout when the trace holds no GPU
  // event gpuwhy maps but looks like a known layout that has them (JAX/XLA).
  Status UnmappedLayout() const;
  void ApplyDevices(const JVal& arr);
  void ApplyDistributed(const JVal& obj);

  model::Trace& trace_;

  int64_t base_time_ns_ = kMissingI64;
  bool saw_hip_ = false, saw_cuda_ = false;
  int64_t min_ts_ns_ = std::numeric_limits<int64_t>::max();
  std::map<std::string, size_t, std::less<>> counter_index_;
  std::string counter_key_;

  mutable bool jax_layout_ = false;  // UnmappedLayout found JAX/XLA device processes
  std::vector<StringId> remap_;
  IntMemo device_memo_, stream_memo_, cbid_memo_;
};

Status KinetoParser::ArrayTop() {
  // PyTorch's legacy autograd profiler (no Kineto) writes a bare array
  // whose events name their pid "CPU functions" / "CUDA functions".
  constexpr size_t kHead = 64 * 1024;
  while (!eof_ && len_ - pos_ < kHead) RETURN_IF_ERROR(Refill("the first events"));
  const std::string_view head(Buf() + pos_, std::min<size_t>(len_ - pos_, kHead));
  if (head.find("\"CPU functions\"") != std::string_view::npos ||
      head.find("\"CUDA functions\"") != std::string_view::npos)
    return ContainerError(OffsetOf(Buf() + pos_),
                          "a PyTorch legacy autograd-profiler trace (a top-level array, pid "
                          "\"CPU functions\"), not Kineto: the torch-legacy-json importer "
                          "reads it");
  return ContainerError(OffsetOf(Buf() + pos_),
                        "the top-level JSON value is an array (a Chrome trace in array form), "
                        "not a Kineto trace object");
}

Status KinetoParser::UnmappedLayout() const {
  // Unsupported is not empty: a Chrome trace whose GPU rows gpuwhy does not
  // map would read as "no GPU activity". JAX/XLA names its processes after
  // devices ("/device:GPU:0", "/device:TPU:0") and puts ops on their threads.
  if (trace_.kernels.size() + trace_.memcpys.size() + trace_.memsets.size() > 0) return Status::Ok();
  std::string devices;
  int count = 0;
  for (const model::Process& pr : trace_.processes) {
    const std::string_view name = trace_.Str(pr.name);
    if (name.find("/device:") == std::string_view::npos) continue;
    if (count++ < 2) devices += (devices.empty() ? "" : ", ") + std::string(name);
  }
  if (count == 0) return Status::Ok();
  jax_layout_ = true;
  return InvalidInput(in_.path() + ": a JAX/XLA profile (" + std::to_string(count) +
                      " device process" + (count == 1 ? "" : "es") + ": " + devices +
                      (count > 2 ? ", ..." : "") +
                      "), not Kineto: the jax-trace-json importer reads it");
}
Status KinetoParser::TopLevelValue(const std::string& key, char c, uint64_t at) {
  if (key == "deviceProperties" || key == "computeProperties") {
    if (c != '[') return ContainerError(at, key + " is not an array");
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside deviceProperties"));
    ApplyDevices(v);
    return Status::Ok();
  }
  if (key == "distributedInfo") {
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside distributedInfo"));
    if (v.type != JVal::kObj) return ContainerError(at, "distributedInfo is not an object");
    ApplyDistributed(v);
    return Status::Ok();
  }
  if (key == "baseTimeNanoseconds" || key == "schemaVersion" || key == "cupti_version" ||
      key == "cuda_runtime_version" || key == "cuda_driver_version" || key == "hostname") {
    if (c == '{' || c == '[') {
      trace_.stats.Bump(ImportStat::bad_field_type);
      return SkipLargeValue();
    }
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside a top-level value"));
    if (key == "baseTimeNanoseconds") {
      int64_t b = 0;
      if (v.type == JVal::kNum && ParseI64Text(v.text, &b)) {
        base_time_ns_ = b;
      } else {
        trace_.stats.Bump(ImportStat::bad_field_type);
      }
    } else if (key == "schemaVersion") {
      trace_.info.format_version = v.text;
    } else if (key == "cupti_version") {
      trace_.info.cupti_version = v.text;
    } else if (key == "cuda_runtime_version") {
      trace_.info.cuda_runtime_version = v.text;
    } else if (key == "cuda_driver_version") {
      trace_.info.cuda_driver_version = v.text;
    } else if (key == "hostname" && v.type == JVal::kStr) {
      trace_.rank.hostname = trace_.strings.Intern(v.text);
    }
    return Status::Ok();
  }
  // displayTimeUnit (a viewer hint), traceName, flags, logger buckets, ...
  if (key != "displayTimeUnit" && key != "traceName") trace_.stats.Bump(ImportStat::unknown_field);
  return SkipLargeValue();
}
// ResetSegment: empty a segment's trace for the next segment, keeping the event
// tables' capacity (a fresh string pool: its ids must start over).
void KinetoParser::ResetSegment(KinetoSegment& seg) {
  model::Trace& t = seg.part;
  t.strings = StringPool();
  t.info = model::TraceInfo();
  t.processes.clear();
  t.threads.clear();
  t.streams.clear();
  t.counters.clear();
  t.stats = model::ImportStats();
  t.ForEachEventTable([](auto& table) { table.Clear(); });  // capacity kept for the next segment
}
void KinetoParser::MergeSegment(KinetoSegment& job, uint64_t end_offset) {
  const model::Trace& part = job.part;
  // Interning the part's strings in its first-use order reproduces the
  // one-thread pool: the strings new here are exactly those first used in
  // this segment, in that order.
  trace_.strings.InternAll(part.strings, &remap_);
  trace_.AppendEventsFrom(part, remap_, MergeGrowth(end_offset));
  trace_.stats.Merge(part.stats);
  // processes and threads: first appearance sets the order, the last name
  // wins; streams: the first name wins (as CommitMetadata does).
  for (const model::Process& p : part.processes) {
    auto it = std::find_if(trace_.processes.begin(), trace_.processes.end(),
                           [&](const model::Process& q) { return q.pid == p.pid; });
    if (it != trace_.processes.end()) it->name = remap_[p.name];
    else trace_.processes.push_back({p.pid, remap_[p.name]});
  }
  for (const model::Thread& t : part.threads) {
    auto it = std::find_if(trace_.threads.begin(), trace_.threads.end(), [&](const model::Thread& q) {
      return q.pid == t.pid && q.tid == t.tid;
    });
    if (it != trace_.threads.end()) it->name = remap_[t.name];
    else trace_.threads.push_back({t.pid, t.tid, remap_[t.name]});
  }
  for (const model::Stream& s : part.streams) {
    bool known = std::any_of(trace_.streams.begin(), trace_.streams.end(), [&](const model::Stream& q) {
      return q.device_id == s.device_id && q.stream_id == s.stream_id;
    });
    if (known) continue;
    model::Stream m = s;
    m.name = remap_[s.name];
    trace_.streams.push_back(m);
  }
  for (size_t i = 0; i < part.counters.size(); ++i) {
    const model::CounterSeries& s = part.counters[i];
    auto it = counter_index_.find(job.counter_keys[i]);
    size_t idx;
    if (it == counter_index_.end()) {
      idx = trace_.counters.size();
      model::CounterSeries m;
      m.name = remap_[s.name];
      m.device_id = s.device_id;
      m.source = remap_[s.source];
      trace_.counters.push_back(std::move(m));
      counter_index_.emplace(job.counter_keys[i], idx);
    } else {
      idx = it->second;
    }
    model::CounterSeries& g = trace_.counters[idx];
    g.ts_ns.insert(g.ts_ns.end(), s.ts_ns.begin(), s.ts_ns.end());
    g.value.insert(g.value.end(), s.value.begin(), s.value.end());
  }
  model::TraceInfo& info = trace_.info;
  const model::TraceInfo& pi = part.info;
  info.ac2g_flow_ids.insert(info.ac2g_flow_ids.end(), pi.ac2g_flow_ids.begin(),
                            pi.ac2g_flow_ids.end());
  if (IsValid(pi.capture_start_ns))
    info.capture_start_ns = IsValid(info.capture_start_ns)
                                ? std::min(info.capture_start_ns, pi.capture_start_ns)
                                : pi.capture_start_ns;
  if (IsValid(pi.capture_end_ns))
    info.capture_end_ns = IsValid(info.capture_end_ns)
                              ? std::max(info.capture_end_ns, pi.capture_end_ns)
                              : pi.capture_end_ns;
  min_ts_ns_ = std::min(min_ts_ns_, job.min_ts_ns);
  saw_hip_ = saw_hip_ || job.saw_hip;
  saw_cuda_ = saw_cuda_ || job.saw_cuda;
}
Lex KinetoParser::ArgInt(const char*& p, const char* end, int64_t* out, Args* a) {
  if (*p == '-' || IsDigit(*p)) {
    bool ok = false;
    Lex r = lex_.Int(p, end, out, &ok);
    if (r == Lex::kOk && !ok) {
      *out = kMissingI64;
      ++a->bad_type;
    }
    return r;
  }
  if (*p == '"') {
    // ROCm traces write some numbers as strings ("bytes": "1024"): accept those.
    std::string_view t;
    Lex r = lex_.String(p, end, &t);
    if (r != Lex::kOk) return r;
    if (!ParseI64Text(t, out)) {
      *out = kMissingI64;
      ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p != 'n') ++a->bad_type;  // null is "missing", not a type error
  return lex_.Skip(p, end, 2);
}

Lex KinetoParser::ArgFloat(const char*& p, const char* end, float* out, bool* inf, Args* a) {
  if (*p == '-' || IsDigit(*p)) {
    std::string_view t;
    Lex r = lex_.Number(p, end, &t);
    if (r != Lex::kOk) return r;
    double d = 0;
    if (ParseF64Text(t, &d) && std::fabs(d) <= 3.0e38) {
      *out = static_cast<float>(d);
    } else {
      ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p == '"') {
    std::string_view s;
    Lex r = lex_.String(p, end, &s);
    if (r != Lex::kOk) return r;
    if (Eq(s, "inf") || Eq(s, "-inf") || Eq(s, "nan")) {
      *inf = true;
    } else {
      double d = 0;
      if (ParseF64Text(s, &d) && std::fabs(d) <= 3.0e38)
        *out = static_cast<float>(d);
      else
        ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p != 'n') ++a->bad_type;
  return lex_.Skip(p, end, 2);
}

Lex KinetoParser::ArgStr(const char*& p, const char* end, std::string_view* out, Args* a) {
  if (*p == '"') return lex_.String(p, end, out);
  // Keep a non-string value (e.g. a ranks array) as its JSON text.
  const char* s = p;
  Lex r = lex_.Skip(p, end, 2);
  if (r != Lex::kOk) return r;
  if (*s == '[' || *s == '{' || *s == '-' || IsDigit(*s))
    *out = std::string_view(s, static_cast<size_t>(p - s));
  else if (*s != 'n')
    ++a->bad_type;
  return Lex::kOk;
}

Lex KinetoParser::ArgTriple(const char*& p, const char* end, int32_t* out, Args* a) {
  if (*p != '[') {
    if (*p != 'n') ++a->bad_type;
    return lex_.Skip(p, end, 2);
  }
  ++p;
  for (int i = 0;; ++i) {
    if (!SkipWs(p, end)) return Lex::kMore;
    if (*p == ']') {
      ++p;
      return Lex::kOk;
    }
    if (*p == '-' || IsDigit(*p)) {
      int64_t v = 0;
      bool ok = false;
      Lex r = lex_.Int(p, end, &v, &ok);  // Number + ParseI64Text past its digit fast path
      if (r != Lex::kOk) return r;
      if (i < 3) out[i] = ok ? ToI32(v) : kMissingI32;
    } else {
      Lex r = lex_.Skip(p, end, 3);
      if (r != Lex::kOk) return r;
      ++a->bad_type;
    }
    if (!SkipWs(p, end)) return Lex::kMore;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == ']') {
      ++p;
      return Lex::kOk;
    }
    return lex_.Error(p, "expected ',' or ']'");
  }
}

// ArgKey: the args keys the importer reads; kEnd: the args' '}' (the memo's
// SeparatorMemo::kEndKey).
enum class ArgKey : uint8_t {
  kOther, kSeq, kCbid, kGrid, kName, kBlock, kBytes, kDtype, kDevice, kStream, kLabels,
  kGraphId, kToDevice, kInputDims, kInputType, kFromDevice, kGroupSize, kCorrelation,
  kExternalId, kWarpsPerSm, kSharedMemory, kBlocksPerSm, kInputStrides, kInMsgNelems,
  kSyncKind, kWaitOnStream, kOutMsgNelems, kConcreteInputs, kCollectiveName, kPgName,
  kPgRanks, kRegs, kWaitOnEventId, kOccupancy, kPgDesc, kEnd = 0xff,
};

ArgKey ClassifyArgKey(std::string_view k) {
  using enum ArgKey;
  switch (k.size()) {
    case 3:
      if (Eq(k, "Seq")) return kSeq;
      break;
    case 4:
      if (Eq(k, "cbid")) return kCbid;
      if (Eq(k, "grid")) return kGrid;
      if (Eq(k, "name")) return kName;
      break;
    case 5:
      if (Eq(k, "block")) return kBlock;
      if (Eq(k, "bytes")) return kBytes;
      if (Eq(k, "dtype")) return kDtype;
      break;
    case 6:
      if (Eq(k, "device")) return kDevice;
      if (Eq(k, "stream")) return kStream;
      if (Eq(k, "labels")) return kLabels;
      break;
    case 8:
      if (Eq(k, "graph id")) return kGraphId;
      if (Eq(k, "toDevice")) return kToDevice;
      break;
    case 10:
      if (Eq(k, "Input Dims")) return kInputDims;
      if (Eq(k, "Input type")) return kInputType;
      if (Eq(k, "fromDevice")) return kFromDevice;
      if (Eq(k, "Group size")) return kGroupSize;
      break;
    case 11:
      if (Eq(k, "correlation")) return kCorrelation;
      if (Eq(k, "External id") || Eq(k, "external id")) return kExternalId;
      break;
    case 12:
      if (Eq(k, "warps per SM")) return kWarpsPerSm;
      break;
    case 13:
      if (Eq(k, "shared memory")) return kSharedMemory;
      if (Eq(k, "blocks per SM")) return kBlocksPerSm;
      if (Eq(k, "Input Strides")) return kInputStrides;
      if (Eq(k, "In msg nelems")) return kInMsgNelems;
      break;
    case 14:
      if (Eq(k, "cuda_sync_kind")) return kSyncKind;
      if (Eq(k, "wait_on_stream")) return kWaitOnStream;
      if (Eq(k, "Out msg nelems")) return kOutMsgNelems;
      break;
    case 15:
      if (Eq(k, "Concrete Inputs")) return kConcreteInputs;
      if (Eq(k, "Collective name")) return kCollectiveName;
      break;
    case 18:
      if (Eq(k, "Process Group Name")) return kPgName;
      break;
    case 19:
      if (Eq(k, "Process Group Ranks")) return kPgRanks;
      break;
    case 20:
      if (Eq(k, "registers per thread")) return kRegs;
      break;
    case 21:
      if (Eq(k, "wait_on_cuda_event_id")) return kWaitOnEventId;
      break;
    case 25:
      if (Eq(k, "est. achieved occupancy %")) return kOccupancy;
      if (Eq(k, "Process Group Description")) return kPgDesc;
      break;
    default:
      break;
  }
  return kOther;
}

// ArgIntRepeat: ArgInt, replaying the field's last value when its digits
// are at p again (IntMemo).
Lex KinetoParser::ArgIntRepeat(IntMemo& memo, const char*& p, const char* end, int64_t* out, Args* a) {
  if (learn_ && memo.Take(p, end, out)) return Lex::kOk;
  const char* s = p;
  Lex r = ArgInt(p, end, out, a);
  if (r == Lex::kOk && IsValid(*out)) memo.Learn(s, p, *out);
  return r;
}

// ArgValue: the value of args key `k` at p.
Lex KinetoParser::ArgValue(ArgKey k, const char*& p, const char* end, Args* a) {
  using enum ArgKey;
  switch (k) {
    case kSeq: return ArgInt(p, end, &a->seq, a);
    case kCbid: return ArgIntRepeat(cbid_memo_, p, end, &a->cbid, a);
    case kGrid: return ArgTriple(p, end, a->grid, a);
    case kName: return ArgStr(p, end, &a->meta_name, a);
    case kBlock: return ArgTriple(p, end, a->block, a);
    case kBytes: return ArgInt(p, end, &a->bytes, a);
    case kDtype: return ArgStr(p, end, &a->dtype, a);
    case kDevice: return ArgIntRepeat(device_memo_, p, end, &a->device, a);
    case kStream: return ArgIntRepeat(stream_memo_, p, end, &a->stream, a);
    case kLabels: return ArgStr(p, end, &a->labels, a);
    case kGraphId: return ArgInt(p, end, &a->graph_id, a);
    case kToDevice: return ArgInt(p, end, &a->to_device, a);
    case kInputDims: return ArgRaw(p, end, &a->input_dims);
    case kInputType: return ArgRaw(p, end, &a->input_types);
    case kFromDevice: return ArgInt(p, end, &a->from_device, a);
    case kGroupSize:
      a->has_collective = true;
      return ArgInt(p, end, &a->group_size, a);
    case kCorrelation: return ArgInt(p, end, &a->correlation, a);
    case kExternalId: return ArgInt(p, end, &a->external_id, a);
    case kWarpsPerSm: return ArgFloat(p, end, &a->warps_per_sm, &a->inf_occupancy, a);
    case kSharedMemory: return ArgInt(p, end, &a->smem, a);
    case kBlocksPerSm: return ArgFloat(p, end, &a->blocks_per_sm, &a->inf_occupancy, a);
    case kInputStrides: return ArgRaw(p, end, &a->input_strides);
    case kInMsgNelems:
      a->has_collective = true;
      return ArgInt(p, end, &a->in_nelems, a);
    case kSyncKind: return ArgStr(p, end, &a->sync_kind, a);
    case kWaitOnStream: return ArgInt(p, end, &a->wait_on_stream, a);
    case kOutMsgNelems:
      a->has_collective = true;
      return ArgInt(p, end, &a->out_nelems, a);
    case kConcreteInputs: return ArgRaw(p, end, &a->concrete_inputs);
    case kCollectiveName:
      a->has_collective = true;
      return ArgStr(p, end, &a->coll_name, a);
    case kPgName: return ArgStr(p, end, &a->pg_name, a);
    case kPgRanks: return ArgStr(p, end, &a->pg_ranks, a);
    case kRegs: return ArgInt(p, end, &a->regs, a);
    case kWaitOnEventId: return ArgInt(p, end, &a->event_id, a);
    case kOccupancy: {
      bool dummy = false;
      return ArgFloat(p, end, &a->occupancy, &dummy, a);
    }
    case kPgDesc: return ArgStr(p, end, &a->pg_desc, a);
    case kOther:
    case kEnd:
      break;
  }
  return lex_.SkipValue(p, end, 2);
}

Lex KinetoParser::ParseArgs(const char*& p, const char* end, Args* a, int ctx) {
  ++p;  // '{'
  bool first = true;
  const SeparatorMemo::Slot* prev = learn_ ? args_memo_.Start() : nullptr;  // as in ParseEvent
  const auto read_key = [this](const char*& q, const char* e, ArgKey* key) {
    std::string_view text;
    Lex r = lex_.String(q, e, &text);
    if (r == Lex::kOk) *key = ClassifyArgKey(text);
    return r;
  };
  for (;;) {
    ArgKey k;
    Lex r = NextKey(args_memo_, prev, ctx, first, p, end, kArgsText, read_key, &k);
    if (r != Lex::kOk) return r;
    if (k == ArgKey::kEnd) return Lex::kOk;
    first = false;
    r = ArgValue(k, p, end, a);
    if (r != Lex::kOk) return r;
  }
}

// ---- Mapping parsed events into the model ----

void KinetoParser::Commit(RawEvent& ev) {
  if (ev.ph.size() != 1) {
    trace_.stats.Bump(ImportStat::unknown_phase);
    return;
  }
  switch (ev.ph[0]) {
    case 'X':
      CommitComplete(ev);
      return;
    case 'i':
    case 'I': {
      if (!IsValid(ev.ts_ns)) {
        trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
        return;
      }
      if (!PlausibleTimeNs(ev.ts_ns)) {
        trace_.stats.Bump(ImportStat::time_out_of_range);
        return;
      }
      model::MarkerRow m;
      m.pid = ToI32(ev.pid);
      m.tid = ev.tid;
      m.ts_ns = ev.ts_ns;
      m.name = trace_.strings.Intern(ev.name);
      m.domain = trace_.strings.Intern(ev.cat);
      trace_.markers.Append(m);
      min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
      return;
    }
    case 'C':
      CommitCounter(ev);
      return;
    case 'M':
      CommitMetadata(ev);
      return;
    case 's':
      if (Eq(ev.cat, "ac2g") && IsValid(ev.id)) trace_.info.ac2g_flow_ids.push_back(ev.id);
      trace_.stats.Bump(ImportStat::flow_event);
      return;
    case 'f':
    case 't':
      trace_.stats.Bump(ImportStat::flow_event);
      return;
    case 'b':
    case 'e':
    case 'n':
      return;  // async events: nothing in Kineto output needs them
    default:
      trace_.stats.Bump(ImportStat::unknown_phase);
      return;
  }
}

void KinetoParser::AddRange(const RawEvent& ev, RangeKind kind, int32_t step) {
  model::RangeRow r;
  r.pid = ToI32(ev.pid);
  r.tid = ev.tid;
  r.start_ns = ev.ts_ns;
  r.end_ns = ev.ts_ns + ev.dur_ns;
  r.name = trace_.strings.Intern(ev.name);
  r.kind = kind;
  r.external_id = ev.args.external_id;
  r.step = step;
  if (kind == RangeKind::kCpuOp) {
    // Shapes are copied verbatim; the analysis parses them (FLOPs, bytes).
    const Args& a = ev.args;
    if (!a.input_dims.empty()) r.input_dims = trace_.strings.Intern(a.input_dims);
    if (!a.input_types.empty()) r.input_types = trace_.strings.Intern(a.input_types);
    if (!a.input_strides.empty()) r.input_strides = trace_.strings.Intern(a.input_strides);
    if (!a.concrete_inputs.empty()) r.concrete_inputs = trace_.strings.Intern(a.concrete_inputs);
  }
  if (kind == RangeKind::kGpuUserAnnotation) {
    r.device_id = ToI32(IsValid(ev.args.device) ? ev.args.device : ev.pid);
    r.stream_id = IsValid(ev.args.stream) ? ev.args.stream
                  : IsValid(ev.tid)       ? ev.tid
                                          : StreamFromTid(ev.tid_str);
    r.pid = kMissingI32;
    r.tid = kMissingI64;
  }
  trace_.ranges.Append(r);
}

void KinetoParser::CommitComplete(RawEvent& ev) {
  if (!IsValid(ev.ts_ns)) {
    trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  if (!IsValid(ev.dur_ns)) {
    trace_.stats.Bump(ev.dur_bad ? ImportStat::bad_field_type : ImportStat::missing_dur);
    return;
  }
  if (ev.dur_ns < 0) {
    trace_.stats.Bump(ImportStat::negative_dur);
    ev.dur_ns = 0;
  }
  int64_t end_check = 0;
  if (__builtin_add_overflow(ev.ts_ns, ev.dur_ns, &end_check)) {
    trace_.stats.Bump(ImportStat::bad_field_type);  // absurd ts+dur past int64 ns
    return;
  }
  if (!PlausibleTimeNs(ev.ts_ns) || !PlausibleTimeNs(end_check)) {
    trace_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  const Args& a = ev.args;
  if (a.bad_type) trace_.stats.Bump(ImportStat::bad_arg_type);
  Cat cat = ClassifyCat(ev.cat);
  int32_t step = ParseStepNumber(ev.name);
  min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
  int64_t end_ns = ev.ts_ns + ev.dur_ns;

  auto device_of = [&]() -> int32_t {
    if (IsValid(a.device)) return ToI32(a.device);
    trace_.stats.Bump(ImportStat::missing_device);
    return ToI32(ev.pid);
  };
  auto stream_of = [&]() -> int64_t {
    if (IsValid(a.stream)) return a.stream;
    trace_.stats.Bump(ImportStat::missing_stream);
    return IsValid(ev.tid) ? ev.tid : StreamFromTid(ev.tid_str);
  };
  auto note_corr = [&]() {
    if (!IsValid(a.correlation)) trace_.stats.Bump(ImportStat::missing_correlation);
  };

  switch (cat) {
    case Cat::kKernel: {
      model::KernelRow k;
      k.device_id = device_of();
      k.stream_id = stream_of();
      k.start_ns = ev.ts_ns;
      k.end_ns = end_ns;
      k.correlation_id = a.correlation;
      note_corr();
      k.external_id = a.external_id;
      k.name = trace_.strings.Intern(ev.name);
      k.grid_x = a.grid[0];
      k.grid_y = a.grid[1];
      k.grid_z = a.grid[2];
      k.block_x = a.block[0];
      k.block_y = a.block[1];
      k.block_z = a.block[2];
      k.registers_per_thread = ToI32(a.regs);
      k.shared_mem_bytes = ToI32(a.smem);
      k.blocks_per_sm = a.blocks_per_sm;
      k.warps_per_sm = a.warps_per_sm;
      if (a.inf_occupancy) trace_.stats.Bump(ImportStat::inf_occupancy_arg);
      k.est_occupancy_pct = a.occupancy;
      k.graph_id = a.graph_id;
      uint32_t row = trace_.kernels.Append(k);
      if (a.has_collective) {
        model::CollectiveRow c;
        c.kernel_row = row;
        c.collective_name = trace_.strings.Intern(a.coll_name);
        c.in_msg_nelems = a.in_nelems;
        c.out_msg_nelems = a.out_nelems;
        c.group_size = ToI32(a.group_size);
        c.dtype = trace_.strings.Intern(a.dtype);
        c.process_group_name = trace_.strings.Intern(a.pg_name);
        c.process_group_desc = trace_.strings.Intern(a.pg_desc);
        c.process_group_ranks = trace_.strings.Intern(a.pg_ranks);
        c.seq = a.seq;
        trace_.collectives.Append(c);
      }
      return;
    }
    case Cat::kMemcpy: {
      model::MemcpyRow m;
      m.device_id = device_of();
      m.stream_id = stream_of();
      m.start_ns = ev.ts_ns;
      m.end_ns = end_ns;
      m.correlation_id = a.correlation;
      note_corr();
      m.external_id = a.external_id;
      m.bytes = a.bytes;
      if (!ParseMemcpyName(ev.name, &m.copy_kind, &m.src_kind, &m.dst_kind) ||
          m.src_kind == MemoryKind::kUnknown || m.dst_kind == MemoryKind::kUnknown)
        trace_.stats.Bump(ImportStat::unknown_memcpy_kind);
      if (IsValid(a.from_device) || IsValid(a.to_device)) {
        m.src_device_id = ToI32(a.from_device);
        m.dst_device_id = ToI32(a.to_device);
        if (m.copy_kind == CopyKind::kUnknown) m.copy_kind = CopyKind::kPtoP;
      }
      m.graph_id = a.graph_id;
      trace_.memcpys.Append(m);
      return;
    }
    case Cat::kMemset: {
      model::MemsetRow m;
      m.device_id = device_of();
      m.stream_id = stream_of();
      m.start_ns = ev.ts_ns;
      m.end_ns = end_ns;
      m.correlation_id = a.correlation;
      note_corr();
      m.external_id = a.external_id;
      m.bytes = a.bytes;
      size_t open = ev.name.find('(');
      size_t close = ev.name.rfind(')');
      if (open != std::string_view::npos && close != std::string_view::npos && close > open)
        m.dst_kind = ParseMemoryKind(ev.name.substr(open + 1, close - open - 1));
      m.graph_id = a.graph_id;
      trace_.memsets.Append(m);
      return;
    }
    case Cat::kRuntime:
    case Cat::kDriver:
    case Cat::kOtherApi: {
      model::ApiRow r;
      r.pid = ToI32(ev.pid);
      r.tid = ev.tid;
      r.start_ns = ev.ts_ns;
      r.end_ns = end_ns;
      r.correlation_id = a.correlation;
      note_corr();
      r.external_id = a.external_id;
      r.name = trace_.strings.Intern(ev.name);
      r.cbid = ToI32(a.cbid);
      r.kind = cat == Cat::kRuntime  ? ApiKind::kRuntime
               : cat == Cat::kDriver ? ApiKind::kDriver
                                     : ApiKind::kOther;
      if (ev.name.size() >= 3 && ev.name.substr(0, 3) == "hip") saw_hip_ = true;
      else if (ev.name.size() >= 2 && ev.name.substr(0, 2) == "cu") saw_cuda_ = true;
      trace_.api_calls.Append(r);
      return;
    }
    case Cat::kSync: {
      model::SyncRow s;
      s.device_id = device_of();
      s.stream_id = IsValid(a.stream) && a.stream >= 0 ? a.stream : kMissingI64;
      s.start_ns = ev.ts_ns;
      s.end_ns = end_ns;
      s.correlation_id = a.correlation;
      s.kind = ParseSyncKind(a.sync_kind.empty() ? ev.name : a.sync_kind);
      s.event_id = a.event_id;
      s.wait_on_stream_id = IsValid(a.wait_on_stream) && a.wait_on_stream >= 0 ? a.wait_on_stream
                                                                                : kMissingI64;
      trace_.syncs.Append(s);
      return;
    }
    case Cat::kCpuOp:
      AddRange(ev, RangeKind::kCpuOp, step);
      return;
    case Cat::kUserAnnotation:
      AddRange(ev, RangeKind::kUserAnnotation, step);
      return;
    case Cat::kGpuUserAnnotation:
      AddRange(ev, RangeKind::kGpuUserAnnotation, step);
      return;
    case Cat::kPython:
      AddRange(ev, RangeKind::kPythonFunction, step);
      return;
    case Cat::kUnknown:
      if (IsValid(step)) {
        AddRange(ev, RangeKind::kUserAnnotation, step);
        return;
      }
      // The profiler's capture span (TB plugin draws its utilization timeline over it).
      if (Eq(ev.cat, "Trace") && ev.name.starts_with("PyTorch Profiler") && IsValid(end_ns)) {
        model::TraceInfo& info = trace_.info;
        info.capture_start_ns = IsValid(info.capture_start_ns)
                                    ? std::min(info.capture_start_ns, ev.ts_ns) : ev.ts_ns;
        info.capture_end_ns = IsValid(info.capture_end_ns)
                                  ? std::max(info.capture_end_ns, end_ns) : end_ns;
        return;
      }
      trace_.stats.Bump(ImportStat::unknown_category);
      return;
  }
}

void KinetoParser::CommitMetadata(const RawEvent& ev) {
  trace_.stats.Bump(ImportStat::metadata_event);
  std::string_view value = ev.args.meta_name;
  if (Eq(ev.name, "process_name")) {
    int32_t pid = ToI32(ev.pid);
    if (!IsValid(pid)) return;
    StringId name = trace_.strings.Intern(value);
    for (model::Process& pr : trace_.processes) {
      if (pr.pid == pid) {
        pr.name = name;
        return;
      }
    }
    trace_.processes.push_back({pid, name});
  } else if (Eq(ev.name, "thread_name")) {
    int32_t pid = ToI32(ev.pid);
    int64_t stream = StreamFromTid(value);
    if (IsValid(stream) && IsValid(pid) && IsValid(ev.tid)) {
      // GPU rows are named "stream N" (pid = device); Kineto's sync rows
      // ("stream N (sync)") have no number-only suffix and stay threads.
      // The name is interned even for a repeated stream, so that which
      // strings an event interns depends on the event alone (MergePart).
      StringId name = trace_.strings.Intern(value);
      for (const model::Stream& s : trace_.streams)
        if (s.device_id == pid && s.stream_id == stream) return;
      model::Stream s;
      s.device_id = pid;
      s.stream_id = stream;
      s.name = name;
      trace_.streams.push_back(s);
      return;
    }
    if (!IsValid(ev.tid)) return;
    StringId name = trace_.strings.Intern(value);
    for (model::Thread& t : trace_.threads) {
      if (t.pid == pid && t.tid == ev.tid) {
        t.name = name;
        return;
      }
    }
    trace_.threads.push_back({pid, ev.tid, name});
  }
}

void KinetoParser::CommitCounter(const RawEvent& ev) {
  if (!IsValid(ev.ts_ns)) {
    trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  if (!PlausibleTimeNs(ev.ts_ns)) {
    trace_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  if (!ev.has_args) return;
  trace_.stats.Bump(ImportStat::counter_event);
  min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
  // Re-read the args: every numeric member is one series "name/key" (the
  // args object is still in the buffer, so this costs one small pass).
  const char* p = ev.args_begin + 1;
  const char* end = ev.args_end;
  std::string key_buf;
  while (SkipWs(p, end) && *p != '}') {
    if (*p == ',') {
      ++p;
      continue;
    }
    std::string_view key;
    if (lex_.String(p, end, &key, &key_buf) != Lex::kOk) return;
    std::string key_copy(key);
    if (!SkipWs(p, end) || *p != ':') return;
    ++p;
    if (!SkipWs(p, end)) return;
    double value = kMissingF64;
    if (*p == '-' || IsDigit(*p)) {
      std::string_view t;
      if (lex_.Number(p, end, &t) != Lex::kOk) return;
      if (!ParseF64Text(t, &value)) value = kMissingF64;
    } else {
      if (lex_.Skip(p, end, 2) != Lex::kOk) return;
      trace_.stats.Bump(ImportStat::non_numeric_value);
    }
    counter_key_.assign(ev.name);
    counter_key_ += '\x1f';
    counter_key_ += key_copy;
    counter_key_ += '\x1f';
    counter_key_ += std::to_string(ev.pid);
    auto it = counter_index_.find(counter_key_);
    size_t idx;
    if (it == counter_index_.end()) {
      idx = trace_.counters.size();
      model::CounterSeries s;
      std::string series_name(ev.name);
      if (key_copy != ev.name) series_name += "/" + key_copy;
      s.name = trace_.strings.Intern(series_name);
      // Kineto puts GPU rows at pid = device index.
      if (IsValid(ev.pid) && ev.pid >= 0 && ev.pid < 64) s.device_id = static_cast<int32_t>(ev.pid);
      s.source = trace_.strings.Intern("kineto counter");
      trace_.counters.push_back(std::move(s));
      counter_index_.emplace(counter_key_, idx);
    } else {
      idx = it->second;
    }
    trace_.counters[idx].ts_ns.push_back(ev.ts_ns);
    trace_.counters[idx].value.push_back(value);
  }
}

void KinetoParser::ApplyDevices(const JVal& arr) {
  for (const JVal& d : arr.items) {
    if (d.type != JVal::kObj) {
      trace_.stats.Bump(ImportStat::bad_field_type);
      continue;
    }
    auto num = [&](std::initializer_list<const char*> names) -> int64_t {
      for (const char* n : names) {
        const JVal* v = d.Get(n);
        int64_t x = 0;
        if (v != nullptr && v->type == JVal::kNum && ParseI64Text(v->text, &x)) return x;
      }
      return kMissingI64;
    };
    int32_t id = ToI32(num({"id"}));
    if (!IsValid(id)) {
      trace_.stats.Bump(ImportStat::bad_field_type);
      continue;
    }
    model::Device& dev = trace_.GetOrAddDevice(id);
    if (const JVal* n = d.Get("name"); n != nullptr && n->type == JVal::kStr)
      dev.name = trace_.strings.Intern(n->text);
    dev.sm_count = ToI32(num({"numSms", "multiProcessorCount"}));
    dev.cc_major = ToI32(num({"computeMajor", "major"}));
    dev.cc_minor = ToI32(num({"computeMinor", "minor"}));
    dev.total_memory_bytes = num({"totalGlobalMem"});
    dev.max_threads_per_sm = ToI32(num({"maxThreadsPerMultiprocessor", "maxThreadsPerMultiProcessor"}));
    dev.max_threads_per_block = ToI32(num({"maxThreadsPerBlock"}));
    dev.max_blocks_per_sm = ToI32(num({"maxBlocksPerMultiprocessor", "maxBlocksPerMultiProcessor"}));
    dev.regs_per_sm = ToI32(num({"regsPerMultiprocessor", "regsPerMultiProcessor"}));
    dev.regs_per_block = ToI32(num({"regsPerBlock"}));
    dev.smem_per_sm_bytes = num({"sharedMemPerMultiprocessor", "sharedMemPerMultiProcessor"});
    dev.smem_per_block_bytes = num({"sharedMemPerBlock"});
    dev.smem_per_block_optin_bytes = num({"sharedMemPerBlockOptin"});
    dev.warp_size = ToI32(num({"warpSize"}));
    std::string_view name = trace_.Str(dev.name);
    if (ContainsNoCase(name, "AMD") || ContainsNoCase(name, "Radeon") ||
        ContainsNoCase(name, "Instinct"))
      dev.vendor = model::Vendor::kAmd;
    else if (!name.empty())
      dev.vendor = model::Vendor::kNvidia;
  }
}

void KinetoParser::ApplyDistributed(const JVal& obj) {
  auto num = [&](const char* k) -> int32_t {
    const JVal* v = obj.Get(k);
    int64_t x = 0;
    if (v != nullptr && v->type == JVal::kNum && ParseI64Text(v->text, &x)) return ToI32(x);
    return kMissingI32;
  };
  trace_.rank.rank = num("rank");
  trace_.rank.world_size = num("world_size");
  trace_.rank.pg_count = num("pg_count");
  if (const JVal* b = obj.Get("backend"); b != nullptr && b->type == JVal::kStr)
    trace_.rank.backend = trace_.strings.Intern(b->text);
}

void KinetoParser::Finish() {
  if (bad_utf8_total_) trace_.stats.Bump(ImportStat::invalid_utf8, bad_utf8_total_);
  trace_.info.format = "kineto-json";
  trace_.info.base_time_ns = base_time_ns_;
  // Relative timestamps (Kineto since 2024) are small; absolute epoch µs are
  // past 1973 in ns. Only shift the former, so a file with both is not doubled.
  constexpr int64_t kEpochFloorNs = int64_t{100'000'000} * kNsPerS;
  bool shift = IsValid(base_time_ns_) && base_time_ns_ != 0 &&
               (min_ts_ns_ == std::numeric_limits<int64_t>::max() || min_ts_ns_ < kEpochFloorNs);
  if (shift) {
    const int64_t b = base_time_ns_;
    uint64_t out_of_range = 0;
    auto add = [b, &out_of_range](std::vector<int64_t>& col) {
      for (int64_t& v : col)
        // A time the base moves past int64 or kMaxAbsTimeNs (absurd, fuzzed
        // values) becomes missing, not wrapped.
        if (IsValid(v) && (__builtin_add_overflow(v, b, &v) || !PlausibleTimeNs(v))) {
          v = kMissingI64;
          ++out_of_range;
        }
    };
    add(trace_.kernels.start_ns), add(trace_.kernels.end_ns);
    add(trace_.memcpys.start_ns), add(trace_.memcpys.end_ns);
    add(trace_.memsets.start_ns), add(trace_.memsets.end_ns);
    add(trace_.api_calls.start_ns), add(trace_.api_calls.end_ns);
    add(trace_.syncs.start_ns), add(trace_.syncs.end_ns);
    add(trace_.ranges.start_ns), add(trace_.ranges.end_ns);
    add(trace_.markers.ts_ns);
    for (model::CounterSeries& s : trace_.counters) add(s.ts_ns);
    for (int64_t* v : {&trace_.info.capture_start_ns, &trace_.info.capture_end_ns})
      if (IsValid(*v) && (__builtin_add_overflow(*v, b, v) || !PlausibleTimeNs(*v)))
        *v = kMissingI64;
    if (out_of_range > 0) trace_.stats.Bump(ImportStat::time_out_of_range, out_of_range);
  }
  trace_.Finalize();
  // Vendor for devices known only from events (or unnamed): HIP calls mean AMD.
  for (model::Device& d : trace_.devices) {
    if (d.vendor != model::Vendor::kUnknown) continue;
    if (saw_hip_) d.vendor = model::Vendor::kAmd;
    else if (saw_cuda_) d.vendor = model::Vendor::kNvidia;
  }
  // The tables' growth left spare capacity. A small model copies its tables
  // to exact size: the old blocks go back to the heap, which the analysis
  // reuses. A large one gives the spare pages back without copying (the copy
  // was the import's peak). Measured on the bench traces, 16 and 4 interleaved
  // warm runs: 10x (a 97 MB model) copying 0.365 s median, releasing 0.40 s;
  // 100x (971 MB) the same time either way, releasing 1.31-1.33 M KiB peak
  // against 1.36-1.39 M KiB.
  if (trace_.memory_bytes() <= model::kLargeModelBytes)
    trace_.ForEachEventTable([](auto& table) { table.ShrinkToFit(); });
  else
    trace_.ForEachEventTable([](auto& table) { table.ReleaseSpareCapacity(); });
}

}  // namespace

bool LooksLikeKineto(std::string_view prefix) {
  size_t i = 0;
  if (prefix.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  while (i < prefix.size() && chrome_lex::IsWs(prefix[i])) ++i;
  if (i >= prefix.size()) return false;
  if (prefix[i] == '[') {
    // Chrome's bare-array form: claimed so the importer can say why it refuses it.
    size_t j = prefix.find_first_not_of(" \t\r\n", i + 1);
    return j != std::string_view::npos && prefix[j] == '{' &&
           prefix.find("\"ph\"") != std::string_view::npos;
  }
  if (prefix[i] != '{') return false;
  for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                               "\"computeProperties\"", "\"baseTimeNanoseconds\""}) {
    if (prefix.find(key) != std::string_view::npos) return true;
  }
  return false;
}

Status ReadKinetoStream(InputStream& in, const KinetoOptions& options, model::Trace& trace,
                        KinetoScanStats* scan) {
  KinetoParser parser(in, options, trace);
  // Corrupt deflate data often still decodes to garbage bytes, and the
  // parser trips on them before the CRC check at the member's end.
  Status st = KinetoParser::DrainForGzipCause(in, parser.Run());
  if (scan != nullptr) {
    scan->trace_events = parser.events();
    scan->json_bytes = parser.bytes();
    scan->reserve_factor = parser.reserve_factor();
    scan->segments = parser.segments();
    scan->serial_fallback = parser.serial_fallback();
    scan->jax_layout = parser.jax_layout();
  }
  return st;
}

Status KinetoImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, options_.stream));
  KinetoScanStats scan;
  Status st = ReadKinetoStream(*in, options_, trace, &scan);
  if (!st.ok() && scan.jax_layout) {
    // A JAX/XLA profile whose device names came after the sniffed prefix:
    // its dialect reads it from the start.
    trace = model::Trace();
    in.reset();
    ASSIGN_OR_RETURN(std::unique_ptr<InputStream> again, OpenInputStream(src.path, ChromeStreamOptions()));
    st = ReadJaxTraceStream(*again, trace);
  }
  RETURN_IF_ERROR(st);
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
