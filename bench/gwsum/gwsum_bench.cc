// gwsum_bench [--ranks N] [--subset M] [--steps S] [--kernels K] [--dir DIR]
//
// Thousand-rank jobs through per-rank summaries (docs/gwsum.md):
//   1. writes N rank traces (default 1024) to DIR (default
//      /tmp/gpuwhy-bench/ranks<N>), one at a time (never all in memory): the
//      synthetic multi-rank trace of tools/synth_trace, varied per rank (seed,
//      kernel durations; the last rank a straggler);
//   2. summarizes each into DIR/sums/rankNNNNN.gwsum (cli::SummarizeInputs +
//      the .gwsum writer, what `gpuwhy summarize` runs), all in one forked
//      child, and prints the time per rank (mean, p50, max) and the
//      summary/trace size ratio;
//   3. merges all N summaries (cli::AnalyzeSummaries + the terminal report)
//      in a forked child: wall time and peak RSS (ru_maxrss);
//   4. baseline from the same run: `analyze` of the first M raw traces
//      (default 64; cli::ImportAndAnalyze + report) against the merge of
//      their M summaries, each in its own child.
// Existing traces in DIR are reused (delete DIR to regenerate).
// The process takes the CLI's batch memory settings (TuneMemoryForBatch), as
// each `gpuwhy summarize` task does: under glibc's defaults the loop of step 2
// maps, faults in and zeroes every parser buffer afresh, 43 ms/rank against
// 11 ms/rank (2026-12-05). Each measured step runs in its own child, so that
// no step's heap counts in the next one's peak RSS.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/memory_tuning.h"
#include "cli/analyze_command.h"
#include "report/gwsum/gwsum_format.h"
#include "synth_trace.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace gpuwhy;

double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

struct ChildResult {
  double wall_s = 0;
  long rss_kb = 0;
  bool ok = false;
};

// InChild: run `fn` in a forked child; its wall time and peak RSS.
template <typename Fn>
ChildResult InChild(Fn fn) {
  ChildResult r;
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) _exit(fn() ? 0 : 1);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  r.wall_s = Seconds(t0);
  r.rss_kb = ru.ru_maxrss;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

bool Report(const Result<analysis::Analysis>& a) {
  if (!a.ok()) {
    std::fprintf(stderr, "%s\n", a.status().message().c_str());
    return false;
  }
  std::ostringstream sink;
  cli::RenderAnalysis(*a, cli::AnalyzeOptions{}, sink);
  return !sink.str().empty();
}

}  // namespace

