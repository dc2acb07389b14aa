#include "import/ncu/ncu_csv_importer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/ascii.h"
#include "import/smi/smi_common.h"

namespace gpuwhy::import {

namespace {

using model::ImportStat;

// NcuField: what a metric column or details row fills.
enum class NcuField : uint8_t {
  kDuration,
  kSm,
  kMemory,
  kDram,
  kAchieved,
  kTheoretical,
  kTensor,
  kRegisters,
  kStaticSmem,
  kDynamicSmem,
  kSmCount,
  kDeviceName,
  kSmActiveCycles,
  kElapsedCycles,
  kCount
};
constexpr size_t kNcuFieldCount = static_cast<size_t>(NcuField::kCount);

// kNcuNames: metric names (raw page columns, details Metric Name of a
// `--metrics` report) and details display names of every ncu version seen,
// in order of preference per field: the earlier name wins.
struct NcuName {
  std::string_view name;
  NcuField field;
  bool percent_only;  // details names shared with other units ("Memory Throughput" in GB/s)
};
constexpr NcuName kNcuNames[] = {
    {"gpu__time_duration.sum", NcuField::kDuration, false},
    {"gpu__time_duration.avg", NcuField::kDuration, false},
    {"gpu__time_duration", NcuField::kDuration, false},
    {"Duration", NcuField::kDuration, false},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", NcuField::kSm, false},
    {"Compute (SM) Throughput", NcuField::kSm, true},
    {"SOL SM", NcuField::kSm, true},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", NcuField::kMemory, false},
    {"Memory Throughput", NcuField::kMemory, true},
    {"SOL Memory", NcuField::kMemory, true},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NcuField::kDram, false},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", NcuField::kDram, false},
    {"DRAM Throughput", NcuField::kDram, true},
    {"SOL DRAM", NcuField::kDram, true},
    {"dram__cycles_active.avg.pct_of_peak_sustained_elapsed", NcuField::kDram, false},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", NcuField::kAchieved, false},
    {"Achieved Occupancy", NcuField::kAchieved, true},
    {"sm__maximum_warps_per_active_cycle_pct", NcuField::kTheoretical, false},
    {"Theoretical Occupancy", NcuField::kTheoretical, true},
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", NcuField::kTensor, false},
    {"sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", NcuField::kTensor, false},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", NcuField::kTensor,
     false},
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", NcuField::kTensor, false},
    {"launch__registers_per_thread", NcuField::kRegisters, false},
    {"Registers Per Thread", NcuField::kRegisters, false},
    {"launch__shared_mem_per_block_static", NcuField::kStaticSmem, false},
    {"Static Shared Memory Per Block", NcuField::kStaticSmem, false},
    {"launch__shared_mem_per_block_dynamic", NcuField::kDynamicSmem, false},
    {"Dynamic Shared Memory Per Block", NcuField::kDynamicSmem, false},
    {"device__attribute_multiprocessor_count", NcuField::kSmCount, false},
    {"# SMs", NcuField::kSmCount, false},
    {"device__attribute_display_name", NcuField::kDeviceName, false},
    {"sm__cycles_active.avg", NcuField::kSmActiveCycles, false},
    {"SM Active Cycles", NcuField::kSmActiveCycles, false},
    {"gpc__cycles_elapsed.max", NcuField::kElapsedCycles, false},
    {"Elapsed Cycles", NcuField::kElapsedCycles, false},
    {"sm__cycles_elapsed.avg", NcuField::kElapsedCycles, false},
};

// NcuLookup: the field and preference rank of a metric name, or nullopt.
std::optional<std::pair<NcuField, uint8_t>> NcuLookup(std::string_view name, bool* percent_only) {
  uint8_t rank = 0;
  for (const NcuName& n : kNcuNames) {
    if (n.name == name) {
      *percent_only = n.percent_only;
      return std::make_pair(n.field, rank);
    }
    ++rank;
  }
  return std::nullopt;
}

// NcuKernel: what the pages say about one launch ID.
struct NcuKernel {
  int64_t id = 0;
  std::string name;
  std::string block, grid;
  int32_t device = kMissingI32;
  int32_t pid = kMissingI32;
  int64_t stream = kMissingI64;
  std::string cc;
  std::array<double, kNcuFieldCount> value;
  std::array<uint8_t, kNcuFieldCount> rank;
  std::string device_name;
  struct Rule {
    std::string section, rule, type, message, speedup_kind;
    double speedup_pct = kMissingF64;
  };
  std::vector<Rule> rules;
  NcuKernel() {
    value.fill(kMissingF64);
    rank.fill(255);
  }
  void Offer(NcuField f, uint8_t r, double v) {
    const auto i = static_cast<size_t>(f);
    if (r < rank[i] && std::isfinite(v)) value[i] = v, rank[i] = r;
  }
};

