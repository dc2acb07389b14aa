// nsys_bench [--repeat N] [--threads N] [--no-direct] FILE.sqlite...
//
// For each export, N rounds (default 3), each round running in turn:
//  (1) baseline: a plain prepared SELECT of the 17 kernel columns gpuwhy reads
//      (start, end, ids, names, grid/block, registers, shared memory) stepped
//      through the sqlite3 library with sqlite3_step + sqlite3_column_int64,
//      every column read once, nothing kept. It opens the file through the
//      same SqliteDb::OpenReadOnly as gpuwhy, so both get the same connection
//      settings (immutable=1 URI, sqlite's default page cache, no mmap);
//  (2) gpuwhy's ReadNsysSqlite (all tables + Finalize), into a fresh Trace.
// Prints, per side, the best round's wall time and kernel rows/s, the CPU
// seconds (user+sys, all threads) of that round and the part of it spent on
// the calling thread, and the peak RSS (VmHWM) after the first
// round of each side: the baseline runs first, so its VmHWM is the sqlite3
// floor and gpuwhy's is the model on top. The machine may be shared: best-of-N
// wall plus CPU seconds tell contention apart from cost.
// Run tools/make_big_nsys first for a large file.
#include <sqlite3.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "import/nsys/nsys_importer.h"
#include "import/nsys/sqlite_db.h"

namespace {

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// ThreadCpuSeconds: CPU time of the calling thread only (with 2 kernel
// readers, the importing thread's share is the critical path on idle cores).
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Best {
  double wall_s = 1e300;
  double cpu_s = 0;
  double thread_cpu_s = 0;
  void Take(double wall, double cpu, double thread_cpu = 0) {
    if (wall < wall_s) {
      wall_s = wall;
      cpu_s = cpu;
      thread_cpu_s = thread_cpu;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  gpuwhy::import::NsysReadOptions options;  // --threads N: kernel readers (0 = automatic)
  std::vector<std::string> paths;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--repeat") == 0 && a + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++a]));
    } else if (std::strcmp(argv[a], "--no-direct") == 0) {
      options.direct_reader = false;
    } else if (std::strcmp(argv[a], "--threads") == 0 && a + 1 < argc) {
      options.threads = std::atoi(argv[++a]);
    } else {
      paths.emplace_back(argv[a]);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr,
                 "usage: nsys_bench [--repeat N] [--threads N] [--no-direct] FILE.sqlite...\n");
    return 2;
  }
  for (const std::string& path : paths) {
    Best base, imp;
    long long rows = 0, sum = 0;
    long base_rss = -1, imp_rss = -1;
    size_t kernels = 0, apis = 0, events = 0;
    int readers = 1;
    std::string direct = "off";
    for (int round = 0; round < repeat; ++round) {
      double t0 = Now(), c0 = CpuSeconds();
      rows = 0;
      sum = 0;
      {
        auto db = gpuwhy::import::SqliteDb::OpenReadOnly(path);
        if (!db.ok()) {
          std::fprintf(stderr, "%s\n", db.status().message().c_str());
          return 2;
        }
        auto st = db->Prepare(
            "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName, "
            "shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, "
            "staticSharedMemory, dynamicSharedMemory FROM CUPTI_ACTIVITY_KIND_KERNEL");
        if (st.ok()) {
          while (st->Step() == SQLITE_ROW) {
            ++rows;
            for (int c = 0; c < 17; ++c) sum += sqlite3_column_int64(st->get(), c);
          }
        }
      }
      base.Take(Now() - t0, CpuSeconds() - c0);
      if (round == 0) base_rss = PeakRssKb();

      t0 = Now();
      c0 = CpuSeconds();
      double tc0 = ThreadCpuSeconds();
      {
        gpuwhy::model::Trace trace;
        gpuwhy::import::NsysScanStats scan;
        gpuwhy::Status s = gpuwhy::import::ReadNsysSqlite(path, trace, &scan, options);
        if (!s.ok()) {
          std::fprintf(stderr, "%s\n", s.message().c_str());
          return 2;
        }
        kernels = trace.kernels.size();
        readers = scan.kernel_readers;
        direct = scan.kernel_direct      ? (scan.runtime_direct ? "page reader (kernels + runtime)"
                                                                : "page reader (kernels)")
                 : options.direct_reader ? "fell back: " + scan.direct_fallback
                                         : "off";
        apis = trace.api_calls.size();
        events = trace.event_count();
        // Stop the clock before the Trace is freed: freeing is not importing.
        imp.Take(Now() - t0, CpuSeconds() - c0, ThreadCpuSeconds() - tc0);
        if (round == 0) imp_rss = PeakRssKb();
      }
    }
    auto rate = [](double n, double s) { return s > 0 ? n / s / 1e6 : 0.0; };
    std::printf("%s (best of %d rounds, gpuwhy kernel readers: %s)\n", path.c_str(), repeat,
                options.threads > 0 ? std::to_string(options.threads).c_str() : "auto");
    std::printf("  baseline sqlite3 SELECT: %lld kernel rows in %.3f s = %.2f M rows/s "
                "(cpu %.3f s, checksum %lld), peak RSS %ld KiB\n",
                rows, base.wall_s, rate(static_cast<double>(rows), base.wall_s), base.cpu_s,
                sum & 0xffff, base_rss);
    std::printf(
        "  gpuwhy ReadNsysSqlite:   %zu kernel rows (+%zu api, %zu events in all) in "
        "%.3f s = %.2f M kernel rows/s (cpu %.3f s, of it %.3f s on the calling thread; "
        "%d kernel reader%s; direct: %s), peak RSS %ld KiB\n",
        kernels, apis, events, imp.wall_s, rate(static_cast<double>(kernels), imp.wall_s),
        imp.cpu_s, imp.thread_cpu_s, readers, readers == 1 ? "" : "s", direct.c_str(), imp_rss);
  }
  return 0;
}
