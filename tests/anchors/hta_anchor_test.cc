// HTA reference outputs (hta_tbplugin.md §6): temporal breakdown within 0.05
// percentage points, idle-time split of the main stream within 0.05 pp of
// its total (and printed in µs).
#include <cstdio>

#include "analysis/anchor_compat/hta_compat.h"
#include "anchor_util.h"

namespace gpuwhy {
namespace {

struct HtaGolden {
  const char* file;
  double idle, compute, non_compute;
  int64_t stream;
  double host_wait_us, kernel_wait_us, other_us;
};

constexpr double kTolPp = 0.05;  // HTA prints percentages rounded to 0.01

void Check(const model::Trace& t, const HtaGolden& g) {
  analysis::HtaResult r = analysis::ReproduceHta(t);
  std::printf("%s\n  ours:   idle %.4f compute %.4f non-compute %.4f\n", g.file,
              r.temporal.idle_pct, r.temporal.compute_pct, r.temporal.non_compute_pct);
  std::printf("  anchor: idle %.2f compute %.2f non-compute %.2f\n", g.idle, g.compute,
              g.non_compute);
  EXPECT_NEAR(r.temporal.idle_pct, g.idle, kTolPp);
  EXPECT_NEAR(r.temporal.compute_pct, g.compute, kTolPp);
  EXPECT_NEAR(r.temporal.non_compute_pct, g.non_compute, kTolPp);
  const analysis::HtaIdleStream* s = nullptr;
  for (const auto& x : r.idle_streams) {
    if (x.stream_id == g.stream) s = &x;
  }
  ASSERT_NE(s, nullptr) << "stream " << g.stream;
  std::printf("  s%lld ours:   host_wait %lld kernel_wait %lld other %lld us\n",
              static_cast<long long>(g.stream), static_cast<long long>(s->host_wait_us),
              static_cast<long long>(s->kernel_wait_us), static_cast<long long>(s->other_us));
  std::printf("  s%lld anchor: host_wait %.0f kernel_wait %.0f other %.0f us\n",
              static_cast<long long>(g.stream), g.host_wait_us, g.kernel_wait_us, g.other_us);
  const double total = g.host_wait_us + g.kernel_wait_us + g.other_us;
  const double tol = total * kTolPp / 100.0;  // tol_pp of the stream's idle time
  EXPECT_NEAR(static_cast<double>(s->host_wait_us), g.host_wait_us, tol);
  EXPECT_NEAR(static_cast<double>(s->kernel_wait_us), g.kernel_wait_us, tol);
  EXPECT_NEAR(static_cast<double>(s->other_us), g.other_us, tol);
}

TEST(HtaAnchorTest, TbResNet50Nw0) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/kineto_tb_plugin/samples/resnet50_num_workers_0/"
                     "worker0.1623143089861.pt.trace.json.gz");
  Check(*t, {"tb nw0", 39.43, 59.35, 1.22, 7, 318934, 8529, 0});
}

TEST(HtaAnchorTest, TbResNet50Nw4) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/kineto_tb_plugin/samples/resnet50_num_workers_4/"
                     "worker0.1623212756351.pt.trace.json.gz");
  Check(*t, {"tb nw4", 24.32, 73.23, 2.45, 7, 154426, 8804, 1469});
}

TEST(HtaAnchorTest, NcclData) {
  GPUWHY_LOAD_SHARED(t, "kineto/hta/nccl_parser_config/nccl_data.json.gz");
  // Fractional-µs timestamps: HTA's loader ceils starts and floors ends.
  Check(*t, {"nccl_data", 77.78, 17.26, 4.97, 7, 357247, 2155, 0});
}

TEST(HtaAnchorTest, NegativeQueueRank0) {
  GPUWHY_LOAD_SHARED(t, "kineto/hta/negative_queue_length_values_check/rank0.json.gz");
  Check(*t, {"negative_queue rank0", 69.44, 14.15, 16.41, 7, 0, 17159, 691231});
}

TEST(HtaAnchorTest, TraceDiffControl) {
  GPUWHY_LOAD_SHARED(t, "kineto/hta/trace_diff/control/control.json.gz");
  Check(*t, {"trace_diff control", 16.20, 61.23, 22.57, 7, 102154, 14226, 32183});
}

TEST(HtaAnchorTest, DfIndexResolver) {
  GPUWHY_LOAD_SHARED(t, "kineto/hta/df_index_resolver/df_index_resolver.json.gz");
  Check(*t, {"df_index_resolver", 46.08, 35.55, 18.37, 7, 791330, 16727, 73829});
}

TEST(HtaAnchorTest, ParamDlrmWorker0) {
  GPUWHY_LOAD_SHARED(t,
                     "kineto/param/et_replay/tests/inputs/dlrm_kineto/"
                     "worker0_step_12.1694128201545.pt.trace.json");
  Check(*t, {"param dlrm worker0", 49.34, 7.95, 42.71, 7, 11448, 123, 0});
}

}  // namespace
}  // namespace gpuwhy
