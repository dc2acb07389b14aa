#include "analysis/summary/device_summary.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis {
namespace {

using model::CopyKind;
using model::MemoryKind;

model::KernelRow Kernel(model::Trace& t, int32_t dev, int64_t stream, int64_t s, int64_t e,
                        const char* name, int64_t corr = kMissingI64) {
  model::KernelRow k;
  k.device_id = dev;
  k.stream_id = stream;
  k.start_ns = s;
  k.end_ns = e;
  k.name = t.strings.Intern(name);
  k.correlation_id = corr;
  return k;
}

model::ApiRow Api(model::Trace& t, int32_t pid, int64_t s, int64_t e, const char* name,
                  int32_t cbid, int64_t corr = kMissingI64) {
  model::ApiRow a;
  a.pid = pid;
  a.tid = pid;
  a.start_ns = s;
  a.end_ns = e;
  a.name = t.strings.Intern(name);
  a.cbid = cbid;
  a.correlation_id = corr;
  return a;
}

// Two streams with overlapping kernels, one memcpy and one memset (hand-computed).
model::Trace TwoStreamTrace() {
  model::Trace t;
  t.kernels.Append(Kernel(t, 0, 7, 100, 200, "gemm"));
  t.kernels.Append(Kernel(t, 0, 8, 150, 300, "gemm"));
  t.kernels.Append(Kernel(t, 0, 7, 400, 450, "relu"));
  model::MemcpyRow m;
  m.device_id = 0;
  m.stream_id = 7;
  m.start_ns = 300;
  m.end_ns = 350;
  m.bytes = 1000;
  m.copy_kind = CopyKind::kHtoD;
  m.src_kind = MemoryKind::kPinned;
  m.dst_kind = MemoryKind::kDevice;
  t.memcpys.Append(m);
  model::MemsetRow ms;
  ms.device_id = 0;
  ms.stream_id = 7;
  ms.start_ns = 460;
  ms.end_ns = 470;
  ms.bytes = 10;
  ms.dst_kind = MemoryKind::kDevice;
  t.memsets.Append(ms);
  model::Device& d = t.GetOrAddDevice(0);
  d.name = t.strings.Intern("Test GPU");
  d.sm_count = 10;
  t.Finalize();
  return t;
}

TEST(SummarizeDevices, UnionOverStreamsAndBusyRatios) {
  model::Trace t = TwoStreamTrace();
  SummaryOptions opt;
  TraceSummary s = SummarizeDevices(t, opt);
  ASSERT_EQ(s.devices.size(), 1u);
  const DeviceSummary& d = s.devices[0];
  EXPECT_EQ(d.name, "Test GPU");
  EXPECT_EQ(d.sm_count, 10);
  EXPECT_FALSE(IsValid(d.cc_major));
  EXPECT_EQ(d.stream_count, 2);
  EXPECT_EQ(d.span_start_ns, 100);
  EXPECT_EQ(d.span_end_ns, 470);
  EXPECT_EQ(d.span_ns, 370);
  // Kernels: [100,300) + [400,450) = 250; with copies: [100,350) + 50 + 10 = 310.
  EXPECT_EQ(d.busy.kernel_busy_ns, 250);
  EXPECT_EQ(d.busy.gpu_busy_ns, 310);
  EXPECT_EQ(d.busy.idle_ns, 60);
  EXPECT_DOUBLE_EQ(d.busy.kernel_busy_ratio, 250.0 / 370.0);
  EXPECT_DOUBLE_EQ(d.busy.gpu_busy_ratio, 310.0 / 370.0);
  EXPECT_DOUBLE_EQ(d.busy.idle_ratio, 60.0 / 370.0);
  // Summed kernel time counts the overlap twice: 100 + 150 + 50.
  EXPECT_EQ(d.kernels.duration.count, 3);
  EXPECT_EQ(d.kernels.duration.total_ns, 300);
  EXPECT_EQ(d.kernels.duration.p50_ns, 100);
  ASSERT_EQ(d.kernels.top.size(), 2u);
  EXPECT_EQ(d.kernels.top[0].name, "gemm");
  EXPECT_EQ(d.kernels.top[0].count, 2);
  EXPECT_EQ(d.kernels.top[0].total_ns, 250);
  EXPECT_DOUBLE_EQ(d.kernels.top[0].mean_ns, 125.0);
  EXPECT_EQ(d.kernels.top[0].max_ns, 150);
  EXPECT_DOUBLE_EQ(d.kernels.top[0].time_ratio, 250.0 / 300.0);
  EXPECT_EQ(d.kernels.other_count, 0);
  EXPECT_FALSE(IsValid(d.kernels.other_time_ratio));
  // Memcpy: 1000 bytes in 50 ns = 20 bytes/ns = 20 GB/s.
  ASSERT_EQ(d.memcpy_by_direction.size(), 1u);
  EXPECT_EQ(d.memcpy_by_direction[0].copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(d.memcpy_by_direction[0].stats.bytes, 1000);
  EXPECT_DOUBLE_EQ(d.memcpy_by_direction[0].stats.bandwidth_gbps, 20.0);
  ASSERT_EQ(d.memcpy_by_kind_pair.size(), 1u);
  EXPECT_EQ(d.memcpy_by_kind_pair[0].src_kind, MemoryKind::kPinned);
  EXPECT_EQ(d.memcpy_by_kind_pair[0].dst_kind, MemoryKind::kDevice);
  ASSERT_EQ(d.memset_by_kind.size(), 1u);
  EXPECT_DOUBLE_EQ(d.memset_by_kind[0].stats.bandwidth_gbps, 1.0);
  EXPECT_FALSE(d.steps.has_steps);
  EXPECT_TRUE(s.import_stats.empty());
}

// A kernel profiler's report (Nsight Compute: kernels replayed alone, laid end
// to end): the kernel time stands, a busy or idle share of that span does not.
TEST(SummarizeDevices, ReplayedKernelsHaveNoBusyShare) {
  model::Trace t;
  t.kernels.Append(Kernel(t, 0, 7, 0, 100, "gemm"));
  t.kernels.Append(Kernel(t, 0, 7, 100, 300, "relu"));
  t.info.kernels_untimed = true;
  t.info.clock = "kernel-order";
  t.Finalize();
  const DeviceSummary d = SummarizeDevices(t, {}).devices[0];
  EXPECT_EQ(d.busy.kernel_busy_ns, 300);
  EXPECT_FALSE(IsValid(d.busy.kernel_busy_ratio));
  EXPECT_FALSE(IsValid(d.busy.gpu_busy_ratio));
  EXPECT_FALSE(IsValid(d.busy.idle_ns));
  EXPECT_FALSE(IsValid(d.busy.idle_ratio));
  // The same kernels on a real clock: 100% busy.
  t.info.kernels_untimed = false;
  EXPECT_DOUBLE_EQ(SummarizeDevices(t, {}).devices[0].busy.kernel_busy_ratio, 1.0);
}

TEST(SummarizeDevices, TopNGroupsTheRestAsOthers) {
  model::Trace t = TwoStreamTrace();
  SummaryOptions opt;
  opt.top_kernels = 1;
  const DeviceSummary d = SummarizeDevices(t, opt).devices[0];
  ASSERT_EQ(d.kernels.top.size(), 1u);
  EXPECT_EQ(d.kernels.other_count, 1);
  EXPECT_EQ(d.kernels.other_total_ns, 50);
  EXPECT_DOUBLE_EQ(d.kernels.other_time_ratio, 50.0 / 300.0);
  EXPECT_EQ(d.kernels.distinct_names, 2);
}

TEST(SummarizeDevices, DurationDistributionAndShortKernels) {
  model::Trace t;
  // 100 kernels of 1..100 µs, back to back.
  int64_t at = 0;
  for (int i = 1; i <= 100; ++i) {
    t.kernels.Append(Kernel(t, 0, 7, at, at + i * kNsPerUs, "k"));
    at += i * kNsPerUs;
  }
  t.Finalize();
  const DeviceSummary d = SummarizeDevices(t, {}).devices[0];
  const DurationStats& ds = d.kernels.duration;
  EXPECT_EQ(ds.count, 100);
  EXPECT_EQ(ds.min_ns, 1000);
  EXPECT_EQ(ds.max_ns, 100000);
  EXPECT_EQ(ds.p50_ns, 50500);  // numpy.percentile(range(1,101), 50) = 50.5
  EXPECT_EQ(ds.p90_ns, 90100);
  EXPECT_EQ(ds.p99_ns, 99010);
  EXPECT_DOUBLE_EQ(ds.mean_ns, 50500.0);
  // < 10 µs: kernels of 1..9 µs = 9 kernels, 45 µs of 5050 µs.
  EXPECT_EQ(d.kernels.short_kernels[0].threshold_ns, 10000);
  EXPECT_EQ(d.kernels.short_kernels[0].count, 9);
  EXPECT_DOUBLE_EQ(d.kernels.short_kernels[0].count_ratio, 0.09);
  EXPECT_EQ(d.kernels.short_kernels[0].time_ns, 45000);
  EXPECT_DOUBLE_EQ(d.kernels.short_kernels[0].time_ratio, 45.0 / 5050.0);
  EXPECT_EQ(d.kernels.short_kernels[3].count, 99);  // < 100 µs
  EXPECT_EQ(d.busy.kernel_busy_ns, 5050 * kNsPerUs);
  EXPECT_DOUBLE_EQ(d.busy.idle_ratio, 0.0);
}

TEST(SummarizeDevices, MissingFieldsStayMissing) {
  model::Trace t;
  t.kernels.Append(Kernel(t, 0, 7, 0, 100, "k"));
  model::KernelRow no_device = Kernel(t, kMissingI32, 7, 0, 100, "lost");
  t.kernels.Append(no_device);
  model::MemcpyRow m;  // bytes missing
  m.device_id = 0;
  m.start_ns = 200;
  m.end_ns = 300;
  m.copy_kind = CopyKind::kDtoH;
  t.memcpys.Append(m);
  t.GetOrAddDevice(3);  // declared, never used
  t.stats.Bump(model::ImportStat::missing_dur, 2);
  t.Finalize();
  TraceSummary s = SummarizeDevices(t, {});
  ASSERT_EQ(s.devices.size(), 1u);
  const DeviceSummary& d = s.devices[0];
  EXPECT_EQ(d.kernels.duration.count, 1);
  EXPECT_TRUE(d.name.empty());
  EXPECT_FALSE(IsValid(d.sm_count));
  EXPECT_FALSE(IsValid(d.total_memory_bytes));
  ASSERT_EQ(d.memcpy_by_direction.size(), 1u);
  EXPECT_EQ(d.memcpy_by_direction[0].stats.count_missing_bytes, 1);
  EXPECT_FALSE(IsValid(d.memcpy_by_direction[0].stats.bandwidth_gbps));
  EXPECT_EQ(d.memset_total.count, 0);
  EXPECT_FALSE(IsValid(d.memset_total.bandwidth_gbps));
  EXPECT_EQ(s.devices_without_events, std::vector<int32_t>{3});
  ASSERT_EQ(s.import_stats.size(), 1u);
  EXPECT_EQ(s.import_stats[0].name, "missing_dur");
  EXPECT_EQ(s.import_stats[0].count, 2u);
  EXPECT_EQ(s.import_stats[0].severity, model::StatSeverity::kDataLoss);
}

TEST(SummarizeDevices, EmptyTraceHasNoDevices) {
  model::Trace t;
  t.Finalize();
  TraceSummary s = SummarizeDevices(t, {});
  EXPECT_TRUE(s.devices.empty());
  EXPECT_FALSE(IsValid(s.extent_ns));
}

TEST(SummarizeDevices, StepsFromHostRangesOnly) {
  model::Trace t;
  t.kernels.Append(Kernel(t, 0, 7, 0, 10, "k"));
  auto step = [&](int n, int64_t s, int64_t e, model::RangeKind kind) {
    model::RangeRow r;
    r.pid = 1;
    r.start_ns = s;
    r.end_ns = e;
    r.step = n;
    r.kind = kind;
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(n));
    t.ranges.Append(r);
  };
  step(1, 0, 1000, model::RangeKind::kUserAnnotation);
  step(2, 1000, 3000, model::RangeKind::kUserAnnotation);
  step(3, 3000, 6000, model::RangeKind::kUserAnnotation);
  step(1, 0, 99999, model::RangeKind::kGpuUserAnnotation);  // ignored
  model::RangeRow other;
  other.pid = 1;
  other.start_ns = 0;
  other.end_ns = 5;
  t.ranges.Append(other);
  t.Finalize();
  const StepSummary st = SummarizeDevices(t, {}).devices[0].steps;
  ASSERT_TRUE(st.has_steps);
  EXPECT_EQ(st.first_step, 1);
  EXPECT_EQ(st.last_step, 3);
  EXPECT_EQ(st.window_start_ns, 0);
  EXPECT_EQ(st.window_end_ns, 6000);
  EXPECT_EQ(st.step_time.count, 3);
  EXPECT_EQ(st.step_time.p50_ns, 2000);
  EXPECT_DOUBLE_EQ(st.step_time.mean_ns, 2000.0);
  EXPECT_EQ(st.step_time.min_ns, 1000);
  EXPECT_EQ(st.step_time.max_ns, 3000);
  EXPECT_EQ(st.step_time.p95_ns, 2900);
}

TEST(SummarizeDevices, SyncCallsAttributedByCorrelationThenProcess) {
  model::Trace t;
  t.kernels.Append(Kernel(t, 0, 7, 0, 100, "k", /*corr=*/1));
  t.kernels.Append(Kernel(t, 1, 7, 0, 100, "k", /*corr=*/5));
  model::MemcpyRow m;
  m.device_id = 1;
  m.start_ns = 200;
  m.end_ns = 300;
  m.bytes = 4;
  m.copy_kind = CopyKind::kDtoH;
  m.correlation_id = 2;
  t.memcpys.Append(m);
  // pid 10 launched on device 0 only (corr 1).
  t.api_calls.Append(Api(t, 10, 0, 10, "cudaLaunchKernel", 211, 1));
  t.api_calls.Append(Api(t, 10, 110, 150, "cudaStreamSynchronize", 131));
  t.api_calls.Append(Api(t, 10, 160, 170, "cudaStreamSynchronize", 131));
  // pid 30: a blocking cudaMemcpy whose copy ran on device 1 (corr 2).
  t.api_calls.Append(Api(t, 30, 190, 310, "cudaMemcpy", 31, 2));
  // pid 20 never launched anything: counted on every device.
  t.api_calls.Append(Api(t, 20, 0, 1000, "cudaDeviceSynchronize", 165));
  t.api_calls.Append(Api(t, 20, 0, 5, "cudaStreamWaitEvent", kMissingI32));
  model::SyncRow sy;
  sy.device_id = 0;
  sy.start_ns = 120;
  sy.end_ns = 150;
  sy.kind = model::SyncKind::kStreamSynchronize;
  t.syncs.Append(sy);
  t.Finalize();
  TraceSummary s = SummarizeDevices(t, {});
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_TRUE(s.host_api_attributed_to_all);
  const DeviceSummary& d0 = s.devices[0];
  const DeviceSummary& d1 = s.devices[1];
  // Device 0: cudaDeviceSynchronize, cudaStreamSynchronize x2, cudaStreamWaitEvent (by name).
  ASSERT_EQ(d0.sync_apis.size(), 3u);
  EXPECT_EQ(d0.sync_apis[0].name, "cudaDeviceSynchronize");
  EXPECT_EQ(d0.sync_apis[0].total_ns, 1000);
  EXPECT_EQ(d0.sync_apis[1].name, "cudaStreamSynchronize");
  EXPECT_EQ(d0.sync_apis[1].count, 2);
  EXPECT_EQ(d0.sync_apis[1].total_ns, 50);
  EXPECT_EQ(d0.sync_apis[1].max_ns, 40);
  EXPECT_EQ(d0.sync_apis[2].name, "cudaStreamWaitEvent");
  EXPECT_FALSE(d0.sync_apis[2].host_blocking);
  // Device 1: cudaDeviceSynchronize (pid 20), cudaMemcpy (corr 2), cudaStreamWaitEvent.
  ASSERT_EQ(d1.sync_apis.size(), 3u);
  EXPECT_EQ(d1.sync_apis[1].name, "cudaMemcpy");
  EXPECT_EQ(d1.sync_apis[1].api_class, SyncApiClass::kBlockingMemcpy);
  EXPECT_EQ(d1.sync_apis[1].total_ns, 120);
  ASSERT_EQ(d0.sync_events.size(), 1u);
  EXPECT_EQ(d0.sync_events[0].kind, model::SyncKind::kStreamSynchronize);
  EXPECT_EQ(d0.sync_events[0].total_ns, 30);
  EXPECT_TRUE(d1.sync_events.empty());
  // Sync events are not busy time.
  EXPECT_EQ(d0.busy.gpu_busy_ns, 100);
}


// The device of a blocking call is the device of the first GPU event
// (kernels, then copies, in table order) with its correlation id, however the
// calls' ids jump: checked against a brute-force search, with the kernels'
// ids rising (each table searched as it is) and falling (sorted first).
TEST(SummarizeDevices, CallsFindTheFirstGpuEventOfTheirCorrelationId) {
  for (bool rising : {true, false}) {
    SCOPED_TRACE(rising ? "ids rising" : "ids falling");
    model::Trace t;
    struct Op {
      int64_t corr;
      int32_t device;
    };
    std::vector<Op> order;  // kernels, then copies: the first match wins
    for (int i = 0; i < 300; ++i) {
      const int64_t corr = rising ? 3 * i + 1 : 3 * (300 - i) + 1;
      t.kernels.Append(Kernel(t, i % 3, 7, 10 * i, 10 * i + 5, "k", corr));
      order.push_back({corr, i % 3});
    }
    for (int j = 0; j < 100; ++j) {
      model::MemcpyRow m;
      m.device_id = 3;
      m.start_ns = 5000 + 10 * j;
      m.end_ns = m.start_ns + 5;
      m.bytes = 8;
      m.copy_kind = CopyKind::kDtoH;
      // Even copies share a kernel's id (the kernel came first and wins).
      m.correlation_id = j % 2 == 0 ? 3 * j + 1 : 3 * j + 2;
      t.memcpys.Append(m);
      order.push_back({m.correlation_id, 3});
    }
    std::vector<int64_t> want(4, 0);
    uint32_t seed = 7;
    for (int c = 0; c < 400; ++c) {
      seed = seed * 1664525u + 1013904223u;
      const Op& target = order[(seed >> 8) % order.size()];
      const int64_t dur = 1 + c;
      t.api_calls.Append(Api(t, 10, 100 * c, 100 * c + dur, "cudaMemcpy", 31, target.corr));
      int32_t dev = -1;
      for (const Op& o : order)
        if (o.corr == target.corr) {
          dev = o.device;
          break;
        }
      want[static_cast<size_t>(dev)] += dur;
    }
    t.Finalize();
    TraceSummary s = SummarizeDevices(t, {});
    ASSERT_EQ(s.devices.size(), 4u);
    for (const DeviceSummary& d : s.devices) {
      SCOPED_TRACE(d.device_id);
      int64_t got = 0;
      for (const auto& a : d.sync_apis)
        if (a.name == "cudaMemcpy") got = a.total_ns;
      EXPECT_EQ(got, want[static_cast<size_t>(d.device_id)]);
    }
  }
}

}  // namespace
}  // namespace gpuwhy::analysis
