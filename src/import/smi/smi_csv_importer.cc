#include "import/smi/smi_csv_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "import/smi/smi_common.h"

namespace gpuwhy::import {

using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;
using smi::MetricSpec;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Field: what a --query-gpu column is.
enum class Role { kMetric, kTimestamp, kIndex, kUuid, kBus, kName, kIgnore };

struct Column {
  Role role = Role::kIgnore;
  std::string name;  // without the " [unit]" suffix
  MetricSpec spec;
};

MetricSpec QuerySpec(std::string_view n) {
  auto m = [](CounterKind k, CounterUnit u, double s) { return MetricSpec{k, u, s, true}; };
  if (n == "utilization.gpu") return m(CounterKind::kGpuUtil, CounterUnit::kRatio, 0.01);
  if (n == "utilization.memory") return m(CounterKind::kMemUtil, CounterUnit::kRatio, 0.01);
  if (n == "utilization.encoder") return m(CounterKind::kEncoderUtil, CounterUnit::kRatio, 0.01);
  if (n == "utilization.decoder") return m(CounterKind::kDecoderUtil, CounterUnit::kRatio, 0.01);
  if (n == "memory.used") return m(CounterKind::kMemUsedBytes, CounterUnit::kBytes, kMiB);
  if (n == "memory.total") return m(CounterKind::kMemTotalBytes, CounterUnit::kBytes, kMiB);
  if (n == "memory.free" || n == "memory.reserved")
    return m(CounterKind::kOther, CounterUnit::kBytes, kMiB);
  if (n == "power.draw" || n == "power.draw.instant" || n == "power.draw.average")
    return m(CounterKind::kPowerMw, CounterUnit::kMilliwatt, 1000.0);
  if (n == "power.limit" || n == "enforced.power.limit" || n == "power.max_limit")
    return m(CounterKind::kPowerLimitMw, CounterUnit::kMilliwatt, 1000.0);
  if (n == "clocks.sm" || n == "clocks.current.sm" || n == "clocks.gr" || n == "clocks.current.graphics")
    return m(CounterKind::kSmClockMhz, CounterUnit::kMhz, 1.0);
  if (n == "clocks.mem" || n == "clocks.current.memory")
    return m(CounterKind::kMemClockMhz, CounterUnit::kMhz, 1.0);
  if (n == "temperature.gpu" || n == "temperature.memory")
    return m(n == "temperature.gpu" ? CounterKind::kTemperatureC : CounterKind::kOther,
             CounterUnit::kCelsius, 1.0);
  if (n == "clocks_throttle_reasons.active" || n == "clocks_event_reasons.active")
    return m(CounterKind::kClockEventReasons, CounterUnit::kBitmask, 1.0);
  if (n == "fan.speed") return m(CounterKind::kOther, CounterUnit::kRatio, 0.01);
  return {};
}

Column ClassifyHeader(std::string_view cell) {
  Column c;
  std::string_view n = cell.substr(0, cell.find(" ["));
  c.name = std::string(n);
  if (n == "timestamp") c.role = Role::kTimestamp;
  else if (n == "index" || n == "gpu") c.role = Role::kIndex;
  else if (n == "uuid" || n == "gpu_uuid") c.role = Role::kUuid;
  else if (n == "pci.bus_id" || n == "gpu_bus_id") c.role = Role::kBus;
  else if (n == "name" || n == "gpu_name") c.role = Role::kName;
  else {
    c.spec = QuerySpec(n);
    c.role = c.spec.known ? Role::kMetric : Role::kIgnore;
  }
  return c;
}

// FieldLike: a header cell "utilization.gpu [%]" (lowercase names, dots, underscores).
bool FieldLike(std::string_view cell) {
  std::string_view n = cell.substr(0, cell.find(" ["));
  if (n.empty()) return false;
  for (char ch : n)
    if (!(std::islower(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' ||
          std::isdigit(static_cast<unsigned char>(ch))))
      return false;
  return true;
}

// IsHeader: every cell field-like and at least one a known metric or timestamp.
bool IsHeader(const std::vector<std::string_view>& cells) {
  bool known = false;
  for (std::string_view c : cells) {
    if (!FieldLike(c)) return false;
    Column col = ClassifyHeader(c);
    known = known || col.role == Role::kMetric;
  }
  return known;
}

// IsPercentOnly: the noheader single-column form "83 %".
bool IsPercentOnly(std::string_view line) {
  double v;
  std::string_view unit;
  return smi::ParseNumber(line, &v, &unit) && unit == "%";
}

}  // namespace

bool LooksLikeSmiCsv(std::string_view prefix) {
  if (!prefix.empty() && (prefix[0] == '{' || prefix[0] == '[')) return false;
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  int percent_lines = 0, checked = 0;
  for (std::string_view l : lines) {
    l = smi::Trim(l);
    if (l.empty()) continue;
    if (++checked > 400) break;
    if (IsHeader(smi::SplitCells(l))) return true;
    if (IsPercentOnly(l)) ++percent_lines;
    else if (checked <= 3) percent_lines = -1000;  // random text at the top
  }
  return percent_lines >= 3;
}

namespace {

// CsvRow: one parsed data row of a header block, before its device is known.
struct CsvRow {
  int64_t ts = kMissingI64;
  int32_t device = kMissingI32;  // from index / uuid / pci.bus_id, when the block has one
  std::vector<double> values;    // per column; NaN for non-metric columns
  std::string name;              // the name cell, when present
};

}  // namespace

Status ReadSmiCsvText(std::string_view text, model::Trace& t) {
  t.info.format = "nvidia-smi-csv";
  t.info.clock = "unix_realtime";
  smi::SeriesBuilder series(t, "nvidia-smi");
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  std::vector<Column> cols;
  bool have_header = false;
  std::map<std::string, int32_t> uuid_ordinal;
  std::vector<CsvRow> block;  // the rows of the current header block
  // Flush: the block's rows into series. Without a device column, rows that
  // come N per tick are N GPUs, told apart by their order within the tick.
  auto flush = [&]() {
    bool keyed = false, timed = false;
    for (const Column& c : cols) {
      keyed = keyed || c.role == Role::kIndex || c.role == Role::kUuid || c.role == Role::kBus;
      timed = timed || c.role == Role::kTimestamp;
    }
    std::vector<int32_t> pos;
    if (!keyed && timed) {
      std::vector<int64_t> ts;
      ts.reserve(block.size());
      for (const CsvRow& r : block) ts.push_back(r.ts);
      pos = smi::TickPositions(ts);
    }
    // The tick size: the most common one (TickPositions checked it).
    std::map<int32_t, int64_t> size_count;
    for (size_t i = 0; i < pos.size(); ++i)
      if (i + 1 == pos.size() || pos[i + 1] == 0) ++size_count[pos[i] + 1];
    int32_t per_tick = 0;
    int64_t best = 0;
    for (const auto& [size, count] : size_count)
      if (count > best) {
        best = count;
        per_tick = size;
      }
    for (size_t ri = 0; ri < block.size(); ++ri) {
      CsvRow& r = block[ri];
      int32_t device = r.device;
      if (!pos.empty()) {
        if (pos[ri] >= per_tick) {  // a tick with more rows than GPUs: cannot tell whose
          t.stats.Bump(ImportStat::garbage_row);
          continue;
        }
        device = pos[ri];
      }
      if (!IsValid(device)) device = 0;
      if (!r.name.empty()) {
        model::Device& d = t.GetOrAddDevice(device);
        if (d.name == kEmptyString) d.name = t.strings.Intern(r.name);
        d.vendor = model::Vendor::kNvidia;
      }
      for (size_t i = 0; i < cols.size(); ++i)
        if (cols[i].role == Role::kMetric)
          series.Add(device, cols[i].name, cols[i].spec, r.ts, r.values[i]);
    }
    block.clear();
  };
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    std::vector<std::string_view> cells = smi::SplitCells(l);
    if (IsHeader(cells)) {
      if (have_header) t.stats.Bump(ImportStat::repeated_header);
      flush();
      cols.clear();
      for (std::string_view c : cells) cols.push_back(ClassifyHeader(c));
      have_header = true;
      continue;
    }
    bool is_last = li + 1 == lines.size();
    if (!have_header) {
      if (IsPercentOnly(l)) {
        double v;
        smi::ParseNumber(l, &v, nullptr);
        series.Add(0, "utilization.gpu", QuerySpec("utilization.gpu"), kMissingI64,
                   smi::CheckedValue(t, v) * 0.01);
      } else {
        t.stats.Bump(is_last && !last_complete ? ImportStat::truncated_tail : ImportStat::garbage_row);
      }
      continue;
    }
    if (cells.size() != cols.size()) {
      t.stats.Bump(is_last && !last_complete ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    if (is_last && !last_complete) {
      // The cut may fall inside the last number ("1 MiB" -> "1"); drop the row.
      t.stats.Bump(ImportStat::truncated_tail);
      continue;
    }
    CsvRow row;
    bool bad_ts = false;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].role == Role::kTimestamp && !smi::ParseTimestamp(cells[i], &row.ts))
        bad_ts = true;
      if (cols[i].role == Role::kIndex && !IsValid(row.device)) {  // the first of gpu/index wins
        double v;
        if (smi::ParseNumber(cells[i], &v, nullptr)) row.device = smi::IndexOf(v);
      }
      if ((cols[i].role == Role::kUuid || cols[i].role == Role::kBus) && !IsValid(row.device)) {
        auto [it, fresh] = uuid_ordinal.emplace(std::string(cells[i]),
                                                static_cast<int32_t>(uuid_ordinal.size()));
        row.device = it->second;
        (void)fresh;
      }
    }
    if (bad_ts) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    row.values.assign(cols.size(), kMissingF64);
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].role == Role::kName && !smi::IsMissingText(cells[i]) && row.name.empty())
        row.name = std::string(cells[i]);
      if (cols[i].role != Role::kMetric) continue;
      double v = kMissingF64;
      if (!smi::IsMissingText(cells[i])) {
        std::string_view unit;
        if (smi::ParseNumber(cells[i], &v, &unit)) {
          v = smi::CheckedValue(t, v) * cols[i].spec.scale;
          if (unit == "GiB") v *= 1024.0;
          if (unit == "kW") v *= 1000.0;
        } else {
          t.stats.Bump(ImportStat::non_numeric_value);
          v = kMissingF64;
        }
      }
      row.values[i] = v;
    }
    block.push_back(std::move(row));
  }
  flush();
  series.Finish();
  if (t.counters.empty())
    return InvalidInput("no nvidia-smi samples found (no recognised --query-gpu header or rows)");
  t.Finalize();
  return Status::Ok();
}

Status SmiCsvImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadSmiCsvText);
}

Status SmiDmonImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadSmiDmonText);
}

}  // namespace gpuwhy::import
