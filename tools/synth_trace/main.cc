// synth_trace: write a synthetic Kineto trace with known ground truth.
// usage: synth_trace SCENARIO -o FILE [--steps N] [--seed S] [--legacy] [--rank R]
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "synth_trace.h"

namespace {

void Usage(std::ostream& os) {
  os << "usage: synth_trace SCENARIO -o FILE [--steps N] [--seed S] [--legacy] [--rank R]\n"
        "       [--world-size W] [--truth] [--smi FILE [--smi-period-ms P] [--smi-tz-hours H]]\n"
        "scenarios:";
  for (gpuwhy::synth::Scenario s : gpuwhy::synth::AllScenarios())
    os << ' ' << gpuwhy::synth::ScenarioName(s);
  os << "\nFILE ending in .gz is gzip-compressed. --truth prints the ground truth.\n"
        "--smi also writes an nvidia-smi --query-gpu CSV log of GPU 0 sampled every P ms\n"
        "(default 100) in local time UTC+H (default 0), as nvidia-smi would have logged it.\n";
}

bool ParseInt(const char* s, long long* out) {
  char* end = nullptr;
  *out = std::strtoll(s, &end, 10);
  return end != s && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuwhy::synth;
  std::string scenario_name, out_path;
  long long steps = -1, seed = 1, rank = 0, world = -1, smi_period_ms = 100, smi_tz = 0;
  std::string smi_path;
  bool legacy = false, truth = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto need = [&](long long* v) {
      if (i + 1 >= argc || !ParseInt(argv[i + 1], v)) return false;
      ++i;
      return true;
    };
    if (a == "-h" || a == "--help") {
      Usage(std::cout);
      return 0;
    } else if (a == "-o" && i + 1 < argc) {
      out_path = argv[++i];
    } else if (a == "--steps") {
      if (!need(&steps) || steps < 1) return Usage(std::cerr), 1;
    } else if (a == "--seed") {
      if (!need(&seed)) return Usage(std::cerr), 1;
    } else if (a == "--rank") {
      if (!need(&rank) || rank < 0) return Usage(std::cerr), 1;
    } else if (a == "--world-size") {
      if (!need(&world) || world < 1) return Usage(std::cerr), 1;
    } else if (a == "--smi" && i + 1 < argc) {
      smi_path = argv[++i];
    } else if (a == "--smi-period-ms") {
      if (!need(&smi_period_ms) || smi_period_ms < 1) return Usage(std::cerr), 1;
    } else if (a == "--smi-tz-hours") {
      if (!need(&smi_tz) || smi_tz < -14 || smi_tz > 14) return Usage(std::cerr), 1;
    } else if (a == "--legacy") {
      legacy = true;
    } else if (a == "--truth") {
      truth = true;
    } else if (scenario_name.empty() && !a.starts_with("-")) {
      scenario_name = std::string(a);
    } else {
      std::cerr << "synth_trace: unexpected argument '" << a << "'\n";
      Usage(std::cerr);
      return 1;
    }
  }
  if (scenario_name.empty() || out_path.empty()) {
    Usage(std::cerr);
    return 1;
  }
  auto scenario = ParseScenario(scenario_name);
  if (!scenario.ok()) {
    std::cerr << "synth_trace: " << scenario.status().message() << '\n';
    return 1;
  }
  ScenarioParams p = DefaultParams(*scenario);
  if (steps > 0) p.steps = static_cast<int>(steps);
  p.seed = static_cast<uint64_t>(seed);
  p.legacy = legacy;
  p.rank = static_cast<int>(rank);
  if (world > 0) p.world_size = static_cast<int>(world);
  // Each rank gets its own seed stream so kernel durations differ across ranks.
  p.seed = p.seed * 1000 + static_cast<uint64_t>(p.rank);
  SynthTrace t = Generate(p);
  gpuwhy::Status st = WriteTrace(t.json, out_path);
  if (!st.ok()) {
    std::cerr << "synth_trace: " << st.message() << '\n';
    return 2;
  }
  if (!smi_path.empty()) {
    SmiLogParams sp;
    sp.period_ns = smi_period_ms * gpuwhy::kNsPerMs;
    sp.tz_offset_hours = static_cast<int>(smi_tz);
    gpuwhy::Status ss = WriteTrace(SmiLog(t, sp), smi_path);
    if (!ss.ok()) {
      std::cerr << "synth_trace: " << ss.message() << '\n';
      return 2;
    }
  }
  if (truth) {
    const GroundTruth& g = t.truth;
    std::cout << "steps " << g.steps << "\nkernels " << g.kernel_count << "\nkernel_time_ns "
              << g.kernel_time_ns << "\ngpu_busy_ns " << g.gpu_busy_ns << "\ngpu_span_ns "
              << g.gpu_span_end_ns - g.gpu_span_start_ns << "\nstream_sync_calls "
              << g.stream_sync_calls << "\n";
  }
  return 0;
}
