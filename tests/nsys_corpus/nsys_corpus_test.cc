// Corpus test: every Nsight Systems export in ../shared/traces/nsys imports,
// and the per-table row counts match the "key row counts" lines of SOURCES.md
// (parsed at runtime, so the expected values are the corpus curator's).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "import/nsys/nsys_importer.h"
#include "import/registry.h"

namespace gpuwhy::import {
namespace {

const std::string kDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/nsys";

struct Expected {
  std::string file;
  std::map<std::string, long> counts;
};

std::vector<Expected> ReadSources() {
  std::vector<Expected> out;
  std::ifstream in(kDir + "/SOURCES.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("### `", 0) == 0) {
      size_t end = line.find('`', 5);
      out.push_back({line.substr(5, end - 5), {}});
      continue;
    }
    const std::string kKey = "- key row counts: ";
    if (out.empty() || line.rfind(kKey, 0) != 0) continue;
    std::stringstream ss(line.substr(kKey.size()));
    std::string item;
    while (std::getline(ss, item, ',')) {
      size_t a = item.find_first_not_of(' '), eq = item.find('=');
      if (eq == std::string::npos) continue;
      out.back().counts[item.substr(a, eq - a)] = std::stol(item.substr(eq + 1));
    }
  }
  return out;
}

long Count(const Expected& e, const std::string& table) {
  auto it = e.counts.find(table);
  return it == e.counts.end() ? 0 : it->second;
}

TEST(NsysCorpus, RowCountsMatchSources) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/nsys not present";
  std::vector<Expected> rows = ReadSources();
  int checked = 0;
  for (const Expected& e : rows) {
    if (e.file.size() < 7 || e.file.substr(e.file.size() - 7) != ".sqlite") continue;
    SCOPED_TRACE(e.file);
    std::string path = kDir + "/" + e.file;
    model::Trace t;
    NsysScanStats scan;
    Status s = ReadNsysSqlite(path, t, &scan);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(static_cast<long>(scan.kernel_rows), Count(e, "CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(static_cast<long>(scan.memcpy_rows), Count(e, "CUPTI_ACTIVITY_KIND_MEMCPY"));
    EXPECT_EQ(static_cast<long>(scan.memset_rows), Count(e, "CUPTI_ACTIVITY_KIND_MEMSET"));
    EXPECT_EQ(static_cast<long>(scan.runtime_rows), Count(e, "CUPTI_ACTIVITY_KIND_RUNTIME"));
    EXPECT_EQ(static_cast<long>(scan.sync_rows),
              Count(e, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
    EXPECT_EQ(static_cast<long>(scan.nvtx_rows), Count(e, "NVTX_EVENTS"));
    EXPECT_EQ(static_cast<long>(scan.osrt_rows), Count(e, "OSRT_API"));
    EXPECT_EQ(static_cast<long>(scan.overhead_rows), Count(e, "PROFILER_OVERHEAD"));
    EXPECT_EQ(static_cast<long>(scan.string_rows), Count(e, "StringIds"));
    EXPECT_EQ(static_cast<long>(scan.metric_rows), Count(e, "GPU_METRICS"));
    // Every GPU row of a real export has both timestamps: nothing is dropped.
    EXPECT_EQ(static_cast<long>(t.kernels.size()), Count(e, "CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(static_cast<long>(t.memcpys.size()), Count(e, "CUPTI_ACTIVITY_KIND_MEMCPY"));
    EXPECT_EQ(static_cast<long>(t.memsets.size()), Count(e, "CUPTI_ACTIVITY_KIND_MEMSET"));
    EXPECT_EQ(static_cast<long>(t.syncs.size()), Count(e, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
    EXPECT_EQ(static_cast<long>(t.api_calls.size()),
              Count(e, "CUPTI_ACTIVITY_KIND_RUNTIME") + Count(e, "OSRT_API"));
    EXPECT_FALSE(t.info.format_version.empty());
    EXPECT_FALSE(t.devices.empty()) << "every export lists at least one GPU";
    // The registry sniffs it by content.
    Result<model::Trace> r = ImportFile(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->info.format, "nsys-sqlite");
    ++checked;
  }
  EXPECT_GE(checked, 15);
  std::printf("checked %d nsys exports\n", checked);
}

TEST(NsysCorpus, MetricsTraceHasSmActiveAt10kHz) {
  std::string path = kDir + "/als244__ResourceEstimation/reports/report2.sqlite";
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/nsys/als244__ResourceEstimation not present";
  model::Trace t;
  ASSERT_TRUE(ReadNsysSqlite(path, t).ok());
  int metrics = 0;
  bool sm = false;
  for (const auto& s : t.counters) {
    if (s.kind == model::CounterKind::kDramActive) continue;  // derived
    ++metrics;
    EXPECT_EQ(s.ts_ns.size(), 6090u) << t.Str(s.name);
    EXPECT_EQ(s.period_ns, 100000) << t.Str(s.name);
    if (s.kind == model::CounterKind::kSmActive) sm = true;
  }
  EXPECT_EQ(metrics, 18);
  EXPECT_TRUE(sm);
  // The int32-wrapped negative GPC clock samples are counted, not kept.
  EXPECT_GT(t.stats.Get(model::ImportStat::negative_value), 0u);
}

TEST(NsysCorpus, NoActivityTraceWithBinaryBlobImports) {
  std::string path = kDir + "/researchgroup-zx93920__MAP-Fusion23/report1.sqlite";
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/nsys/researchgroup-zx93920__MAP-Fusion23 not present";
  model::Trace t;
  // Its invalid UTF-8 sits in TARGET_INFO_SYSTEM_ENV (a binary blob gpuwhy does
  // not read); the import must still succeed. No GPU activity was traced, so
  // both listed A100s are kept as devices and no GPU rows exist.
  ASSERT_TRUE(ReadNsysSqlite(path, t).ok());
  EXPECT_EQ(t.devices.size(), 2u);
  EXPECT_TRUE(t.kernels.empty());
  EXPECT_EQ(t.stats.Get(model::ImportStat::invalid_utf8), 0u);
}

TEST(NsysCorpus, ReportFilesGiveExportHint) {
  for (const char* rel : {"LeiWang1999__memfusion_artifact/report1.nsys-rep",
                          "Raphael-Hao__Abacus/report1.qdrep"}) {
    std::string path = kDir + "/" + rel;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "SKIPPED: " << path << " not present";
    Result<model::Trace> r = ImportFile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status().message().find("nsys export --type sqlite"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuwhy::import
