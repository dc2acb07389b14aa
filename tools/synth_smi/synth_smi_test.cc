// Known-answer tests: every synth_smi case through ImportFile (sniffing
// included); GPU-Util means, periods, processes and counters match the truth;
// the run cases' diagnoses name the straggler, the set-up and the dip period.
#include "synth_smi.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/detectors/diagnosis.h"
#include "import/registry.h"
#include "import/smi/smi_table_importer.h"

namespace gpuwhy::synth_smi {
namespace {

using model::CounterKind;
using model::ImportStat;

const model::CounterSeries* Find(const model::Trace& t, CounterKind k, int32_t dev) {
  for (const auto& s : t.counters)
    if (s.kind == k && s.device_id == dev) return &s;
  return nullptr;
}

double Mean(const model::CounterSeries& s) {
  double sum = 0;
  int n = 0;
  for (double v : s.value)
    if (!std::isnan(v)) { sum += v; ++n; }
  return n > 0 ? sum / n : std::nan("");
}

Result<model::Trace> ImportCase(const std::string& name, SmiLog* log) {
  SmiLogParams p;
  EXPECT_TRUE(CaseParams(name, &p)) << name;
  *log = Generate(p);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("gpuwhy_synth_smi_" + std::to_string(::getpid()) + "_" + name + ".log"))
                         .string();
  std::ofstream(path, std::ios::binary) << log->text;
  Result<model::Trace> r = import::ImportFile(path);
  std::filesystem::remove(path);
  return r;
}

class SmiCases : public ::testing::TestWithParam<std::string> {};

TEST_P(SmiCases, ImportMatchesTruth) {
  const std::string name = GetParam();
  SmiLog log;
  Result<model::Trace> r = ImportCase(name, &log);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = r.value();
  const bool query = name.rfind("q_", 0) == 0;
  EXPECT_EQ(t.info.format, name == "q_xml" ? "nvidia-smi-q-xml" : query ? "nvidia-smi-q" : "nvidia-smi-table");
  const SmiTruth& truth = log.truth;
  ASSERT_EQ(t.devices.size(), truth.util_mean_ratio.size());
  for (size_t g = 0; g < truth.util_mean_ratio.size(); ++g) {
    const auto* u = Find(t, CounterKind::kGpuUtil, static_cast<int32_t>(g));
    ASSERT_NE(u, nullptr) << name << " gpu " << g;
    if (std::isnan(truth.util_mean_ratio[g])) {
      EXPECT_TRUE(std::isnan(Mean(*u))) << "MIG GPU-Util is N/A, never 0";
    } else {
      EXPECT_NEAR(Mean(*u), truth.util_mean_ratio[g], 1e-9) << name << " gpu " << g;
    }
    EXPECT_NE(Find(t, CounterKind::kMemUsedBytes, static_cast<int32_t>(g)), nullptr);
    EXPECT_NE(Find(t, CounterKind::kPowerMw, static_cast<int32_t>(g)), nullptr);
    const model::Device* d = t.FindDevice(static_cast<int32_t>(g));
    ASSERT_NE(d, nullptr);
    EXPECT_FALSE(t.Str(d->name).empty());
    EXPECT_TRUE(IsValid(d->pcie_bus_id));
    EXPECT_TRUE(IsValid(d->total_memory_bytes));
    // Who holds the memory: one process row per GPU with a process.
    int64_t peak = kMissingI64;
    for (size_t i = 0; i < t.gpu_processes.size(); ++i)
      if (t.gpu_processes.device_id[i] == static_cast<int32_t>(g)) peak = t.gpu_processes.used_memory_bytes[i];
    if (truth.proc_peak_bytes[g] > 0) EXPECT_EQ(peak, truth.proc_peak_bytes[g]) << name << " gpu " << g;
    else EXPECT_FALSE(IsValid(peak));
  }
  const auto* u0 = Find(t, CounterKind::kGpuUtil, 0);
  if (name == "table_nobanner") {
    EXPECT_TRUE(u0->ts_are_indexes);
    EXPECT_FALSE(IsValid(u0->period_ns));
    EXPECT_GT(t.stats.Get(ImportStat::no_timestamps), 0u);
  } else {
    SmiLogParams p;
    CaseParams(name, &p);
    EXPECT_FALSE(u0->ts_are_indexes);
    EXPECT_EQ(u0->period_ns, p.period_s * kNsPerS) << name;
    EXPECT_EQ(u0->ts_ns.front(), p.start_epoch_s * kNsPerS);
  }
  EXPECT_EQ(t.stats.Get(ImportStat::malformed_table_row), static_cast<uint64_t>(truth.malformed_rows));
  if (name == "table_corrupt") {
    EXPECT_EQ(t.stats.Get(ImportStat::truncated_tail), 1u);
    EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 1u);
  } else {
    EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 0u) << name;
    EXPECT_EQ(t.stats.Get(ImportStat::non_numeric_value), 0u) << name;
  }
  EXPECT_FALSE(t.info.cuda_driver_version.empty());
}

