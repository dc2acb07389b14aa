// Nsight Compute importers: raw and details pages written here (units per
// column, old and new names, rules), the one-line errors, the shared corpus
// (../shared/traces/ncu, counts from its SOURCES.md) and .ncu-rep through a
// fake `ncu` first on PATH.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "import/ncu/ncu_csv_importer.h"
#include "import/ncu/ncu_report_importer.h"
#include "import/registry.h"
#include "model/trace_compare.h"

namespace gpuwhy::import::ncu_test {
namespace {

namespace fs = std::filesystem;

const std::string kNcuDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/ncu/";

constexpr const char* kLead =
    R"q("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC")q";

// RawPage: a raw page of two kernels; the duration column is in `dur_unit`.
std::string RawPage(const std::string& dur_unit) {
  std::string s = std::string(kLead) +
                  R"q(,"gpu__time_duration.sum","launch__registers_per_thread","launch__shared_mem_per_block_static","launch__shared_mem_per_block_dynamic","sm__throughput.avg.pct_of_peak_sustained_elapsed","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","dram__cycles_active.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","sm__maximum_warps_per_active_cycle_pct","device__attribute_display_name","device__attribute_multiprocessor_count","sm__cycles_active.avg","gpc__cycles_elapsed.max")q"
                  "\n";
  s += R"q("","","","","","","","","","","",")q" + dur_unit +
       R"q(","register/thread","Kbyte/block","byte/block","%","%","%","%","%","","","cycle","cycle")q" "\n";
  s += R"q("0","42","python","host","void add<float>(float*, int)","1","7","(256, 1, 1)","(1024, 2, 1)","0","9.0","1.500000","32","8.192000","0","12.5","91.0","90.5","40.25","100","NVIDIA H100 80GB HBM3","132","1,800","2,000")q" "\n";
  s += R"q("1","42","python","host","gemm(int)","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","0.250000","n/a","0.000000","256","85.0","30.0","n/a","12.5","50","NVIDIA H100 80GB HBM3","132","n/a","n/a")q" "\n";
  return s;
}

Status Parse(const std::string& text, model::Trace& t) {
  return ParseNcuCsvPages({NcuPage{text, "x.csv"}}, t);
}

TEST(NcuCsv, RawPageScalesByItsUnitsRow) {
  for (const auto& [unit, scale] : std::vector<std::pair<std::string, int64_t>>{
           {"ms", 1000000}, {"us", 1000}, {"usecond", 1000}, {"ns", 1}}) {
    model::Trace t;
    ASSERT_TRUE(Parse(RawPage(unit), t).ok()) << unit;
    ASSERT_EQ(t.kernels.size(), 2u);
    EXPECT_TRUE(t.info.kernels_untimed);
    EXPECT_EQ(t.info.clock, "kernel-order");
    EXPECT_EQ(t.info.format_version, "raw page");
    // Launch order, end to end from 0.
    EXPECT_EQ(t.kernels.start_ns[0], 0);
    EXPECT_EQ(t.kernels.end_ns[0], (3 * scale + 1) / 2);  // 1.5 ns rounds to 2
    EXPECT_EQ(t.kernels.start_ns[1], t.kernels.end_ns[0]);
    EXPECT_EQ(t.kernels.end_ns[1] - t.kernels.start_ns[1], scale / 4);
  }
  model::Trace t;
  ASSERT_TRUE(Parse(RawPage("ms"), t).ok());
  EXPECT_EQ(t.Str(t.kernels.name[0]), "void add<float>(float*, int)");
  EXPECT_EQ(t.kernels.grid_x[0], 1024);
  EXPECT_EQ(t.kernels.grid_y[0], 2);
  EXPECT_EQ(t.kernels.block_x[0], 256);
  EXPECT_EQ(t.kernels.block_z[0], 1);
  EXPECT_EQ(t.kernels.registers_per_thread[0], 32);
  EXPECT_EQ(t.kernels.static_shared_mem_bytes[0], 8192);  // Kbyte: 1000 bytes
  EXPECT_EQ(t.kernels.dynamic_shared_mem_bytes[1], 256);
  EXPECT_EQ(t.kernels.shared_mem_bytes[0], 8192);
  EXPECT_EQ(t.kernels.stream_id[0], 7);
  EXPECT_EQ(t.kernels.pid[0], 42);
  EXPECT_FLOAT_EQ(t.kernels.sm_throughput_pct[0], 12.5f);
  EXPECT_FLOAT_EQ(t.kernels.memory_throughput_pct[0], 91.0f);
  EXPECT_FLOAT_EQ(t.kernels.dram_throughput_pct[0], 90.5f);
  EXPECT_FLOAT_EQ(t.kernels.achieved_occupancy_pct[0], 40.25f);
  EXPECT_FLOAT_EQ(t.kernels.theoretical_occupancy_pct[1], 50.0f);
  EXPECT_FLOAT_EQ(t.kernels.sm_active_pct[0], 90.0f);  // 1,800 of 2,000 cycles
  EXPECT_TRUE(std::isnan(t.kernels.sm_active_pct[1]));
  // n/a is missing, never 0; a figure not collected is missing.
  EXPECT_FALSE(IsValid(t.kernels.registers_per_thread[1]));
  EXPECT_TRUE(std::isnan(t.kernels.dram_throughput_pct[1]));
  EXPECT_TRUE(std::isnan(t.kernels.tensor_pipe_pct[0]));
  EXPECT_EQ(t.stats.Get(model::ImportStat::non_numeric_value), 0u);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.Str(t.devices[0].name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].sm_count, 132);
  EXPECT_EQ(t.devices[0].cc_major, 9);
  EXPECT_EQ(t.devices[0].cc_minor, 0);
}

