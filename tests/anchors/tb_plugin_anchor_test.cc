// TensorBoard plugin golden values (kineto_tb_plugin/test/result_check_file.txt,
// hta_tbplugin.md §4.5): ours must match to 0.01 percentage points.
#include <cmath>
#include <cstdio>

#include "analysis/anchor_compat/tb_plugin_compat.h"
#include "anchor_util.h"

namespace gpuwhy {
namespace {

using analysis::TbRole;

struct TbGolden {
  const char* file;
  double gpu_util, sm_eff, occ;
  double avg_step_us;
  double role[8];  // Kernel..Other; NaN = not checked
};

constexpr double kNa = std::numeric_limits<double>::quiet_NaN();

void CheckGolden(const model::Trace& t, const TbGolden& g) {
  analysis::TbPluginResult r = analysis::ReproduceTbPlugin(t);
  ASSERT_FALSE(r.devices.empty());
  const analysis::TbPluginDevice& d = r.devices.front();
  std::printf("%s\n  ours: util %.4f sm_eff %.4f occ %.4f avg_step %.1f us\n", g.file,
              d.gpu_util_pct, d.sm_efficiency_pct, d.occupancy_pct, r.avg_step_us);
  std::printf("  anchor: util %.2f sm_eff %.2f occ %.2f avg_step %.0f us\n  roles:", g.gpu_util,
              g.sm_eff, g.occ, g.avg_step_us);
  for (int i = 0; i < analysis::kTbRoleCount; ++i) {
    std::printf(" %s %.4f", std::string(ToString(static_cast<TbRole>(i))).c_str(), r.role_pct[i]);
  }
  std::printf("\n");
  // The plugin prints round(x, 2); agreement means the same rounded figure.
  EXPECT_NEAR(d.gpu_util_pct, g.gpu_util, 0.01);
  EXPECT_NEAR(d.sm_efficiency_pct, g.sm_eff, 0.01);
  EXPECT_NEAR(d.occupancy_pct, g.occ, 0.01);
  if (!std::isnan(g.avg_step_us)) {
    EXPECT_NEAR(r.avg_step_us, g.avg_step_us, 1.0);
  }
  for (int i = 0; i < analysis::kTbRoleCount; ++i) {
    if (!std::isnan(g.role[i])) {
      EXPECT_NEAR(r.role_pct[i], g.role[i], 0.01) << ToString(static_cast<TbRole>(i));
    }
  }
}

TEST(TbPluginAnchorTest, ResNet50NumWorkers0MatchesGoldenOverview) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/kineto_tb_plugin/samples/resnet50_num_workers_0/"
                     "worker0.1623143089861.pt.trace.json.gz");
  CheckGolden(*t, {"resnet50_num_workers_0",
                   55.51,
                   54.68,
                   49.13,
                   177592,
                   {55.51, 1.08, 0.05, kNa, 1.64, 33.37, 7.7, 0.65}});
}

TEST(TbPluginAnchorTest, ResNet50NumWorkers4MatchesGoldenOverview) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/kineto_tb_plugin/samples/resnet50_num_workers_4/"
                     "worker0.1623212756351.pt.trace.json.gz");
  CheckGolden(*t, {"resnet50_num_workers_4",
                   70.27,
                   69.22,
                   48.91,
                   141068,
                   {70.28, kNa, kNa, kNa, 7.49, 0.84, 16.07, kNa}});
}

}  // namespace
}  // namespace gpuwhy

#include <simdjson.h>

namespace gpuwhy {
namespace {

// The plugin's "GPU 0 Utilization" counter track (gpu_metrics_expected.json,
// 16 ph:"C" events: an axis pair 1, 0 at the start, one percentage per bucket,
// a closing 0) against ours on gpu_metrics_input.json.
TEST(TbPluginAnchorTest, UtilizationTimelineMatchesThePlugin) {
  const std::string rel = "kineto/kineto_tb_plugin/test/gpu_metrics_input.json";
  const std::string expected_path =
      anchors::SharedPath("kineto/kineto_tb_plugin/test/gpu_metrics_expected.json");
  GPUWHY_LOAD_SHARED(t, rel);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(expected_path).get(doc), simdjson::SUCCESS);
  simdjson::dom::array events;
  ASSERT_EQ(doc["traceEvents"].get_array().get(events), simdjson::SUCCESS);
  std::vector<std::pair<int64_t, double>> plugin;  // (ts µs, value)
  for (simdjson::dom::element e : events) {
    std::string_view ph, name;
    if (e["ph"].get_string().get(ph) != simdjson::SUCCESS || ph != "C") continue;
    if (e["name"].get_string().get(name) != simdjson::SUCCESS || name != "GPU 0 Utilization")
      continue;
    int64_t ts = 0;
    double v = 0;
    ASSERT_EQ(e["ts"].get_int64().get(ts), simdjson::SUCCESS);
    simdjson::dom::element val = e["args"]["GPU Utilization"];
    if (val.get_double().get(v) != simdjson::SUCCESS) {
      int64_t iv = 0;
      ASSERT_EQ(val.get_int64().get(iv), simdjson::SUCCESS);
      v = static_cast<double>(iv);
    }
    plugin.emplace_back(ts, v);
  }
  ASSERT_EQ(plugin.size(), 16u);
  analysis::TbPluginResult r = analysis::ReproduceTbPlugin(*t);
  ASSERT_FALSE(r.devices.empty());
  const analysis::TbPluginDevice& d = r.devices.front();
  // Drop the axis pair (1, 0) and the closing 0: the rest are the buckets.
  ASSERT_EQ(d.util_timeline.size(), plugin.size() - 3);
  std::printf("bucket %lld ns, %zu buckets\n", static_cast<long long>(d.util_timeline_bucket_ns),
              d.util_timeline.size());
  for (size_t i = 0; i < d.util_timeline.size(); ++i) {
    const auto& [ts_us, v] = plugin[i + 2];
    std::printf("  %lld us  plugin %.6f  ours %.6f (x100)\n", static_cast<long long>(ts_us), v,
                d.util_timeline[i] * 100.0);
    // The plugin's values are percentages (6 µs busy in a 1 ms bucket reads
    // 0.6); ours are ratios.
    EXPECT_NEAR(d.util_timeline[i] * 100.0, v, 1e-9) << "bucket " << i;
    EXPECT_EQ(d.util_timeline_start_ns + static_cast<int64_t>(i) * d.util_timeline_bucket_ns,
              ts_us * 1000)
        << "bucket " << i;
  }
}

}  // namespace
}  // namespace gpuwhy
