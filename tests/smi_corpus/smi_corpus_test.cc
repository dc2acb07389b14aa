// Corpus test: every nvidia-smi / dmon / DCGM log in ../shared/traces/smi is
// recognised by content and imports; sample counts and periods match the
// figures SOURCES.md states for each file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/analysis.h"
#include "import/registry.h"
#include "import/smi/smi_table_importer.h"

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

// Every log also gets a real analysis: a device block per sampled GPU, a
// headline that states GPU-Util and its sample period (never "no GPU
// activity"), and, at a period of 1 s or more, the warning that jumps and
// wobble cannot be told apart.
TEST(SmiCorpus, EveryLogIsDiagnosed) {
  if (!std::filesystem::exists(kDir + "/SOURCES.md"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/smi not present";
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.file);
    std::string path = kDir + "/" + c.file;
    if (!std::filesystem::exists(path)) continue;
    Result<model::Trace> r = ImportFile(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::vector<model::Trace> traces;
    traces.push_back(std::move(r).value());
    analysis::Analysis a = analysis::AnalyzeTraces(traces, {});
    ASSERT_EQ(a.traces.size(), 1u);
    const analysis::TraceAnalysis& ta = a.traces[0];
    ASSERT_TRUE(a.diagnosis.has_value());
    const std::string& top = a.diagnosis->top_line;
    std::printf("%-62s %s\n", c.file, top.c_str());
    EXPECT_EQ(top.find("No GPU activity"), std::string::npos);
    size_t counter_devices = 0;
    for (const analysis::DeviceSummary& d : ta.summary.devices) {
      EXPECT_FALSE(d.has_events);
      EXPECT_FALSE(d.counters.empty());
      ++counter_devices;
    }
    EXPECT_GE(counter_devices, 1u);
    bool has_util = false, coarse = false;
    for (const model::CounterSeries& s : traces[0].counters) {
      if (s.kind != model::CounterKind::kGpuUtil) continue;
      has_util = true;
      coarse = coarse || !IsValid(s.period_ns) || s.period_ns >= kNsPerS;
    }
    if (!has_util) {
      EXPECT_NE(top.find("No GPU-Util"), std::string::npos);
      continue;
    }
    EXPECT_NE(top.find("GPU-Util averages"), std::string::npos);
    EXPECT_TRUE(top.find("one sample every") != std::string::npos ||
                top.find("no timestamps") != std::string::npos);
    // The utilization block classifies from the counter series.
    bool classified = false;
    for (const analysis::DeviceUtilization& du : ta.utilization.devices)
      classified = classified || du.verdict.features.sample_count > 0;
    EXPECT_TRUE(classified);
    if (coarse) {
      bool warned = false;
      for (const std::string& cv : a.diagnosis->caveats)
        warned = warned || cv.find("jumps cannot be told from wobble") != std::string::npos;
      for (const analysis::DeviceUtilization& du : ta.utilization.devices)
        warned = warned || du.verdict.aliasing_note.find("wobble") != std::string::npos;
      EXPECT_TRUE(warned) << "no jumps/wobble warning at a coarse period";
    }
  }
}

// The only real default-table output in the corpus: the snapshot (driver
// 495.44, one V100) at the top of theabrusch's CSV log, read by the table
// importer on its own (the whole file stays a CSV log).
TEST(SmiCorpus, RealTableSnapshot) {
  const std::string path = kDir + "/theabrusch__semi_active_seizure/gpu_stats.csv";
  if (!std::filesystem::exists(path)) {
    std::printf("SKIPPED: %s not present\n", path.c_str());
    GTEST_SKIP() << "SKIPPED: ../shared/traces/smi not present";
  }
  std::ifstream in(path, std::ios::binary);
  std::string text, line;
  for (int i = 0; i < 20 && std::getline(in, line); ++i) text += line + "\n";
  model::Trace t;
  ASSERT_TRUE(ReadSmiTableText(text, t).ok());
  EXPECT_EQ(t.info.cuda_driver_version, "495.44");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.Str(t.devices[0].name), "Tesla V100-SXM2...");
  EXPECT_EQ(t.devices[0].pcie_bus_id, 0x16 << 8);
  EXPECT_EQ(t.devices[0].total_memory_bytes, int64_t{32510} << 20);
  for (const model::CounterSeries& s : t.counters) {
    ASSERT_EQ(s.value.size(), 1u);
    if (s.kind == model::CounterKind::kGpuUtil) {
      EXPECT_EQ(s.value[0], 0.0);
    }
    if (s.kind == model::CounterKind::kPowerMw) {
      EXPECT_EQ(s.value[0], 43000.0);
    }
    if (s.kind == model::CounterKind::kPowerLimitMw) {
      EXPECT_EQ(s.value[0], 300000.0);
    }
    if (s.kind == model::CounterKind::kTemperatureC) {
      EXPECT_EQ(s.value[0], 36.0);
    }
  }
  EXPECT_TRUE(t.gpu_processes.empty());  // "No running processes found"
  EXPECT_EQ(t.stats.Get(model::ImportStat::malformed_table_row), 0u);
}

