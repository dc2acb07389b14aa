#include "import/smi/script_csv_importer.h"

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

constexpr double kScriptMiB = 1024.0 * 1024.0;

enum class ScriptRole { kIgnore, kTime, kIndex, kUuid, kName, kMetric };

// What a metric column measures, before its unit is settled.
enum class ScriptWhat {
  kNone,
  kGpuUtil,
  kMemUtil,      // memory-controller (I/O) utilization, %
  kMemUsedPct,   // share of memory in use, %
  kMemUsed,      // bytes in use (unit from name or values)
  kMemTotal,
  kMemFree,
  kMemAmbiguous,  // "mem": a utilization % or an amount, by its values
  kPower,
  kPowerLimit,
  kTemp,
  kSmClock,
  kMemClock,
};

struct ScriptColumn {
  std::string header;     // as written
  std::string norm;       // lower case, runs of non-alphanumerics as '_'
  ScriptRole role = ScriptRole::kIgnore;
  ScriptWhat what = ScriptWhat::kNone;
  std::string name_unit;  // the unit the name states ("%", "W", "mW", "MiB", ...), or ""
};

// ScriptNorm: "utilization.gpu [%]" -> "utilization_gpu_", "dev_util_pc" stays.
std::string ScriptNorm(std::string_view s) {
  std::string o;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      o += static_cast<char>(std::tolower(u));
    } else if (c == '%') {
      if (!o.empty() && o.back() != '_') o += '_';
      o += "pct_";
    } else if (o.empty() || o.back() != '_') {
      o += '_';
    }
  }
  return o;
}

// ScriptTokens: the '_'-separated words of a normalised name, with camelCase
// split beforehand ("gpuUtil" -> gpu, util).
std::vector<std::string> ScriptTokens(std::string_view raw) {
  std::string spaced;
  for (size_t i = 0; i < raw.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(raw[i]);
    if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(raw[i - 1])))
      spaced += '_';
    spaced += raw[i];
  }
  std::vector<std::string> t;
  std::string cur;
  for (char c : ScriptNorm(spaced)) {
    if (c == '_') {
      if (!cur.empty()) t.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) t.push_back(cur);
  return t;
}

bool ScriptHas(const std::vector<std::string>& t, std::initializer_list<std::string_view> any) {
  for (const std::string& w : t)
    for (std::string_view a : any)
      if (w == a) return true;
  return false;
}
bool ScriptHasPrefix(const std::vector<std::string>& t, std::initializer_list<std::string_view> any) {
  for (const std::string& w : t)
    for (std::string_view a : any)
      if (w.rfind(a, 0) == 0) return true;
  return false;
}

// ScriptNameUnit: the unit a column name states, by its words.
std::string ScriptNameUnit(const std::vector<std::string>& t) {
  if (ScriptHas(t, {"pct", "percent", "pc", "perc", "percentage"})) return "%";
  if (ScriptHas(t, {"ratio", "frac", "fraction"})) return "ratio";
  if (ScriptHas(t, {"mw", "milliwatts"})) return "mW";
  if (ScriptHas(t, {"kw"})) return "kW";
  // "watts" names the quantity (a column of mW is still "watts" to some
  // scripts); the values decide. "_W" is a unit.
  if (ScriptHas(t, {"w"})) return "W";
  if (ScriptHas(t, {"mib", "mb"})) return "MiB";
  if (ScriptHas(t, {"gib", "gb"})) return "GiB";
  if (ScriptHas(t, {"kib", "kb"})) return "KiB";
  if (ScriptHas(t, {"bytes", "byte", "b"})) return "B";
  if (ScriptHas(t, {"mhz"})) return "MHz";
  if (ScriptHas(t, {"ghz"})) return "GHz";
  if (ScriptHas(t, {"ms", "msec", "millis"})) return "ms";
  if (ScriptHas(t, {"us", "usec", "micros"})) return "us";
  if (ScriptHas(t, {"ns", "nsec"})) return "ns";
  return "";
}