// NcuCsvReader: CSV records of `text` (RFC 4180 quoting: "" inside quotes,
// separators and newlines inside quotes), with the line each record starts on.
class NcuCsvReader {
 public:
  NcuCsvReader(std::string_view text, int64_t first_line) : s_(text), line_(first_line) {}
  // Next: the next record into `cells`; false at the end. A quote left open
  // at the end sets *open_quote.
  bool Next(std::vector<std::string>* cells, int64_t* line, bool* open_quote) {
    // The cells' strings are reused from record to record (a raw page has
    // hundreds of columns): only the count changes.
    size_t n = 0;
    *open_quote = false;
    if (pos_ >= s_.size()) {
      cells->clear();
      return false;
    }
    *line = line_;
    auto cell = [&]() -> std::string& {
      if (n == cells->size()) cells->emplace_back();
      std::string& c = (*cells)[n];
      c.clear();
      return c;
    };
    std::string* cur = &cell();
    bool quoted = false;
    while (pos_ < s_.size()) {
      // Plain bytes up to the next special one in one append.
      size_t stop = pos_;
      if (quoted) {
        while (stop < s_.size() && s_[stop] != '"' && s_[stop] != '\n') ++stop;
      } else {
        while (stop < s_.size() && s_[stop] != '"' && s_[stop] != ',' && s_[stop] != '\n' &&
               s_[stop] != '\r')
          ++stop;
      }
      cur->append(s_.data() + pos_, stop - pos_);
      pos_ = stop;
      if (pos_ >= s_.size()) break;
      const char c = s_[pos_++];
      if (quoted) {
        if (c == '"') {
          if (pos_ < s_.size() && s_[pos_] == '"') {
            *cur += '"';
            ++pos_;
          } else {
            quoted = false;
          }
        } else {  // a newline inside quotes
          ++line_;
          *cur += c;
        }
        continue;
      }
      if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        ++n;
        cur = &cell();
      } else if (c == '\n') {
        ++line_;
        break;
      }  // '\r' outside quotes is dropped
    }
    if (quoted) *open_quote = true;
    cells->resize(n + 1);
    return true;
  }

  // AtEnd: no text after the record last read.
  bool AtEnd() const { return pos_ >= s_.size(); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int64_t line_;
};

// NcuTrim: `s` without surrounding spaces.
std::string_view NcuTrim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// NcuNumber: a metric value; thousands separators are dropped ("1,234.5").
// nullopt for text; *empty for an empty or "n/a" cell (missing, not an error).
std::optional<double> NcuNumber(std::string_view raw, bool* empty) {
  std::string_view s = NcuTrim(raw);
  *empty = s.empty() || s == "n/a" || s == "N/A";
  if (*empty) return std::nullopt;
  std::string clean;
  clean.reserve(s.size());
  for (char c : s)
    if (c != ',') clean += c;
  double v = 0;
  const char* b = clean.data();
  const char* e = b + clean.size();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

// NcuUnitScale: the factor from `unit` to the field's model unit (ns, bytes,
// percent, count); nullopt for a unit that does not fit the field.
std::optional<double> NcuUnitScale(NcuField f, std::string_view unit) {
  std::string u = AsciiLower(NcuTrim(unit));
  switch (f) {
    case NcuField::kDuration:
      if (u == "ns" || u == "nsecond" || u == "nsec") return 1.0;
      if (u == "us" || u == "usecond" || u == "usec") return 1e3;
      if (u == "ms" || u == "msecond" || u == "msec") return 1e6;
      if (u == "s" || u == "second" || u == "sec") return 1e9;
      return std::nullopt;
    case NcuField::kStaticSmem:
    case NcuField::kDynamicSmem: {
      std::string_view b = u;
      if (size_t slash = b.find('/'); slash != std::string_view::npos) b = b.substr(0, slash);
      if (b == "byte" || b == "b" || b.empty()) return 1.0;
      if (b == "kbyte" || b == "kb") return 1e3;
      if (b == "mbyte" || b == "mb") return 1e6;
      if (b == "kibyte" || b == "kib") return 1024.0;
      return std::nullopt;
    }
    case NcuField::kSm:
    case NcuField::kMemory:
    case NcuField::kDram:
    case NcuField::kAchieved:
    case NcuField::kTheoretical:
    case NcuField::kTensor:
      if (u == "%" || u.empty()) return 1.0;
      return std::nullopt;
    default:
      return 1.0;
  }
}

// NcuParseDims: "(256, 1, 1)" (or a plain "256") into three ints.
bool NcuParseDims(std::string_view s, int32_t out[3]) {
  s = NcuTrim(s);
  if (!s.empty() && s.front() == '(') s.remove_prefix(1);
  if (!s.empty() && s.back() == ')') s.remove_suffix(1);
  out[0] = out[1] = out[2] = 1;
  for (int i = 0; i < 3; ++i) {
    size_t comma = s.find(',');
    std::string_view part = NcuTrim(s.substr(0, comma));
    int64_t v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || v < 0 || v > INT32_MAX)
      return false;
    out[i] = static_cast<int32_t>(v);
    if (comma == std::string_view::npos) return i == 0 || i == 2;
    s = s.substr(comma + 1);
  }
  return NcuTrim(s).empty();
}

