// JAX / XLA trace viewer JSON (chrome_dialects.h).
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "import/chrome/chrome_dialects.h"
#include "import/chrome/chrome_trace_tokenizer.h"

namespace gpuwhy::import {

namespace {

using model::ImportStat;
using model::RangeKind;

int32_t JaxToI32(int64_t v) {
  if (!IsValid(v) || v <= std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max())
    return kMissingI32;
  return static_cast<int32_t>(v);
}

// JaxLeadingInt: the integer at the start of `s` (digits only), or kMissingI64.
int64_t JaxLeadingInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr != s.data() ? v : kMissingI64;
}

enum class JaxDeviceKind : uint8_t { kNone, kGpu, kTpu };

// JaxDeviceOf: "/device:GPU:3" (optionally followed by a description) ->
// {kGpu, 3}; TPUs likewise; anything else kNone.
std::pair<JaxDeviceKind, int32_t> JaxDeviceOf(std::string_view process) {
  for (auto [prefix, kind] : {std::pair<std::string_view, JaxDeviceKind>{"/device:GPU:", JaxDeviceKind::kGpu},
                              {"/device:TPU:", JaxDeviceKind::kTpu}}) {
    if (process.substr(0, prefix.size()) != prefix) continue;
    int32_t n = JaxToI32(JaxLeadingInt(process.substr(prefix.size())));
    if (IsValid(n)) return {kind, n};
  }
  return {JaxDeviceKind::kNone, kMissingI32};
}

// JaxStreamOf: N of a GPU line named "Stream #N" or "Stream #N(Compute)".
int64_t JaxStreamOf(std::string_view line) {
  constexpr std::string_view kPrefix = "Stream #";
  if (line.substr(0, kPrefix.size()) != kPrefix) return kMissingI64;
  return JaxLeadingInt(line.substr(kPrefix.size()));
}

// JaxDims: "x,y,z" after `key` in an xprof kernel_details string
// ("regs:32 static_shared:0 dynamic_shared:0 grid:128,1,1 block:256,1,1 ...").
bool JaxDims(std::string_view details, std::string_view key, int32_t out[3]) {
  size_t at = details.find(key);
  if (at == std::string_view::npos || (at > 0 && details[at - 1] != ' ')) return false;
  std::string_view rest = details.substr(at + key.size());
  for (int i = 0; i < 3; ++i) {
    int64_t v = JaxLeadingInt(rest);
    out[i] = JaxToI32(v);
    if (!IsValid(out[i])) return false;
    size_t comma = rest.find_first_not_of("0123456789");
    if (i < 2) {
      if (comma == std::string_view::npos || rest[comma] != ',') return false;
      rest = rest.substr(comma + 1);
    }
  }
  return true;
}

int64_t JaxDetail(std::string_view details, std::string_view key) {
  size_t at = details.find(key);
  if (at == std::string_view::npos || (at > 0 && details[at - 1] != ' ')) return kMissingI64;
  return JaxLeadingInt(details.substr(at + key.size()));
}

// JaxCopyKind: the direction in a GPU copy's name ("MemcpyHtoD", "memcpy DtoH").
model::CopyKind JaxCopyKind(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return model::CopyKind::kHtoD;
  if (name.find("DtoH") != std::string_view::npos) return model::CopyKind::kDtoH;
  if (name.find("DtoD") != std::string_view::npos) return model::CopyKind::kDtoD;
  if (name.find("HtoH") != std::string_view::npos) return model::CopyKind::kHtoH;
  if (name.find("PtoP") != std::string_view::npos || name.find("Peer") != std::string_view::npos)
    return model::CopyKind::kPtoP;
  return model::CopyKind::kUnknown;
}

bool JaxContainsCi(std::string_view s, std::string_view word) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return std::search(s.begin(), s.end(), word.begin(), word.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != s.end();
}

// JaxMapper: the mapping of the whole document (over the trace) or of one
// segment (over its own part, on a worker); Absorb folds a segment's in.
// Events become Pending records (the names of processes and threads, and
// the unit, are known only at the end); Finish maps them in file order.
class JaxMapper {
 public:
  explicit JaxMapper(model::Trace& t) : t_(t) {}
  void Event(const ChromeEvent& ev);
  // Absorb: `seg` holds the events that follow this mapper's in the file
  // (rows are placed in Finish: no table grows here).
  void Absorb(JaxMapper& seg, double growth);
  // Clear: forget the events seen, keeping buffers (a segment's, for reuse).
  void Clear() {
    names_.Clear();
    pending_.clear();
    done_.clear();
    fractional_ = us_overflow_ = false;
  }
  Status Finish(const std::string& path, const ChromeDocument& doc);

