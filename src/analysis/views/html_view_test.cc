// Unit tests of the HTML report's derived series: envelopes, per-bin coverage,
// the idle-by-cause curve and per-step breakdown (they must add up to the
// timeline's own totals), the kernel-duration histogram and rank statistics.
#include "analysis/views/html_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace gpuwhy::analysis::views {
namespace {

constexpr int64_t kUs = kNsPerUs;

TEST(HtmlView, ReduceRegularKeepsShortSeriesAndEnvelopesLongOnes) {
  Envelope a = ReduceRegular(1000, 10, {0.1, 0.5, 0.9}, 10);
  EXPECT_FALSE(a.reduced);
  EXPECT_EQ(a.bin_ns, 10);
  ASSERT_EQ(a.mean.size(), 3u);
  EXPECT_DOUBLE_EQ(a.min[1], 0.5);

  std::vector<double> v(10'000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 2 == 0) ? 0.0 : 1.0;
  v[5] = std::nan("");
  Envelope b = ReduceRegular(0, 1, v, 100);
  EXPECT_TRUE(b.reduced);
  EXPECT_EQ(b.mean.size(), 100u);
  EXPECT_EQ(b.bin_ns, 100);
  EXPECT_DOUBLE_EQ(b.min[0], 0.0);
  EXPECT_DOUBLE_EQ(b.max[0], 1.0);  // the spikes survive the reduction
  EXPECT_NEAR(b.mean[1], 0.5, 1e-12);
}

TEST(HtmlView, ReduceSamplesBinsByTime) {
  std::vector<int64_t> ts;
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) {
    ts.push_back(i * 1000);
    v.push_back(i < 500 ? 0.2 : 0.8);
  }
  Envelope e = ReduceSamples(ts, v, 10);
  EXPECT_TRUE(e.reduced);
  EXPECT_LE(e.mean.size(), 11u);
  EXPECT_NEAR(e.mean.front(), 0.2, 1e-9);
  EXPECT_NEAR(e.mean.back(), 0.8, 1e-9);
  Envelope f = ReduceSamples({0, 100, 200}, {1, 2, 3}, 10);
  EXPECT_FALSE(f.reduced);
  ASSERT_EQ(f.mean.size(), 3u);
  EXPECT_DOUBLE_EQ(f.mean[2], 3);
}

TEST(HtmlView, CoverageByBinSplitsIntervalsAcrossBins) {
  detectors::IntervalList l = {{5, 15}, {25, 26}, {40, 100}};
  std::vector<int64_t> c = CoverageByBin(l, {0, 10, 20, 30, 50});
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], 5);
  EXPECT_EQ(c[1], 5);
  EXPECT_EQ(c[2], 1);
  EXPECT_EQ(c[3], 10);
}

// Two marked steps with kernels and a host-wait gap in each.
model::Trace TwoSteps() {
  model::Trace t;
  int64_t corr = 1;
  auto step = [&](int32_t n, int64_t s, int64_t e) {
    model::RangeRow r;
    r.pid = 1;
    r.tid = 1;
    r.start_ns = s;
    r.end_ns = e;
    r.step = n;
    r.kind = model::RangeKind::kUserAnnotation;
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(n));
    t.ranges.Append(r);
  };
  auto kernel = [&](int64_t launch, int64_t s, int64_t e) {
    model::ApiRow a;
    a.pid = 1;
    a.tid = 1;
    a.start_ns = launch;
    a.end_ns = launch + 2 * kUs;
    a.cbid = 211;
    a.name = t.strings.Intern("cudaLaunchKernel");
    a.correlation_id = corr;
    t.api_calls.Append(a);
    model::KernelRow k;
    k.device_id = 0;
    k.stream_id = 7;
    k.start_ns = s;
    k.end_ns = e;
    k.correlation_id = corr++;
    k.name = t.strings.Intern("volta_sgemm");
    t.kernels.Append(k);
  };
  step(1, 0, 1000 * kUs);
  step(2, 1000 * kUs, 2000 * kUs);
  kernel(0, 1 * kUs, 300 * kUs);
  kernel(600 * kUs, 700 * kUs, 1000 * kUs);
  kernel(1000 * kUs, 1001 * kUs, 1300 * kUs);
  kernel(1600 * kUs, 1700 * kUs, 2000 * kUs);
  t.Finalize();
  return t;
}

