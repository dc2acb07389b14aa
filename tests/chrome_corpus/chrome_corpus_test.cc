// Corpus test for the Chrome-trace dialects: the real samples under
// ../shared/traces import, and their counts match the folders' SOURCES.md
// (parsed at runtime, so the expected values are the corpus curator's).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "import/registry.h"

namespace gpuwhy::import {
namespace {

const std::string kShared = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces";

std::vector<std::string> CorpusSplitRow(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
    cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  return cells;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// torch_legacy/SOURCES.md: | `file` | bytes | sha256 | events | pids | steps |
TEST(ChromeCorpus, TorchLegacyCountsMatchSources) {
  const std::string dir = kShared + "/torch_legacy";
  if (!std::filesystem::exists(dir + "/SOURCES.md")) GTEST_SKIP() << "SKIPPED: " << dir << " absent";
  std::ifstream in(dir + "/SOURCES.md");
  std::string line;
  int files = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c = CorpusSplitRow(line);
    if (c.size() < 7 || c[1].find(".json") == std::string::npos) continue;
    std::string file = c[1].substr(1, c[1].size() - 2);  // strip the backquotes
    const long events = std::stol(c[4]);
    std::set<int> want_steps;
    std::regex step_re("ProfilerStep#([0-9]+)");
    for (std::sregex_iterator it(c[6].begin(), c[6].end(), step_re), end; it != end; ++it)
      want_steps.insert(std::stoi((*it)[1]));
    SCOPED_TRACE(file);
    Result<model::Trace> r = ImportFile(dir + "/" + file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::Trace& t = *r;
    EXPECT_EQ(t.info.format, "torch-legacy-json");
    // Every event of these CPU-only files is a complete op on "CPU functions".
    EXPECT_EQ(static_cast<long>(t.ranges.size()), events);
    EXPECT_EQ(t.kernels.size(), 0u);
    EXPECT_TRUE(t.info.host_only_profile);
    std::set<int> steps;
    for (size_t i = 0; i < t.ranges.size(); ++i)
      if (IsValid(t.ranges.step[i])) steps.insert(t.ranges.step[i]);
    EXPECT_EQ(steps, want_steps);
    ++files;
  }
  EXPECT_EQ(files, 2) << "rows of the SOURCES.md table";
}

// rocprof/SOURCES.md describes each JSON in prose: the counts below are its
// ("13 X events" on the HIP lane, "3 H2D/D2H copies", "210 X, 85 flow s/f
// pairs"). Where the prose and the file differ it is said beside the check.
TEST(ChromeCorpus, RocprofJsonCountsMatchSources) {
  const std::string dir = kShared + "/rocprof";
  if (!std::filesystem::exists(dir + "/SOURCES.md")) GTEST_SKIP() << "SKIPPED: " << dir << " absent";
  const std::string sources = ReadAll(dir + "/SOURCES.md");
  {
    const std::string file = "shashankparsi__HIP_Programming/results.json";
    ASSERT_NE(sources.find("HIP API lane (hipMalloc/hipMemcpy/hipFree/hipDeviceSynchronize, 13 X events), COPY lane (3 H2D/D2H copies)"),
              std::string::npos);
    Result<model::Trace> r = ImportFile(dir + "/" + file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::Trace& t = *r;
    EXPECT_EQ(t.info.format_version, "rocprof-v1");
    EXPECT_EQ(t.api_calls.size() + t.ranges.size(), 13u);  // the HIP lane
    EXPECT_EQ(t.memcpys.size(), 3u);
    // SOURCES.md says "no kernel X event", but the file holds one: vector_add
    // on process "GPU4" (pid "10"), the dispatch results.stats.csv lists.
    EXPECT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels.device_id[0], 4);
    // SOURCES.md counts 4 's' and 3 't' flows; the file holds 4 of each (the
    // fourth pair is the kernel's): every GPU op is linked to its call.
    size_t linked = 0;
    for (size_t i = 0; i < t.memcpys.size(); ++i) linked += IsValid(t.memcpys.correlation_id[i]);
    for (size_t i = 0; i < t.kernels.size(); ++i) linked += IsValid(t.kernels.correlation_id[i]);
    EXPECT_EQ(linked, 4u);
  }
  {
    const std::string file = "ROCm__rocmProfileData/examples/rocm-profile-data/results/matmul_result.json";
    ASSERT_NE(sources.find("210 X, 85 flow `s`/`f` pairs, 319 counter (`C`) events"), std::string::npos);
    Result<model::Trace> r = ImportFile(dir + "/" + file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::Trace& t = *r;
    EXPECT_EQ(t.info.format_version, "rpd");
    const size_t gpu_ops = t.kernels.size() + t.memcpys.size() + t.memsets.size();
    EXPECT_EQ(gpu_ops + t.api_calls.size() + t.ranges.size(), 210u);
    size_t linked = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) linked += IsValid(t.kernels.correlation_id[i]);
    for (size_t i = 0; i < t.memcpys.size(); ++i) linked += IsValid(t.memcpys.correlation_id[i]);
    for (size_t i = 0; i < t.memsets.size(); ++i) linked += IsValid(t.memsets.correlation_id[i]);
    EXPECT_EQ(linked, 85u);
    size_t samples = 0;
    for (const model::CounterSeries& c : t.counters) samples += c.ts_ns.size();
    EXPECT_EQ(t.stats.Get(model::ImportStat::counter_event), 319u);
    EXPECT_GE(samples, 319u);
  }
  {
    // "Degenerate rocprof v1 JSON": refused in one line, never an idle GPU.
    const std::string file =
        "amd__HPCTrainingExamples/rocm-blogs-codes/seismic-stencils/examples/.xr/"
        "13-12-2023_15:20:58_stencils_R_4_vec_2.x_512_512_512_100_64_64_1/results.json";
    Result<model::Trace> r = ImportFile(dir + "/" + file);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("without trace events"), std::string::npos);
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
}

// jax/SOURCES.md: no JAX trace JSON exists in the corpus (only a TPU
// xplane.pb, read by the xplane importer): the folder must not hold a JSON
// this test should have read.
TEST(ChromeCorpus, JaxFolderHoldsNoTraceJson) {
  const std::string dir = kShared + "/jax";
  if (!std::filesystem::exists(dir + "/SOURCES.md")) GTEST_SKIP() << "SKIPPED: " << dir << " absent";
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".json"), std::string::npos) << "a JAX JSON sample arrived: add its counts: " << name;
  }
}

}  // namespace
}  // namespace gpuwhy::import
