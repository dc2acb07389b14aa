// PyTorch legacy autograd-profiler Chrome trace (chrome_dialects.h).
#include <charconv>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "import/chrome/chrome_dialects.h"
#include "import/chrome/chrome_trace_tokenizer.h"

namespace gpuwhy::import {

namespace {

using model::ImportStat;
using model::RangeKind;

constexpr std::string_view kLegacyCudaPid = "CUDA functions";

int32_t LegacyToI32(int64_t v) {
  if (!IsValid(v) || v <= std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max())
    return kMissingI32;
  return static_cast<int32_t>(v);
}

// LegacyStepNumber: N of "ProfilerStep#N", or kMissingI32.
int32_t LegacyStepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix)
    return kMissingI32;
  int32_t n = 0;
  auto [ptr, ec] = std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), n);
  if (ec != std::errc() || ptr != name.data() + name.size()) return kMissingI32;
  return n;
}

// LegacyTimes: ts/dur of an X event checked as Kineto checks them; false
// (counted) when the event must be dropped.
bool LegacyTimes(const ChromeEvent& ev, model::ImportStats& stats, int64_t* start, int64_t* end) {
  if (!IsValid(ev.ts_ns)) {
    stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return false;
  }
  if (!IsValid(ev.dur_ns)) {
    stats.Bump(ev.dur_bad ? ImportStat::bad_field_type : ImportStat::missing_dur);
    return false;
  }
  int64_t dur = ev.dur_ns;
  if (dur < 0) {
    stats.Bump(ImportStat::negative_dur);
    dur = 0;
  }
  if (__builtin_add_overflow(ev.ts_ns, dur, end) || !PlausibleTimeNs(ev.ts_ns) ||
      !PlausibleTimeNs(*end)) {
    stats.Bump(ImportStat::time_out_of_range);
    return false;
  }
  *start = ev.ts_ns;
  return true;
}

// LegacyKey: a kernel's place, where its flow's end meets it: (device tid,
// start, name).
struct LegacyKey {
  int64_t tid, start_ns;
  StringId name;
  bool operator==(const LegacyKey&) const = default;
};
// LegacyMix: splitmix64's finalizer: every bit of x reaches the low bits,
// which LegacyTable's mask keeps (times are multiples of 1000 ns).
constexpr uint64_t LegacyMix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
struct LegacyKeyHash {
  size_t operator()(const LegacyKey& k) const {
    return static_cast<size_t>(
        LegacyMix(static_cast<uint64_t>(k.start_ns) ^ LegacyMix(static_cast<uint64_t>(k.tid) ^
                                                                (uint64_t{k.name} << 32))));
  }
};

// LegacyTable: an open-addressing map from a key to its last value, for the
// joins Finish makes over every kernel. Why: std::unordered_map's node per
// entry made the join a fifth of the legacy import's reader-thread time.
template <class K, class Hash>
class LegacyTable {
 public:
  explicit LegacyTable(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, kEmpty);
    mask_ = cap - 1;
  }
  // Put: `key` maps to `value` (a later Put of the same key wins).
  void Put(const K& key, int64_t value) {
    uint32_t& slot = Slot(key);
    if (slot == kEmpty) {
      slot = static_cast<uint32_t>(keys_.size());
      keys_.push_back(key);
      values_.push_back(value);
      taken_.push_back(false);
    } else {
      values_[slot] = value;
    }
  }
  // Find: the value of `key`, or nullptr.
  const int64_t* Find(const K& key) {
    const uint32_t slot = Slot(key);
    return slot == kEmpty ? nullptr : &values_[slot];
  }
  // Take: as Find, but only once per key.
  const int64_t* Take(const K& key) {
    const uint32_t slot = Slot(key);
    if (slot == kEmpty || taken_[slot]) return nullptr;
    taken_[slot] = true;
    return &values_[slot];
  }

 private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  uint32_t& Slot(const K& key) {
    for (size_t i = Hash()(key) & mask_;; i = (i + 1) & mask_)
      if (slots_[i] == kEmpty || keys_[slots_[i]] == key) return slots_[i];
  }
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
  std::vector<K> keys_;
  std::vector<int64_t> values_;
  std::vector<bool> taken_;
};

struct LegacyIdHash {
  size_t operator()(int64_t id) const { return static_cast<size_t>(LegacyMix(static_cast<uint64_t>(id))); }
};

// LegacyMapper: the mapping of the whole document (over the trace) or of one
// segment (over its own part, on a worker); Absorb folds a segment's mapper
// in as if its events had come to Event here.
class LegacyMapper {
 public:
  explicit LegacyMapper(model::Trace& t) : t_(t) {}
  void Event(const ChromeEvent& ev);
  // Absorb: `seg` holds the events that follow this mapper's in the file;
  // growth: for Trace::AppendEventsFrom.
  void Absorb(LegacyMapper& seg, double growth);
  // Clear: forget the events seen, keeping buffers (a segment's, for reuse).
  void Clear() {
    last_op_.clear();
    flow_starts_.clear();
    kernel_flows_.clear();
    kernel_rows_.clear();
    steps_ = 0;
    cuda_pid_ = false;
    device_flows_ = 0;
  }
  Status Finish(const std::string& path, const ChromeDocument& doc);

