// Sampler overhead: CPU time of NvmlSampler::Sample() + recording at 10 Hz
// with 8 GPUs against the fake NVML, as a share of one core, next to a
// baseline of the same loop without NVML calls, both measured in this run.
//
// usage: sampler_bench [SECONDS_PER_PHASE=10] [INTERVAL_MS=100] [GPUS=8] [NVLINKS=18] [REAL=gpm|dcgm]
// NVLINKS: links per GPU read through NVML field values each tick (0: none).
// REAL=dcgm: GPUs without GPM, real figures from the fake DCGM host engine.
// Caveat: the fake NVML answers from memory; a real driver spends more per
// call (ioctls), so this measures gpuwhy's own cost, not the driver's.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "record/format/recording_writer.h"
#include "record/nvml/nvml_sampler.h"

using namespace gpuwhy;

namespace {

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Phase {
  double cpu_s = 0, wall_s = 0;
  uint64_t ticks = 0;
  double share() const { return wall_s > 0 ? cpu_s / wall_s : 0; }
};

// Loop: `ticks` ticks at `interval_ns` on absolute deadlines; `work` per tick.
template <typename F>
Phase Loop(double seconds, int64_t interval_ns, F work) {
  Phase p;
  double c0 = CpuSeconds();
  int64_t w0 = record::MonoNowNs();
  int64_t next = w0;
  int64_t end = w0 + static_cast<int64_t>(seconds * 1e9);
  while (next < end) {
    work();
    ++p.ticks;
    next += interval_ns;
    int64_t now = record::MonoNowNs();
    if (next > now) usleep(static_cast<useconds_t>((next - now) / 1000));
  }
  p.wall_s = static_cast<double>(record::MonoNowNs() - w0) / 1e9;
  p.cpu_s = CpuSeconds() - c0;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
  int interval_ms = argc > 2 ? std::atoi(argv[2]) : 100;
  int gpus = argc > 3 ? std::atoi(argv[3]) : 8;
  int nvlinks = argc > 4 ? std::atoi(argv[4]) : 18;
  bool dcgm = argc > 5 && std::string(argv[5]) == "dcgm";
  std::string dir = "/tmp/gpuwhy_sampler_bench_" + std::to_string(getpid());
  std::string scen = dir + ".scenario";
  {
    std::ofstream f(scen);
    f << "devices " << gpus << "\n";
    for (int i = 0; i < gpus; ++i) {
      f << "metric " << i << " gpu_util square 0 100 300 0.6\n"
        << "metric " << i << " sm_active constant 40\n"
        << "process " << i << " pid " << 10000 + i << " name worker mem 1000000000 util 50\n"
        << "nvlinks " << i << " " << nvlinks << "\n"
        << "metric " << i << " nvlink_tx_kibps constant 100000\n";
      if (dcgm) f << "gpm " << i << " 0\n";
    }
  }
  std::string dscen = dir + ".dcgm";
  {
    std::ofstream f(dscen);
    f << "gpus " << gpus << "\n";
    for (int i = 0; i < gpus; ++i) f << "value " << i << " 1002 0.4\nvalue " << i << " 1003 0.2\n";
  }
  setenv("GPUWHY_DCGM_LIBRARY", dcgm ? GPUWHY_FAKE_DCGM : "/nonexistent/libdcgm.so.4", 1);
  setenv("GPUWHY_FAKE_DCGM_SCENARIO", dscen.c_str(), 1);
  setenv("GPUWHY_NVML_LIBRARY", GPUWHY_FAKE_NVML, 1);
  setenv("GPUWHY_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  auto lib = record::nvml::NvmlLibrary::Load();
  if (!lib.ok()) {
    std::fprintf(stderr, "sampler_bench: %s\n", lib.status().message().c_str());
    return 2;
  }
  record::SamplerOptions so;
  auto sampler = record::NvmlSampler::Open(std::move(lib).value(), so);
  if (!sampler.ok()) {
    std::fprintf(stderr, "sampler_bench: %s\n", sampler.status().message().c_str());
    return 2;
  }
  int64_t interval_ns = static_cast<int64_t>(interval_ms) * kNsPerMs;
  std::string out = dir + ".gwrec";
  auto writer = record::RecordingWriter::Create(out, interval_ns, kNsPerS);
  if (!writer.ok()) return 2;
  writer.value()->WriteDevices(*sampler.value()->system());

  Phase base = Loop(seconds, interval_ns, [] {});
  uint64_t calls0 = sampler.value()->calls();
  Phase work = Loop(seconds, interval_ns, [&] {
    record::Snapshot s = sampler.value()->Sample();
    writer.value()->WriteSnapshot(s);
    (void)writer.value()->Flush();
  });
  uint64_t calls = sampler.value()->calls() - calls0;
  (void)writer.value()->Close(record::WallNowNs(), 0);
  std::printf("sampler_bench: %d GPUs, %d ms interval, %.1f s per phase, %d NVLinks/GPU, real=%s (fake NVML%s)\n",
              gpus, interval_ms, seconds, nvlinks, dcgm ? "dcgm" : "gpm", dcgm ? " + fake DCGM" : "");
  std::printf("  %s\n", sampler.value()->system()->dcgm_status.empty() ? "DCGM not needed (GPM on every GPU)"
                                                                    : sampler.value()->system()->dcgm_status.c_str());
  std::printf("  baseline (loop, no NVML): %6.3f%% of one core  (%.4f s CPU / %.2f s wall, %llu ticks)\n",
              100 * base.share(), base.cpu_s, base.wall_s, static_cast<unsigned long long>(base.ticks));
  std::printf("  sampler + recording:      %6.3f%% of one core  (%.4f s CPU / %.2f s wall, %llu ticks, %llu NVML calls)\n",
              100 * work.share(), work.cpu_s, work.wall_s, static_cast<unsigned long long>(work.ticks),
              static_cast<unsigned long long>(calls));
  std::printf("  overhead over baseline:   %6.3f%% of one core  (target <= 0.5%%)\n",
              100 * (work.share() - base.share()));
  std::printf("  recording: %llu bytes, %llu samples\n",
              static_cast<unsigned long long>(writer.value()->bytes_written()),
              static_cast<unsigned long long>(writer.value()->samples_written()));
  std::remove(out.c_str());
  std::remove(scen.c_str());
  std::remove(dscen.c_str());
  return 0;
}
