#include "import/smi/dcgm_importer.h"

#include <cctype>
#include <memory>
#include <string>

#include "base/ascii.h"
#include "base/input_stream.h"
#include "import/smi/smi_common.h"

namespace gpuwhy::import {

using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;
using smi::MetricSpec;

namespace {

// DcgmSpec: the model mapping of a DCGM field given by any of its names.
MetricSpec DcgmSpec(std::string_view raw) {
  std::string n = AsciiUpper(smi::Trim(raw));
  for (std::string_view p : {"DCGM_FI_PROF_", "DCGM_FI_DEV_", "DCGM_FI_"})
    if (n.rfind(p, 0) == 0) n = n.substr(p.size());
  auto m = [](CounterKind k, CounterUnit u, double s) { return MetricSpec{k, u, s, true}; };
  auto any = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view x : names)
      if (n == x) return true;
    return false;
  };
  const CounterUnit kR = CounterUnit::kRatio;
  if (any({"GR_ENGINE_ACTIVE", "GR_ENGINE_UTIL_RATIO", "GRACT", "1001"})) return m(CounterKind::kGrEngineActive, kR, 1);
  if (any({"SM_ACTIVE", "SM_UTIL_RATIO", "SMACT", "1002"})) return m(CounterKind::kSmActive, kR, 1);
  if (any({"SM_OCCUPANCY", "SM_OCCUPANCY_RATIO", "SMOCC", "1003"})) return m(CounterKind::kSmOccupancy, kR, 1);
  if (any({"PIPE_TENSOR_ACTIVE", "TENSOR_UTIL_RATIO", "TENSO", "1004"})) return m(CounterKind::kTensorActive, kR, 1);
  if (any({"DRAM_ACTIVE", "DRAM_UTIL_RATIO", "DRAMA", "1005"})) return m(CounterKind::kDramActive, kR, 1);
  if (any({"PIPE_FP64_ACTIVE", "FP64_UTIL_RATIO", "FP64A", "1006"})) return m(CounterKind::kFp64Active, kR, 1);
  if (any({"PIPE_FP32_ACTIVE", "FP32_UTIL_RATIO", "FP32A", "1007"})) return m(CounterKind::kFp32Active, kR, 1);
  if (any({"PIPE_FP16_ACTIVE", "FP16_UTIL_RATIO", "FP16A", "1008"})) return m(CounterKind::kFp16Active, kR, 1);
  if (any({"PCIE_TX_BYTES", "PCITX", "1009"})) return m(CounterKind::kPcieTxBytesPerS, CounterUnit::kBytesPerSecond, 1);
  if (any({"PCIE_RX_BYTES", "PCIRX", "1010"})) return m(CounterKind::kPcieRxBytesPerS, CounterUnit::kBytesPerSecond, 1);
  if (any({"NVLINK_TX_BYTES", "NVLTX", "1011"})) return m(CounterKind::kNvlinkTxBytesPerS, CounterUnit::kBytesPerSecond, 1);
  if (any({"NVLINK_RX_BYTES", "NVLRX", "1012"})) return m(CounterKind::kNvlinkRxBytesPerS, CounterUnit::kBytesPerSecond, 1);
  if (any({"GPU_UTIL", "GPU_UTIL_RATIO", "GPUTL", "203"}))
    return m(CounterKind::kGpuUtil, kR, n == "GPU_UTIL_RATIO" ? 1 : 0.01);
  if (any({"MEM_COPY_UTIL", "MCUTL", "204"})) return m(CounterKind::kMemUtil, kR, 0.01);
  if (any({"POWER_USAGE", "POWER_USAGE_INSTANT", "POWER", "155", "158"}))
    return m(CounterKind::kPowerMw, CounterUnit::kMilliwatt, 1000);
  if (any({"SM_CLOCK", "SMCLK", "100"})) return m(CounterKind::kSmClockMhz, CounterUnit::kMhz, 1);
  if (any({"MEM_CLOCK", "MMCLK", "101"})) return m(CounterKind::kMemClockMhz, CounterUnit::kMhz, 1);
  if (any({"GPU_TEMP", "GPU_TEMP_CELSIUS", "TMPTR", "150"})) return m(CounterKind::kTemperatureC, CounterUnit::kCelsius, 1);
  if (any({"FB_USED", "FBUSD", "252"})) return m(CounterKind::kMemUsedBytes, CounterUnit::kBytes, 1024.0 * 1024.0);
  if (any({"FB_TOTAL", "FBTTL", "250"})) return m(CounterKind::kMemTotalBytes, CounterUnit::kBytes, 1024.0 * 1024.0);
  if (any({"CLOCK_THROTTLE_REASONS", "CURRENT_CLOCK_THROTTLE_REASONS", "CLOCKS_EVENT_REASONS", "112"}))
    return m(CounterKind::kClockEventReasons, CounterUnit::kBitmask, 1);
  if (n.rfind("THROTTLE_REASON_", 0) == 0) return m(CounterKind::kOther, CounterUnit::kCount, 1);
  return {};
}

