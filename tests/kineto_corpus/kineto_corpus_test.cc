// Corpus test: every Kineto trace in ../shared/traces/kineto imports, and the
// per-file counts match the table of SOURCES.md (parsed at runtime, so the
// expected values are the corpus curator's, not ours).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/input_stream.h"
#include "import/kineto/kineto_importer.h"
#include "import/registry.h"
#include "model/trace_compare.h"

namespace gpuwhy::import {
namespace {

const std::string kDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/kineto";

struct Expected {
  std::string file, gpu, ranks;
  long kernel = -1, runtime = -1, memcpy = -1, memset = -1, driver = -1;
};

std::vector<std::string> SplitRow(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
    cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  return cells;
}

std::vector<Expected> ReadTable() {
  std::vector<Expected> rows;
  std::ifstream in(kDir + "/SOURCES.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> c = SplitRow(line);
    // c[0] is empty (text before the first '|').
    if (c.size() < 14 || c[1].find(".json") == std::string::npos) continue;
    if (c[9] == "-") continue;  // expected-output files, not traces
    Expected e;
    e.file = c[1];
    e.gpu = c[7];
    e.ranks = c[8];
    e.kernel = std::stol(c[9]);
    e.runtime = std::stol(c[10]);
    e.memcpy = std::stol(c[11]);
    e.memset = std::stol(c[12]);
    e.driver = std::stol(c[13]);
    rows.push_back(e);
  }
  return rows;
}

TEST(KinetoCorpus, CountsMatchSourcesTable) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/kineto not present";
  std::vector<Expected> rows = ReadTable();
  ASSERT_GE(rows.size(), 30u) << "SOURCES.md table not understood";
  for (const Expected& e : rows) {
    SCOPED_TRACE(e.file);
    Result<model::Trace> r = ImportFile(kDir + "/" + e.file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::Trace& t = *r;
    EXPECT_EQ(t.info.format, "kineto-json");
    EXPECT_EQ(static_cast<long>(t.kernels.size()), e.kernel);
    EXPECT_EQ(static_cast<long>(t.memcpys.size()), e.memcpy);
    EXPECT_EQ(static_cast<long>(t.memsets.size()), e.memset);
    long runtime = 0, driver = 0;
    for (model::ApiKind k : t.api_calls.kind) {
      runtime += k == model::ApiKind::kRuntime;
      driver += k == model::ApiKind::kDriver;
    }
    EXPECT_EQ(runtime, e.runtime);
    EXPECT_EQ(driver, e.driver);
    // GPU model: deviceProperties[].name, where the table lists one.
    if (e.gpu.find("none") == std::string::npos && !e.gpu.empty()) {
      bool found = false;
      for (const model::Device& d : t.devices) found |= t.Str(d.name) == e.gpu;
      EXPECT_TRUE(found) << "device name " << e.gpu;
    }
    // Ranks: "R/W backend", "R/-", "-/-".
    if (!e.ranks.empty() && e.ranks[0] != '-') {
      EXPECT_EQ(t.rank.rank, std::stoi(e.ranks));
      size_t slash = e.ranks.find('/');
      if (slash != std::string::npos && e.ranks[slash + 1] != '-') {
        EXPECT_EQ(t.rank.world_size, std::stoi(e.ranks.substr(slash + 1)));
      }
      size_t sp = e.ranks.find(' ');
      if (sp != std::string::npos) {
        EXPECT_EQ(t.Str(t.rank.backend), e.ranks.substr(sp + 1));
      }
    } else {
      EXPECT_FALSE(IsValid(t.rank.rank));
    }
    // Sanity that holds for every real trace: kernels end after they start.
    for (size_t i = 0; i < t.kernels.size(); ++i)
      ASSERT_GE(t.kernels.end_ns[i], t.kernels.start_ns[i]);
  }
}

// Neither sizing the tables early (Trace::ReserveForGrowth), nor parsing in
// segments on two threads (KinetoOptions::threads), nor replaying learned
// separators (KinetoOptions::learn_repeats) may change a bit of any real
// trace's model. Every trace is read two more ways against one plain read
// (one thread, no sizing, every separator lexed): sized after its first
// 64 KiB, and cut into 16 KiB segments parsed on two threads, so that even
// the small traces are cut into many and merged across every kind of event;
// both replay learned separators.
TEST(KinetoCorpus, SizedAndSegmentedReadsGiveThePlainModel) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/kineto not present";
  size_t sized = 0, cut = 0, fallback = 0;
  for (const Expected& e : ReadTable()) {
    SCOPED_TRACE(e.file);
    auto read = [&](int threads, uint64_t reserve_after, KinetoScanStats* scan, bool learn = true) {
      model::Trace t;
      auto in = OpenInputStream(kDir + "/" + e.file);
      EXPECT_TRUE(in.ok());
      if (!in.ok()) return t;
      KinetoOptions o;
      o.threads = threads;
      o.chunk_bytes = threads == 1 ? 64 << 10 : 16 << 10;
      o.segment_bytes = 16 << 10;
      o.reserve_after_bytes = reserve_after;
      o.learn_repeats = learn;
      Status st = ReadKinetoStream(**in, o, t, scan);
      EXPECT_TRUE(st.ok()) << st.message();
      return t;
    };
    KinetoScanStats plain_scan, early, two;
    model::Trace plain = read(1, 0, &plain_scan, false);
    {
      model::Trace sized_trace = read(1, 64 << 10, &early);
      sized += early.reserve_factor > 0;
      EXPECT_EQ(model::DescribeDifference(plain, sized_trace), "") << "sized early";
    }
    model::Trace segmented = read(2, 0, &two);
    EXPECT_EQ(model::DescribeDifference(plain, segmented), "") << "two threads";
    EXPECT_EQ(two.trace_events, plain_scan.trace_events);
    cut += two.segments > 1;
    fallback += two.serial_fallback;
  }
  // Most corpus traces are larger than 80 KiB of JSON, so sizing ran on them,
  // and every one but the tiniest is longer than one 16 KiB segment.
  EXPECT_GE(sized, 10u);
  EXPECT_GE(cut, 10u);
  // Real traces hold no string that looks like an event boundary.
  EXPECT_EQ(fallback, 0u);
}

TEST(KinetoCorpus, DirectoryExpandsToTheTraces) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/kineto not present";
  Result<std::vector<std::string>> files = ExpandInputs({kDir});
  ASSERT_TRUE(files.ok()) << files.status().message();
  size_t expected = ReadTable().size();
  size_t traces = 0;
  for (const std::string& f : *files) {
    EXPECT_EQ(f.find("SOURCES.md"), std::string::npos);
    traces += f.find(".json") != std::string::npos;
  }
  // Every table trace is found (result_check_file.txt is not a trace).
  EXPECT_EQ(traces, expected);
  EXPECT_TRUE(std::is_sorted(files->begin(), files->end()));
}

}  // namespace
}  // namespace gpuwhy::import
