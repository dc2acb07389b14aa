// Unit tests of the timeline's idle attribution and of the sync and
// fragmentation detectors on small hand-built model timelines.
#include "analysis/detectors/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <tuple>

#include "analysis/detectors/diagnosis.h"
#include "analysis/detectors/fragmentation_detector.h"
#include "analysis/detectors/sync_detector.h"

namespace gpuwhy::analysis::detectors {
namespace {

constexpr int64_t kUs = kNsPerUs;

// Builder: a one-device trace with a step range and helpers for events.
struct Builder {
  model::Trace t;
  int64_t next_corr = 1;
  int64_t tid = 1;  // thread of the ranges and calls added next (steps: thread 1)
  void Step(int32_t n, int64_t s, int64_t e) {
    model::RangeRow r;
    r.pid = 1; r.tid = 1; r.start_ns = s; r.end_ns = e; r.step = n;
    r.kind = model::RangeKind::kUserAnnotation;
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(n));
    t.ranges.Append(r);
  }
  void Range(const std::string& name, int64_t s, int64_t e,
             model::RangeKind kind = model::RangeKind::kCpuOp) {
    model::RangeRow r;
    r.pid = 1;
    r.tid = tid;
    r.start_ns = s;
    r.end_ns = e;
    r.kind = kind;
    r.name = t.strings.Intern(name);
    t.ranges.Append(r);
  }
  int64_t Api(const std::string& name, int32_t cbid, int64_t s, int64_t e) {
    model::ApiRow a;
    a.pid = 1;
    a.tid = tid;
    a.start_ns = s;
    a.end_ns = e;
    a.cbid = cbid;
    a.name = t.strings.Intern(name);
    a.correlation_id = next_corr++;
    t.api_calls.Append(a);
    return a.correlation_id;
  }
  // Kernel launched by a cudaLaunchKernel at [ls, ls+2us).
  void Kernel(int64_t launch_ns, int64_t s, int64_t e, const std::string& name = "volta_sgemm") {
    int64_t c = Api("cudaLaunchKernel", 211, launch_ns, launch_ns + 2 * kUs);
    model::KernelRow k;
    k.device_id = 0; k.stream_id = 7; k.start_ns = s; k.end_ns = e; k.correlation_id = c;
    k.name = t.strings.Intern(name);
    t.kernels.Append(k);
  }
};

// A host-wait gap (the next kernel launched after the GPU drained) whose
// host time went to `fill`: returns the device timeline.
DeviceTimeline HostWaitGap(const std::function<void(Builder&)>& fill) {
  Builder b;
  b.Step(1, 100 * kUs, 9000 * kUs);  // no gap at either edge
  b.Kernel(50 * kUs, 100 * kUs, 200 * kUs);
  fill(b);
  b.Kernel(5400 * kUs, 5410 * kUs, 9000 * kUs);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  EXPECT_GE(tl.devices.size(), 1u);  // device 1: kernels some cases launch elsewhere
  return tl.devices.empty() ? DeviceTimeline{} : tl.devices[0];
}

TEST(Timeline, HostWaitInCpuWorkIsHostBusyAndNamed) {
  DeviceTimeline d = HostWaitGap([](Builder& b) {
    b.Range("preprocess", 300 * kUs, 5300 * kUs, model::RangeKind::kUserAnnotation);
    b.Range("aten::div", 400 * kUs, 2400 * kUs);
    b.Range("aten::sub", 2500 * kUs, 5200 * kUs);
  });
  // Gap 200..5410 µs, host window the whole gap: 5 ms of CPU work, then the
  // launch call (5400..5402 µs) and the launch latency.
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 5210 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 0);
  ASSERT_GE(d.host_busy_names.size(), 3u);
  EXPECT_EQ(d.host_busy_gaps, 1);
  EXPECT_EQ(d.host_busy_window_ns, 5210 * kUs);
  // "preprocess" holds 5 ms; the ops inside it count too (2.7 ms, 2 ms).
  EXPECT_EQ(d.host_busy_names[0].ns, 5000 * kUs);
  EXPECT_EQ(d.host_busy_names[1].ns, 2700 * kUs);
  EXPECT_EQ(d.host_busy_untraced_ns, 208 * kUs);
}

TEST(Timeline, RangesStartingTogetherNestLongestFirst) {
  // The op and the annotation around it start at the same instant; the table
  // holds the shorter first (sorted by start, then end). The sweep must still
  // see the annotation as the parent.
  DeviceTimeline d = HostWaitGap([](Builder& b) {
    b.Range("aten::div", 300 * kUs, 2400 * kUs);
    b.Range("preprocess", 300 * kUs, 5300 * kUs, model::RangeKind::kUserAnnotation);
    b.Range("aten::sub", 2500 * kUs, 5200 * kUs);
  });
  ASSERT_GE(d.host_busy_names.size(), 3u);
  EXPECT_EQ(d.host_busy_names[0].ns, 5000 * kUs);
  EXPECT_EQ(d.host_busy_names[1].ns, 2700 * kUs);
  EXPECT_EQ(d.host_busy_names[2].ns, 2100 * kUs);
  EXPECT_EQ(d.host_busy_untraced_ns, 208 * kUs);
}

