// Unit tests of FindLoopPhases on hand-built one-device traces.
#include "analysis/steps/run_phases.h"

#include <gtest/gtest.h>

namespace gpuwhy::analysis::run_phases_test {
namespace {

constexpr int64_t kMs = kNsPerMs;

void Kernel(model::Trace& t, int64_t s, int64_t e) {
  model::KernelRow k;
  k.device_id = 0;
  k.start_ns = s;
  k.end_ns = e;
  k.name = t.strings.Intern("k");
  t.kernels.Append(k);
}

void Copy(model::Trace& t, int64_t s, int64_t e) {
  model::MemcpyRow m;
  m.device_id = 0;
  m.start_ns = s;
  m.end_ns = e;
  m.copy_kind = model::CopyKind::kHtoD;
  t.memcpys.Append(m);
}

// Set-up uploads (weights) before the first kernel that do not recur in the
// loop: the loop starts at the first kernel.
TEST(RunPhases, UploadsOnlyBeforeTheLoopAreSetUp) {
  model::Trace t;
  for (int i = 0; i < 500; ++i) Copy(t, i * kMs, i * kMs + kMs / 10);  // 0.5 s of uploads
  for (int i = 0; i < 100; ++i) Kernel(t, 2000 * kMs + i * 10 * kMs, 2000 * kMs + i * 10 * kMs + 9 * kMs);
  const LoopPhases p = FindLoopPhases(t, 0, 0, 3000 * kMs);
  ASSERT_TRUE(p.has_loop);
  EXPECT_EQ(p.loop_start_ns, 2000 * kMs);
  EXPECT_EQ(p.loop_end_ns, 2999 * kMs);
  EXPECT_EQ(p.setup_ns(), 2000 * kMs);
  EXPECT_EQ(p.teardown_ns(), kMs);
}

// A copy-compute-copy loop: its first copies come before the first kernel
// and belong to the loop (copies are GPU work).
TEST(RunPhases, CopiesThatRecurInTheLoopBelongToIt) {
  model::Trace t;
  for (int i = 0; i < 20; ++i) {
    const int64_t s = 5 * kMs + i * 50 * kMs;  // 20 iterations
    Copy(t, s, s + 10 * kMs);
    Kernel(t, s + 12 * kMs, s + 14 * kMs);
    Copy(t, s + 15 * kMs, s + 25 * kMs);
  }
  const LoopPhases p = FindLoopPhases(t, 0, 0, 1000 * kMs);
  ASSERT_TRUE(p.has_loop);
  EXPECT_EQ(p.loop_start_ns, 5 * kMs);  // the first copy
  EXPECT_EQ(p.loop_end_ns, 5 * kMs + 19 * 50 * kMs + 25 * kMs);  // the last copy back
  EXPECT_EQ(p.setup_ns(), 5 * kMs);
}

// One kernel in a capture of set-up, or a short burst of a few in a long
// capture, is no loop: the capture is the window.
TEST(RunPhases, OneKernelOrAShortBurstIsNoLoop) {
  model::Trace t;
  Copy(t, 0, kMs);
  Kernel(t, 500 * kMs, 600 * kMs);
  LoopPhases p = FindLoopPhases(t, 0, 0, 1000 * kMs);
  EXPECT_FALSE(p.has_loop);
  EXPECT_EQ(p.loop_start_ns, 0);
  EXPECT_EQ(p.loop_end_ns, 1000 * kMs);
  EXPECT_EQ(p.setup_ns(), 0);

  model::Trace burst;  // 3 ms of kernels in a 2 s capture: 0.15%
  for (int i = 0; i < 3; ++i) Kernel(burst, 1000 * kMs + i * kMs, 1000 * kMs + (i + 1) * kMs);
  EXPECT_FALSE(FindLoopPhases(burst, 0, 0, 2000 * kMs).has_loop);
  Kernel(burst, 1100 * kMs, 1101 * kMs);  // now 101 ms of the 2 s (5.05%): a loop
  EXPECT_TRUE(FindLoopPhases(burst, 0, 0, 2000 * kMs).has_loop);
}

// NVTX ranges named like a step are step markers too: each window ends
// when the kernel launched inside it ends, and the windows tile.
TEST(RunPhases, NvtxStepRangesAreMarkers) {
  model::Trace t;
  for (int i = 0; i < 3; ++i) {
    const int64_t s = i * 10 * kMs;
    model::RangeRow r;
    r.pid = 1;
    r.tid = 1;
    r.start_ns = s;
    r.end_ns = s + 2 * kMs;
    r.kind = model::RangeKind::kNvtx;
    r.name = t.strings.Intern("train_step");
    t.ranges.Append(r);
    model::ApiRow a;
    a.pid = 1;
    a.tid = 1;
    a.start_ns = s + kMs;
    a.end_ns = s + kMs + 10'000;
    a.correlation_id = i + 1;
    a.name = t.strings.Intern("cudaLaunchKernel");
    t.api_calls.Append(a);
    model::KernelRow k;
    k.device_id = 0;
    k.start_ns = s + 3 * kMs;
    k.end_ns = s + 7 * kMs;
    k.correlation_id = i + 1;
    k.name = t.strings.Intern("k");
    t.kernels.Append(k);
  }
  t.Finalize();
  const RunSteps run = BuildRunSteps(t);
  const DeviceSteps* d = run.Find(0);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->from_markers);
  ASSERT_EQ(d->windows.size(), 3u);
  EXPECT_EQ(d->windows[0].start_ns, 0);
  EXPECT_EQ(d->windows[0].end_ns, 10 * kMs);  // tiled to the next step's start
  EXPECT_EQ(d->windows[2].end_ns, 27 * kMs);  // the last kernel's end
  EXPECT_FALSE(d->phases.has_loop);
}

TEST(RunPhases, MissingWindowIsNoLoop) {
  model::Trace t;
  Kernel(t, 0, kMs);
  Kernel(t, kMs, 2 * kMs);
  EXPECT_FALSE(FindLoopPhases(t, 0, kMissingI64, kMs).has_loop);
  EXPECT_FALSE(FindLoopPhases(t, 0, kMs, kMs).has_loop);
}

}  // namespace
}  // namespace gpuwhy::analysis::run_phases_test