 private:
  struct Pending {  // an X event waiting for the process/thread names and the unit
    int64_t pid, tid;
    int64_t ts_us_ns, dur_us_ns;  // the values read as µs, in ns (missing on overflow)
    int64_t ts_int, dur_int;      // the values as integers when written so
    StringId name;
    int64_t step_num, correlation_id, group_id;
    // Read from the event itself on the worker (Finish only places rows):
    // args.kernel_details, and what the name says a device op is.
    int32_t grid[3], block[3];     // missing unless given
    int32_t regs, smem_bytes;      // missing unless given
    bool memcpy_name, memset_name;
    model::CopyKind copy_kind;
  };
  // Lane: what a (pid, tid) line is, from the process and thread names.
  struct Lane {
    JaxDeviceKind kind = JaxDeviceKind::kNone;
    int32_t device = kMissingI32;
    int64_t stream = kMissingI64;  // "Stream #N" lines
    bool op_line = false;          // "XLA Ops" standing for the device's work
    bool steps_line = false;       // a device's "Steps" line
  };

  void Map(const Pending& p, const Lane& lane, bool ns_unit);
  Lane LaneOf(int64_t pid, int64_t tid);

  model::Trace& t_;
  ChromeNames names_;
  std::vector<Pending> pending_;
  // Earlier pending records, in file order: a segment's are moved in whole
  // (copying them into one vector was most of the reader thread's time).
  std::vector<std::vector<Pending>> done_;
  std::map<int32_t, bool> device_has_streams_;  // a device with "Stream #N" lines
  bool fractional_ = false;    // some ts/dur had a fraction: µs with ns digits
  bool us_overflow_ = false;   // some integer ts read as µs would pass year 2262
  uint64_t device_ops_ = 0, host_events_ = 0, steps_ = 0;
};

void JaxMapper::Event(const ChromeEvent& ev) {
  if (ev.ph.size() != 1) {
    if (!ev.ph.empty() || ev.has_args || !ev.name.empty()) t_.stats.Bump(ImportStat::unknown_phase);
    return;  // "{}"
  }
  switch (ev.ph[0]) {
    case 'M': {
      t_.stats.Bump(ImportStat::metadata_event);
      names_.Note(ev);
      return;
    }
    case 'X':
      break;
    case 's':
    case 't':
    case 'f':
      t_.stats.Bump(ImportStat::flow_event);  // the link is correlation_id in args
      return;
    case 'C':
      t_.stats.Bump(ImportStat::counter_event);
      return;
    default:
      t_.stats.Bump(ImportStat::unknown_phase);
      return;
  }
  Pending p;
  p.ts_int = JaxLeadingInt(ev.ts_text);
  if (!IsValid(ev.ts_ns) && !(ev.ts_bad && IsValid(p.ts_int))) {
    t_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  p.dur_int = JaxLeadingInt(ev.dur_text);
  if (!IsValid(ev.dur_ns) && !(ev.dur_bad && IsValid(p.dur_int))) {
    t_.stats.Bump(ev.dur_bad ? ImportStat::bad_field_type : ImportStat::missing_dur);
    return;
  }
  if (!IsValid(ev.pid.num)) {
    t_.stats.Bump(ImportStat::bad_field_type);
    return;
  }
  auto whole = [](std::string_view text) {
    return text.find_first_of(".eE") == std::string_view::npos;
  };
  if (!whole(ev.ts_text) || !whole(ev.dur_text)) fractional_ = true;
  if (!IsValid(ev.ts_ns) || !PlausibleTimeNs(ev.ts_ns)) us_overflow_ = true;
  p.pid = ev.pid.num;
  p.tid = ev.tid.num;
  p.ts_us_ns = ev.ts_ns;
  p.dur_us_ns = ev.dur_ns;
  p.name = t_.strings.Intern(ev.name);
  p.step_num = ev.ArgInt("step_num");
  p.correlation_id = ev.ArgInt("correlation_id");
  p.group_id = ev.ArgInt("group_id");
  const std::string_view details = ev.ArgText("kernel_details");
  for (int i = 0; i < 3; ++i) p.grid[i] = p.block[i] = kMissingI32;
  p.regs = p.smem_bytes = kMissingI32;
  if (!details.empty()) {
    int32_t dims[3];
    if (JaxDims(details, "grid:", dims)) std::copy(dims, dims + 3, p.grid);
    if (JaxDims(details, "block:", dims)) std::copy(dims, dims + 3, p.block);
    p.regs = JaxToI32(JaxDetail(details, "regs:"));
    const int64_t smem_s = JaxDetail(details, "static_shared:");
    const int64_t smem_d = JaxDetail(details, "dynamic_shared:");
    if (IsValid(smem_s) && IsValid(smem_d)) p.smem_bytes = JaxToI32(smem_s + smem_d);
  }
  p.memcpy_name = JaxContainsCi(ev.name, "memcpy");
  p.memset_name = !p.memcpy_name && JaxContainsCi(ev.name, "memset");
  p.copy_kind = p.memcpy_name ? JaxCopyKind(ev.name) : model::CopyKind::kUnknown;
  pending_.push_back(p);
}

void JaxMapper::Absorb(JaxMapper& seg, double) {
  const model::Trace& part = seg.t_;
  std::vector<StringId> remap;
  t_.strings.InternAll(part.strings, &remap);
  t_.stats.Merge(part.stats);
  names_.Absorb(seg.names_);
  for (Pending& p : seg.pending_) p.name = remap[p.name];
  if (!pending_.empty()) done_.push_back(std::move(pending_));
  pending_.clear();
  done_.push_back(std::move(seg.pending_));
  seg.pending_.clear();
  fractional_ = fractional_ || seg.fractional_;
  us_overflow_ = us_overflow_ || seg.us_overflow_;
}

JaxMapper::Lane JaxMapper::LaneOf(int64_t pid, int64_t tid) {
  Lane lane;
  auto proc = names_.process.find(pid);
  if (proc == names_.process.end()) return lane;
  std::tie(lane.kind, lane.device) = JaxDeviceOf(proc->second);
  if (lane.kind == JaxDeviceKind::kNone) return lane;
  auto line_it = names_.thread.find({pid, tid});
  const std::string_view line = line_it != names_.thread.end() ? std::string_view(line_it->second) : "";
  lane.stream = JaxStreamOf(line);
  // A TPU (or a GPU trace without stream lines) shows its work as "XLA Ops".
  lane.op_line = line == "XLA Ops" && !device_has_streams_[lane.device];
  lane.steps_line = line == "Steps";
  return lane;
}

void JaxMapper::Map(const Pending& p, const Lane& lane, bool ns_unit) {
  int64_t start = ns_unit ? p.ts_int : p.ts_us_ns;
  int64_t dur = ns_unit ? p.dur_int : p.dur_us_ns;
  if (!IsValid(start) || !IsValid(dur)) {
    t_.stats.Bump(ImportStat::bad_field_type);
    return;
  }
  if (dur < 0) {
    t_.stats.Bump(ImportStat::negative_dur);
    dur = 0;
  }
  int64_t end = 0;
  if (__builtin_add_overflow(start, dur, &end) || !PlausibleTimeNs(start) || !PlausibleTimeNs(end)) {
    t_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  const int32_t device = lane.device;
  const std::string_view name = t_.Str(p.name);

  if (lane.kind != JaxDeviceKind::kNone) {
    const int64_t stream = lane.stream;
    if (IsValid(stream) || lane.op_line) {
      ++device_ops_;
      const int64_t sid = IsValid(stream) ? stream : p.tid;
      if (IsValid(stream) && p.memcpy_name) {
        model::MemcpyRow m;
        m.device_id = device;
        m.stream_id = sid;
        m.start_ns = start;
        m.end_ns = end;
        m.correlation_id = p.correlation_id;
        m.copy_kind = p.copy_kind;
        if (m.copy_kind == model::CopyKind::kUnknown) t_.stats.Bump(ImportStat::unknown_memcpy_kind);
        t_.memcpys.Append(m);
        return;
      }
      if (IsValid(stream) && p.memset_name) {
        model::MemsetRow m;
        m.device_id = device;
        m.stream_id = sid;
        m.start_ns = start;
        m.end_ns = end;
        m.correlation_id = p.correlation_id;
        t_.memsets.Append(m);
        return;
      }
      model::KernelRow k;
      k.device_id = device;
      k.stream_id = sid;
      k.start_ns = start;
      k.end_ns = end;
      k.name = p.name;
      k.correlation_id = p.correlation_id;
      k.grid_x = p.grid[0];
      k.grid_y = p.grid[1];
      k.grid_z = p.grid[2];
      k.block_x = p.block[0];
      k.block_y = p.block[1];
      k.block_z = p.block[2];
      k.registers_per_thread = p.regs;
      k.shared_mem_bytes = p.smem_bytes;
      t_.kernels.Append(k);
      return;
    }
    // Other device lines ("XLA Modules", "XLA Ops" beside streams, "Steps",
    // "TensorFlow Ops"): annotations of the device's work.
    model::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = p.name;
    r.kind = RangeKind::kGpuUserAnnotation;
    r.device_id = device;
    r.tid = p.tid;
    if (lane.steps_line) {
      // xprof names a device's step events by their number.
      r.step = JaxToI32(IsValid(p.step_num) ? p.step_num : JaxLeadingInt(name));
      if (IsValid(r.step)) {
        r.kind = RangeKind::kUserAnnotation;  // the run's step marker
        ++steps_;
      }
    }
    t_.ranges.Append(r);
    return;
  }

  ++host_events_;
  if (IsValid(p.correlation_id)) {
    // A CUDA/HIP API call the tracer correlated with device work.
    model::ApiRow a;
    a.pid = JaxToI32(p.pid);
    a.tid = p.tid;
    a.start_ns = start;
    a.end_ns = end;
    a.name = p.name;
    a.correlation_id = p.correlation_id;
    a.kind = name.substr(0, 2) == "cu" && name.substr(0, 4) != "cuda" ? model::ApiKind::kDriver
                                                                       : model::ApiKind::kRuntime;
    t_.api_calls.Append(a);
    return;
  }
  // Host TraceMe annotations (python functions, jit dispatch, step markers).
  model::RangeRow r;
  r.pid = JaxToI32(p.pid);
  r.tid = p.tid;
  r.start_ns = start;
  r.end_ns = end;
  r.name = p.name;
  r.kind = RangeKind::kUserAnnotation;
  // StepTraceAnnotation(..., step_num=N) writes step_num; "StepMarker"
  // events carry group_id as their step.
  if (IsValid(p.step_num)) {
    r.step = JaxToI32(p.step_num);
  } else if (name == "StepMarker" && IsValid(p.group_id)) {
    r.step = JaxToI32(p.group_id);
  }
  if (IsValid(r.step)) ++steps_;
  t_.ranges.Append(r);
}

Status JaxMapper::Finish(const std::string& path, const ChromeDocument& doc) {
  for (const auto& [key, line] : names_.thread) {
    auto proc = names_.process.find(key.first);
    if (proc == names_.process.end()) continue;
    const auto [kind, device] = JaxDeviceOf(proc->second);
    if (kind != JaxDeviceKind::kNone && IsValid(JaxStreamOf(line))) device_has_streams_[device] = true;
  }
  // The unit: the Trace Event Format's µs unless the data can only be ns
  // (integers whose µs reading passes year 2262). displayTimeUnit is a
  // display hint, and xprof writes "ns" there over µs values.
  const bool ns_unit = us_overflow_ && !fractional_;
  std::unordered_map<std::pair<int64_t, int64_t>, Lane, ChromeLaneHash> lanes;
  std::pair<int64_t, int64_t> last_key{kMissingI64, kMissingI64};
  const Lane* last = nullptr;
  done_.push_back(std::move(pending_));
  for (const std::vector<Pending>& chunk : done_) {
    for (const Pending& p : chunk) {
      const std::pair<int64_t, int64_t> key{p.pid, p.tid};
      if (last == nullptr || key != last_key) {
        auto it = lanes.find(key);
        if (it == lanes.end()) it = lanes.emplace(key, LaneOf(p.pid, p.tid)).first;
        last = &it->second;
        last_key = key;
      }
      Map(p, *last, ns_unit);
    }
  }
  done_.clear();
  pending_.clear();

  uint32_t gpus = 0, tpus = 0;
  for (const auto& [pid, name] : names_.process) {
    const auto [kind, device] = JaxDeviceOf(name);
    if (kind == JaxDeviceKind::kNone) continue;
    model::Device& d = t_.GetOrAddDevice(device);
    if (d.name == kEmptyString) d.name = t_.strings.Intern(name);
    if (kind == JaxDeviceKind::kTpu) d.vendor = model::Vendor::kGoogle;
    if (JaxContainsCi(name, "nvidia")) d.vendor = model::Vendor::kNvidia;
    if (JaxContainsCi(name, "amd") || JaxContainsCi(name, "radeon") || JaxContainsCi(name, "instinct"))
      d.vendor = model::Vendor::kAmd;
    (kind == JaxDeviceKind::kGpu ? gpus : tpus) += 1;
  }
  const size_t rows = t_.kernels.size() + t_.memcpys.size() + t_.memsets.size() +
                      t_.ranges.size() + t_.api_calls.size();
  if (rows == 0)
    return InvalidInput(fmt::format(
        "{}: a JAX/XLA trace ({} events, {} GPU and {} TPU device processes) with no complete "
        "(X) event on a device or host line: nothing to analyse",
        path, doc.events, gpus, tpus));
  t_.info.format = "jax-trace-json";
  t_.info.clock = "jax_profiler";
  t_.info.host_only_profile = gpus + tpus == 0;
  std::string why;
  if (ns_unit)
    why = "read as ns: whole numbers too large for µs";
  else if (doc.display_time_unit == "ns")
    why = fractional_ ? "read as µs although displayTimeUnit says \"ns\": the values carry fractions "
                        "of a µs (ns digits), as xprof writes them"
                      : "read as µs although displayTimeUnit says \"ns\" (a display hint; the "
                        "values fit µs)";
  else
    why = "read as µs (the Trace Event Format's unit)";
  t_.info.import_notes.push_back(fmt::format(
      "JAX/XLA trace: ts/dur {}; {} GPU and {} TPU devices, {} device ops, {} host events, {} "
      "step markers{}",
      why, gpus, tpus, device_ops_, host_events_, steps_,
      gpus + tpus == 0 ? "; no /device: process: a host-only profile" : ""));
  t_.Finalize();
  return Status::Ok();
}

}  // namespace

bool LooksLikeJaxTrace(std::string_view prefix) {
  const char head = ChromeTraceHead(prefix);
  if (head != '{' && head != '[') return false;
  // Kineto's own keys: a Kineto trace that merely mentions such a name stays
  // Kineto's (which hands a real JAX profile back, KinetoImporter::Read).
  for (std::string_view key : {"\"schemaVersion\"", "\"deviceProperties\"", "\"baseTimeNanoseconds\""})
    if (prefix.find(key) != std::string_view::npos) return false;
  return prefix.find("\"/device:GPU:") != std::string_view::npos ||
         prefix.find("\"/device:TPU:") != std::string_view::npos ||
         prefix.find("\"/host:CPU") != std::string_view::npos;
}

Status ReadJaxTraceStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options) {
  return ReadChromeDialect<JaxMapper>(in, trace, options);
}

Status JaxTraceImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, ChromeStreamOptions()));
  RETURN_IF_ERROR(ReadJaxTraceStream(*in, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
