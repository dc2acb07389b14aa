#include "live/watch_view.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "analysis/utilization/curve_classifier.h"

namespace gpuwhy::live {

using record::DeviceSnapshot;
using record::Metric;
using record::Reading;
using record::Snapshot;

namespace {

constexpr size_t kM = record::kMetricCount;

// Fit: clip `s` to `width` visible cells (ANSI escapes take none; each UTF-8
// code point takes one) and pad with spaces.
std::string Fit(const std::string& s, int width) {
  std::string out;
  int cells = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {  // copy an escape sequence whole
      size_t j = s.find('m', i);
      j = j == std::string::npos ? s.size() : j + 1;
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    if (cells >= width) break;
    out.append(s, i, len);
    ++cells;
    i += len;
  }
  if (out.find('\x1b') != std::string::npos) out += "\x1b[0m";
  out.append(static_cast<size_t>(std::max(0, width - cells)), ' ');
  return out;
}

std::string Pct(const Reading& r) {
  return r.valid() ? fmt::format("{:3.0f}%", r.value * 100) : " n/a";
}

std::string Bar(double ratio, int width, bool ascii) {
  if (width <= 0) return "";
  if (!IsValid(ratio)) return std::string(static_cast<size_t>(width), ascii ? '?' : ' ');
  ratio = std::clamp(ratio, 0.0, 1.0);
  int full = static_cast<int>(std::lround(ratio * width));
  std::string s;
  for (int i = 0; i < width; ++i) s += i < full ? (ascii ? "#" : "█") : (ascii ? "." : "░");
  return s;
}

const char* Color(double ratio, bool enabled) {
  if (!enabled || !IsValid(ratio)) return "";
  // nvitop's thresholds for load: < 10% light, < 75% moderate, else heavy.
  return ratio < 0.10 ? "\x1b[32m" : ratio < 0.75 ? "\x1b[33m" : "\x1b[31m";
}

// Spark: the last `width` points of a series as block characters.
std::string Spark(const std::vector<History::Point>& pts, int width, bool ascii) {
  static const char* kBlocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static const char kAscii[] = " .:-=+*#%@";
  std::string s;
  size_t n = pts.size();
  size_t start = n > static_cast<size_t>(width) ? n - static_cast<size_t>(width) : 0;
  for (size_t i = start; i < n; ++i) {
    double v = pts[i].value;
    if (!IsValid(v)) {
      s += "?";
      continue;
    }
    v = std::clamp(v, 0.0, 1.0);
    if (ascii) {
      s += kAscii[static_cast<int>(std::lround(v * 9))];
    } else {
      s += kBlocks[static_cast<int>(std::lround(v * 8))];
    }
  }
  return s;
}

std::string ThrottleText(const Reading& r) {
  if (!r.valid()) return "n/a";
  auto m = static_cast<unsigned long long>(r.value);
  std::string s;
  auto add = [&](unsigned long long bit, const char* name) {
    if (m & bit) s += s.empty() ? name : std::string(",") + name;
  };
  add(0x001, "idle");
  add(0x004, "power-cap");
  add(0x008, "hw-slowdown");
  add(0x010, "sync-boost");
  add(0x020, "sw-thermal");
  add(0x040, "hw-thermal");
  add(0x080, "power-brake");
  return s.empty() ? "none" : s;
}

// RealSource: the source of the device's real-utilization figures.
record::Source RealSource(const record::DeviceInfo* info) {
  if (!info) return record::Source::kNone;
  if (info->real_source != record::Source::kNone) return info->real_source;
  return info->gpm_supported ? record::Source::kGpm : record::Source::kNone;
}

// RealSourceLabel: how the view names it ("NVML GPM", "DCGM").
const char* RealSourceLabel(record::Source s) {
  switch (s) {
    case record::Source::kGpm: return "NVML GPM";
    case record::Source::kDcgm: return "DCGM";
    default: return nullptr;
  }
}

std::string Rate(const Reading& r) {
  return r.valid() ? FormatBytes(r.value) + "/s" : "n/a";
}

std::string JsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", c);
        else o += c;
    }
  }
  return o;
}

std::string JsonNum(double v) {
  if (!IsValid(v) || std::isinf(v)) return "null";
  return fmt::format("{}", v);
}

}  // namespace

