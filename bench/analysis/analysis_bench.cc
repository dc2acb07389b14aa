// analysis_bench [--repeat N] TRACE...
//
// Where the analysis after the import spends its time and memory, section
// by section, and how each section scales from the first trace to the others
// (docs/performance.md). Each trace is imported once (as `gpuwhy analyze`
// does, under the CLI's batch memory settings); then each section runs N
// times (default 5) on the same model:
//   scan         the baseline: one read of every column the sections read
//                most (kernels, runtime calls, ranges): the memory floor;
//   summary      SummarizeDevices (the host sections' main part);
//   utilization  AnalyzeUtilization;
//   timeline     detectors::BuildTimeline;
//   detectors    detectors::DigestRank on a built timeline;
//   rank         analysis::SummarizeRank: all of the above as `analyze` runs
//                them (the host sections on a worker thread).
// For each: wall time (median and min), process CPU time, ns per trace event,
// the ratio to the scan of the same run, and the section's peak RSS above
// the RSS it started from (VmHWM after resetting it through
// /proc/self/clear_refs; "n/a" where the kernel refuses the reset). Then
// each section's time on each later trace against the first, beside the
// event ratio: a section that grows faster than the events is superlinear.
// No timed assertions: a program that prints figures.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/detectors/diagnosis.h"
#include "analysis/detectors/timeline.h"
#include "analysis/summary/device_summary.h"
#include "analysis/utilization/utilization.h"
#include "base/memory_tuning.h"
#include "common/proc_status.h"
#include "import/registry.h"

namespace {

using namespace gpuwhy;
using Clock = std::chrono::steady_clock;

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

using bench::ResetPeakRss;
using bench::StatusKiB;

struct Timing {
  std::vector<double> wall_s, cpu_s;
  long peak_over_kib = -1;  // the largest section peak above its starting RSS
  double Median() const {
    std::vector<double> v = wall_s;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  double Min() const { return wall_s.empty() ? 0 : *std::min_element(wall_s.begin(), wall_s.end()); }
  double CpuMedian() const {
    std::vector<double> v = cpu_s;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
};

Timing Measure(int repeat, const std::function<void()>& fn) {
  Timing t;
  for (int r = 0; r < repeat; ++r) {
    const bool reset = ResetPeakRss();
    const long rss0 = StatusKiB("VmRSS:");
    const double c0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    fn();
    t.wall_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    t.cpu_s.push_back(ProcessCpuSeconds() - c0);
    const long hwm = StatusKiB("VmHWM:");
    if (reset && hwm >= 0 && rss0 >= 0) t.peak_over_kib = std::max(t.peak_over_kib, hwm - rss0);
  }
  return t;
}

// Scan: sums every column the sections read most, so that nothing is
// optimized away.
int64_t Scan(const model::Trace& t) {
  int64_t sum = 0;
  const model::KernelTable& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i)
    sum += k.start_ns[i] ^ k.end_ns[i] ^ k.correlation_id[i] ^ k.device_id[i] ^ k.name[i];
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i)
    sum += a.start_ns[i] ^ a.end_ns[i] ^ a.correlation_id[i] ^ a.tid[i] ^ a.name[i];
  const model::RangeTable& r = t.ranges;
  for (size_t i = 0; i < r.size(); ++i) sum += r.start_ns[i] ^ r.end_ns[i] ^ r.tid[i] ^ r.name[i];
  return sum;
}

struct Row {
  std::string name;
  Timing timing;
};

}  // namespace

