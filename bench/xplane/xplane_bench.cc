// xplane_bench [--kernels N] [--repeat R] [--keep DIR]
//
// Writes one synthetic XSpace the way the XLA GPU profiler lays it out (a
// /device:GPU:0 plane with 4 stream lines of kernels carrying correlation_id
// and kernel_details, an XLA Ops line with one op per kernel, a /host:CUPTI
// plane with one cuLaunchKernel per kernel; N kernels in all, default 1M), and
// the same events as a Kineto JSON trace. Then, each measurement in its own
// forked child (peak RSS from wait4's ru_maxrss, so per measurement), the
// median of R runs (default 3):
//   read        the file into memory, nothing else (the floor)
//   protobuf    read + XSpace::ParseFromString: libprotobuf alone, nothing mapped
//                (the baseline: what any reader built on the library pays)
//   import      import::ImportFile on the .xplane.pb (the production path)
//   kineto      import::ImportFile on the same events as Kineto JSON
// Prints wall s, MB/s of the file's bytes, model events/s and peak RSS MiB.
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
#include <functional>
#include <string>
#include <vector>

#include "import/registry.h"
#include "xplane.pb.h"

namespace {

namespace pb = tensorflow::profiler;
using Clock = std::chrono::steady_clock;

struct BenchRun {
  double wall_s = 0;
  double events = 0;
  long rss_kb = 0;
  bool ok = false;
};

BenchRun RunChild(const std::function<BenchRun()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    BenchRun r = fn();
    ssize_t w = write(fds[1], &r, sizeof r);
    (void)w;
    _exit(0);
  }
  close(fds[1]);
  BenchRun r;
  ssize_t n = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (n != static_cast<ssize_t>(sizeof r)) r = BenchRun();
  r.rss_kb = ru.ru_maxrss;
  return r;
}

BenchRun Median(const std::function<BenchRun()>& fn, int repeat) {
  std::vector<BenchRun> runs;
  for (int i = 0; i < repeat; ++i) runs.push_back(RunChild(fn));
  std::sort(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.wall_s < b.wall_s; });
  BenchRun m = runs[runs.size() / 2];
  for (const BenchRun& r : runs) m.rss_kb = std::max(m.rss_kb, r.rss_kb);
  return m;
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string b(std::filesystem::file_size(path), '\0');
  in.read(b.data(), static_cast<std::streamsize>(b.size()));
  return b;
}

constexpr int64_t kBenchT0 = 1'700'000'000'000'000'000;

void AddStat(pb::XEvent* e, int64_t id, int64_t v) {
  pb::XStat* s = e->add_stats();
  s->set_metadata_id(id);
  s->set_int64_value(v);
}