TEST(Timeline, LongOwnTimeOfALaunchingOpIsTheOpNotLaunchOverhead) {
  // The op that launches the next kernel ran 5.2 ms on the CPU in one piece
  // before launching: that is the op's own CPU time, not the cost of
  // launching, and the op held the gap.
  Builder b;
  b.Step(1, 100 * kUs, 9000 * kUs);
  b.Kernel(50 * kUs, 100 * kUs, 200 * kUs);
  b.Range("aten::conv2d", 250 * kUs, 5420 * kUs);
  b.Kernel(5400 * kUs, 5410 * kUs, 9000 * kUs);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 0);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 5210 * kUs);
  const IdleGap* g = nullptr;
  for (const IdleGap& x : d.gaps)
    if (x.cause == IdleCause::kHostBusy) g = &x;
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->host_what_held());
  EXPECT_EQ(b.t.Str(ItemName(b.t, g->host_what())), "aten::conv2d");
}

// LaunchesToDevice1: ops of `op_ns` each launching a 1 µs kernel on device 1
// from `s` to `e`, so device 0's gap is spent launching.
void LaunchesToDevice1(Builder& b, int64_t s, int64_t e, int64_t op_ns) {
  for (int64_t t = s; t + op_ns <= e; t += op_ns) {
    b.Range("aten::add", t, t + op_ns - kUs);
    const int64_t c = b.Api("cudaLaunchKernel", 211, t + 2 * kUs, t + 6 * kUs);
    model::KernelRow k;
    k.device_id = 1; k.stream_id = 7; k.start_ns = t + 8 * kUs; k.end_ns = t + 9 * kUs;
    k.correlation_id = c;
    k.name = b.t.strings.Intern("elementwise_kernel");
    b.t.kernels.Append(k);
  }
}

TEST(Timeline, ShortDispatchesBetweenLaunchesAreLaunchOverhead) {
  // 5 ms of 40 µs ops, each launching (elsewhere): the thread spent the gap
  // launching work.
  DeviceTimeline d = HostWaitGap([](Builder& b) { LaunchesToDevice1(b, 220 * kUs, 5380 * kUs, 40 * kUs); });
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 5210 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 0);
}

TEST(Timeline, AGapOfHundredsOfMillisecondsIsNeverLaunchOverhead) {
  // 300 ms of the same launching ops: no gap this long is "launching work".
  Builder b;
  b.Step(1, 100 * kUs, 400000 * kUs);
  b.Kernel(50 * kUs, 100 * kUs, 200 * kUs);
  LaunchesToDevice1(b, 220 * kUs, 300220 * kUs, 40 * kUs);
  b.Kernel(300250 * kUs, 300260 * kUs, 400000 * kUs);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 2u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 0);
  EXPECT_GT(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 300000 * kUs);
}

TEST(Timeline, ASyncKeepsItsRestartBubble) {
  // The sync returns 5 µs after the GPU drained; the host then launches the
  // next work (3 ms of short launching ops, elsewhere): the restart is the sync's.
  DeviceTimeline d = HostWaitGap([](Builder& b) {
    b.Api("cudaStreamSynchronize", 131, 150 * kUs, 205 * kUs);
    LaunchesToDevice1(b, 210 * kUs, 5380 * kUs, 40 * kUs);
  });
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 5210 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 0);
}

TEST(Timeline, ASyncKeepsTimeTheTraceDoesNotShow) {
  // Nothing traced after the sync: no work takes the gap from it.
  DeviceTimeline d = HostWaitGap([](Builder& b) { b.Api("cudaStreamSynchronize", 131, 150 * kUs, 205 * kUs); });
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 5210 * kUs);
}

TEST(Timeline, HostWorkAfterASyncTakesTheGap) {
  // A sync owns its wait and restart, not what comes after: 5 ms of a Python
  // function that launches nothing after the sync returned hold the gap.
  DeviceTimeline d = HostWaitGap([](Builder& b) {
    b.Api("cudaStreamSynchronize", 131, 150 * kUs, 205 * kUs);
    b.Range("train.py(88): log_metrics", 210 * kUs, 5300 * kUs, model::RangeKind::kPythonFunction);
  });
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 0);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 5210 * kUs);
}

TEST(Timeline, SlowFirstLaunchIsWarmUpAndOneOff) {
  // Three steps; in the first, the first aten::cudnn_convolution's launch
  // call takes 200 ms (loading the kernel's module): warm-up, one-off, and
  // named by the call that held it; the later calls are quick.
  Builder b;
  int64_t t0 = 0;
  for (int s = 1; s <= 3; ++s) {
    const int64_t slow = s == 1 ? 200000 * kUs : 0;
    b.Step(s, t0, t0 + slow + 1000 * kUs);
    b.Range("aten::cudnn_convolution", t0 + 10 * kUs, t0 + slow + 40 * kUs);
    const int64_t c = b.Api("cudaLaunchKernel", 211, t0 + 20 * kUs, t0 + slow + 30 * kUs);
    model::KernelRow k;
    k.device_id = 0; k.stream_id = 7; k.start_ns = t0 + slow + 40 * kUs;
    k.end_ns = t0 + slow + 1000 * kUs; k.correlation_id = c;
    k.name = b.t.strings.Intern("cudnn_conv_kernel");
    b.t.kernels.Append(k);
    t0 += slow + 1000 * kUs;
  }
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  const IdleGap* g = nullptr;
  for (const IdleGap& x : d.gaps)
    if (g == nullptr || x.attributed_ns > g->attributed_ns) g = &x;
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->cause, IdleCause::kHostBusy);
  EXPECT_TRUE(g->one_off);
  EXPECT_TRUE(g->host_what_held());
  EXPECT_TRUE(g->host_what().is_api);
  const std::vector<uint32_t> first = FirstRangeRowsByName(b.t);
  EXPECT_EQ(ClassifyHold(b.t, g->host_what(), first), HoldKind::kSlowLaunch);
  const std::string what = DescribeHold(b.t, g->host_what(), HoldKind::kSlowLaunch);
  EXPECT_NE(what.find("cuDNN"), std::string::npos) << what;
  EXPECT_EQ(d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 0);
}

