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

RecProcessList SeenOn(int32_t device, int32_t pid) {
  RecProcessList pl;
  pl.device = device;
  pl.ts_ns = 1'500'000'000;
  RecProcess p;
  p.pid = pid;
  p.name = "python";
  pl.processes.push_back(p);
  return pl;
}

// Slurm gives each task CUDA_VISIBLE_DEVICES=<its GPU>: CUPTI calls it device
// 0, NVML knows it as GPU 1. The kernels must land on the GPU whose counters
// were sampled.
TEST(RecordingToTrace, CudaOrdinalsFollowNvmlWhereTheProcessRan) {
  Recording rec = Launcher();
  rec.traces.resize(1);  // pid 100, kernels on CUDA device 0
  rec.traces[0].rank = kMissingI32;
  rec.process_lists.push_back(SeenOn(1, 100));
  model::Trace t;
  RecordingToTrace(rec, t);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.device_id[0], 1);
  bool said = false;
  for (size_t i = 0; i < t.markers.size(); ++i)
    said = said || t.Str(t.markers.name[i]).find("CUDA device 0 is GPU 1") != std::string_view::npos;
  EXPECT_TRUE(said);
  // The rank split uses the same mapping: rank 0's part samples GPU 1.
  Recording two = Launcher();
  two.traces.resize(2);
  two.traces[1].kernels = {Kernel(0, 1'300'000'000)};  // rank 1 also says "device 0"
  two.process_lists = {SeenOn(0, 100), SeenOn(1, 101)};
  std::vector<Recording> parts = SplitRecordingByRank(two);
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_EQ(parts[1].devices.size(), 1u);
  EXPECT_EQ(parts[1].devices[0].index, 1);
  model::Trace r1;
  RecordingToTrace(parts[1], r1);
  EXPECT_EQ(r1.kernels.device_id[0], 1);
}

TEST(RecordingToTrace, AnUnmatchableDeviceSetKeepsCudaNumbersAndSaysSo) {
  Recording rec = Launcher();
  rec.traces.resize(1);
  rec.traces[0].rank = kMissingI32;
  rec.traces[0].kernels.push_back(Kernel(1, 1'300'000'000));  // CUDA devices 0 and 1
  rec.process_lists = {SeenOn(0, 100), SeenOn(1, 100)};
  rec.process_lists.push_back(SeenOn(2, 100));  // NVML: three GPUs
  model::Trace t;
  RecordingToTrace(rec, t);
  EXPECT_EQ(t.kernels.device_id[0], 0);
  bool said = false;
  for (size_t i = 0; i < t.markers.size(); ++i)
    said = said || t.Str(t.markers.name[i]).find("keep the CUDA numbers") != std::string_view::npos;
  EXPECT_TRUE(said);
  // No NVML evidence (another PID namespace): CUDA numbers, silently.
  Recording quiet = Launcher();
  quiet.traces.resize(1);
  quiet.traces[0].rank = kMissingI32;
  model::Trace q;
  RecordingToTrace(quiet, q);
  EXPECT_EQ(q.kernels.device_id[0], 0);
}

}  // namespace
}  // namespace gpuwhy::import
