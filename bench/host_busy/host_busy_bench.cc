// host_busy_bench [--events N] [--repeat R] [--write FILE.json]
//
// Peak memory of the timeline's host attribution on a host-busy capture
// (issue 39 §7). The capture is generated in memory: N trace events (default
// 10 M, counted as a Kineto file holds them) in turns of six on one launching
// thread: a 2 ms "preprocess" annotation, an aten::mul op with a
// cudaLaunchKernel inside, its 20 µs kernel, and the launch's two flow events.
// Every GPU gap is a host-busy candidate, each with a host window to break
// down. Measured, each as its peak RSS above the RSS it started from (VmHWM
// after resetting it through /proc/self/clear_refs; "n/a" where the kernel
// refuses the reset), R times (default 3), the largest kept:
//   scan      the baseline: one read of the columns the timeline reads most;
//   held      ComputeHostBreakdowns with every breakdown kept, one per gap:
//             how the timeline held them until the sweep streamed them;
//   streamed  the same sweep, each breakdown folded into a tally and dropped;
//   timeline  BuildTimeline, as `analyze` runs it.
// Each section runs in a forked child (the model shared copy-on-write), so
// memory an earlier section freed and the allocator kept hides nothing. Then
// the model's RSS plus the timeline's peak: the process peak of the analysis.
// --write FILE also writes the capture as Kineto JSON, for `gpuwhy analyze`
// under /usr/bin/time -v. No timed assertions: a program that prints figures.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "analysis/detectors/host_activity.h"
#include "analysis/detectors/timeline.h"
#include "base/memory_tuning.h"
#include "common/proc_status.h"
#include "model/trace.h"

