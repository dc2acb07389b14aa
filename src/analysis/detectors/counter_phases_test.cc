// Unit tests of FindCounterPhases() on sampled series built here, each with a
// known answer: set-up with memory held, sequential processes, a pause, an
// idle tail, periodic dips, monitoring holes, and texture that is no phase.
#include "analysis/detectors/counter_phases.h"

#include <gtest/gtest.h>

#include <functional>

#include "analysis/utilization/utilization.h"

namespace gpuwhy::analysis::detectors::counter_phases_test {
namespace {

constexpr int64_t kT0 = 1700000000LL * kNsPerS;
constexpr int64_t kPeriod = kNsPerS;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Add: `n` samples of `kind` on device 0 at `ts(i)` (default: every second).
void Add(model::Trace& t, model::CounterKind kind, int n, const std::function<double(int)>& f,
         const std::function<int64_t(int)>& ts = nullptr) {
  model::CounterSeries s;
  s.kind = kind;
  s.unit = model::CanonicalUnit(kind);
  s.device_id = 0;
  s.source = t.strings.Intern("nvidia-smi");
  s.period_ns = kPeriod;
  for (int i = 0; i < n; ++i) {
    s.ts_ns.push_back(ts ? ts(i) : kT0 + i * kPeriod);
    s.value.push_back(f(i));
  }
  t.counters.push_back(std::move(s));
  t.GetOrAddDevice(0);
}

void AddProcess(model::Trace& t, int32_t pid, int first_s, int last_s) {
  model::GpuProcessRow r;
  r.device_id = 0;
  r.pid = pid;
  r.first_seen_ns = kT0 + first_s * kPeriod;
  r.last_seen_ns = kT0 + last_s * kPeriod;
  t.gpu_processes.Append(r);
}

TEST(CounterPhases, SetupWithMemoryHeldThenWork) {
  model::Trace t;
  // 60 s loading (a process holds 20 GiB at 0%), then 240 s at 95%.
  Add(t, model::CounterKind::kGpuUtil, 300, [](int i) { return i < 60 ? 0.0 : 0.95; });
  Add(t, model::CounterKind::kMemUsedBytes, 300, [](int i) { return i < 5 ? 0.0 : 20 * kGiB; });
  AddProcess(t, 100, 3, 299);
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 2u);
  EXPECT_EQ(ph.phases[0].kind, PhaseKind::kSetup);
  EXPECT_EQ(ph.phases[0].observed_ns, 60 * kPeriod);
  EXPECT_EQ(ph.phases[0].loading_ns, 57 * kPeriod);  // from the process's first sighting
  EXPECT_EQ(ph.phases[0].no_process_ns, 3 * kPeriod);
  EXPECT_NEAR(ph.phases[0].loading_peak_bytes, 20 * kGiB, 1);
  EXPECT_EQ(ph.phases[1].kind, PhaseKind::kWork);
  EXPECT_EQ(ph.main_work, 1u);
  EXPECT_NEAR(ph.phases[1].util_ratio, 0.95, 1e-9);
  EXPECT_EQ(ph.observed_ns, 300 * kPeriod);
  EXPECT_TRUE(ph.holes.empty());
}

TEST(CounterPhases, SequentialProcessesAreSetupNotPause) {
  model::Trace t;
  // pid 1 works 0..99, idle with no process 100..159, pid 2 works 160..399.
  Add(t, model::CounterKind::kGpuUtil, 400, [](int i) { return i >= 100 && i < 160 ? 0.0 : 0.9; });
  AddProcess(t, 1, 0, 99);
  AddProcess(t, 2, 160, 399);
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 3u);
  EXPECT_EQ(ph.phases[1].kind, PhaseKind::kSetup);
  EXPECT_EQ(ph.phases[1].no_process_ns, 60 * kPeriod);
  EXPECT_EQ(ph.phases[0].pids, std::vector<int32_t>{1});
  EXPECT_EQ(ph.phases[2].pids, std::vector<int32_t>{2});
  EXPECT_EQ(ph.main_work, 2u);
}

