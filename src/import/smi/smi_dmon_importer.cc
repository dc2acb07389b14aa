// `nvidia-smi dmon` / `pmon` text: "# gpu sm mem enc dec ..." header pairs
// (names, then units) before blocks of whitespace-separated rows.
#include <algorithm>
#include <cmath>

#include "import/smi/smi_common.h"
#include "import/smi/smi_csv_importer.h"

namespace gpuwhy::import {

using model::CounterKind;
using model::CounterUnit;
using model::ImportStat;
using smi::MetricSpec;

namespace {

MetricSpec DmonSpec(std::string_view n) {
  auto m = [](CounterKind k, CounterUnit u, double s) { return MetricSpec{k, u, s, true}; };
  // -s u: utilization.
  if (n == "sm") return m(CounterKind::kGpuUtil, CounterUnit::kRatio, 0.01);
  if (n == "mem") return m(CounterKind::kMemUtil, CounterUnit::kRatio, 0.01);
  if (n == "enc") return m(CounterKind::kEncoderUtil, CounterUnit::kRatio, 0.01);
  if (n == "dec") return m(CounterKind::kDecoderUtil, CounterUnit::kRatio, 0.01);
  if (n == "jpg" || n == "ofa") return m(CounterKind::kOther, CounterUnit::kRatio, 0.01);
  // -s p: power and temperatures.
  if (n == "pwr") return m(CounterKind::kPowerMw, CounterUnit::kMilliwatt, 1000.0);
  if (n == "gtemp") return m(CounterKind::kTemperatureC, CounterUnit::kCelsius, 1.0);
  if (n == "mtemp") return m(CounterKind::kOther, CounterUnit::kCelsius, 1.0);
  // -s c: clocks.
  if (n == "mclk") return m(CounterKind::kMemClockMhz, CounterUnit::kMhz, 1.0);
  if (n == "pclk") return m(CounterKind::kSmClockMhz, CounterUnit::kMhz, 1.0);
  // -s m: frame buffer, BAR1 and confidential-compute protected memory (MB).
  if (n == "fb") return m(CounterKind::kMemUsedBytes, CounterUnit::kBytes, 1024.0 * 1024.0);
  if (n == "bar1" || n == "ccpm") return m(CounterKind::kOther, CounterUnit::kBytes, 1024.0 * 1024.0);
  // -s t: PCIe throughput (MB/s).
  if (n == "rxpci") return m(CounterKind::kPcieRxBytesPerS, CounterUnit::kBytesPerSecond, 1e6);
  if (n == "txpci") return m(CounterKind::kPcieTxBytesPerS, CounterUnit::kBytesPerSecond, 1e6);
  // -s v: power / thermal violation shares; -s e: ECC and PCIe replay counts.
  if (n == "pviol" || n == "tviol") return m(CounterKind::kOther, CounterUnit::kRatio, 0.01);
  if (n == "sbecc" || n == "dbecc" || n == "pci") return m(CounterKind::kOther, CounterUnit::kCount, 1.0);
  return {};
}

// DmonHeaderCells: the cells of a '#' header line ("# gpu sm ..." or "#Date
// Time gpu ..."), the '#' dropped; empty when `line` is not one.
std::vector<std::string_view> DmonHeaderCells(std::string_view line) {
  line = smi::Trim(line);
  if (line.empty() || line[0] != '#') return {};
  return smi::SplitWhitespace(line.substr(1));
}

// DmonIsNamesLine: the first header line (names), as opposed to its units line.
bool DmonIsNamesLine(const std::vector<std::string_view>& c) {
  return c.size() >= 2 && (c[0] == "gpu" || c[0] == "Date" || c[0] == "Time");
}

}  // namespace

bool LooksLikeSmiDmon(std::string_view prefix) {
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  for (size_t i = 0; i + 1 < lines.size() && i < 8; ++i) {
    std::vector<std::string_view> a = DmonHeaderCells(lines[i]);
    std::vector<std::string_view> b = DmonHeaderCells(lines[i + 1]);
    if (a.size() >= 2 && !b.empty() && DmonIsNamesLine(a) &&
        (b[0] == "Idx" || b[0] == "YYYYMMDD" || b[0] == "HH:MM:SS"))
      return true;
  }
  return false;
}

Status ReadSmiDmonText(std::string_view text, model::Trace& t) {
  t.info.format = "nvidia-smi-dmon";
  smi::SeriesBuilder series(t, "nvidia-smi dmon");
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  std::vector<std::string> cols;
  bool pmon = false, has_date = false, time_only = false;
  int64_t last_tod = kMissingI64, day_ns = 0;
  for (size_t li = 0; li < lines.size(); ++li) {
    std::vector<std::string_view> cells = smi::SplitWhitespace(lines[li]);
    if (cells.empty()) continue;
    if (cells[0][0] == '#') {
      std::vector<std::string_view> h = DmonHeaderCells(lines[li]);
      if (DmonIsNamesLine(h)) {
        if (!cols.empty()) t.stats.Bump(ImportStat::repeated_header);
        cols.assign(h.begin(), h.end());
        pmon = std::find(cols.begin(), cols.end(), "pid") != cols.end();
        has_date = has_date || std::find(cols.begin(), cols.end(), "Date") != cols.end();
        time_only = time_only || (std::find(cols.begin(), cols.end(), "Time") != cols.end() &&
                                  std::find(cols.begin(), cols.end(), "Date") == cols.end());
      }
      continue;  // the units line
    }
    if (cols.empty() || cells.size() < cols.size()) {
      bool tail = li + 1 == lines.size() && !last_complete;
      t.stats.Bump(tail ? ImportStat::truncated_tail : ImportStat::garbage_row);
      continue;
    }
    int32_t device = kMissingI32;
    int64_t ts = kMissingI64;
    std::string date;
    int32_t pid = kMissingI32;
    std::string command;
    for (size_t i = 0; i < cols.size(); ++i) {
      double v;
      if (cols[i] == "gpu" && smi::ParseNumber(cells[i], &v, nullptr)) device = smi::IndexOf(v);
      if (cols[i] == "Date") date = std::string(cells[i]);
      if (cols[i] == "Time" && date.size() == 8) {
        std::string iso = date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2) +
                          " " + std::string(cells[i]);
        if (!smi::ParseTimestamp(iso, &ts)) ts = kMissingI64;
      } else if (cols[i] == "Time" && date.empty()) {
        // -o T: time of day only. Days are counted where the clock goes back.
        std::string iso = "1970-01-02 " + std::string(cells[i]);
        int64_t tod = 0;
        if (smi::ParseTimestamp(iso, &tod)) {
          tod -= kNsPerS * 86400;
          // At most ~100 years of days: fuzzed logs that go back on every
          // row would otherwise overflow int64.
          if (IsValid(last_tod) && tod + day_ns < last_tod && day_ns < kNsPerS * 86400 * 36500)
            day_ns += kNsPerS * 86400;
          last_tod = tod + day_ns;
          ts = last_tod;
        }
      }
      if (cols[i] == "pid" && smi::ParseNumber(cells[i], &v, nullptr)) pid = smi::IndexOf(v);
      if (cols[i] == "command") command = std::string(cells[i]);
    }
    if (!IsValid(device)) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    if (pmon) {
      if (IsValid(pid)) {
        model::GpuProcessRow r;
        r.device_id = device;
        r.pid = pid;
        r.name = t.strings.Intern(command);
        r.first_seen_ns = ts;
        r.last_seen_ns = ts;
        t.gpu_processes.Append(r);
      }
      continue;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      MetricSpec spec = DmonSpec(cols[i]);
      if (!spec.known) continue;
      double v = kMissingF64;
      if (!smi::IsMissingText(cells[i])) {
        if (smi::ParseNumber(cells[i], &v, nullptr)) {
          v = smi::CheckedValue(t, v) * spec.scale;
        } else {
          t.stats.Bump(ImportStat::non_numeric_value);
          v = kMissingF64;
        }
      }
      series.Add(device, cols[i], spec, ts, v);
    }
  }
  series.Finish();
  if (t.counters.empty() && t.gpu_processes.empty())
    return InvalidInput("no nvidia-smi dmon/pmon rows found");
  for (const model::CounterSeries& s : t.counters) t.GetOrAddDevice(s.device_id);
  if (time_only && !has_date) {
    // Time of day cannot be put on the wall clock: the times are on a clock of their own.
    t.info.clock = "time_of_day";
    t.info.import_notes.push_back(
        "dmon -o T gives the time of day only: times count from midnight of the log's first day "
        "(a day added where the clock goes back), not wall-clock time");
  }
  t.Finalize();
  return Status::Ok();
}

}  // namespace gpuwhy::import
