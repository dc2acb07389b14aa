// `nvidia-smi -q` text and `nvidia-smi -q -x` XML (see smi_table_importer.h).
// Both are read into smi::Snapshot records, one per report; GPUs are indexed
// in the order the report lists them (nvidia-smi's index order).
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "import/smi/smi_common.h"
#include "import/smi/smi_snapshot.h"
#include "import/smi/smi_table_importer.h"

namespace gpuwhy::import {

using model::ImportStat;
using smi::GpuSample;
using smi::ProcessSample;
using smi::Snapshot;

namespace {

constexpr std::string_view kQueryBanner = "NVSMI LOG";
constexpr std::string_view kXmlRoot = "nvidia_smi_log";

// Fields: what one (section, key) pair of either format sets.
struct Fields {
  model::Trace& t;
  bool Num(std::string_view s, double* v) {
    if (smi::ParseQuantity(s, v)) return true;
    t.stats.Bump(ImportStat::non_numeric_value);
    return false;
  }
  // Gpu: a value of the GPU block; `section` is the enclosing section, in the
  // text format's words or the XML element name.
  void Gpu(GpuSample& g, std::string_view section, std::string_view key, std::string_view v,
           int* limit_rank) {
    if (section.empty() || section == "gpu") {
      if (key == "Product Name" || key == "product_name") g.name = std::string(v);
      else if (key == "Fan Speed" || key == "fan_speed") Num(v, &g.fan_ratio);
      else if (key == "Performance State" || key == "performance_state") {
        if (v.size() >= 2 && v[0] == 'P') Num(v.substr(1), &g.pstate);
      }
      return;
    }
    if (section == "FB Memory Usage" || section == "fb_memory_usage") {
      if (key == "Total" || key == "total") Num(v, &g.mem_total_bytes);
      if (key == "Used" || key == "used") Num(v, &g.mem_used_bytes);
    } else if (section == "Utilization" || section == "utilization") {
      if (key == "Gpu" || key == "gpu_util") Num(v, &g.util_ratio);
      if (key == "Memory" || key == "memory_util") Num(v, &g.mem_util_ratio);
    } else if (section == "Temperature" || section == "temperature") {
      if (key == "GPU Current Temp" || key == "gpu_temp") Num(v, &g.temperature_c);
    } else if (section == "Power Readings" || section == "GPU Power Readings" ||
               section == "power_readings" || section == "gpu_power_readings") {
      // Newer drivers print both an average and an instant draw; the average
      // is what older "Power Draw" meant.
      if (key == "Power Draw" || key == "power_draw" || key == "Average Power Draw" ||
          key == "average_power_draw")
        Num(v, &g.power_mw);
      else if ((key == "Instantaneous Power Draw" || key == "instant_power_draw") && !IsValid(g.power_mw))
        Num(v, &g.power_mw);
      // The enforced limit wins over the requested / current one.
      int rank = key == "Enforced Power Limit" || key == "enforced_power_limit" ? 3
                 : key == "Current Power Limit" || key == "current_power_limit"   ? 2
                 : key == "Power Limit" || key == "power_limit"                   ? 1
                                                                                  : 0;
      double lim;
      if (rank > *limit_rank && Num(v, &lim) && IsValid(lim)) {
        g.power_limit_mw = lim;
        *limit_rank = rank;
      }
    } else if (section == "Clocks" || section == "clocks") {
      if (key == "SM" || key == "sm_clock") Num(v, &g.sm_clock_mhz);
      if (key == "Memory" || key == "mem_clock") Num(v, &g.mem_clock_mhz);
    }
  }
  void Process(ProcessSample& p, std::string_view key, std::string_view v) {
    double bytes;
    if (key == "Process ID" || key == "pid") {
      double x;
      if (smi::ParseNumber(v, &x, nullptr) && IsValid(smi::IndexOf(x))) {
        p.pid = smi::IndexOf(x);
      } else if (!smi::IsMissingText(v)) {
        t.stats.Bump(ImportStat::malformed_table_row);
      }
    } else if (key == "Name" || key == "process_name") {
      p.name = std::string(v);
    } else if (key == "Used GPU Memory" || key == "used_memory") {
      if (Num(v, &bytes) && IsValid(bytes) && bytes >= 0) p.used_bytes = std::llround(bytes);
    }
  }
};

size_t Indent(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  return i;
}

// ---- -q text ----------------------------------------------------------------

Status ReadQueryText(std::string_view text, model::Trace& t, std::vector<Snapshot>* snaps) {
  Fields f{t};
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  Snapshot* cur = nullptr;
  GpuSample* gpu = nullptr;
  ProcessSample* proc = nullptr;
  int limit_rank = 0;
  // Section stack: (indent, name) of the enclosing headings inside a GPU block.
  std::vector<std::pair<size_t, std::string_view>> stack;
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view raw = lines[li];
    std::string_view l = smi::Trim(raw);
    if (l.empty()) continue;
    if (li + 1 == lines.size() && !last_complete) {
      t.stats.Bump(ImportStat::truncated_tail);
      break;
    }
    if (l.find(kQueryBanner) != std::string_view::npos && l.front() == '=') {
      snaps->emplace_back();
      cur = &snaps->back();
      cur->line = li + 1;
      gpu = nullptr;
      proc = nullptr;
      stack.clear();
      continue;
    }
    if (cur == nullptr) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    const size_t indent = Indent(raw);
    size_t colon = l.find(" :");
    if (colon == std::string_view::npos && l.back() == ':') colon = l.size() - 1;
    if (colon == std::string_view::npos) {
      // A heading: "GPU 00000000:07:00.0" at column 0, or a section name.
      if (indent == 0 && l.substr(0, 4) == "GPU ") {
        cur->gpus.emplace_back();
        gpu = &cur->gpus.back();
        gpu->index = static_cast<int32_t>(cur->gpus.size() - 1);
        gpu->bus_id = std::string(smi::Trim(l.substr(4)));
        proc = nullptr;
        limit_rank = 0;
        stack.clear();
        continue;
      }
      while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
      stack.emplace_back(indent, l);
      continue;
    }
    std::string_view key = smi::Trim(l.substr(0, colon));
    std::string_view value = smi::Trim(l.substr(colon + 2 <= l.size() ? colon + 2 : l.size()));
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    if (gpu == nullptr) {
      if (key == "Timestamp") {
        int64_t ts;
        if (smi::ParseCtime(value, &ts)) cur->ts_ns = ts;
        else t.stats.Bump(ImportStat::garbage_row);
      } else if (key == "Driver Version") {
        t.info.cuda_driver_version = std::string(value);
      } else if (key == "CUDA Version") {
        t.info.format_version = "driver " + t.info.cuda_driver_version + ", CUDA " + std::string(value);
      }
      continue;
    }
    // Processes: "Process ID" opens an entry; its Type/Name/Used GPU Memory
    // follow, nested (>= 450) or at the same depth (older drivers).
    const bool in_procs = !stack.empty() && stack.front().second == "Processes";
    if (in_procs) {
      if (key == "Process ID") {
        cur->processes.emplace_back();
        proc = &cur->processes.back();
        proc->gpu_index = gpu->index;
      }
      if (proc != nullptr) f.Process(*proc, key, value);
      continue;
    }
    // Only first-level sections of the GPU block name a metric group; keys
    // of deeper sections (e.g. "Clocks Event Reasons" details) are not read.
    if (stack.size() > 1) continue;
    f.Gpu(*gpu, stack.empty() ? std::string_view() : stack.back().second, key, value, &limit_rank);
  }
  return Status::Ok();
}

// ---- -q -x XML --------------------------------------------------------------

std::string DecodeEntities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEnt[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    for (const auto& [e, c] : kEnt)
      if (s.substr(i, e.size()) == e) {
        out += c;
        i += e.size() - 1;
        done = true;
        break;
      }
    if (!done) out += '&';
  }
  return out;
}