 private:
  struct OpAt {
    uint32_t row;
    int64_t start_ns;
  };
  // FlowStart: an "s" event's link: flow id -> the launching op's external
  // id. One whose tid has no op yet is deferred: in a segment, the merge
  // resolves it against the ops before the segment; one that stays deferred
  // (no op before it in the file) links nothing.
  struct FlowStart {
    int64_t id, ext;
    int64_t tid = 0, ts_ns = 0;
    bool deferred = false;
  };
  struct KeyedRow {
    LegacyKey key;
    uint32_t row;
  };
  struct KeyedFlow {
    LegacyKey key;
    int64_t id;
  };

  void Complete(const ChromeEvent& ev);
  // Launched: the flow `id` starts at `op`; its external id (the op's, set
  // by the first flow it starts).
  int64_t Launched(const OpAt& op, int64_t id) {
    int64_t& ext = t_.ranges.external_id[op.row];
    if (!IsValid(ext)) ext = id;
    return ext;
  }

  model::Trace& t_;
  std::unordered_map<int64_t, OpAt> last_op_;  // tid -> the latest op range
  // In file order; Finish joins them (later flows win, as a map would keep).
  std::vector<FlowStart> flow_starts_;
  std::vector<KeyedFlow> kernel_flows_;  // "f" events: (device, ts, name) -> flow id
  std::vector<KeyedRow> kernel_rows_;
  uint64_t steps_ = 0;
  bool cuda_pid_ = false;  // any event on "CUDA functions"
  uint64_t device_flows_ = 0;  // flow starts of cat "cpu_to_<device>"
};

void LegacyMapper::Event(const ChromeEvent& ev) {
  if (ev.pid.str == kLegacyCudaPid) cuda_pid_ = true;
  if (ev.ph.size() != 1) {
    if (!ev.ph.empty() || ev.has_args || !ev.name.empty()) t_.stats.Bump(ImportStat::unknown_phase);
    return;  // "{}"
  }
  switch (ev.ph[0]) {
    case 'X':
      Complete(ev);
      return;
    case 's': {
      t_.stats.Bump(ImportStat::flow_event);
      if (ev.cat.substr(0, 7) == "cpu_to_") ++device_flows_;
      if (!IsValid(ev.id.num) || !IsValid(ev.ts_ns)) return;
      auto it = last_op_.find(ev.tid.num);
      if (it == last_op_.end()) {
        // The op that launched it, if any, is before this segment.
        flow_starts_.push_back({ev.id.num, kMissingI64, ev.tid.num, ev.ts_ns, true});
        return;
      }
      if (it->second.start_ns != ev.ts_ns) return;
      // The op that launched it: its external id is the first flow it starts.
      flow_starts_.push_back({ev.id.num, Launched(it->second, ev.id.num)});
      return;
    }
    case 'f':
      t_.stats.Bump(ImportStat::flow_event);
      if (!IsValid(ev.id.num) || !IsValid(ev.ts_ns)) return;
      kernel_flows_.push_back({{ev.tid.num, ev.ts_ns, t_.strings.Intern(ev.name)}, ev.id.num});
      return;
    case 'M':
      t_.stats.Bump(ImportStat::metadata_event);
      return;
    default:
      t_.stats.Bump(ImportStat::unknown_phase);
      return;
  }
}

void LegacyMapper::Complete(const ChromeEvent& ev) {
  int64_t start = 0, end = 0;
  if (!LegacyTimes(ev, t_.stats, &start, &end)) return;
  if (ev.pid.str == kLegacyCudaPid) {
    model::KernelRow k;
    k.device_id = LegacyToI32(ev.tid.num);
    if (!IsValid(k.device_id)) t_.stats.Bump(ImportStat::missing_device);
    k.start_ns = start;
    k.end_ns = end;
    k.name = t_.strings.Intern(ev.name);
    uint32_t row = t_.kernels.Append(k);
    kernel_rows_.push_back({{ev.tid.num, start, k.name}, row});
    return;
  }
  model::RangeRow r;
  r.tid = ev.tid.num;  // a remote op's tid is a string: missing
  r.start_ns = start;
  r.end_ns = end;
  r.name = t_.strings.Intern(ev.name);
  r.step = LegacyStepNumber(ev.name);
  // The legacy trace has no categories: ProfilerStep# and record_function
  // labels (no "::") are annotations, the rest framework ops.
  r.kind = IsValid(r.step) || ev.name.find("::") == std::string_view::npos
               ? RangeKind::kUserAnnotation
               : RangeKind::kCpuOp;
  if (IsValid(r.step)) ++steps_;
  uint32_t row = t_.ranges.Append(r);
  last_op_[ev.tid.num] = OpAt{row, start};
}

