// Unit test of the cross-rank "all ranks idle together" test on digests built
// here: which idle gaps it counts (SlowHostIdle), with known answers.
#include "analysis/detectors/multi_gpu_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

namespace gpuwhy::analysis::detectors {
namespace {

constexpr int64_t kStepNs = 10 * kNsPerMs;

// Digest: one rank with one 10 ms step window from `t0` and `idle` in it.
RankDigest Digest(int64_t t0, IntervalList idle) {
  RankDigest d;
  PrimaryDigest p;
  p.device_id = 0;
  StepWindow w;
  w.step = 1;
  w.start_ns = t0;
  w.end_ns = t0 + kStepNs;
  w.host_start_ns = t0;
  w.host_end_ns = t0 + kStepNs;
  p.steps = {w};
  p.steps_from_markers = true;
  p.steps_total_ns = kStepNs;
  p.idle_ns = TotalLength(idle);
  p.compute_in_steps_ns = kStepNs - p.idle_ns;
  p.idle = std::move(idle);
  d.primary = std::move(p);
  return d;
}

// SlowHostRatio: the slow-host finding's common idle share, or -1 without it.
double SlowHostRatio(const std::vector<RankDigest>& digests) {
  std::vector<RankInput> ranks;
  for (size_t i = 0; i < digests.size(); ++i)
    ranks.push_back({&digests[i], static_cast<int32_t>(i), 0});
  for (const Finding& f : DetectCrossRank(ranks))
    if (f.id == "imbalance.slow_host") return f.lost_step_ratio;
  return -1;
}

TEST(SlowHostIdle, CutsToWholeMicrosecondsAndDropsShortGaps) {
  const IntervalList in = {
      {-65'500, -15'200},    // negative times: [-65 µs, -16 µs), 49 µs, kept
      {1'500, 31'500},       // 30 µs long, but 29 whole µs: dropped
      {100'000, 130'000},    // exactly 30 µs on the grid: kept as is
      {200'001, 200'999},    // no whole µs in it
      {300'000, 329'999},    // 29.999 µs: dropped
      {400'700, 2'000'300},  // [401 µs, 2000 µs)
  };
  const IntervalList want = {{-65'000, -16'000}, {100'000, 130'000}, {401'000, 2'000'000}};
  const IntervalList got = SlowHostIdle(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].start_ns, want[i].start_ns) << i;
    EXPECT_EQ(got[i].end_ns, want[i].end_ns) << i;
  }
  const IntervalList again = SlowHostIdle(got);  // idempotent
  ASSERT_EQ(again.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(again[i].start_ns, got[i].start_ns);
    EXPECT_EQ(again[i].end_ns, got[i].end_ns);
  }
}

// A summary read from disk may hold any int64: the edges of the range round
// without overflow, and an edge with no grid point beyond it drops its interval.
TEST(SlowHostIdle, ExtremeTimesDoNotOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const IntervalList got = SlowHostIdle({
      {kMin, kMin + 100'000},  // [-9223372036854775000, -9223372036854676000)
      {kMin + 200'000, kMin + 200'500},
      {kMax - 100'000, kMax},  // [9223372036854676000, 9223372036854775000)
  });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].start_ns, -9'223'372'036'854'775'000);
  EXPECT_EQ(got[0].end_ns, -9'223'372'036'854'676'000);
  EXPECT_EQ(got[1].start_ns, 9'223'372'036'854'676'000);
  EXPECT_EQ(got[1].end_ns, 9'223'372'036'854'775'000);
  // The whole range: kept (its length exceeds int64, not the threshold);
  // starts past the last grid point or ends before the first: dropped.
  EXPECT_EQ(SlowHostIdle({{kMin, kMax}}).size(), 1u);
  EXPECT_TRUE(SlowHostIdle({{kMax - 500, kMax}}).empty());
  EXPECT_TRUE(SlowHostIdle({{kMin, kMin + 500}}).empty());
}

// Ranks in lock step share their launch gaps (here 200 gaps of 20 µs, 40% of
// the step, at the same instants on every rank): launch overhead, which
// launch_bound.fragmented reports per rank, not a slow host.
TEST(CrossRankSlowHost, SharedShortGapsAreNotASlowHost) {
  IntervalList fine;
  for (int i = 0; i < 200; ++i) fine.push_back({i * 50'000, i * 50'000 + 20'000});
  std::vector<RankDigest> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(Digest(0, fine));
  EXPECT_EQ(SlowHostRatio(ranks), -1);

  // One 2 ms stall on every rank at the same time (plus the fine gaps) is.
  for (RankDigest& d : ranks) {
    d.primary->idle.push_back({5'000'000, 7'000'000});
    std::sort(d.primary->idle.begin(), d.primary->idle.end(),
              [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  }
  EXPECT_DOUBLE_EQ(SlowHostRatio(ranks), 0.2);
}

// Only the overlap counts, and a digest that still holds every gap on a
// nanosecond clock (a summary written before SlowHostIdle) gives the finding
// of the digest DigestRank writes now.
TEST(CrossRankSlowHost, OldDigestsGiveTheSameFinding) {
  std::vector<RankDigest> raw, now;
  for (int r = 0; r < 3; ++r) {
    IntervalList idle;
    for (int i = 0; i < 50; ++i) idle.push_back({i * 90'000 + 7, i * 90'000 + 13'400});  // short
    // 1.2 ms stalls, shifted 100.25 µs per rank: 1.0 ms common, ragged ends.
    idle.push_back({5'000'000 + r * 100'250, 5'000'000 + r * 100'250 + 1'200'000});
    raw.push_back(Digest(0, idle));
    now.push_back(Digest(0, SlowHostIdle(idle)));
  }
  EXPECT_EQ(now[0].primary->idle.size(), 1u);
  const double want = (1'200'000.0 - 2 * 100'250 - 500) / kStepNs;  // whole µs of the overlap
  EXPECT_DOUBLE_EQ(SlowHostRatio(now), want);
  EXPECT_DOUBLE_EQ(SlowHostRatio(raw), want);
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