// pyprof / DLProf NVTX payloads read as the module and op they name.
TEST(HostActivity, ReadableRangeNameOfPyprofPayloads) {
  EXPECT_EQ(ReadableRangeName("{'mod': 'torch.nn.functional', 'op': 'max_pool2d', 'args': "
                              "[{'name': '', 'type': 'tensor'}]}"),
            "torch.nn.functional.max_pool2d");
  EXPECT_EQ(ReadableRangeName("{'op': 'relu'}"), "relu");
  EXPECT_EQ(ReadableRangeName("{'mod': 'x'}"), "{'mod': 'x'}");  // no op: as it is
  EXPECT_EQ(ReadableRangeName("aten::mm"), "aten::mm");
}

TEST(HostActivity, HolderIsTheInnermostItemCoveringMostOfTheWindow) {
  // A Python frame holds the window, an op inside it 60% of it, a call
  // inside the op 30%: the op is the innermost item covering more than half.
  // A compile annotation around the frame takes over; a window split in two
  // parts is judged on their summed length.
  for (bool compile : {false, true}) {
    Builder b;
    if (compile)
      b.Range("compile_fx.<locals>.fw_compiler_base (dynamo_timed)", 0, 2000 * kUs,
              model::RangeKind::kUserAnnotation);
    b.Range("model.py(10): forward", 50 * kUs, 1100 * kUs, model::RangeKind::kPythonFunction);
    b.Range("aten::nonzero", 300 * kUs, 900 * kUs);
    b.Api("cudaMemGetInfo", 0, 400 * kUs, 700 * kUs);
    b.t.Finalize();
    std::vector<bool> no(b.t.api_calls.size(), false);
    std::vector<ThreadWindows> q(1);
    q[0].pid = 1;
    q[0].tid = 1;
    q[0].slots = {0, 1};
    const std::vector<std::vector<Interval>> windows = {
        {{100 * kUs, 500 * kUs}, {600 * kUs, 1000 * kUs}}, {{1500 * kUs, 1600 * kUs}}};
    std::vector<HostBreakdown> got(2);
    std::vector<int> calls(2, 0);
    ComputeHostBreakdowns(
        b.t, no, no, q,
        [&](uint32_t slot, std::vector<Interval>* parts) {
          parts->insert(parts->end(), windows[slot].begin(), windows[slot].end());
        },
        [&](uint32_t slot, const HostBreakdown& br) {
          got[slot] = br;
          ++calls[slot];
        });
    EXPECT_EQ(calls[0], 1);
    EXPECT_EQ(calls[1], 1);
    ASSERT_TRUE(got[0].holder.valid());
    EXPECT_EQ(b.t.Str(ItemName(b.t, got[0].holder)),
              compile ? "compile_fx.<locals>.fw_compiler_base (dynamo_timed)" : "aten::nonzero");
    EXPECT_EQ(got[0].holder_ns, compile ? 800 * kUs : 500 * kUs);
    // Slot 1 lies outside the frame: only the compile annotation covers it.
    EXPECT_EQ(got[1].holder.valid(), compile);
    EXPECT_EQ(got[1].untraced_ns, compile ? 0 : 100 * kUs);
  }
}

TEST(Timeline, BlockingCallInsideAHostWaitIsSync) {
  // A blocking copy that starts after the GPU drained (not covering the gap
  // start) but holds most of the host's wait.
  DeviceTimeline d = HostWaitGap([](Builder& b) { b.Api("cudaMemcpy", 31, 300 * kUs, 5000 * kUs); });
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)] +
                d.idle_by_cause[static_cast<size_t>(IdleCause::kH2dSync)],
            5210 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 0);
}

TEST(Timeline, OneOffGapLeavesRecurringIdle) {
  Builder b;
  // Five 1 ms steps, busy but for a 50 µs launch gap each; step 3 has 20 ms
  // of host work before its kernel.
  int64_t t0 = 0;
  for (int s = 1; s <= 5; ++s) {
    const int64_t work = s == 3 ? 20000 * kUs : 0;
    b.Step(s, t0, t0 + work + 1000 * kUs);
    b.Kernel(t0 + work + 40 * kUs, t0 + work + 50 * kUs, t0 + work + 1000 * kUs);
    t0 += work + 1000 * kUs;
  }
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_GE(d.one_off_idle_ns, 20000 * kUs);
  int64_t recurring = 0;
  for (int64_t v : d.recurring_idle_by_cause) recurring += v;
  EXPECT_EQ(recurring + d.one_off_idle_ns, d.idle_ns);
  EXPECT_LT(recurring, 300 * kUs);
}