// NcuSkipBanner: offset past leading `==PROF==`-style lines and blank lines; the
// number of lines skipped into *lines.
size_t NcuSkipBanner(std::string_view text, int64_t* lines) {
  size_t pos = 0;
  *lines = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // a byte-order mark
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
    std::string_view t = NcuTrim(line);
    if (!t.empty() && t.substr(0, 2) != "==") break;
    if (end == std::string_view::npos) return text.size();
    pos = end + 1;
    ++*lines;
  }
  return pos;
}

constexpr std::string_view kNcuHeadStart = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",";

// NcuColumns: indexes of the fixed columns of a page header (-1 when absent).
struct NcuColumns {
  int id = -1, pid = -1, name = -1, stream = -1, block = -1, grid = -1, device = -1, cc = -1;
  int section = -1, metric = -1, unit = -1, value = -1;
  int rule = -1, rule_type = -1, rule_text = -1, speedup_type = -1, speedup = -1;
  bool details() const { return metric >= 0 && value >= 0; }
};

NcuColumns NcuFindColumns(const std::vector<std::string>& h) {
  NcuColumns c;
  for (size_t i = 0; i < h.size(); ++i) {
    const std::string& n = h[i];
    const int k = static_cast<int>(i);
    if (n == "ID") c.id = k;
    else if (n == "Process ID") c.pid = k;
    else if (n == "Kernel Name" || n == "Function Name") c.name = k;
    else if (n == "Stream") c.stream = k;
    else if (n == "Block Size") c.block = k;
    else if (n == "Grid Size") c.grid = k;
    else if (n == "Device") c.device = k;
    else if (n == "CC") c.cc = k;
    else if (n == "Section Name") c.section = k;
    else if (n == "Metric Name") c.metric = k;
    else if (n == "Metric Unit") c.unit = k;
    else if (n == "Metric Value") c.value = k;
    else if (n == "Rule Name") c.rule = k;
    else if (n == "Rule Type") c.rule_type = k;
    else if (n == "Rule Description") c.rule_text = k;
    else if (n == "Estimated Speedup Type") c.speedup_type = k;
    else if (n == "Estimated Speedup") c.speedup = k;
  }
  return c;
}

// NcuCell: cell i of `row`, empty when the row is shorter or i < 0.
std::string_view NcuCell(const std::vector<std::string>& row, int i) {
  return i >= 0 && static_cast<size_t>(i) < row.size() ? std::string_view(row[i])
                                                        : std::string_view();
}

// NcuReport: kernels of every page, by launch ID.
class NcuReport {
 public:
  explicit NcuReport(model::Trace& t) : t_(t) {}