// Real logs read as runs (../shared/traces/labelled): a `nvidia-smi -l` log
// whose second python process starts after a long idle stretch and then
// trains with periodic dips; two processes that follow each other are not
// contention. A 2-GPU CSV with an unused GPU names it first.
TEST(SmiCorpus, LabelledLogsReadAsRuns) {
  const std::string dir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/labelled";
  const std::string slurm = dir + "/guanqun-yang__SlurmMWE/gpu_usage.log";
  const std::string openad = dir + "/tkjunsei__OpenAD/gpu_usage.csv";
  if (!std::filesystem::exists(slurm) || !std::filesystem::exists(openad)) {
    std::printf("SKIPPED: ../shared/traces/labelled not present\n");
    GTEST_SKIP() << "SKIPPED: ../shared/traces/labelled not present";
  }
  auto diagnose = [](const std::string& path) {
    Result<model::Trace> r = ImportFile(path);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<model::Trace> traces;
    traces.push_back(std::move(r).value());
    analysis::Analysis a = analysis::AnalyzeTraces(traces, {});
    return *a.diagnosis;
  };
  const analysis::detectors::Diagnosis s = diagnose(slurm);
  ASSERT_FALSE(s.findings.empty());
  EXPECT_EQ(s.findings.front().id, "phase.setup") << s.top_line;
  EXPECT_NE(s.top_line.find("but set-up:"), std::string::npos) << s.top_line;
  EXPECT_EQ(s.top_line.find("middle band"), std::string::npos) << s.top_line;
  bool dips = false;
  for (const analysis::detectors::Finding& f : s.findings) {
    EXPECT_NE(f.id, "contention.other_processes") << "the two python processes never overlap";
    if (f.id == "phase.periodic_dips") {
      dips = true;
      EXPECT_NEAR(analysis::detectors::MetricOf(f, "dip_period_ns"), 41.0 * kNsPerS, 3.0 * kNsPerS);
    }
  }
  EXPECT_TRUE(dips);
  const analysis::detectors::Diagnosis o = diagnose(openad);
  ASSERT_FALSE(o.findings.empty());
  EXPECT_EQ(o.findings.front().id, "idle.unused_gpu");
  EXPECT_NE(o.top_line.find("GPU 1"), std::string::npos) << o.top_line;
}


// ../shared/traces/smi_multi: gpuutiliz's whitespace-separated log of a 2-GPU
// node, GPUs told apart only by UUID, read by the meaning of its columns
// (monitor-csv). SOURCES.md: 64 rows = 32 one-second samples x 2 GPUs; GPU
// 3416c700 averages 59% (power 76-161 W), GPU b44b346d stays at 0-4%.
TEST(SmiCorpus, ScriptLogWithUuidsOnly) {
  const std::string path = std::string(GPUWHY_SOURCE_DIR) +
                           "/../shared/traces/smi_multi/ptheywood__gpuutiliz-plotting/sample/"
                           "gpu-dev-util-sample-multigpu.log";
  if (!std::filesystem::exists(path)) {
    std::printf("SKIPPED: ../shared/traces/smi_multi not present\n");
    GTEST_SKIP() << "SKIPPED: ../shared/traces/smi_multi not present";
  }
  Result<model::Trace> r = ImportFile(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->info.format, "monitor-csv");
  EXPECT_EQ(r->info.clock, "unix_realtime");
  int gpus = 0;
  for (const model::CounterSeries& s : r->counters) {
    if (s.kind != model::CounterKind::kGpuUtil) continue;
    ++gpus;
    EXPECT_EQ(s.value.size(), 32u);
    EXPECT_EQ(s.period_ns, kNsPerS);
    double sum = 0, hi = 0;
    for (double v : s.value) {
      sum += v;
      hi = std::max(hi, v);
    }
    const std::string uuid(r->Str(r->FindDevice(s.device_id)->uuid));
    if (uuid.rfind("GPU-3416c700", 0) == 0) {
      EXPECT_NEAR(sum / 32, 0.59, 0.01);
      EXPECT_DOUBLE_EQ(hi, 1.0);
    } else {
      EXPECT_EQ(uuid.rfind("GPU-b44b346d", 0), 0u) << uuid;
      EXPECT_LE(hi, 0.04);
    }
  }
  EXPECT_EQ(gpus, 2);
  for (const model::CounterSeries& s : r->counters)
    if (s.kind == model::CounterKind::kPowerMw &&
        r->Str(r->FindDevice(s.device_id)->uuid).rfind("GPU-3416c700", 0) == 0)
      for (double v : s.value) {
        EXPECT_GE(v, 76000.0);
        EXPECT_LE(v, 161000.0);
      }
  EXPECT_EQ(r->stats.Get(model::ImportStat::garbage_row), 0u);
  // Every column's reading is stated.
  EXPECT_GE(r->info.import_notes.size(), 8u);
}

}  // namespace
}  // namespace gpuwhy::import
