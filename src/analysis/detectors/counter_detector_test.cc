// Unit tests of the counter detector and the counters-only diagnosis on
// sampled series built here, each with a known answer.
#include "analysis/detectors/counter_detector.h"

#include <gtest/gtest.h>

#include <functional>

#include "analysis/detectors/diagnosis.h"

namespace gpuwhy::analysis::detectors {
namespace {

constexpr int64_t kT0 = 1700000000LL * kNsPerS;
constexpr int64_t kPeriod = 1 * kNsPerS;

// AddSeries: `n` samples every second of `f(i)` for `kind` on device 0.
void AddSeries(model::Trace& t, model::CounterKind kind, int n, const std::function<double(int)>& f) {
  model::CounterSeries s;
  s.kind = kind;
  s.unit = model::CanonicalUnit(kind);
  s.device_id = 0;
  s.source = t.strings.Intern("nvidia-smi");
  s.period_ns = kPeriod;
  for (int i = 0; i < n; ++i) {
    s.ts_ns.push_back(kT0 + i * kPeriod);
    s.value.push_back(f(i));
  }
  t.counters.push_back(std::move(s));
  t.GetOrAddDevice(0);
}

std::vector<Finding> Detect(const model::Trace& t) {
  Timeline tl = BuildTimeline(t);
  return DetectFromCounters({t, tl, kMissingI32});
}

const Finding* FindId(const std::vector<Finding>& v, std::string_view id) {
  for (const Finding& f : v)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(CounterDetector, BurstsAreIdleWithHostRecommendations) {
  model::Trace t;
  // 0% for 2 s, 100% for 2 s: half idle, samples at both ends.
  AddSeries(t, model::CounterKind::kGpuUtil, 100, [](int i) { return (i / 2) % 2 == 0 ? 0.0 : 1.0; });
  std::vector<Finding> f = Detect(t);
  const Finding* idle = FindId(f, "idle.sampled");
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(idle->lost_step_ratio, 0.5, 1e-9);
  EXPECT_FALSE(idle->per_step_basis);
  EXPECT_EQ(idle->lost_per_step_ns, 50 * kNsPerS);  // half of the 100 s span
  SampledDeviceStats st = ComputeSampledStats(t, 0);
  EXPECT_EQ(ShapeOf(st), SampledShape::kBursts);
  EXPECT_EQ(idle->recommendations.front().kind, FixKind::kFewerSyncs);
}

TEST(CounterDetector, MiddleBandRecommendsBiggerWork) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 60, [](int i) { return i % 2 == 0 ? 0.45 : 0.55; });
  std::vector<Finding> f = Detect(t);
  const Finding* idle = FindId(f, "idle.sampled");
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(idle->lost_step_ratio, 0.5, 1e-9);
  EXPECT_EQ(ShapeOf(ComputeSampledStats(t, 0)), SampledShape::kMiddleBand);
  EXPECT_EQ(idle->recommendations.front().kind, FixKind::kBiggerBatch);
}

TEST(CounterDetector, PinnedHighWithFewSmsActive) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.98; });
  AddSeries(t, model::CounterKind::kSmActive, 30, [](int) { return 0.20; });
  std::vector<Finding> f = Detect(t);
  EXPECT_EQ(FindId(f, "idle.sampled"), nullptr);  // 2% idle is under the 10% bar
  const Finding* low = FindId(f, "kernel_efficiency.low_sm_activity");
  ASSERT_NE(low, nullptr);
  EXPECT_NEAR(low->lost_step_ratio, 0.78, 1e-9);
}

// Half busy, and while busy only 40% of the SMs: both the idle and the
// SM-activity findings, which do not overlap (idle vs busy time).
TEST(CounterDetector, HalfBusyOnFewSms) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 40, [](int i) { return i % 2 == 0 ? 0.0 : 1.0; });
  AddSeries(t, model::CounterKind::kSmActive, 40, [](int) { return 0.20; });
  std::vector<Finding> f = Detect(t);
  const Finding* idle = FindId(f, "idle.sampled");
  const Finding* low = FindId(f, "kernel_efficiency.low_sm_activity");
  ASSERT_NE(idle, nullptr);
  ASSERT_NE(low, nullptr);
  EXPECT_NEAR(idle->lost_step_ratio, 0.5, 1e-9);
  EXPECT_NEAR(low->lost_step_ratio, 0.3, 1e-9);
  EXPECT_NE(low->summary.find("40% of SMs while busy"), std::string::npos) << low->summary;
}