Status ReadQueryXml(std::string_view text, model::Trace& t, std::vector<Snapshot>* snaps) {
  Fields f{t};
  std::vector<std::string_view> stack;
  Snapshot* cur = nullptr;
  GpuSample* gpu = nullptr;
  ProcessSample* proc = nullptr;
  int limit_rank = 0;
  size_t complete = 0;          // snapshots whose root closed
  size_t text_from = 0;         // start of the text since the last tag
  bool leaf = false;            // no child element since the last open tag
  size_t pos = 0;
  auto err = [&](size_t at, std::string what) {
    return InvalidInput(fmt::format("nvidia-smi XML: {} at offset {}", what, at));
  };
  while (true) {
    size_t lt = text.find('<', pos);
    if (stack.empty()) {
      // Between reports only whitespace and declarations are expected.
      std::string_view gap = smi::Trim(text.substr(pos, lt == std::string_view::npos ? lt : lt - pos));
      if (!gap.empty() && gap.find_first_not_of(" \t\r\n") != std::string_view::npos)
        t.stats.Bump(ImportStat::garbage_row);
    }
    if (lt == std::string_view::npos) break;
    if (text.compare(lt, 4, "<!--") == 0) {
      size_t e = text.find("-->", lt + 4);
      if (e == std::string_view::npos) return err(lt, "unterminated comment");
      pos = e + 3;
      continue;
    }
    size_t gt = text.find('>', lt + 1);
    if (gt == std::string_view::npos) {
      if (complete > 0) {
        if (stack.empty()) t.stats.Bump(ImportStat::truncated_tail);
        break;  // a partial report is dropped below
      }
      return err(lt, "unterminated tag");
    }
    std::string_view tag = text.substr(lt + 1, gt - lt - 1);
    pos = gt + 1;
    if (tag.empty()) return err(lt, "empty tag");
    if (tag.front() == '?' || tag.front() == '!') continue;  // declaration, DOCTYPE
    if (tag.front() == '/') {
      std::string_view name = smi::Trim(tag.substr(1));
      if (stack.empty() || stack.back() != name)
        return err(lt, stack.empty() ? fmt::format("</{}> without an open element", name)
                                     : fmt::format("</{}> closes <{}>", name, stack.back()));
      if (leaf) {
        std::string value = DecodeEntities(smi::Trim(text.substr(text_from, lt - text_from)));
        std::string_view parent = stack.size() >= 2 ? stack[stack.size() - 2] : std::string_view();
        if (cur != nullptr && stack.size() == 2) {
          if (name == "timestamp") {
            int64_t ts;
            if (smi::ParseCtime(value, &ts)) cur->ts_ns = ts;
            else t.stats.Bump(ImportStat::garbage_row);
          } else if (name == "driver_version") {
            t.info.cuda_driver_version = value;
          } else if (name == "cuda_version") {
            t.info.format_version = "driver " + t.info.cuda_driver_version + ", CUDA " + value;
          }
        } else if (proc != nullptr && parent == "process_info") {
          f.Process(*proc, name, value);
        } else if (gpu != nullptr && stack.size() >= 3 && stack[1] == "gpu") {
          // Metric groups are direct children of <gpu>.
          if (stack.size() == 3) f.Gpu(*gpu, "gpu", name, value, &limit_rank);
          else if (stack.size() == 4) f.Gpu(*gpu, parent, name, value, &limit_rank);
        }
      }
      stack.pop_back();
      leaf = false;
      if (stack.empty() && name == kXmlRoot) ++complete;
      if (name == "gpu") gpu = nullptr;
      if (name == "process_info") proc = nullptr;
      continue;
    }
    bool self_close = tag.back() == '/';
    if (self_close) tag.remove_suffix(1);
    size_t sp = tag.find_first_of(" \t\r\n");
    std::string_view name = tag.substr(0, sp);
    if (name.empty()) return err(lt, "element without a name");
    if (stack.empty() && name != kXmlRoot)
      return err(lt, fmt::format("<{}> outside <{}>", name, kXmlRoot));
    if (self_close) {
      leaf = false;
      continue;
    }
    if (stack.empty()) {
      snaps->emplace_back();
      cur = &snaps->back();
      cur->line = lt;
      gpu = nullptr;
      proc = nullptr;
    } else if (stack.size() == 1 && name == "gpu") {
      cur->gpus.emplace_back();
      gpu = &cur->gpus.back();
      gpu->index = static_cast<int32_t>(cur->gpus.size() - 1);
      limit_rank = 0;
      // <gpu id="00000000:07:00.0">
      size_t id = tag.find("id=\"");
      if (id != std::string_view::npos) {
        size_t e = tag.find('"', id + 4);
        if (e != std::string_view::npos) gpu->bus_id = std::string(tag.substr(id + 4, e - id - 4));
      }
    } else if (name == "process_info" && gpu != nullptr) {
      cur->processes.emplace_back();
      proc = &cur->processes.back();
      proc->gpu_index = gpu->index;
    }
    stack.push_back(name);
    leaf = true;
    text_from = pos;
  }
  if (!stack.empty()) {
    if (complete == 0)
      return err(text.size(), fmt::format("document cut off inside <{}>", stack.back()));
    // An appended log cut mid-report: keep the complete reports.
    snaps->pop_back();
    t.stats.Bump(ImportStat::truncated_tail);
  }
  return Status::Ok();
}