// ScriptClassify: what a header cell means, from its words.
ScriptColumn ScriptClassify(std::string_view cell) {
  ScriptColumn c;
  c.header = std::string(smi::Trim(cell));
  c.norm = ScriptNorm(c.header);
  const std::vector<std::string> t = ScriptTokens(c.header);
  c.name_unit = ScriptNameUnit(t);
  if (t.empty()) return c;
  const bool mem = ScriptHasPrefix(t, {"mem", "vram", "fb"});
  const bool pct = c.name_unit == "%" || c.name_unit == "ratio";
  // A share alone ("Percentage", "In-Use (%)") is not GPU utilization: a
  // profiler's summary has those. It takes a utilization word, or a share of
  // the GPU ("gpu %").
  const bool util_word = ScriptHasPrefix(t, {"util", "usage", "load", "busy"});
  const bool util = util_word || (pct && ScriptHasPrefix(t, {"gpu", "sm"}));
  if (ScriptHas(t, {"timestamp", "time", "ts", "date", "datetime", "epoch", "elapsed", "t",
                    "seconds", "sec", "secs", "clock_time", "walltime"}) &&
      !ScriptHas(t, {"clock", "clk", "gpu", "util"})) {
    c.role = ScriptRole::kTime;
  } else if (ScriptHas(t, {"uuid", "bus", "busid", "pci"})) {
    c.role = ScriptRole::kUuid;
  } else if (t.back() == "name" || ScriptHas(t, {"model", "product"})) {
    c.role = ScriptRole::kName;
  } else if (ScriptHas(t, {"index", "idx", "id", "gpu", "device", "dev", "gpuid", "gpu0"}) && !util &&
             !pct && !mem && !ScriptHasPrefix(t, {"power", "pwr", "watt", "temp", "clock", "clk", "mhz"}) &&
             c.name_unit.empty()) {
    c.role = ScriptRole::kIndex;
  } else if (ScriptHasPrefix(t, {"clock", "clk", "mhz", "freq"}) || c.name_unit == "MHz" ||
             c.name_unit == "GHz" || ScriptHas(t, {"sclk", "mclk", "pclk", "smclk"})) {
    c.role = ScriptRole::kMetric;
    c.what = mem || ScriptHas(t, {"mclk"}) ? ScriptWhat::kMemClock : ScriptWhat::kSmClock;
  } else if (ScriptHasPrefix(t, {"power", "pwr", "watt"}) || c.name_unit == "W" ||
             c.name_unit == "mW" || c.name_unit == "kW") {
    c.role = ScriptRole::kMetric;
    c.what = ScriptHas(t, {"limit", "cap", "max", "tdp", "enforced"}) ? ScriptWhat::kPowerLimit
                                                                      : ScriptWhat::kPower;
  } else if (ScriptHasPrefix(t, {"temp"}) || ScriptHas(t, {"celsius", "degc", "deg"})) {
    c.role = ScriptRole::kMetric;
    c.what = ScriptWhat::kTemp;
  } else if (mem) {
    c.role = ScriptRole::kMetric;
    if (ScriptHas(t, {"io", "bw", "bandwidth", "controller", "copy"}) ||
        (ScriptHasPrefix(t, {"util"}) && !ScriptHas(t, {"used"})))
      c.what = ScriptWhat::kMemUtil;
    else if (ScriptHas(t, {"total", "capacity", "size"}))
      c.what = ScriptWhat::kMemTotal;
    else if (ScriptHas(t, {"free", "avail", "available"}))
      c.what = ScriptWhat::kMemFree;
    else if (ScriptHas(t, {"used", "alloc", "allocated", "usage"}))
      c.what = c.name_unit == "%" || c.name_unit == "ratio" ? ScriptWhat::kMemUsedPct
                                                             : ScriptWhat::kMemUsed;
    else if (c.name_unit == "%" || c.name_unit == "ratio")
      c.what = ScriptWhat::kMemUtil;
    else
      c.what = c.name_unit.empty() ? ScriptWhat::kMemAmbiguous : ScriptWhat::kMemUsed;
  } else if (util || ScriptHas(t, {"sm", "gpuutil"})) {
    // "util", "gpu_util", "utilization_gpu_percent", "dev_util_pc", "gpu %",
    // "sm" (dmon's name): the GPU-Util figure. Encoder/decoder/CPU shares are
    // not it.
    if (!ScriptHas(t, {"enc", "dec", "encoder", "decoder", "cpu", "host", "disk", "net", "fan"})) {
      c.role = ScriptRole::kMetric;
      c.what = ScriptWhat::kGpuUtil;
    }
  }
  return c;
}