int main(int argc, char** argv) {
  TuneMemoryForBatch(argv);
  int ranks = 1024, subset = 64, steps = 10, kernels = 100;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--ranks") ranks = std::atoi(argv[i + 1]);
    else if (k == "--subset") subset = std::atoi(argv[i + 1]);
    else if (k == "--steps") steps = std::atoi(argv[i + 1]);
    else if (k == "--kernels") kernels = std::atoi(argv[i + 1]);
    else if (k == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 1;
    }
  }
  subset = std::min(subset, ranks);
  if (dir.empty()) dir = "/tmp/gpuwhy-bench/ranks" + std::to_string(ranks);
  const std::string sums_dir = dir + "/sums";
  fs::create_directories(sums_dir);

  // 1. Rank traces, one at a time.
  std::vector<std::string> traces;
  int64_t trace_bytes = 0;
  const auto tg = Clock::now();
  int generated = 0;
  for (int r = 0; r < ranks; ++r) {
    char name[64];
    std::snprintf(name, sizeof name, "/rank%05d.pt.trace.json.gz", r);
    const std::string path = dir + name;
    if (!fs::exists(path)) {
      synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kMultiRank);
      p.rank = r;
      p.world_size = ranks;
      p.seed = 1000 + static_cast<uint64_t>(r);
      p.steps = steps;
      p.kernels_per_step = kernels;
      p.kernel_min_ns = 40'000 + (r % 7) * 1'000;
      p.kernel_max_ns = 60'000 + (r % 13) * 1'000;
      if (r == ranks - 1) p.kernel_max_ns *= 2;  // a straggler
      p.dataloader_ns = 2'000'000;
      Status st = synth::WriteTrace(synth::Generate(p).json, path);
      if (!st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        return 2;
      }
      ++generated;
    }
    trace_bytes += static_cast<int64_t>(fs::file_size(path));
    traces.push_back(path);
  }
  std::printf("rank traces   %d in %s (%d generated in %.1f s), %.1f MB gzip total, %.1f KB/rank\n",
              ranks, dir.c_str(), generated, Seconds(tg), static_cast<double>(trace_bytes) / 1e6,
              static_cast<double>(trace_bytes) / 1e3 / ranks);

  // 2. Summarize each rank (what each array task runs), in a child whose
  // per-rank times come back through a shared mapping.
  std::vector<std::string> sums;
  for (int r = 0; r < ranks; ++r) {
    char name[64];
    std::snprintf(name, sizeof name, "/rank%05d.gwsum", r);
    sums.push_back(sums_dir + name);
  }
  const size_t times_bytes = sizeof(double) * static_cast<size_t>(ranks);
  void* shared = mmap(nullptr, times_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::perror("mmap");
    return 2;
  }
  double* times = static_cast<double*>(shared);
  const ChildResult summarize = InChild([&] {
    for (int r = 0; r < ranks; ++r) {
      const auto t0 = Clock::now();
      Result<analysis::RankSummary> s = cli::SummarizeInputs({traces[static_cast<size_t>(r)]}, {});
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.status().message().c_str());
        return false;
      }
      Status st = report::WriteRankSummaryFile(*s, sums[static_cast<size_t>(r)]);
      times[r] = Seconds(t0);
      if (!st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        return false;
      }
    }
    return true;
  });
  if (!summarize.ok) return 2;
  const std::vector<double> per_rank_s(times, times + ranks);
  munmap(shared, times_bytes);
  int64_t sum_bytes = 0;
  for (const std::string& s : sums) sum_bytes += static_cast<int64_t>(fs::file_size(s));
  std::vector<double> sorted = per_rank_s;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (double v : sorted) total += v;
  std::printf("summarize     %d ranks: %.1f ms/rank mean, p50 %.1f ms, max %.1f ms (%.1f s total, "
              "one process, peak RSS %.1f MB)\n",
              ranks, 1e3 * total / ranks, 1e3 * sorted[sorted.size() / 2], 1e3 * sorted.back(),
              total, static_cast<double>(summarize.rss_kb) / 1024.0);
  std::printf("summary size  %.1f KB/rank, %.3f%% of the gzip traces (%.1f MB for %d ranks)\n",
              static_cast<double>(sum_bytes) / 1e3 / ranks,
              100.0 * static_cast<double>(sum_bytes) / static_cast<double>(trace_bytes),
              static_cast<double>(sum_bytes) / 1e6, ranks);

  // 3. Merge all summaries.
  const ChildResult merge = InChild([&] { return Report(cli::AnalyzeSummaries(sums, {})); });
  std::printf("merge         %d summaries: %.2f s wall, peak RSS %.1f MB%s\n", ranks, merge.wall_s,
              static_cast<double>(merge.rss_kb) / 1024.0, merge.ok ? "" : " (FAILED)");

  // 4. Baseline: raw analysis of a subset against the merge of its summaries.
  const std::vector<std::string> raw_subset(traces.begin(), traces.begin() + subset);
  const std::vector<std::string> sum_subset(sums.begin(), sums.begin() + subset);
  const ChildResult raw = InChild([&] {
    std::vector<model::Trace> kept;
    return Report(cli::ImportAndAnalyze(raw_subset, {}, &kept));
  });
  const ChildResult small = InChild([&] { return Report(cli::AnalyzeSummaries(sum_subset, {})); });
  std::printf("baseline      %d raw traces analyzed together: %.2f s wall, peak RSS %.1f MB%s\n",
              subset, raw.wall_s, static_cast<double>(raw.rss_kb) / 1024.0,
              raw.ok ? "" : " (FAILED)");
  std::printf("              their %d summaries merged:        %.2f s wall, peak RSS %.1f MB%s\n",
              subset, small.wall_s, static_cast<double>(small.rss_kb) / 1024.0,
              small.ok ? "" : " (FAILED)");
  return merge.ok && raw.ok && small.ok ? 0 : 1;
}