TEST(CounterDetector, MemoryBoundFromDram) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.99; });
  AddSeries(t, model::CounterKind::kSmActive, 30, [](int) { return 0.30; });
  AddSeries(t, model::CounterKind::kDramActive, 30, [](int) { return 0.80; });
  std::vector<Finding> f = Detect(t);
  ASSERT_NE(FindId(f, "kernel_efficiency.memory_bound"), nullptr);
  EXPECT_EQ(FindId(f, "kernel_efficiency.low_sm_activity"), nullptr);
}

// Busy that is not work: 99% GPU-Util at 17% of the power limit for two
// thirds of the log, real work (80% power) for the rest. Ranked by its time.
TEST(CounterDetector, BusyNotWorkFromPower) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.99; });
  AddSeries(t, model::CounterKind::kPowerMw, 30,
            [](int i) { return i < 20 ? 120000.0 : 560000.0; });
  AddSeries(t, model::CounterKind::kPowerLimitMw, 30, [](int) { return 700000.0; });
  std::vector<Finding> f = Detect(t);
  const Finding* p = FindId(f, "kernel_efficiency.busy_not_work");
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->lost_step_ratio, 20.0 / 30.0, 1e-9);
  EXPECT_EQ(p->lost_per_step_ns, 20 * kNsPerS);
  EXPECT_NEAR(MetricOf(*p, "power_limit_ratio"), 120.0 / 700.0, 1e-9);
  EXPECT_NE(p->summary.find("17% of the limit"), std::string::npos) << p->summary;
  Diagnosis d = Diagnose({&t}, {});
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "kernel_efficiency.busy_not_work");
  // Busy, and the first cause is an efficiency one: PINNED_HIGH, not HEALTHY.
  EXPECT_EQ(d.curve_shape, "PINNED_HIGH") << d.top_line;
}

TEST(CounterDetector, BusyNotWorkFromAnIdleSmClock) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 40, [](int) { return 0.95; });
  AddSeries(t, model::CounterKind::kSmClockMhz, 40,
            [](int i) { return i % 2 == 0 ? 1980.0 : 345.0; });
  const std::vector<Finding> f = Detect(t);
  const Finding* p = FindId(f, "kernel_efficiency.busy_not_work");
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->lost_step_ratio, 0.5, 1e-9);
  EXPECT_NE(p->summary.find("SM clock idles"), std::string::npos) << p->summary;
}

TEST(CounterDetector, BusyAtHighPowerIsWork) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.97; });
  AddSeries(t, model::CounterKind::kPowerMw, 30, [](int) { return 600000.0; });
  AddSeries(t, model::CounterKind::kPowerLimitMw, 30, [](int) { return 700000.0; });
  EXPECT_EQ(FindId(Detect(t), "kernel_efficiency.busy_not_work"), nullptr);
  EXPECT_FALSE(IsBusyNotWork(0.97, 0.41, kMissingF64, kMissingF64));
  EXPECT_TRUE(IsBusyNotWork(0.90, 0.40, kMissingF64, kMissingF64));
  EXPECT_FALSE(IsBusyNotWork(0.89, 0.10, kMissingF64, kMissingF64));
  EXPECT_FALSE(IsBusyNotWork(0.99, kMissingF64, kMissingF64, kMissingF64));  // missing is not low
  // No cause: a busy counter log is HEALTHY.
  Diagnosis d = Diagnose({&t}, {});
  EXPECT_EQ(d.curve_shape, "HEALTHY") << d.top_line;
}

// Words agree with numbers: 81% of samples over 90% is never "a middle band".
TEST(CounterDetector, ShapeWordsAgreeWithTheShares) {
  model::Trace t;
  // 100 samples: 81 at 97%, 14 at 0%, 5 at 50%.
  AddSeries(t, model::CounterKind::kGpuUtil, 100, [](int i) {
    return i < 81 ? 0.97 : i < 95 ? 0.0 : 0.5;
  });
  SampledDeviceStats st = ComputeSampledStats(t, 0);
  EXPECT_EQ(ShapeOf(st), SampledShape::kMostlyBusy);
  EXPECT_EQ(std::string(ShapePhrase(ShapeOf(st))).find("middle band"), std::string::npos);
  Diagnosis d = Diagnose({&t}, {});
  EXPECT_EQ(d.top_line.find("middle band"), std::string::npos) << d.top_line;
  for (const Finding& f : d.findings)
    for (const Recommendation& r : f.recommendations)
      EXPECT_EQ(r.text.find("middle band"), std::string::npos) << f.id << ": " << r.text;
  // 10% idle, 45% busy, 45% in between: spread, not a band.
  model::Trace u;
  AddSeries(u, model::CounterKind::kGpuUtil, 100, [](int i) {
    return i < 10 ? 0.0 : i < 55 ? 0.95 : 0.5;
  });
  EXPECT_EQ(ShapeOf(ComputeSampledStats(u, 0)), SampledShape::kSpread);
}

