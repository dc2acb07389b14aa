// The default `nvidia-smi` table (see smi_table_importer.h). A report is:
//
//   Thu Dec  3 14:46:09 2026                       <- banner (ctime)
//   +------------------------------------------+
//   | NVIDIA-SMI 535.104.05   Driver Version: ... CUDA Version: 12.2 |
//   |-------------------+-----------+------------+
//   | GPU  Name  Persistence-M | Bus-Id  Disp.A | Volatile Uncorr. ECC |   <- 2 or 3
//   | Fan  Temp  Perf  Pwr:Usage/Cap | Memory-Usage | GPU-Util  Compute M. |  header lines
//   |                          |                |               MIG M. |
//   |===================+===========+============|
//   |   0  NVIDIA A100 ...  On  | 00000000:07:00.0 Off |  0 |      <- one group of as many
//   | N/A   30C  P0  61W / 400W |  4MiB / 81920MiB | 0%  Default |    lines per GPU,
//   |                          |                |      Disabled |    '+'-separated
//   +-------------------+-----------+------------+
//   (optional "MIG devices:" table)
//   | Processes: ... |===| rows |
//
// A data line's cell k lines up with the header line's cell k, so each field
// is read from the cell whose header holds its label.
#include "import/smi/smi_table_importer.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "import/smi/smi_common.h"
#include "import/smi/smi_snapshot.h"