// ScriptProfilerHeader: a profiler's CSV (rocprof, Nsight Compute, nsys
// stats), never a monitoring log.
bool ScriptProfilerHeader(const std::vector<std::string_view>& cells) {
  for (std::string_view c : cells) {
    const std::string n = ScriptNorm(c);
    if (n.find("kernel") != std::string::npos || n.find("dispatch") != std::string::npos ||
        n.find("correlation") != std::string::npos || n.find("grid") != std::string::npos)
      return true;
    // Summary tables of profilers (rocprof stats, nsys analyze, TraceLens).
    const std::vector<std::string> t = ScriptTokens(c);
    if (ScriptHas(t, {"calls", "duration", "stddev", "instances", "context", "row"})) return true;
  }
  return false;
}

// ScriptSplit: cells of `line` by `sep` (0: runs of whitespace).
std::vector<std::string_view> ScriptSplit(std::string_view line, char sep) {
  if (sep == 0) return smi::SplitWhitespace(line);
  std::vector<std::string_view> c = smi::SplitCells(line, sep);
  for (std::string_view& x : c) {  // quoted cells: "a","b"
    x = smi::Trim(x);
    if (x.size() >= 2 && x.front() == '"' && x.back() == '"') x = x.substr(1, x.size() - 2);
  }
  return c;
}

// ScriptSep: the separator of a header line: ',', '\t' or ';' when present,
// else whitespace.
char ScriptSep(std::string_view header) {
  for (char s : {',', '\t', ';'})
    if (header.find(s) != std::string_view::npos) return s;
  return 0;
}

// ScriptNameCell: a header cell: starts with a letter (or '#'), and is not a
// number or a time.
bool ScriptNameCell(std::string_view c) {
  c = smi::Trim(c);
  while (!c.empty() && c[0] == '#') c.remove_prefix(1);
  c = smi::Trim(c);
  if (c.empty() || c.size() > 80 || !std::isalpha(static_cast<unsigned char>(c[0]))) return false;
  if (smi::IsMissingText(c)) return false;
  for (char ch : c)
    if (ch == '"' || ch == '{' || ch == '}' || ch == '<' || ch == '>' || ch == '=') return false;
  return true;
}

struct ScriptHeader {
  char sep = ',';
  std::vector<ScriptColumn> cols;
};

// ScriptParseHeader: the columns of `line` when it reads as a monitoring
// header: name cells only, and a utilization column or two other monitoring
// columns beside a time or GPU column.
bool ScriptParseHeader(std::string_view line, ScriptHeader* h) {
  line = smi::Trim(line);
  if (line.empty() || line[0] == '{' || line[0] == '[' || line[0] == '<') return false;
  const char sep = ScriptSep(line);
  std::vector<std::string_view> cells = ScriptSplit(line, sep);
  if (cells.size() < 2 || cells.size() > 64 || ScriptProfilerHeader(cells)) return false;
  int util = 0, metrics = 0, keys = 0;
  std::vector<ScriptColumn> cols;
  for (std::string_view c : cells) {
    if (!ScriptNameCell(c)) return false;
    std::string_view name = smi::Trim(c);
    while (!name.empty() && name[0] == '#') name.remove_prefix(1);
    ScriptColumn col = ScriptClassify(name);
    util += col.what == ScriptWhat::kGpuUtil;
    metrics += col.role == ScriptRole::kMetric;
    keys += col.role == ScriptRole::kTime || col.role == ScriptRole::kIndex ||
            col.role == ScriptRole::kUuid;
    cols.push_back(std::move(col));
  }
  if (!(util > 0 || (metrics >= 2 && keys > 0))) return false;
  h->sep = sep;
  h->cols = std::move(cols);
  return true;
}

// ScriptTimeKind: how a time column's cells read.
enum class ScriptTimeKind { kNone, kWall, kRelative, kTimeOfDay };