// Phases: a set-up with memory held is one finding, named in the headline;
// the loop's own idle is reported apart from it.
TEST(CounterDiagnosis, SetupPhaseHeadsTheLog) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 400, [](int i) { return i < 100 ? 0.0 : 0.96; });
  AddSeries(t, model::CounterKind::kMemUsedBytes, 400,
            [](int) { return 12.0 * 1024 * 1024 * 1024; });
  model::GpuProcessRow r;
  r.device_id = 0;
  r.pid = 3796615;
  r.first_seen_ns = kT0;
  r.last_seen_ns = kT0 + 399 * kPeriod;
  t.gpu_processes.Append(r);
  std::vector<Finding> f = Detect(t);
  const Finding* setup = FindId(f, "phase.setup");
  ASSERT_NE(setup, nullptr);
  EXPECT_NEAR(setup->lost_step_ratio, 0.25, 1e-9);
  EXPECT_NE(setup->summary.find("loading"), std::string::npos) << setup->summary;
  EXPECT_NE(setup->summary.find("pid 3796615"), std::string::npos) << setup->summary;
  // What is left inside the work (4% idle) is under the bar: no idle.sampled.
  EXPECT_EQ(FindId(f, "idle.sampled"), nullptr);
  Diagnosis d = Diagnose({&t}, {});
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "phase.setup");
  EXPECT_NE(d.top_line.find("but set-up:"), std::string::npos) << d.top_line;
  EXPECT_NEAR(d.idle_step_ratio, 1.0 - (300 * 0.96) / 400, 1e-9);
}

TEST(CounterDiagnosis, PeriodicDipsNameTheirPeriod) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 600, [](int i) { return i % 60 == 30 ? 0.0 : 0.97; });
  const std::vector<Finding> f = Detect(t);
  const Finding* dips = FindId(f, "phase.periodic_dips");
  ASSERT_NE(dips, nullptr);
  EXPECT_DOUBLE_EQ(MetricOf(*dips, "dip_period_ns"), 60.0 * kNsPerS);
  EXPECT_NE(dips->summary.find("every ~60.0 s"), std::string::npos) << dips->summary;
}

// Processes: two that follow each other are phases of one job, not
// neighbours; two alive at once share the GPU.
TEST(CounterDiagnosis, ContentionOnlyWhenLifetimesOverlap) {
  auto make = [](int64_t second_first_s) {
    model::Trace t;
    AddSeries(t, model::CounterKind::kGpuUtil, 200, [](int) { return 0.9; });
    for (int k = 0; k < 2; ++k) {
      model::GpuProcessRow r;
      r.device_id = 0;
      r.pid = 10 + k;
      r.name = t.strings.Intern("python");
      r.first_seen_ns = kT0 + (k == 0 ? 0 : second_first_s) * kPeriod;
      r.last_seen_ns = kT0 + (k == 0 ? 99 : 199) * kPeriod;
      t.gpu_processes.Append(r);
    }
    return t;
  };
  auto has_contention = [](const model::Trace& t) {
    Diagnosis d = Diagnose({&t}, {});
    for (const Finding& f : d.findings)
      if (f.id == "contention.other_processes") return true;
    return false;
  };
  model::Trace sequential = make(100);
  EXPECT_FALSE(has_contention(sequential));
  model::Trace overlapping = make(50);
  EXPECT_TRUE(has_contention(overlapping));
}

TEST(CounterDetector, ThrottleReasonsButNotIdleBit) {
  model::Trace t;
  // 0x1 (GPU idle) is not throttling; 0x4 (SW power cap) is, in 1 of 4 samples.
  AddSeries(t, model::CounterKind::kClockEventReasons, 40, [](int i) { return i % 4 == 0 ? 4.0 : 1.0; });
  SampledDeviceStats st = ComputeSampledStats(t, 0);
  EXPECT_NEAR(st.throttle_ratio, 0.25, 1e-9);
  EXPECT_NEAR(st.reason_idle_ratio, 0.75, 1e-9);
  std::vector<Finding> f = Detect(t);
  ASSERT_NE(FindId(f, "kernel_efficiency.throttling"), nullptr);
}