INSTANTIATE_TEST_SUITE_P(All, SmiCases, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// Run cases: the log read as a run. Known answers: the devices (8 GPUs in a
// CSV without an index column), the straggler, the set-up phase, the dip
// period, and no contention from processes that follow each other.
class SmiRunCases : public ::testing::TestWithParam<std::string> {};

const analysis::detectors::Finding* FindingOf(const analysis::detectors::Diagnosis& d,
                                              std::string_view id) {
  for (const auto& f : d.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST_P(SmiRunCases, DiagnosisMatchesTruth) {
  const std::string name = GetParam();
  SmiLog log;
  Result<model::Trace> r = ImportCase(name, &log);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = r.value();
  const SmiTruth& truth = log.truth;
  ASSERT_EQ(t.devices.size(), truth.util_mean_ratio.size()) << name;
  for (size_t g = 0; g < truth.util_mean_ratio.size(); ++g) {
    const auto* u = Find(t, CounterKind::kGpuUtil, static_cast<int32_t>(g));
    ASSERT_NE(u, nullptr) << name << " gpu " << g;
    EXPECT_EQ(u->value.size(), static_cast<size_t>(truth.reports)) << name << " gpu " << g;
    EXPECT_NEAR(Mean(*u), truth.util_mean_ratio[g], 1e-9) << name << " gpu " << g;
  }
  EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 0u) << name;
  const analysis::detectors::Diagnosis d = analysis::detectors::Diagnose({&t}, {});
  ASSERT_FALSE(d.findings.empty()) << name;
  const auto& top = d.findings.front();
  if (truth.straggler_gpu >= 0) {
    EXPECT_EQ(top.id, "imbalance.straggler") << d.top_line;
    EXPECT_EQ(top.device_id, truth.straggler_gpu);
    EXPECT_NE(d.top_line.find("GPU " + std::to_string(truth.straggler_gpu) + " straggles"),
              std::string::npos)
        << d.top_line;
  }
  if (truth.setup_s > 0) {
    EXPECT_EQ(top.id, "phase.setup") << d.top_line;
    EXPECT_DOUBLE_EQ(analysis::detectors::MetricOf(top, "setup_ns"),
                     static_cast<double>(truth.setup_s) * kNsPerS);
    EXPECT_NE(d.top_line.find("but set-up:"), std::string::npos) << d.top_line;
  } else {
    EXPECT_EQ(FindingOf(d, "phase.setup"), nullptr) << name;
  }
  if (truth.dip_period_s > 0) {
    const auto* dips = FindingOf(d, "phase.periodic_dips");
    ASSERT_NE(dips, nullptr) << name;
    EXPECT_DOUBLE_EQ(analysis::detectors::MetricOf(*dips, "dip_period_ns"),
                     static_cast<double>(truth.dip_period_s) * kNsPerS);
  }
  EXPECT_EQ(FindingOf(d, "contention.other_processes") != nullptr, truth.processes_overlap) << name;
}

INSTANTIATE_TEST_SUITE_P(All, SmiRunCases, ::testing::ValuesIn(RunCaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(SmiTable, MigGpuKeepsMemoryButNoUtil) {
  SmiLog log;
  Result<model::Trace> r = ImportCase("table_r470_mig", &log);
  ASSERT_TRUE(r.ok());
  const auto* m = Find(r.value(), CounterKind::kMemUsedBytes, 0);
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(m->value[0], (9984.0 + 10) * 1024 * 1024);
}

TEST(SmiTable, BrokenTablesAreOneError) {
  model::Trace t;
  // A header, then rows that match no GPU layout.
  Status s = import::ReadSmiTableText(
      "Thu Dec  3 14:46:09 2026\n+---+\n| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15  CUDA "
      "Version: 12.4 |\n|---+---+---|\n| garbage | garbage |\n",
      t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("at line 3"), std::string::npos) << s.message();
  model::Trace x;
  Status sx = import::ReadSmiQueryText("<nvidia_smi_log><gpu id=\"0\"><utilization></gpu>", x);
  ASSERT_FALSE(sx.ok());
  EXPECT_NE(sx.message().find("offset"), std::string::npos) << sx.message();
}

TEST(SmiTable, SniffersKeepCsvLogsThatStartWithATable) {
  // A --query-gpu log after one table snapshot stays a CSV log.
  std::string mixed =
      "+---+\n| NVIDIA-SMI 495.44       Driver Version: 495.44       CUDA Version: 11.5     |\n"
      "index, name, utilization.gpu [%]\n0, Tesla V100, 90 %\n0, Tesla V100, 80 %\n";
  std::string path = (std::filesystem::temp_directory_path() /
                      ("gpuwhy_mixed_" + std::to_string(::getpid()) + ".csv")).string();
  std::ofstream(path) << mixed;
  Result<model::Trace> r = import::ImportFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().info.format, "nvidia-smi-csv");
}

}  // namespace
}  // namespace gpuwhy::synth_smi