  Status AddPage(const NcuPage& page, std::string* kind) {
    int64_t skipped = 0;
    const size_t start = NcuSkipBanner(page.text, &skipped);
    NcuCsvReader reader(page.text.substr(start), skipped + 1);
    std::vector<std::string> header, row;
    int64_t line = skipped + 1;
    bool open = false;
    if (!reader.Next(&header, &line, &open) || open)
      return InvalidInput(fmt::format("{}: line {}: no Nsight Compute CSV header", page.label,
                                      skipped + 1));
    const NcuColumns c = NcuFindColumns(header);
    if (c.id < 0 || c.name < 0)
      return InvalidInput(fmt::format(
          "{}: line {}: not an Nsight Compute CSV page (no \"ID\" and \"Kernel Name\" columns)",
          page.label, line));
    *kind = c.details() ? "details page" : "raw page";
    // Raw page: the metric of each column.
    std::vector<std::optional<std::pair<NcuField, uint8_t>>> col_field(header.size());
    std::vector<bool> col_pct(header.size(), false);
    if (!c.details()) {
      for (size_t i = 0; i < header.size(); ++i) {
        bool pct = false;
        col_field[i] = NcuLookup(header[i], &pct);
        col_pct[i] = pct;
      }
    }
    const size_t min_cells =
        c.details() ? static_cast<size_t>(std::max({c.id, c.name, c.metric, c.unit, c.value})) + 1
                    : header.size();
    std::vector<std::string> units;
    bool first = true;
    while (reader.Next(&row, &line, &open)) {
      if (open)
        return InvalidInput(fmt::format("{}: line {}: a quoted cell is never closed",
                                        page.label, line));
      if (row.size() == 1 && NcuTrim(row[0]).empty()) continue;  // a blank line
      // A details row without a rule ends after its Metric Value (ncu
      // writes one trailing comma, not the empty rule cells).
      if (row.size() < min_cells) {
        t_.stats.Bump(reader.AtEnd() ? ImportStat::truncated_tail : ImportStat::garbage_row);
        continue;
      }
      const std::string_view id_text = NcuTrim(NcuCell(row, c.id));
      if (first && !c.details() && id_text.empty()) {  // the units row
        units = row;
        first = false;
        continue;
      }
      first = false;
      int64_t id = 0;
      auto [p, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
      if (ec != std::errc() || p != id_text.data() + id_text.size() || id < 0) {
        if (id_text == "ID") {  // a repeated header (appended output)
          t_.stats.Bump(ImportStat::repeated_header);
        } else {
          t_.stats.Bump(ImportStat::garbage_row);
        }
        continue;
      }
      NcuKernel& k = KernelOf(id, row, c);
      if (c.details()) {
        AddDetailsRow(k, row, c);
      } else {
        for (size_t i = 0; i < row.size() && i < header.size(); ++i) {
          if (!col_field[i]) continue;
          AddValue(k, col_field[i]->first, col_field[i]->second, row[i],
                   i < units.size() ? std::string_view(units[i]) : std::string_view(), col_pct[i]);
        }
      }
    }
    return Status::Ok();
  }

  // Emit: the kernels into the trace, laid end to end in ID order.
  Status Emit(const std::string& label, const std::string& kinds) {
    if (kernels_.empty())
      return InvalidInput(fmt::format(
          "{}: Nsight Compute CSV export ({}) with no kernel rows: nothing to analyze", label,
          kinds));
    int64_t cursor = 0;
    size_t kept = 0;
    for (auto& [id, k] : kernels_) {
      const double dur = k.value[static_cast<size_t>(NcuField::kDuration)];
      if (!std::isfinite(dur) || dur < 0 || dur > 1e17) {
        t_.stats.Bump(ImportStat::missing_dur);
        continue;
      }
      const auto dur_ns = static_cast<int64_t>(std::llround(dur));
      const uint32_t row = static_cast<uint32_t>(t_.kernels.size());
      model::KernelRow r;
      r.device_id = IsValid(k.device) ? k.device : 0;
      r.stream_id = k.stream;
      r.start_ns = cursor;
      r.end_ns = cursor + dur_ns;
      cursor = r.end_ns;
      r.name = t_.strings.Intern(k.name);
      int32_t d[3];
      if (NcuParseDims(k.grid, d)) r.grid_x = d[0], r.grid_y = d[1], r.grid_z = d[2];
      else if (!k.grid.empty()) t_.stats.Bump(ImportStat::non_numeric_value);
      if (NcuParseDims(k.block, d)) r.block_x = d[0], r.block_y = d[1], r.block_z = d[2];
      else if (!k.block.empty()) t_.stats.Bump(ImportStat::non_numeric_value);
      r.registers_per_thread = I32Of(k, NcuField::kRegisters);
      const int32_t st = I32Of(k, NcuField::kStaticSmem);
      const int32_t dy = I32Of(k, NcuField::kDynamicSmem);
      if (IsValid(st) && IsValid(dy) && int64_t{st} + dy <= INT32_MAX) r.shared_mem_bytes = st + dy;
      t_.kernels.Append(r);
      if (IsValid(st)) t_.kernels.static_shared_mem_bytes.Set(row, st);
      if (IsValid(dy)) t_.kernels.dynamic_shared_mem_bytes.Set(row, dy);
      if (IsValid(k.pid)) t_.kernels.pid.Set(row, k.pid);
      const double active = k.value[static_cast<size_t>(NcuField::kSmActiveCycles)];
      const double elapsed = k.value[static_cast<size_t>(NcuField::kElapsedCycles)];
      if (std::isfinite(active) && std::isfinite(elapsed) && elapsed > 0)
        t_.kernels.sm_active_pct.Set(row, static_cast<float>(std::min(100.0, 100.0 * active / elapsed)));
      SetPct(t_.kernels.sm_throughput_pct, row, k, NcuField::kSm);
      SetPct(t_.kernels.memory_throughput_pct, row, k, NcuField::kMemory);
      SetPct(t_.kernels.dram_throughput_pct, row, k, NcuField::kDram);
      SetPct(t_.kernels.achieved_occupancy_pct, row, k, NcuField::kAchieved);
      SetPct(t_.kernels.theoretical_occupancy_pct, row, k, NcuField::kTheoretical);
      SetPct(t_.kernels.tensor_pipe_pct, row, k, NcuField::kTensor);
      for (const NcuKernel::Rule& rule : k.rules) {
        model::KernelRuleRow rr;
        rr.kernel_row = row;
        rr.section = t_.strings.Intern(rule.section);
        rr.rule = t_.strings.Intern(rule.rule);
        rr.type = t_.strings.Intern(rule.type);
        rr.message = t_.strings.Intern(rule.message);
        rr.speedup_kind = t_.strings.Intern(rule.speedup_kind);
        rr.est_speedup_pct = static_cast<float>(rule.speedup_pct);
        t_.kernel_rules.Append(rr);
      }
      NoteDevice(r.device_id, k);
      ++kept;
    }
    if (kept == 0)
      return InvalidInput(fmt::format(
          "{}: Nsight Compute CSV export ({}) with {} kernel rows but no kernel duration "
          "(gpu__time_duration or \"Duration\"): nothing to analyze; profile with the "
          "SpeedOfLight section or metric gpu__time_duration.sum",
          label, kinds, kernels_.size()));
    return Status::Ok();
  }

 private:
  NcuKernel& KernelOf(int64_t id, const std::vector<std::string>& row, const NcuColumns& c) {
    auto [it, added] = kernels_.try_emplace(id);
    NcuKernel& k = it->second;
    if (added) {
      k.id = id;
      k.name = std::string(NcuTrim(NcuCell(row, c.name)));
      k.block = std::string(NcuCell(row, c.block));
      k.grid = std::string(NcuCell(row, c.grid));
      k.cc = std::string(NcuTrim(NcuCell(row, c.cc)));
      bool empty = false;
      if (auto v = NcuNumber(NcuCell(row, c.device), &empty)) k.device = smi::IndexOf(*v);
      if (auto v = NcuNumber(NcuCell(row, c.pid), &empty)) k.pid = smi::IndexOf(*v);
      if (auto v = NcuNumber(NcuCell(row, c.stream), &empty); v && *v >= 0 && *v < 9e18)
        k.stream = static_cast<int64_t>(*v);
    }
    return k;
  }

  void AddDetailsRow(NcuKernel& k, const std::vector<std::string>& row, const NcuColumns& c) {
    const std::string_view rule = NcuTrim(NcuCell(row, c.rule));
    if (!rule.empty()) {
      NcuKernel::Rule r;
      r.section = std::string(NcuTrim(NcuCell(row, c.section)));
      r.rule = std::string(rule);
      r.type = std::string(NcuTrim(NcuCell(row, c.rule_type)));
      r.message = std::string(NcuTrim(NcuCell(row, c.rule_text)));
      r.speedup_kind = std::string(NcuTrim(NcuCell(row, c.speedup_type)));
      bool empty = false;
      std::optional<double> sp = NcuNumber(NcuCell(row, c.speedup), &empty);
      if (sp) r.speedup_pct = *sp;
      else if (!empty) t_.stats.Bump(ImportStat::non_numeric_value);
      k.rules.push_back(std::move(r));
    }
    const std::string_view metric = NcuTrim(NcuCell(row, c.metric));
    if (metric.empty()) return;
    bool pct = false;
    auto f = NcuLookup(metric, &pct);
    if (!f) return;
    AddValue(k, f->first, f->second, NcuCell(row, c.value), NcuCell(row, c.unit), pct);
  }

  void AddValue(NcuKernel& k, NcuField f, uint8_t rank, std::string_view cell,
                std::string_view unit, bool percent_only) {
    if (f == NcuField::kDeviceName) {
      if (k.device_name.empty()) k.device_name = std::string(NcuTrim(cell));
      return;
    }
    if (percent_only && NcuTrim(unit) != "%") return;
    bool empty = false;
    std::optional<double> v = NcuNumber(cell, &empty);
    if (!v) {
      if (!empty) t_.stats.Bump(ImportStat::non_numeric_value);
      return;
    }
    std::optional<double> scale = NcuUnitScale(f, unit);
    if (!scale) {
      t_.stats.Bump(ImportStat::non_numeric_value);
      return;
    }
    double x = *v * *scale;
    if (x < 0) {
      t_.stats.Bump(ImportStat::negative_value);
      return;
    }
    k.Offer(f, rank, x);
  }

  static int32_t I32Of(const NcuKernel& k, NcuField f) {
    const double v = k.value[static_cast<size_t>(f)];
    if (!std::isfinite(v) || v < 0 || v > INT32_MAX) return kMissingI32;
    return static_cast<int32_t>(std::llround(v));
  }

  static void SetPct(model::LazyColumn<float>& col, uint32_t row, const NcuKernel& k, NcuField f) {
    const double v = k.value[static_cast<size_t>(f)];
    if (std::isfinite(v) && v <= 1e6) col.Set(row, static_cast<float>(v));
  }

  void NoteDevice(int32_t device_id, const NcuKernel& k) {
    model::Device& d = t_.GetOrAddDevice(device_id);
    if (d.name == kEmptyString && !k.device_name.empty())
      d.name = t_.strings.Intern(k.device_name);
    if (!IsValid(d.sm_count)) d.sm_count = I32Of(k, NcuField::kSmCount);
    if (!IsValid(d.cc_major) && !k.cc.empty()) {
      int major = 0, minor = 0;
      const char* b = k.cc.data();
      const char* e = b + k.cc.size();
      auto [p, ec] = std::from_chars(b, e, major);
      if (ec == std::errc() && p < e && *p == '.' &&
          std::from_chars(p + 1, e, minor).ec == std::errc() && major >= 0 && major < 100 &&
          minor >= 0 && minor < 100) {
        d.cc_major = major;
        d.cc_minor = minor;
      }
    }
    if (d.vendor == model::Vendor::kUnknown) d.vendor = model::Vendor::kNvidia;
  }

  model::Trace& t_;
  std::map<int64_t, NcuKernel> kernels_;
};

}  // namespace

