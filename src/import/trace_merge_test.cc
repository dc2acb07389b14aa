// Unit tests of MergeCounterInputs on traces built here: overlap, a
// time-zone shift, no overlap, untimed logs, device mapping, clipping.
#include "import/trace_merge.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

#include "import/smi/smi_csv_importer.h"

namespace gpuwhy::import {
namespace {

constexpr int64_t kT0 = 1700000000LL * kNsPerS;  // 2023-11-14 22:13:20 UTC

// EventTrace: one kernel per 10 ms over [kT0, kT0 + 1 s) on device `dev`.
model::Trace EventTrace(int32_t dev = 0, int64_t bus = kMissingI64) {
  model::Trace t;
  t.info.format = "kineto-json";
  model::Device& d = t.GetOrAddDevice(dev);
  d.pcie_bus_id = bus;
  for (int i = 0; i < 100; ++i) {
    model::KernelRow k;
    k.device_id = dev;
    k.start_ns = kT0 + i * 10 * kNsPerMs;
    k.end_ns = k.start_ns + 5 * kNsPerMs;
    k.name = t.strings.Intern("gemm");
    t.kernels.Append(k);
  }
  t.Finalize();
  return t;
}

// SmiTrace: an nvidia-smi log every 100 ms from `start_ns` for `n` samples.
model::Trace SmiTrace(int64_t start_ns, int n, const char* index = "0") {
  std::string log = "timestamp, index, utilization.gpu [%]\n";
  for (int i = 0; i < n; ++i) {
    int64_t ns = start_ns + i * 100 * kNsPerMs;
    time_t s = static_cast<time_t>(ns / kNsPerS);
    int64_t ms = ns / kNsPerMs % 1000;
    std::tm tm{};
    gmtime_r(&s, &tm);
    char when[64], line[128];
    std::strftime(when, sizeof when, "%Y/%m/%d %H:%M:%S", &tm);
    std::snprintf(line, sizeof line, "%s.%03lld, %s, 50 %%\n", when, static_cast<long long>(ms),
                  index);
    log += line;
  }
  model::Trace t;
  EXPECT_TRUE(ReadSmiCsvText(log, t).ok());
  t.info.format = "nvidia-smi-csv";
  return t;
}

TEST(TraceMerge, OverlappingLogMergesWithoutShift) {
  std::vector<model::Trace> traces;
  traces.push_back(EventTrace());
  traces.push_back(SmiTrace(kT0 - 5 * kNsPerS, 200));  // 20 s around the 1 s trace
  traces[1].info.import_notes.push_back("`util` read as GPU utilization");
  std::vector<std::string> paths = {"trace.json", "gpu_log.csv"};
  ASSERT_TRUE(IsCounterOnly(traces[1]));
  std::vector<MergeNote> notes = MergeCounterInputs(traces, paths);
  ASSERT_EQ(notes.size(), 1u);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(paths[0], "trace.json");
  EXPECT_EQ(notes[0].offset_ns, 0);
  // The extent is [kT0, kT0 + 995 ms]; kept: (kT0, kT0 + 1095 ms], the
  // samples at +100 ms ... +1000 ms.
  EXPECT_EQ(notes[0].samples_kept, 10);
  EXPECT_EQ(notes[0].samples_dropped, 190);
  ASSERT_EQ(traces[0].counters.size(), 1u);
  const model::CounterSeries& s = traces[0].counters[0];
  EXPECT_EQ(s.kind, model::CounterKind::kGpuUtil);
  EXPECT_EQ(s.device_id, 0);
  EXPECT_EQ(traces[0].Str(s.source), "nvidia-smi");
  ASSERT_EQ(traces[0].info.merged_inputs.size(), 1u);
  EXPECT_NE(traces[0].info.merged_inputs[0].find("overlapping wall clock"), std::string::npos);
  // How the log was read travels with it.
  ASSERT_EQ(traces[0].info.import_notes.size(), 1u);
  EXPECT_EQ(traces[0].info.import_notes[0], "gpu_log.csv: `util` read as GPU utilization");
}

TEST(TraceMerge, LocalTimeLogIsShiftedByTheZone) {
  // A log written in UTC+8 local time and read as UTC is 8 h late; it is
  // shorter than 15 min, so exactly one shift fits.
  std::vector<model::Trace> traces;
  traces.push_back(SmiTrace(kT0 + 8 * 3600 * kNsPerS - 2 * kNsPerS, 50));
  traces.push_back(EventTrace());
  std::vector<std::string> paths = {"gpu_log.csv", "trace.json"};
  std::vector<MergeNote> notes = MergeCounterInputs(traces, paths);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].offset_ns, -8 * 3600 * kNsPerS);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(paths[0], "trace.json");
  EXPECT_NE(notes[0].how.find("-8 h"), std::string::npos) << notes[0].how;
  for (int64_t ts : traces[0].counters[0].ts_ns) {
    EXPECT_GT(ts, kT0);
    EXPECT_LE(ts, kT0 + 1100 * kNsPerMs);
  }
}

