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

}  // namespace
}  // namespace gpuwhy::import
