// PyTorch legacy autograd-profiler Chrome trace (chrome_dialects.h).
#include <charconv>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

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

class LegacyMapper {
 public:
  explicit LegacyMapper(model::Trace& t) : t_(t) {}
  void Event(const ChromeEvent& ev);
  Status Finish(const std::string& path, const ChromeDocument& doc);

 private:
  struct OpAt {
    uint32_t row;
    int64_t start_ns;
    StringId name;
  };
  using KernelKey = std::tuple<int64_t, int64_t, StringId>;  // device, start, name

  void Complete(const ChromeEvent& ev);

  model::Trace& t_;
  std::unordered_map<int64_t, OpAt> last_op_;  // tid -> the latest op range
  std::map<int64_t, int64_t> flow_external_;   // flow id -> the launching op's external id
  std::map<KernelKey, int64_t> flow_at_kernel_;
  std::map<KernelKey, std::vector<uint32_t>> kernel_rows_;
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
      if (it == last_op_.end() || it->second.start_ns != ev.ts_ns) return;
      // The op that launched it: its external id is the first flow it starts.
      int64_t& ext = t_.ranges.external_id[it->second.row];
      if (!IsValid(ext)) ext = ev.id.num;
      flow_external_[ev.id.num] = ext;
      return;
    }
    case 'f':
      t_.stats.Bump(ImportStat::flow_event);
      if (!IsValid(ev.id.num) || !IsValid(ev.ts_ns)) return;
      flow_at_kernel_[{ev.tid.num, ev.ts_ns, t_.strings.Intern(ev.name)}] = ev.id.num;
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
    kernel_rows_[{ev.tid.num, start, k.name}].push_back(row);
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
  last_op_[ev.tid.num] = OpAt{row, start, r.name};
}

Status LegacyMapper::Finish(const std::string& path, const ChromeDocument& doc) {
  // Kernels meet their flow's end at (device, start, name).
  uint64_t linked = 0;
  for (const auto& [key, id] : flow_at_kernel_) {
    auto rows = kernel_rows_.find(key);
    if (rows == kernel_rows_.end()) continue;
    auto ext = flow_external_.find(id);
    for (uint32_t row : rows->second) {
      if (IsValid(t_.kernels.correlation_id[row])) continue;
      t_.kernels.correlation_id[row] = id;
      if (ext != flow_external_.end()) t_.kernels.external_id[row] = ext->second;
      ++linked;
      break;
    }
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

Status ReadTorchLegacyStream(InputStream& in, model::Trace& trace) {
  LegacyMapper m(trace);
  ChromeDocument doc;
  RETURN_IF_ERROR(
      ReadChromeTrace(in, trace.stats, &doc, [&m](const ChromeEvent& ev) { m.Event(ev); }, &trace));
  return m.Finish(in.path(), doc);
}

Status TorchLegacyImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, ChromeStreamOptions()));
  RETURN_IF_ERROR(ReadTorchLegacyStream(*in, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