// ScriptTimeOfDay: "12:34:56[.789]" as ns since midnight.
bool ScriptTimeOfDay(std::string_view s, int64_t* ns) {
  s = smi::Trim(s);
  if (s.size() < 8 || s[2] != ':' || s[5] != ':') return false;
  int64_t tod = 0;
  if (!smi::ParseTimestamp("1970-01-02 " + std::string(s), &tod)) return false;
  *ns = tod - 86400 * kNsPerS;
  return true;
}

// ScriptCellNumber: the number in a cell ("45", "45 %", "120.5W"); `unit`
// receives a unit written in the cell.
bool ScriptCellNumber(std::string_view s, double* v, std::string* unit) {
  std::string_view u;
  if (!smi::ParseNumber(s, v, &u) || !std::isfinite(*v)) return false;
  *unit = std::string(smi::Trim(u));
  return true;
}

// ScriptSettled: a metric column's model mapping and the note saying how it
// was read.
struct ScriptSettled {
  MetricSpec spec;
  std::string unit;  // the unit the column was read in ("%", "MiB", "W", ...)
  std::string note;
};

double ScriptMemScale(std::string_view unit) {
  if (unit == "B") return 1;
  if (unit == "KiB") return 1024;
  if (unit == "GiB") return 1024.0 * kScriptMiB;
  return kScriptMiB;
}

// ScriptSettle: fixes each metric column's unit from its name, a unit in its
// cells, else its values (max over the log).
ScriptSettled ScriptSettle(const ScriptColumn& c, double max_value, const std::string& cell_unit) {
  auto m = [](CounterKind k, CounterUnit u, double s) { return MetricSpec{k, u, s, true}; };
  ScriptSettled s;
  std::string& unit = s.unit;
  unit = c.name_unit;
  std::string how = unit.empty() ? "" : "unit from the name";
  if (unit.empty() && !cell_unit.empty()) {
    unit = cell_unit == "MB" ? "MiB" : cell_unit == "GB" ? "GiB" : cell_unit;
    how = "unit from the cells";
  }
  const bool have_max = IsValid(max_value);
  auto pct_or_ratio = [&](CounterKind k, const char* what) {
    if (unit.empty()) {
      unit = have_max && max_value <= 1.0 ? "ratio" : "%";
      how = have_max && max_value <= 1.0 ? "values <= 1 throughout, so a ratio"
                                         : "values above 1, so percent";
    }
    s.spec = m(k, CounterUnit::kRatio, unit == "ratio" ? 1.0 : 0.01);
    s.note = fmt::format("`{}` read as {} ({}: {})", c.header, what,
                         unit == "ratio" ? "ratio 0..1" : "%", how);
    return s;
  };
  switch (c.what) {
    case ScriptWhat::kGpuUtil:
      return pct_or_ratio(CounterKind::kGpuUtil, "GPU utilization");
    case ScriptWhat::kMemUtil:
      return pct_or_ratio(CounterKind::kMemUtil, "memory-controller utilization");
    case ScriptWhat::kMemUsedPct:
      return pct_or_ratio(CounterKind::kOther, "share of memory used");
    case ScriptWhat::kMemAmbiguous:
      if (have_max && max_value <= 100.0 && unit.empty()) {
        s = pct_or_ratio(CounterKind::kMemUtil, "memory utilization");
        s.note += "; values <= 100 throughout, so not an amount";
        return s;
      }
      [[fallthrough]];
    case ScriptWhat::kMemUsed:
    case ScriptWhat::kMemTotal:
    case ScriptWhat::kMemFree: {
      if (unit.empty() || unit == "%" || unit == "ratio") {
        unit = have_max && max_value > 1e7 ? "B" : "MiB";
        how = have_max && max_value > 1e7 ? "values above 1e7, so bytes" : "no unit given, MiB assumed";
      }
      const CounterKind k = c.what == ScriptWhat::kMemTotal  ? CounterKind::kMemTotalBytes
                            : c.what == ScriptWhat::kMemFree ? CounterKind::kOther
                                                             : CounterKind::kMemUsedBytes;
      s.spec = m(k, CounterUnit::kBytes, ScriptMemScale(unit));
      s.note = fmt::format("`{}` read as memory {} ({}: {})", c.header,
                           c.what == ScriptWhat::kMemTotal  ? "total"
                           : c.what == ScriptWhat::kMemFree ? "free"
                                                            : "used",
                           unit, how);
      return s;
    }
    case ScriptWhat::kPower:
    case ScriptWhat::kPowerLimit: {
      if (unit != "W" && unit != "mW" && unit != "kW") {
        unit = have_max && max_value > 5000 ? "mW" : "W";
        how = have_max && max_value > 5000 ? "values above 5000, so mW" : "no unit given, W assumed";
      }
      s.spec = m(c.what == ScriptWhat::kPower ? CounterKind::kPowerMw : CounterKind::kPowerLimitMw,
                 CounterUnit::kMilliwatt, unit == "mW" ? 1.0 : unit == "kW" ? 1e6 : 1000.0);
      s.note = fmt::format("`{}` read as power {} ({}: {})", c.header,
                           c.what == ScriptWhat::kPower ? "draw" : "limit", unit, how);
      return s;
    }
    case ScriptWhat::kTemp:
      s.spec = m(CounterKind::kTemperatureC, CounterUnit::kCelsius, 1);
      s.note = fmt::format("`{}` read as GPU temperature (C)", c.header);
      return s;
    case ScriptWhat::kSmClock:
    case ScriptWhat::kMemClock: {
      double scale = 1;
      if (unit == "GHz") {
        scale = 1000;
      } else if (unit != "MHz") {
        unit = have_max && max_value > 1e5 ? "Hz" : "MHz";
        how = have_max && max_value > 1e5 ? "values above 1e5, so Hz" : "no unit given, MHz assumed";
        scale = unit == "Hz" ? 1e-6 : 1;
      }
      s.spec = m(c.what == ScriptWhat::kSmClock ? CounterKind::kSmClockMhz : CounterKind::kMemClockMhz,
                 CounterUnit::kMhz, scale);
      s.note = fmt::format("`{}` read as {} clock ({}: {})", c.header,
                           c.what == ScriptWhat::kSmClock ? "SM/graphics" : "memory", unit, how);
      return s;
    }
    case ScriptWhat::kNone:
      break;
  }
  return s;
}

