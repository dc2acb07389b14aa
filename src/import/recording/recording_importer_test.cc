#include "import/recording/recording_importer.h"

#include <gtest/gtest.h>

namespace gpuwhy::import {
namespace {

wire::WireKernel Kernel(uint32_t device, int64_t start) {
  wire::WireKernel k{};
  k.start_ns = start;
  k.end_ns = start + 1000;
  k.device = device;
  k.context = 1;
  k.stream = 7;
  k.correlation = wire::kTraceMissingU32;
  k.graph_id = 0;
  return k;
}

// Two GPUs sampled, three CUDA processes: rank 0 on GPU 0, rank 1 on GPU 1,
// and one without a RANK (it ran on GPU 0).
Recording Launcher() {
  Recording rec;
  rec.version_major = 1;
  rec.version_minor = 2;
  rec.has_run = true;
  rec.run.hostname = "node";
  for (int d = 0; d < 2; ++d) {
    RecDevice dev;
    dev.index = d;
    dev.name = "GPU";
    rec.devices.push_back(dev);
    RecSeries s;
    s.id = static_cast<uint16_t>(d);
    s.device = d;
    s.kind = static_cast<uint16_t>(model::CounterKind::kGpuUtil);
    s.ts_ns = {1'000'000'000, 2'000'000'000};
    s.value = {0.5, 0.6};
    rec.series.push_back(s);
    RecEvent used;
    used.ts_ns = 1'000'000'000;
    used.kind = static_cast<uint16_t>(RecEventKind::kDeviceUsed);
    used.device = d;
    rec.events.push_back(used);
  }
  for (int i = 0; i < 3; ++i) {
    RecTrace t;
    t.pid = 100 + i;
    t.rank = i < 2 ? i : kMissingI32;
    t.world_size = i < 2 ? 2 : kMissingI32;
    t.local_rank = t.rank;
    t.start_wall_ns = 1'000'000'000;
    const uint32_t dev = i == 1 ? 1 : 0;
    t.kernels = {Kernel(dev, 1'100'000'000), Kernel(dev, 1'200'000'000)};
    rec.traces.push_back(t);
  }
  return rec;
}

TEST(SplitRecordingByRank, OnePartPerRankWithItsGpus) {
  std::vector<Recording> parts = SplitRecordingByRank(Launcher());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].run.rank, 0);
  EXPECT_EQ(parts[1].run.rank, 1);
  EXPECT_EQ(parts[1].run.world_size, 2);
  EXPECT_EQ(parts[1].run.local_rank, 1);
  // Rank 0 takes the stream without a RANK, and says so.
  ASSERT_EQ(parts[0].traces.size(), 2u);
  EXPECT_EQ(parts[0].traces[1].pid, 102);
  bool noted = false;
  for (const RecEvent& e : parts[0].events) noted = noted || e.text.find("process 102 carried no RANK") != std::string::npos;
  EXPECT_TRUE(noted);
  ASSERT_EQ(parts[1].traces.size(), 1u);
  EXPECT_EQ(parts[1].traces[0].pid, 101);
  // Only the GPUs a rank used; series slots stay (ids index them), emptied.
  ASSERT_EQ(parts[1].devices.size(), 1u);
  EXPECT_EQ(parts[1].devices[0].index, 1);
  ASSERT_EQ(parts[1].series.size(), 2u);
  EXPECT_TRUE(parts[1].series[0].ts_ns.empty());
  EXPECT_EQ(parts[1].series[1].ts_ns.size(), 2u);

  model::Trace t1;
  RecordingToTrace(parts[1], t1);
  EXPECT_EQ(t1.rank.rank, 1);
  EXPECT_EQ(t1.rank.world_size, 2);
  EXPECT_EQ(t1.kernels.size(), 2u);
  ASSERT_EQ(t1.devices.size(), 1u);
  EXPECT_EQ(t1.devices[0].device_id, 1);
  ASSERT_EQ(t1.counters.size(), 1u);
  EXPECT_EQ(t1.counters[0].device_id, 1);
  model::Trace t0;
  RecordingToTrace(parts[0], t0);
  EXPECT_EQ(t0.kernels.size(), 4u);
}

TEST(SplitRecordingByRank, NothingToSplitWithOneRankOrNone) {
  Recording one = Launcher();
  one.traces.resize(1);
  EXPECT_TRUE(SplitRecordingByRank(one).empty());
  Recording none = Launcher();
  for (RecTrace& t : none.traces) t.rank = kMissingI32;
  EXPECT_TRUE(SplitRecordingByRank(none).empty());
  EXPECT_TRUE(SplitRecordingByRank(Recording{}).empty());
}

}  // namespace
}  // namespace gpuwhy::import
