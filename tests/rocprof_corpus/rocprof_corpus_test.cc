// Corpus test: every rocprofv3 / rocprof v1 / RPD file in
// ../shared/traces/rocprof is recognised by content and imports, or is
// refused in one line when it holds no timeline; row counts are the ones
// SOURCES.md states for each file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "import/registry.h"
#include "import/rocm/rocprof_parts.h"

namespace gpuwhy::import {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/rocprof";
const std::string kJim = "jimw567__rocprof-unified-viewer/tests/fixtures/";
const std::string kSdk = "ROCm__rocprofiler-sdk/source/docs/data/";
const std::string kHip = "shashankparsi__HIP_Programming/";
const std::string kKit = "HazyResearch__HipKittens/analysis/paper_experiments/phases/ds_write_b64/out/";
const std::string kRpd = "ROCm__rocmProfileData/examples/rocm-profile-data/results/matmul_result.rpd";

bool HaveCorpus() { return fs::exists(kDir + "/SOURCES.md"); }

// FindResults: the HPCTrainingExamples folder name holds ':' and a date;
// found by walking rather than spelled out.
std::string HpcFile(const std::string& name) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kDir + "/amd__HPCTrainingExamples", ec), end;
       !ec && it != end; it.increment(ec))
    if (it->path().filename() == name) return it->path().string();
  return "";
}

model::Trace MustImport(const std::string& path) {
  Result<model::Trace> r = ImportFile(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : model::Trace{};
}

struct Case {
  std::string file;
  const char* format;
  const char* part;
  size_t kernels, api_calls, memcpys;
};

TEST(RocprofCorpus, CountsMatchSources) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  const Case cases[] = {
      // "144 rows", "920 rows", "1128 dispatches", "5 hipGraphLaunch rows".
      {kJim + "decode_kernel_trace.csv", "rocprofv3-csv", "kernel_trace", 144, 0, 0},
      {kJim + "decode_hip_api_trace.csv", "rocprofv3-csv", "api_trace", 0, 920, 0},
      {kJim + "prefill_kernel_trace.csv", "rocprofv3-csv", "kernel_trace", 1128, 0, 0},
      {kJim + "prefill_hip_api_trace.csv", "rocprofv3-csv", "api_trace", 0, 5, 0},
      // "7 dispatches on 4 queues", "2 rows (H2D, D2H)".
      {kSdk + "kernel_trace.csv", "rocprofv3-csv", "kernel_trace", 7, 0, 0},
      {kSdk + "memory_copy_trace.csv", "rocprofv3-csv", "memory_copy_trace", 0, 0, 2},
      // results.db: OPS (1 kernel), COPY (3 copies), HIP (13 calls).
      {kHip + "results.db", "rocprof-v1-db", "", 1, 13, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    model::Trace t = MustImport(kDir + "/" + c.file);
    EXPECT_EQ(t.info.format, c.format);
    if (*c.part) EXPECT_EQ(t.info.format_version, c.part);
    EXPECT_EQ(t.kernels.size(), c.kernels);
    EXPECT_EQ(t.api_calls.size(), c.api_calls);
    EXPECT_EQ(t.memcpys.size(), c.memcpys);
  }
}

TEST(RocprofCorpus, SdkKernelTraceUsesFourQueues) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  model::Trace t = MustImport(kDir + "/" + kSdk + "kernel_trace.csv");
  std::vector<int64_t> queues;
  for (int64_t q : t.kernels.stream_id)
    if (std::find(queues.begin(), queues.end(), q) == queues.end()) queues.push_back(q);
  EXPECT_EQ(queues.size(), 4u);
}

TEST(RocprofCorpus, V1ResultsCsvOnOneGpu) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  std::string path = HpcFile("results.csv");
  ASSERT_FALSE(path.empty());
  model::Trace t = MustImport(path);
  EXPECT_EQ(t.info.format, "rocprof-v1-csv");
  // SOURCES.md: "~1000 dispatches" (the file holds 1024) on one MI250X GCD.
  EXPECT_GE(t.kernels.size(), 1000u);
  EXPECT_LE(t.kernels.size(), 1100u);
  EXPECT_EQ(t.devices.size(), 1u);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_TRUE(IsValid(t.kernels.grid_x[i]));
    ASSERT_GT(t.kernels.block_x[i], 0);
  }
}