bool IsXml(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && text[i] == '<';
}

}  // namespace

bool LooksLikeSmiQuery(std::string_view prefix) {
  if (IsXml(prefix)) return prefix.find("<nvidia_smi_log") != std::string_view::npos;
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  size_t n = 0;
  for (std::string_view l : lines) {
    if (++n > 50) break;
    l = smi::Trim(l);
    if (!l.empty() && l.front() == '=' && l.find(kQueryBanner) != std::string_view::npos) return true;
  }
  return false;
}

Status ReadSmiQueryText(std::string_view text, model::Trace& t) {
  const bool xml = IsXml(text);
  t.info.format = xml ? "nvidia-smi-q-xml" : "nvidia-smi-q";
  t.info.clock = "unix_realtime";
  std::vector<Snapshot> snaps;
  RETURN_IF_ERROR(xml ? ReadQueryXml(text, t, &snaps) : ReadQueryText(text, t, &snaps));
  if (snaps.empty())
    return InvalidInput(xml ? "no <nvidia_smi_log> report found" : "no ==NVSMI LOG== report found");
  size_t gpus = 0;
  for (const Snapshot& s : snaps) gpus += s.gpus.size();
  if (gpus == 0)
    return InvalidInput(fmt::format("nvidia-smi -q report with no GPU block at {} {}",
                                    xml ? "offset" : "line", snaps.front().line));
  RETURN_IF_ERROR(smi::EmitSnapshots(snaps, "nvidia-smi", t));
  t.Finalize();
  return Status::Ok();
}

Status SmiQueryImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadSmiQueryText);
}

}  // namespace gpuwhy::import