namespace {

using namespace gpuwhy;
using Clock = std::chrono::steady_clock;

constexpr int64_t kTurnNs = 2100 * kNsPerUs;  // one turn: 2 ms of host work, then the op
constexpr int64_t kEventsPerTurn = 6;

using bench::ResetPeakRss;
using bench::StatusKiB;

struct Peak {
  long over_kib = -1;  // the largest peak above the starting RSS
  double seconds = 0;  // the median's stand-in: the last run's wall time
};

// Measure: `fn` run `repeat` times in a child process of its own (fork: the
// model is shared copy-on-write), so that memory one section freed but the
// allocator kept cannot hide the next section's peak.
Peak Measure(int repeat, const std::function<void()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Peak p;
    for (int r = 0; r < repeat; ++r) {
      const bool reset = ResetPeakRss();
      const long rss0 = StatusKiB("VmRSS:");
      const auto t0 = Clock::now();
      fn();
      p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      const long hwm = StatusKiB("VmHWM:");
      if (reset && hwm >= 0 && rss0 >= 0) p.over_kib = std::max(p.over_kib, hwm - rss0);
    }
    const ssize_t n = write(fds[1], &p, sizeof p);
    _exit(n == static_cast<ssize_t>(sizeof p) ? 0 : 1);
  }
  close(fds[1]);
  Peak p;
  if (child < 0 || read(fds[0], &p, sizeof p) != static_cast<ssize_t>(sizeof p)) p = {};
  close(fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return p;
}

// Generate: the capture, `turns` turns on pid 1, thread 1.
model::Trace Generate(int64_t turns) {
  model::Trace t;
  const StringId pre = t.strings.Intern("preprocess");
  const StringId mul = t.strings.Intern("aten::mul");
  const StringId launch = t.strings.Intern("cudaLaunchKernel");
  const StringId kernel = t.strings.Intern("void at::native::elementwise_kernel<128, 4>");
  for (int64_t k = 0; k < turns; ++k) {
    const int64_t t0 = 1000 * kNsPerUs + k * kTurnNs;
    model::RangeRow r;
    r.pid = 1;
    r.tid = 1;
    r.kind = model::RangeKind::kUserAnnotation;
    r.name = pre;
    r.start_ns = t0;
    r.end_ns = t0 + 2000 * kNsPerUs;
    t.ranges.Append(r);
    r.kind = model::RangeKind::kCpuOp;
    r.name = mul;
    r.start_ns = t0 + 2000 * kNsPerUs;
    r.end_ns = t0 + 2050 * kNsPerUs;
    t.ranges.Append(r);
    model::ApiRow a;
    a.pid = 1;
    a.tid = 1;
    a.name = launch;
    a.cbid = 211;
    a.start_ns = t0 + 2010 * kNsPerUs;
    a.end_ns = t0 + 2015 * kNsPerUs;
    a.correlation_id = k + 1;
    t.api_calls.Append(a);
    model::KernelRow kr;
    kr.device_id = 0;
    kr.stream_id = 7;
    kr.name = kernel;
    kr.start_ns = t0 + 2040 * kNsPerUs;
    kr.end_ns = t0 + 2060 * kNsPerUs;
    kr.correlation_id = k + 1;
    t.kernels.Append(kr);
  }
  t.Finalize();
  return t;
}

// WriteKineto: the same capture as a Kineto trace (ts/dur in µs).
bool WriteKineto(int64_t turns, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
  for (int64_t k = 0; k < turns; ++k) {
    const double t0 = 1000.0 + static_cast<double>(k) * 2100.0;
    std::fprintf(f,
                 "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"preprocess\",\"pid\":1,"
                 "\"tid\":1,\"ts\":%.3f,\"dur\":2000},\n"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":1,"
                 "\"ts\":%.3f,\"dur\":50},\n"
                 "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                 "\"tid\":1,\"ts\":%.3f,\"dur\":5,\"args\":{\"cbid\":211,\"correlation\":%lld}},\n"
                 "{\"ph\":\"s\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":%.3f,\"cat\":\"ac2g\","
                 "\"name\":\"ac2g\"},\n"
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"elementwise_kernel\",\"pid\":0,"
                 "\"tid\":7,\"ts\":%.3f,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,"
                 "\"correlation\":%lld}},\n"
                 "{\"ph\":\"f\",\"id\":%lld,\"pid\":0,\"tid\":7,\"ts\":%.3f,\"cat\":\"ac2g\","
                 "\"name\":\"ac2g\",\"bp\":\"e\"}%s\n",
                 t0, t0 + 2000.0, t0 + 2010.0, static_cast<long long>(k + 1),
                 static_cast<long long>(k + 1), t0 + 2010.0, t0 + 2040.0,
                 static_cast<long long>(k + 1), static_cast<long long>(k + 1), t0 + 2040.0,
                 k + 1 == turns ? "" : ",");
  }
  std::fprintf(f, "]}\n");
  return std::fclose(f) == 0;
}

// Queries: one slot per GPU gap (slot i: the gap after kernel i), as the
// timeline queries them; Source gives each slot's window.
std::vector<analysis::detectors::ThreadWindows> Queries(const model::Trace& t) {
  std::vector<analysis::detectors::ThreadWindows> q(1);
  q[0].pid = 1;
  q[0].tid = 1;
  q[0].launch_piece_max_ns = 1 * kNsPerMs;
  q[0].slots.reserve(t.kernels.size());
  for (size_t i = 0; i + 1 < t.kernels.size(); ++i) q[0].slots.push_back(static_cast<uint32_t>(i));
  return q;
}

analysis::detectors::HostWindowSource Source(const model::Trace& t) {
  return [&t](uint32_t slot, std::vector<analysis::Interval>* parts) {
    parts->push_back({t.kernels.end_ns[slot], t.kernels.start_ns[slot + 1]});
  };
}

}  // namespace

