// import_bench [--variants] [--cli-only] [--repeat N] [--threads 1,2,..] [--gpuwhy PATH]
//              [--memory warm|cold|asis] FILE...
// import_bench --same-model FILE...   (one thread lexing everything against two: bit-identical?)
// import_bench --paired BIN_A BIN_B [--repeat N] [--memory ...] FILE...
//                                      (two builds side by side: see Paired below)
//                                                    (N defaults to 3; median shown)
//
// For each file, each measurement runs in its own forked child so peak RSS is
// per measurement (ru_maxrss from wait4). Prints one line per measurement:
//   gzip -dc   the real gzip binary into /dev/null (the baseline)
//   inflate    InputStream only (ISA-L / zlib), no parsing
//   parse      ReadKinetoStream on one thread and in segments on two
//              (KinetoOptions::threads), with the read-ahead inflate thread;
//              --threads LIST times each listed count instead, and the CLI
//              with `--threads N` at each too
//   import     import::ImportFile (the production path)
//   +pass      import plus one pass over every event column
//   +analyze   import plus analysis::AnalyzeTrace
//   +thrpt     import plus the per-op throughput model alone (AnalyzeThroughput,
//              which AnalyzeTrace also runs): its share of the analysis
//   igzip -dc  ISA-L's igzip binary into /dev/null (the baseline), when installed
//   cli        with --gpuwhy PATH: the real `gpuwhy analyze --json FILE` as users run
//              it, with its memory settings (base/memory_tuning.h) and with glibc's
//              defaults (GPUWHY_MEMORY_TUNING=0), each against igzip -dc
// Wall is the median of --repeat runs; cpu is the median user+sys CPU (a
// fairer comparison when the machine is shared). With --variants it also times the Kineto parser
// with each gzip backend and with/without the read-ahead thread. --cli-only keeps the baselines and
// the CLI lines (for multi-GB copies). With --gpuwhy and several files it ends with a linearity
// table: each file's events, CLI wall and peak RSS against the first file's, from this run. Last,
// with --gpuwhy and igzip installed, an interleaved table: every repeat runs igzip -dc and the CLI
// on each file in turn, and the ratios to igzip and to the first file are taken within a repeat, so
// that the machine's speed drifting between files cancels out (the figures to quote for the
// targets).
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "base/input_stream.h"
#include "import/kineto/kineto_importer.h"
#include "import/registry.h"
#include "model/trace_compare.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Measure {
  double wall_s = 0;
  double min_wall_s = 0;
  double events = 0;   // model rows (or 0)
  double bytes = 0;    // decompressed bytes
  double model_mb = 0;
  long rss_kb = 0;
  double cpu_s = 0;  // user+sys CPU of the child and its threads
  double after_s = 0;  // wall time of the part after the import (+pass/+analyze/+thrpt)
  double gzip_cpu_s = 0;  // CPU of the exec'ed process (gzip, igzip, gpuwhy)
  long exec_rss_kb = 0;   // its peak RSS
  bool ok = false;
  char note[160] = {};
};

// RunChild: fork, run `fn` in the child (which fills a Measure sent back
// through a pipe), and take the child's peak RSS from wait4.
int g_repeat = 3;
// g_threads: the parser thread counts timed (--threads 1,2,4); the CLI is
// also run at each when the list was given.
std::vector<int> g_threads = {1, 2};
bool g_threads_given = false;

template <typename Fn>
Measure RunChildOnce(Fn fn);

// RunChild: the measurement repeated g_repeat times (each in a fresh child);
// returns the run with the median wall time, its min in min_wall_s. The VM
// this runs on is noisy (+-20% between single runs), hence the repeats.
Measure MedianOf(std::vector<Measure> runs);

template <typename Fn>
Measure RunChild(Fn fn) {
  std::vector<Measure> runs;
  for (int i = 0; i < g_repeat; ++i) runs.push_back(RunChildOnce(fn));
  return MedianOf(std::move(runs));
}