// DetailsPage: the 2020.3 names ("SOL SM") for kernel 0, the later ones
// for kernel 1, a rule with an estimated speedup, thousands separators.
std::string DetailsPage() {
  std::string s = std::string(kLead) +
                  R"q(,"Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup")q" "\n";
  const std::string k0 = R"q("0","9","a.out","h","scan(int*)","1","14","(512, 1, 1)","(19532, 1, 1)","0","8.6",)q";
  const std::string k1 = R"q("1","9","a.out","h","copy(int*)","1","14","(64, 1, 1)","(2, 1, 1)","0","8.6",)q";
  s += k0 + R"q("GPU Speed Of Light","SOL SM","%","49.01",)q" "\n";
  s += k0 + R"q("GPU Speed Of Light","SOL Memory","%","53.42",)q" "\n";
  s += k0 + R"q("GPU Speed Of Light","Duration","usecond","1,336.70",)q" "\n";
  s += k0 + R"q("Memory Workload Analysis","Memory Throughput","Gbyte/s","232.65",)q" "\n";
  s += k0 + R"q("Occupancy","Achieved Occupancy","%","94.03",)q" "\n";
  s += k0 + R"q("SpeedOfLight","","","","SOLBottleneck","WRN","Low throughput, ""latency"" issues.","","")q" "\n";
  s += k1 + R"q("GPU Speed Of Light Throughput","Compute (SM) Throughput","%","0.39",)q" "\n";
  s += k1 + R"q("GPU Speed Of Light Throughput","Memory Throughput","%","0.81",)q" "\n";
  s += k1 + R"q("GPU Speed Of Light Throughput","Duration","ms","0.002",)q" "\n";
  s += k1 + R"q("Launch Statistics","Registers Per Thread","register/thread","16",)q" "\n";
  s += k1 + R"q("Occupancy","Theoretical Occupancy","%","66.67",)q" "\n";
  s += k1 + R"q("SchedulerStats","","","","IssueSlotUtilization","OPT","Issue more.","local","84.17")q" "\n";
  return s;
}