TEST(CounterPhases, SameProcessIdleBetweenWorkIsAPauseAndTheEndATail) {
  model::Trace t;
  // One process: work 0..149, idle 150..199, work 200..349, idle 350..399.
  Add(t, model::CounterKind::kGpuUtil, 400,
      [](int i) { return (i >= 150 && i < 200) || i >= 350 ? 0.0 : 0.9; });
  AddProcess(t, 9, 0, 399);
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 4u);
  EXPECT_EQ(ph.phases[1].kind, PhaseKind::kPause);
  EXPECT_EQ(ph.phases[3].kind, PhaseKind::kIdleTail);
  EXPECT_EQ(ph.phases[3].idle_ns, 50 * kPeriod);
}

TEST(CounterPhases, PeriodicDipsHaveTheirPeriod) {
  model::Trace t;
  // 97% with a 2 s dip to 2% every 40 s.
  Add(t, model::CounterKind::kGpuUtil, 400,
      [](int i) { return i % 40 == 10 || i % 40 == 11 ? 0.02 : 0.97; });
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 1u);  // dips are texture, not phases
  EXPECT_EQ(ph.phases[0].kind, PhaseKind::kWork);
  EXPECT_EQ(ph.dips.size(), 10u);
  EXPECT_EQ(ph.dip_period_ns, 40 * kPeriod);
  EXPECT_EQ(ph.dips[0].dur_ns, 2 * kPeriod);
}

TEST(CounterPhases, IrregularDropsHaveNoPeriod) {
  model::Trace t;
  const int at[] = {10, 25, 90, 100, 230, 330};
  Add(t, model::CounterKind::kGpuUtil, 400, [&](int i) {
    for (int a : at)
      if (i == a) return 0.0;
    return 0.95;
  });
  CounterPhases ph = FindCounterPhases(t, 0);
  EXPECT_EQ(ph.dips.size(), 6u);
  EXPECT_FALSE(IsValid(ph.dip_period_ns));
}

TEST(CounterPhases, ShortIdleGapsAreTextureNotPhases) {
  model::Trace t;
  // 2 s idle / 2 s busy: a bursty loop, one work phase.
  Add(t, model::CounterKind::kGpuUtil, 100, [](int i) { return (i / 2) % 2 == 0 ? 0.0 : 1.0; });
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 1u);
  EXPECT_EQ(ph.phases[0].kind, PhaseKind::kWork);
  EXPECT_NEAR(ph.phases[0].util_ratio, 0.5, 1e-9);
}

TEST(CounterPhases, MonitoringHolesAreNeverBridged) {
  model::Trace t;
  // 100 samples every second, a 10-minute hole, 100 more: the hole counts as
  // neither busy nor idle, so the work is one phase at 90%.
  auto ts = [](int i) { return kT0 + i * kPeriod + (i >= 100 ? 600 * kPeriod : 0); };
  Add(
      t, model::CounterKind::kGpuUtil, 200, [](int) { return 0.9; }, ts);
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.holes.size(), 1u);
  EXPECT_EQ(ph.hole_ns, 601 * kPeriod - kMaxHoldPeriods * kPeriod);
  EXPECT_EQ(ph.observed_ns, 199 * kPeriod + kMaxHoldPeriods * kPeriod);
  ASSERT_EQ(ph.phases.size(), 1u);
  EXPECT_NEAR(ph.phases[0].util_ratio, 0.9, 1e-9);
  // The phases add up to the device's mean GPU-Util.
  EXPECT_NEAR(ph.phases[0].util_ratio, TimeWeightedMean(t.counters[0]), 1e-9);
}

TEST(CounterPhases, NothingWorkedIsOneIdlePhase) {
  model::Trace t;
  Add(t, model::CounterKind::kGpuUtil, 50, [](int i) { return i == 20 ? 0.3 : 0.0; });
  CounterPhases ph = FindCounterPhases(t, 0);
  ASSERT_EQ(ph.phases.size(), 1u);
  EXPECT_EQ(ph.phases[0].kind, PhaseKind::kIdle);
}

TEST(CounterPhases, UntimedOrTooShortHasNoPhases) {
  model::Trace t;
  Add(t, model::CounterKind::kGpuUtil, 4, [](int) { return 0.5; });
  EXPECT_TRUE(FindCounterPhases(t, 0).phases.empty());
  model::Trace u;
  Add(u, model::CounterKind::kGpuUtil, 20, [](int) { return 0.5; });
  u.counters[0].ts_are_indexes = true;
  EXPECT_TRUE(FindCounterPhases(u, 0).phases.empty());
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors::counter_phases_test
