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

TEST(CounterDetector, LowPowerWhileBusy) {
  model::Trace t;
  AddSeries(t, model::CounterKind::kGpuUtil, 30, [](int) { return 0.95; });
  AddSeries(t, model::CounterKind::kPowerMw, 30, [](int) { return 120000.0; });
  AddSeries(t, model::CounterKind::kPowerLimitMw, 30, [](int) { return 700000.0; });
  std::vector<Finding> f = Detect(t);
  const Finding* p = FindId(f, "kernel_efficiency.low_power");
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->evidence[1].value, 120.0 / 700.0, 1e-9);
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