bool IsGpuColumn(std::string_view c) {
  std::string u = AsciiUpper(c);
  return u == "GPUID" || u == "GPU" || u == "ENTITY" || u == "ENTITYID" || u == "GPU_ID";
}
bool IsTimeColumn(std::string_view c) {
  std::string u = AsciiUpper(c);
  return u == "TIMESTAMPUS" || u == "TIMESTAMP" || u == "TIME" || u == "TS";
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
  for (size_t li = 0; li < lines.size(); ++li) {
    std::vector<std::string_view> c = smi::SplitWhitespace(lines[li]);
    if (c.empty()) continue;
    if (c[0] == "#Entity") {
      if (!cols.empty()) t.stats.Bump(ImportStat::repeated_header);
      cols.assign(c.begin() + 1, c.end());
      continue;
    }
    if (c[0] == "ID" || c[0][0] == '#') continue;  // units line / comments
    // Rows: "GPU 0  0.123 ..." (entity kind, id, values).
    bool tail = li + 1 == lines.size() && !last_complete;
    double id;
    if (cols.empty() || c.size() != cols.size() + 2 || c[0] != "GPU" ||
        !smi::ParseNumber(c[1], &id, nullptr) || !IsValid(smi::IndexOf(id))) {
      t.stats.Bump(tail ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      MetricSpec spec = DcgmSpec(cols[i]);
      if (!spec.known) spec = {CounterKind::kOther, CounterUnit::kUnknown, 1, true};
      series.Add(smi::IndexOf(id), cols[i], spec, kMissingI64, ParseValue(t, c[i + 2], spec.scale));
    }
  }
  series.Finish();
  if (t.counters.empty()) return InvalidInput("no dcgmi dmon rows found");
  return Status::Ok();
}

Status ReadCsv(const std::vector<std::string_view>& lines, bool last_complete, model::Trace& t) {
  smi::SeriesBuilder series(t, "dcgm");
  std::vector<std::string_view> header;
  int gpu_col = -1, time_col = -1, field_col = -1, value_col = -1;
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    std::vector<std::string_view> c = smi::SplitCells(l);
    bool is_header = false;
    for (std::string_view x : c) is_header = is_header || IsTimeColumn(x) || IsGpuColumn(x);
    if (is_header) {
      if (!header.empty()) t.stats.Bump(ImportStat::repeated_header);
      header = c;
      gpu_col = time_col = field_col = value_col = -1;
      for (size_t i = 0; i < c.size(); ++i) {
        std::string u = AsciiUpper(c[i]);
        if (IsGpuColumn(c[i]) && gpu_col < 0) gpu_col = static_cast<int>(i);
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
    double gpu = 0;
    if (gpu_col >= 0 && (!smi::ParseNumber(c[static_cast<size_t>(gpu_col)], &gpu, nullptr) ||
                         !IsValid(smi::IndexOf(gpu)))) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    int64_t ts = kMissingI64;
    if (time_col >= 0 && !smi::ParseTimestamp(c[static_cast<size_t>(time_col)], &ts)) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    int32_t dev = smi::IndexOf(gpu);
    if (field_col >= 0 && value_col >= 0) {  // long format
      std::string_view field = c[static_cast<size_t>(field_col)];
      MetricSpec spec = DcgmSpec(field);
      if (!spec.known) spec = {CounterKind::kOther, CounterUnit::kUnknown, 1, true};
      series.Add(dev, field, spec, ts, ParseValue(t, c[static_cast<size_t>(value_col)], spec.scale));
      continue;
    }
    for (size_t i = 0; i < c.size(); ++i) {  // wide format
      if (static_cast<int>(i) == gpu_col || static_cast<int>(i) == time_col) continue;
      MetricSpec spec = DcgmSpec(header[i]);
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
    for (std::string_view x : c) {
      gpu = gpu || IsGpuColumn(x);
      time = time || IsTimeColumn(x);
      std::string u = AsciiUpper(x);
      field = field || u == "FIELD" || u == "FIELDID";
      dcgm = dcgm || u.rfind("DCGM_FI_", 0) == 0;
    }
    if ((gpu && field) || (dcgm && (gpu || time))) return true;
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
  for (const model::CounterSeries& s : t.counters) t.GetOrAddDevice(s.device_id);
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
