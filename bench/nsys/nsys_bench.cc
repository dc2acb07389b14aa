// nsys_bench FILE.sqlite...
//
// For each export: (1) baseline: a plain prepared SELECT of the 17 kernel
// columns gpuwhy reads (start, end, ids, names, grid/block, registers, shared
// memory) stepped through the sqlite3 library, every column read once; (2) gpuwhy's ReadNsysSqlite (all
// tables + Finalize). Prints kernel rows/s of both, wall seconds, and the peak
// RSS (VmHWM) after each step. Run tools/make_big_nsys first for a large file.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nsys_bench FILE.sqlite...\n");
    return 2;
  }
  for (int a = 1; a < argc; ++a) {
    std::string path = argv[a];
    // Baseline: the same rows through sqlite3 with nothing kept. Run twice so
    // the second (reported) pass reads from the page cache like gpuwhy's does.
    double t0 = 0;
    long long rows = 0, sum = 0;
    for (int pass = 0; pass < 2; ++pass) {
      t0 = Now();
      rows = 0;
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
    double base_s = Now() - t0;
    long base_rss = PeakRssKb();
    t0 = Now();
    gpuwhy::model::Trace trace;
    gpuwhy::import::NsysScanStats scan;
    gpuwhy::Status s = gpuwhy::import::ReadNsysSqlite(path, trace, &scan);
    double imp_s = Now() - t0;
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 2;
    }
    std::printf("%s\n", path.c_str());
    std::printf("  baseline sqlite3 SELECT: %lld kernel rows in %.3f s = %.2f M rows/s (checksum %lld), peak RSS %ld KiB\n",
                rows, base_s, base_s > 0 ? static_cast<double>(rows) / base_s / 1e6 : 0.0,
                sum & 0xffff, base_rss);
    std::printf("  gpuwhy ReadNsysSqlite:   %zu kernel rows (+%zu api, %zu events in all) in %.3f s = %.2f M kernel rows/s, peak RSS %ld KiB\n",
                trace.kernels.size(), trace.api_calls.size(), trace.event_count(), imp_s,
                imp_s > 0 ? static_cast<double>(trace.kernels.size()) / imp_s / 1e6 : 0.0,
                PeakRssKb());
  }
  return 0;
}
