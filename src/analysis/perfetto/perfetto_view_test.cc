// The Perfetto view on small hand-built traces: idle slices come from the
// timeline's gaps (a DataLoader split placed where the DataLoader ran), flow
// flags pair launches with GPU ops, counters and findings land per device.
#include "analysis/perfetto/perfetto_view.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

using detectors::IdleCause;
constexpr int64_t kUs = kNsPerUs;

struct Builder {
  model::Trace t;
  int64_t next_corr = 1;
  void Range(const std::string& name, int64_t s, int64_t e, int32_t step = kMissingI32) {
    model::RangeRow r;
    r.pid = 1; r.tid = 1; r.start_ns = s; r.end_ns = e; r.step = step;
    r.kind = IsValid(step) ? model::RangeKind::kUserAnnotation : model::RangeKind::kCpuOp;
    r.name = t.strings.Intern(name);
    t.ranges.Append(r);
  }
  int64_t Api(const std::string& name, int32_t cbid, int64_t s, int64_t e) {
    model::ApiRow a;
    a.pid = 1; a.tid = 1; a.start_ns = s; a.end_ns = e; a.cbid = cbid;
    a.name = t.strings.Intern(name);
    a.correlation_id = next_corr++;
    t.api_calls.Append(a);
    return a.correlation_id;
  }
  void Kernel(int64_t launch_ns, int64_t s, int64_t e) {
    const int64_t c = Api("cudaLaunchKernel", 211, launch_ns, launch_ns + 2 * kUs);
    model::KernelRow k;
    k.device_id = 0; k.stream_id = 7; k.start_ns = s; k.end_ns = e; k.correlation_id = c;
    k.name = t.strings.Intern("volta_sgemm");
    k.blocks_per_sm = 2.0f;
    t.kernels.Append(k);
  }
};

TEST(PerfettoView, IdleSlicesFollowTheTimeline) {
  Builder b;
  b.Range("ProfilerStep#1", 0, 1000 * kUs, 1);
  // The GPU idles 0..300 µs; the DataLoader runs 100..300 µs of it.
  b.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100 * kUs, 300 * kUs);
  b.Kernel(90 * kUs, 300 * kUs, 400 * kUs);
  // A stream sync drains the GPU 400..510 µs.
  b.Api("cudaStreamSynchronize", 131, 380 * kUs, 450 * kUs);
  b.Kernel(500 * kUs, 510 * kUs, 1000 * kUs);
  b.Api("cudaMemGetInfo", 1, 600 * kUs, 610 * kUs);  // correlation, no GPU op
  b.t.Finalize();
  std::vector<model::Trace> traces;
  traces.push_back(std::move(b.t));
  const Analysis a = AnalyzeTraces(traces, {});
  const PerfettoView v = BuildPerfettoView(traces, a);
  ASSERT_EQ(v.traces.size(), 1u);
  const TraceView& tv = v.traces[0];
  EXPECT_EQ(tv.pid_offset, 0);
  EXPECT_TRUE(tv.label.empty());
  ASSERT_EQ(tv.devices.size(), 1u);
  const DeviceView& d = tv.devices[0];
  EXPECT_EQ(d.device_id, 0);

  // Slices tile the timeline's idle, and each cause's total matches it.
  const detectors::Timeline tl = detectors::BuildTimeline(traces[0]);
  ASSERT_EQ(tl.devices.size(), 1u);
  std::array<int64_t, detectors::kIdleCauseCount> by_cause{};
  int64_t prev_end = 0;
  for (const IdleSlice& s : d.idle) {
    EXPECT_GE(s.start_ns, prev_end);
    prev_end = s.end_ns;
    by_cause[static_cast<size_t>(s.cause)] += s.end_ns - s.start_ns;
    EXPECT_EQ(s.step, 1);
  }
  EXPECT_EQ(by_cause, tl.devices[0].idle_by_cause);
  // The DataLoader piece sits where the DataLoader ran (100..300 µs).
  bool dl = false;
  for (const IdleSlice& s : d.idle) {
    if (s.cause != IdleCause::kDataLoader) continue;
    dl = true;
    EXPECT_EQ(s.start_ns, 100 * kUs);
    EXPECT_EQ(s.end_ns, 300 * kUs);
    EXPECT_EQ(s.finding_id, "data_loading.dataloader");
  }
  EXPECT_TRUE(dl);
  bool sync = false;
  for (const IdleSlice& s : d.idle)
    if (s.cause == IdleCause::kSync) sync = s.finding_id == "sync.host_sync";
  EXPECT_TRUE(sync);

  // Counters: the rebuilt NVML series and the SM fill step function.
  bool nvml = false, fill = false;
  for (const CounterTrack& c : d.counters) {
    nvml = nvml || (c.name == "GPU-Util (NVML 1/6 s)" && !c.points.empty());
    fill = fill || (c.name == "SM fill" && c.points.size() == 4 && c.points[0].value == 100.0);
  }
  EXPECT_TRUE(nvml);
  EXPECT_TRUE(fill);

  // Flows: both launches pair with their kernels; cudaMemGetInfo has none.
  ASSERT_EQ(tv.api_has_gpu_op.size(), 4u);
  int flows = 0;
  for (bool f : tv.api_has_gpu_op) flows += f ? 1 : 0;
  EXPECT_EQ(flows, 2);
  EXPECT_EQ(tv.kernel_has_api, std::vector<bool>({true, true}));

  // Findings: the sync finding sits at its worst example, on device 0.
  bool sync_mark = false;
  for (const FindingMark& m : tv.findings)
    if (m.id == "sync.host_sync" && m.example_index >= 0) sync_mark = m.device_id == 0;
  EXPECT_TRUE(sync_mark);
}

TEST(PerfettoView, RankSetGetsPidRanges) {
  std::vector<model::Trace> traces(2);
  for (model::Trace& t : traces) {
    Builder b;
    b.Kernel(0, 10 * kUs, 20 * kUs);
    b.t.Finalize();
    t = std::move(b.t);
  }
  traces[1].rank.rank = 5;
  const Analysis a = AnalyzeTraces(traces, {});
  const PerfettoView v = BuildPerfettoView(traces, a);
  ASSERT_EQ(v.traces.size(), 2u);
  EXPECT_EQ(v.traces[0].label, "rank 0");
  EXPECT_EQ(v.traces[1].label, "rank 5");
  EXPECT_EQ(v.traces[1].pid_offset, kRankPidStride);
  EXPECT_EQ(v.traces[1].flow_id_offset, int64_t{1} << kRankFlowIdShift);
}

}  // namespace
}  // namespace gpuwhy::analysis
