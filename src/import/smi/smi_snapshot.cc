#include "import/smi/smi_snapshot.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <map>

#include "import/smi/smi_common.h"

namespace gpuwhy::import::smi {

using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

int MonthOf(std::string_view m) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (m == kMonths[i]) return i;
  return -1;
}

bool Int(std::string_view s, int* out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool IsDayName(std::string_view d) {
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  for (std::string_view k : kDays)
    if (d == k) return true;
  return false;
}

}  // namespace

bool ParseCtime(std::string_view s, int64_t* ns) {
  std::vector<std::string_view> tok = SplitWhitespace(Trim(s));
  if (tok.size() < 5) return false;
  const size_t b = tok.size() - 5;
  int day, year, h, mi, se;
  const int mon = MonthOf(tok[b + 1]);
  std::string_view hms = tok[b + 3];
  if (!IsDayName(tok[b]) || mon < 0 || !Int(tok[b + 2], &day) || !Int(tok[b + 4], &year) ||
      hms.size() != 8 || hms[2] != ':' || hms[5] != ':' || !Int(hms.substr(0, 2), &h) ||
      !Int(hms.substr(3, 2), &mi) || !Int(hms.substr(6, 2), &se))
    return false;
  if (day < 1 || day > 31 || year < 1970 || year > 9999 || h > 23 || mi > 59 || se > 60)
    return false;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon;
  tm.tm_mday = day;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = se;
  // Years past 2116 leave kMaxAbsTimeNs (9999 would also leave int64).
  return ScaledTimeNs(static_cast<int64_t>(timegm(&tm)), kNsPerS, ns);
}

int64_t ParseBusId(std::string_view s) {
  s = Trim(s);
  // [domain:]bus:device.function, hex.
  size_t dot = s.rfind('.');
  size_t c2 = s.rfind(':', dot);
  if (dot == std::string_view::npos || c2 == std::string_view::npos || c2 == 0) return kMissingI64;
  size_t c1 = s.rfind(':', c2 - 1);
  auto hex = [](std::string_view h, int64_t* v) {
    if (h.empty() || h.size() > 8) return false;
    auto r = std::from_chars(h.data(), h.data() + h.size(), *v, 16);
    return r.ec == std::errc() && r.ptr == h.data() + h.size() && *v >= 0;
  };
  int64_t dom = 0, bus, dev, fn;
  std::string_view bus_s = c1 == std::string_view::npos ? s.substr(0, c2) : s.substr(c1 + 1, c2 - c1 - 1);
  if (c1 != std::string_view::npos && !hex(s.substr(0, c1), &dom)) return kMissingI64;
  if (!hex(bus_s, &bus) || !hex(s.substr(c2 + 1, dot - c2 - 1), &dev) ||
      !hex(s.substr(dot + 1), &fn) || bus > 0xff || dev > 0x1f || fn > 7 || dom > 0xffff)
    return kMissingI64;
  return (dom << 16) | (bus << 8) | (dev << 3) | fn;
}

bool ParseQuantity(std::string_view s, double* v) {
  *v = kMissingF64;
  s = Trim(s);
  if (IsMissingText(s) || s == "ERR!" || s == "Unknown Error" || s == "[Requested functionality "
                                                                        "has been deprecated]")
    return true;
  std::string_view unit;
  double x;
  if (!ParseNumber(s, &x, &unit) || !std::isfinite(x)) return false;
  if (unit == "MiB") x *= kMiB;
  else if (unit == "GiB") x *= kMiB * 1024.0;
  else if (unit == "KiB") x *= 1024.0;
  else if (unit == "W") x *= 1000.0;
  else if (unit == "%") x *= 0.01;
  *v = x;
  return true;
}