// ScriptCellUnitScale: a unit written in a cell, as a factor on the column's
// settled scale (a "1.2 GiB" cell in a MiB column).
double ScriptCellUnitScale(std::string_view cell_unit, std::string_view col_unit) {
  if (cell_unit.empty() || cell_unit == col_unit) return 1;
  if (col_unit == "MiB" && (cell_unit == "GiB" || cell_unit == "GB")) return 1024;
  if (col_unit == "W" && cell_unit == "kW") return 1000;
  if (col_unit == "W" && cell_unit == "mW") return 0.001;
  return 1;
}

}  // namespace

bool LooksLikeScriptCsv(std::string_view prefix) {
  if (!prefix.empty() && (prefix[0] == '{' || prefix[0] == '[' || prefix[0] == '<')) return false;
  for (char c : prefix.substr(0, 4096))
    if (c == '\0') return false;
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  size_t seen = 0;
  for (size_t i = 0; i < lines.size() && seen < 8; ++i) {
    std::string_view l = smi::Trim(lines[i]);
    if (l.empty()) continue;
    ++seen;
    ScriptHeader h;
    if (!ScriptParseHeader(l, &h)) continue;
    // The next non-empty line: a row of the same width that is not a header.
    for (size_t j = i + 1; j < lines.size(); ++j) {
      std::string_view r = smi::Trim(lines[j]);
      if (r.empty()) continue;
      if (j + 1 == lines.size() && lines.size() > 2) return true;  // cut by the prefix
      std::vector<std::string_view> cells = ScriptSplit(r, h.sep);
      if (cells.size() != h.cols.size()) return false;
      size_t numeric = 0;
      for (std::string_view c : cells) {
        double v;
        numeric += smi::ParseNumber(c, &v, nullptr) || smi::IsMissingText(c);
      }
      return numeric > 0;
    }
    return false;
  }
  return false;
}

namespace {

struct ScriptRow {
  std::vector<std::string_view> cells;
  size_t line;
};

}  // namespace