TEST(NcuCsv, DetailsPageOldAndNewNamesAndRules) {
  model::Trace t;
  Status st = Parse(DetailsPage(), t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(t.info.format_version, "details page");
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.end_ns[0] - t.kernels.start_ns[0], 1336700);
  EXPECT_EQ(t.kernels.end_ns[1] - t.kernels.start_ns[1], 2000);
  EXPECT_FLOAT_EQ(t.kernels.sm_throughput_pct[0], 49.01f);
  EXPECT_FLOAT_EQ(t.kernels.memory_throughput_pct[0], 53.42f);  // not the GB/s row
  EXPECT_FLOAT_EQ(t.kernels.memory_throughput_pct[1], 0.81f);
  EXPECT_FLOAT_EQ(t.kernels.achieved_occupancy_pct[0], 94.03f);
  EXPECT_FLOAT_EQ(t.kernels.theoretical_occupancy_pct[1], 66.67f);
  EXPECT_EQ(t.kernels.registers_per_thread[1], 16);
  ASSERT_EQ(t.kernel_rules.size(), 2u);
  EXPECT_EQ(t.Str(t.kernel_rules.rule[0]), "SOLBottleneck");
  EXPECT_EQ(t.Str(t.kernel_rules.message[0]), "Low throughput, \"latency\" issues.");
  EXPECT_EQ(t.kernel_rules.kernel_row[0], 0u);
  EXPECT_TRUE(std::isnan(t.kernel_rules.est_speedup_pct[0]));
  EXPECT_EQ(t.kernel_rules.kernel_row[1], 1u);
  EXPECT_EQ(t.Str(t.kernel_rules.speedup_kind[1]), "local");
  EXPECT_FLOAT_EQ(t.kernel_rules.est_speedup_pct[1], 84.17f);
}

TEST(NcuCsv, RecognisedByContentOnly) {
  EXPECT_TRUE(LooksLikeNcuCsv(RawPage("ms")));
  EXPECT_TRUE(LooksLikeNcuCsv(DetailsPage()));
  EXPECT_TRUE(LooksLikeNcuCsv("==PROF== Connected to process 1\n==PROF== Disconnected\n" +
                              RawPage("us")));
  EXPECT_FALSE(LooksLikeNcuCsv("\"ID\",\"Name\"\n1,2\n"));
  EXPECT_FALSE(LooksLikeNcuCsv("timestamp, index, utilization.gpu [%]\n"));
  EXPECT_TRUE(LooksLikeNcuReport(std::string("NVR\0\2\0\0\0\x08\x07", 10)));
  EXPECT_FALSE(LooksLikeNcuReport(std::string("NVR\0\0\0\0\0\x08", 9)));
  EXPECT_FALSE(LooksLikeNcuReport("NVIDIA Tegra Profiler Report 1.\n"));
}

TEST(NcuCsv, BrokenPagesAreOneLineWithThePosition) {
  model::Trace t1;
  Status s1 = Parse(std::string(kLead) + "\n\"0\",\"1\",\"p\",\"h\",\"k(int)\n", t1);
  ASSERT_FALSE(s1.ok());
  EXPECT_NE(s1.message().find("x.csv: line 2: a quoted cell is never closed"), std::string::npos)
      << s1.message();
  model::Trace t2;
  Status s2 = Parse(std::string(kLead) + ",\"gpu__time_duration.sum\"\n", t2);
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.message().find("no kernel rows"), std::string::npos) << s2.message();
  EXPECT_EQ(s2.message().find('\n'), std::string::npos);
  model::Trace t3;
  Status s3 = Parse(std::string(kLead) + ",\"launch__registers_per_thread\"\n" +
                        R"q("0","1","p","h","k()","1","1","(1, 1, 1)","(1, 1, 1)","0","8.6","32")q" "\n",
                    t3);
  ASSERT_FALSE(s3.ok());
  EXPECT_NE(s3.message().find("no kernel duration"), std::string::npos) << s3.message();
}

TEST(NcuCsv, BadCellsAreCountedAndTheImportContinues) {
  std::string page = RawPage("ms");
  page.replace(page.find("\"32\""), 4, "\"lots\"");
  page += R"q("2","42","python")q" "\n";  // cut short: the last record
  model::Trace t;
  ASSERT_TRUE(Parse(page, t).ok());
  EXPECT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.stats.Get(model::ImportStat::non_numeric_value), 1u);
  EXPECT_EQ(t.stats.Get(model::ImportStat::truncated_tail), 1u);
  EXPECT_FALSE(IsValid(t.kernels.registers_per_thread[0]));
}

// ---- The shared corpus ---------------------------------------------------