TEST(TraceMerge, NoOverlapWithinAnyZoneStaysSeparate) {
  std::vector<model::Trace> traces;
  traces.push_back(EventTrace());
  traces.push_back(SmiTrace(kT0 + 2 * 86400 * kNsPerS, 10));  // two days later
  std::vector<std::string> paths = {"trace.json", "gpu_log.csv"};
  EXPECT_TRUE(MergeCounterInputs(traces, paths).empty());
  EXPECT_EQ(traces.size(), 2u);
  EXPECT_TRUE(traces[0].counters.empty());
}

TEST(TraceMerge, UntimedLogStaysSeparate) {
  model::Trace smi;
  ASSERT_TRUE(ReadSmiCsvText("utilization.gpu [%]\n50 %\n60 %\n", smi).ok());
  std::vector<model::Trace> traces;
  traces.push_back(EventTrace());
  traces.push_back(std::move(smi));
  std::vector<std::string> paths = {"trace.json", "untimed.csv"};
  EXPECT_TRUE(MergeCounterInputs(traces, paths).empty());
  EXPECT_EQ(traces.size(), 2u);
}

TEST(TraceMerge, TwoEventTracesAreNotMerged) {
  std::vector<model::Trace> traces;
  traces.push_back(EventTrace());
  traces.push_back(EventTrace());
  std::vector<std::string> paths = {"rank0.json", "rank1.json"};
  EXPECT_TRUE(MergeCounterInputs(traces, paths).empty());
  EXPECT_EQ(traces.size(), 2u);
}

TEST(TraceMerge, DevicesMapByPciBusId) {
  // The log's GPU 1 is the trace's device 0 (same PCI bus id).
  std::vector<model::Trace> traces;
  traces.push_back(EventTrace(0, 0x1b00));
  model::Trace smi = SmiTrace(kT0 - kNsPerS, 30, "1");
  smi.GetOrAddDevice(1).pcie_bus_id = 0x1b00;
  traces.push_back(std::move(smi));
  std::vector<std::string> paths = {"trace.json", "gpu_log.csv"};
  ASSERT_EQ(MergeCounterInputs(traces, paths).size(), 1u);
  ASSERT_EQ(traces[0].counters.size(), 1u);
  EXPECT_EQ(traces[0].counters[0].device_id, 0);
}

}  // namespace
}  // namespace gpuwhy::import

namespace gpuwhy::import {
namespace {

// nsys exports count from the session start; TARGET_INFO_SESSION_START_TIME
// (info.base_time_ns) ties that clock to the wall clock.
TEST(TraceMerge, NsysSessionClockUsesTheSessionStart) {
  model::Trace nsys;
  nsys.info.format = "nsys-sqlite";
  nsys.info.clock = "nsys_session";
  nsys.info.base_time_ns = kT0;
  for (int i = 0; i < 10; ++i) {
    model::KernelRow k;
    k.device_id = 0;
    k.start_ns = 2 * kNsPerS + i * 100 * kNsPerMs;  // 2 s into the session
    k.end_ns = k.start_ns + 50 * kNsPerMs;
    k.name = nsys.strings.Intern("k");
    nsys.kernels.Append(k);
  }
  nsys.Finalize();
  std::vector<model::Trace> traces;
  traces.push_back(std::move(nsys));
  traces.push_back(SmiTrace(kT0, 60));  // 6 s of samples from the session start
  std::vector<std::string> paths = {"report1.sqlite", "gpu_log.csv"};
  std::vector<MergeNote> notes = MergeCounterInputs(traces, paths);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].offset_ns, 0);  // no zone shift: the log is in UTC
  ASSERT_EQ(traces.size(), 1u);
  const model::CounterSeries& s = traces[0].counters[0];
  ASSERT_FALSE(s.ts_ns.empty());
  // On the session clock: (2 s, 2.95 s + 100 ms].
  EXPECT_GT(s.ts_ns.front(), 2 * kNsPerS);
  EXPECT_LE(s.ts_ns.back(), 3050 * kNsPerMs);

  // Without a session start the clocks cannot be related: no merge.
  model::Trace lone;
  lone.info.clock = "nsys_session";
  model::KernelRow k;
  k.device_id = 0; k.start_ns = 0; k.end_ns = 10; k.name = lone.strings.Intern("k");
  lone.kernels.Append(k);
  lone.Finalize();
  std::vector<model::Trace> t2;
  t2.push_back(std::move(lone));
  t2.push_back(SmiTrace(kT0, 10));
  std::vector<std::string> p2 = {"a.sqlite", "b.csv"};
  EXPECT_TRUE(MergeCounterInputs(t2, p2).empty());
}

}  // namespace
}  // namespace gpuwhy::import
