#include "synth_smi.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace gpuwhy::synth_smi {

namespace {

constexpr int64_t kMiB = 1024 * 1024;

struct Lcg {
  uint64_t s;
  int Next(int n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((s >> 33) % static_cast<uint64_t>(n));
  }
};

__attribute__((format(printf, 1, 2))) std::string Fmt(const char* f, ...) {
  char b[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  return b;
}

// Fit: `left` then `right` with spaces between, `width` characters in all.
std::string Fit(const std::string& left, const std::string& right, size_t width) {
  std::string l = left;
  if (l.size() + right.size() > width) l.resize(width > right.size() ? width - right.size() : 0);
  return l + std::string(width - l.size() - right.size(), ' ') + right;
}

std::string Ctime(int64_t epoch_s) {
  std::time_t t = static_cast<std::time_t>(epoch_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[64];
  std::strftime(b, sizeof b, "%a %b %e %H:%M:%S %Y", &tm);
  return b;
}

struct LayoutSpec {
  std::vector<size_t> w;  // GPU table cell widths
  const char* driver;
  const char* cuda;
  const char* disp;
  bool mig_line;
  bool gi_ci;
  size_t name_width;
};

LayoutSpec Spec(Layout l) {
  switch (l) {
    case Layout::kR418: return {{31, 22, 22}, "418.87.01", "10.1", "Disp.A", false, false, 18};
    case Layout::kR470: return {{31, 22, 22}, "470.82.01", "11.4", "Disp.A", true, true, 18};
    case Layout::kR535: return {{41, 22, 22}, "535.104.05", "12.2", "Disp.A", true, true, 26};
    case Layout::kR550: return {{41, 24, 22}, "550.54.15", "12.4", "Disp.A", true, true, 26};
    case Layout::kR580: return {{41, 24, 22}, "580.65.06", "13.0", "Disp.M", true, true, 26};
  }
  return {{31, 22, 22}, "470.82.01", "11.4", "Disp.A", true, true, 18};
}

std::string Row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const std::string& c : cells) s += c + "|";
  return s + "\n";
}

std::string Rule(const std::vector<size_t>& w, char fill, char edge, char join) {
  std::string s(1, edge);
  for (size_t i = 0; i < w.size(); ++i) s += std::string(w[i], fill) + (i + 1 < w.size() ? join : edge);
  return s + "\n";
}

size_t Total(const std::vector<size_t>& w) {
  size_t n = w.size() - 1;
  for (size_t x : w) n += x;
  return n;
}

struct GpuNow {
  int util = 0;  // -1: N/A (MIG)
  int proc_mib = 0;  // 0: no process
  int pid = 0;
  int64_t used_mib = 0;
  int64_t total_mib = 81559;
  int power_w = 70;
  int cap_w = 700;
  int temp = 30;
  int pstate = 0;
};

std::string BusId(size_t g) { return Fmt("00000000:%02X:00.0", static_cast<unsigned>(0x18 + 0x1a * g)); }

std::string TableReport(const SmiLogParams& p, const LayoutSpec& L, const std::vector<GpuNow>& now,
                        int64_t ts, bool corrupt_gpu0, bool corrupt_proc) {
  std::string s;
  const size_t total = Total(L.w);
  if (p.banner) s += Ctime(ts) + "       \n";
  s += "+" + std::string(total, '-') + "+\n";
  s += "|" + Fit(Fmt(" NVIDIA-SMI %s    Driver Version: %s    CUDA Version: %s", L.driver, L.driver, L.cuda),
                 "", total) + "|\n";
  {
    std::string r = Rule(L.w, '-', '|', '+');
    r[r.size() - 2] = '+';  // "|----+----+----+"
    s += r;
  }
  const bool wide = L.w[0] > 31;
  s += Row({Fit(" GPU  Name        ", "Persistence-M", L.w[0] - (wide ? 1 : 0)) + (wide ? " " : ""),
            Fit(" Bus-Id", std::string(L.disp) + " ", L.w[1]), " Volatile Uncorr. ECC "});
  s += Row({Fit(wide ? " Fan  Temp   Perf" : " Fan  Temp  Perf", "Pwr:Usage/Cap", L.w[0] - (wide ? 1 : 0)) +
                (wide ? " " : ""),
            Fit("", "Memory-Usage ", L.w[1]), " GPU-Util  Compute M. "});
  if (L.mig_line) s += Row({std::string(L.w[0], ' '), std::string(L.w[1], ' '), Fit("", "MIG M. ", L.w[2])});
  s += Rule(L.w, '=', '|', '+');
  for (size_t g = 0; g < now.size(); ++g) {
    const GpuNow& n = now[g];
    std::string name = p.names[g % p.names.size()];
    if (name.size() > L.name_width) name = name.substr(0, L.name_width - 3) + "...";
    const bool mig = g == 0 && p.mig_gpu0;
    s += Row({Fit(Fmt("%4zu  %s", g, name.c_str()), wide ? "On  " : " On   ", L.w[0]),
              Fit(" ", BusId(g) + " Off ", L.w[1]), Fit("", mig ? "On " : "0 ", L.w[2])});
    std::string mem = Fmt("%lldMiB / %lldMiB ", static_cast<long long>(n.used_mib),
                          static_cast<long long>(n.total_mib));
    if (corrupt_gpu0 && g == 0) mem = Fmt("%lldMiB  %lldMiB ", static_cast<long long>(n.used_mib),
                                          static_cast<long long>(n.total_mib));
    std::string util = n.util < 0 ? std::string("N/A") : Fmt("%d%%", n.util);
    s += Row({Fit(Fmt(" N/A   %dC    P%d", n.temp, n.pstate), Fmt("%dW / %dW ", n.power_w, n.cap_w), L.w[0]),
              Fit("", mem, L.w[1]), Fit(Fmt("%8s", util.c_str()), "Default ", L.w[2])});
    if (L.mig_line)
      s += Row({std::string(L.w[0], ' '), std::string(L.w[1], ' '),
                Fit("", mig ? "Enabled " : "Disabled ", L.w[2])});
    s += Rule(L.w, '-', '+', '+');
  }
  if (p.mig_gpu0) {
    const std::vector<size_t> mw = {18, 22, 11, 23};
    s += "\n+" + std::string(total, '-') + "+\n";
    s += "|" + Fit(" MIG devices:", "", total) + "|\n";
    s += Rule(mw, '-', '+', '+');
    s += Row({" GPU  GI  CI  MIG ", Fit("", "Memory-Usage ", 22), "        Vol", "         Shared        "});
    s += Row({"      ID  ID  Dev ", Fit("", "BAR1-Usage ", 22), " SM     Unc", " CE  ENC  DEC  OFA  JPG"});
    s += Row({std::string(18, ' '), std::string(22, ' '), "        ECC", std::string(23, ' ')});
    s += Rule(mw, '=', '|', '+');
    for (int k = 0; k < 2; ++k) {
      s += Row({Fit(Fmt("  0   %2d   0  %2d", k + 1, k), "", 18),
                Fit("", Fmt("%lldMiB / 40192MiB ", static_cast<long long>(k == 0 ? now[0].used_mib : 10)), 22),
                " 42      0 ", "  3   0    2    0    0 "});
      s += Row({std::string(18, ' '), Fit("", "0MiB / 65535MiB ", 22), std::string(11, ' '), std::string(23, ' ')});
      s += Rule(mw, '-', '+', '+');
    }
  }
  // Processes.
  s += std::string(total + 2, ' ') + "\n";
  s += "+" + std::string(total, '-') + "+\n";
  if (L.gi_ci) {
    s += "|" + Fit(" Processes:", "", total) + "|\n";
    s += "|" + Fit("  GPU   GI   CI        PID   Type   Process name", "GPU Memory ", total) + "|\n";
    s += "|" + Fit("        ID   ID", "Usage      ", total) + "|\n";
  } else {
    s += "|" + Fit(" Processes:", "GPU Memory ", total) + "|\n";
    s += "|" + Fit("  GPU       PID   Type   Process name", "Usage      ", total) + "|\n";
  }
  s += "|" + std::string(total, '=') + "|\n";
  bool any = false;
  for (size_t g = 0; g < now.size(); ++g) {
    const int mib = now[g].proc_mib;
    if (mib <= 0) continue;
    any = true;
    const bool mig = g == 0 && p.mig_gpu0;
    const int pid = now[g].pid;
    const char* type = corrupt_proc && g == 0 ? " " : "C";
    std::string left = L.gi_ci ? Fmt("  %3zu   %3s  %3s  %9d  %5s   python train.py --rank %zu", g,
                                     mig ? "  1" : "N/A", mig ? "  0" : "N/A", pid, type, g)
                               : Fmt("  %3zu  %9d  %5s   python train.py --rank %zu", g, pid, type, g);
    s += "|" + Fit(left, Fmt("%dMiB ", mib), total) + "|\n";
  }
  if (!any) s += "|" + Fit("  No running processes found", "", total) + "|\n";
  s += "+" + std::string(total, '-') + "+\n";
  return s;
}

std::string QueryTextReport(const SmiLogParams& p, const LayoutSpec& L, const std::vector<GpuNow>& now,
                            int64_t ts) {
  auto kv = [](int indent, const std::string& k, const std::string& v) {
    std::string key = std::string(static_cast<size_t>(indent), ' ') + k;
    return Fit(key, "", 42) + ": " + v + "\n";
  };
  std::string s = "\n==============NVSMI LOG==============\n\n";
  s += kv(0, "Timestamp", Ctime(ts));
  s += kv(0, "Driver Version", L.driver);
  s += kv(0, "CUDA Version", L.cuda);
  s += "\n" + kv(0, "Attached GPUs", std::to_string(now.size()));
  for (size_t g = 0; g < now.size(); ++g) {
    const GpuNow& n = now[g];
    s += "GPU " + BusId(g) + "\n";
    s += kv(4, "Product Name", p.names[g % p.names.size()]);
    s += kv(4, "Persistence Mode", "Enabled");
    s += kv(4, "Minor Number", std::to_string(g));
    s += kv(4, "Fan Speed", "N/A");
    s += kv(4, "Performance State", "P" + std::to_string(n.pstate));
    s += "    Clocks Event Reasons\n" + kv(8, "Idle", "Not Active") + kv(8, "SW Power Cap", "Not Active");
    s += "    FB Memory Usage\n" + kv(8, "Total", Fmt("%lld MiB", static_cast<long long>(n.total_mib))) +
         kv(8, "Reserved", "328 MiB") + kv(8, "Used", Fmt("%lld MiB", static_cast<long long>(n.used_mib))) +
         kv(8, "Free", Fmt("%lld MiB", static_cast<long long>(n.total_mib - n.used_mib - 328)));
    s += "    BAR1 Memory Usage\n" + kv(8, "Total", "131072 MiB") + kv(8, "Used", "1 MiB") +
         kv(8, "Free", "131071 MiB");
    s += kv(4, "Compute Mode", "Default");
    s += "    Utilization\n" + kv(8, "Gpu", Fmt("%d %%", n.util)) + kv(8, "Memory", Fmt("%d %%", n.util / 2)) +
         kv(8, "Encoder", "0 %") + kv(8, "Decoder", "0 %");
    s += "    Temperature\n" + kv(8, "GPU Current Temp", Fmt("%d C", n.temp)) + kv(8, "GPU Shutdown Temp", "92 C");
    s += "    GPU Power Readings\n" + kv(8, "Average Power Draw", Fmt("%d.00 W", n.power_w)) +
         kv(8, "Instantaneous Power Draw", Fmt("%d.50 W", n.power_w)) +
         kv(8, "Current Power Limit", Fmt("%d.00 W", n.cap_w)) + kv(8, "Max Power Limit", "700.00 W");
    s += "    Clocks\n" + kv(8, "Graphics", "1980 MHz") + kv(8, "SM", "1980 MHz") + kv(8, "Memory", "2619 MHz");
    s += "    Max Clocks\n" + kv(8, "Graphics", "1980 MHz") + kv(8, "SM", "1999 MHz") + kv(8, "Memory", "2619 MHz");
    const int mib = n.proc_mib;
    if (mib > 0) {
      s += "    Processes\n" + kv(8, "GPU instance ID", "N/A") +
           kv(8, "Compute instance ID", "N/A") + kv(8, "Process ID", std::to_string(n.pid)) +
           kv(12, "Type", "C") + kv(12, "Name", "python") +
           kv(12, "Used GPU Memory", Fmt("%d MiB", mib));
    } else {
      s += kv(4, "Processes", "None");
    }
    s += "\n";
  }
  return s;
}

std::string QueryXmlReport(const SmiLogParams& p, const LayoutSpec& L, const std::vector<GpuNow>& now,
                           int64_t ts) {
  std::string s = "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n";
  s += "<nvidia_smi_log>\n\t<timestamp>" + Ctime(ts) + "</timestamp>\n";
  s += Fmt("\t<driver_version>%s</driver_version>\n\t<cuda_version>%s</cuda_version>\n", L.driver, L.cuda);
  s += Fmt("\t<attached_gpus>%zu</attached_gpus>\n", now.size());
  for (size_t g = 0; g < now.size(); ++g) {
    const GpuNow& n = now[g];
    s += "\t<gpu id=\"" + BusId(g) + "\">\n";
    s += "\t\t<product_name>" + p.names[g % p.names.size()] + "</product_name>\n";
    s += Fmt("\t\t<minor_number>%zu</minor_number>\n\t\t<fan_speed>N/A</fan_speed>\n", g);
    s += Fmt("\t\t<performance_state>P%d</performance_state>\n", n.pstate);
    s += Fmt("\t\t<fb_memory_usage>\n\t\t\t<total>%lld MiB</total>\n\t\t\t<reserved>328 MiB</reserved>\n"
             "\t\t\t<used>%lld MiB</used>\n\t\t</fb_memory_usage>\n",
             static_cast<long long>(n.total_mib), static_cast<long long>(n.used_mib));
    s += "\t\t<bar1_memory_usage>\n\t\t\t<total>131072 MiB</total>\n\t\t\t<used>1 MiB</used>\n"
         "\t\t</bar1_memory_usage>\n";
    s += Fmt("\t\t<utilization>\n\t\t\t<gpu_util>%d %%</gpu_util>\n\t\t\t<memory_util>%d %%</memory_util>\n"
             "\t\t</utilization>\n", n.util, n.util / 2);
    s += Fmt("\t\t<temperature>\n\t\t\t<gpu_temp>%d C</gpu_temp>\n\t\t</temperature>\n", n.temp);
    s += Fmt("\t\t<gpu_power_readings>\n\t\t\t<average_power_draw>%d.00 W</average_power_draw>\n"
             "\t\t\t<current_power_limit>%d.00 W</current_power_limit>\n\t\t</gpu_power_readings>\n",
             n.power_w, n.cap_w);
    s += "\t\t<clocks>\n\t\t\t<graphics_clock>1980 MHz</graphics_clock>\n\t\t\t<sm_clock>1980 MHz</sm_clock>\n"
         "\t\t\t<mem_clock>2619 MHz</mem_clock>\n\t\t</clocks>\n";
    s += "\t\t<max_clocks>\n\t\t\t<sm_clock>1999 MHz</sm_clock>\n\t\t</max_clocks>\n";
    const int mib = n.proc_mib;
    s += "\t\t<processes>\n";
    if (mib > 0)
      s +=
          Fmt("\t\t\t<process_info>\n\t\t\t\t<gpu_instance_id>N/A</gpu_instance_id>\n"
              "\t\t\t\t<pid>%d</pid>\n\t\t\t\t<type>C</type>\n"
              "\t\t\t\t<process_name>python train.py &amp; eval</process_name>\n"
              "\t\t\t\t<used_memory>%d MiB</used_memory>\n\t\t\t</process_info>\n",
              n.pid, mib);
    s += "\t\t</processes>\n\t</gpu>\n";
  }
  return s + "</nvidia_smi_log>\n";
}

// CsvHeader / CsvReport: `nvidia-smi --query-gpu=timestamp,[index,]name,
// utilization.gpu,memory.used,memory.total,power.draw,power.limit --format=csv`.
std::string CsvHeader(const SmiLogParams& p) {
  return std::string("timestamp, ") + (p.csv_index ? "index, " : "") +
         "name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], "
         "power.limit [W]\n";
}

std::string CsvReport(const SmiLogParams& p, const std::vector<GpuNow>& now, int64_t ts_ms) {
  std::string s;
  for (size_t g = 0; g < now.size(); ++g) {
    const GpuNow& n = now[g];
    // Each GPU's row is stamped about 1 ms after the previous one's, as nvidia-smi does.
    const int64_t ms = ts_ms + static_cast<int64_t>(g);
    std::time_t t = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[64];
    std::strftime(b, sizeof b, "%Y/%m/%d %H:%M:%S", &tm);
    s += Fmt("%s.%03d, ", b, static_cast<int>(ms % 1000));
    if (p.csv_index) s += Fmt("%zu, ", g);
    s += Fmt("%s, %d %%, %lld MiB, %lld MiB, %d.00 W, %d.00 W\n",
             p.names[g % p.names.size()].c_str(), n.util, static_cast<long long>(n.used_mib),
             static_cast<long long>(n.total_mib), n.power_w, n.cap_w);
  }
  return s;
}

// StretchAt: GPU g's stretch for report r (null without a schedule); `first`
// / `last`: r is the stretch's first / last report.
const Stretch* StretchAt(const SmiLogParams& p, size_t g, int r, bool* first, bool* last) {
  if (g >= p.schedule.size() || p.schedule[g].empty()) return nullptr;
  int at = 0;
  for (const Stretch& s : p.schedule[g]) {
    if (r < at + s.reports) {
      *first = r == at;
      *last = r == at + s.reports - 1;
      return &s;
    }
    at += s.reports;
  }
  *first = *last = false;
  return &p.schedule[g].back();
}

}  // namespace

