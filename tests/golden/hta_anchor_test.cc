// Cross-check against HTA on a shared trace (values from
// ../shared/reference/hta_tbplugin.md §6, HTA temporal breakdown of the
// tb_plugin resnet50_num_workers_0 sample, rank 0: idle 39.43%, compute 59.35%).
// HTA's window is first-to-last GPU event with the last ProfilerStep dropped;
// on this trace that changes nothing, so the definitions coincide.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/summary/device_summary.h"
#include "import/registry.h"

namespace gpuwhy {
namespace {

TEST(HtaAnchor, Resnet50Workers0IdleAndComputeMatchHta) {
  const std::string rel =
      "../shared/traces/kineto/kineto_tb_plugin/samples/resnet50_num_workers_0/"
      "worker0.1623143089861.pt.trace.json.gz";
  const std::string path = std::string(GPUWHY_SOURCE_DIR) + "/" + rel;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "SKIPPED: " << rel << " not present";
  Result<model::Trace> t = import::ImportFile(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  analysis::TraceSummary s = analysis::SummarizeDevices(*t, {});
  ASSERT_EQ(s.devices.size(), 1u);
  const analysis::DeviceSummary& d = s.devices[0];
  EXPECT_NEAR(d.busy.idle_ratio * 100, 39.43, 0.05);
  // HTA "compute" = union of COMPUTATION kernels; this trace has no comm kernels.
  EXPECT_NEAR(d.busy.kernel_busy_ratio * 100, 59.35, 0.05);
  EXPECT_EQ(s.devices_without_events, (std::vector<int32_t>{1, 2, 3}));
}

}  // namespace
}  // namespace gpuwhy