// The timeline matches each call's (name, kind, cbid) once per name while
// they repeat; rows that change kind or cbid under the same name must still
// be judged on their own (the blocking list equals the predicate row by row,
// and launch calls are counted the same way).
TEST(Timeline, CallsJudgedByNameKindAndCbidEvenWhenTheyChange) {
  Builder b;
  b.Step(1, 0, 100000 * kUs);
  const char* names[] = {"cudaStreamSynchronize", "cudaLaunchKernel", "cudaMemcpy", "cuCtxSynchronize"};
  const int32_t cbids[] = {131, 211, 31, kMissingI32, 17};
  const model::ApiKind kinds[] = {model::ApiKind::kRuntime, model::ApiKind::kDriver};
  uint32_t x = 12345;
  for (int i = 0; i < 400; ++i) {
    x = x * 1103515245u + 12345u;  // a fixed pseudo-random order of combinations
    model::ApiRow a;
    a.pid = 1; a.tid = 1 + static_cast<int64_t>((x >> 7) % 2);
    a.start_ns = (10 + 20 * i) * kUs;
    a.end_ns = a.start_ns + 5 * kUs;
    a.name = b.t.strings.Intern(names[(x >> 10) % 4]);
    a.cbid = cbids[(x >> 13) % 5];
    a.kind = kinds[(x >> 17) % 2];
    a.correlation_id = b.next_corr++;
    b.t.api_calls.Append(a);
  }
  b.Kernel(5, 8000 * kUs, 8100 * kUs);
  b.t.Finalize();
  const Timeline tl = BuildTimeline(b.t);
  const model::ApiTable& api = b.t.api_calls;
  std::vector<uint32_t> want;
  int64_t launches = 0;
  for (size_t i = 0; i < api.size(); ++i) {
    const std::string_view name = b.t.Str(api.name[i]);
    if (IsHostBlockingApi(name, api.kind[i], api.cbid[i])) want.push_back(static_cast<uint32_t>(i));
    if (IsLaunchApi(name, api.kind[i], api.cbid[i])) ++launches;
  }
  EXPECT_GT(want.size(), 20u);
  EXPECT_LT(want.size(), api.size() - 20);
  EXPECT_EQ(tl.blocking_api_rows, want);
  // Each blocking call's previous call on its own thread (the two threads
  // interleave at random), by a backward search.
  ASSERT_EQ(tl.blocking_prev_row.size(), want.size());
  for (size_t bi = 0; bi < want.size(); ++bi) {
    uint32_t prev = UINT32_MAX;
    for (uint32_t j = want[bi]; j-- > 0;)
      if (api.tid[j] == api.tid[want[bi]]) {
        prev = j;
        break;
      }
    EXPECT_EQ(tl.blocking_prev_row[bi], prev) << "blocking row " << want[bi];
  }
  ASSERT_EQ(tl.devices.size(), 1u);
  EXPECT_EQ(tl.devices[0].launch_api_count, launches);
}

TEST(Timeline, SetOperations) {
  IntervalList a = UnionOf({{0, 10}, {5, 20}, {30, 40}});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(TotalLength(a), 30);
  IntervalList b = UnionOf({{15, 35}});
  EXPECT_EQ(OverlapLength(a, b), 10);
  EXPECT_EQ(TotalLength(Subtract(a, b)), 20);
  EXPECT_EQ(OverlapLength(a, 8, 32), 14);
}

TEST(Timeline, AttributesGapsToDataLoaderSyncAndLaunches) {
  Builder b;
  b.Step(1, 0, 1000 * kUs);
  // DataLoader 0-300 µs with the GPU idle, then a kernel 300-400 µs.
  b.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 300 * kUs);
  b.Kernel(290 * kUs, 300 * kUs, 400 * kUs);
  // A stream sync 400-450 µs drains the GPU; the next kernel is launched at 500.
  b.Api("cudaStreamSynchronize", 131, 380 * kUs, 450 * kUs);
  b.Kernel(500 * kUs, 510 * kUs, 600 * kUs);
  // Launched late (host_wait): launch at 700, kernel 705-800 (gap 600-705).
  b.Kernel(700 * kUs, 705 * kUs, 800 * kUs);
  // Queued early, 10 µs gap: kernel_wait.
  b.Kernel(650 * kUs, 810 * kUs, 1000 * kUs);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  ASSERT_TRUE(d.steps_from_markers);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kDataLoader)], 300 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 110 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)], 105 * kUs);
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kKernelWait)], 10 * kUs);
  EXPECT_EQ(d.idle_ns, 525 * kUs);

  std::vector<Finding> s = DetectSyncs({b.t, tl, kMissingI32});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].lost_per_step_ns, 110 * kUs);
  EXPECT_NEAR(s[0].lost_step_ratio, 0.11, 1e-9);
  // The cause -> finding table names the finding the detector sets.
  EXPECT_EQ(s[0].id, CauseFindingId(IdleCause::kSync));
}

// A trace with kernels and cuda_sync events but no sync runtime call (e.g.
// runtime events filtered): the gap after the sync event is kSync, and the
// sync detector counts the event.
TEST(Timeline, CudaSyncEventsAttributeIdleWithoutRuntimeCalls) {
  Builder b;
  b.Step(1, 0, 1000 * kUs);
  b.Kernel(10 * kUs, 20 * kUs, 300 * kUs);
  // Stream sync on the host from 30 µs to 310 µs; the next kernel is
  // launched at 600 µs, so the GPU idles 300..620 µs.
  model::SyncRow sr;
  sr.device_id = 0; sr.stream_id = 7; sr.start_ns = 30 * kUs; sr.end_ns = 310 * kUs;
  sr.kind = model::SyncKind::kStreamSynchronize; sr.correlation_id = 999;
  b.t.syncs.Append(sr);
  // A stream-wait-event does not block the host and must not count.
  model::SyncRow wr = sr;
  wr.kind = model::SyncKind::kStreamWaitEvent; wr.start_ns = 700 * kUs; wr.end_ns = 705 * kUs;
  b.t.syncs.Append(wr);
  b.Kernel(600 * kUs, 620 * kUs, 900 * kUs);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.blocking_sync_rows.size(), 1u);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_EQ(d.idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 320 * kUs);
  std::vector<Finding> f = DetectSyncs({b.t, tl, kMissingI32});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "sync.host_sync");
  EXPECT_EQ(f[0].lost_per_step_ns, 320 * kUs);
  ASSERT_FALSE(f[0].examples.empty());
  EXPECT_EQ(f[0].examples[0].what, "cudaStreamSynchronize");

  // With the runtime call present (same correlation id), the event is not
  // counted twice.
  model::Trace& c = b.t;
  model::ApiRow a;
  a.pid = 1; a.tid = 1; a.start_ns = 30 * kUs; a.end_ns = 310 * kUs; a.cbid = 131;
  a.name = c.strings.Intern("cudaStreamSynchronize");
  a.correlation_id = 999;
  c.api_calls.Append(a);
  c.Finalize();
  Timeline tl2 = BuildTimeline(c);
  EXPECT_TRUE(tl2.blocking_sync_rows.empty());
  EXPECT_EQ(tl2.devices[0].idle_by_cause[static_cast<size_t>(IdleCause::kSync)], 320 * kUs);
}