TEST(HtmlView, CurveAndStepsAddUpToTheTimeline) {
  model::Trace t = TwoSteps();
  detectors::Timeline tl = detectors::BuildTimeline(t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const detectors::DeviceTimeline& d = tl.devices[0];
  DeviceView v = BuildDeviceView(t, 0, &d, nullptr, 100, HtmlViewOptions{});
  ASSERT_TRUE(v.has_events);
  ASSERT_EQ(v.steps.size(), 2u);
  EXPECT_EQ(v.step_starts_ns.size(), 2u);
  int64_t idle_steps = 0;
  for (const StepBreakdown& s : v.steps) {
    int64_t idle = std::accumulate(s.idle_ns.begin(), s.idle_ns.end(), int64_t{0});
    idle_steps += idle;
    EXPECT_EQ(s.compute_ns + s.comm_ns + s.copy_ns + idle, s.dur_ns) << "step " << s.step;
  }
  EXPECT_EQ(idle_steps, d.idle_ns);
  // Curve: every bin fills to 1 (the bins lie inside the windows), and the
  // idle area per cause equals the timeline's total for that cause.
  const CauseCurve& c = v.curve;
  ASSERT_FALSE(c.compute_ratio.empty());
  std::array<double, detectors::kIdleCauseCount> idle_area{};
  for (size_t i = 0; i < c.compute_ratio.size(); ++i) {
    double sum = c.compute_ratio[i] + c.comm_ratio[i] + c.copy_ratio[i];
    for (size_t k = 0; k < detectors::kIdleCauseCount; ++k) {
      sum += c.idle_ratio[k][i];
      idle_area[k] += c.idle_ratio[k][i] * static_cast<double>(c.bin_ns);
    }
    EXPECT_NEAR(sum, 1.0, 1e-9) << "bin " << i;
  }
  for (size_t k = 0; k < detectors::kIdleCauseCount; ++k)
    EXPECT_NEAR(idle_area[k], static_cast<double>(d.idle_by_cause[k]), 1.0);
}

TEST(HtmlView, KernelHistogramCountsEveryKernel) {
  model::Trace t = TwoSteps();
  Histogram h = KernelDurationHistogram(t, 0);
  ASSERT_FALSE(h.count.empty());
  EXPECT_EQ(std::accumulate(h.count.begin(), h.count.end(), int64_t{0}), 4);
  EXPECT_EQ(std::accumulate(h.total_ns.begin(), h.total_ns.end(), int64_t{0}),
            1198 * kUs);  // 299 + 300 + 299 + 300 µs
  EXPECT_EQ(h.edges_ns.size(), h.count.size());
  EXPECT_TRUE(KernelDurationHistogram(t, 3).count.empty());
}

TEST(HtmlView, CountersAreChartedWithTheirUnitsAndTimedness) {
  model::Trace t = TwoSteps();
  auto series = [&](model::CounterKind kind, model::CounterUnit unit, bool untimed) {
    model::CounterSeries c;
    c.kind = kind;
    c.unit = unit;
    c.device_id = 0;
    c.ts_are_indexes = untimed;
    for (int i = 0; i < 10; ++i) {
      c.ts_ns.push_back(untimed ? i : i * 100 * kUs);
      c.value.push_back(untimed ? 0.5 : 1000.0 * i);
    }
    t.counters.push_back(c);
  };
  series(model::CounterKind::kPowerMw, model::CounterUnit::kMilliwatt, false);
  series(model::CounterKind::kGpuUtil, model::CounterUnit::kRatio, true);
  series(model::CounterKind::kTemperatureC, model::CounterUnit::kCelsius, false);  // not drawn
  detectors::Timeline tl = detectors::BuildTimeline(t);
  DeviceView v = BuildDeviceView(t, 0, &tl.devices[0], nullptr, 50, HtmlViewOptions{});
  ASSERT_EQ(v.counters.size(), 2u);
  EXPECT_EQ(v.counters[0].label, "power");
  EXPECT_EQ(v.counters[0].unit, "mW");
  EXPECT_FALSE(v.counters[0].untimed);
  EXPECT_DOUBLE_EQ(v.counters[0].max.back(), 9000.0);
  EXPECT_EQ(v.counters[1].label, "gpu_util");
  EXPECT_TRUE(v.counters[1].untimed);
  EXPECT_EQ(v.counters[1].mean.size(), 10u);
}

TEST(HtmlView, BuildHtmlViewGivesRankStatsForARankSet) {
  std::vector<model::Trace> traces;
  traces.push_back(TwoSteps());
  traces.push_back(TwoSteps());
  Analysis a = AnalyzeTraces(traces, AnalysisOptions{});
  HtmlView v = BuildHtmlView(traces, a);
  ASSERT_EQ(v.traces.size(), 2u);
  ASSERT_EQ(v.ranks.size(), 2u);
  EXPECT_EQ(v.ranks[1].rank, 1);
  EXPECT_EQ(v.ranks[0].step_count, 2);
  EXPECT_NEAR(v.ranks[0].mean_step_ns, 1000.0 * kUs, 1.0);
  ASSERT_FALSE(v.traces[0].devices.empty());
  EXPECT_FALSE(v.traces[0].devices[0].utilization.empty());
  // One trace: no rank section.
  std::vector<model::Trace> one;
  one.push_back(TwoSteps());
  Analysis b = AnalyzeTraces(one, AnalysisOptions{});
  EXPECT_TRUE(BuildHtmlView(one, b).ranks.empty());
}

}  // namespace
}  // namespace gpuwhy::analysis::views
