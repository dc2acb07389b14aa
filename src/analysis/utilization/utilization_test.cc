#include "analysis/utilization/utilization.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

// TimelineBuilder: synthetic traces with a known ground truth.
class TimelineBuilder {
 public:
  TimelineBuilder() {
    model::Device& d = trace_.GetOrAddDevice(0);
    d.sm_count = 132;
    d.cc_major = 9;
    d.cc_minor = 0;
  }
  // Kernel(s) back to back: `count` kernels of `dur` with `gap` between.
  int64_t Kernels(int64_t t, int count, int64_t dur, int64_t gap, float bpsm,
                  const char* name = "sm90_xmma_gemm_bf16") {
    for (int i = 0; i < count; ++i) {
      model::KernelRow k;
      k.device_id = 0;
      k.stream_id = 7;
      k.start_ns = t;
      k.end_ns = t + dur;
      k.name = trace_.strings.Intern(name);
      k.blocks_per_sm = bpsm;
      k.est_occupancy_pct = 50.0f;
      trace_.kernels.Append(k);
      t += dur + gap;
    }
    return t;
  }
  void Step(int32_t n, int64_t s, int64_t e) {
    model::RangeRow r;
    r.start_ns = s;
    r.end_ns = e;
    r.step = n;
    r.kind = model::RangeKind::kUserAnnotation;
    r.name = trace_.strings.Intern("ProfilerStep#");
    trace_.ranges.Append(r);
  }
  model::Trace& trace() { return trace_; }
  model::Trace Done() {
    trace_.Finalize();
    return std::move(trace_);
  }

 private:
  model::Trace trace_;
};

const UtilSeries* FindSeries(const DeviceUtilization& d, const std::string& label) {
  for (const UtilSeries& s : d.series) {
    if (s.label == label) return &s;
  }
  return nullptr;
}

// Data-loader stall: each 100 ms step is 40 ms of back-to-back kernels then
// 60 ms idle. Truth: surface 0.4, JUMPS at 10 ms, a flat ~40% at 1/6 s.
TEST(UtilizationTest, JumpsAtFinePeriodFlatAtNvmlPeriod) {
  TimelineBuilder b;
  const int64_t step = 100 * kNsPerMs;
  for (int i = 0; i < 30; ++i) {
    b.Step(i, i * step, (i + 1) * step);
    b.Kernels(i * step + 60 * kNsPerMs, 40, kNsPerMs, 0, 2.0f);
  }
  model::Trace t = b.Done();
  UtilizationResult r = AnalyzeUtilization(t);
  EXPECT_EQ(r.steps.source, StepSource::kProfilerStep);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUtilization& d = r.devices[0];
  // Window = first to last kernel: 29 idle gaps of 60 ms inside it.
  const double busy = 30 * 40.0, window = 29 * 100.0 + 40.0;
  EXPECT_NEAR(d.surface_ratio.value, busy / window, 1e-9);
  EXPECT_NEAR(d.sm_fill_ratio.value, busy / window, 1e-9);  // 2 blocks/SM fill every SM
  EXPECT_NEAR(d.gap_pp, 0.0, 1e-6);
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kJumps);
  EXPECT_NEAR(d.gaps.long_gap_idle_share, 1.0, 1e-9);
  EXPECT_NEAR(d.gaps.long_gap_ns_per_step, 29 * 60e6 / 30, 1.0);
  const UtilSeries* fine = FindSeries(d, "fine");
  ASSERT_NE(fine, nullptr);
  EXPECT_LE(fine->period_ns, 10 * kNsPerMs);
  const UtilSeries* nvml = FindSeries(d, "nvml_1/6s");
  ASSERT_NE(nvml, nullptr);
  EXPECT_EQ(nvml->period_ns, kNsPerS / 6);
  EXPECT_TRUE(d.nvml_verdict.aliased);
  EXPECT_NE(d.nvml_verdict.curve_class, CurveClass::kJumps);
  EXPECT_FALSE(d.aliasing_note.empty());
  const UtilSeries* steps = FindSeries(d, "step");
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->util_ratio.size(), 30u);
  EXPECT_NEAR(steps->util_ratio[5], 0.4, 1e-9);
}

// Fine-grained launch gaps: 0.6 ms kernels with 0.4 ms gaps, no long gaps.
TEST(UtilizationTest, FineGapsAreWobble) {
  TimelineBuilder b;
  b.Kernels(0, 3000, 600 * kNsPerUs, 400 * kNsPerUs, 2.0f);
  model::Trace t = b.Done();
  UtilizationResult r = AnalyzeUtilization(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUtilization& d = r.devices[0];
  EXPECT_NEAR(d.surface_ratio.value, 0.6, 0.001);
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kWobble);
  EXPECT_NEAR(d.gaps.long_gap_idle_share, 0.0, 1e-12);
}

