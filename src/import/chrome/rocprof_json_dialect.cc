// rocprof v1 results.json and RPD rpd2tracing JSON (chrome_dialects.h).
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "import/chrome/chrome_dialects.h"
#include "import/chrome/chrome_trace_tokenizer.h"

namespace gpuwhy::import {

namespace {

using model::ImportStat;

int32_t RocToI32(int64_t v) {
  if (!IsValid(v) || v <= std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max())
    return kMissingI32;
  return static_cast<int32_t>(v);
}

// RocGpuOrdinal: N of a process named "GPU<N>", or kMissingI32.
int32_t RocGpuOrdinal(std::string_view name) {
  if (name.size() < 4 || name.substr(0, 3) != "GPU") return kMissingI32;
  int32_t n = 0;
  auto [ptr, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), n);
  if (ec != std::errc() || ptr != name.data() + name.size()) return kMissingI32;
  return n;
}

// RocCallArg: the value in "name(value)" of a rocprof HIP call's args text,
// e.g. "sizeBytes(4000000000)"; empty when absent.
std::string_view RocCallArg(std::string_view text, std::string_view name) {
  size_t at = 0;
  while ((at = text.find(name, at)) != std::string_view::npos) {
    const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '(';
    const size_t open = at + name.size();
    if (starts && open < text.size() && text[open] == '(') {
      // The value may hold parentheses ("kernel(f(float*))"): balance them.
      int depth = 0;
      for (size_t i = open; i < text.size(); ++i) {
        if (text[i] == '(') ++depth;
        if (text[i] == ')' && --depth == 0) return text.substr(open + 1, i - open - 1);
      }
      // rocprof writes dims as "x(3906250}": unbalanced; take to the end.
      return text.substr(open + 1);
    }
    at = open;
  }
  return {};
}

int64_t RocInt(std::string_view t) {
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && ptr != t.data() ? v : kMissingI64;
}

// RocDims: {x, y, z} of "{z(1) y(1) x(3906250}" (rocprof's dim3 text).
bool RocDims(std::string_view t, int32_t out[3]) {
  bool any = false;
  const char axes[3] = {'x', 'y', 'z'};
  for (int i = 0; i < 3; ++i) {
    const char key[3] = {axes[i], '(', '\0'};
    size_t at = t.find(key);
    int64_t v = at == std::string_view::npos ? kMissingI64 : RocInt(t.substr(at + 2));
    out[i] = RocToI32(v);
    any = any || IsValid(out[i]);
  }
  return any;
}

// RocCopyKind: the copy kind of a rocprof/RPD copy name.
model::CopyKind RocCopyKind(std::string_view name) {
  if (name.find("HostToDevice") != std::string_view::npos) return model::CopyKind::kHtoD;
  if (name.find("DeviceToHost") != std::string_view::npos) return model::CopyKind::kDtoH;
  if (name.find("DeviceToDevice") != std::string_view::npos) return model::CopyKind::kDtoD;
  if (name.find("HostToHost") != std::string_view::npos) return model::CopyKind::kHtoH;
  if (name.find("PeerToPeer") != std::string_view::npos) return model::CopyKind::kPtoP;
  return model::CopyKind::kUnknown;
}

enum class RocTable : uint8_t { kApi, kKernel, kMemcpy, kMemset, kRange };

// RocSpan: one mapped X event, for joining flows: where it was in the file
// (pid, tid, ts and dur as written, in ns) and which row it became.
struct RocSpan {
  int64_t ts_ns, end_ns;
  RocTable table;
  uint32_t row;
};

struct RocFlowEnd {
  int64_t pid, tid, ts_ns, id;
  bool start;
};

// RocCall: what a HIP call's args text ("( kernel(f) numBlocks({z(1) y(1)
// x(64}) dimBlocks(...) sharedMemBytes(0))") gives its GPU op, read on the
// worker. hipLaunchKernel's numBlocks/dimBlocks (hipModuleLaunchKernel's
// gridDim/blockDim in rocprof's text) are already in workgroups.
struct RocCall {
  bool has_grid = false, has_block = false;
  int32_t grid[3] = {kMissingI32, kMissingI32, kMissingI32};
  int32_t block[3] = {kMissingI32, kMissingI32, kMissingI32};
  int64_t shared_mem = kMissingI64;
  int64_t copy_bytes = kMissingI64;  // sizeBytes, else size
  int64_t set_bytes = kMissingI64;   // sizeBytes
};

RocCall ReadRocCall(std::string_view text) {
  RocCall c;
  std::string_view g = RocCallArg(text, "numBlocks");
  if (g.empty()) g = RocCallArg(text, "gridDim");
  std::string_view b = RocCallArg(text, "dimBlocks");
  if (b.empty()) b = RocCallArg(text, "blockDim");
  c.has_grid = RocDims(g, c.grid);
  c.has_block = RocDims(b, c.block);
  c.shared_mem = RocInt(RocCallArg(text, "sharedMemBytes"));
  c.set_bytes = RocInt(RocCallArg(text, "sizeBytes"));
  c.copy_bytes = IsValid(c.set_bytes) ? c.set_bytes : RocInt(RocCallArg(text, "size"));
  return c;
}

// RocMapper: the mapping of the whole document (over the trace) or of one
// segment (over its own part, on a worker); Absorb folds a segment's in.
// Events become Pending records (process names may come last); Finish maps
// them in file order and joins the flows.
class RocMapper {
 public:
  explicit RocMapper(model::Trace& t) : t_(t) {}
  void Event(const ChromeEvent& ev);
  // Absorb: `seg` holds the events that follow this mapper's in the file
  // (rows are placed in Finish: no table grows here).
  void Absorb(RocMapper& seg, double growth);
  // Clear: forget the events seen, keeping buffers (a segment's, for reuse).
  void Clear() {
    names_.Clear();
    pending_.clear();
    done_.clear();
    calls_.clear();
    flows_.clear();
    counter_index_.clear();
    counter_keys_.clear();
    rocprof_v1_ = false;
    counters_ = 0;
  }
  Status Finish(const std::string& path, const ChromeDocument& doc);