// WriteFixtures: the XSpace and the Kineto JSON of the same `kernels` kernels.
void WriteFixtures(long kernels, const std::string& xplane, const std::string& json) {
  pb::XSpace space;
  pb::XPlane* gpu = space.add_planes();
  gpu->set_id(1);
  gpu->set_name("/device:GPU:0");
  auto stat_md = [](pb::XPlane* p, int64_t id, const char* name) {
    auto& m = (*p->mutable_stat_metadata())[id];
    m.set_id(id);
    m.set_name(name);
  };
  stat_md(gpu, 1, "correlation_id");
  stat_md(gpu, 2, "kernel_details");
  const int kNames = 64;
  for (int i = 1; i <= kNames; ++i) {
    auto& m = (*gpu->mutable_event_metadata())[i];
    m.set_id(i);
    m.set_name("fusion_" + std::to_string(i));
  }
  pb::XLine* streams[4];
  for (int s = 0; s < 4; ++s) {
    streams[s] = gpu->add_lines();
    streams[s]->set_id(7 + s);
    streams[s]->set_name("Stream #" + std::to_string(7 + s) + "(Compute)");
    streams[s]->set_timestamp_ns(kBenchT0);
  }
  pb::XLine* ops = gpu->add_lines();
  ops->set_id(100);
  ops->set_name("XLA Ops");
  ops->set_timestamp_ns(kBenchT0);
  pb::XPlane* cupti = space.add_planes();
  cupti->set_id(2);
  cupti->set_name("/host:CUPTI");
  stat_md(cupti, 1, "correlation_id");
  auto& launch = (*cupti->mutable_event_metadata())[1];
  launch.set_id(1);
  launch.set_name("cuLaunchKernel");
  pb::XLine* api = cupti->add_lines();
  api->set_id(3001);
  api->set_name("3001");
  api->set_timestamp_ns(kBenchT0);

  std::ofstream js(json);
  js << "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n"
        "\"traceEvents\": [\n";
  for (long i = 0; i < kernels; ++i) {
    const int s = static_cast<int>(i % 4);
    const int64_t start_ps = i * 5'000'000 + 1'000'000, dur_ps = 3'456'789;
    const int name = static_cast<int>(i % kNames) + 1;
    pb::XEvent* k = streams[s]->add_events();
    k->set_metadata_id(name);
    k->set_offset_ps(start_ps);
    k->set_duration_ps(dur_ps);
    AddStat(k, 1, i + 1);
    pb::XStat* kd = k->add_stats();
    kd->set_metadata_id(2);
    kd->set_str_value("regs:32 static_shared:0 dynamic_shared:4096 grid:80,1,1 block:256,1,1 occ_pct:50");
    pb::XEvent* op = ops->add_events();
    op->set_metadata_id(name);
    op->set_offset_ps(start_ps);
    op->set_duration_ps(dur_ps);
    pb::XEvent* a = api->add_events();
    a->set_metadata_id(1);
    a->set_offset_ps(start_ps - 900'000);
    a->set_duration_ps(600'000);
    AddStat(a, 1, i + 1);

    const double ts_us = static_cast<double>(kBenchT0 / 1000) + static_cast<double>(start_ps) / 1e6;
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"fusion_%d\",\"pid\":0,\"tid\":%d,"
                  "\"ts\":%.3f,\"dur\":3.457,\"args\":{\"device\":0,\"stream\":%d,\"correlation\":%ld,"
                  "\"registers per thread\":32,\"shared memory\":4096,\"grid\":[80,1,1],"
                  "\"block\":[256,1,1],\"est. achieved occupancy %%\":50}},\n"
                  "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,"
                  "\"tid\":3001,\"ts\":%.3f,\"dur\":0.6,\"args\":{\"correlation\":%ld}},\n"
                  "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"fusion_%d\",\"pid\":0,"
                  "\"tid\":%d,\"ts\":%.3f,\"dur\":3.457,\"args\":{\"device\":0}}",
                  i ? ",\n" : "", name, 7 + s, ts_us, 7 + s, i + 1, ts_us - 0.9, i + 1, name,
                  7 + s, ts_us);
    js << buf;
  }
  js << "\n]}\n";
  std::string bytes;
  space.SerializeToString(&bytes);
  std::ofstream(xplane, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  long kernels = 1'000'000;
  int repeat = 3;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--kernels" && i + 1 < argc) kernels = std::atol(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--keep" && i + 1 < argc) keep = argv[++i];
    else {
      std::fprintf(stderr, "usage: xplane_bench [--kernels N] [--repeat R] [--keep DIR]\n");
      return 2;
    }
  }
  namespace fs = std::filesystem;
  fs::path dir = keep.empty() ? fs::temp_directory_path() / ("xplane_bench_" + std::to_string(getpid()))
                              : fs::path(keep);
  fs::create_directories(dir);
  const std::string xp = (dir / "bench.xplane.pb").string(), js = (dir / "bench.json").string();
  // In a child: the parent stays small, so that the measured children (forked
  // from it) do not count its pages in their peak RSS.
  RunChild([&] {
    WriteFixtures(kernels, xp, js);
    BenchRun r;
    r.ok = true;
    return r;
  });
  const double xp_mb = static_cast<double>(fs::file_size(xp)) / 1e6;
  const double js_mb = static_cast<double>(fs::file_size(js)) / 1e6;
  std::printf("xplane_bench: %ld kernels; %s %.1f MB, %s %.1f MB; median of %d\n", kernels,
              xp.c_str(), xp_mb, js.c_str(), js_mb, repeat);
  std::printf("%-10s %9s %9s %13s %10s\n", "what", "wall s", "MB/s", "events/s", "peak MiB");
  auto line = [&](const char* what, const BenchRun& r, double mb) {
    if (!r.ok) {
      std::printf("%-10s failed\n", what);
      return;
    }
    std::printf("%-10s %9.3f %9.1f %13.0f %10.1f\n", what, r.wall_s, mb / r.wall_s,
                r.events > 0 ? r.events / r.wall_s : 0.0, static_cast<double>(r.rss_kb) / 1024);
  };
  line("read", Median([&] {
         BenchRun r;
         auto t0 = Clock::now();
         std::string b = Slurp(xp);
         r.wall_s = Since(t0);
         r.ok = !b.empty();
         return r;
       }, repeat), xp_mb);
  line("protobuf", Median([&] {
         BenchRun r;
         auto t0 = Clock::now();
         std::string b = Slurp(xp);
         pb::XSpace s;
         r.ok = s.ParseFromString(b);
         r.wall_s = Since(t0);
         for (const pb::XPlane& p : s.planes())
           for (const pb::XLine& l : p.lines()) r.events += l.events_size();
         return r;
       }, repeat), xp_mb);
  auto import = [&](const std::string& path) {
    return [path] {
      BenchRun r;
      auto t0 = Clock::now();
      gpuwhy::Result<gpuwhy::model::Trace> t = gpuwhy::import::ImportFile(path);
      r.wall_s = Since(t0);
      r.ok = t.ok();
      if (!t.ok()) std::fprintf(stderr, "%s\n", t.status().message().c_str());
      else r.events = static_cast<double>(t->kernels.size() + t->api_calls.size() + t->ranges.size());
      return r;
    };
  };
  line("import", Median(import(xp), repeat), xp_mb);
  line("kineto", Median(import(js), repeat), js_mb);
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}