TEST(Timeline, NoStepMarkersUseTheLoop) {
  Builder b;
  b.Kernel(0, 100 * kUs, 200 * kUs);
  b.Kernel(250 * kUs, 300 * kUs, 400 * kUs);
  // An upload before the first kernel that does not recur between kernels is
  // set-up: the window is the loop, and the set-up a phase of its own.
  model::MemcpyRow m;
  m.device_id = 0; m.stream_id = 7; m.start_ns = 20 * kUs; m.end_ns = 60 * kUs;
  m.copy_kind = model::CopyKind::kHtoD;
  b.t.memcpys.Append(m);
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_FALSE(d.steps_from_markers);
  EXPECT_TRUE(d.has_loop_phases);
  EXPECT_EQ(d.setup_ns, 80 * kUs);  // [20, 100): the capture before the loop
  EXPECT_EQ(d.teardown_ns, 0);
  EXPECT_EQ(d.steps_total_ns, 300 * kUs);
  EXPECT_EQ(d.idle_ns, 100 * kUs);  // the loop's idle only
  // The 40 µs of set-up idle after the upload, and the only gap between
  // kernels (which holds all the loop's idle): both one-off, nothing recurs.
  EXPECT_EQ(d.one_off_idle_ns, 140 * kUs);
  int64_t recurring = 0;
  for (int64_t v : d.recurring_idle_by_cause) recurring += v;
  EXPECT_EQ(recurring, 0);
  int64_t by_cause = 0;
  for (int64_t v : d.idle_by_cause) by_cause += v;
  EXPECT_EQ(by_cause, d.idle_ns);  // set-up gaps are outside the loop's idle
}

// The same host work on 1 or on 24 launching threads (turns taken in
// order): every GPU gap is the launching thread's 2 ms of "preprocess", so
// the attribution and the finding do not depend on the thread count. 24
// threads take the per-thread row index (host_activity.cc), one thread the
// table scan.
TEST(Timeline, HostBreakdownSameOnOneOrManyThreads) {
  auto run = [](int threads) {
    Builder b;
    const int turns = 96;
    b.Step(1, 0, turns * 2100 * kUs);
    for (int k = 0; k < turns; ++k) {
      b.tid = 1 + k % threads;
      const int64_t t0 = k * 2100 * kUs;
      b.Range("preprocess", t0, t0 + 2000 * kUs, model::RangeKind::kUserAnnotation);
      b.Range("aten::mul", t0 + 2000 * kUs, t0 + 2050 * kUs);
      b.Kernel(t0 + 2010 * kUs, t0 + 2040 * kUs, t0 + 2060 * kUs, "elementwise_kernel");
    }
    b.t.Finalize();
    Timeline tl = BuildTimeline(b.t);
    EXPECT_EQ(tl.devices.size(), 1u);
    Diagnosis d = Diagnose({&b.t}, {});
    std::string busy;
    for (const Finding& f : d.findings)
      if (f.id == "host.busy_elsewhere") busy = f.summary;
    return std::make_pair(tl.devices.empty() ? DeviceTimeline{} : tl.devices[0], busy);
  };
  const auto [one, one_busy] = run(1);
  const auto [many, many_busy] = run(24);
  EXPECT_GT(one.idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)], 90 * 2000 * kUs);
  for (size_t c = 0; c < kIdleCauseCount; ++c)
    EXPECT_EQ(one.idle_by_cause[c], many.idle_by_cause[c]) << c;
  // 2 ms of each 2.08 ms gap (the gap, launch latency included, is the window).
  EXPECT_NE(one_busy.find("preprocess 96%"), std::string::npos) << one_busy;
  EXPECT_EQ(one_busy, many_busy);
}

TEST(Diagnosis, LoneKernelInALongCaptureIsNotBusy) {
  Builder b;
  b.Kernel(50 * kNsPerMs, 50 * kNsPerMs + 10 * kUs, 51 * kNsPerMs);
  b.t.info.capture_start_ns = 0;
  b.t.info.capture_end_ns = 1000 * kNsPerMs;
  b.t.Finalize();
  Diagnosis d = Diagnose({&b.t}, {});
  EXPECT_GT(d.idle_step_ratio, 0.99);
  EXPECT_EQ(d.curve_shape, "IDLE");
  EXPECT_EQ(d.top_line.find("busy 100%"), std::string::npos) << d.top_line;
  EXPECT_NE(d.top_line.find("idle"), std::string::npos) << d.top_line;
}

