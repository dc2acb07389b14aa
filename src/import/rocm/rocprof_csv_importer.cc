#include "import/rocm/rocprof_csv_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "import/nsys/sqlite_db.h"  // OneLine
#include "import/rocm/rocm_common.h"
#include "import/smi/smi_common.h"

namespace gpuwhy::import {

using model::ImportStat;
using rocm::Cell;
using rocm::ParseI64;
using rocm::RocmColumns;
using rocm::RocmCsv;

namespace {

std::string_view RocprofCsvSkipBom(std::string_view s) {
  if (s.size() >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  return s;
}

RocprofCsvPart PartOfHeader(const RocmColumns& h) {
  bool start = h.Has("Start_Timestamp");
  if (h.Has("Counter_Name") && h.Has("Counter_Value")) return RocprofCsvPart::kV3CounterCollection;
  if (h.Has("Kernel_Name") && start && (h.Has("Grid_Size_X") || h.Has("Grid_Size")))
    return RocprofCsvPart::kV3KernelTrace;
  if (h.Has("Domain") && h.Has("Function") && start) return RocprofCsvPart::kV3ApiTrace;
  if (h.Has("Direction") && (h.Has("Source_Agent_Id") || h.Has("Destination_Agent_Id")) && start)
    return RocprofCsvPart::kV3MemoryCopy;
  if (h.Has("Agent_Type") && (h.Has("Cu_Count") || h.Has("Node_Id")))
    return RocprofCsvPart::kV3AgentInfo;
  if (h.Has("Name") && h.Has("Calls") && h.Has("TotalDurationNs")) return RocprofCsvPart::kStats;
  if (h.Has("KernelName") && (h.Has("gpu-id") || h.Has("grd"))) {
    return h.Has("BeginNs") && h.Has("EndNs") ? RocprofCsvPart::kV1Results
                                              : RocprofCsvPart::kV1Counters;
  }
  return RocprofCsvPart::kNone;
}

// RocprofCsvParser: one file's rows into the trace.
class RocprofCsvParser {
 public:
  RocprofCsvParser(std::string_view text, const std::string& name, model::Trace& t)
      : csv_(text), name_(name), t_(t) {}
  Status Run();

 private:
  // NextRow: the next data row with as many cells as the header; bumps
  // garbage_row / truncated_tail / repeated_header for the others.
  bool NextRow();
  int64_t Int(int col);
  int64_t TimeNs(int col);
  // Interval: start/end of the row, or false (counted) when unusable.
  bool Interval(int start_col, int end_col, int64_t* start, int64_t* end);

  Status Kernels(bool v1);
  Status Apis();
  Status Copies();
  Status Agents();
  Status Counters();
  Status Summary();
  Status V1Counters();
  Status NoRows(std::string_view what) const {
    return InvalidInput(
        fmt::format("{}: {} CSV with a header and no rows: nothing to analyse", name_, what));
  }

  RocmCsv csv_;
  const std::string& name_;
  model::Trace& t_;
  std::vector<std::string> header_names_;
  RocmColumns h_{{}};
  std::vector<std::string> row_;
  int64_t line_ = 0;
  int64_t rows_ = 0;
};

bool RocprofCsvParser::NextRow() {
  bool complete = true;
  while (csv_.Next(&row_, &line_, &complete)) {
    if (row_.size() == 1 && row_[0].empty()) continue;  // blank line
    if (row_.size() != h_.size()) {
      // A last record cut short is a truncated tail; any other odd row is garbage.
      t_.stats.Bump(complete ? ImportStat::garbage_row : ImportStat::truncated_tail);
      continue;
    }
    if (row_ == header_names_) {
      t_.stats.Bump(ImportStat::repeated_header);
      continue;
    }
    ++rows_;
    return true;
  }
  return false;
}

int64_t RocprofCsvParser::Int(int col) {
  std::string_view c = Cell(row_, col);
  int64_t v = ParseI64(c);
  if (!IsValid(v) && !c.empty() && c != "N/A") t_.stats.Bump(ImportStat::non_numeric_value);
  return v;
}

int64_t RocprofCsvParser::TimeNs(int col) {
  int64_t v = Int(col);
  if (IsValid(v) && !rocm::TimeOk(v)) {
    t_.stats.Bump(ImportStat::time_out_of_range);
    return kMissingI64;
  }
  return v;
}

bool RocprofCsvParser::Interval(int start_col, int end_col, int64_t* start, int64_t* end) {
  *start = TimeNs(start_col);
  *end = TimeNs(end_col);
  if (!IsValid(*start) || !IsValid(*end)) {
    t_.stats.Bump(ImportStat::missing_ts);
    return false;
  }
  if (*end < *start) {
    t_.stats.Bump(ImportStat::negative_dur);
    *end = *start;
  }
  return true;
}

Status RocprofCsvParser::Kernels(bool v1) {
  const RocmColumns& h = h_;
  int agent = v1 ? h.Find({"gpu-id", "gpu_id"}) : h.Find({"Agent_Id"});
  int stream = h.Find({"Stream_Id"});
  if (stream < 0) stream = h.Find({"Queue_Id", "queue-id"});
  // v1's dispatch Index is what its HIP/HSA traces link on.
  int corr = v1 ? h.Find({"Index"}) : h.Find({"Correlation_Id"});
  int name = h.Find({"Kernel_Name", "KernelName"});
  int start = h.Find({"Start_Timestamp", "BeginNs"});
  int end = h.Find({"End_Timestamp", "EndNs"});
  int pid = h.Find({"Process_Id", "pid"});
  int vgpr = h.Find({"VGPR_Count", "Arch_VGPR_Count", "arch_vgpr", "vgpr"});
  int lds = h.Find({"LDS_Block_Size", "Group_Segment_Size", "lds"});
  int wg[3] = {h.Find({"Workgroup_Size_X"}), h.Find({"Workgroup_Size_Y"}),
               h.Find({"Workgroup_Size_Z"})};
  int grid[3] = {h.Find({"Grid_Size_X"}), h.Find({"Grid_Size_Y"}), h.Find({"Grid_Size_Z"})};
  // v1 (and v3 without per-axis columns) gives totals: grd work-items in
  // workgroups of wgr work-items, kept as a 1-D launch.
  int grid_total = h.Find({"grd", "Grid_Size"});
  int wg_total = h.Find({"wgr", "Workgroup_Size"});
  while (NextRow()) {
    model::KernelRow k;
    if (!Interval(start, end, &k.start_ns, &k.end_ns)) continue;
    k.device_id = v1 ? rocm::ClampI32(Int(agent)) : rocm::AgentNumber(Cell(row_, agent));
    k.stream_id = Int(stream);
    k.correlation_id = Int(corr);
    k.name = t_.strings.Intern(rocm::StemOf(Cell(row_, name)));
    if (grid[0] >= 0 && wg[0] >= 0) {
      int32_t* gx[3] = {&k.grid_x, &k.grid_y, &k.grid_z};
      int32_t* bx[3] = {&k.block_x, &k.block_y, &k.block_z};
      for (int a = 0; a < 3; ++a) {
        int64_t w = Int(wg[a]), g = Int(grid[a]);
        *bx[a] = rocm::ClampI32(w);
        *gx[a] = rocm::Workgroups(g, w);
      }
    } else if (grid_total >= 0 && wg_total >= 0) {
      int64_t w = Int(wg_total);
      k.block_x = rocm::ClampI32(w);
      k.block_y = k.block_z = IsValid(k.block_x) ? 1 : kMissingI32;
      k.grid_x = rocm::Workgroups(Int(grid_total), w);
      k.grid_y = k.grid_z = IsValid(k.grid_x) ? 1 : kMissingI32;
    }
    k.registers_per_thread = rocm::ClampI32(Int(vgpr));
    k.shared_mem_bytes = rocm::ClampI32(Int(lds));
    if (!IsValid(k.correlation_id)) t_.stats.Bump(ImportStat::missing_correlation);
    int32_t p = rocm::ClampI32(Int(pid));
    t_.kernels.Append(k);
    if (IsValid(p)) t_.kernels.pid.Set(t_.kernels.size() - 1, p);
  }
  return rows_ == 0 ? NoRows(v1 ? "rocprof v1 results" : "rocprofv3 kernel_trace") : Status::Ok();
}

Status RocprofCsvParser::Apis() {
  int domain = h_.Find({"Domain"}), fn = h_.Find({"Function"});
  int pid = h_.Find({"Process_Id"}), tid = h_.Find({"Thread_Id"});
  int corr = h_.Find({"Correlation_Id"});
  int start = h_.Find({"Start_Timestamp"}), end = h_.Find({"End_Timestamp"});
  StringId roctx = t_.strings.Intern("roctx");
  while (NextRow()) {
    int64_t s, e;
    if (!Interval(start, end, &s, &e)) continue;
    std::string_view d = Cell(row_, domain);
    if (rocm::IsMarkerDomain(d)) {
      model::RangeRow r;
      r.pid = rocm::ClampI32(Int(pid));
      r.tid = Int(tid);
      r.start_ns = s;
      r.end_ns = e;
      r.name = t_.strings.Intern(Cell(row_, fn));
      r.kind = model::RangeKind::kUserAnnotation;
      t_.ranges.Append(r);
      t_.ranges.domain.Set(t_.ranges.size() - 1, roctx);
      continue;
    }
    model::ApiRow a;
    a.pid = rocm::ClampI32(Int(pid));
    a.tid = Int(tid);
    a.start_ns = s;
    a.end_ns = e;
    a.correlation_id = Int(corr);
    a.name = t_.strings.Intern(Cell(row_, fn));
    a.kind = rocm::ApiKindOfDomain(d);
    t_.api_calls.Append(a);
  }
  return rows_ == 0 ? NoRows("rocprofv3 API trace") : Status::Ok();
}

Status RocprofCsvParser::Copies() {
  int dir = h_.Find({"Direction"});
  int src = h_.Find({"Source_Agent_Id"}), dst = h_.Find({"Destination_Agent_Id"});
  int corr = h_.Find({"Correlation_Id"});
  int bytes = h_.Find({"Bytes", "Size", "Copy_Bytes"});
  int stream = h_.Find({"Stream_Id"});
  int start = h_.Find({"Start_Timestamp"}), end = h_.Find({"End_Timestamp"});
  while (NextRow()) {
    model::MemcpyRow m;
    if (!Interval(start, end, &m.start_ns, &m.end_ns)) continue;
    m.copy_kind = rocm::CopyKindOfDirection(Cell(row_, dir));
    if (m.copy_kind == model::CopyKind::kUnknown) t_.stats.Bump(ImportStat::unknown_memcpy_kind);
    int32_t s = rocm::AgentNumber(Cell(row_, src)), d = rocm::AgentNumber(Cell(row_, dst));
    // The GPU side of the copy is its device; a peer copy runs on the source.
    m.device_id = m.copy_kind == model::CopyKind::kHtoD ? d : s;
    if (!IsValid(m.device_id)) m.device_id = IsValid(d) ? d : s;
    m.correlation_id = Int(corr);
    m.bytes = Int(bytes);
    m.stream_id = Int(stream);
    t_.memcpys.Append(m);
    if (m.copy_kind == model::CopyKind::kDtoD) {
      t_.memcpys.src_device_id.Set(t_.memcpys.size() - 1, s);
      t_.memcpys.dst_device_id.Set(t_.memcpys.size() - 1, d);
    }
  }
  return rows_ == 0 ? NoRows("rocprofv3 memory_copy_trace") : Status::Ok();
}

Status RocprofCsvParser::Agents() {
  int id = h_.Find({"Logical_Node_Id", "Node_Id"});
  int type = h_.Find({"Agent_Type"});
  int cu = h_.Find({"Cu_Count"});
  int wave = h_.Find({"Wave_Front_Size"});
  int waves = h_.Find({"Max_Waves_Per_Cu"});
  int wg_max = h_.Find({"Workgroup_Max_Size"});
  int lds_kb = h_.Find({"Lds_Size_In_Kb"});
  int product = h_.Find({"Product_Name", "Marketing_Name"});
  int arch = h_.Find({"Name"});
  int gpus = 0;
  while (NextRow()) {
    if (Cell(row_, type) != "GPU") continue;
    rocm::AmdAgent a;
    a.id = rocm::ClampI32(Int(id));
    a.product_name = std::string(Cell(row_, product));
    a.arch_name = std::string(Cell(row_, arch));
    a.cu_count = rocm::ClampI32(Int(cu));
    a.wave_size = rocm::ClampI32(Int(wave));
    a.max_waves_per_cu = rocm::ClampI32(Int(waves));
    a.max_workgroup_size = rocm::ClampI32(Int(wg_max));
    int64_t kb = Int(lds_kb);
    if (IsValid(kb) && kb > 0 && kb < (int64_t{1} << 40)) a.lds_bytes = kb * 1024;
    if (!IsValid(a.id)) {
      t_.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    rocm::AddAmdDevice(t_, a);
    ++gpus;
  }
  if (gpus == 0)
    return InvalidInput(fmt::format(
        "{}: rocprofv3 agent_info CSV with {} agents and no GPU agent: nothing to analyse", name_,
        rows_));
  return Status::Ok();
}

Status RocprofCsvParser::Counters() {
  int dispatch = h_.Find({"Dispatch_Id"});
  int corr = h_.Find({"Correlation_Id"});
  if (dispatch < 0) dispatch = corr;
  int agent = h_.Find({"Agent_Id"});
  int queue = h_.Find({"Stream_Id"});
  if (queue < 0) queue = h_.Find({"Queue_Id"});
  int pid = h_.Find({"Process_Id"});
  int name = h_.Find({"Kernel_Name"});
  int grid = h_.Find({"Grid_Size"}), wg = h_.Find({"Workgroup_Size"});
  int lds = h_.Find({"LDS_Block_Size", "Group_Segment_Size"});
  int vgpr = h_.Find({"VGPR_Count", "Arch_VGPR_Count"});
  int counter = h_.Find({"Counter_Name"}), value = h_.Find({"Counter_Value"});
  int start = h_.Find({"Start_Timestamp"}), end = h_.Find({"End_Timestamp"});
  bool timed = start >= 0 && end >= 0;
  std::unordered_set<int64_t> seen;
  std::map<std::pair<int32_t, std::string>, size_t> series_of;
  std::map<int32_t, int64_t> index_of;  // untimed: per device sample index
  StringId source = t_.strings.Intern("rocprofv3 counter_collection");
  while (NextRow()) {
    int32_t dev = rocm::AgentNumber(Cell(row_, agent));
    int64_t id = Int(dispatch);
    int64_t s = kMissingI64, e = kMissingI64;
    if (timed && !Interval(start, end, &s, &e)) continue;
    bool first = !IsValid(id) || seen.insert(id).second;
    if (first && timed) {
      model::KernelRow k;
      k.start_ns = s;
      k.end_ns = e;
      k.device_id = dev;
      k.stream_id = Int(queue);
      k.correlation_id = Int(corr);
      k.name = t_.strings.Intern(rocm::StemOf(Cell(row_, name)));
      int64_t w = Int(wg);
      k.block_x = rocm::ClampI32(w);
      k.grid_x = rocm::Workgroups(Int(grid), w);
      if (IsValid(k.block_x)) k.block_y = k.block_z = 1;
      if (IsValid(k.grid_x)) k.grid_y = k.grid_z = 1;
      k.shared_mem_bytes = rocm::ClampI32(Int(lds));
      k.registers_per_thread = rocm::ClampI32(Int(vgpr));
      int32_t p = rocm::ClampI32(Int(pid));
      t_.kernels.Append(k);
      if (IsValid(p)) t_.kernels.pid.Set(t_.kernels.size() - 1, p);
    }
    double v = rocm::ParseF64(Cell(row_, value));
    if (!IsValid(v) && !Cell(row_, value).empty()) t_.stats.Bump(ImportStat::non_numeric_value);
    if (v < 0) {  // counts are never negative: a wrapped or damaged value
      t_.stats.Bump(ImportStat::negative_value);
      v = kMissingF64;
    }
    auto key = std::make_pair(dev, std::string(Cell(row_, counter)));
    auto [it, added] = series_of.try_emplace(key, t_.counters.size());
    if (added) {
      model::CounterSeries cs;
      cs.name = t_.strings.Intern(key.second);
      cs.unit = model::CounterUnit::kCount;
      cs.device_id = dev;
      cs.source = source;
      cs.ts_are_indexes = !timed;
      t_.counters.push_back(std::move(cs));
    }
    model::CounterSeries& cs = t_.counters[it->second];
    if (timed) {
      cs.ts_ns.push_back(e);
    } else {
      if (first) ++index_of[dev];
      cs.ts_ns.push_back(index_of[dev] - 1);
    }
    cs.value.push_back(v);
  }
  if (rows_ == 0) return NoRows("rocprofv3 counter_collection");
  return Status::Ok();
}

Status RocprofCsvParser::Summary() {
  int name = h_.Find({"Name"}), calls = h_.Find({"Calls"}), total = h_.Find({"TotalDurationNs"});
  std::string top;
  int64_t top_ns = -1, top_calls = 0, sum_ns = 0;
  while (NextRow()) {
    int64_t ns = ParseI64(Cell(row_, total));
    if (IsValid(ns) && ns > top_ns) {
      top_ns = ns;
      top = std::string(Cell(row_, name));
      top_calls = ParseI64(Cell(row_, calls));
    }
    if (IsValid(ns) && ns > 0 && sum_ns < INT64_MAX - ns) sum_ns += ns;
  }
  if (rows_ == 0) return NoRows("rocprof --stats summary");
  return InvalidInput(fmt::format(
      "{}: rocprof --stats summary ({} names, {:.3f} ms in all; most: {} with {} calls, {:.3f} ms): "
      "totals without a timeline, which gpuwhy cannot diagnose; give the trace of the same run "
      "(rocprofv3 kernel_trace.csv / rocpd .db, or rocprof v1 results.csv)",
      name_, rows_, sum_ns / 1e6, OneLine(rocm::StemOf(top), 80),
      IsValid(top_calls) ? fmt::format("{}", top_calls) : std::string("n/a"), top_ns / 1e6));
}

Status RocprofCsvParser::V1Counters() {
  // Counter columns are the ones past the dispatch description.
  static constexpr std::string_view kKnown[] = {
      "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr",
      "lds", "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size", "sig", "obj",
      "DispatchNs", "CompleteNs", "DurationNs"};
  std::string counters;
  int n = 0;
  for (const std::string& c : header_names_) {
    if (std::find(std::begin(kKnown), std::end(kKnown), c) != std::end(kKnown)) continue;
    if (n++ < 4) counters += (counters.empty() ? "" : ", ") + OneLine(c, 40);
  }
  if (n > 4) counters += ", ...";
  while (NextRow()) {
  }
  return InvalidInput(fmt::format(
      "{}: rocprof v1 counter results ({} dispatches; counters {}) without BeginNs/EndNs: no "
      "timeline, which gpuwhy cannot diagnose; run rocprof with --timestamp on (or --sys-trace) "
      "for one",
      name_, rows_, counters.empty() ? std::string("none") : counters));
}

Status RocprofCsvParser::Run() {
  bool complete = true;
  if (!csv_.Next(&header_names_, &line_, &complete) || header_names_.empty())
    return InvalidInput(fmt::format("{}: empty rocprof CSV", name_));
  h_ = RocmColumns(header_names_);
  RocprofCsvPart part = PartOfHeader(h_);
  bool v1 = part == RocprofCsvPart::kV1Results || part == RocprofCsvPart::kV1Counters;
  t_.info.format = v1 ? "rocprof-v1-csv" : "rocprofv3-csv";
  t_.info.format_version = std::string(RocprofPartName(part));
  t_.info.clock = v1 ? "hsa_system" : "rocprofiler";
  switch (part) {
    case RocprofCsvPart::kNone:
      return InvalidInput(fmt::format("{}: not a rocprof CSV (header at line 1 names no rocprof "
                                      "columns)", name_));
    case RocprofCsvPart::kV3KernelTrace: RETURN_IF_ERROR(Kernels(false)); break;
    case RocprofCsvPart::kV1Results: RETURN_IF_ERROR(Kernels(true)); break;
    case RocprofCsvPart::kV3ApiTrace: RETURN_IF_ERROR(Apis()); break;
    case RocprofCsvPart::kV3MemoryCopy: RETURN_IF_ERROR(Copies()); break;
    case RocprofCsvPart::kV3AgentInfo: RETURN_IF_ERROR(Agents()); break;
    case RocprofCsvPart::kV3CounterCollection: RETURN_IF_ERROR(Counters()); break;
    case RocprofCsvPart::kStats: return Summary();
    case RocprofCsvPart::kV1Counters: return V1Counters();
  }
  t_.Finalize();
  // Devices the events name (Finalize adds them) are AMD agents too.
  for (model::Device& d : t_.devices) d.vendor = model::Vendor::kAmd;
  return Status::Ok();
}

}  // namespace

RocprofCsvPart ClassifyRocprofCsv(std::string_view prefix) {
  prefix = RocprofCsvSkipBom(prefix);
  size_t nl = prefix.find('\n');
  if (nl == std::string_view::npos) return RocprofCsvPart::kNone;  // no whole header
  RocmCsv csv(prefix.substr(0, nl + 1));
  std::vector<std::string> cells;
  int64_t line = 0;
  bool complete = true;
  if (!csv.Next(&cells, &line, &complete) || cells.size() < 3) return RocprofCsvPart::kNone;
  return PartOfHeader(RocmColumns(std::move(cells)));
}

std::string_view RocprofPartName(RocprofCsvPart part) {
  switch (part) {
    case RocprofCsvPart::kNone: return "";
    case RocprofCsvPart::kV3KernelTrace: return "kernel_trace";
    case RocprofCsvPart::kV3ApiTrace: return "api_trace";
    case RocprofCsvPart::kV3MemoryCopy: return "memory_copy_trace";
    case RocprofCsvPart::kV3CounterCollection: return "counter_collection";
    case RocprofCsvPart::kV3AgentInfo: return "agent_info";
    case RocprofCsvPart::kStats: return "stats";
    case RocprofCsvPart::kV1Results: return "results";
    case RocprofCsvPart::kV1Counters: return "counters";
  }
  return "";
}

Status ParseRocprofCsv(std::string_view text, const std::string& name, model::Trace& trace) {
  RocprofCsvParser p(RocprofCsvSkipBom(text), name, trace);
  return p.Run();
}

Status RocprofCsvImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::string text, smi::ReadWholeFile(src.path));
  RETURN_IF_ERROR(ParseRocprofCsv(text, src.path, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
