// Measured kernel figures: the speed-of-light classifier, grouping by name
// and launch config, and the findings of DetectMeasuredKernels, on traces
// built here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/detectors/measured_kernel_detector.h"
#include "analysis/detectors/timeline.h"
#include "analysis/throughput/measured_kernels.h"

namespace gpuwhy::analysis {
namespace {

TEST(SpeedOfLight, Classifies) {
  EXPECT_EQ(ClassifySpeedOfLight(85, 30), SolBound::kCompute);
  EXPECT_EQ(ClassifySpeedOfLight(20, 91), SolBound::kMemory);
  EXPECT_EQ(ClassifySpeedOfLight(49, 53), SolBound::kLatency);
  EXPECT_EQ(ClassifySpeedOfLight(60, 59), SolBound::kCompute);  // at the threshold
  EXPECT_EQ(ClassifySpeedOfLight(kMissingF64, 90), SolBound::kUnknown);
  EXPECT_EQ(ToString(SolBound::kLatency), "latency");
}

// MkTrace: kernel rows (name, dur, sm %, mem %, dram %, achieved %, theoretical %).
struct MkRow {
  const char* name;
  int64_t dur_ns;
  float sm, mem, dram, achieved, theoretical;
  int32_t grid_x;
};

model::Trace MkTrace(const std::vector<MkRow>& rows, bool untimed) {
  model::Trace t;
  t.GetOrAddDevice(0);
  int64_t cursor = 1000;
  for (const MkRow& r : rows) {
    model::KernelRow k;
    k.device_id = 0;
    k.stream_id = 7;
    k.start_ns = cursor;
    k.end_ns = cursor + r.dur_ns;
    cursor = k.end_ns + (untimed ? 0 : 500);
    k.name = t.strings.Intern(r.name);
    k.grid_x = r.grid_x, k.grid_y = 1, k.grid_z = 1;
    k.block_x = 256, k.block_y = 1, k.block_z = 1;
    const uint32_t i = t.kernels.Append(k);
    auto set = [&](model::LazyColumn<float>& c, float v) {
      if (!std::isnan(v)) c.Set(i, v);
    };
    set(t.kernels.sm_throughput_pct, r.sm);
    set(t.kernels.memory_throughput_pct, r.mem);
    set(t.kernels.dram_throughput_pct, r.dram);
    set(t.kernels.achieved_occupancy_pct, r.achieved);
    set(t.kernels.theoretical_occupancy_pct, r.theoretical);
  }
  t.info.kernels_untimed = untimed;
  if (untimed) t.info.clock = "kernel-order";
  t.Finalize();
  return t;
}

constexpr float kNaN = kMissingF32;

TEST(MeasuredKernels, GroupsByNameAndConfigWeightedByTime) {
  model::Trace t = MkTrace({{"copy", 3000, 10, 90, 88, 80, 100, 100},
                            {"copy", 1000, 10, 70, 68, 80, 100, 100},
                            {"copy", 1000, 10, 70, 68, 80, 100, 200},  // another grid
                            {"gemm", 5000, 85, 30, 20, 40, 50, 64}},
                           /*untimed=*/true);
  MeasuredKernels m = AnalyzeMeasuredKernels(t);
  EXPECT_TRUE(m.untimed);
  EXPECT_EQ(m.kernels, 4);
  EXPECT_EQ(m.measured_kernels, 4);
  ASSERT_EQ(m.groups.size(), 3u);
  EXPECT_EQ(m.groups[0].name, "gemm");
  EXPECT_EQ(m.groups[0].bound, SolBound::kCompute);
  EXPECT_EQ(m.groups[1].name, "copy");
  EXPECT_EQ(m.groups[1].launches, 2);
  EXPECT_EQ(m.groups[1].grid[0], 100);
  EXPECT_NEAR(m.groups[1].memory_throughput_pct, (90.0 * 3 + 70.0) / 4, 1e-4);
  EXPECT_EQ(m.groups[1].bound, SolBound::kMemory);
  EXPECT_NEAR(m.groups[0].time_share_ratio, 0.5, 1e-9);
}

TEST(MeasuredKernels, TraceWithoutFiguresHasNoGroups) {
  model::Trace t = MkTrace({{"k", 1000, kNaN, kNaN, kNaN, kNaN, kNaN, 1}}, false);
  EXPECT_FALSE(HasMeasuredFigures(t));
  EXPECT_TRUE(AnalyzeMeasuredKernels(t).groups.empty());
  detectors::DetectorInput in{t, detectors::BuildTimeline(t)};
  EXPECT_TRUE(detectors::DetectMeasuredKernels(in).empty());
}

TEST(MeasuredKernels, FindingsNameTheKernel) {
  model::Trace t = MkTrace({{"fused_add_kernel", 6000, 12, 91, 90, 80, 100, 1000},
                            {"scan_kernel", 3000, 30, 40, 35, 30, 100, 8},
                            {"tiny", 10, 1, 1, 1, 1, 100, 1}},
                           true);
  const detectors::Timeline tl = detectors::BuildTimeline(t);
  std::vector<detectors::Finding> f = detectors::DetectMeasuredKernels({t, tl});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].id, "kernel_efficiency.measured_memory_roof");
  EXPECT_NE(f[0].summary.find("fused_add_kernel"), std::string::npos);
  EXPECT_NE(f[0].summary.find("90%"), std::string::npos);
  EXPECT_EQ(f[0].recommendations.front().kind, detectors::FixKind::kFusion);
  EXPECT_EQ(f[1].id, "kernel_efficiency.measured_latency_bound");
  EXPECT_NE(f[1].summary.find("scan_kernel"), std::string::npos);
  EXPECT_EQ(f[2].id, "kernel_efficiency.measured_low_occupancy");
  EXPECT_NE(f[2].summary.find("scan_kernel"), std::string::npos);
  // Under kMeasuredMinShare of kernel time: not judged.
  for (const detectors::Finding& x : f)
    for (const detectors::Example& e : x.examples) EXPECT_NE(e.what, "tiny");
}