TEST(Fragmentation, TinyKernelsAndGraphsNoted) {
  Builder b;
  b.Step(1, 0, 2000 * kUs);
  // 100 kernels of 5 µs, each launched only when the previous one finished.
  for (int i = 0; i < 100; ++i) {
    int64_t launch = i * 20 * kUs;
    b.Kernel(launch, launch + 12 * kUs, launch + 17 * kUs, "elementwise_kernel");
  }
  b.t.Finalize();
  Timeline tl = BuildTimeline(b.t);
  std::vector<Finding> f = DetectFragmentation({b.t, tl, kMissingI32});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, CauseFindingId(IdleCause::kHostLaunch));
  EXPECT_EQ(f[0].id, CauseFindingId(IdleCause::kKernelWait));
  double u10 = kMissingF64;
  for (const Metric& m : f[0].evidence)
    if (m.name == "kernel_under_10us_ratio") u10 = m.value;
  EXPECT_DOUBLE_EQ(u10, 1.0);
  EXPECT_GT(f[0].lost_step_ratio, 0.5);
  // No graphs in use: CUDA graphs are recommended.
  bool graphs = false;
  for (const Recommendation& r : f[0].recommendations) graphs = graphs || r.kind == FixKind::kCudaGraphs;
  EXPECT_TRUE(graphs);
}

TEST(Diagnosis, ScenarioParsing) {
  EXPECT_EQ(ParseScenario("prod"), Scenario::kProd);
  EXPECT_EQ(ParseScenario("nope"), std::nullopt);
  EXPECT_EQ(ToString(Scenario::kShared), "shared");
}

TEST(Timeline, BusyAndStartersOverKernelsCopiesAndSetsInAnyMix) {
  // Kernels, then copies and sets, each in time order (as Finalize leaves
  // them), with few copies (merged into the kernels' run) and many (sorted),
  // and with ops tying on (start, end): the busy union is the union of every
  // op, and each gap's next op is the earliest op after it (a tie goes to
  // the kernel, the first table).
  std::mt19937_64 rng(5);
  for (int copies : {0, 3, 40, 400}) {
    Builder b;
    b.Step(1, 0, 2000 * kUs);
    std::vector<Interval> all;
    for (int i = 0; i < 200; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % 1900) * kUs;
      const int64_t e = s + static_cast<int64_t>(1 + rng() % 5) * kUs;
      b.Kernel(s > 3 * kUs ? s - 3 * kUs : 0, s, e);
      all.push_back({s, e});
    }
    for (int i = 0; i < copies; ++i) {
      int64_t s = static_cast<int64_t>(rng() % 1900) * kUs;
      int64_t e = s + static_cast<int64_t>(1 + rng() % 5) * kUs;
      if (i % 4 == 0) {  // an exact tie with a kernel
        s = all[static_cast<size_t>(i) % all.size()].start_ns;
        e = all[static_cast<size_t>(i) % all.size()].end_ns;
      }
      const int64_t c = b.Api(i % 2 ? "cudaMemcpyAsync" : "cudaMemsetAsync", i % 2 ? 51 : 54, s, s + kUs);
      if (i % 2) {
        model::MemcpyRow m;
        m.device_id = 0; m.stream_id = 7; m.start_ns = s; m.end_ns = e; m.correlation_id = c;
        b.t.memcpys.Append(m);
      } else {
        model::MemsetRow m;
        m.device_id = 0; m.stream_id = 7; m.start_ns = s; m.end_ns = e; m.correlation_id = c;
        b.t.memsets.Append(m);
      }
      all.push_back({s, e});
    }
    b.t.Finalize();
    Timeline tl = BuildTimeline(b.t);
    ASSERT_EQ(tl.devices.size(), 1u) << copies;
    const DeviceTimeline& d = tl.devices[0];
    const IntervalList want_busy = UnionOf(all);
    ASSERT_EQ(d.busy.size(), want_busy.size()) << copies << " copies";
    for (size_t i = 0; i < want_busy.size(); ++i) {
      EXPECT_EQ(d.busy[i].start_ns, want_busy[i].start_ns) << copies << " copies, " << i;
      EXPECT_EQ(d.busy[i].end_ns, want_busy[i].end_ns) << copies << " copies, " << i;
    }
    // Each gap with a launch call: the call is the launch of the op that
    // begins the next busy interval, the first in (start, end) order, ties
    // going to kernels, then copies, then sets, each in table order.
    int checked = 0;
    for (const IdleGap& g : d.gaps) {
      if (g.launch_api_row == UINT32_MAX) continue;
      ++checked;
      std::tuple<int64_t, int, size_t> best{std::numeric_limits<int64_t>::max(), 9, 0};
      int64_t want = kMissingI64;
      auto consider = [&](int table, size_t row, int64_t s, int64_t e, int64_t corr) {
        if (s != g.end_ns) return;
        const std::tuple<int64_t, int, size_t> key{e, table, row};
        if (key < best) best = key, want = corr;
      };
      const model::KernelTable& k = b.t.kernels;
      for (size_t i = 0; i < k.size(); ++i) consider(0, i, k.start_ns[i], k.end_ns[i], k.correlation_id[i]);
      const model::MemcpyTable& mc = b.t.memcpys;
      for (size_t i = 0; i < mc.size(); ++i) consider(1, i, mc.start_ns[i], mc.end_ns[i], mc.correlation_id[i]);
      const model::MemsetTable& ms = b.t.memsets;
      for (size_t i = 0; i < ms.size(); ++i) consider(2, i, ms.start_ns[i], ms.end_ns[i], ms.correlation_id[i]);
      EXPECT_EQ(b.t.api_calls.correlation_id[g.launch_api_row], want) << copies << " copies";
    }
    EXPECT_GT(checked, 20) << copies << " copies";
  }
}