TEST(CounterDetector, DevicesWithEventsAreLeftToTheTimelineDetectors) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.1; });
  model::KernelRow k;
  k.device_id = 0;
  k.start_ns = kT0;
  k.end_ns = kT0 + kNsPerMs;
  k.name = t.strings.Intern("k");
  t.kernels.Append(k);
  t.Finalize();
  EXPECT_TRUE(Detect(t).empty());
}

TEST(CounterDetector, UntimedSamplesHaveNoSpan) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 10, [](int) { return 0.3; });
  t.counters[0].ts_are_indexes = true;
  t.counters[0].period_ns = kMissingI64;
  for (size_t i = 0; i < 10; ++i) t.counters[0].ts_ns[i] = static_cast<int64_t>(i);
  SampledDeviceStats st = ComputeSampledStats(t, 0);
  EXPECT_FALSE(IsValid(st.span_ns));
  std::vector<Finding> f = Detect(t);
  const Finding* idle = FindId(f, "idle.sampled");
  ASSERT_NE(idle, nullptr);
  EXPECT_FALSE(IsValid(idle->lost_per_step_ns));  // no time base, only the share
  EXPECT_NEAR(idle->lost_step_ratio, 0.7, 1e-9);
}

TEST(CounterDiagnosis, TopLineStatesUtilPeriodAndShape) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 100, [](int i) { return (i / 2) % 2 == 0 ? 0.0 : 1.0; });
  Diagnosis d = Diagnose({&t}, {});
  EXPECT_NE(d.top_line.find("GPU-Util averages 50%"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("one sample every 1 s"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("bursts"), std::string::npos) << d.top_line;
  EXPECT_NEAR(d.idle_step_ratio, 0.5, 1e-9);
  EXPECT_FALSE(d.per_step_basis);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "idle.sampled");
  // 1 s samples: the caveat says jumps and wobble cannot be told apart.
  bool caveat = false;
  for (const std::string& c : d.caveats)
    caveat = caveat || c.find("jumps cannot be told from wobble") != std::string::npos;
  EXPECT_TRUE(caveat);
}

TEST(CounterDiagnosis, NoUtilSaysSo) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kPowerMw, 10, [](int) { return 70000.0; });
  Diagnosis d = Diagnose({&t}, {});
  EXPECT_NE(d.top_line.find("No GPU-Util"), std::string::npos) << d.top_line;
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors

namespace gpuwhy::analysis::detectors {
namespace {

// AddDeviceSeries: `n` samples every second of `f(i)` for `kind` on `dev`.
void AddDeviceSeries(model::Trace& t, int32_t dev, model::CounterKind kind, int n,
                     const std::function<double(int)>& f) {
  model::CounterSeries s;
  s.kind = kind;
  s.unit = model::CanonicalUnit(kind);
  s.device_id = dev;
  s.source = t.strings.Intern("nvidia-smi");
  s.period_ns = kPeriod;
  for (int i = 0; i < n; ++i) {
    s.ts_ns.push_back(kT0 + i * kPeriod);
    s.value.push_back(f(i));
  }
  t.counters.push_back(std::move(s));
  t.GetOrAddDevice(dev);
}

TEST(NodeVerdicts, UnusedGpuBesideAWorkingOne) {
  model::Trace t;
  AddDeviceSeries(t, 0, model::CounterKind::kGpuUtil, 100, [](int i) { return i % 10 == 0 ? 0.5 : 0.95; });
  AddDeviceSeries(t, 1, model::CounterKind::kGpuUtil, 100, [](int) { return 0.0; });
  AddDeviceSeries(t, 1, model::CounterKind::kMemUsedBytes, 100, [](int) { return 4.0 * 1024 * 1024; });
  std::vector<Finding> f = Detect(t);
  const Finding* u = FindId(f, "idle.unused_gpu");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->device_id, 1);
  EXPECT_DOUBLE_EQ(u->lost_step_ratio, 0.5);
  EXPECT_NE(u->summary.find("GPU 1"), std::string::npos) << u->summary;
  // The unused GPU is reported once, not also as idle.sampled.
  for (const Finding& x : f) {
    if (x.id == "idle.sampled") {
      EXPECT_NE(x.device_id, 1);
    }
  }
  Diagnosis dx = Diagnose({&t}, {});
  EXPECT_EQ(dx.findings.front().id, "idle.unused_gpu");
  EXPECT_EQ(dx.scenario, Scenario::kMulti);
  // The headline covers the node and shows the unused GPU's own class.
  EXPECT_NE(dx.top_line.find("2 GPUs"), std::string::npos) << dx.top_line;
  EXPECT_EQ(dx.top_line.rfind("[IDLE]", 0), 0u) << dx.top_line;
}

TEST(NodeVerdicts, AllIdleIsNotUnusedAndAProcessMeansUsed) {
  model::Trace t;
  AddDeviceSeries(t, 0, model::CounterKind::kGpuUtil, 50, [](int) { return 0.0; });
  AddDeviceSeries(t, 1, model::CounterKind::kGpuUtil, 50, [](int) { return 0.0; });
  EXPECT_EQ(FindId(Detect(t), "idle.unused_gpu"), nullptr);
  model::Trace p;
  AddDeviceSeries(p, 0, model::CounterKind::kGpuUtil, 50, [](int) { return 0.9; });
  AddDeviceSeries(p, 1, model::CounterKind::kGpuUtil, 50, [](int) { return 0.0; });
  model::GpuProcessRow r;
  r.device_id = 1;
  r.pid = 7;
  p.gpu_processes.Append(r);
  EXPECT_EQ(FindId(Detect(p), "idle.unused_gpu"), nullptr);
}

// One GPU low while the others are pinned busy at low power: a straggler
// the others wait for, named; the waiting GPUs get no finding of their own.
TEST(NodeVerdicts, StragglerTheOthersWaitFor) {
  model::Trace t;
  for (int d = 0; d < 8; ++d) {
    const bool slow = d == 5;
    AddDeviceSeries(t, d, model::CounterKind::kGpuUtil, 60,
                    [slow](int) { return slow ? 0.55 : 0.99; });
    AddDeviceSeries(t, d, model::CounterKind::kPowerMw, 60,
                    [slow](int) { return slow ? 420000.0 : 150000.0; });
    AddDeviceSeries(t, d, model::CounterKind::kPowerLimitMw, 60, [](int) { return 700000.0; });
  }
  std::vector<Finding> f = Detect(t);
  const Finding* s = FindId(f, "imbalance.straggler");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->device_id, 5);
  EXPECT_NEAR(s->lost_step_ratio, 7.0 / 8.0, 1e-9);
  EXPECT_NE(s->summary.find("GPU 5 straggles"), std::string::npos) << s->summary;
  EXPECT_EQ(FindId(f, "kernel_efficiency.busy_not_work"), nullptr);
  EXPECT_EQ(FindId(f, "imbalance.node_gpus"), nullptr);
  Diagnosis dx = Diagnose({&t}, {});
  EXPECT_EQ(dx.findings.front().id, "imbalance.straggler");
  EXPECT_EQ(dx.scenario, Scenario::kMulti);
  EXPECT_NE(dx.top_line.find("8 GPUs"), std::string::npos) << dx.top_line;
  EXPECT_NE(dx.top_line.find("GPU 5 straggles"), std::string::npos) << dx.top_line;
  // All at low power and none low: busy that is not work on each, no straggler.
  model::Trace all;
  for (int d = 0; d < 4; ++d) {
    AddDeviceSeries(all, d, model::CounterKind::kGpuUtil, 60, [](int) { return 0.99; });
    AddDeviceSeries(all, d, model::CounterKind::kPowerMw, 60, [](int) { return 150000.0; });
    AddDeviceSeries(all, d, model::CounterKind::kPowerLimitMw, 60, [](int) { return 700000.0; });
  }
  std::vector<Finding> g = Detect(all);
  EXPECT_EQ(FindId(g, "imbalance.straggler"), nullptr);
  EXPECT_NE(FindId(g, "kernel_efficiency.busy_not_work"), nullptr);
}

TEST(NodeVerdicts, ImbalanceAcrossWorkingGpus) {
  model::Trace t;
  const double u[4] = {0.93, 0.90, 0.35, 0.92};
  for (int d = 0; d < 4; ++d)
    AddDeviceSeries(t, d, model::CounterKind::kGpuUtil, 60, [&, d](int) { return u[d]; });
  std::vector<Finding> f = Detect(t);
  const Finding* im = FindId(f, "imbalance.node_gpus");
  ASSERT_NE(im, nullptr);
  EXPECT_EQ(im->device_id, 2);
  // (0 + 0.03 + 0.58 + 0.01) / 4
  EXPECT_NEAR(im->lost_step_ratio, 0.155, 1e-9);
  Diagnosis dx = Diagnose({&t}, {});
  EXPECT_EQ(dx.scenario, Scenario::kMulti);
  EXPECT_NE(dx.top_line.find("4 GPUs"), std::string::npos) << dx.top_line;
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