SmiLog Generate(const SmiLogParams& p) {
  SmiLog out;
  const LayoutSpec L = Spec(p.layout);
  const size_t gpus = p.util_pct.size();
  Lcg rng{p.seed * 7919 + 17};
  std::vector<double> sum(gpus, 0.0);
  std::vector<int> n(gpus, 0);
  out.truth.proc_peak_bytes.assign(gpus, 0);
  for (int r = 0; r < p.reports; ++r) {
    std::vector<GpuNow> now(gpus);
    for (size_t g = 0; g < gpus; ++g) {
      GpuNow& x = now[g];
      bool first = false, last_of = false;
      const Stretch* st = StretchAt(p, g, r, &first, &last_of);
      const int base = st != nullptr ? st->util_pct : p.util_pct[g % p.util_pct.size()];
      int u = base + (p.wobble > 0 ? rng.Next(2 * p.wobble + 1) - p.wobble : 0);
      if (p.dip_every > 0 && base >= 50 && r % p.dip_every == 0 && !first && !last_of)
        u = p.dip_util_pct;
      x.util = std::clamp(u, 0, 100);
      const int mib = st != nullptr ? st->proc_mib : p.proc_mib[g % p.proc_mib.size()];
      x.proc_mib = mib > 0 ? mib : 0;
      x.pid = st != nullptr && st->pid > 0 ? st->pid : 4242 + static_cast<int>(g);
      x.used_mib = (mib > 0 ? mib : 0) + 4;
      x.power_w = 70 + x.util * 6;
      const int pp = g < p.power_pct.size() ? p.power_pct[g] : -1;
      if (pp >= 0 && x.util > 0) x.power_w = x.cap_w * pp / 100;
      x.temp = 30 + x.util / 5;
      x.pstate = x.util > 0 ? 0 : 8;
      if (g == 0 && p.mig_gpu0 && p.format == Format::kTable) {
        x.util = -1;
        x.total_mib = 40192;
        x.used_mib = (mib > 0 ? mib : 0) + 10;
      }
    }
    const bool last = r + 1 == p.reports;
    const bool corrupt_gpu0 = p.corrupt && r == 3;
    const bool corrupt_proc = p.corrupt && r == 5;
    const int64_t ts = p.start_epoch_s + static_cast<int64_t>(r) * p.period_s;
    const int64_t ts_ms =
        p.start_epoch_s * 1000 +
        static_cast<int64_t>(r) * (p.period_ms > 0 ? p.period_ms : p.period_s * 1000);
    std::string rep;
    if (p.format == Format::kQueryCsv && r == 0) out.text += CsvHeader(p);
    switch (p.format) {
      case Format::kQueryCsv:
        rep = CsvReport(p, now, ts_ms);
        break;
      case Format::kTable: rep = TableReport(p, L, now, ts, corrupt_gpu0, corrupt_proc); break;
      case Format::kQueryText: rep = QueryTextReport(p, L, now, ts); break;
      case Format::kQueryXml: rep = QueryXmlReport(p, L, now, ts); break;
    }
    if (p.corrupt && r == 7) out.text += "nvidia-smi: Unable to determine the device handle (ERR!)\n";
    if (p.corrupt && last) {
      // Cut inside the last report's first GPU group: no newline at the end.
      size_t at = rep.find("|=");
      at = rep.find('\n', rep.find('\n', at) + 1);
      rep = rep.substr(0, at + 12);
      out.text += rep;
      break;
    }
    out.text += rep;
    ++out.truth.reports;
    for (size_t g = 0; g < gpus; ++g) {
      const int mib = now[g].proc_mib;
      if (mib > 0 && !(corrupt_proc && g == 0))
        out.truth.proc_peak_bytes[g] =
            std::max(out.truth.proc_peak_bytes[g], static_cast<int64_t>(mib) * kMiB);
      if (now[g].util < 0 || (corrupt_gpu0 && g == 0)) continue;
      sum[g] += now[g].util;
      ++n[g];
    }
  }
  if (p.corrupt) out.truth.malformed_rows = 2;
  // Run truths. Set-up: GPU 0's idle stretches (< 10%) just before its
  // longest busy one (>= 50%).
  const int64_t period_ms = p.period_ms > 0 ? p.period_ms : p.period_s * 1000;
  if (!p.schedule.empty() && !p.schedule[0].empty()) {
    const std::vector<Stretch>& sch = p.schedule[0];
    size_t longest = sch.size();
    for (size_t i = 0; i < sch.size(); ++i)
      if (sch[i].util_pct >= 50 && (longest == sch.size() || sch[i].reports > sch[longest].reports))
        longest = i;
    for (size_t i = longest; i < sch.size() && i > 0 && sch[i - 1].util_pct < 10; --i)
      out.truth.setup_s += sch[i - 1].reports * period_ms / 1000;
  }
  if (p.dip_every > 0) out.truth.dip_period_s = p.dip_every * period_ms / 1000;
  // Straggler: one GPU at normal power while every other one is busy at <= 40%.
  int normal = -1, low = 0;
  for (size_t g = 0; g < p.power_pct.size() && g < gpus; ++g) {
    if (p.power_pct[g] >= 0 && p.power_pct[g] <= 40 && p.util_pct[g % p.util_pct.size()] >= 90)
      ++low;
    else
      normal = normal == -1 ? static_cast<int>(g) : -2;
  }
  if (normal >= 0 && low + 1 == static_cast<int>(gpus)) out.truth.straggler_gpu = normal;
  for (size_t g = 0; g < gpus; ++g)
    out.truth.util_mean_ratio.push_back(n[g] > 0 ? sum[g] / n[g] / 100.0 : std::nan(""));
  return out;
}