// OpsTrace: random kernels (compute and NCCL), copies and sets on two
// devices, each launched by its own call; some ops empty, some with a missing
// end, every valid (start, end) distinct so that no tie decides an order.
// The tables are in random order: Finalize() sorts them.
model::Trace OpsTrace(uint32_t seed) {
  std::mt19937 rng(seed);
  Builder b;
  b.Step(1, 0, 400 * kUs);
  b.Step(2, 400 * kUs, 900 * kUs);
  std::vector<int64_t> starts;
  for (int64_t t = 0; t < 900; ++t) starts.push_back(t * kUs + 7 * (t % 5));
  std::shuffle(starts.begin(), starts.end(), rng);
  for (size_t i = 0; i < 300; ++i) {
    const int64_t s = starts[i];
    const int64_t len = (i % 17 == 0) ? 0 : static_cast<int64_t>(rng() % 9) * kUs + static_cast<int64_t>(i);
    const int64_t e = (i % 41 == 0) ? kMissingI64 : s + len;
    const int32_t dev = static_cast<int32_t>(rng() % 2);
    const int64_t corr = b.Api("cudaLaunchKernel", 211, s - 3 * kUs, s - 2 * kUs);
    switch (rng() % 4) {
      case 0: {
        model::MemcpyRow m;
        m.device_id = dev; m.start_ns = s; m.end_ns = e; m.correlation_id = corr;
        b.t.memcpys.Append(m);
        break;
      }
      case 1: {
        model::MemsetRow m;
        m.device_id = dev; m.start_ns = s; m.end_ns = e; m.correlation_id = corr;
        b.t.memsets.Append(m);
        break;
      }
      default: {
        model::KernelRow k;
        k.device_id = dev; k.stream_id = 7; k.start_ns = s; k.end_ns = e; k.correlation_id = corr;
        k.name = b.t.strings.Intern(rng() % 3 == 0 ? "ncclKernel_AllReduce_RING_LL_Sum_float"
                                                   : "volta_sgemm");
        b.t.kernels.Append(k);
      }
    }
  }
  return std::move(b.t);
}

TEST(Timeline, DeviceUnionsEqualTheUnionsOfTheirOps) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    // Built on the tables in insertion order (the timeline sorts rows it
    // reads out of order) and on the Finalize()d tables: the same timeline.
    const model::Trace raw = OpsTrace(seed);
    const Timeline unsorted = BuildTimeline(raw);
    model::Trace t = OpsTrace(seed);
    t.Finalize();
    const Timeline tl = BuildTimeline(t);
    ASSERT_EQ(tl.devices.size(), unsorted.devices.size()) << "seed " << seed;
    for (size_t di = 0; di < tl.devices.size(); ++di) {
      const DeviceTimeline& d = tl.devices[di];
      std::vector<Interval> all, kernels, comm, compute;
      auto valid = [](int64_t s, int64_t e) { return IsValid(s) && IsValid(e) && e >= s; };
      for (size_t i = 0; i < t.kernels.size(); ++i) {
        if (t.kernels.device_id[i] != d.device_id) continue;
        const Interval iv{t.kernels.start_ns[i], t.kernels.end_ns[i]};
        if (!valid(iv.start_ns, iv.end_ns)) continue;
        kernels.push_back(iv);
        (t.Str(t.kernels.name[i]).starts_with("nccl") ? comm : compute).push_back(iv);
      }
      all = kernels;
      for (size_t i = 0; i < t.memcpys.size(); ++i)
        if (t.memcpys.device_id[i] == d.device_id && valid(t.memcpys.start_ns[i], t.memcpys.end_ns[i]))
          all.push_back({t.memcpys.start_ns[i], t.memcpys.end_ns[i]});
      for (size_t i = 0; i < t.memsets.size(); ++i)
        if (t.memsets.device_id[i] == d.device_id && valid(t.memsets.start_ns[i], t.memsets.end_ns[i]))
          all.push_back({t.memsets.start_ns[i], t.memsets.end_ns[i]});
      // busy keeps empty ops (a zero-length op still ends a gap); the kernel
      // unions drop them, as UnionOf does.
      std::sort(all.begin(), all.end(),
                [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
      IntervalList busy;
      for (const Interval& iv : all) {
        if (!busy.empty() && iv.start_ns <= busy.back().end_ns)
          busy.back().end_ns = std::max(busy.back().end_ns, iv.end_ns);
        else
          busy.push_back(iv);
      }
      auto same = [](const IntervalList& a, const IntervalList& b) {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(), [](const Interval& x, const Interval& y) {
                 return x.start_ns == y.start_ns && x.end_ns == y.end_ns;
               });
      };
      EXPECT_TRUE(same(d.busy, busy)) << "seed " << seed << " device " << d.device_id;
      EXPECT_TRUE(same(d.kernel_busy, UnionOf(kernels))) << "seed " << seed;
      EXPECT_TRUE(same(d.comm_busy, UnionOf(comm))) << "seed " << seed;
      EXPECT_TRUE(same(d.ComputeBusy(), UnionOf(compute))) << "seed " << seed;
      const DeviceTimeline& u = unsorted.devices[di];
      EXPECT_TRUE(same(u.busy, d.busy) && same(u.kernel_busy, d.kernel_busy) &&
                  same(u.comm_busy, d.comm_busy) && same(u.ComputeBusy(), d.ComputeBusy()))
          << "seed " << seed;
      ASSERT_EQ(u.gaps.size(), d.gaps.size()) << "seed " << seed;
      for (size_t g = 0; g < d.gaps.size(); ++g) {
        EXPECT_EQ(u.gaps[g].start_ns, d.gaps[g].start_ns);
        EXPECT_EQ(u.gaps[g].cause, d.gaps[g].cause) << "seed " << seed << " gap " << g;
        // The same launch call (rows differ: Finalize() sorts the calls).
        auto launch_ns = [](const model::Trace& tr, const IdleGap& gap) {
          return gap.launch_api_row == UINT32_MAX ? kMissingI64
                                                  : tr.api_calls.start_ns[gap.launch_api_row];
        };
        EXPECT_EQ(launch_ns(raw, u.gaps[g]), launch_ns(t, d.gaps[g])) << "seed " << seed;
      }
    }
  }
}