Status EmitSnapshots(const std::vector<Snapshot>& snaps, std::string_view source,
                     model::Trace& t) {
  bool any_timed = false;
  for (const Snapshot& s : snaps) any_timed = any_timed || IsValid(s.ts_ns);
  SeriesBuilder series(t, source);
  auto m = [](CounterKind k, CounterUnit u) { return MetricSpec{k, u, 1.0, true}; };
  const MetricSpec kUtil = m(CounterKind::kGpuUtil, CounterUnit::kRatio);
  const MetricSpec kMemUtil = m(CounterKind::kMemUtil, CounterUnit::kRatio);
  const MetricSpec kUsed = m(CounterKind::kMemUsedBytes, CounterUnit::kBytes);
  const MetricSpec kTotal = m(CounterKind::kMemTotalBytes, CounterUnit::kBytes);
  const MetricSpec kPower = m(CounterKind::kPowerMw, CounterUnit::kMilliwatt);
  const MetricSpec kLimit = m(CounterKind::kPowerLimitMw, CounterUnit::kMilliwatt);
  const MetricSpec kTemp = m(CounterKind::kTemperatureC, CounterUnit::kCelsius);
  const MetricSpec kFan = m(CounterKind::kOther, CounterUnit::kRatio);
  const MetricSpec kSmClock = m(CounterKind::kSmClockMhz, CounterUnit::kMhz);
  const MetricSpec kMemClock = m(CounterKind::kMemClockMhz, CounterUnit::kMhz);
  const MetricSpec kPstate = m(CounterKind::kOther, CounterUnit::kCount);

  struct Seen {
    model::GpuProcessRow row;
  };
  std::map<std::pair<int32_t, int32_t>, Seen> procs;
  std::vector<std::pair<int32_t, int32_t>> proc_order;
  size_t samples = 0;
  for (const Snapshot& s : snaps) {
    if (any_timed && !IsValid(s.ts_ns)) {
      t.stats.Bump(ImportStat::untimed_snapshot);
      continue;
    }
    for (const GpuSample& g : s.gpus) {
      if (!IsValid(g.index)) continue;
      ++samples;
      model::Device& d = t.GetOrAddDevice(g.index);
      d.vendor = model::Vendor::kNvidia;
      if (d.name == kEmptyString && !g.name.empty()) d.name = t.strings.Intern(g.name);
      if (!IsValid(d.pcie_bus_id) && !g.bus_id.empty()) d.pcie_bus_id = ParseBusId(g.bus_id);
      if (IsValid(g.mem_total_bytes)) d.total_memory_bytes = std::llround(g.mem_total_bytes);
      // A metric a layout never prints (fan on SXM boards, clocks in the
      // table) gets no series; one it prints as N/A gets NaN samples.
      auto add = [&](std::string_view name, const MetricSpec& spec, double v, bool present) {
        if (present) series.Add(g.index, name, spec, s.ts_ns, CheckedValue(t, v));
      };
      add("utilization.gpu", kUtil, g.util_ratio, true);
      add("utilization.memory", kMemUtil, g.mem_util_ratio, IsValid(g.mem_util_ratio));
      add("memory.used", kUsed, g.mem_used_bytes, true);
      add("memory.total", kTotal, g.mem_total_bytes, IsValid(g.mem_total_bytes));
      add("power.draw", kPower, g.power_mw, true);
      add("power.limit", kLimit, g.power_limit_mw, IsValid(g.power_limit_mw));
      add("temperature.gpu", kTemp, g.temperature_c, IsValid(g.temperature_c));
      add("fan.speed", kFan, g.fan_ratio, IsValid(g.fan_ratio));
      add("clocks.sm", kSmClock, g.sm_clock_mhz, IsValid(g.sm_clock_mhz));
      add("clocks.mem", kMemClock, g.mem_clock_mhz, IsValid(g.mem_clock_mhz));
      add("pstate", kPstate, g.pstate, IsValid(g.pstate));
    }
    for (const ProcessSample& p : s.processes) {
      if (!IsValid(p.gpu_index) || !IsValid(p.pid)) continue;
      auto key = std::make_pair(p.gpu_index, p.pid);
      auto [it, fresh] = procs.try_emplace(key);
      model::GpuProcessRow& r = it->second.row;
      if (fresh) {
        proc_order.push_back(key);
        r.device_id = p.gpu_index;
        r.pid = p.pid;
        r.name = t.strings.Intern(p.name);
        r.first_seen_ns = s.ts_ns;
      }
      if (IsValid(p.used_bytes) && (!IsValid(r.used_memory_bytes) || p.used_bytes > r.used_memory_bytes))
        r.used_memory_bytes = p.used_bytes;
      if (IsValid(s.ts_ns)) r.last_seen_ns = s.ts_ns;
      t.GetOrAddDevice(p.gpu_index).vendor = model::Vendor::kNvidia;
    }
  }
  series.Finish();
  for (const auto& key : proc_order) t.gpu_processes.Append(procs[key].row);
  if (samples == 0 && t.gpu_processes.empty())
    return InvalidInput("no GPU sample could be read");
  return Status::Ok();
}

}  // namespace gpuwhy::import::smi
