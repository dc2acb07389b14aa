// Unit test of the Unified Memory detector on a timeline built here: kernels
// with page-fault migrations inside them and in the gaps, with known answers.
#include "analysis/detectors/uvm_detector.h"

#include <gtest/gtest.h>

#include "analysis/detectors/diagnosis.h"

namespace gpuwhy::analysis::detectors {
namespace {

TEST(UvmMigrations, OverlapGapsBytesAndCauses) {
  model::Trace t;
  t.GetOrAddDevice(0);
  const int64_t t0 = 1000000000;
  for (int i = 0; i < 10; ++i) {
    const int64_t ks = t0 + i * 2000000;  // 1 ms kernels, 1 ms gaps
    model::KernelRow k;
    k.device_id = 0;
    k.stream_id = 7;
    k.start_ns = ks;
    k.end_ns = ks + 1000000;
    k.name = t.strings.Intern("saxpy");
    t.kernels.Append(k);
    auto mig = [&](int64_t s, int64_t e, model::CopyKind kind, model::MigrationCause c) {
      model::MemcpyRow m;
      m.device_id = 0;
      m.start_ns = s;
      m.end_ns = e;
      m.bytes = 1 << 20;
      m.copy_kind = kind;
      m.migration_cause = c;
      t.memcpys.Append(m);
    };
    mig(ks + 100000, ks + 300000, model::CopyKind::kUvmHtoD, model::MigrationCause::kCoherence);
    if (i < 9) mig(ks + 1200000, ks + 1500000, model::CopyKind::kUvmDtoH, model::MigrationCause::kEviction);
  }
  t.Finalize();
  Timeline tl = BuildTimeline(t);
  ASSERT_EQ(tl.devices.size(), 1u);
  UvmStats st = ComputeUvmStats(t, tl.devices[0]);
  EXPECT_EQ(st.count, 19);
  EXPECT_EQ(st.htod_count, 10);
  EXPECT_EQ(st.dtoh_count, 9);
  EXPECT_EQ(st.beside_kernels_ns, 10 * 200000);
  EXPECT_EQ(st.in_gaps_ns, 9 * 300000);
  EXPECT_EQ(st.by_cause[static_cast<size_t>(model::MigrationCause::kEviction)], 9);
  std::vector<Finding> f = DetectUvmMigrations({t, tl, kMissingI32});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "data_loading.uvm_migrations");
  // Union 4.7 ms over the 19 ms kernel span.
  EXPECT_NEAR(f[0].lost_step_ratio, 4.7 / 19.0, 1e-9);
  EXPECT_FALSE(f[0].notes.empty());  // evictions: oversubscription
  EXPECT_NE(f[0].recommendations[0].text.find("cudaMemPrefetchAsync"), std::string::npos);
}

TEST(UvmMigrations, OrdinaryCopiesAreNotMigrations) {
  model::Trace t;
  model::KernelRow k;
  k.device_id = 0;
  k.start_ns = 0;
  k.end_ns = 1000000;
  t.kernels.Append(k);
  model::MemcpyRow m;
  m.device_id = 0;
  m.start_ns = 100;
  m.end_ns = 900000;
  m.copy_kind = model::CopyKind::kHtoD;
  t.memcpys.Append(m);
  t.Finalize();
  Timeline tl = BuildTimeline(t);
  EXPECT_TRUE(DetectUvmMigrations({t, tl, kMissingI32}).empty());
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