TEST(RocprofCorpus, RpdOpsAndApiRows) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  model::Trace t = MustImport(kDir + "/" + kRpd);
  EXPECT_EQ(t.info.format, "rpd-sqlite");
  // SOURCES.md: "85 GPU ops / 125 API rows".
  EXPECT_EQ(t.kernels.size() + t.memcpys.size() + t.memsets.size(), 85u);
  EXPECT_EQ(t.api_calls.size() + t.ranges.size(), 125u);
  // Every kernel op has its launch (rocpd_api_ops).
  size_t joined = 0;
  for (int64_t c : t.kernels.correlation_id) joined += IsValid(c);
  EXPECT_EQ(joined, t.kernels.size());
  bool sclk = false;
  for (const model::CounterSeries& s : t.counters) sclk = sclk || t.Str(s.name) == "sclk";
  EXPECT_TRUE(sclk);
}

TEST(RocprofCorpus, CounterCollectionAndAgentInfoOfOneRun) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  std::vector<std::string> paths = {kDir + "/" + kKit + "hit_rate_counter_collection.csv",
                                    kDir + "/" + kKit + "hit_rate_agent_info.csv"};
  std::vector<model::Trace> traces;
  for (const std::string& p : paths) traces.push_back(MustImport(p));
  // SOURCES.md: "241 rows over 30 kernels", one counter, "Agent 2".
  size_t samples = 0;
  for (const model::CounterSeries& s : traces[0].counters) samples += s.value.size();
  EXPECT_EQ(samples, 241u);
  EXPECT_EQ(traces[0].counters.size(), 1u);
  // "2 CPU + 8 GPU agents".
  EXPECT_EQ(traces[1].devices.size(), 8u);
  ASSERT_TRUE(MergeRocprofParts(traces, paths).ok());
  ASSERT_EQ(traces.size(), 1u);
  ASSERT_EQ(traces[0].devices.size(), 1u);
  EXPECT_EQ(traces[0].devices[0].device_id, 2);
  EXPECT_EQ(traces[0].devices[0].sm_count, 256);
  EXPECT_NE(traces[0].Str(traces[0].devices[0].name).find("gfx950"), std::string::npos);
}

TEST(RocprofCorpus, DecodeStallCountersHaveTenCounters) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  model::Trace t = MustImport(kDir + "/" + kJim + "decode_stall_counter_collection.csv");
  size_t samples = 0;
  for (const model::CounterSeries& s : t.counters) samples += s.value.size();
  EXPECT_EQ(samples, 340u);  // "340 rows"
  EXPECT_EQ(t.counters.size(), 10u);  // ten counters named in SOURCES.md, one agent
}

TEST(RocprofCorpus, KernelsJoinHipCallsWhenGivenTogether) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  std::vector<std::string> paths = {kDir + "/" + kJim + "decode_hip_api_trace.csv",
                                    kDir + "/" + kJim + "decode_kernel_trace.csv"};
  std::vector<model::Trace> traces;
  for (const std::string& p : paths) traces.push_back(MustImport(p));
  ASSERT_TRUE(MergeRocprofParts(traces, paths).ok());
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].kernels.size(), 144u);
  EXPECT_EQ(traces[0].api_calls.size(), 920u);
  EXPECT_EQ(traces[0].info.format_version, "kernel_trace+api_trace");
}

// Files without a timeline: one line saying what they are, never an idle GPU.
TEST(RocprofCorpus, SummariesAndUntimedFilesAreRefusedInOneLine) {
  if (!HaveCorpus()) GTEST_SKIP() << "SKIPPED: ../shared/traces/rocprof not present";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {kDir + "/" + kHip + "results.stats.csv", "summary (1 names"},
      {kDir + "/" + kHip + "results.hip_stats.csv", "summary"},
      {kDir + "/" + kHip + "results.copy_stats.csv", "summary"},
      {kDir + "/" + kSdk + "hip_api_stats.csv", "summary"},
      {HpcFile("results.stats.csv"), "summary"},
      {HpcFile("data_movement.csv"), "counter results (1024 dispatches"},
  };
  for (const auto& [path, want] : refused) {
    SCOPED_TRACE(path);
    Result<model::Trace> r = ImportFile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
  // Parts that import but hold no GPU event are refused when alone.
  for (const std::string& f : {kSdk + "counter_collection.csv", kKit + "hit_rate_agent_info.csv",
                               kJim + "prefill_hip_api_trace.csv"}) {
    SCOPED_TRACE(f);
    std::vector<std::string> paths = {kDir + "/" + f};
    std::vector<model::Trace> traces;
    traces.push_back(MustImport(paths[0]));
    Status s = MergeRocprofParts(traces, paths);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("no kernel dispatch or memory copy"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuwhy::import