Status ReadScriptCsvText(std::string_view text, model::Trace& t) {
  t.info.format = "monitor-csv";
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  ScriptHeader h;
  size_t li = 0;
  for (; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    if (ScriptParseHeader(l, &h)) break;
    t.stats.Bump(ImportStat::garbage_row);  // preamble text before the header
  }
  if (li == lines.size())
    return InvalidInput("no monitoring-log header found (a line naming time, GPU and "
                        "utilization/power/memory columns)");
  const size_t header_line = li;
  const std::vector<ScriptColumn>& cols = h.cols;
  const size_t n = cols.size();
  std::string header_text(smi::Trim(lines[header_line]));
  bool util = false;
  for (const ScriptColumn& c : cols) util = util || c.what == ScriptWhat::kGpuUtil;
  if (!util) {
    std::string names;
    for (const ScriptColumn& c : cols) names += (names.empty() ? "" : ", ") + c.header;
    return InvalidInput(fmt::format(
        "monitoring log with columns {} (line {}): no column reads as GPU utilization "
        "(util, utilization, gpu_util, sm, ... in %; docs/log_formats.md), nothing to analyze",
        names, header_line + 1));
  }

  // Rows of the header's width; a repeated header is skipped.
  std::vector<ScriptRow> rows;
  for (li = header_line + 1; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    const bool tail = li + 1 == lines.size() && !last_complete;
    std::vector<std::string_view> cells = ScriptSplit(l, h.sep);
    if (smi::Trim(l) == header_text) {
      t.stats.Bump(ImportStat::repeated_header);
      continue;
    }
    if (cells.size() != n || tail) {
      t.stats.Bump(tail ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    rows.push_back({std::move(cells), li});
  }

  // The time column: the first one whose cells read as times.
  int time_col = -1, index_col = -1, uuid_col = -1, name_col = -1;
  for (size_t i = 0; i < n; ++i) {
    if (cols[i].role == ScriptRole::kTime && time_col < 0) time_col = static_cast<int>(i);
    if (cols[i].role == ScriptRole::kIndex && index_col < 0) index_col = static_cast<int>(i);
    if (cols[i].role == ScriptRole::kUuid && uuid_col < 0) uuid_col = static_cast<int>(i);
    if (cols[i].role == ScriptRole::kName && name_col < 0) name_col = static_cast<int>(i);
  }
  ScriptTimeKind tk = ScriptTimeKind::kNone;
  int64_t rel_scale = kNsPerS;
  if (time_col >= 0) {
    // Decide from the cells: all small numbers are a relative clock, all
    // hh:mm:ss a time of day, else wall-clock times.
    size_t wall = 0, small = 0, tod = 0, total = 0;
    for (const ScriptRow& r : rows) {
      std::string_view c = r.cells[static_cast<size_t>(time_col)];
      if (smi::IsMissingText(c)) continue;
      ++total;
      double v;
      std::string_view u;
      int64_t ns;
      if (smi::ParseNumber(c, &v, &u) && u.empty() && v >= 0 && v < 1e8) {
        ++small;
      } else if (smi::ParseTimestamp(c, &ns)) {
        ++wall;
      } else if (ScriptTimeOfDay(c, &ns)) {
        ++tod;
      }
    }
    if (total > 0 && small == total) {
      tk = ScriptTimeKind::kRelative;
      const std::string& u = cols[static_cast<size_t>(time_col)].name_unit;
      rel_scale = u == "ms" ? kNsPerMs : u == "us" ? kNsPerUs : u == "ns" ? 1 : kNsPerS;
    } else if (total > 0 && wall * 2 >= total) {
      tk = ScriptTimeKind::kWall;
    } else if (total > 0 && tod * 2 >= total) {
      tk = ScriptTimeKind::kTimeOfDay;
    }
  }

  // Per metric column: the max value and a unit written in the cells.
  std::vector<double> maxv(n, kMissingF64);
  std::vector<std::string> cell_unit(n);
  for (const ScriptRow& r : rows)
    for (size_t i = 0; i < n; ++i) {
      if (cols[i].role != ScriptRole::kMetric || smi::IsMissingText(r.cells[i])) continue;
      double v;
      std::string u;
      if (!ScriptCellNumber(r.cells[i], &v, &u)) continue;
      if (!IsValid(maxv[i]) || v > maxv[i]) maxv[i] = v;
      if (cell_unit[i].empty() && !u.empty()) cell_unit[i] = u;
    }
  std::vector<ScriptSettled> settled(n);
  std::vector<std::string> col_unit(n);
  for (size_t i = 0; i < n; ++i) {
    if (cols[i].role != ScriptRole::kMetric) continue;
    settled[i] = ScriptSettle(cols[i], maxv[i], cell_unit[i]);
    col_unit[i] = settled[i].unit;
  }

  t.info.clock = tk == ScriptTimeKind::kWall        ? "unix_realtime"
                 : tk == ScriptTimeKind::kRelative  ? "log_relative"
                 : tk == ScriptTimeKind::kTimeOfDay ? "time_of_day"
                                                    : "sample_index";
  smi::SeriesBuilder series(t, "monitor-csv");
  std::map<std::string, int32_t> uuid_ordinal;
  std::map<int32_t, std::pair<std::string, std::string>> names;  // device -> (name, uuid)
  // Each row's time (kMissingI64: untimed; bad: the row is garbage).
  std::vector<int64_t> row_ts(rows.size(), kMissingI64);
  std::vector<char> row_bad(rows.size(), 0);
  int64_t last_tod = kMissingI64, day_ns = 0;
  for (size_t k = 0; k < rows.size() && time_col >= 0 && tk != ScriptTimeKind::kNone; ++k) {
    std::string_view c = rows[k].cells[static_cast<size_t>(time_col)];
    int64_t ts = kMissingI64;
    bool ok = false;
    if (tk == ScriptTimeKind::kRelative) {
      double v;
      std::string_view u;
      if (smi::ParseNumber(c, &v, &u) && u.empty() && v >= 0 && v < 1e8) {
        ts = static_cast<int64_t>(std::llround(v * static_cast<double>(rel_scale)));
        ok = true;
      }
    } else if (tk == ScriptTimeKind::kWall) {
      ok = smi::ParseTimestamp(c, &ts);
    } else {
      int64_t tod = 0;
      ok = ScriptTimeOfDay(c, &tod);
      if (ok) {  // a day added where the clock goes back
        // At most ~100 years of days (no int64 overflow on a fuzzed log).
        if (IsValid(last_tod) && tod + day_ns < last_tod && day_ns < 86400 * kNsPerS * 36500)
          day_ns += 86400 * kNsPerS;
        ts = last_tod = tod + day_ns;
      }
    }
    row_ts[k] = ts;
    row_bad[k] = !ok;
  }
  // Without a GPU column, rows that come N per tick are N GPUs, told apart by
  // their order within the tick (as in a --query-gpu log without `index`).
  std::vector<int32_t> tick_pos;
  int32_t per_tick = 0;
  if (index_col < 0 && uuid_col < 0 && time_col >= 0 && tk != ScriptTimeKind::kNone) {
    tick_pos = smi::TickPositions(row_ts);
    std::map<int32_t, int64_t> size_count;
    for (size_t i = 0; i < tick_pos.size(); ++i)
      if (i + 1 == tick_pos.size() || tick_pos[i + 1] == 0) ++size_count[tick_pos[i] + 1];
    int64_t best = 0;
    for (const auto& [size, count] : size_count)
      if (count > best) {
        best = count;
        per_tick = size;
      }
  }
  for (size_t k = 0; k < rows.size(); ++k) {
    const ScriptRow& r = rows[k];
    if (row_bad[k]) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    const int64_t ts = row_ts[k];
    int32_t dev = 0;
    if (index_col >= 0) {
      std::string_view c = r.cells[static_cast<size_t>(index_col)];
      dev = smi::EntityDevice(c, {});
      if (!IsValid(dev)) {
        double v;
        dev = smi::ParseNumber(c, &v, nullptr) ? smi::IndexOf(v) : kMissingI32;
      }
      if (!IsValid(dev)) {
        t.stats.Bump(ImportStat::garbage_row);
        continue;
      }
    } else if (!tick_pos.empty()) {
      if (tick_pos[k] >= per_tick) {  // a tick with more rows than GPUs: cannot tell whose
        t.stats.Bump(ImportStat::garbage_row);
        continue;
      }
      dev = tick_pos[k];
    } else if (uuid_col >= 0) {
      std::string key(r.cells[static_cast<size_t>(uuid_col)]);
      dev = uuid_ordinal.emplace(key, static_cast<int32_t>(uuid_ordinal.size())).first->second;
      names[dev].second = key;
    }
    if (name_col >= 0 && names[dev].first.empty() &&
        !smi::IsMissingText(r.cells[static_cast<size_t>(name_col)]))
      names[dev].first = std::string(r.cells[static_cast<size_t>(name_col)]);
    if (uuid_col >= 0 && names[dev].second.empty())
      names[dev].second = std::string(r.cells[static_cast<size_t>(uuid_col)]);
    for (size_t i = 0; i < n; ++i) {
      if (cols[i].role != ScriptRole::kMetric) continue;
      double v = kMissingF64;
      if (!smi::IsMissingText(r.cells[i])) {
        std::string u;
        if (ScriptCellNumber(r.cells[i], &v, &u)) {
          v = smi::CheckedValue(t, v) * settled[i].spec.scale * ScriptCellUnitScale(u, col_unit[i]);
        } else {
          t.stats.Bump(ImportStat::non_numeric_value);
          v = kMissingF64;
        }
      }
      series.Add(dev, cols[i].header, settled[i].spec, ts, v);
    }
  }
  series.Finish();
  if (t.counters.empty())
    return InvalidInput(fmt::format("monitoring log header `{}` (line {}) but no data rows",
                                    header_text, header_line + 1));

  // How each column was read.
  for (size_t i = 0; i < n; ++i) {
    const ScriptColumn& c = cols[i];
    if (c.role == ScriptRole::kMetric) {
      t.info.import_notes.push_back(settled[i].note);
    } else if (static_cast<int>(i) == time_col) {
      t.info.import_notes.push_back(
          tk == ScriptTimeKind::kWall ? fmt::format("`{}` read as wall-clock time", c.header)
          : tk == ScriptTimeKind::kRelative
              ? fmt::format("`{}` read as {} since the log's start (no wall clock)", c.header,
                            rel_scale == kNsPerS    ? "seconds"
                            : rel_scale == kNsPerMs ? "milliseconds"
                            : rel_scale == kNsPerUs ? "microseconds"
                                                    : "nanoseconds")
          : tk == ScriptTimeKind::kTimeOfDay
              ? fmt::format("`{}` read as time of day (a day added where it goes back; no date)",
                            c.header)
              : fmt::format("`{}` did not read as times: samples are row indexes", c.header));
    } else if (static_cast<int>(i) == index_col) {
      t.info.import_notes.push_back(fmt::format("`{}` read as the GPU index", c.header));
    } else if (static_cast<int>(i) == uuid_col && index_col < 0) {
      t.info.import_notes.push_back(
          fmt::format("`{}` read as the GPU identity (devices numbered in order of appearance)",
                      c.header));
    } else if (static_cast<int>(i) == name_col) {
      t.info.import_notes.push_back(fmt::format("`{}` read as the GPU name", c.header));
    } else {
      t.info.import_notes.push_back(fmt::format("`{}` not read (not a GPU figure gpuwhy maps)", c.header));
    }
  }
  if (time_col < 0)
    t.info.import_notes.push_back("no time column: samples are row indexes, no sample period");
  if (index_col < 0 && uuid_col < 0)
    t.info.import_notes.push_back(
        !tick_pos.empty()
            ? fmt::format("no GPU column, but rows come {} per tick: read as {} GPUs in row order",
                          per_tick, per_tick)
            : std::string("no GPU column: every row read as GPU 0"));
  for (const model::CounterSeries& s : t.counters) t.GetOrAddDevice(s.device_id);
  for (const auto& [dev, nm] : names) {
    model::Device& d = t.GetOrAddDevice(dev);
    d.vendor = model::Vendor::kNvidia;
    if (!nm.first.empty()) d.name = t.strings.Intern(nm.first);
    if (!nm.second.empty()) d.uuid = t.strings.Intern(nm.second);
  }
  t.Finalize();
  return Status::Ok();
}

Status ScriptCsvImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadScriptCsvText);
}

}  // namespace gpuwhy::import