void LegacyMapper::Absorb(LegacyMapper& seg, double growth) {
  const model::Trace& part = seg.t_;
  std::vector<StringId> remap;
  t_.strings.InternAll(part.strings, &remap);
  const auto ranges0 = static_cast<uint32_t>(t_.ranges.size());
  const auto kernels0 = static_cast<uint32_t>(t_.kernels.size());
  t_.AppendEventsFrom(part, remap, growth);
  t_.stats.Merge(part.stats);
  // Deferred flow starts meet the ops before the segment (last_op_ as it
  // stands before the segment's own ops are folded in).
  for (const FlowStart& f : seg.flow_starts_) {
    if (!f.deferred) {
      flow_starts_.push_back(f);
      continue;
    }
    auto it = last_op_.find(f.tid);
    if (it == last_op_.end() || it->second.start_ns != f.ts_ns) continue;
    flow_starts_.push_back({f.id, Launched(it->second, f.id)});
  }
  for (const auto& [tid, op] : seg.last_op_) last_op_[tid] = OpAt{op.row + ranges0, op.start_ns};
  for (const KeyedFlow& f : seg.kernel_flows_)
    kernel_flows_.push_back({{f.key.tid, f.key.start_ns, remap[f.key.name]}, f.id});
  for (const KeyedRow& k : seg.kernel_rows_)
    kernel_rows_.push_back({{k.key.tid, k.key.start_ns, remap[k.key.name]}, k.row + kernels0});
  steps_ += seg.steps_;
  cuda_pid_ = cuda_pid_ || seg.cuda_pid_;
  device_flows_ += seg.device_flows_;
}

Status LegacyMapper::Finish(const std::string& path, const ChromeDocument& doc) {
  // Kernels meet their flow's end at (device, start, name): the first kernel
  // there takes the last flow that ends there.
  LegacyTable<int64_t, LegacyIdHash> flow_external(flow_starts_.size());  // flow id -> op's external id
  for (const FlowStart& f : flow_starts_)
    if (!f.deferred) flow_external.Put(f.id, f.ext);
  LegacyTable<LegacyKey, LegacyKeyHash> flow_at(kernel_flows_.size());
  for (const KeyedFlow& f : kernel_flows_) flow_at.Put(f.key, f.id);
  uint64_t linked = 0;
  for (const KeyedRow& k : kernel_rows_) {
    const int64_t* id = flow_at.Take(k.key);  // one kernel per place
    if (id == nullptr) continue;
    t_.kernels.correlation_id[k.row] = *id;
    if (const int64_t* ext = flow_external.Find(*id)) t_.kernels.external_id[k.row] = *ext;
    ++linked;
  }
  if (t_.kernels.size() > linked)
    t_.stats.Bump(ImportStat::missing_correlation, t_.kernels.size() - linked);
  if (t_.ranges.size() + t_.kernels.size() == 0)
    return InvalidInput(fmt::format(
        "{}: a PyTorch legacy autograd-profiler trace (top-level array, {} events) with no "
        "complete (X) op or kernel event: nothing to analyse",
        path, doc.events));
  if (!cuda_pid_ && device_flows_ > 0)
    // PyTorch >= 1.8 writes the launch flows but no longer the kernels
    // ("use torch.profiler to get device kernel trace"): the GPU ran, and
    // this file cannot say how; neither CPU-only nor idle.
    return InvalidInput(fmt::format(
        "{}: a PyTorch legacy autograd-profiler trace whose ops launched {} GPU kernels "
        "(cpu_to_* flow events) but which holds no kernel event (no \"CUDA functions\" "
        "process): this PyTorch's export_chrome_trace does not write them; profile with "
        "torch.profiler (Kineto) for the GPU timeline",
        path, device_flows_));
  t_.info.format = "torch-legacy-json";
  t_.info.clock = "torch_profiler_start";
  // Without a "CUDA functions" process the profiler ran without use_cuda (or
  // on a CPU-only build): the GPU was not profiled, not idle.
  t_.info.host_only_profile = !cuda_pid_;
  t_.info.import_notes.push_back(fmt::format(
      "PyTorch legacy autograd profiler: ts read as µs since the profiler started; {} op "
      "ranges, {} ProfilerStep ranges, {} kernels ({} linked to their launching op by flow "
      "events){}",
      t_.ranges.size(), steps_, t_.kernels.size(), linked,
      cuda_pid_ ? "" : "; no \"CUDA functions\" process: a CPU-only profile"));
  t_.Finalize();
  for (model::Device& d : t_.devices)
    if (d.vendor == model::Vendor::kUnknown) d.vendor = model::Vendor::kNvidia;  // CUDA functions
  return Status::Ok();
}

}  // namespace

bool LooksLikeTorchLegacy(std::string_view prefix) {
  if (ChromeTraceHead(prefix) != '[') return false;
  return prefix.find("\"CPU functions\"") != std::string_view::npos ||
         prefix.find("\"CUDA functions\"") != std::string_view::npos;
}

Status ReadTorchLegacyStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options) {
  return ReadChromeDialect<LegacyMapper>(in, trace, options);
}

Status TorchLegacyImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, ChromeStreamOptions()));
  RETURN_IF_ERROR(ReadTorchLegacyStream(*in, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