// MedianOf: the run with the median wall time, its min in min_wall_s, the
// largest peak RSS and the median CPU (runs: not empty).
Measure MedianOf(std::vector<Measure> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Measure& a, const Measure& b) { return a.wall_s < b.wall_s; });
  Measure m = runs[runs.size() / 2];
  m.min_wall_s = runs.front().wall_s;
  for (const Measure& r : runs) m.rss_kb = std::max(m.rss_kb, r.rss_kb);
  for (const Measure& r : runs) m.exec_rss_kb = std::max(m.exec_rss_kb, r.exec_rss_kb);
  std::vector<double> cpu;
  for (const Measure& r : runs) cpu.push_back(r.gzip_cpu_s > 0 ? r.gzip_cpu_s : r.cpu_s);
  std::sort(cpu.begin(), cpu.end());
  if (m.gzip_cpu_s > 0) m.gzip_cpu_s = cpu[cpu.size() / 2]; else m.cpu_s = cpu[cpu.size() / 2];
  return m;
}

template <typename Fn>
Measure RunChildOnce(Fn fn) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(stdout);  // or the child's exit/freopen would print it twice
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Measure m = fn();
    ssize_t w = write(fds[1], &m, sizeof(m));
    (void)w;
    _exit(0);
  }
  close(fds[1]);
  Measure m;
  ssize_t r = read(fds[0], &m, sizeof(m));
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (r != static_cast<ssize_t>(sizeof(m))) {
    m = Measure();
    std::snprintf(m.note, sizeof(m.note), "child failed (status %d)", status);
  }
  m.rss_kb = ru.ru_maxrss;
  m.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return m;
}

double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

// ExecMeasure: run argv (stdout to /dev/null, `env_kv` added to the
// environment when not null) as a grandchild; wall time, and CPU and peak RSS
// of that process itself (from its wait4), not of the forked measurer.
template <typename Runner>
Measure ExecWith(Runner run, const std::vector<std::string>& argv, const char* env_kv) {
  return run([&] {
    Measure m;
    auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      FILE* devnull = std::freopen("/dev/null", "w", stdout);
      (void)devnull;
      if (env_kv != nullptr) putenv(const_cast<char*>(env_kv));
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    m.wall_s = Seconds(t0);
    m.gzip_cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    m.exec_rss_kb = ru.ru_maxrss;
    m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!m.ok) std::snprintf(m.note, sizeof(m.note), "%s exited with status %d", argv[0].c_str(), status);
    return m;
  });
}

Measure ExecMeasure(const std::vector<std::string>& argv, const char* env_kv) {
  return ExecWith([](auto fn) { return RunChild(fn); }, argv, env_kv);
}

// ExecOnce: ExecMeasure's one run.
Measure ExecOnce(const std::vector<std::string>& argv) {
  return ExecWith([](auto fn) { return RunChildOnce(fn); }, argv, nullptr);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// MemoryState: what the machine's free memory is like when a timed run
// starts (--memory). On a VM whose host takes free guest memory back (free
// page reporting, as this project's Firecracker machines do: kernel command
// line page_reporting.page_reporting_order=11, about 2 s after it is freed),
// a run that needs memory nobody touched lately pays the host's faults on
// top of the kernel's: 10x 0.47 s instead of 0.26-0.32 s, 100x 4.2-4.8 s
// instead of 3.2-3.3 s (after 6 s idle against back to back, 2026-12-05).
enum class MemoryState {
  kWarm,  // default: memory as large as the run's peak is touched just before
          // (what a machine without such a host, bare metal, always has)
  kCold,  // sleep 3 s before each run: every run starts with host-cold memory
  kAsIs,  // no preparation
};
MemoryState g_memory = MemoryState::kWarm;

// PrepareMemory: bring the machine's free memory into g_memory's state for a
// run that peaks at about `rss_kb` (touched in a child that exits at once).
void PrepareMemory(long rss_kb) {
  if (g_memory == MemoryState::kCold) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
  } else if (g_memory == MemoryState::kWarm && rss_kb > 0) {
    // In huge pages, as gpuwhy's heap is: memory touched in 4 KiB pages and
    // freed left the next run as slow as a cold one (100x: 5.75 s after a
    // 4 KiB pre-touch, 3.51 s after a huge-page one, 3.51 s back to back).
    RunChildOnce([rss_kb] {
      Measure m;
      const size_t bytes = static_cast<size_t>(rss_kb) * 1024 / 10 * 11;
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return m;
      madvise(p, bytes, MADV_HUGEPAGE);
      std::memset(p, 1, bytes);
      m.ok = true;
      munmap(p, bytes);
      return m;
    });
  }
}

// MemoryStateText: g_memory as the tables' headers state it.
const char* MemoryStateText() {
  switch (g_memory) {
    case MemoryState::kWarm:
      return "warm (peak-sized memory touched before each run)";
    case MemoryState::kCold:
      return "cold (3 s idle before each run)";
    case MemoryState::kAsIs:
      break;
  }
  return "as is";
}