// FixKinds: the kinds of a finding's recommendations.
std::vector<detectors::FixKind> FixKinds(const detectors::Finding& f) {
  std::vector<detectors::FixKind> v;
  for (const auto& r : f.recommendations) v.push_back(r.kind);
  return v;
}

TEST(MeasuredKernels, ABiggerBatchOnlyForAGridThatCannotFillTheSms) {
  const auto bigger = detectors::FixKind::kBiggerBatch;
  // Latency-bound on 8 blocks (the SM count unknown: under 80): batch more.
  model::Trace small = MkTrace({{"scan_kernel", 3000, 30, 40, 35, 90, 100, 8}}, true);
  const detectors::Timeline tl = detectors::BuildTimeline(small);
  std::vector<detectors::Finding> f = detectors::DetectMeasuredKernels({small, tl});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "kernel_efficiency.measured_latency_bound");
  std::vector<detectors::FixKind> kinds = FixKinds(f[0]);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), bigger), kinds.end());
  // The same on 19532 blocks: the grid fills the GPU, so only the kernel's own fix.
  model::Trace big = MkTrace({{"scan_kernel", 3000, 30, 40, 35, 90, 100, 19532}}, true);
  const detectors::Timeline tl2 = detectors::BuildTimeline(big);
  f = detectors::DetectMeasuredKernels({big, tl2});
  ASSERT_EQ(f.size(), 1u);
  kinds = FixKinds(f[0]);
  EXPECT_EQ(std::find(kinds.begin(), kinds.end(), bigger), kinds.end());
  // 100 blocks on a GPU the trace says has 132 SMs: still too few.
  model::Trace h100 = MkTrace({{"scan_kernel", 3000, 30, 40, 35, 90, 100, 100}}, true);
  h100.devices[0].sm_count = 132;
  const detectors::Timeline tl3 = detectors::BuildTimeline(h100);
  f = detectors::DetectMeasuredKernels({h100, tl3});
  ASSERT_EQ(f.size(), 1u);
  kinds = FixKinds(f[0]);
  ASSERT_NE(std::find(kinds.begin(), kinds.end(), bigger), kinds.end());
  EXPECT_NE(f[0].recommendations.back().text.find("100 blocks cannot fill 132 SMs"),
            std::string::npos);
}

TEST(MeasuredKernels, AReportWithoutTheFiguresSaysSo) {
  // Only theoretical occupancy (a --metrics run): nothing to judge a bound on.
  model::Trace t = MkTrace({{"k", 1000, kNaN, kNaN, kNaN, kNaN, 67, 1}}, true);
  const detectors::Timeline tl = detectors::BuildTimeline(t);
  std::vector<detectors::Finding> f = detectors::DetectMeasuredKernels({t, tl});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "kernel_efficiency.measured_none");
  EXPECT_EQ(f[0].severity, detectors::Severity::kInfo);
  // The same kernel in a timed trace: no finding at all.
  model::Trace timed = MkTrace({{"k", 1000, kNaN, kNaN, kNaN, kNaN, 67, 1}}, false);
  const detectors::Timeline tl2 = detectors::BuildTimeline(timed);
  EXPECT_TRUE(detectors::DetectMeasuredKernels({timed, tl2}).empty());
}

}  // namespace
}  // namespace gpuwhy::analysis