 private:
  struct Pending {  // an X event waiting for the process names
    int64_t pid, tid, ts_ns, dur_ns, begin_ns, end_ns;
    StringId name;
    // Read from the event itself on the worker (Finish only places rows).
    bool desc_copy, desc_fill, name_fill;  // args.desc "Copy...", "FillBuffer"; name "FillBuffer"
    model::CopyKind copy_kind;             // from args.desc, else the name
    uint32_t call;                         // index in calls_ of args.args, or kNoCall
    int64_t dev_id, stream_id, os_pid, grid_items[3], workgroup[3];
  };
  static constexpr uint32_t kNoCall = 0xffffffffu;
  void Metadata(const ChromeEvent& ev);
  void Counter(const ChromeEvent& ev);
  void Map(const Pending& p);
  void Join(const RocSpan& api, const RocSpan& op, int64_t id);
  const RocSpan* Find(int64_t pid, int64_t tid, int64_t ts_ns, bool enclosing) const;

  model::Trace& t_;
  ChromeNames names_;
  std::vector<Pending> pending_;
  // Earlier pending records, in file order: a segment's are moved in whole
  // (copying them into one vector was most of the reader thread's time).
  std::vector<std::vector<Pending>> done_;
  std::vector<RocCall> calls_;  // the pending events' args.args, read
  std::vector<RocFlowEnd> flows_;
  std::unordered_map<std::pair<int64_t, int64_t>, std::vector<RocSpan>, ChromeLaneHash> lanes_;
  std::map<std::string, size_t> counter_index_;
  std::vector<std::string> counter_keys_;  // the key of each t_.counters series
  std::vector<uint32_t> call_of_api_;  // API row -> its call in calls_ (kNoCall: none)
  bool rocprof_v1_ = false;  // args.BeginNs seen: ns times on the HSA clock
  uint64_t counters_ = 0;
};

void RocMapper::Metadata(const ChromeEvent& ev) {
  t_.stats.Bump(ImportStat::metadata_event);
  names_.Note(ev);
}

void RocMapper::Counter(const ChromeEvent& ev) {
  t_.stats.Bump(ImportStat::counter_event);
  if (!IsValid(ev.ts_ns) || !PlausibleTimeNs(ev.ts_ns)) {
    t_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  for (const ChromeArg& a : ev.args) {
    double v = 0;
    std::string_view text = a.text;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      t_.stats.Bump(ImportStat::non_numeric_value);
      continue;
    }
    std::string key = std::string(ev.name) + "\x1f" + std::string(a.key);
    auto [it, added] = counter_index_.try_emplace(key, t_.counters.size());
    if (added) {
      counter_keys_.push_back(key);
      model::CounterSeries s;
      s.name = t_.strings.Intern(ev.name == a.key ? ev.name : key.replace(ev.name.size(), 1, "."));
      // RPD's "sclk" is the GPU shader clock in MHz.
      if (ev.name == "sclk") {
        s.kind = model::CounterKind::kSmClockMhz;
        s.unit = model::CounterUnit::kMhz;
      }
      s.source = t_.strings.Intern("rpd");
      t_.counters.push_back(std::move(s));
    }
    model::CounterSeries& s = t_.counters[it->second];
    s.ts_ns.push_back(ev.ts_ns);
    s.value.push_back(v);
    ++counters_;
  }
}

void RocMapper::Event(const ChromeEvent& ev) {
  if (ev.ph.size() != 1) {
    if (!ev.ph.empty() || ev.has_args || !ev.name.empty()) t_.stats.Bump(ImportStat::unknown_phase);
    return;  // rocprof and RPD both open with "{}"
  }
  switch (ev.ph[0]) {
    case 'M':
      Metadata(ev);
      return;
    case 'C':
      Counter(ev);
      return;
    case 's':
    case 't':
    case 'f':
      t_.stats.Bump(ImportStat::flow_event);
      if (IsValid(ev.id.num) && IsValid(ev.ts_ns) && IsValid(ev.pid.num))
        flows_.push_back({ev.pid.num, ev.tid.num, ev.ts_ns, ev.id.num, ev.ph[0] == 's'});
      return;
    case 'X':
      break;
    default:
      t_.stats.Bump(ImportStat::unknown_phase);
      return;
  }
  if (!IsValid(ev.ts_ns)) {
    t_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  if (!IsValid(ev.dur_ns)) {
    t_.stats.Bump(ev.dur_bad ? ImportStat::bad_field_type : ImportStat::missing_dur);
    return;
  }
  if (!IsValid(ev.pid.num)) {
    t_.stats.Bump(ImportStat::bad_field_type);
    return;
  }
  Pending p;
  p.pid = ev.pid.num;
  p.tid = ev.tid.num;
  p.ts_ns = ev.ts_ns;
  p.dur_ns = ev.dur_ns;
  p.begin_ns = ev.ArgInt("BeginNs");
  p.end_ns = ev.ArgInt("EndNs");
  if (IsValid(p.begin_ns)) rocprof_v1_ = true;
  p.name = t_.strings.Intern(ev.name);
  const std::string_view desc = ev.ArgText("desc"), call_args = ev.ArgText("args");
  p.desc_copy = desc.rfind("Copy", 0) == 0;
  p.desc_fill = desc == "FillBuffer";
  p.name_fill = ev.name == "FillBuffer";
  p.copy_kind = RocCopyKind(desc.empty() ? ev.name : desc);
  p.call = kNoCall;
  if (!call_args.empty()) {
    p.call = static_cast<uint32_t>(calls_.size());
    calls_.push_back(ReadRocCall(call_args));
  }
  p.dev_id = ev.ArgInt("dev-id");
  p.stream_id = ev.ArgInt("stream-id");
  p.os_pid = ev.ArgInt("pid");
  // rocprof's kernel records: grid-size in work-items, workgroup-size per group.
  p.grid_items[0] = ev.ArgInt("grid-size");
  p.workgroup[0] = ev.ArgInt("workgroup-size");
  p.grid_items[1] = p.grid_items[2] = p.workgroup[1] = p.workgroup[2] = kMissingI64;
  pending_.push_back(p);
}

void RocMapper::Absorb(RocMapper& seg, double) {
  const model::Trace& part = seg.t_;
  std::vector<StringId> remap;
  t_.strings.InternAll(part.strings, &remap);
  t_.stats.Merge(part.stats);
  names_.Absorb(seg.names_);
  const auto calls0 = static_cast<uint32_t>(calls_.size());
  calls_.insert(calls_.end(), seg.calls_.begin(), seg.calls_.end());
  for (Pending& p : seg.pending_) {
    p.name = remap[p.name];
    if (p.call != kNoCall) p.call += calls0;
  }
  if (!pending_.empty()) done_.push_back(std::move(pending_));
  pending_.clear();
  done_.push_back(std::move(seg.pending_));
  seg.pending_.clear();
  flows_.insert(flows_.end(), seg.flows_.begin(), seg.flows_.end());
  // Counter series by key: a key first seen in the segment starts a series.
  for (size_t i = 0; i < part.counters.size(); ++i) {
    const model::CounterSeries& src = part.counters[i];
    auto [it, added] = counter_index_.try_emplace(seg.counter_keys_[i], t_.counters.size());
    if (added) {
      counter_keys_.push_back(seg.counter_keys_[i]);
      model::CounterSeries m;
      m.name = remap[src.name];
      m.kind = src.kind;
      m.unit = src.unit;
      m.source = remap[src.source];
      t_.counters.push_back(std::move(m));
    }
    model::CounterSeries& dst = t_.counters[it->second];
    dst.ts_ns.insert(dst.ts_ns.end(), src.ts_ns.begin(), src.ts_ns.end());
    dst.value.insert(dst.value.end(), src.value.begin(), src.value.end());
  }
  rocprof_v1_ = rocprof_v1_ || seg.rocprof_v1_;
  counters_ += seg.counters_;
}

void RocMapper::Map(const Pending& p) {
  int64_t start = p.ts_ns, end = 0;
  int64_t dur = p.dur_ns;
  if (dur < 0) {
    t_.stats.Bump(ImportStat::negative_dur);
    dur = 0;
  }
  if (__builtin_add_overflow(start, dur, &end)) end = kMissingI64;
  if (rocprof_v1_) {
    // BeginNs/EndNs: the HSA clock in ns, exact where ts/dur are whole µs.
    if (IsValid(p.begin_ns) && IsValid(p.end_ns) && p.end_ns >= p.begin_ns) {
      start = p.begin_ns;
      end = p.end_ns;
    }
  }
  if (!IsValid(end) || !PlausibleTimeNs(start) || !PlausibleTimeNs(end)) {
    t_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  auto proc = names_.process.find(p.pid);
  std::string_view pname = proc != names_.process.end() ? std::string_view(proc->second) : "";
  const int32_t gpu = RocGpuOrdinal(pname);
  RocSpan span{p.ts_ns, p.ts_ns + dur, RocTable::kRange, 0};
  if (IsValid(gpu) || pname == "COPY") {
    const std::string_view name = t_.Str(p.name);
    const bool copy = pname == "COPY" || p.desc_copy;
    const int32_t device = IsValid(p.dev_id) ? RocToI32(p.dev_id) : gpu;
    if (!IsValid(device)) t_.stats.Bump(ImportStat::missing_device);
    const int64_t stream = IsValid(p.stream_id) ? p.stream_id : p.tid;
    if (copy || p.desc_fill || p.name_fill) {
      if (copy) {
        model::MemcpyRow m;
        m.device_id = device;
        m.stream_id = stream;
        m.start_ns = start;
        m.end_ns = end;
        m.copy_kind = p.copy_kind;
        if (m.copy_kind == model::CopyKind::kUnknown) t_.stats.Bump(ImportStat::unknown_memcpy_kind);
        m.pid = RocToI32(p.os_pid);
        span.table = RocTable::kMemcpy;
        span.row = t_.memcpys.Append(m);
      } else {
        model::MemsetRow m;
        m.device_id = device;
        m.stream_id = stream;
        m.start_ns = start;
        m.end_ns = end;
        m.pid = RocToI32(p.os_pid);
        span.table = RocTable::kMemset;
        span.row = t_.memsets.Append(m);
      }
    } else {
      model::KernelRow k;
      k.device_id = device;
      k.stream_id = stream;
      k.start_ns = start;
      k.end_ns = end;
      k.name = p.name;
      if (IsValid(p.grid_items[0]) && IsValid(p.workgroup[0]) && p.workgroup[0] > 0) {
        k.grid_x = RocToI32((p.grid_items[0] + p.workgroup[0] - 1) / p.workgroup[0]);
        k.block_x = RocToI32(p.workgroup[0]);
      }
      span.table = RocTable::kKernel;
      span.row = t_.kernels.Append(k);
    }
  } else {
    const std::string_view name = t_.Str(p.name);
    if (name.rfind("hip", 0) == 0 || name.rfind("hsa", 0) == 0 || pname == "CPU HIP API") {
      model::ApiRow a;
      a.pid = RocToI32(IsValid(p.os_pid) ? p.os_pid : p.pid);
      a.tid = p.tid;
      a.start_ns = start;
      a.end_ns = end;
      a.name = p.name;
      span.table = RocTable::kApi;
      span.row = t_.api_calls.Append(a);
      if (p.call != kNoCall) {
        if (call_of_api_.size() <= span.row) call_of_api_.resize(span.row + 1, kNoCall);
        call_of_api_[span.row] = p.call;
      }
    } else {
      model::RangeRow r;  // roctx and other host ranges
      r.pid = RocToI32(p.pid);
      r.tid = p.tid;
      r.start_ns = start;
      r.end_ns = end;
      r.name = p.name;
      r.kind = model::RangeKind::kUserAnnotation;
      span.row = t_.ranges.Append(r);
    }
  }
  lanes_[{p.pid, p.tid}].push_back(span);
}

const RocSpan* RocMapper::Find(int64_t pid, int64_t tid, int64_t ts_ns, bool enclosing) const {
  auto lane = lanes_.find({pid, tid});
  if (lane == lanes_.end()) return nullptr;
  const std::vector<RocSpan>& v = lane->second;
  // The last span starting at or before ts (spans are sorted by ts).
  auto it = std::upper_bound(v.begin(), v.end(), ts_ns,
                             [](int64_t t, const RocSpan& s) { return t < s.ts_ns; });
  if (it == v.begin()) return nullptr;
  --it;
  if (it->ts_ns == ts_ns) return &*it;
  if (!enclosing) return nullptr;
  // Innermost enclosing span: walk back over earlier starts.
  for (;; --it) {
    if (it->ts_ns <= ts_ns && ts_ns <= it->end_ns) return &*it;
    if (it == v.begin()) return nullptr;
  }
}

void RocMapper::Join(const RocSpan& api, const RocSpan& op, int64_t id) {
  if (api.table != RocTable::kApi) return;
  if (!IsValid(t_.api_calls.correlation_id[api.row])) t_.api_calls.correlation_id[api.row] = id;
  const int64_t corr = t_.api_calls.correlation_id[api.row];
  static const RocCall kNone;
  const uint32_t call = api.row < call_of_api_.size() ? call_of_api_[api.row] : kNoCall;
  const RocCall& c = call != kNoCall ? calls_[call] : kNone;
  switch (op.table) {
    case RocTable::kKernel: {
      t_.kernels.correlation_id[op.row] = corr;
      if (!IsValid(t_.kernels.grid_x[op.row]) && c.has_grid) {
        t_.kernels.grid_x[op.row] = c.grid[0];
        t_.kernels.grid_y[op.row] = c.grid[1];
        t_.kernels.grid_z[op.row] = c.grid[2];
      }
      if (!IsValid(t_.kernels.block_x[op.row]) && c.has_block) {
        t_.kernels.block_x[op.row] = c.block[0];
        t_.kernels.block_y[op.row] = c.block[1];
        t_.kernels.block_z[op.row] = c.block[2];
      }
      if (IsValid(c.shared_mem)) t_.kernels.shared_mem_bytes[op.row] = RocToI32(c.shared_mem);
      break;
    }
    case RocTable::kMemcpy: {
      t_.memcpys.correlation_id[op.row] = corr;
      if (IsValid(c.copy_bytes) && c.copy_bytes >= 0) t_.memcpys.bytes[op.row] = c.copy_bytes;
      break;
    }
    case RocTable::kMemset: {
      t_.memsets.correlation_id[op.row] = corr;
      if (IsValid(c.set_bytes) && c.set_bytes >= 0) t_.memsets.bytes[op.row] = c.set_bytes;
      break;
    }
    default:
      break;
  }
}

Status RocMapper::Finish(const std::string& path, const ChromeDocument& doc) {
  done_.push_back(std::move(pending_));
  for (const std::vector<Pending>& chunk : done_)
    for (const Pending& p : chunk) Map(p);
  done_.clear();
  pending_.clear();
  for (auto& [lane, spans] : lanes_)
    std::stable_sort(spans.begin(), spans.end(),
                     [](const RocSpan& a, const RocSpan& b) { return a.ts_ns < b.ts_ns; });
  // A flow's start sits on (or inside) the HIP call, its end at the GPU op's start.
  std::unordered_map<int64_t, RocSpan> api_of;  // the first start of each flow id
  api_of.reserve(flows_.size() / 2 + 1);
  struct OpEnd {
    int64_t id;
    RocSpan op;
  };
  std::vector<OpEnd> ops_of;
  ops_of.reserve(flows_.size() / 2 + 1);
  for (const RocFlowEnd& f : flows_) {
    const RocSpan* s = Find(f.pid, f.tid, f.ts_ns, true);
    if (s == nullptr) continue;
    if (f.start) {
      api_of.emplace(f.id, *s);
    } else {
      ops_of.push_back({f.id, *s});
    }
  }
  // By flow id, then file order (a call's first id is the one it keeps).
  std::stable_sort(ops_of.begin(), ops_of.end(), [](const OpEnd& a, const OpEnd& b) { return a.id < b.id; });
  for (const OpEnd& o : ops_of) {
    auto api = api_of.find(o.id);
    if (api == api_of.end()) continue;
    Join(api->second, o.op, o.id);
  }
  uint64_t unlinked = 0;
  for (size_t i = 0; i < t_.kernels.size(); ++i) unlinked += !IsValid(t_.kernels.correlation_id[i]);
  for (size_t i = 0; i < t_.memcpys.size(); ++i) unlinked += !IsValid(t_.memcpys.correlation_id[i]);
  for (size_t i = 0; i < t_.memsets.size(); ++i) unlinked += !IsValid(t_.memsets.correlation_id[i]);
  if (unlinked) t_.stats.Bump(ImportStat::missing_correlation, unlinked);
  // Declared GPUs, named as the tool names them.
  for (const auto& [pid, name] : names_.process) {
    int32_t gpu = RocGpuOrdinal(name);
    if (!IsValid(gpu)) continue;
    model::Device& d = t_.GetOrAddDevice(gpu);
    d.vendor = model::Vendor::kAmd;
    if (d.name == kEmptyString) d.name = t_.strings.Intern(name);
  }
  const size_t gpu_rows = t_.kernels.size() + t_.memcpys.size() + t_.memsets.size();
  const char* tool = rocprof_v1_ || !doc.array_form ? "rocprof v1 results.json" : "RPD JSON (rpd2tracing)";
  if (gpu_rows + t_.api_calls.size() + t_.ranges.size() == 0)
    return InvalidInput(fmt::format(
        "{}: a {} with {} events but no HIP call, kernel or copy to analyse (tracing was off, "
        "or only metadata and counters were written)",
        path, tool, doc.events));
  t_.info.format = "rocprof-json";
  t_.info.format_version = rocprof_v1_ || !doc.array_form ? "rocprof-v1" : "rpd";
  t_.info.clock = rocprof_v1_ ? "hsa_system" : "rpd";
  t_.info.import_notes.push_back(fmt::format(
      "{}: {}; {} kernels, {} copies, {} fills, {} HIP calls, {} GPU ops linked to their call "
      "by flow events{}",
      tool,
      rocprof_v1_ ? "times from args.BeginNs/EndNs (ns, HSA clock)" : "ts/dur read as µs",
      t_.kernels.size(), t_.memcpys.size(), t_.memsets.size(), t_.api_calls.size(),
      gpu_rows - unlinked, counters_ ? fmt::format(", {} counter samples", counters_) : ""));
  t_.Finalize();
  for (model::Device& d : t_.devices) d.vendor = model::Vendor::kAmd;
  return Status::Ok();
}

}  // namespace

bool LooksLikeRocprofJson(std::string_view prefix) {
  const char head = ChromeTraceHead(prefix);
  auto has = [&](std::string_view s) { return prefix.find(s) != std::string_view::npos; };
  if (head == '{')
    return has("\"traceEvents\"") &&
           (has("\"CPU HIP API\"") || has("\"BeginNs\"") ||
            (has("\"process_name\"") && has("{\"name\":\"COPY\"}")));
  if (head == '[')
    return has("\"desc\":\"KernelExecution\"") || has("\"cat\":\"api_op\"") ||
           has("{\"name\":\"Hip ") || has("\"desc\":\"CopyHostToDevice\"");
  // rocprof v1 without tracing: bare ",{...}" lines (claimed to say so).
  size_t i = prefix.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && prefix[i] == ',' && has("\"process_name\"") &&
         has("\"COPY\"");
}

Status ReadRocprofJsonStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options) {
  return ReadChromeDialect<RocMapper>(in, trace, options);
}

Status RocprofJsonImporter::Read(const SourceInfo& src, model::Trace& trace) {
  const char head = ChromeTraceHead(src.prefix);
  if (head == 0) {
    size_t i = src.prefix.find_first_not_of(" \t\r\n");
    return InvalidInput(fmt::format(
        "{}: a rocprof v1 results.json without trace events (bare ',{{...}}' metadata lines "
        "starting at byte {}, not JSON): rocprof ran without --hip-trace/--sys-trace",
        src.path, i == std::string::npos ? 0 : i));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, ChromeStreamOptions()));
  RETURN_IF_ERROR(ReadRocprofJsonStream(*in, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
