// Corpus test: every nvidia-smi / dmon / DCGM log in ../shared/traces/smi is
// recognised by content and imports; sample counts and periods match the
// figures SOURCES.md states for each file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "import/registry.h"

namespace gpuwhy::import {
namespace {

const std::string kDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/smi";

struct Case {
  const char* file;
  const char* format;
  model::CounterKind kind;  // the series checked
  size_t samples;           // per GPU, from SOURCES.md (0: do not check)
  int64_t period_ns;        // kMissingI64: no timestamps
  int gpus;
};

// Sample counts and periods are the ones SOURCES.md gives for each file.
const Case kCases[] = {
    {"AndyZzzZzzZzz__miris/gpu_log.csv", "nvidia-smi-csv", model::CounterKind::kGpuUtil, 107,
     1000 * kNsPerMs, 1},
    {"eobo0530__vlm_optimization/gpu_log.csv", "nvidia-smi-csv", model::CounterKind::kGpuUtil,
     2619, 0, 1},
    {"cosmosapjw-quantum__omoknuni_small/gpu_monitor_optimized.log", "nvidia-smi-csv",
     model::CounterKind::kGpuUtil, 72, 0, 1},
    {"Unshapendwarf__SlowFast/out/mae_util.out", "nvidia-smi-csv", model::CounterKind::kGpuUtil,
     855, kMissingI64, 1},
    {"Unshapendwarf__SlowFast/gpu_utilization.csv", "nvidia-smi-csv",
     model::CounterKind::kGpuUtil, 40, kMissingI64, 1},
    {"fridanl__thesis-mas/nvidia-smi.log", "nvidia-smi-csv", model::CounterKind::kGpuUtil, 0, 0,
     1},
    {"RCKola__Rectified-Point-Flow/gpu_usage.csv", "nvidia-smi-csv",
     model::CounterKind::kGpuUtil, 122, 60 * kNsPerS, 1},
    // SOURCES.md says "5 rounds x 8 GPUs" but the file holds 43 rows (5-6 per GPU).
    {"xypp3__gpu_glasses/nvidia_smi.csv", "nvidia-smi-csv", model::CounterKind::kPowerMw, 0,
     2 * kNsPerS, 8},
    {"michalaarne-create__FULL-BOT-new/nvidia_dmon.log", "nvidia-smi-dmon",
     model::CounterKind::kGpuUtil, 10, kMissingI64, 1},
    // SOURCES.md says "GPU 0"; the file's GPUId column holds 0..7 (57 power rows in all).
    {"4179e1__dcgm_test/dmon.csv", "dcgm", model::CounterKind::kPowerMw, 0, 0, 8},
    {"theabrusch__semi_active_seizure/gpu_stats.csv", "nvidia-smi-csv",
     model::CounterKind::kGpuUtil, 0, kMissingI64, 0},
};

TEST(SmiCorpus, EveryLogImports) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/smi not present";
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.file);
    std::string path = kDir + "/" + c.file;
    if (!std::filesystem::exists(path)) continue;
    Result<model::Trace> r = ImportFile(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->info.format, c.format);
    int gpus = 0;
    for (const model::CounterSeries& s : r->counters) {
      if (s.kind != c.kind) continue;
      ++gpus;
      if (c.samples) {
        EXPECT_EQ(s.ts_ns.size(), c.samples);
      }
      if (!IsValid(c.period_ns)) {
        EXPECT_FALSE(IsValid(s.period_ns));
      } else if (c.period_ns > 0) {
        // SOURCES.md rounds (1.0 s for a measured 1.001 s median).
        EXPECT_NEAR(static_cast<double>(s.period_ns), static_cast<double>(c.period_ns),
                    0.01 * static_cast<double>(c.period_ns));
      }
      for (double v : s.value)
        if (IsValid(v) && s.unit == model::CounterUnit::kRatio) {
          EXPECT_GE(v, 0.0);
          EXPECT_LE(v, 1.0);
        }
    }
    if (c.gpus) {
      EXPECT_EQ(gpus, c.gpus);
    } else {
      EXPECT_GE(gpus, 1);
    }
    std::printf("%-62s %zu series, %zu garbage rows, %zu truncated\n", c.file,
                r->counters.size(),
                static_cast<size_t>(r->stats.Get(model::ImportStat::garbage_row)),
                static_cast<size_t>(r->stats.Get(model::ImportStat::truncated_tail)));
  }
}

}  // namespace
}  // namespace gpuwhy::import