struct NcuSample {
  const char* stem;  // relative to kNcuDir; + ".raw.csv", ".details.csv", ".ncu-rep"
  size_t kernels;    // kernel launches (SOURCES.md)
  size_t rules;      // rule rows of the details page (SOURCES.md; -1: not stated)
  const char* gpu;
  bool details_timed;  // the details page holds a duration (not a --metrics report)
};
const NcuSample kNcuSamples[] = {
    {"eschnett__IndexSpaces.jl/profile", 5, size_t(-1), "NVIDIA A40", true},
    {"AveryClapp__ESMM-Research/profile", 12, 0, "NVIDIA A10G", false},
    {"thedavidchu__speedy_scan/profile", 1, 5, "NVIDIA GeForce RTX 3070", true},
    {"aplainjane__CUDA_Learning/012_sharedMemory/shared_report", 7, 65,
     "NVIDIA GeForce RTX 3060 Laptop GPU", true},
};

TEST(NcuCorpus, RawAndDetailsPagesAgree) {
  if (!fs::exists(kNcuDir)) GTEST_SKIP() << "SKIPPED: " << kNcuDir << " not present";
  for (const NcuSample& s : kNcuSamples) {
    SCOPED_TRACE(s.stem);
    Result<model::Trace> raw = ImportFile(kNcuDir + s.stem + ".raw.csv");
    ASSERT_TRUE(raw.ok()) << raw.status().message();
    EXPECT_EQ(raw->info.format, "ncu-csv");
    EXPECT_EQ(raw->kernels.size(), s.kernels);
    Result<model::Trace> det = ImportFile(kNcuDir + s.stem + ".details.csv");
    if (!s.details_timed) {
      // A --metrics report without gpu__time_duration: refused in one line.
      ASSERT_FALSE(det.ok());
      EXPECT_NE(det.status().message().find("no kernel duration"), std::string::npos);
      EXPECT_EQ(det.status().message().find('\n'), std::string::npos);
      continue;
    }
    ASSERT_TRUE(det.ok()) << det.status().message();
    EXPECT_EQ(det->kernels.size(), s.kernels);
    if (s.rules != size_t(-1)) {
      EXPECT_EQ(det->kernel_rules.size(), s.rules);
    }
    EXPECT_EQ(raw->kernel_rules.size(), 0u);
    ASSERT_EQ(raw->devices.size(), 1u);
    EXPECT_EQ(raw->Str(raw->devices[0].name), s.gpu);
    EXPECT_EQ(raw->devices[0].cc_major, 8);
    EXPECT_EQ(raw->stats.Get(model::ImportStat::non_numeric_value), 0u);
    for (size_t i = 0; i < s.kernels; ++i) {
      // Same names, launch configs; durations agree to the details page's
      // rounding (2 decimals of its unit).
      EXPECT_EQ(raw->Str(raw->kernels.name[i]), det->Str(det->kernels.name[i]));
      EXPECT_EQ(raw->kernels.grid_x[i], det->kernels.grid_x[i]);
      EXPECT_EQ(raw->kernels.block_x[i], det->kernels.block_x[i]);
      EXPECT_EQ(raw->kernels.registers_per_thread[i], det->kernels.registers_per_thread[i]);
      const double rd = double(raw->kernels.end_ns[i] - raw->kernels.start_ns[i]);
      const double dd = double(det->kernels.end_ns[i] - det->kernels.start_ns[i]);
      EXPECT_GT(rd, 0);
      EXPECT_NEAR(rd, dd, std::max(10.0, rd * 0.01));
      if (!std::isnan(raw->kernels.sm_throughput_pct[i])) {
        EXPECT_NEAR(raw->kernels.sm_throughput_pct[i], det->kernels.sm_throughput_pct[i], 0.01);
      }
      if (!std::isnan(raw->kernels.achieved_occupancy_pct[i])) {
        EXPECT_NEAR(raw->kernels.achieved_occupancy_pct[i],
                    det->kernels.achieved_occupancy_pct[i], 0.01);
      }
    }
  }
}