std::string FormatBytes(double bytes) {
  if (!IsValid(bytes)) return "n/a";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

void History::Add(const Snapshot& snap) {
  if (devices_.size() < snap.devices.size()) devices_.resize(snap.devices.size());
  for (size_t slot = 0; slot < snap.devices.size(); ++slot) {
    const DeviceSnapshot& d = snap.devices[slot];
    DeviceHistory& h = devices_[slot];
    if (h.series.empty()) {
      h.series.resize(kM);
      h.last_ts.assign(kM, kMissingI64);
    }
    // Driver-buffer samples first (finer than the poll), then new readings.
    for (const auto& f : d.fine) {
      size_t m = static_cast<size_t>(f.metric);
      if (f.ts_ns > h.last_ts[m] || !IsValid(h.last_ts[m])) {
        h.series[m].push_back({f.ts_ns, f.value});
        h.last_ts[m] = f.ts_ns;
      }
    }
    for (size_t m = 0; m < kM; ++m) {
      const Reading& r = d.readings[m];
      if (!IsValid(r.ts_ns) || r.status == record::kStatusNotSampled) continue;
      if (IsValid(h.last_ts[m]) && r.ts_ns <= h.last_ts[m]) continue;
      h.series[m].push_back({r.ts_ns, r.valid() ? r.value : kMissingF64});
      h.last_ts[m] = r.ts_ns;
    }
    int64_t cutoff = snap.ts_ns - window_ns_;
    for (auto& s : h.series) {
      auto it = std::find_if(s.begin(), s.end(), [&](const Point& p) { return p.ts_ns >= cutoff; });
      s.erase(s.begin(), it);
    }
  }
}

const std::vector<History::Point>& History::Points(size_t slot, Metric m) const {
  if (slot >= devices_.size() || devices_[slot].series.empty()) return empty_;
  return devices_[slot].series[static_cast<size_t>(m)];
}

LiveVerdict ClassifyLive(const History& history, size_t slot, int64_t period_ns) {
  analysis::CurveInput in;
  for (const auto& p : history.Points(slot, Metric::kGpuUtil)) in.util_ratio.push_back(p.value);
  in.period_ns = period_ns;
  double sum = 0;
  int n = 0;
  for (const auto& p : history.Points(slot, Metric::kSmActive)) {
    if (IsValid(p.value)) {
      sum += p.value;
      ++n;
    }
  }
  if (n > 0) in.real_util_ratio = sum / n;
  analysis::CurveVerdict v = analysis::ClassifyCurve(in);
  LiveVerdict out;
  out.curve_class = analysis::ToString(v.curve_class);
  out.reason = v.reason;
  if (!v.aliasing_note.empty()) out.reason += " (" + v.aliasing_note + ")";
  out.confidence = v.confidence;
  return out;
}

std::string Draw(const Snapshot& snap, const History& history, const ViewState& view, int width,
                 int height) {
  width = std::max(width, 40);
  height = std::max(height, 5);
  std::vector<std::string> lines;
  const bool col = view.color;
  const char* reset = col ? "\x1b[0m" : "";
  const char* bold = col ? "\x1b[1m" : "";
  const char* dim = col ? "\x1b[2m" : "";
  std::time_t now = static_cast<std::time_t>(snap.ts_ns / kNsPerS);
  std::tm tm{};
  localtime_r(&now, &tm);
  const auto& sys = *snap.system;
  lines.push_back(fmt::format("{}gpuwhy watch{}  {}  driver {}  {:02}:{:02}:{:02}   h help  q quit",
                              bold, reset, sys.hostname,
                              sys.driver_version.empty() ? "n/a" : sys.driver_version, tm.tm_hour,
                              tm.tm_min, tm.tm_sec));
  if (view.help) {
    for (const char* h : {"keys:", "  q / Esc / F10   quit", "  h / ?           toggle this help",
                          "  Left / Right    select GPU", "  Up / Down       select process",
                          "  , / .           previous / next sort column (memory, %SM, pid, user)",
                          "  /               reverse the sort", "  + / -           longer / shorter curve window",
                          "", "surface = NVML GPU-Util: share of time >= 1 kernel ran (one warp counts).",
                          "real = SM active / occupancy / tensor / DRAM from NVML GPM (Hopper+),",
                          "       else from a running DCGM host engine; n/a where neither gives them.",
                          "MIG: NVML gives no GPU-Util per MIG instance (n/a); memory per instance."}) {
      lines.push_back(h);
    }
  }
  if (snap.devices.empty()) lines.push_back("no GPU is being sampled");
  int curve_w = std::max(10, width - 20);
  for (size_t slot = 0; slot < snap.devices.size(); ++slot) {
    const DeviceSnapshot& d = snap.devices[slot];
    const record::DeviceInfo* info = slot < sys.devices.size() ? &sys.devices[slot] : nullptr;
    bool sel = slot == view.selected_device;
    lines.push_back("");
    const char* real_label = RealSourceLabel(RealSource(info));
    std::string mig_note;
    if (info && info->mig_mode == 1) mig_note = "  MIG on: GPU-Util n/a per instance";
    lines.push_back(fmt::format("{}{}GPU {}  {}{}{}{}", sel ? ">" : " ", bold, d.index,
                                info ? info->name : "", reset,
                                real_label ? fmt::format("  (real: {})", real_label)
                                           : std::string("  (no GPM, no DCGM: real = n/a)"),
                                mig_note));
    if (d.lost) {
      lines.push_back(fmt::format("   {}lost: {}{}", col ? "\x1b[31m" : "", d.lost_reason, reset));
      continue;
    }
    int bar_w = std::clamp(width / 4, 10, 30);
    const Reading& gu = d.at(Metric::kGpuUtil);
    const Reading& sm = d.at(Metric::kSmActive);
    lines.push_back(fmt::format("   surface GPU-Util  {}{}{} {}   mem-ctl {}", Color(gu.value, col),
                                Bar(gu.valid() ? gu.value : kMissingF64, bar_w, view.ascii), reset,
                                Pct(gu), Pct(d.at(Metric::kMemUtil))));
    lines.push_back(fmt::format("   real    SM active {}{}{} {}   occ {}  tensor {}  DRAM {}  [{}]",
                                Color(sm.value, col),
                                Bar(sm.valid() ? sm.value : kMissingF64, bar_w, view.ascii), reset,
                                Pct(sm), Pct(d.at(Metric::kSmOccupancy)),
                                Pct(d.at(Metric::kTensorActive)), Pct(d.at(Metric::kDramActive)),
                                real_label ? real_label : "no source"));
    const Reading& pw = d.at(Metric::kPowerMw);
    const Reading& pl = d.at(Metric::kPowerLimitMw);
    double pr = pw.valid() && pl.valid() && pl.value > 0 ? pw.value / pl.value : kMissingF64;
    lines.push_back(fmt::format(
        "   power   {} {} / {}   memory {} / {}   SM {} MHz   clocks: {}",
        Bar(pr, 10, view.ascii),
        pw.valid() ? fmt::format("{:.0f} W", pw.value / 1000) : "n/a",
        pl.valid() ? fmt::format("{:.0f} W", pl.value / 1000) : "n/a",
        FormatBytes(d.at(Metric::kMemUsedBytes).valid() ? d.at(Metric::kMemUsedBytes).value : kMissingF64),
        FormatBytes(d.at(Metric::kMemTotalBytes).valid() ? d.at(Metric::kMemTotalBytes).value : kMissingF64),
        d.at(Metric::kSmClockMhz).valid() ? fmt::format("{:.0f}", d.at(Metric::kSmClockMhz).value) : "n/a",
        ThrottleText(d.at(Metric::kClockEventReasons))));
    {
      const Reading& nt = d.at(Metric::kNvlinkTxBytesPerS);
      const Reading& nr = d.at(Metric::kNvlinkRxBytesPerS);
      std::string links = info && IsValid(info->nvlink_count)
                              ? fmt::format(" ({} links)", info->nvlink_count)
                              : std::string();
      lines.push_back(fmt::format("   I/O     PCIe tx {} rx {}   NVLink tx {} rx {}{}",
                                  Rate(d.at(Metric::kPcieTxBytesPerS)),
                                  Rate(d.at(Metric::kPcieRxBytesPerS)), Rate(nt), Rate(nr), links));
    }
    for (const auto& mi : d.mig) {
      lines.push_back(fmt::format("   MIG GI {} CI {}  memory {} / {}   SM active {}  GPU-Util n/a",
                                  IsValid(mi.gpu_instance_id) ? std::to_string(mi.gpu_instance_id) : "?",
                                  IsValid(mi.compute_instance_id) ? std::to_string(mi.compute_instance_id) : "?",
                                  FormatBytes(mi.mem_used.valid() ? mi.mem_used.value : kMissingF64),
                                  FormatBytes(mi.mem_total.valid() ? mi.mem_total.value : kMissingF64),
                                  Pct(mi.sm_active)));
    }
    lines.push_back(fmt::format("   {}GPU-Util  {}|{}{}", dim, reset,
                                Spark(history.Points(slot, Metric::kGpuUtil), curve_w, view.ascii), "|"));
    lines.push_back(fmt::format("   {}SM active {}|{}{}", dim, reset,
                                Spark(history.Points(slot, Metric::kSmActive), curve_w, view.ascii), "|"));
    LiveVerdict v = ClassifyLive(history, slot,
                                 info && IsValid(info->util_sample_period_ns) ? info->util_sample_period_ns
                                                                              : kMissingI64);
    lines.push_back(fmt::format("   curve ({} s): {}{}{}  {}", history.window_ns() / kNsPerS, bold,
                                v.curve_class, reset, v.reason));
  }
  // Processes of the selected GPU.
  if (view.selected_device < snap.devices.size()) {
    const DeviceSnapshot& d = snap.devices[view.selected_device];
    std::vector<record::ProcessInfo> procs = d.processes;
    auto key = [&](const record::ProcessInfo& a, const record::ProcessInfo& b) {
      switch (view.sort) {
        case SortKey::kMemory: return a.used_memory_bytes > b.used_memory_bytes;
        case SortKey::kSmUtil: return (IsValid(a.sm_util_ratio) ? a.sm_util_ratio : -1) >
                                      (IsValid(b.sm_util_ratio) ? b.sm_util_ratio : -1);
        case SortKey::kPid: return a.pid < b.pid;
        case SortKey::kUser: return a.user < b.user;
        case SortKey::kCount: break;
      }
      return false;
    };
    std::stable_sort(procs.begin(), procs.end(), key);
    if (view.reverse) std::reverse(procs.begin(), procs.end());
    static const char* kSortNames[] = {"memory", "%SM", "pid", "user"};
    lines.push_back("");
    lines.push_back(fmt::format("{}processes on GPU {} (sorted by {}{}){}", bold, d.index,
                                kSortNames[static_cast<int>(view.sort)], view.reverse ? ", reversed" : "",
                                reset));
    lines.push_back(fmt::format("  {:>8}  {:<10} {:>10} {:>5}  {}", "PID", "USER", "GPU-MEM", "%SM", "NAME"));
    if (procs.empty()) {
      lines.push_back(d.process_status == record::kStatusOk || d.process_status == record::kStatusNotSampled
                          ? "  (none)"
                          : fmt::format("  n/a (status {})", d.process_status));
    }
    for (size_t i = 0; i < procs.size(); ++i) {
      const auto& p = procs[i];
      lines.push_back(fmt::format(
          "{} {:>8}  {:<10} {:>10} {:>5}  {}{}", i == view.selected_process ? ">" : " ", p.pid,
          p.user.empty() ? "?" : p.user.substr(0, 10),
          FormatBytes(IsValid(p.used_memory_bytes) ? static_cast<double>(p.used_memory_bytes) : kMissingF64),
          IsValid(p.sm_util_ratio) ? fmt::format("{:.0f}%", p.sm_util_ratio * 100) : "n/a",
          p.name.empty() ? "?" : p.name, p.is_mps_client ? " [MPS]" : ""));
    }
  }
  std::string frame;
  int rows = 0;
  for (const auto& l : lines) {
    if (rows >= height) break;
    if (rows > 0) frame += "\n";
    frame += Fit(l, width);
    ++rows;
  }
  return frame;
}

std::string SnapshotJson(const Snapshot& snap, const History& history) {
  const auto& sys = *snap.system;
  std::string o = fmt::format(
      "{{\"ts_ns\":{},\"hostname\":\"{}\",\"driver_version\":\"{}\",\"nvml_version\":\"{}\","
      "\"dcgm_status\":{},\"devices\":[",
      snap.ts_ns, JsonEscape(sys.hostname), JsonEscape(sys.driver_version), JsonEscape(sys.nvml_version),
      sys.dcgm_status.empty() ? "null" : "\"" + JsonEscape(sys.dcgm_status) + "\"");
  for (size_t slot = 0; slot < snap.devices.size(); ++slot) {
    const DeviceSnapshot& d = snap.devices[slot];
    const record::DeviceInfo& info = sys.devices[slot];
    if (slot) o += ",";
    o += fmt::format(
        "{{\"index\":{},\"name\":\"{}\",\"uuid\":\"{}\",\"gpm_supported\":{},\"lost\":{},"
        "\"util_sample_period_ns\":{},\"metrics\":{{",
        d.index, JsonEscape(info.name), JsonEscape(info.uuid), info.gpm_supported ? "true" : "false",
        d.lost ? "true" : "false",
        IsValid(info.util_sample_period_ns) ? std::to_string(info.util_sample_period_ns) : "null");
    for (size_t m = 0; m < kM; ++m) {
      const Reading& r = d.readings[m];
      if (m) o += ",";
      o += fmt::format("\"{}\":{{\"value\":{},\"unit\":\"{}\",\"source\":{},\"status\":{}}}",
                       record::MetricName(static_cast<Metric>(m)), r.valid() ? JsonNum(r.value) : "null",
                       model::ToString(model::CanonicalUnit(record::MetricCounterKind(static_cast<Metric>(m)))),
                       r.source == record::Source::kNone
                           ? "null"
                           : fmt::format("\"{}\"", record::SourceName(r.source)),
                       r.status);
    }
    o += "}";
    {
      record::Source rs = RealSource(&info);
      o += fmt::format(",\"real_source\":{},\"nvlink_count\":{},\"nvlinks\":[",
                       rs == record::Source::kNone ? "null"
                                                   : fmt::format("\"{}\"", record::SourceName(rs)),
                       IsValid(info.nvlink_count) ? std::to_string(info.nvlink_count) : "null");
      for (size_t k = 0; k < d.nvlinks.size(); ++k) {
        const record::LinkReading& l = d.nvlinks[k];
        if (k) o += ",";
        o += fmt::format(
            "{{\"link\":{},\"tx_bytes_per_second\":{},\"rx_bytes_per_second\":{},"
            "\"tx_status\":{},\"rx_status\":{}}}",
            l.link, l.tx.valid() ? JsonNum(l.tx.value) : "null",
            l.rx.valid() ? JsonNum(l.rx.value) : "null", l.tx.status, l.rx.status);
      }
      o += fmt::format("],\"mig_mode\":{},\"gpu_util_per_instance\":{},\"mig_instances\":[",
                       IsValid(info.mig_mode) ? std::to_string(info.mig_mode) : "null",
                       info.mig_mode == 1 ? "\"n/a: NVML gives no GPU-Util per MIG instance\""
                                          : "null");
      for (size_t k = 0; k < d.mig.size(); ++k) {
        const record::MigReading& m = d.mig[k];
        if (k) o += ",";
        auto rd = [&](const Reading& r) { return r.valid() ? JsonNum(r.value) : std::string("null"); };
        o += fmt::format(
            "{{\"index\":{},\"uuid\":\"{}\",\"gpu_instance_id\":{},\"compute_instance_id\":{},"
            "\"gpu_util\":null,\"mem_used_bytes\":{},\"mem_total_bytes\":{},"
            "\"sm_active\":{},\"sm_occupancy\":{},\"tensor_active\":{},\"dram_active\":{},"
            "\"sm_active_status\":{}}}",
            m.index, JsonEscape(m.uuid),
            IsValid(m.gpu_instance_id) ? std::to_string(m.gpu_instance_id) : "null",
            IsValid(m.compute_instance_id) ? std::to_string(m.compute_instance_id) : "null",
            rd(m.mem_used), rd(m.mem_total), rd(m.sm_active), rd(m.sm_occupancy),
            rd(m.tensor_active), rd(m.dram_active), m.sm_active.status);
      }
      o += "]";
    }
    o += ",\"processes\":[";
    for (size_t i = 0; i < d.processes.size(); ++i) {
      const auto& p = d.processes[i];
      if (i) o += ",";
      o += fmt::format(
          "{{\"pid\":{},\"name\":\"{}\",\"user\":\"{}\",\"used_memory_bytes\":{},\"sm_util_ratio\":{},"
          "\"mps_client\":{}}}",
          p.pid, JsonEscape(p.name), JsonEscape(p.user),
          IsValid(p.used_memory_bytes) ? std::to_string(p.used_memory_bytes) : "null",
          JsonNum(p.sm_util_ratio), p.is_mps_client ? "true" : "false");
    }
    LiveVerdict v = ClassifyLive(history, slot, info.util_sample_period_ns);
    o += fmt::format("],\"curve\":{{\"class\":\"{}\",\"reason\":\"{}\",\"confidence\":{}}}}}",
                     v.curve_class, JsonEscape(v.reason), JsonNum(v.confidence));
  }
  o += "]}";
  return o;
}

}  // namespace gpuwhy::live