bool LooksLikeNcuCsv(std::string_view prefix) {
  int64_t lines = 0;
  const size_t start = NcuSkipBanner(prefix, &lines);
  std::string_view head = prefix.substr(start);
  if (head.substr(0, kNcuHeadStart.size()) != kNcuHeadStart) return false;
  std::string_view first = head.substr(0, head.find('\n'));
  return first.find("\"Kernel Name\"") != std::string_view::npos ||
         first.find("\"Function Name\"") != std::string_view::npos;
}

Status ParseNcuCsvPages(const std::vector<NcuPage>& pages, model::Trace& trace) {
  NcuReport report(trace);
  std::string kinds;
  for (const NcuPage& page : pages) {
    std::string kind;
    RETURN_IF_ERROR(report.AddPage(page, &kind));
    if (kinds.find(kind) == std::string::npos) kinds += (kinds.empty() ? "" : " + ") + kind;
  }
  RETURN_IF_ERROR(report.Emit(pages.empty() ? std::string() : pages.front().label, kinds));
  trace.info.format = "ncu-csv";
  trace.info.format_version = kinds;
  trace.info.clock = "kernel-order";
  trace.info.kernels_untimed = true;
  trace.Finalize();
  return Status::Ok();
}

Status NcuCsvImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::string text, smi::ReadWholeFile(src.path));
  RETURN_IF_ERROR(ParseNcuCsvPages({NcuPage{text, src.path}}, trace));
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