TEST(NcuCorpus, KnownFigures) {
  if (!fs::exists(kNcuDir)) GTEST_SKIP() << "SKIPPED: " << kNcuDir << " not present";
  // speedy_scan (2020.3 names): 336.704 us, SOL SM 49.01, DRAM 53.42,
  // achieved occupancy 94.03 (SOURCES.md lists the report; figures as ncu shows them).
  Result<model::Trace> t = ImportFile(kNcuDir + "thedavidchu__speedy_scan/profile.details.csv");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kernels.end_ns[0] - t->kernels.start_ns[0], 336700);
  EXPECT_FLOAT_EQ(t->kernels.sm_throughput_pct[0], 49.01f);
  EXPECT_FLOAT_EQ(t->kernels.dram_throughput_pct[0], 53.42f);
  EXPECT_FLOAT_EQ(t->kernels.achieved_occupancy_pct[0], 94.03f);
  EXPECT_EQ(t->kernels.grid_x[0], 19532);
  // ESMM: a --metrics report, no speed-of-light section: those are missing.
  Result<model::Trace> e = ImportFile(kNcuDir + "AveryClapp__ESMM-Research/profile.raw.csv");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(std::isnan(e->kernels.sm_throughput_pct[0]));
  EXPECT_EQ(e->kernels.end_ns[0] - e->kernels.start_ns[0], 10776992);  // 10.776992 ms
}

// ---- .ncu-rep ---------------------------------------------------------------

int RunAnalyze(std::vector<std::string> args, std::string* out, std::string* err) {
  std::string argv0 = "gpuwhy analyze";
  std::vector<char*> argv = {argv0.data()};
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  int rc = cli::AnalyzeMain(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

class NcuReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuwhy_ncu_report_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    const char* p = std::getenv("PATH");
    old_path_ = p ? p : "";
    ::setenv("PATH", (dir_ / "bin").c_str(), 1);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    fs::remove_all(dir_);
  }
  // WriteFakeNcu: an `ncu` that prints the sibling CSV of the page asked for.
  void WriteFakeNcu() {
    const fs::path f = dir_ / "bin" / "ncu";
    std::ofstream o(f);
    o << "#!/bin/sh\n"
         "if [ \"$1\" = --version ]; then echo 'NVIDIA (R) Nsight Compute Command Line Profiler'; "
         "echo 'Version 2024.2.0.0 (build 34181891) (public-release)'; exit 0; fi\n"
         "rep=\"$2\"; page=\"$5\"\n"
         "exec /bin/cat \"${rep%.ncu-rep}.$page.csv\"\n";
    o.close();
    fs::permissions(f, fs::perms::owner_all);
  }
  fs::path dir_;
  std::string old_path_;
};

