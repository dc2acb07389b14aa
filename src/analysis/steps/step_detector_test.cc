#include "analysis/steps/step_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuwhy::analysis {
namespace {

void AddKernel(model::Trace& t, const char* name, int64_t start, int64_t end, int32_t dev = 0) {
  model::KernelRow k;
  k.device_id = dev;
  k.stream_id = 7;
  k.start_ns = start;
  k.end_ns = end;
  k.name = t.strings.Intern(name);
  t.kernels.Append(k);
}

void AddRange(model::Trace& t, const char* name, int64_t start, int64_t end, model::RangeKind kind,
              int32_t step = kMissingI32) {
  model::RangeRow r;
  r.pid = 1;
  r.tid = 1;
  r.start_ns = start;
  r.end_ns = end;
  r.name = t.strings.Intern(name);
  r.kind = kind;
  r.step = step;
  t.ranges.Append(r);
}

TEST(StepDetectorTest, ProfilerStepsWinAndGpuProjectionsAreIgnored) {
  model::Trace t;
  const int64_t d[] = {100, 110, 90, 300};
  int64_t ts = 0;
  for (int i = 0; i < 4; ++i) {
    AddRange(t, "ProfilerStep#", ts, ts + d[i], model::RangeKind::kUserAnnotation, 10 + i);
    AddRange(t, "ProfilerStep#", ts + 5, ts + d[i] + 5, model::RangeKind::kGpuUserAnnotation,
             10 + i);
    ts += d[i];
  }
  AddRange(t, "train_step", 0, 50, model::RangeKind::kNvtx);
  t.Finalize();
  StepResult r = FindSteps(t);
  EXPECT_EQ(r.source, StepSource::kProfilerStep);
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_EQ(r.steps[0].number, 10);
  EXPECT_EQ(r.steps[3].end_ns, 600);
  EXPECT_DOUBLE_EQ(r.stats.mean_ns, 150.0);
  EXPECT_DOUBLE_EQ(r.stats.p50_ns, 105.0);
  EXPECT_GT(r.stats.p95_over_p50, 2.0);
  EXPECT_GT(r.stats.jitter_ratio, 0.5);
}

TEST(StepDetectorTest, NvtxStepMarkersWhenNoProfilerSteps) {
  model::Trace t;
  for (int i = 0; i < 5; ++i) {
    AddRange(t, "forward", i * 1000, i * 1000 + 400, model::RangeKind::kNvtx);
    AddRange(t, "train_step", i * 1000, i * 1000 + 900, model::RangeKind::kNvtx);
  }
  t.Finalize();
  StepResult r = FindSteps(t);
  EXPECT_EQ(r.source, StepSource::kMarkerRange);
  EXPECT_EQ(r.marker_name, "train_step");
  ASSERT_EQ(r.steps.size(), 5u);
  EXPECT_DOUBLE_EQ(r.stats.mean_ns, 900.0);
  EXPECT_DOUBLE_EQ(r.stats.jitter_ratio, 0.0);
}

// The DataLoader's iterator and the optimizer's methods hold step words
// ("Iter", "step") but run inside a step: they are never its boundaries.
TEST(StepDetectorTest, DataLoaderAndOptimizerRangesAreNotSteps) {
  model::Trace t;
  for (int i = 0; i < 4; ++i) {
    const int64_t s = i * 1000;
    AddRange(t, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, s + 100,
             model::RangeKind::kUserAnnotation);
    AddRange(t, "Optimizer.step#Adam.step", s + 800, s + 900, model::RangeKind::kUserAnnotation);
    AddRange(t, "optimizer_step", s + 810, s + 890, model::RangeKind::kUserAnnotation);
  }
  t.Finalize();
  const StepResult r = FindSteps(t);
  EXPECT_NE(r.source, StepSource::kMarkerRange) << r.marker_name;
}

TEST(StepDetectorTest, KernelPeriodFromRepeatingNameSequence) {
  model::Trace t;
  // Each iteration: gemm, relu, gemm, relu, reduce, adam (6 kernels), 1 ms apart
  // with a jittered start; 8 iterations.
  const char* seq[] = {"gemm_a", "relu", "gemm_b", "relu", "reduce_sum", "adam"};
  int64_t ts = 0;
  for (int it = 0; it < 8; ++it) {
    const int64_t step_start = it * 1'000'000 + (it % 3) * 10'000;
    ts = step_start;
    for (const char* n : seq) {
      AddKernel(t, n, ts, ts + 50'000);
      ts += 60'000;
    }
  }
  t.Finalize();
  StepResult r = FindSteps(t);
  EXPECT_EQ(r.source, StepSource::kKernelPeriod);
  EXPECT_EQ(r.period_kernels, 6);
  ASSERT_EQ(r.steps.size(), 7u);  // 8 anchors give 7 complete periods
  EXPECT_NEAR(r.stats.p50_ns, 1'000'000.0, 20'000.0);
  EXPECT_EQ(r.steps[1].start_ns, 1'010'000);
}

TEST(StepDetectorTest, NoMarkersAndIrregularKernelsGiveNoSteps) {
  model::Trace t;
  const char* names[] = {"a", "b", "a", "a", "c", "b", "a", "c", "c", "a", "b", "b"};
  int64_t ts = 0;
  for (const char* n : names) {
    AddKernel(t, n, ts, ts + 10);
    ts += 100;
  }
  t.Finalize();
  StepResult r = FindSteps(t);
  EXPECT_EQ(r.source, StepSource::kNone);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.stats.count, 0);
  EXPECT_FALSE(IsValid(r.stats.mean_ns));
}

TEST(StepDetectorTest, PercentileInterpolates) {
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({5}, 0.95), 5.0);
  EXPECT_FALSE(IsValid(Percentile({}, 0.5)));
  // Selection gives what sorting gives, bit for bit, on unsorted input with
  // duplicates, at every q the analysis uses and at the ends.
  std::vector<double> v;
  uint64_t x = 88172645463325252ull;
  for (int n = 1; n <= 300; n += 7) {
    v.clear();
    for (int i = 0; i < n; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v.push_back(static_cast<double>(x % 97) * 1.5);
    }
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (double q : {0.0, 0.05, 0.5, 0.9, 0.95, 0.99, 1.0}) {
      const double pos = q * static_cast<double>(n - 1);
      const size_t lo = static_cast<size_t>(std::floor(pos));
      const size_t hi = std::min(sorted.size() - 1, lo + 1);
      const double want = sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
      EXPECT_EQ(Percentile(v, q), want) << n << " " << q;
    }
  }
}

}  // namespace
}  // namespace gpuwhy::analysis
