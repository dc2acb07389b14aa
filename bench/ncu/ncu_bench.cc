// ncu_bench [--repeat N] [--copies K] PAGE.csv...
//
// For each Nsight Compute CSV page (raw or details), its kernel rows are
// repeated K times (default 1; each copy gets new launch IDs) to make a
// large page in memory, then N rounds (default 3), each running in turn:
//  (1) baseline: a plain RFC 4180 scan of the same bytes (quotes, "" escapes,
//      separators, newlines), every cell delimited and counted, nothing kept:
//      the least any CSV reader must do;
//  (2) gpuwhy's ParseNcuCsvPages (units, names, numbers, model, Finalize)
//      into a fresh Trace.
// Prints per side the best round's wall time and MB/s, gpuwhy's kernel rows/s,
// and the peak RSS (VmHWM, reset before each side where the kernel allows):
// the page itself is resident for both. The machine may be shared: best-of-N.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/proc_status.h"
#include "import/ncu/ncu_csv_importer.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Grow: the page with its kernel rows repeated `copies` times; the leading
// "ID" cell of each copy's rows is shifted by the number of IDs per copy.
std::string Grow(const std::string& page, int copies) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  size_t first_kernel = 1;
  while (first_kernel < lines.size() && lines[first_kernel].rfind("\"\"", 0) == 0) ++first_kernel;
  for (size_t i = 0; i < first_kernel && i < lines.size(); ++i) out += lines[i] + "\n";
  long max_id = 0;
  for (size_t i = first_kernel; i < lines.size(); ++i)
    max_id = std::max(max_id, std::atol(lines[i].c_str() + 1));
  for (int c = 0; c < copies; ++c) {
    for (size_t i = first_kernel; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      const size_t end = l.find('"', 1);
      if (l.empty() || l[0] != '"' || end == std::string::npos) continue;
      out += "\"" + std::to_string(std::atol(l.c_str() + 1) + c * (max_id + 1)) + l.substr(end) + "\n";
    }
  }
  return out;
}

// ScanCells: the baseline.
size_t ScanCells(const std::string& s) {
  size_t cells = 0;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < s.size() && s[i + 1] == '"') ++i;
        else quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',' || c == '\n') {
      ++cells;
    }
  }
  return cells;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3, copies = 1;
  std::vector<std::string> paths;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--repeat") == 0 && a + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++a]));
    } else if (std::strcmp(argv[a], "--copies") == 0 && a + 1 < argc) {
      copies = std::max(1, std::atoi(argv[++a]));
    } else {
      paths.emplace_back(argv[a]);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: ncu_bench [--repeat N] [--copies K] PAGE.csv...\n");
    return 2;
  }
  for (const std::string& path : paths) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string page = Grow(ss.str(), copies);
    const double mb = static_cast<double>(page.size()) / 1e6;
    double base_s = 1e300, imp_s = 1e300;
    long base_rss = -1, imp_rss = -1;
    size_t cells = 0, kernels = 0;
    for (int round = 0; round < repeat; ++round) {
      if (round == 0) gpuwhy::bench::ResetPeakRss();
      double t0 = Now();
      cells = ScanCells(page);
      base_s = std::min(base_s, Now() - t0);
      if (round == 0) base_rss = gpuwhy::bench::StatusKiB("VmHWM:");
      if (round == 0) gpuwhy::bench::ResetPeakRss();
      t0 = Now();
      {
        gpuwhy::model::Trace trace;
        gpuwhy::Status st = gpuwhy::import::ParseNcuCsvPages({{page, path}}, trace);
        if (!st.ok()) {
          std::fprintf(stderr, "%s\n", st.message().c_str());
          return 2;
        }
        kernels = trace.kernels.size();
        imp_s = std::min(imp_s, Now() - t0);
      }
      if (round == 0) imp_rss = gpuwhy::bench::StatusKiB("VmHWM:");
    }
    std::printf("%s x%d: %.1f MB, %zu kernels, %zu cells\n", path.c_str(), copies, mb, kernels,
                cells);
    std::printf("  baseline CSV scan  %8.3f s  %8.1f MB/s  peak RSS %ld KiB\n", base_s,
                mb / base_s, base_rss);
    std::printf("  gpuwhy ncu-csv     %8.3f s  %8.1f MB/s  %10.0f kernels/s  peak RSS %ld KiB\n",
                imp_s, mb / imp_s, static_cast<double>(kernels) / imp_s, imp_rss);
  }
  return 0;
}