std::vector<std::string> CaseNames() {
  return {"table_r418", "table_r470", "table_r470_mig", "table_r535", "table_r550", "table_r580",
          "table_nobanner", "table_corrupt", "two_gpu_idle", "imbalance", "q_text", "q_xml"};
}

std::vector<std::string> RunCaseNames() {
  return {"csv_straggler_8gpu", "setup_memory_held", "sequential_processes", "periodic_dips"};
}

bool CaseParams(std::string_view name, SmiLogParams* p) {
  *p = SmiLogParams();
  if (name == "csv_straggler_8gpu") {
    // 8 GPUs, no index column: rows come 8 per tick. GPU 5 straggles at 55%
    // (its host is slow); the other 7 read 99% at 22% of the power limit,
    // spinning in the all-reduce that waits for it.
    p->format = Format::kQueryCsv;
    p->csv_index = false;
    p->reports = 120;
    p->period_s = 1;
    p->wobble = 1;
    p->util_pct = {99, 99, 99, 99, 99, 55, 99, 99};
    p->power_pct = {22, 22, 22, 22, 22, 60, 22, 22};
    p->proc_mib = {40000};
    p->names = {"NVIDIA H100 80GB HBM3"};
  } else if (name == "setup_memory_held") {
    // 5 min of set-up (a process holds 30 GB at 0%: loading), then 25 min of
    // work at 95%, sampled every 10 s.
    p->layout = Layout::kR550;
    p->reports = 180;
    p->period_s = 10;
    p->wobble = 2;
    p->schedule = {{{30, 0, 30000, 5150}, {150, 95, 30000, 5150}}};
  } else if (name == "sequential_processes") {
    // Two python processes that follow each other on one GPU: a short
    // preprocessing job, 1 min idle with no process, then the training job.
    p->layout = Layout::kR535;
    p->reports = 120;
    p->period_s = 5;
    p->wobble = 2;
    p->schedule = {{{20, 80, 8000, 7001}, {12, 0, 0, 0}, {88, 96, 24000, 7002}}};
  } else if (name == "periodic_dips") {
    // Training at 97% with a 1-sample dip to 3% every 40 samples (evaluation
    // or a checkpoint every 40 s), sampled every second.
    p->layout = Layout::kR550;
    p->reports = 400;
    p->period_s = 1;
    p->wobble = 2;
    p->dip_every = 40;
    p->schedule = {{{400, 97, 20000, 6100}}};
  } else if (name == "table_r418") {
    p->layout = Layout::kR418;
    p->names = {"Tesla V100-SXM2-32GB"};
    p->util_pct = {60};
  } else if (name == "table_r470") {
    p->layout = Layout::kR470;
    p->names = {"NVIDIA A100-SXM4-80GB"};
  } else if (name == "table_r470_mig") {
    p->layout = Layout::kR470;
    p->mig_gpu0 = true;
    p->names = {"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"};
    p->util_pct = {50, 70};
    p->proc_mib = {9984, 20000};
  } else if (name == "table_r535") {
    p->layout = Layout::kR535;
    p->names = {"NVIDIA A100-SXM4-80GB"};
    p->util_pct = {40};
    p->wobble = 30;
  } else if (name == "table_r550") {
    p->layout = Layout::kR550;
  } else if (name == "table_r580") {
    p->layout = Layout::kR580;
    p->names = {"NVIDIA GeForce RTX 5090"};
    p->period_s = 1;
  } else if (name == "table_nobanner") {
    p->layout = Layout::kR550;
    p->banner = false;
    p->reports = 12;
  } else if (name == "table_corrupt") {
    p->layout = Layout::kR535;
    p->reports = 12;
    p->corrupt = true;
  } else if (name == "two_gpu_idle") {
    p->layout = Layout::kR550;
    p->util_pct = {92, 0};
    p->proc_mib = {60000, 0};
    p->wobble = 3;
    p->names = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
  } else if (name == "imbalance") {
    p->layout = Layout::kR535;
    p->util_pct = {93, 90, 35, 92};
    p->proc_mib = {70000, 70000, 20000, 70000};
    p->wobble = 3;
    p->names = {"NVIDIA A100-SXM4-80GB"};
  } else if (name == "q_text") {
    p->format = Format::kQueryText;
    p->reports = 10;
    p->period_s = 5;
    p->util_pct = {85, 0};
    p->proc_mib = {30000, 0};
    p->names = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
  } else if (name == "q_xml") {
    p->format = Format::kQueryXml;
    p->reports = 10;
    p->period_s = 5;
    p->util_pct = {85, 0};
    p->proc_mib = {30000, 0};
    p->names = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
  } else {
    return false;
  }
  return true;
}

}  // namespace gpuwhy::synth_smi