TEST(Timeline, ComputeBusyIsKernelBusyWithoutCommunication) {
  Builder b;
  b.Step(1, 0, 100 * kUs);
  b.Kernel(0, 10 * kUs, 20 * kUs);
  b.Kernel(0, 15 * kUs, 30 * kUs);
  b.Kernel(0, 50 * kUs, 60 * kUs);
  b.t.Finalize();
  const Timeline tl = BuildTimeline(b.t);
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_TRUE(d.comm_busy.empty());
  EXPECT_TRUE(d.compute_busy.empty());  // not stored twice
  ASSERT_EQ(d.ComputeBusy().size(), 2u);
  EXPECT_EQ(d.ComputeBusy()[0].start_ns, 10 * kUs);
  EXPECT_EQ(d.ComputeBusy()[0].end_ns, 30 * kUs);
  EXPECT_EQ(&d.ComputeBusy(), &d.kernel_busy);
}

TEST(Timeline, CorrelationIndexFindEqualsTheBinarySearchOverAllKeys) {
  // Keys without holes, with a few, with many, negative and near the int64
  // ends, without and with the bucket directory: FindRow finds exactly
  // what lower_bound over every key finds, for ids inside, between and
  // outside the keys.
  std::mt19937_64 rng(7);
  for (int64_t gap_every : {0, 50, 3, 1}) {
    for (int64_t first : {int64_t{1}, int64_t{-1000}, std::numeric_limits<int64_t>::min() + 5,
                          std::numeric_limits<int64_t>::max() - 5000}) {
      std::vector<int64_t> keys;
      std::vector<uint32_t> rows;
      int64_t id = first;
      for (uint32_t row = 0; row < 2000 && id < std::numeric_limits<int64_t>::max() - 10; ++row) {
        keys.push_back(id);
        rows.push_back(row * 3);
        id += 1 + (gap_every > 0 && rng() % static_cast<uint64_t>(gap_every) == 0 ? rng() % 40 : 0);
      }
      auto expect = [&](int64_t q) {
        auto it = std::lower_bound(keys.begin(), keys.end(), q);
        return it == keys.end() || *it != q ? UINT32_MAX
                                            : rows[static_cast<size_t>(it - keys.begin())];
      };
      CorrelationIndex index;
      index.Assign(keys, rows);
      const int64_t lo = keys.front(), hi = keys.back();
      for (bool indexed : {false, true}) {
        if (indexed) index.Index();
        EXPECT_EQ(index.indexed(), indexed);
        EXPECT_LE(index.buckets(), keys.size() / 4 + 2);
        EXPECT_FALSE(index.views_table());
        for (int64_t q = lo - 3; q <= hi + 3 && q >= lo - 3; ++q) {
          ASSERT_EQ(index.FindRow(q), expect(q)) << "id " << q << " gaps " << gap_every;
          const size_t i = index.Find(q);
          ASSERT_EQ(i == SIZE_MAX ? UINT32_MAX : index.RowAt(i), expect(q)) << "id " << q;
          if (i != SIZE_MAX) {
            ASSERT_EQ(index.KeyAt(i), q);
          }
        }
        for (int64_t q : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                          int64_t{0}})
          ASSERT_EQ(index.FindRow(q), expect(q)) << "id " << q;
      }
    }
  }
  EXPECT_EQ(CorrelationIndex().FindRow(5), UINT32_MAX);
}

TEST(Timeline, CorrelationIndexViewsARisingColumnAndCopiesAnyOther) {
  // Rising valid ids: the index is the column itself (no copy), row = index.
  // A missing id, a repeat (the first row wins) or a fall: a sorted copy.
  auto table = [](const std::vector<int64_t>& ids) {
    model::ApiTable api;
    for (int64_t id : ids) {
      model::ApiRow r;
      r.correlation_id = id;
      api.Append(r);
    }
    return api;
  };
  {
    const model::ApiTable api = table({3, 5, 9, 10});
    CorrelationIndex index;
    index.Build(api);
    EXPECT_TRUE(index.views_table());
    EXPECT_EQ(index.size(), 4u);
    EXPECT_EQ(index.FindRow(9), 2u);
    EXPECT_EQ(index.FindRow(4), UINT32_MAX);
    EXPECT_EQ(index.FindRow(11), UINT32_MAX);
  }
  for (const std::vector<int64_t>& ids :
       {std::vector<int64_t>{3, kMissingI64, 9}, std::vector<int64_t>{3, 9, 9, 12},
        std::vector<int64_t>{9, 3, 12, 3}}) {
    const model::ApiTable api = table(ids);
    CorrelationIndex index;
    index.Build(api);
    EXPECT_FALSE(index.views_table());
    for (size_t row = 0; row < ids.size(); ++row) {
      if (!IsValid(ids[row])) continue;
      const auto first =
          static_cast<uint32_t>(std::find(ids.begin(), ids.end(), ids[row]) - ids.begin());
      EXPECT_EQ(index.FindRow(ids[row]), first) << "id " << ids[row];
    }
    EXPECT_EQ(index.FindRow(kMissingI64), UINT32_MAX);
    EXPECT_EQ(index.FindRow(5), UINT32_MAX);
  }
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
