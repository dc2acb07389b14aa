#include "model/trace.h"

#include <gtest/gtest.h>

namespace gpuwhy::model {
namespace {

TEST(Trace, MissingIsNotZero) {
  KernelRow k;
  EXPECT_FALSE(IsValid(k.start_ns));
  EXPECT_FALSE(IsValid(k.registers_per_thread));
  EXPECT_FALSE(IsValid(k.est_occupancy_pct));
}

TEST(Trace, FinalizeSortsAndRemapsCollectives) {
  Trace t;
  KernelRow a;
  a.device_id = 1;
  a.start_ns = 300;
  a.end_ns = 400;
  a.name = t.strings.Intern("ncclKernel_AllReduce");
  KernelRow b = a;
  b.start_ns = 100;
  b.end_ns = 200;
  b.name = t.strings.Intern("sgemm");
  uint32_t row_a = t.kernels.Append(a);
  t.kernels.Append(b);
  CollectiveRow c;
  c.kernel_row = row_a;
  c.collective_name = t.strings.Intern("allreduce");
  t.collectives.Append(c);
  t.Finalize();
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.start_ns[0], 100);
  EXPECT_EQ(t.Str(t.kernels.name[t.collectives.kernel_row[0]]), "ncclKernel_AllReduce");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].device_id, 1);
  EXPECT_FALSE(IsValid(t.devices[0].sm_count));
  auto [lo, hi] = t.TimeExtent();
  EXPECT_EQ(lo, 100);
  EXPECT_EQ(hi, 400);
}

TEST(ImportStats, NamesAreStable) {
  EXPECT_EQ(kImportStatInfo[static_cast<size_t>(ImportStat::unknown_category)].name,
            "unknown_category");
  ImportStats s;
  s.Bump(ImportStat::missing_ts, 3);
  EXPECT_EQ(s.Get(ImportStat::missing_ts), 3u);
}

}  // namespace
}  // namespace gpuwhy::model