namespace gpuwhy::import {

using model::ImportStat;
using smi::GpuSample;
using smi::ProcessSample;
using smi::Snapshot;

namespace {

// Cells: the '|'-separated cells of a table line (outer bars dropped, each
// cell untrimmed so token positions survive).
std::vector<std::string_view> Cells(std::string_view l) {
  std::vector<std::string_view> out;
  l = smi::Trim(l);
  if (l.size() < 2 || l.front() != '|') return out;
  l.remove_prefix(1);
  if (!l.empty() && l.back() == '|') l.remove_suffix(1);
  size_t pos = 0;
  while (true) {
    size_t c = l.find('|', pos);
    out.push_back(l.substr(pos, c == std::string_view::npos ? c : c - pos));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

// IsRule: "|====+====|" (header end) or "+----+----+" / "|----+----|" separators.
bool IsRuleOf(std::string_view l, char fill) {
  l = smi::Trim(l);
  if (l.size() < 3) return false;
  bool any = false;
  for (char c : l) {
    if (c == fill) any = true;
    else if (c != '+' && c != '|') return false;
  }
  return any;
}

bool Contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

bool IsInt(std::string_view s, int32_t* v) {
  if (s.empty() || s.size() > 9) return false;
  int32_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + (c - '0');
  }
  *v = x;
  return true;
}

// FieldPos: where a labelled field sits in a GPU group: line and cell.
struct FieldPos {
  int line = -1;
  int cell = -1;
  bool found() const { return line >= 0; }
};

struct GpuLayout {
  std::vector<std::vector<std::string_view>> header;  // header lines' cells
  FieldPos name, bus, power, memory, util;
  void Locate() {
    for (size_t k = 0; k < header.size(); ++k)
      for (size_t c = 0; c < header[k].size(); ++c) {
        std::string_view h = header[k][c];
        FieldPos p{static_cast<int>(k), static_cast<int>(c)};
        if (Contains(h, "Name")) name = p;
        if (Contains(h, "Bus-Id")) bus = p;
        if (Contains(h, "Pwr:Usage/Cap") || Contains(h, "Temp")) power = p;
        if (Contains(h, "Memory-Usage")) memory = p;
        if (Contains(h, "GPU-Util")) util = p;
      }
  }
};

// SplitSlash: "4MiB / 81920MiB" -> ("4MiB", "81920MiB"); false without " / ".
bool SplitSlash(std::string_view s, std::string_view* a, std::string_view* b) {
  size_t k = s.find(" / ");
  if (k == std::string_view::npos) return false;
  *a = smi::Trim(s.substr(0, k));
  *b = smi::Trim(s.substr(k + 3));
  return true;
}

class TableParser {
 public:
  explicit TableParser(model::Trace& t) : t_(t) {}
  Status Run(std::string_view text);

 private:
  enum class Section { kNone, kGpuHeader, kGpuRows, kMigHeader, kMigRows, kProcHeader, kProcRows };

  void StartReport(std::string_view l, size_t line_no);
  void FlushGroup();
  bool ParseGroup(GpuSample* g);
  void ParseProcess(std::string_view l);
  bool Quantity(std::string_view s, double* v) {
    if (smi::ParseQuantity(s, v)) return true;
    t_.stats.Bump(ImportStat::non_numeric_value);
    return false;
  }

  model::Trace& t_;
  std::vector<Snapshot> snaps_;
  Snapshot* cur_ = nullptr;
  int64_t pending_ts_ = kMissingI64;
  Section section_ = Section::kNone;
  GpuLayout layout_;
  std::vector<std::vector<std::string_view>> group_;
  bool proc_has_gi_ = false;
  size_t first_table_line_ = 0;
};

void TableParser::StartReport(std::string_view l, size_t line_no) {
  FlushGroup();
  snaps_.emplace_back();
  cur_ = &snaps_.back();
  cur_->ts_ns = pending_ts_;
  cur_->line = line_no;
  pending_ts_ = kMissingI64;
  section_ = Section::kNone;
  if (first_table_line_ == 0) first_table_line_ = line_no;
  // "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |"
  std::vector<std::string_view> tok = smi::SplitWhitespace(l);
  for (size_t i = 0; i + 1 < tok.size(); ++i) {
    if (tok[i] == "Version:" && i > 0 && tok[i - 1] == "Driver")
      t_.info.cuda_driver_version = std::string(tok[i + 1]);
    if (tok[i] == "Version:" && i > 0 && tok[i - 1] == "CUDA")
      t_.info.format_version = "driver " + t_.info.cuda_driver_version + ", CUDA " + std::string(tok[i + 1]);
  }
}

void TableParser::FlushGroup() {
  if (group_.empty()) return;
  GpuSample g;
  if (cur_ != nullptr && ParseGroup(&g)) cur_->gpus.push_back(std::move(g));
  else t_.stats.Bump(ImportStat::malformed_table_row);
  group_.clear();
}

bool TableParser::ParseGroup(GpuSample* g) {
  const GpuLayout& L = layout_;
  if (group_.size() != L.header.size() || !L.name.found() || !L.util.found()) return false;
  for (size_t k = 0; k < group_.size(); ++k)
    if (group_[k].size() != L.header[k].size()) return false;
  auto cell = [&](const FieldPos& p) { return group_[static_cast<size_t>(p.line)][static_cast<size_t>(p.cell)]; };

  // "   0  Tesla V100-SXM2...  On   ": index, name, persistence (On/Off) or TCC/WDDM.
  std::vector<std::string_view> tok = smi::SplitWhitespace(cell(L.name));
  if (tok.size() < 2 || !IsInt(tok[0], &g->index)) return false;
  std::string_view name_cell = smi::Trim(cell(L.name));
  std::string_view rest = smi::Trim(name_cell.substr(tok[0].size()));
  std::string_view last = tok.back();
  if (tok.size() >= 3 && (last == "On" || last == "Off" || last == "TCC" || last == "WDDM"))
    rest = smi::Trim(rest.substr(0, rest.size() - last.size()));
  g->name = std::string(rest);

  if (L.bus.found()) {
    std::vector<std::string_view> b = smi::SplitWhitespace(cell(L.bus));
    if (!b.empty()) g->bus_id = std::string(b[0]);
  }
  // "N/A   36C    P0    43W / 300W": fan, temperature, perf state, power.
  if (L.power.found()) {
    std::string_view c = cell(L.power);
    std::vector<std::string_view> p = smi::SplitWhitespace(c);
    if (!p.empty() && (p[0].back() == '%' || p[0] == "N/A" || p[0] == "ERR!")) Quantity(p[0], &g->fan_ratio);
    for (std::string_view x : p) {
      int32_t v;
      if (x.size() >= 2 && x.back() == 'C' && IsInt(x.substr(0, x.size() - 1), &v)) g->temperature_c = v;
      if (x.size() >= 2 && x[0] == 'P' && IsInt(x.substr(1), &v)) g->pstate = v;
    }
    // The power pair is the text around the '/' (tokens may be "N/A").
    // (" / " because "N/A" holds a slash too.)
    size_t slash = c.find(" / ");
    if (slash != std::string_view::npos) {
      std::vector<std::string_view> left = smi::SplitWhitespace(c.substr(0, slash));
      std::vector<std::string_view> right = smi::SplitWhitespace(c.substr(slash + 3));
      if (!left.empty()) Quantity(left.back(), &g->power_mw);
      if (!right.empty()) Quantity(right.front(), &g->power_limit_mw);
    }
  }
  if (L.memory.found()) {
    std::string_view used, total;
    if (!SplitSlash(cell(L.memory), &used, &total)) return false;
    Quantity(used, &g->mem_used_bytes);
    Quantity(total, &g->mem_total_bytes);
  }
  // "     0%      Default": GPU-Util, then the compute mode.
  std::vector<std::string_view> u = smi::SplitWhitespace(cell(L.util));
  if (u.empty()) return false;
  if (!Quantity(u[0], &g->util_ratio)) return false;
  return true;
}

// IsProcType: the Type column (C, G, C+G, M, M+C, ...).
bool IsProcType(std::string_view s) {
  if (s.empty() || s.size() > 5) return false;
  for (char c : s)
    if (c != 'C' && c != 'G' && c != 'M' && c != '+') return false;
  return true;
}

void TableParser::ParseProcess(std::string_view l) {
  std::vector<std::string_view> cells = Cells(l);
  std::string_view body = cells.empty() ? std::string_view() : smi::Trim(cells[0]);
  if (cells.size() != 1 || body.empty()) {
    t_.stats.Bump(ImportStat::malformed_table_row);
    return;
  }
  if (Contains(body, "No running processes found") || Contains(body, "Not Supported")) return;
  std::vector<std::string_view> tok = smi::SplitWhitespace(body);
  ProcessSample p;
  const size_t pid_at = proc_has_gi_ ? 3 : 1;
  if (tok.size() < pid_at + 3 || !IsInt(tok[0], &p.gpu_index) || !IsProcType(tok[pid_at + 1])) {
    t_.stats.Bump(ImportStat::malformed_table_row);
    return;
  }
  if (!IsInt(tok[pid_at], &p.pid)) {
    if (tok[pid_at] != "N/A") t_.stats.Bump(ImportStat::malformed_table_row);
    return;  // Windows prints N/A for processes it cannot name
  }
  std::string_view mem = tok.back();
  double bytes = kMissingF64;
  if (!smi::ParseQuantity(mem, &bytes)) {
    t_.stats.Bump(ImportStat::malformed_table_row);
    return;
  }
  if (IsValid(bytes) && bytes >= 0) p.used_bytes = std::llround(bytes);
  // The name is the text between the type and the memory column; it may hold spaces.
  const char* from = tok[pid_at + 1].data() + tok[pid_at + 1].size();
  const char* to = mem.data();
  if (to > from) p.name = std::string(smi::Trim(std::string_view(from, static_cast<size_t>(to - from))));
  if (cur_ != nullptr) cur_->processes.push_back(std::move(p));
}

Status TableParser::Run(std::string_view text) {
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    if (li + 1 == lines.size() && !last_complete) {
      // A cut line could be read as a shorter number; drop it and its group.
      group_.clear();
      t_.stats.Bump(ImportStat::truncated_tail);
      break;
    }
    const char c0 = l.front();
    if (c0 != '|' && c0 != '+') {
      int64_t ts;
      if (smi::ParseCtime(l, &ts)) {
        FlushGroup();
        pending_ts_ = ts;
      } else {
        t_.stats.Bump(ImportStat::garbage_row);
      }
      continue;
    }
    if (c0 == '|' && Contains(l, "NVIDIA-SMI") && Contains(l, "Driver Version")) {
      StartReport(l, li + 1);
      continue;
    }
    if (cur_ == nullptr) {
      // The box's top border comes before the version line.
      if (!IsRuleOf(l, '-')) t_.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    if (IsRuleOf(l, '=')) {
      if (section_ == Section::kGpuHeader) {
        layout_.Locate();
        section_ = Section::kGpuRows;
      } else if (section_ == Section::kMigHeader) {
        section_ = Section::kMigRows;
      } else if (section_ == Section::kProcHeader) {
        section_ = Section::kProcRows;
      }
      continue;
    }
    if (IsRuleOf(l, '-')) {
      if (section_ == Section::kGpuRows) {
        FlushGroup();
      } else if (section_ == Section::kProcRows) {
        section_ = Section::kNone;
      }  // MIG slices are '+'-separated too; that table ends at "Processes:"
      continue;
    }
    // A '|' line with content.
    if (Contains(l, "Persistence-M") || Contains(l, "TCC/WDDM") ||
        (Contains(l, "Bus-Id") && section_ != Section::kGpuHeader)) {
      FlushGroup();
      layout_ = GpuLayout();
      section_ = Section::kGpuHeader;
    } else if (Contains(l, "MIG devices:")) {
      FlushGroup();
      section_ = Section::kMigHeader;
      continue;
    } else if (Contains(l, "Processes:")) {
      FlushGroup();
      section_ = Section::kProcHeader;
      proc_has_gi_ = false;
      continue;
    }
    switch (section_) {
      case Section::kGpuHeader:
        // Header cells point into `text`, which outlives the parse.
        layout_.header.push_back(Cells(l));
        break;
      case Section::kGpuRows:
        group_.push_back(Cells(l));
        if (group_.size() == layout_.header.size()) FlushGroup();
        break;
      case Section::kProcHeader: {
        std::vector<std::string_view> tok = smi::SplitWhitespace(l);
        for (size_t i = 0; i + 1 < tok.size(); ++i)
          if (tok[i] == "GI" && tok[i + 1] == "CI") proc_has_gi_ = true;
        break;
      }
      case Section::kProcRows: ParseProcess(l); break;
      case Section::kMigHeader:
      case Section::kMigRows: break;  // MIG slices are not whole GPUs
      case Section::kNone: t_.stats.Bump(ImportStat::garbage_row); break;
    }
  }
  // A report cut before its closing rule keeps the rows read so far; a GPU
  // group cut in the middle is dropped.
  if (!group_.empty()) {
    group_.clear();
    t_.stats.Bump(ImportStat::truncated_tail);
  }
  if (snaps_.empty()) return InvalidInput("no nvidia-smi table header (| NVIDIA-SMI ... |) found");
  size_t gpus = 0;
  for (const Snapshot& s : snaps_) gpus += s.gpus.size();
  if (gpus == 0)
    return InvalidInput(fmt::format(
        "nvidia-smi table with no readable GPU row at line {} (header without GPU rows, or "
        "rows that do not match their header)",
        first_table_line_));
  return smi::EmitSnapshots(snaps_, "nvidia-smi", t_);
}

}  // namespace

bool LooksLikeSmiTable(std::string_view prefix) {
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  size_t n = 0;
  for (std::string_view l : lines) {
    if (++n > 200) break;
    l = smi::Trim(l);
    if (!l.empty() && l.front() == '|' && Contains(l, "NVIDIA-SMI") && Contains(l, "Driver Version"))
      return true;
  }
  return false;
}

Status ReadSmiTableText(std::string_view text, model::Trace& t) {
  t.info.format = "nvidia-smi-table";
  t.info.clock = "unix_realtime";
  TableParser p(t);
  RETURN_IF_ERROR(p.Run(text));
  t.Finalize();
  return Status::Ok();
}

Status SmiTableImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadSmiTableText);
}

}  // namespace gpuwhy::import
