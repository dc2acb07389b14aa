// monitor_bench [--rows N] [--gpus G] [--repeat R] [--dir DIR]
//
// Writes one log per monitoring format with N sample rows per GPU for G GPUs
// (default 200000 x 8) under DIR (default /tmp/gpuwhy-monitor-bench), then
// times import::ImportFile on each in a forked child (peak RSS from wait4's
// ru_maxrss), R times (median wall shown). Baselines, same run:
//   read          the file read into memory and nothing else
//   nvidia-smi    the --query-gpu CSV reader on a log of the same samples
// Columns: format, file MB, rows, wall ms, MB/s, rows/s, peak RSS MB, and the
// wall against the nvidia-smi CSV baseline.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "import/registry.h"
#include "import/smi/smi_common.h"

namespace {

using Clock = std::chrono::steady_clock;

struct MonLog {
  const char* label;
  std::string path;
  long rows = 0;
};

constexpr long kT0 = 1767607200;  // 2026-01-05 10:00:00 UTC

std::string Iso(long s) {
  char b[32];
  std::time_t t = static_cast<std::time_t>(s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

// Deterministic "utilization" wobble, no RNG state to seed.
int Util(long i, int g) { return static_cast<int>((i * 37 + g * 11) % 101); }

MonLog WriteSmiCsv(const std::string& dir, long n, int gpus) {
  MonLog l{"nvidia-smi-csv", dir + "/smi.csv"};
  std::ofstream o(l.path);
  o << "timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], power.draw [W]\n";
  for (long i = 0; i < n; ++i)
    for (int g = 0; g < gpus; ++g, ++l.rows) {
      std::time_t t = kT0 + i;
      std::tm tm{};
      gmtime_r(&t, &tm);
      char b[32];
      std::strftime(b, sizeof b, "%Y/%m/%d %H:%M:%S", &tm);
      o << b << ".000, " << g << ", " << Util(i, g) << " %, " << Util(i, g) / 3 << " %, "
        << 1000 + g << " MiB, " << 100 + Util(i, g) << ".50 W\n";
    }
  return l;
}

MonLog WriteDcgmCsv(const std::string& dir, long n, int gpus) {
  MonLog l{"dcgm (short names)", dir + "/dcgm.csv"};
  std::ofstream o(l.path);
  o << "timestamp,entity,GRACT,SMACT,SMOCC,DRAMA,FBUSD,POWER\n";
  for (long i = 0; i < n; ++i)
    for (int g = 0; g < gpus; ++g, ++l.rows)
      o << Iso(kT0 + i) << ",GPU " << g << ',' << Util(i, g) / 100.0 << ',' << Util(i, g) / 200.0
        << ",0.25," << (i % 7 == 0 ? "N/A" : "0.3") << ',' << 1000 + g << ',' << 100 + Util(i, g)
        << ".5\n";
  return l;
}

MonLog WriteExporter(const std::string& dir, long n, int gpus) {
  MonLog l{"dcgm-exporter", dir + "/scrapes.txt"};
  std::ofstream o(l.path);
  for (long i = 0; i < n; ++i) {
    o << "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n";
    for (int g = 0; g < gpus; ++g, ++l.rows)
      o << "DCGM_FI_DEV_GPU_UTIL{gpu=\"" << g << "\",UUID=\"GPU-" << g
        << "\",device=\"nvidia" << g << "\",modelName=\"NVIDIA A100-SXM4-40GB\"} " << Util(i, g)
        << ' ' << (kT0 + i) * 1000 << '\n';
    o << "# HELP DCGM_FI_PROF_SM_ACTIVE Ratio of cycles an SM has at least 1 warp.\n";
    for (int g = 0; g < gpus; ++g)
      o << "DCGM_FI_PROF_SM_ACTIVE{gpu=\"" << g << "\",UUID=\"GPU-" << g
        << "\",device=\"nvidia" << g << "\",modelName=\"NVIDIA A100-SXM4-40GB\"} "
        << Util(i, g) / 200.0 << ' ' << (kT0 + i) * 1000 << '\n';
  }
  return l;
}

MonLog WriteDmon(const std::string& dir, long n, int gpus) {
  MonLog l{"nvidia-smi-dmon -o DT", dir + "/dmon.txt"};
  std::ofstream o(l.path);
  for (long i = 0; i < n; ++i) {
    if (i % 20 == 0)
      o << "#Date       Time        gpu    pwr  gtemp     sm    mem   mclk   pclk     fb   bar1\n"
           "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MHz    MHz     MB     MB\n";
    std::time_t t = kT0 + i;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, " %Y%m%d   %H:%M:%S", &tm);
    for (int g = 0; g < gpus; ++g, ++l.rows)
      o << b << "  " << g << "  " << 100 + Util(i, g) << "  40  " << Util(i, g) << "  "
        << Util(i, g) / 3 << "  1215  1410  " << 1000 + g << "  5\n";
  }
  return l;
}

MonLog WriteScript(const std::string& dir, long n, int gpus) {
  MonLog l{"monitor-csv (script)", dir + "/script.csv"};
  std::ofstream o(l.path);
  o << "timestamp,gpu_index,utilization_gpu_percent,mem_used_mb,power_W\n";
  for (long i = 0; i < n; ++i)
    for (int g = 0; g < gpus; ++g, ++l.rows)
      o << Iso(kT0 + i) << ',' << g << ',' << Util(i, g) << ',' << 1000 + g << ','
        << 100 + Util(i, g) << ".5\n";
  return l;
}

struct MonRun {
  double wall_ms = 0;
  double rss_mb = 0;
  bool ok = false;
};

// MonMeasure: one forked child per run; `read_only` times the file read alone.
MonRun MonMeasure(const std::string& path, bool read_only) {
  const auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (read_only) {
      auto r = gpuwhy::import::smi::ReadWholeFile(path);
      _exit(r.ok() && !r->empty() ? 0 : 1);
    }
    auto r = gpuwhy::import::ImportFile(path);
    if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().message().c_str());
    _exit(r.ok() && !r->counters.empty() ? 0 : 1);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  MonRun m;
  m.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  m.rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return m;
}

MonRun MonMedian(const std::string& path, bool read_only, int repeat) {
  std::vector<MonRun> v;
  for (int i = 0; i < repeat; ++i) v.push_back(MonMeasure(path, read_only));
  std::sort(v.begin(), v.end(), [](const MonRun& a, const MonRun& b) { return a.wall_ms < b.wall_ms; });
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long rows = 200000;
  int gpus = 8, repeat = 3;
  std::string dir = "/tmp/gpuwhy-monitor-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows")) rows = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--gpus")) gpus = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  std::filesystem::create_directories(dir);
  std::vector<MonLog> logs = {WriteSmiCsv(dir, rows, gpus), WriteDcgmCsv(dir, rows, gpus),
                              WriteExporter(dir, rows, gpus), WriteDmon(dir, rows, gpus),
                              WriteScript(dir, rows, gpus)};
  std::printf("%-24s %8s %10s %9s %8s %10s %8s %8s\n", "format", "MB", "rows", "wall ms", "MB/s",
              "rows/s", "RSS MB", "vs smi");
  double smi_ms = 0;
  for (const MonLog& l : logs) {
    const double mb = static_cast<double>(std::filesystem::file_size(l.path)) / 1e6;
    const MonRun rd = MonMedian(l.path, true, repeat);
    const MonRun im = MonMedian(l.path, false, repeat);
    if (smi_ms == 0) smi_ms = im.wall_ms;
    std::printf("%-24s %8.1f %10s %9.0f %8.1f %10s %8.1f %8s\n", (std::string(l.label) + " read").c_str(),
                mb, "", rd.wall_ms, mb / (rd.wall_ms / 1e3), "", rd.rss_mb, "");
    char rps[32];
    std::snprintf(rps, sizeof rps, "%.2fM", static_cast<double>(l.rows) / (im.wall_ms / 1e3) / 1e6);
    char vs[32];
    std::snprintf(vs, sizeof vs, "%.2fx", im.wall_ms / smi_ms);
    std::printf("%-24s %8.1f %10ld %9.0f %8.1f %10s %8.1f %8s%s\n", l.label, mb, l.rows, im.wall_ms,
                mb / (im.wall_ms / 1e3), rps, im.rss_mb, vs, im.ok ? "" : "  FAILED");
  }
  return 0;
}