// Always a kernel, but one tiny block per 10 SMs: NVML reads 100%.
TEST(UtilizationTest, TinyGridsArePinnedHighBigGridsHealthy) {
  TimelineBuilder b;
  b.Kernels(0, 2000, kNsPerMs, 0, 0.1f);
  model::Trace t = b.Done();
  const DeviceUtilization d = AnalyzeUtilization(t).devices.at(0);
  EXPECT_NEAR(d.surface_ratio.value, 1.0, 1e-12);
  EXPECT_NEAR(d.real_ratio.value, 0.1, 1e-6);
  EXPECT_NEAR(d.gap_pp, 90.0, 1e-4);
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kPinnedHigh);
  EXPECT_NE(d.real_ratio.source.find("trace: launch config"), std::string::npos);

  TimelineBuilder b2;
  b2.Kernels(0, 2000, kNsPerMs, 0, 8.0f);
  model::Trace t2 = b2.Done();
  EXPECT_EQ(AnalyzeUtilization(t2).devices.at(0).verdict.curve_class, CurveClass::kHealthy);
}

// Benchmark shape: a 300 ms input upload, 200 ms of back-to-back kernels, a
// 300 ms copy-back. The window (first to last GPU op) keeps the copies for the
// surface figure; the class describes the loop (the uploads do not recur in
// it): set-up and teardown are one-off phases beside it (run_phases.h).
TEST(UtilizationTest, CopyOnlyHeadAndTailDoNotShapeTheCurve) {
  auto build = [](float bpsm) {
    TimelineBuilder b;
    auto copy = [&b](int64_t s, int64_t e) {
      model::MemcpyRow m;
      m.device_id = 0;
      m.stream_id = 7;
      m.start_ns = s;
      m.end_ns = e;
      b.trace().memcpys.Append(m);
    };
    copy(0, 300 * kNsPerMs);
    b.Kernels(300 * kNsPerMs, 20, 10 * kNsPerMs, 0, bpsm);
    copy(500 * kNsPerMs, 800 * kNsPerMs);
    return b.Done();
  };
  model::Trace big = build(8.0f);
  const DeviceUtilization d = AnalyzeUtilization(big).devices.at(0);
  EXPECT_NEAR(d.surface_ratio.value, 0.25, 1e-9);  // the surface figure keeps the copies
  EXPECT_NEAR(d.real_ratio.value, 0.25, 1e-9);
  EXPECT_EQ(d.verdict_window, "loop");
  EXPECT_EQ(d.setup_ns, 300 * kNsPerMs);
  EXPECT_EQ(d.teardown_ns, 300 * kNsPerMs);
  EXPECT_EQ(d.verdict.features.sample_count, 20);
  EXPECT_NEAR(d.verdict.features.mean_ratio, 1.0, 1e-9);
  EXPECT_NEAR(d.verdict.features.real_util_ratio, 1.0, 1e-9);
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kHealthy);
  // The loop is the kernel-active window: nothing to say beside it.
  EXPECT_TRUE(d.window_note.empty()) << d.window_note;
  const UtilSeries* fine = FindSeries(d, "fine");
  ASSERT_NE(fine, nullptr);
  EXPECT_EQ(fine->util_ratio.size(), 80u);

  model::Trace tiny = build(0.1f);
  const DeviceUtilization d2 = AnalyzeUtilization(tiny).devices.at(0);
  EXPECT_EQ(d2.verdict.curve_class, CurveClass::kPinnedHigh);
  EXPECT_NEAR(d2.verdict.features.real_util_ratio, 0.1, 1e-6);
}

// A 3 ms burst of kernels between 2 s of copies: the GPU is idle over the
// captured window, and the kernel-active window is too short to say otherwise.
TEST(UtilizationTest, ShortBurstInALongCopyOnlyCaptureIsIdle) {
  TimelineBuilder b;
  for (int64_t s : {int64_t{0}, 1003 * kNsPerMs}) {
    model::MemcpyRow m;
    m.device_id = 0;
    m.stream_id = 7;
    m.start_ns = s;
    m.end_ns = s + 1000 * kNsPerMs;
    b.trace().memcpys.Append(m);
  }
  b.Kernels(1000 * kNsPerMs, 3, kNsPerMs, 0, 8.0f);
  model::Trace t = b.Done();
  const DeviceUtilization d = AnalyzeUtilization(t).devices.at(0);
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kIdle);
  EXPECT_EQ(d.verdict.features.sample_count, 201);
  EXPECT_NE(d.verdict.reason.find("over the GPU-op span"), std::string::npos) << d.verdict.reason;
  EXPECT_TRUE(d.window_note.empty()) << d.window_note;
}