// Interleaved: each repeat runs igzip -dc and then gpuwhy analyze --json on
// every file in turn, and the ratios are taken within a repeat (their
// medians printed). Why: the machine's speed drifts by 20-30% over minutes
// (other tenants), and timing all of one file before the next turned a
// steady 10.5x into 14x for the 100x copy when a slow spell began between
// them. Each timed run starts in the same memory state (PrepareMemory).
void Interleaved(const std::vector<std::string>& files, const std::vector<double>& events,
                 const std::string& gpuwhy_bin) {
  const size_t n = files.size();
  std::vector<std::vector<Measure>> igz(n), cli(n);
  std::vector<long> peak(n, 0);
  for (size_t i = 0; i < n; ++i)  // untimed: each file's peak, for PrepareMemory
    peak[i] = ExecOnce({gpuwhy_bin, "analyze", "--json", files[i]}).exec_rss_kb;
  for (int rep = 0; rep < g_repeat; ++rep)
    for (size_t i = 0; i < n; ++i) {
      PrepareMemory(4096);
      igz[i].push_back(ExecOnce({"igzip", "-dc", files[i]}));
      PrepareMemory(peak[i]);
      cli[i].push_back(ExecOnce({gpuwhy_bin, "analyze", "--json", files[i]}));
    }
  const char* state = MemoryStateText();
  std::printf("interleaved: %d repeats, each running igzip -dc then gpuwhy analyze --json on every "
              "file in turn, memory %s; ratios within a repeat, medians shown:\n",
              g_repeat, state);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> to_igzip, to_first;
    bool ok = true;
    for (int rep = 0; rep < g_repeat; ++rep) {
      const Measure& c = cli[i][static_cast<size_t>(rep)];
      const Measure& g = igz[i][static_cast<size_t>(rep)];
      const Measure& c0 = cli[0][static_cast<size_t>(rep)];
      ok = ok && c.ok && g.ok && c0.ok;
      if (g.wall_s > 0) to_igzip.push_back(c.wall_s / g.wall_s);
      if (c0.wall_s > 0) to_first.push_back(c.wall_s / c0.wall_s);
    }
    if (!ok) {
      std::printf("  %-40s FAILED\n", files[i].c_str());
      continue;
    }
    const Measure c = MedianOf(cli[i]), g = MedianOf(igz[i]);
    // The within-repeat range beside each median: how far one repeat strays
    // on this machine, which a single table's median hides.
    auto range = [](const std::vector<double>& v) {
      if (v.empty()) return std::make_pair(std::nan(""), std::nan(""));
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      return std::make_pair(*lo, *hi);
    };
    const auto [ig_lo, ig_hi] = range(to_igzip);
    std::printf(
        "  %-40s gpuwhy %.3f s, igzip -dc %.3f s: x%.2f igzip (x%.2f-x%.2f; target <= 3 at 10x)",
        files[i].c_str(), c.wall_s, g.wall_s, Median(to_igzip), ig_lo, ig_hi);
    if (i > 0) {
      const auto [f_lo, f_hi] = range(to_first);
      std::printf(", events x%.2f wall x%.2f of the first (x%.2f-x%.2f; target <= 11 at 100x)",
                  events[i] / events[0], Median(to_first), f_lo, f_hi);
    }
    std::printf(", peak RSS %.1f MB (%ld KiB)\n", static_cast<double>(c.exec_rss_kb) / 1024.0,
                c.exec_rss_kb);
  }
}