int main(int argc, char** argv) {
  TuneMemoryForBatch(argv);
  int repeat = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: analysis_bench [--repeat N] TRACE...\n");
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: analysis_bench [--repeat N] TRACE...\n");
    return 2;
  }
  std::vector<std::vector<Row>> all;
  std::vector<double> events_of;
  for (const std::string& path : files) {
    const auto t0 = Clock::now();
    Result<model::Trace> imported = import::ImportFile(path);
    if (!imported.ok()) {
      std::fprintf(stderr, "%s\n", imported.status().message().c_str());
      return 2;
    }
    const model::Trace trace = std::move(imported).value();
    const double events = static_cast<double>(trace.kernels.size() + trace.memcpys.size() +
                                              trace.memsets.size() + trace.api_calls.size() +
                                              trace.ranges.size() + trace.syncs.size());
    events_of.push_back(events);
    std::printf("%s\n  imported in %.3f s: %.0f model rows (kernels %zu, runtime calls %zu, ranges %zu), "
                "RSS %ld KiB\n",
                path.c_str(), std::chrono::duration<double>(Clock::now() - t0).count(), events,
                trace.kernels.size(), trace.api_calls.size(), trace.ranges.size(), StatusKiB("VmRSS:"));
    const analysis::AnalysisOptions options;
    int64_t sink = 0;
    std::vector<Row> rows;
    rows.push_back({"scan", Measure(repeat, [&] { sink += Scan(trace); })});
    rows.push_back({"summary", Measure(repeat, [&] {
                      sink += analysis::SummarizeDevices(trace, options.summary).extent_ns;
                    })});
    analysis::TraceAnalysis ta;
    rows.push_back({"utilization", Measure(repeat, [&] {
                      ta.utilization = analysis::AnalyzeUtilization(trace, options.utilization);
                    })});
    rows.push_back({"timeline", Measure(repeat, [&] {
                      sink += static_cast<int64_t>(analysis::detectors::BuildTimeline(trace).devices.size());
                    })});
    const analysis::detectors::Timeline tl = analysis::detectors::BuildTimeline(trace);
    const analysis::detectors::DigestOptions digest_options = analysis::DigestOptionsOf(ta);
    rows.push_back({"detectors", Measure(repeat, [&] {
                      sink += static_cast<int64_t>(
                          analysis::detectors::DigestRank(trace, tl, digest_options).findings.size());
                    })});
    rows.push_back({"rank", Measure(repeat, [&] {
                      sink += static_cast<int64_t>(
                          analysis::SummarizeRank(trace, options).digest.findings.size());
                    })});
    const double scan = rows.front().timing.Median();
    std::printf("  %-12s %10s %10s %10s %9s %8s %14s\n", "section", "median ms", "min ms", "cpu ms",
                "ns/row", "x scan", "peak over KiB");
    for (const Row& r : rows) {
      const Timing& t = r.timing;
      char peak[32];
      if (t.peak_over_kib >= 0)
        std::snprintf(peak, sizeof peak, "%ld", t.peak_over_kib);
      else
        std::snprintf(peak, sizeof peak, "n/a");
      std::printf("  %-12s %10.1f %10.1f %10.1f %9.2f %8.1f %14s\n", r.name.c_str(), t.Median() * 1e3,
                  t.Min() * 1e3, t.CpuMedian() * 1e3, t.Median() * 1e9 / events,
                  scan > 0 ? t.Median() / scan : 0.0, peak);
    }
    std::printf("  (checksum %lld)\n", static_cast<long long>(sink));
    all.push_back(std::move(rows));
  }
  for (size_t f = 1; f < all.size(); ++f) {
    std::printf("linearity: %s against %s, rows x%.2f\n", files[f].c_str(), files[0].c_str(),
                events_of[f] / events_of[0]);
    for (size_t i = 0; i < all[f].size(); ++i) {
      const Timing& a = all[0][i].timing;
      const Timing& b = all[f][i].timing;
      std::printf("  %-12s wall x%6.2f median, x%6.2f min; cpu x%6.2f\n", all[f][i].name.c_str(),
                  a.Median() > 0 ? b.Median() / a.Median() : 0.0, a.Min() > 0 ? b.Min() / a.Min() : 0.0,
                  a.CpuMedian() > 0 ? b.CpuMedian() / a.CpuMedian() : 0.0);
    }
  }
  return 0;
}
