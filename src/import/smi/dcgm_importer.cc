#include "import/smi/dcgm_importer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <string>

#include "base/ascii.h"
#include "base/input_stream.h"
#include "import/smi/smi_common.h"
#include "model/dcgm_fields.h"

namespace gpuwhy::import {

using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;
using smi::MetricSpec;

namespace {

// DcgmSpec: the model mapping of a DCGM field given by any of its names
// (model/dcgm_fields.h). The DCGM test program's `throttle_reason_*` flags are
// counts of their own, kept as kOther.
MetricSpec DcgmSpec(std::string_view raw) {
  double scale = 1;
  if (const model::DcgmField* f = model::FindDcgmField(raw, &scale))
    return MetricSpec{f->kind, f->unit, scale, true};
  if (AsciiUpper(smi::Trim(raw)).rfind("THROTTLE_REASON_", 0) == 0)
    return MetricSpec{CounterKind::kOther, CounterUnit::kCount, 1, true};
  return {};
}

// DcgmUpperShort: `c` upper-cased, or "" past 16 characters (no column name
// compared here is longer; data cells skip the allocation of a long string).
std::string DcgmUpperShort(std::string_view c) { return c.size() > 16 ? std::string() : AsciiUpper(c); }

bool IsGpuColumn(std::string_view c) {
  if (c.empty() || std::isdigit(static_cast<unsigned char>(c[0]))) return false;
  std::string u = DcgmUpperShort(c);
  return u == "GPUID" || u == "GPU" || u == "ENTITY" || u == "ENTITYID" || u == "GPU_ID" ||
         u == "ENTITY_ID" || u == "GPU_INDEX" || u == "#ENTITY";
}
// IsEntityGroupColumn: DCGM's entity group beside the entity id (pydcgm
// scripts write `entityGroupId,entityId,...`): 1 GPU, 4 GPU instance, 5
// compute instance (dcgm_field_entity_group_t), or the names.
bool IsEntityGroupColumn(std::string_view c) {
  std::string u = DcgmUpperShort(c);
  return u == "ENTITYGROUPID" || u == "ENTITY_GROUP_ID" || u == "ENTITY_GROUP" ||
         u == "ENTITYGROUP" || u == "ENTITY_TYPE";
}

// DcgmGroupKind: the EntityDevice kind of an entity-group cell; "" for groups
// that are not GPUs (vGPU, NVSwitch, NVLink, CPU) or unreadable cells.
std::string_view DcgmGroupKind(std::string_view g) {
  g = smi::Trim(g);
  if (g == "1" || g == "GPU" || g == "DCGM_FE_GPU") return "GPU";
  if (g == "4" || g == "GPU_I" || g == "GPU-I" || g == "DCGM_FE_GPU_I") return "GPU-I";
  if (g == "5" || g == "GPU_CI" || g == "GPU-CI" || g == "DCGM_FE_GPU_CI") return "GPU-CI";
  return {};
}

bool IsTimeColumn(std::string_view c) {
  if (c.empty() || std::isdigit(static_cast<unsigned char>(c[0]))) return false;
  std::string u = DcgmUpperShort(c);
  return u == "TIMESTAMPUS" || u == "TIMESTAMP" || u == "TIME" || u == "TS" || u == "DATETIME" ||
         u == "TIMESTAMP_US" || u == "EPOCH";
}

// NoteDcgmFields: one import note per mapped field kind that a reader could
// take for something else (GRACT is engine time, not SM activity) and per MIG
// entity seen.
void NoteDcgmFields(model::Trace& t) {
  bool gr = false, sm = false, mig = false;
  for (const model::CounterSeries& s : t.counters) {
    gr = gr || s.kind == CounterKind::kGrEngineActive;
    sm = sm || s.kind == CounterKind::kSmActive;
    mig = mig || s.device_id >= smi::kMigInstanceDeviceBase;
  }
  if (gr)
    t.info.import_notes.push_back(
        std::string("GRACT (DCGM 1001) read as graphics-engine activity: time a context kept the "
                    "engine busy, not SM activity") +
        (sm ? "; SMACT (1002) gives SM activity" : "; no SMACT (1002) column, so SM activity is "
                                                   "unknown"));
  if (mig)
    t.info.import_notes.push_back("MIG entities kept as their own devices: GPU instance N as "
                                  "device 1000+N, compute instance N as 2000+N");
}

double ParseValue(model::Trace& t, std::string_view cell, double scale) {
  if (smi::IsMissingText(cell)) return kMissingF64;
  double v;
  if (!smi::ParseNumber(cell, &v, nullptr)) {
    t.stats.Bump(ImportStat::non_numeric_value);
    return kMissingF64;
  }
  return smi::CheckedValue(t, v) * scale;
}

Status ReadDmonText(const std::vector<std::string_view>& lines, bool last_complete,
                    model::Trace& t) {
  smi::SeriesBuilder series(t, "dcgmi dmon");
  std::vector<std::string> cols;
  std::vector<MetricSpec> specs;  // per column, looked up once per header
  for (size_t li = 0; li < lines.size(); ++li) {
    std::vector<std::string_view> c = smi::SplitWhitespace(lines[li]);
    if (c.empty()) continue;
    if (c[0] == "#Entity") {
      if (!cols.empty()) t.stats.Bump(ImportStat::repeated_header);
      cols.assign(c.begin() + 1, c.end());
      specs.clear();
      for (const std::string& x : cols) {
        MetricSpec spec = DcgmSpec(x);
        if (!spec.known) spec = {CounterKind::kOther, CounterUnit::kUnknown, 1, true};
        specs.push_back(spec);
      }
      continue;
    }
    if (c[0] == "ID" || c[0][0] == '#') continue;  // units line / comments
    // Rows: "GPU 0  0.123 ..." (entity kind, id, values).
    bool tail = li + 1 == lines.size() && !last_complete;
    const int32_t dev = c.size() >= 2 ? smi::EntityDevice(c[0], c[1]) : kMissingI32;
    if (cols.empty() || c.size() != cols.size() + 2 || !IsValid(dev)) {
      t.stats.Bump(tail ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      const MetricSpec& spec = specs[i];
      series.Add(dev, cols[i], spec, kMissingI64, ParseValue(t, c[i + 2], spec.scale));
    }
  }
  series.Finish();
  if (t.counters.empty()) return InvalidInput("no dcgmi dmon rows found");
  return Status::Ok();
}

Status ReadCsv(const std::vector<std::string_view>& lines, bool last_complete, model::Trace& t) {
  smi::SeriesBuilder series(t, "dcgm");
  std::vector<std::string_view> header;
  std::vector<MetricSpec> specs;  // per wide column, looked up once per header
  std::map<std::string, MetricSpec, std::less<>> field_specs;  // long form, per field name
  int gpu_col = -1, time_col = -1, field_col = -1, value_col = -1, group_col = -1;
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    std::vector<std::string_view> c = smi::SplitCells(l);
    bool is_header = false;
    for (std::string_view x : c) is_header = is_header || IsTimeColumn(x) || IsGpuColumn(x);
    if (is_header) {
      if (!header.empty()) t.stats.Bump(ImportStat::repeated_header);
      header = c;
      specs.clear();
      for (std::string_view x : c) specs.push_back(DcgmSpec(x));
      gpu_col = time_col = field_col = value_col = group_col = -1;
      for (size_t i = 0; i < c.size(); ++i) {
        std::string u = AsciiUpper(c[i]);
        if (IsEntityGroupColumn(c[i])) group_col = static_cast<int>(i);
        else if (IsGpuColumn(c[i]) && gpu_col < 0) gpu_col = static_cast<int>(i);
        else if (IsTimeColumn(c[i])) time_col = static_cast<int>(i);
        else if (u == "FIELD" || u == "FIELDID" || u == "FIELD_ID") field_col = static_cast<int>(i);
        else if (u == "VALUES" || u == "VALUE") value_col = static_cast<int>(i);
      }
      continue;
    }
    bool tail = li + 1 == lines.size() && !last_complete;
    if (header.empty() || c.size() != header.size() || tail) {
      t.stats.Bump(tail ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    int32_t dev = gpu_col >= 0 ? smi::EntityDevice(c[static_cast<size_t>(gpu_col)], {}) : 0;
    if (group_col >= 0 && gpu_col >= 0) {
      const std::string_view kind = DcgmGroupKind(c[static_cast<size_t>(group_col)]);
      dev = kind.empty() ? kMissingI32 : smi::EntityDevice(kind, c[static_cast<size_t>(gpu_col)]);
    }
    if (!IsValid(dev)) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    int64_t ts = kMissingI64;
    if (time_col >= 0 && !smi::ParseTimestamp(c[static_cast<size_t>(time_col)], &ts)) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    if (field_col >= 0 && value_col >= 0) {  // long format
      std::string_view field = c[static_cast<size_t>(field_col)];
      auto it = field_specs.find(field);
      if (it == field_specs.end()) {
        MetricSpec spec = DcgmSpec(field);
        if (!spec.known) spec = {CounterKind::kOther, CounterUnit::kUnknown, 1, true};
        it = field_specs.emplace(std::string(field), spec).first;
      }
      const MetricSpec& spec = it->second;
      series.Add(dev, field, spec, ts, ParseValue(t, c[static_cast<size_t>(value_col)], spec.scale));
      continue;
    }
    for (size_t i = 0; i < c.size(); ++i) {  // wide format
      if (static_cast<int>(i) == gpu_col || static_cast<int>(i) == time_col ||
          static_cast<int>(i) == group_col)
        continue;
      const MetricSpec& spec = specs[i];
      if (!spec.known) continue;
      series.Add(dev, header[i], spec, ts, ParseValue(t, c[i], spec.scale));
    }
  }
  series.Finish();
  if (t.counters.empty()) return InvalidInput("no DCGM samples found");
  return Status::Ok();
}

}  // namespace

bool LooksLikeDcgm(std::string_view prefix) {
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  for (size_t i = 0; i < lines.size() && i < 20; ++i) {
    std::string_view l = smi::Trim(lines[i]);
    if (l.rfind("#Entity", 0) == 0) return true;
    if (l.empty() || l[0] == '{' || l[0] == '[') continue;
    std::vector<std::string_view> c = smi::SplitCells(l);
    bool gpu = false, time = false, field = false, dcgm = false;
    size_t named = 0;  // cells that name a DCGM field by short name, id or DCGM_FI_ name
    size_t ids = 0, keys = 0;  // cells that are field ids; gpu/time cells
    size_t prof = 0;  // profiling fields (1001+) by name, any case: "smact", "sm_active"
    for (std::string_view x : c) {
      if (!x.empty() && std::isalpha(static_cast<unsigned char>(x[0]))) {
        const model::DcgmField* f = model::FindDcgmField(x);
        prof += f != nullptr && f->id >= 1001;
      }
      keys += IsGpuColumn(x) || IsTimeColumn(x);
      ids += !x.empty() && std::isdigit(static_cast<unsigned char>(x[0])) &&
             model::FindDcgmField(x) != nullptr;
      gpu = gpu || IsGpuColumn(x);
      time = time || IsTimeColumn(x);
      std::string u = AsciiUpper(x);
      field = field || u == "FIELD" || u == "FIELDID" || u == "FIELD_ID";
      dcgm = dcgm || u.rfind("DCGM_FI_", 0) == 0;
      // Upper case only: "power" or "1002" in a script's header is not DCGM's.
      if (u == x && model::FindDcgmField(x) != nullptr &&
          (u.rfind("DCGM_FI_", 0) == 0 || std::isalpha(static_cast<unsigned char>(u[0]))))
        ++named;
    }
    if ((gpu && field) || (dcgm && (gpu || time))) return true;
    // A wide CSV of dmon short names (GPU,SMACT,SMOCC,...): most other cells
    // name fields too.
    if (gpu && named >= 1 && named * 2 + 2 >= c.size()) return true;
    // Field ids as column names (`dcgmi dmon -e 1001,1002` logged by a
    // script): every other cell is the entity or the time.
    if (gpu && ids >= 1 && ids + keys == c.size()) return true;
    // Profiling fields are DCGM's whatever the case a script wrote them in.
    if ((gpu || time) && prof >= 1) return true;
  }
  return false;
}

Status ReadDcgmText(std::string_view text, model::Trace& t) {
  t.info.format = "dcgm";
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  bool dmon = false;
  for (size_t i = 0; i < lines.size() && i < 20; ++i)
    dmon = dmon || smi::Trim(lines[i]).rfind("#Entity", 0) == 0;
  RETURN_IF_ERROR(dmon ? ReadDmonText(lines, last_complete, t) : ReadCsv(lines, last_complete, t));
  for (const model::CounterSeries& s : t.counters) {
    model::Device& d = t.GetOrAddDevice(s.device_id);
    d.vendor = model::Vendor::kNvidia;
    if (s.device_id >= smi::kMigInstanceDeviceBase && d.name == kEmptyString) {
      const bool ci = s.device_id >= smi::kMigComputeDeviceBase;
      d.name = t.strings.Intern(
          (ci ? "MIG compute instance " : "MIG GPU instance ") +
          std::to_string(s.device_id - (ci ? smi::kMigComputeDeviceBase : smi::kMigInstanceDeviceBase)));
    }
  }
  bool mapped = false;
  std::string fields;
  for (const model::CounterSeries& s : t.counters) {
    mapped = mapped || s.kind != CounterKind::kOther;
    if (fields.find(t.Str(s.name)) == std::string::npos && fields.size() < 200)
      fields += (fields.empty() ? "" : ", ") + std::string(t.Str(s.name));
  }
  if (!mapped)
    return InvalidInput("DCGM log with fields " + fields +
                        ": none gpuwhy maps (utilization, SM activity, memory, power, clocks: "
                        "docs/log_formats.md)");
  // Profiling fields are ratios; a script that logged them as percent (a
  // column above 1) is read as percent, and says so.
  for (model::CounterSeries& s : t.counters) {
    if (s.unit != CounterUnit::kRatio) continue;
    double hi = 0;
    for (double v : s.value)
      if (IsValid(v)) hi = std::max(hi, v);
    if (hi <= 1.0 + 1e-9 || hi > 100.0) continue;
    for (double& v : s.value)
      if (IsValid(v)) v *= 0.01;
    t.info.import_notes.push_back(std::string("`") + std::string(t.Str(s.name)) +
                                  "` (GPU " + std::to_string(s.device_id) +
                                  ") holds values above 1: read as percent, not as DCGM's ratio");
  }
  NoteDcgmFields(t);
  t.Finalize();
  return Status::Ok();
}

Status DcgmImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path));
  std::string text;
  char buf[1 << 16];
  while (true) {
    ASSIGN_OR_RETURN(size_t got, in->Read(buf, sizeof buf));
    if (got == 0) break;
    text.append(buf, got);
  }
  Status s = ReadDcgmText(text, trace);
  if (!s.ok()) return InvalidInput(src.path + ": " + s.message());
  trace.info.source_path = src.path;
  return s;
}

}  // namespace gpuwhy::import