// Paired: `gpuwhy analyze --json` of two builds on the same files, in
// g_repeat rounds. A round runs both builds on each file back to back, the
// builds' order alternating from round to round, each run starting in the same
// memory state (PrepareMemory). Prints each build's median wall and peak RSS
// per file; per file, the median within-round difference B - A and the rounds
// in which B was faster; with several files, each build's median
// within-round ratio to the first file. Why: on this project's VM the same
// binary moves by more than a 10% change from minute to minute, so separate
// bench runs hid a 0.16-0.62 s gain that runs side by side showed in every
// round (docs/performance.md, tenth pass). Returns 0, or 1 when a run failed.
int Paired(const std::vector<std::string>& files, const std::string (&bins)[2]) {
  const size_t n = files.size();
  // run: build b on file i, or nullopt (reported) when it failed.
  auto run = [&](int b, size_t i) -> std::optional<Measure> {
    Measure m = ExecOnce({bins[b], "analyze", "--json", files[i]});
    if (m.ok) return m;
    std::printf("paired: %s analyze --json %s FAILED\n", bins[b].c_str(), files[i].c_str());
    return std::nullopt;
  };
  std::vector<long> file_peak(n, 0);
  for (size_t i = 0; i < n; ++i)  // untimed: each file's peak, for PrepareMemory
    for (int b = 0; b < 2; ++b) {
      const std::optional<Measure> m = run(b, i);
      if (!m) return 1;
      file_peak[i] = std::max(file_peak[i], m->exec_rss_kb);
    }
  // runs[b][i]: build b's runs on file i, one per round.
  std::vector<std::vector<Measure>> runs[2] = {std::vector<std::vector<Measure>>(n),
                                               std::vector<std::vector<Measure>>(n)};
  for (int rep = 0; rep < g_repeat; ++rep)
    for (size_t i = 0; i < n; ++i)
      for (int k = 0; k < 2; ++k) {
        const int b = rep % 2 == 0 ? k : 1 - k;
        PrepareMemory(file_peak[i]);
        const std::optional<Measure> m = run(b, i);
        if (!m) return 1;
        runs[b][i].push_back(*m);
      }
  std::printf(
      "paired: %d rounds, each running both builds on every file back to back (order "
      "alternating by round), memory %s\n  A = %s\n  B = %s\n",
      g_repeat, MemoryStateText(), bins[0].c_str(), bins[1].c_str());
  auto walls = [&](int b, size_t i) {
    std::vector<double> v;
    for (const Measure& m : runs[b][i]) v.push_back(m.wall_s);
    return v;
  };
  for (size_t i = 0; i < n; ++i) {
    std::printf("  %s\n", files[i].c_str());
    for (int b = 0; b < 2; ++b) {
      const std::vector<double> v = walls(b, i);
      const auto [lo, hi] = std::minmax_element(
          runs[b][i].begin(), runs[b][i].end(),
          [](const Measure& x, const Measure& y) { return x.exec_rss_kb < y.exec_rss_kb; });
      std::printf("    %c: wall median %.3f s (%.3f-%.3f s), peak RSS %ld-%ld KiB\n", "AB"[b],
                  Median(v), *std::min_element(v.begin(), v.end()),
                  *std::max_element(v.begin(), v.end()), lo -> exec_rss_kb, hi -> exec_rss_kb);
    }
    const std::vector<double> a = walls(0, i), bv = walls(1, i);
    std::vector<double> diff;
    int b_faster = 0;
    for (size_t r = 0; r < a.size(); ++r) {
      diff.push_back(bv[r] - a[r]);
      b_faster += bv[r] < a[r];
    }
    std::printf("    B - A within a round: median %+.3f s; B faster in %d of %d rounds\n",
                Median(diff), b_faster, g_repeat);
  }
  for (size_t i = 1; i < n; ++i) {
    std::printf("  %s / %s within a round, median:", files[i].c_str(), files[0].c_str());
    for (int b = 0; b < 2; ++b) {
      const std::vector<double> first = walls(b, 0), v = walls(b, i);
      std::vector<double> ratio;
      for (size_t r = 0; r < v.size(); ++r)
        if (first[r] > 0) ratio.push_back(v[r] / first[r]);
      std::printf(" %c x%.2f", "AB"[b], Median(ratio));
    }
    std::printf("\n");
  }
  return 0;
}

Measure GzipBaseline(const std::string& path) { return ExecMeasure({"gzip", "-dc", path}, nullptr); }