TEST_F(NcuReportTest, WithoutNcuOneLineWithTheExportCommand) {
  const fs::path rep = dir_ / "k.ncu-rep";
  std::ofstream(rep) << std::string("NVR\0\2\0\0\0\x08\x07\x48\x04", 12);
  std::string out, err;
  EXPECT_EQ(RunAnalyze({rep.string()}, &out, &err), 2);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(err.find("Nsight Compute report; gpuwhy reads its CSV export and `ncu` is not on PATH: "
                     "run `ncu --import " + rep.string() + " --csv --page raw > " +
                     (dir_ / "k.raw.csv").string() + "`"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

TEST_F(NcuReportTest, ThroughAFakeNcuBothPagesAreRead) {
  if (!fs::exists(kNcuDir)) GTEST_SKIP() << "SKIPPED: " << kNcuDir << " not present";
  WriteFakeNcu();
  for (const NcuSample& s : kNcuSamples) {
    SCOPED_TRACE(s.stem);
    Result<model::Trace> rep = ImportFile(kNcuDir + s.stem + ".ncu-rep");
    ASSERT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_EQ(rep->info.format, "ncu-report");
    EXPECT_EQ(rep->info.format_version, "raw page + details page, exported by ncu 2024.2.0.0");
    EXPECT_EQ(rep->kernels.size(), s.kernels);
    if (s.rules != size_t(-1)) {
      EXPECT_EQ(rep->kernel_rules.size(), s.rules);
    }
    // The raw page wins where both pages give a figure: the kernel table
    // equals the raw CSV's.
    Result<model::Trace> raw = ImportFile(kNcuDir + s.stem + ".raw.csv");
    ASSERT_TRUE(raw.ok());
    for (size_t i = 0; i < s.kernels; ++i) {
      EXPECT_EQ(rep->kernels.end_ns[i], raw->kernels.end_ns[i]);
      EXPECT_EQ(rep->Str(rep->kernels.name[i]), raw->Str(raw->kernels.name[i]));
    }
  }
}

}  // namespace
}  // namespace gpuwhy::import::ncu_test

namespace gpuwhy::import::ncu_test {
namespace {

// The join end to end: a Kineto trace and an ncu raw page of the same
// kernels, written here; the report says how many matched and labels the
// figures.
TEST(NcuJoin, AnalyzeTraceAndReportTogether) {
  const fs::path dir = fs::temp_directory_path() / ("gpuwhy_ncu_join_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string ev;
  int64_t ts = 1000;
  for (int step = 0; step < 10; ++step) {
    for (int k = 0; k < 2; ++k) {
      if (!ev.empty()) ev += ",";
      ev += k == 0 ? R"q({"ph":"X","cat":"kernel","name":"void add<float>(float*, int)","pid":0,"tid":7,"ts":)q" +
                         std::to_string(ts) +
                         R"q(,"dur":1500,"args":{"device":0,"stream":7,"grid":[1024,2,1],"block":[256,1,1]}})q"
                   : R"q({"ph":"X","cat":"kernel","name":"other(int)","pid":0,"tid":7,"ts":)q" +
                         std::to_string(ts) +
                         R"q(,"dur":100,"args":{"device":0,"stream":7,"grid":[1,1,1],"block":[32,1,1]}})q";
      ts += 1700;
    }
  }
  std::ofstream(dir / "trace.json")
      << R"q({"deviceProperties":[{"id":0,"name":"GPU","numSms":132,"computeMajor":9,"computeMinor":0}],"traceEvents":[)q"
      << ev << "]}";
  std::ofstream(dir / "k.csv") << RawPage("us");
  std::string out, err;
  ASSERT_EQ(RunAnalyze({(dir / "trace.json").string(), (dir / "k.csv").string()}, &out, &err), 0)
      << err;
  EXPECT_NE(out.find("measured (ncu) figures for 10 of 20 trace kernels"), std::string::npos) << out;
  EXPECT_NE(out.find("kernels measured (ncu): 10 of 20 trace kernels matched"), std::string::npos)
      << out;
  EXPECT_NE(out.find("memory  12%  91%  90%  40% 100%"), std::string::npos) << out;
  EXPECT_NE(out.find("occupancy (measured, ncu)"), std::string::npos) << out;
  // The real line: measured where the trace kernels matched, estimated elsewhere.
  EXPECT_NE(out.find("(measured (ncu): SM active cycles for "), std::string::npos) << out;
  std::string json;
  ASSERT_EQ(RunAnalyze({"--json", (dir / "trace.json").string(), (dir / "k.csv").string()}, &json,
                       &err),
            0);
  EXPECT_NE(json.find(R"q("matched_kernels": 10)q"), std::string::npos) << json.substr(0, 300) << err;
  EXPECT_NE(json.find(R"q("source": "measured (ncu)")q"), std::string::npos);
  EXPECT_NE(json.find("measured (ncu): SM active cycles for 94% of kernel time, estimated (launch "
                      "config) for the rest"),
            std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy::import::ncu_test

namespace gpuwhy::import::ncu_test {
namespace {

// A report alone: no timeline claims, the bound table, the measured finding
// naming the kernel, and no timeline detector (launch-bound, idle).
TEST(NcuAlone, ReportWithoutTimeline) {
  const fs::path dir = fs::temp_directory_path() / ("gpuwhy_ncu_alone_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "d.txt") << DetailsPage();
  std::string out, err;
  std::string json;
  ASSERT_EQ(RunAnalyze({"--json", (dir / "d.txt").string()}, &json, &err), 0) << err;
  EXPECT_NE(json.find("Per-kernel counter report (kernels replayed one at a time, no timeline): "
                      "`scan(int*)` reaches 49% of SM and 53% of memory"),
            std::string::npos)
      << json.substr(0, 2000);
  EXPECT_NE(json.find("\"bound\": \"latency\""), std::string::npos);
  ASSERT_EQ(RunAnalyze({(dir / "d.txt").string()}, &out, &err), 0) << err;
  EXPECT_NE(out.find("Latency-bound kernels"), std::string::npos) << out;
  EXPECT_NE(out.find("scan(int*)                     latency  49%  53%"), std::string::npos) << out;
  EXPECT_NE(out.find("ncu WRN SOLBottleneck"), std::string::npos) << out;
  EXPECT_EQ(out.find("Launch-bound"), std::string::npos) << out;
  EXPECT_EQ(out.find("GPU idle"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy::import::ncu_test