TEST(UtilizationTest, SparseKernelsAreIdle) {
  TimelineBuilder b;
  for (int i = 0; i < 20; ++i) b.Kernels(i * 100 * kNsPerMs, 1, 100 * kNsPerUs, 0, 1.0f);
  model::Trace t = b.Done();
  EXPECT_EQ(AnalyzeUtilization(t).devices.at(0).verdict.curve_class, CurveClass::kIdle);
}

TEST(UtilizationTest, OccupancyComputedFromLaunchConfigWhenArgMissing) {
  TimelineBuilder b;
  model::KernelRow k;
  k.device_id = 0;
  k.start_ns = 0;
  k.end_ns = kNsPerMs;
  k.name = b.trace().strings.Intern("void at::native::vectorized_elementwise_kernel<4>");
  k.grid_x = 132 * 8;  // 8 blocks per SM wanted, 4 fit (register-limited)
  k.grid_y = 1;
  k.grid_z = 1;
  k.block_x = 256;
  k.block_y = 1;
  k.block_z = 1;
  k.registers_per_thread = 64;
  k.shared_mem_bytes = 0;
  b.trace().kernels.Append(k);
  model::Trace t = b.Done();
  const DeviceUtilization d = AnalyzeUtilization(t).devices.at(0);
  EXPECT_DOUBLE_EQ(d.occupancy_ratio.value, 0.5);
  EXPECT_NE(d.occupancy_ratio.source.find("calculator"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.sm_fill_ratio.value, 1.0);  // 8 blocks/SM from grid / SM count
  EXPECT_NE(d.sm_fill_ratio.source.find("grid / SM count"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.class_share[static_cast<size_t>(KernelClass::kElementwise)], 1.0);
  EXPECT_DOUBLE_EQ(d.tensor_core_share.value, 0.0);
}

TEST(UtilizationTest, CounterOnlyInputUsesTheSeriesAndItsPeriod) {
  model::Trace t;
  model::CounterSeries util;
  util.kind = model::CounterKind::kGpuUtil;
  util.device_id = 0;
  util.source = t.strings.Intern("nvidia-smi");
  model::CounterSeries sm = util;
  sm.kind = model::CounterKind::kSmActive;
  sm.source = t.strings.Intern("DCGM");
  for (int i = 0; i < 30; ++i) {
    util.ts_ns.push_back(i * kNsPerS);
    util.value.push_back(1.0);
    sm.ts_ns.push_back(i * kNsPerS);
    sm.value.push_back(0.2);
  }
  t.counters.push_back(util);
  t.counters.push_back(sm);
  t.Finalize();
  UtilizationResult r = AnalyzeUtilization(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUtilization& d = r.devices[0];
  EXPECT_EQ(d.surface_ratio.source, "counter: nvidia-smi");
  EXPECT_DOUBLE_EQ(d.surface_ratio.value, 1.0);
  EXPECT_EQ(d.real_ratio.source, "counter: DCGM");
  EXPECT_DOUBLE_EQ(d.real_ratio.value, 0.2);
  ASSERT_EQ(d.series.size(), 1u);
  EXPECT_EQ(d.series[0].period_ns, kNsPerS);  // measured from the timestamps
  EXPECT_EQ(d.verdict.curve_class, CurveClass::kPinnedHigh);
}

// A counter log with graphics-engine activity (DCGM GRACT) and no SM
// activity: the real figure is GRACT, labelled as what it is, with no gap to
// GPU-Util and no input to the curve class; SMACT, when present, wins.
TEST(UtilizationTest, GrEngineActivityIsLabelledNeverSmActivity) {
  auto make = [](bool with_sm) {
    model::Trace t;
    model::CounterSeries util;
    util.kind = model::CounterKind::kGpuUtil;
    util.device_id = 0;
    util.source = t.strings.Intern("dcgm");
    model::CounterSeries gr = util;
    gr.kind = model::CounterKind::kGrEngineActive;
    model::CounterSeries sm = util;
    sm.kind = model::CounterKind::kSmActive;
    for (int i = 0; i < 30; ++i) {
      for (model::CounterSeries* s : {&util, &gr, &sm}) s->ts_ns.push_back(i * kNsPerS);
      util.value.push_back(1.0);
      gr.value.push_back(0.9);
      sm.value.push_back(0.2);
    }
    t.counters.push_back(util);
    t.counters.push_back(gr);
    if (with_sm) t.counters.push_back(sm);
    t.Finalize();
    return AnalyzeUtilization(t).devices.at(0);
  };
  const DeviceUtilization g = make(false);
  EXPECT_TRUE(RealIsGrEngineActivity(g));
  EXPECT_DOUBLE_EQ(g.real_ratio.value, 0.9);
  EXPECT_EQ(g.real_ratio.source.rfind(kGrEngineRealSource, 0), 0u) << g.real_ratio.source;
  EXPECT_NE(g.real_ratio.source.find("counter: dcgm"), std::string::npos);
  EXPECT_FALSE(IsValid(g.gap_pp));
  EXPECT_FALSE(IsValid(g.counter_sm_active.value));
  const DeviceUtilization s = make(true);
  EXPECT_FALSE(RealIsGrEngineActivity(s));
  EXPECT_DOUBLE_EQ(s.real_ratio.value, 0.2);
  EXPECT_NEAR(s.gap_pp, 80.0, 1e-9);
}

}  // namespace
}  // namespace gpuwhy::analysis

namespace gpuwhy::analysis {
namespace {

// A 6 ms micro-benchmark (big-grid kernels, 1 µs gaps): the fine series
// shrinks its bins so the capture still classifies, instead of one 10 ms
// sample reading INSUFFICIENT_DATA.
TEST(Utilization, ShortCaptureGetsFinerBins) {
  TimelineBuilder b;
  b.Kernels(1000 * kNsPerMs, 200, 30 * kNsPerUs, 1 * kNsPerUs, 4.0f);
  model::Trace t = b.Done();
  UtilizationResult r = AnalyzeUtilization(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const UtilSeries* fine = FindSeries(r.devices[0], "fine");
  ASSERT_NE(fine, nullptr);
  EXPECT_LT(fine->period_ns, 10 * kNsPerMs);
  EXPECT_GE(fine->period_ns, 100 * kNsPerUs);
  EXPECT_GE(fine->util_ratio.size(), 20u);
  EXPECT_EQ(r.devices[0].verdict.curve_class, CurveClass::kHealthy);
}

// One kernel with a bogus timestamp decades before the others (an epoch-clock
// trace and a kernel at 0): the series stay bounded. The fine period grows;
// the NVML-period series, whose period cannot, are left out past
// max_nvml_samples (their verdict then stays empty), and kept below it.
TEST(Utilization, DecadesOfWindowKeepTheSeriesBounded) {
  constexpr int64_t kEpochNs = int64_t{1'733'000'000} * kNsPerS;  // December 2024
  TimelineBuilder b;
  b.Kernels(0, 1, 5 * kNsPerUs, 0, 2.0f);
  b.Kernels(kEpochNs, 100, kNsPerMs, kNsPerMs, 2.0f);
  model::Trace t = b.Done();
  const UtilizationOptions o;
  UtilizationResult r = AnalyzeUtilization(t, o);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUtilization& d = r.devices[0];
  EXPECT_EQ(FindSeries(d, "nvml_1/6s"), nullptr);
  EXPECT_EQ(FindSeries(d, "nvml_1s"), nullptr);
  EXPECT_EQ(d.nvml_verdict.curve_class, CurveClass::kInsufficientData);
  for (const UtilSeries& s : d.series) EXPECT_LE(s.util_ratio.size(), o.max_bins) << s.label;
  // Below the bound both are built: 2^22 samples at 1 s is 48.5 days, at
  // 1/6 s 8.1 days; a 30-day window keeps only the 1 s series.
  TimelineBuilder b2;
  b2.Kernels(0, 1, 5 * kNsPerUs, 0, 2.0f);
  b2.Kernels(30 * 24 * 3600 * kNsPerS, 10, kNsPerMs, kNsPerMs, 2.0f);
  model::Trace t2 = b2.Done();
  r = AnalyzeUtilization(t2, o);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(FindSeries(r.devices[0], "nvml_1/6s"), nullptr);
  const UtilSeries* slow = FindSeries(r.devices[0], "nvml_1s");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->util_ratio.size(), size_t{30 * 24 * 3600 + 1});
}

}  // namespace
}  // namespace gpuwhy::analysis
