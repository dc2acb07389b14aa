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

// Anchors whose difference is past int64 (a crafted summary) leave the rank
// unshifted; ordinary ones give the difference.
TEST(AlignRanks, OffsetPastInt64LeavesTheRankUnshifted) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<RankDigest> d(3);
  for (RankDigest& r : d) {
    r.extent_start_ns = 0;
    r.extent_end_ns = kStepNs;
  }
  d[0].clock = "a";
  d[1].clock = "b";
  d[2].clock = "c";
  d[0].first_comm_end_ns = kMax - 5;
  d[1].first_comm_end_ns = kMax - 12;
  d[2].first_comm_end_ns = kMin + 3;
  std::vector<RankInput> ranks = {{&d[0], 0, 0}, {&d[1], 1, 0}, {&d[2], 2, 0}};
  AlignRanks(ranks);
  EXPECT_EQ(ranks[0].clock_offset_ns, 0);
  EXPECT_EQ(ranks[1].clock_offset_ns, 7);
  EXPECT_EQ(ranks[2].clock_offset_ns, 0);
}

// Extreme values in digests (as a summary read from disk may hold) give
// clamped figures, not overflow: the sanitizer build fails on the latter.
TEST(CrossRankSlowHost, ExtremeOffsetsAndFiguresStayInRange) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const IntervalList stall = {{2 * kNsPerMs, 8 * kNsPerMs}};
  std::vector<RankDigest> digests = {Digest(0, stall), Digest(0, stall)};
  // A shift that pushes the whole rank past the end of the range: its idle
  // clamps to nothing, so nothing is common.
  std::vector<RankInput> ranks = {{&digests[0], 0, 0}, {&digests[1], 1, kMax - kNsPerMs}};
  for (const Finding& f : DetectCrossRank(ranks)) EXPECT_NE(f.id, "imbalance.slow_host");
  // A shift that clamps the end only keeps the part still in range.
  ranks[1].clock_offset_ns = kMax - 5 * kNsPerMs;
  ranks[0].clock_offset_ns = kMax - 5 * kNsPerMs;
  double common = -1;
  for (const Finding& f : DetectCrossRank(ranks))
    if (f.id == "imbalance.slow_host") common = f.lost_step_ratio;
  // [2 ms, 8 ms) moves to [kMax - 3 ms, kMax + 3 ms): 3 ms of the 10 ms step stay.
  EXPECT_DOUBLE_EQ(common, 0.3);
  // Compute per step at the top of the range: the straggler's loss is
  // clamped, and positive.
  digests[1].primary->compute_in_steps_ns = kMax;
  ranks = {{&digests[0], 0, 0}, {&digests[1], 1, 0}};
  bool straggler = false;
  for (const Finding& f : DetectCrossRank(ranks)) {
    if (f.id != "imbalance.stragglers") continue;
    straggler = true;
    EXPECT_EQ(f.rank, 1);
    EXPECT_GT(f.lost_per_step_ns, 0);
  }
  EXPECT_TRUE(straggler);
}

}  // namespace
}  // namespace gpuwhy::analysis::detectors