bool OnPath(const char* tool) {
  std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// AllStoredBytes: the bytes `t`'s event tables would take with every column
// stored, lazy ones included (the tables before lazy columns).
size_t AllStoredBytes(const gpuwhy::model::Trace& t) {
  using namespace gpuwhy;  // the column lists name types unqualified
  using namespace gpuwhy::model;
#define GPUWHY_BENCH_WIDTH(type, name, def) +sizeof(ColumnTraits<type>::Value)
  return t.kernels.size() * (0 GPUWHY_KERNEL_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.memcpys.size() * (0 GPUWHY_MEMCPY_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.memsets.size() * (0 GPUWHY_MEMSET_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.api_calls.size() * (0 GPUWHY_API_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.syncs.size() * (0 GPUWHY_SYNC_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.ranges.size() * (0 GPUWHY_RANGE_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.markers.size() * (0 GPUWHY_MARKER_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.collectives.size() * (0 GPUWHY_COLLECTIVE_COLUMNS(GPUWHY_BENCH_WIDTH)) +
         t.gpu_processes.size() * (0 GPUWHY_GPU_PROCESS_COLUMNS(GPUWHY_BENCH_WIDTH));
#undef GPUWHY_BENCH_WIDTH
}

// PrintModelBytes: bytes per event of the model, whole and per table (the
// columns' capacity, as Trace::memory_bytes counts it).
void PrintModelBytes(const std::string& path) {
  RunChildOnce([&] {
    Measure m;
    gpuwhy::Result<gpuwhy::model::Trace> r = gpuwhy::import::ImportFile(path);
    if (!r.ok()) return m;
    const gpuwhy::model::Trace& t = *r;
    const double events = static_cast<double>(t.event_count());
    std::printf("  model bytes per row %.1f (%.0f rows, %.1f MB):",
                static_cast<double>(t.memory_bytes()) / events, events, t.memory_bytes() / 1e6);
    auto one = [&](const char* name, size_t rows, size_t bytes) {
      if (rows == 0) return;
      std::printf(" %s %zu x %.0f B,", name, rows, static_cast<double>(bytes) / static_cast<double>(rows));
    };
    one("kernels", t.kernels.size(), t.kernels.memory_bytes());
    one("api", t.api_calls.size(), t.api_calls.memory_bytes());
    one("ranges", t.ranges.size(), t.ranges.memory_bytes());
    one("memcpy", t.memcpys.size(), t.memcpys.memory_bytes());
    one("memset", t.memsets.size(), t.memsets.memory_bytes());
    one("sync", t.syncs.size(), t.syncs.memory_bytes());
    one("markers", t.markers.size(), t.markers.memory_bytes());
    size_t tables = 0;
    t.ForEachEventTable([&tables](const auto& table) { tables += table.memory_bytes(); });
    std::printf(" strings %.1f MB; every column stored: %.1f MB\n", t.strings.memory_bytes() / 1e6,
                static_cast<double>(t.memory_bytes() - tables + AllStoredBytes(t)) / 1e6);
    std::fflush(stdout);
    m.ok = true;
    return m;
  });
}

Measure Inflate(const std::string& path, gpuwhy::InputStreamOptions o) {
  return RunChild([&] {
    Measure m;
    auto t0 = Clock::now();
    auto s = gpuwhy::OpenInputStream(path, o);
    if (!s.ok()) return m;
    std::vector<char> buf(1 << 20);
    for (;;) {
      auto got = (*s)->Read(buf.data(), buf.size());
      if (!got.ok() || *got == 0) break;
      m.bytes += static_cast<double>(*got);
    }
    m.wall_s = Seconds(t0);
    m.ok = true;
    return m;
  });
}

// Pass: touch every event column once (what any analysis must at least do).
int64_t Pass(const gpuwhy::model::Trace& t) {
  int64_t acc = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    acc += t.kernels.end_ns[i] - t.kernels.start_ns[i] + t.kernels.device_id[i];
  for (size_t i = 0; i < t.api_calls.size(); ++i)
    acc += t.api_calls.end_ns[i] - t.api_calls.start_ns[i] + t.api_calls.correlation_id[i];
  for (size_t i = 0; i < t.ranges.size(); ++i)
    acc += t.ranges.end_ns[i] - t.ranges.start_ns[i] + t.ranges.name[i];
  for (size_t i = 0; i < t.memcpys.size(); ++i) acc += t.memcpys.end_ns[i] - t.memcpys.start_ns[i];
  for (size_t i = 0; i < t.memsets.size(); ++i) acc += t.memsets.end_ns[i] - t.memsets.start_ns[i];
  return acc;
}

enum class After { kNothing, kPass, kAnalyze, kThroughput };

Measure Import(const std::string& path, After after) {
  return RunChild([&] {
    Measure m;
    auto t0 = Clock::now();
    gpuwhy::Result<gpuwhy::model::Trace> r = gpuwhy::import::ImportFile(path);
    if (!r.ok()) {
      std::snprintf(m.note, sizeof(m.note), "%s", r.status().message().c_str());
      return m;
    }
    int64_t acc = 0;
    auto t1 = Clock::now();
    if (after == After::kPass) acc = Pass(*r);
    if (after == After::kAnalyze) {
      gpuwhy::analysis::TraceAnalysis a = gpuwhy::analysis::AnalyzeTrace(*r, {});
      acc = static_cast<int64_t>(a.summary.devices.size());
    }
    if (after == After::kThroughput) {
      gpuwhy::analysis::ThroughputResult tr =
          gpuwhy::analysis::AnalyzeThroughput(*r, gpuwhy::analysis::FindSteps(*r));
      acc = static_cast<int64_t>(tr.instances.size());
    }
    m.wall_s = Seconds(t0);
    m.after_s = Seconds(t1);
    m.events = static_cast<double>(r->event_count());
    m.model_mb = static_cast<double>(r->memory_bytes()) / 1e6;
    m.ok = true;
    if (acc == 42) std::snprintf(m.note, sizeof(m.note), " ");  // keep acc alive
    return m;
  });
}

Measure KinetoVariantBody(const std::string& path, gpuwhy::InputStreamOptions o,
                          gpuwhy::import::KinetoOptions k = {}) {
  {
    Measure m;
    auto t0 = Clock::now();
    auto s = gpuwhy::OpenInputStream(path, o);
    if (!s.ok()) return m;
    gpuwhy::model::Trace t;
    gpuwhy::import::KinetoScanStats scan;
    gpuwhy::Status st = gpuwhy::import::ReadKinetoStream(**s, k, t, &scan);
    m.wall_s = Seconds(t0);
    m.ok = st.ok();
    m.events = static_cast<double>(scan.trace_events);
    m.bytes = static_cast<double>(scan.json_bytes);
    m.model_mb = static_cast<double>(t.memory_bytes()) / 1e6;
    return m;
  }
}

Measure KinetoVariant(const std::string& path, gpuwhy::InputStreamOptions o,
                      gpuwhy::import::KinetoOptions k = {}) {
  return RunChild([&] { return KinetoVariantBody(path, o, k); });
}

void Print(const char* what, const Measure& m, double json_bytes, double trace_events) {
  if (!m.ok) {
    std::printf("  %-28s FAILED %s\n", what, m.note);
    return;
  }
  double mbs = json_bytes / 1e6 / m.wall_s;
  std::printf("  %-28s %7.3f s (min %6.3f)  %7.1f MB/s", what, m.wall_s, m.min_wall_s, mbs);
  if (trace_events > 0) std::printf("  %7.2f M events/s", trace_events / 1e6 / m.wall_s);
  std::printf("  cpu %6.3f s", m.gzip_cpu_s > 0 ? m.gzip_cpu_s : m.cpu_s);
  const long rss_kb = m.exec_rss_kb > 0 ? m.exec_rss_kb : m.rss_kb;
  std::printf("  peak RSS %7.1f MB", static_cast<double>(rss_kb) / 1024.0);
  if (m.model_mb > 0) std::printf("  model %6.1f MB", m.model_mb);
  std::printf("\n");
}

// InProcessLines: the inflate, parse and import measurements of one file.
void InProcessLines(const std::string& f, double bytes, double events, bool variants,
                    const Measure& gz) {
  gpuwhy::InputStreamOptions isal, zlib;
  isal.gzip = gpuwhy::GzipBackend::kIsal;
  zlib.gzip = gpuwhy::GzipBackend::kZlib;
  if (gpuwhy::IsalAvailable()) Print("inflate only (ISA-L)", Inflate(f, isal), bytes, 0);
  Print("inflate only (zlib)", Inflate(f, zlib), bytes, 0);
  if (variants) {
    for (bool ahead : {false, true}) {
      for (auto* o : {&isal, &zlib}) {
        if (o == &isal && !gpuwhy::IsalAvailable()) continue;
        o->read_ahead = ahead;
        std::string name = std::string("parse ") + (o == &isal ? "ISA-L" : "zlib") +
                           (ahead ? " +read-ahead" : "");
        Print(name.c_str(), KinetoVariant(f, *o), bytes, events);
      }
    }
  }
  // The segmented parse against one thread, all with read-ahead inflate.
  for (int n : g_threads) {
    gpuwhy::import::KinetoOptions o;
    o.threads = n;
    const std::string name = "Kineto parse, " + std::to_string(n) + (n == 1 ? " thread" : " threads");
    Print(name.c_str(), KinetoVariant(f, gpuwhy::import::KinetoOptions::ReadAheadOn(), o), bytes,
          events);
  }
  Measure imp = Import(f, After::kNothing);
  Print("import (ImportFile)", imp, bytes, events);
  Measure pass = Import(f, After::kPass);
  Print("import + pass over model", pass, bytes, events);
  Measure an = Import(f, After::kAnalyze);
  Print("import + AnalyzeTrace", an, bytes, events);
  Measure th = Import(f, After::kThroughput);
  Print("import + AnalyzeThroughput", th, bytes, events);
  if (an.ok && th.ok && an.after_s > 0)
    std::printf("  after import: AnalyzeTrace %.3f s, of which the per-op throughput model "
                "alone takes %.3f s (%.0f%%)\n",
                an.after_s, th.after_s, 100.0 * th.after_s / an.after_s);
  PrintModelBytes(f);
  if (gz.ok && an.ok)
    std::printf("  import+analyze / gzip -dc: wall %.2f, cpu %.2f\n", an.wall_s / gz.wall_s,
                an.cpu_s / gz.gzip_cpu_s);
}

}  // namespace

int main(int argc, char** argv) {
  bool variants = false;
  bool cli_only = false;
  std::string gpuwhy_bin;  // --gpuwhy PATH: also time the real CLI
  // --same-model FILE...: import each file on one thread lexing everything
  // and in segments on two replaying learned repeats, and say whether the
  // models are bit-identical (no timing).
  if (argc >= 3 && std::strcmp(argv[1], "--same-model") == 0) {
    int differ = 0;
    for (int i = 2; i < argc; ++i) {
      gpuwhy::model::Trace t[2];
      gpuwhy::import::KinetoScanStats scan[2];
      bool ok = true;
      for (int k = 0; k < 2; ++k) {
        gpuwhy::import::KinetoOptions o;
        o.threads = k + 1;
        o.learn_repeats = k == 1;  // the reference lexes everything
        auto s = gpuwhy::OpenInputStream(argv[i], gpuwhy::import::KinetoOptions::ReadAheadOn());
        ok = ok && s.ok() && gpuwhy::import::ReadKinetoStream(**s, o, t[k], &scan[k]).ok();
      }
      std::string d = ok ? gpuwhy::model::DescribeDifference(t[0], t[1]) : "import failed";
      std::printf("%s: %zu rows, %lu segments%s: %s\n", argv[i], t[0].event_count(),
                  static_cast<unsigned long>(scan[1].segments),
                  scan[1].serial_fallback ? " (fell back to one thread)" : "",
                  d.empty() ? "one thread lexing everything and two threads replaying learned repeats "
                            "give bit-identical models"
                          : d.c_str());
      differ += !d.empty();
    }
    return differ == 0 ? 0 : 1;
  }
  // --model-bytes FILE...: the model's bytes per row of each file, by table.
  if (argc >= 3 && std::strcmp(argv[1], "--model-bytes") == 0) {
    for (int i = 2; i < argc; ++i) {
      std::printf("%s\n", argv[i]);
      PrintModelBytes(argv[i]);
    }
    return 0;
  }
  // --once FILE: one in-process import, for `perf record`.
  if (argc == 3 && std::strcmp(argv[1], "--once") == 0) {
    auto t0 = Clock::now();
    gpuwhy::Result<gpuwhy::model::Trace> r = gpuwhy::import::ImportFile(argv[2]);
    std::printf("%s in %.3f s\n", r.ok() ? "ok" : r.status().message().c_str(), Seconds(t0));
    return r.ok() ? 0 : 2;
  }
  std::vector<std::string> files;
  std::string paired[2];  // --paired BIN_A BIN_B: only the side-by-side comparison
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--variants") == 0) variants = true;
    else if (std::strcmp(argv[i], "--paired") == 0 && i + 2 < argc) {
      paired[0] = argv[++i];
      paired[1] = argv[++i];
    } else if (std::strcmp(argv[i], "--cli-only") == 0)
      cli_only = true;
    else if (std::strcmp(argv[i], "--gpuwhy") == 0 && i + 1 < argc) gpuwhy_bin = argv[++i];
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) g_repeat = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--memory") == 0 && i + 1 < argc) {
      const std::string m = argv[++i];
      if (m == "warm") g_memory = MemoryState::kWarm;
      else if (m == "cold") g_memory = MemoryState::kCold;
      else if (m == "asis") g_memory = MemoryState::kAsIs;
      else {
        std::fprintf(stderr, "import_bench: --memory takes warm, cold or asis\n");
        return 2;
      }
    }
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      g_threads.clear();
      for (const char* p = argv[++i]; *p != 0;) {
        char* end = nullptr;
        const long n = std::strtol(p, &end, 10);
        if (end == p || n < 1 || n > 64) {
          std::fprintf(stderr, "import_bench: --threads takes a list like 1,2,4 (1..64)\n");
          return 2;
        }
        g_threads.push_back(static_cast<int>(n));
        g_threads_given = true;
        p = *end == ',' ? end + 1 : end;
      }
    }
    else files.emplace_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: import_bench [--variants] FILE...\n");
    return 2;
  }
  if (!paired[0].empty()) return Paired(files, paired);
  std::printf("ISA-L built in: %s\n", gpuwhy::IsalAvailable() ? "yes" : "no");
  struct Row {
    std::string file;
    double events = 0, wall_s = 0, min_wall_s = 0, rss_mb = 0;
  };
  std::vector<Row> cli_rows;
  std::vector<double> file_events;
  for (const std::string& f : files) {
    // One scan to learn the sizes (not timed).
    Measure scan = RunChildOnce([&] { return KinetoVariantBody(f, {}); });
    double bytes = scan.bytes, events = scan.events;
    std::printf("%s\n  trace events %.0f, JSON bytes %.0f (%.1f MB)\n", f.c_str(), events, bytes,
                bytes / 1e6);
    file_events.push_back(events);
    Measure gz = GzipBaseline(f);
    Print("baseline gzip -dc >/dev/null", gz, bytes, 0);
    Measure igz;
    if (OnPath("igzip")) {
      igz = ExecMeasure({"igzip", "-dc", f}, nullptr);
      Print("baseline igzip -dc >/dev/null", igz, bytes, 0);
    } else {
      std::printf("  baseline igzip -dc: not installed (Debian package isal)\n");
    }
    if (!cli_only) InProcessLines(f, bytes, events, variants, gz);
    if (!gpuwhy_bin.empty()) {
      Measure cli = ExecMeasure({gpuwhy_bin, "analyze", "--json", f}, nullptr);
      Print("gpuwhy analyze --json", cli, bytes, events);
      if (cli.ok)
        cli_rows.push_back({f, events, cli.wall_s, cli.min_wall_s,
                            static_cast<double>(cli.exec_rss_kb) / 1024.0});
      Measure def = ExecMeasure({gpuwhy_bin, "analyze", "--json", f}, "GPUWHY_MEMORY_TUNING=0");
      Print("  same, glibc malloc defaults", def, bytes, events);
      if (cli.ok && igz.ok)
        std::printf("  gpuwhy analyze --json / igzip -dc: wall %.2f (target <= 3), peak RSS %.0f MB\n",
                    cli.wall_s / igz.wall_s, static_cast<double>(cli.exec_rss_kb) / 1024.0);
      // --threads: the CLI at each parser thread count too.
      if (g_threads_given) {
        for (int n : g_threads) {
          const std::string t = std::to_string(n);
          Measure m = ExecMeasure({gpuwhy_bin, "analyze", "--json", "--threads", t, f}, nullptr);
          const std::string name = "  same, --threads " + t;
          Print(name.c_str(), m, bytes, events);
          if (m.ok && igz.ok)
            std::printf("    / igzip -dc: wall %.2f\n", m.wall_s / igz.wall_s);
        }
      }
    }
  }
  if (cli_rows.size() >= 2) {
    const Row& base = cli_rows.front();
    // The minimum is the steadier figure on a shared machine; both are shown.
    std::printf("linearity of gpuwhy analyze --json, against %s (same run):\n", base.file.c_str());
    for (const Row& r : cli_rows)
      std::printf("  %-40s events x%6.2f  wall x%6.2f median, x%6.2f min (%.3f s, min %.3f s)"
                  "  peak RSS %7.1f MB\n",
                  r.file.c_str(), r.events / base.events, r.wall_s / base.wall_s,
                  r.min_wall_s / base.min_wall_s, r.wall_s, r.min_wall_s, r.rss_mb);
  }
  if (!gpuwhy_bin.empty() && OnPath("igzip") && file_events.size() == files.size() &&
      !file_events.empty() && file_events[0] > 0)
    Interleaved(files, file_events, gpuwhy_bin);
  return 0;
}
