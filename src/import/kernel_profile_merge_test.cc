// Joining a kernel profile (kernels_untimed) to a timed trace: keys, counts,
// rules, and what is left alone. Traces built here.
#include "import/kernel_profile_merge.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuwhy::import {
namespace {

uint32_t KpmAdd(model::Trace& t, const char* name, int64_t start, int64_t dur, int32_t grid,
                int32_t block) {
  model::KernelRow k;
  k.device_id = 0;
  k.start_ns = start;
  k.end_ns = start + dur;
  k.name = t.strings.Intern(name);
  k.grid_x = grid, k.grid_y = 1, k.grid_z = 1;
  k.block_x = block, k.block_y = 1, k.block_z = 1;
  return t.kernels.Append(k);
}

model::Trace Profile() {
  model::Trace p;
  p.info.kernels_untimed = true;
  p.info.clock = "kernel-order";
  p.info.format = "ncu-csv";
  uint32_t a = KpmAdd(p, "void add<float>(float*, int)", 0, 3000, 64, 256);
  p.kernels.dram_throughput_pct.Set(a, 90.0f);
  p.kernels.sm_throughput_pct.Set(a, 10.0f);
  uint32_t b = KpmAdd(p, "void add<float>(float*, int)", 3000, 1000, 64, 256);
  p.kernels.dram_throughput_pct.Set(b, 70.0f);
  uint32_t c = KpmAdd(p, "gemm", 4000, 1000, 8, 128);
  p.kernels.achieved_occupancy_pct.Set(c, 25.0f);
  p.kernels.registers_per_thread[c] = 96;
  model::KernelRuleRow r;
  r.kernel_row = c;
  r.rule = p.strings.Intern("AchievedOccupancy");
  r.type = p.strings.Intern("OPT");
  r.est_speedup_pct = 40.0f;
  p.kernel_rules.Append(r);
  p.Finalize();
  return p;
}

model::Trace Timed() {
  model::Trace t;
  t.info.format = "kineto-json";
  KpmAdd(t, "void add<float>(float *, int)", 100, 50, 64, 256);  // other spacing
  KpmAdd(t, "gemm", 200, 50, 8, 128);
  KpmAdd(t, "gemm", 300, 50, 16, 128);  // a config the profile lacks
  KpmAdd(t, "gemm", 400, 50, 8, 128);
  KpmAdd(t, "softmax", 500, 50, 1, 32);
  t.Finalize();
  return t;
}

TEST(KernelProfileMerge, JoinsOnNameAndLaunchConfig) {
  model::Trace p = Profile();
  model::Trace t = Timed();
  KernelJoinNote n = JoinKernelProfile(p, t);
  EXPECT_EQ(n.trace_kernels, 5);
  EXPECT_EQ(n.matched_kernels, 3);
  EXPECT_EQ(n.profile_keys, 2);
  EXPECT_EQ(n.matched_keys, 2);
  // Duration-weighted mean of the two profiled add launches.
  EXPECT_FLOAT_EQ(t.kernels.dram_throughput_pct[0], (90.0f * 3 + 70.0f) / 4);
  EXPECT_FLOAT_EQ(t.kernels.sm_throughput_pct[0], 10.0f);
  EXPECT_FLOAT_EQ(t.kernels.achieved_occupancy_pct[1], 25.0f);
  EXPECT_TRUE(std::isnan(t.kernels.achieved_occupancy_pct[2]));  // grid 16: no match
  EXPECT_FLOAT_EQ(t.kernels.achieved_occupancy_pct[3], 25.0f);
  EXPECT_TRUE(std::isnan(t.kernels.dram_throughput_pct[4]));
  EXPECT_EQ(t.kernels.registers_per_thread[1], 96);
  // The rule goes to the first joined launch only.
  ASSERT_EQ(t.kernel_rules.size(), 1u);
  EXPECT_EQ(t.kernel_rules.kernel_row[0], 1u);
  EXPECT_EQ(t.Str(t.kernel_rules.rule[0]), "AchievedOccupancy");
}

TEST(KernelProfileMerge, FoldsProfilesIntoTimedTracesOnly) {
  std::vector<model::Trace> traces;
  traces.push_back(Profile());
  traces.push_back(Timed());
  std::vector<std::string> paths = {"dir/k.ncu.csv", "trace.json"};
  std::vector<KernelJoinNote> notes = MergeKernelProfiles(traces, paths);
  ASSERT_EQ(notes.size(), 1u);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(paths[0], "trace.json");
  ASSERT_EQ(traces[0].info.merged_inputs.size(), 1u);
  EXPECT_NE(traces[0].info.merged_inputs[0].find(
                "k.ncu.csv (ncu-csv): measured (ncu) figures for 3 of 5 trace kernels"),
            std::string::npos)
      << traces[0].info.merged_inputs[0];
  // A profile alone stays as it is.
  std::vector<model::Trace> alone;
  alone.push_back(Profile());
  std::vector<std::string> alone_paths = {"k.csv"};
  EXPECT_TRUE(MergeKernelProfiles(alone, alone_paths).empty());
  EXPECT_EQ(alone.size(), 1u);
}

}  // namespace
}  // namespace gpuwhy::import

namespace gpuwhy::import {
namespace {

TEST(KernelProfileMerge, PagesOfOneReportCombine) {
  model::Trace raw = Profile();
  model::Trace details = Profile();
  // The details page has the rule and an occupancy the raw page lacks.
  details.kernels.theoretical_occupancy_pct.Set(0, 75.0f);
  raw.kernel_rules.Clear();
  raw.info.format_version = "raw page";
  details.info.format_version = "details page";
  ASSERT_TRUE(SameProfiledKernels(raw, details));
  std::vector<model::Trace> traces;
  traces.push_back(std::move(raw));
  traces.push_back(std::move(details));
  std::vector<std::string> paths = {"k.raw.csv", "k.details.csv"};
  MergeKernelProfiles(traces, paths);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(paths[0], "k.raw.csv");
  EXPECT_FLOAT_EQ(traces[0].kernels.theoretical_occupancy_pct[0], 75.0f);
  EXPECT_EQ(traces[0].kernel_rules.size(), 1u);
  EXPECT_EQ(traces[0].info.format_version, "raw page + details page");
  ASSERT_EQ(traces[0].info.merged_inputs.size(), 1u);
  // Another report (other kernels) stays apart.
  model::Trace other = Profile();
  other.kernels.grid_x[0] = 1;
  EXPECT_FALSE(SameProfiledKernels(traces[0], other));
}

}  // namespace
}  // namespace gpuwhy::import