int main(int argc, char** argv) {
  TuneMemoryForBatch(argv);
  int64_t events = 10'000'000;
  int repeat = 3;
  std::string write;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--events" && i + 1 < argc) {
      events = std::max<int64_t>(kEventsPerTurn * 2, std::atoll(argv[++i]));
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--write" && i + 1 < argc) {
      write = argv[++i];
    } else {
      std::fprintf(stderr, "usage: host_busy_bench [--events N] [--repeat R] [--write FILE.json]\n");
      return 2;
    }
  }
  const int64_t turns = events / kEventsPerTurn;
  if (!write.empty()) {
    if (!WriteKineto(turns, write)) {
      std::fprintf(stderr, "%s: cannot write\n", write.c_str());
      return 2;
    }
    std::printf("wrote %s: %lld events (%lld turns)\n", write.c_str(),
                static_cast<long long>(turns * kEventsPerTurn), static_cast<long long>(turns));
  }
  const long rss_start = StatusKiB("VmRSS:");
  const auto g0 = Clock::now();
  const model::Trace trace = Generate(turns);
  std::printf("host-busy capture: %lld events (%lld turns, %zu GPU gaps), generated in %.2f s; "
              "model RSS %ld KiB\n",
              static_cast<long long>(turns * kEventsPerTurn), static_cast<long long>(turns),
              trace.kernels.size() - 1, std::chrono::duration<double>(Clock::now() - g0).count(),
              StatusKiB("VmRSS:") - rss_start);

  std::vector<bool> is_launch(trace.api_calls.size(), true), is_blocking(trace.api_calls.size(), false);
  int64_t sink = 0;
  struct Row {
    const char* name;
    Peak peak;
  };
  std::vector<Row> rows;
  rows.push_back({"scan", Measure(repeat, [&] {
                     const model::KernelTable& k = trace.kernels;
                     for (size_t i = 0; i < k.size(); ++i) sink += k.start_ns[i] ^ k.end_ns[i];
                     const model::RangeTable& r = trace.ranges;
                     for (size_t i = 0; i < r.size(); ++i) sink += r.start_ns[i] ^ r.name[i];
                     const model::ApiTable& a = trace.api_calls;
                     for (size_t i = 0; i < a.size(); ++i) sink += a.start_ns[i] ^ a.tid[i];
                   })});
  rows.push_back({"held", Measure(repeat, [&] {
                     std::vector<analysis::detectors::HostBreakdown> all(trace.kernels.size());
                     analysis::detectors::ComputeHostBreakdowns(
                         trace, is_launch, is_blocking, Queries(trace), Source(trace),
                         [&](uint32_t slot, const analysis::detectors::HostBreakdown& b) {
                           all[slot] = b;
                         });
                     for (const auto& b : all) sink += b.untraced_ns;
                   })});
  rows.push_back({"streamed", Measure(repeat, [&] {
                     int64_t untraced = 0;
                     analysis::detectors::ComputeHostBreakdowns(
                         trace, is_launch, is_blocking, Queries(trace), Source(trace),
                         [&](uint32_t, const analysis::detectors::HostBreakdown& b) {
                           untraced += b.untraced_ns;
                         });
                     sink += untraced;
                   })});
  rows.push_back({"timeline", Measure(repeat, [&] {
                     const analysis::detectors::Timeline tl =
                         analysis::detectors::BuildTimeline(trace);
                     sink += tl.devices.empty() ? 0 : tl.devices[0].host_busy_gaps;
                   })});
  std::printf("  %-10s %10s %16s\n", "section", "wall s", "peak over KiB");
  for (const Row& r : rows) {
    char peak[32];
    if (r.peak.over_kib >= 0)
      std::snprintf(peak, sizeof peak, "%ld", r.peak.over_kib);
    else
      std::snprintf(peak, sizeof peak, "n/a");
    std::printf("  %-10s %10.3f %16s\n", r.name, r.peak.seconds, peak);
  }
  const long model_kib = StatusKiB("VmRSS:") - rss_start;
  std::printf("  sizeof(HostBreakdown) %zu bytes; model %ld KiB + timeline peak %ld KiB = %ld KiB "
              "(held breakdowns would add %ld KiB more than streamed)\n",
              sizeof(analysis::detectors::HostBreakdown), model_kib, rows[3].peak.over_kib,
              model_kib + rows[3].peak.over_kib, rows[1].peak.over_kib - rows[2].peak.over_kib);
  return 0;
}
