// Unit tests of the nvidia-smi and DCGM text importers on logs written here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "import/registry.h"
#include "import/smi/dcgm_importer.h"
#include "import/smi/smi_common.h"
#include "import/smi/smi_csv_importer.h"
#include "import/smi/smi_snapshot.h"

namespace gpuwhy::import {
namespace {

using model::CounterKind;
using model::ImportStat;

const model::CounterSeries* Find(const model::Trace& t, CounterKind k, int32_t dev) {
  for (const auto& s : t.counters)
    if (s.kind == k && s.device_id == dev) return &s;
  return nullptr;
}

TEST(SmiTimestamp, FormatsAndZones) {
  int64_t ns = 0;
  ASSERT_TRUE(smi::ParseTimestamp("2024/01/31 12:34:56.789", &ns));
  EXPECT_EQ(ns, 1706704496789000000);  // read as UTC
  ASSERT_TRUE(smi::ParseTimestamp("2024-01-31T20:34:56+08:00", &ns));
  EXPECT_EQ(ns, 1706704496000000000);
  ASSERT_TRUE(smi::ParseTimestamp("1706704496", &ns));
  EXPECT_EQ(ns, 1706704496000000000);
  ASSERT_TRUE(smi::ParseTimestamp("1706704496789000", &ns));  // DCGM µs
  EXPECT_EQ(ns, 1706704496789000000);
  EXPECT_FALSE(smi::ParseTimestamp("yesterday", &ns));
}

// Times past kMaxAbsTimeNs (2^62 ns: after 2116) are refused, in every form;
// year 9999 and 99,999,999,999 s also leave int64 ns (undefined before).
TEST(SmiTimestamp, TimesPastTwoToTheSixtyTwoNsAreRefused) {
  int64_t ns = 0;
  ASSERT_TRUE(smi::ParseTimestamp("2116/01/01 00:00:00.000", &ns));
  EXPECT_EQ(ns, int64_t{4607280000} * kNsPerS);
  EXPECT_FALSE(smi::ParseTimestamp("2117/01/01 00:00:00.000", &ns));
  EXPECT_FALSE(smi::ParseTimestamp("9999/12/31 23:59:59.999", &ns));
  EXPECT_FALSE(smi::ParseTimestamp("99999999999", &ns));       // seconds: 1e20 ns
  EXPECT_FALSE(smi::ParseTimestamp("4611686018427388", &ns));  // µs: 1 µs past 2^62 ns
  ASSERT_TRUE(smi::ParseTimestamp("4611686018427387", &ns));
  EXPECT_EQ(ns, 4611686018427387000);
  EXPECT_FALSE(smi::ParseTimestamp("99999999999.5", &ns));  // seconds, as a double
  EXPECT_FALSE(smi::ParseTimestamp("1e300", &ns));
  ASSERT_TRUE(smi::ParseCtime("Fri Jan  1 00:00:00 2116", &ns));
  EXPECT_EQ(ns, int64_t{4607280000} * kNsPerS);
  EXPECT_FALSE(smi::ParseCtime("Fri Dec 31 23:59:59 9999", &ns));
}

// GPU indexes and pids past int32 (fuzzed logs held 7e14 and 7e124, whose
// cast was undefined) or negative are missing.
TEST(SmiIndex, OutOfRangeIsMissing) {
  EXPECT_EQ(smi::IndexOf(0), 0);
  EXPECT_EQ(smi::IndexOf(7.9), 7);
  EXPECT_EQ(smi::IndexOf(2147483647.0), 2147483647);
  EXPECT_FALSE(IsValid(smi::IndexOf(2147483648.0)));
  EXPECT_FALSE(IsValid(smi::IndexOf(7.18784e14)));
  EXPECT_FALSE(IsValid(smi::IndexOf(6.66667e124)));
  EXPECT_FALSE(IsValid(smi::IndexOf(-1)));
  EXPECT_FALSE(IsValid(smi::IndexOf(std::nan(""))));
  EXPECT_FALSE(IsValid(smi::IndexOf(HUGE_VAL)));
}

TEST(SmiCsv, UnitsMultiGpuMissingAndPeriod) {
  const char* log =
      "timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
      "2024/01/31 12:00:00.000, 0, NVIDIA A100, 50 %, 1024 MiB, 100.5 W\n"
      "2024/01/31 12:00:00.000, 1, NVIDIA A100, [N/A], 2048 MiB, [Not Supported]\n"
      "2024/01/31 12:00:01.000, 0, NVIDIA A100, 75 %, 1024 MiB, 200 W\n"
      "2024/01/31 12:00:01.000, 1, NVIDIA A100, abc %, 2048 MiB, -5 W\n";
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText(log, t).ok());
  const auto* u0 = Find(t, CounterKind::kGpuUtil, 0);
  const auto* u1 = Find(t, CounterKind::kGpuUtil, 1);
  const auto* p0 = Find(t, CounterKind::kPowerMw, 0);
  const auto* p1 = Find(t, CounterKind::kPowerMw, 1);
  const auto* m1 = Find(t, CounterKind::kMemUsedBytes, 1);
  ASSERT_TRUE(u0 && u1 && p0 && p1 && m1);
  EXPECT_DOUBLE_EQ(u0->value[1], 0.75);
  EXPECT_EQ(u0->period_ns, kNsPerS);
  EXPECT_TRUE(std::isnan(u1->value[0]));  // [N/A] is missing, never 0
  EXPECT_TRUE(std::isnan(u1->value[1]));  // "abc" counted
  EXPECT_DOUBLE_EQ(p0->value[0], 100500.0);
  EXPECT_TRUE(std::isnan(p1->value[0]));
  EXPECT_TRUE(std::isnan(p1->value[1]));  // negative counted
  EXPECT_DOUBLE_EQ(m1->value[0], 2048.0 * 1024 * 1024);
  EXPECT_EQ(t.stats.Get(ImportStat::non_numeric_value), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::negative_value), 1u);
  EXPECT_GE(t.stats.Get(ImportStat::coarse_sample_period), 1u);
  EXPECT_EQ(t.Str(u0->source), "nvidia-smi");
  ASSERT_NE(t.FindDevice(1), nullptr);
  EXPECT_EQ(t.Str(t.FindDevice(1)->name), "NVIDIA A100");
}

// Rows without an index that come N per tick (a few ms apart, then a
// period) are N GPUs, told apart by their order within the tick.
TEST(SmiCsv, RowsNPerTickWithoutAnIndexAreNGpus) {
  std::string log = "timestamp, name, utilization.gpu [%], power.draw [W]\n";
  for (int tick = 0; tick < 10; ++tick)
    for (int g = 0; g < 3; ++g)
      log += "2024/01/31 12:00:" + std::string(tick < 10 ? "0" : "") + std::to_string(tick) +
             ".00" + std::to_string(g) + ", NVIDIA A100, " + std::to_string(g == 1 ? 40 : 95) +
             " %, " + std::to_string(100 + g) + " W\n";
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText(log, t).ok());
  EXPECT_EQ(t.devices.size(), 3u);
  for (int g = 0; g < 3; ++g) {
    const auto* u = Find(t, CounterKind::kGpuUtil, g);
    const auto* p = Find(t, CounterKind::kPowerMw, g);
    ASSERT_TRUE(u && p) << g;
    ASSERT_EQ(u->value.size(), 10u) << g;
    EXPECT_DOUBLE_EQ(u->value[3], g == 1 ? 0.40 : 0.95);
    EXPECT_DOUBLE_EQ(p->value[3], (100.0 + g) * 1000.0);
    EXPECT_EQ(u->period_ns, kNsPerS) << g;
  }
  // Stamps to the second (rows of a tick equal): the same.
  std::string coarse = "timestamp, utilization.gpu [%]\n";
  for (int tick = 0; tick < 6; ++tick)
    for (int g = 0; g < 2; ++g)
      coarse +=
          "2024/01/31 12:00:0" + std::to_string(tick) + ".000, " + std::to_string(g * 50) + " %\n";
  model::Trace c;
  ASSERT_TRUE(ReadSmiCsvText(coarse, c).ok());
  ASSERT_NE(Find(c, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_DOUBLE_EQ(Find(c, CounterKind::kGpuUtil, 1)->value[0], 0.5);
}

TEST(SmiCsv, OneGpuWithJitterOrPausesStaysOneGpu) {
  // Steps of 1 s with jitter, and one long pause: no ticks.
  std::string log = "timestamp, utilization.gpu [%]\n";
  const char* stamps[] = {"12:00:00.000", "12:00:01.003", "12:00:02.001", "12:00:03.010",
                          "12:00:04.002", "12:10:00.000", "12:10:01.004", "12:10:02.000"};
  for (const char* st : stamps) log += std::string("2024/01/31 ") + st + ", 90 %\n";
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText(log, t).ok());
  EXPECT_EQ(Find(t, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_EQ(Find(t, CounterKind::kGpuUtil, 0)->value.size(), 8u);
  // Bursts of fast samples between pauses are one GPU sampled fast, not a node.
  std::string bursts = "timestamp, utilization.gpu [%]\n";
  for (int b = 0; b < 5; ++b)
    for (int i = 0; i < 40; ++i)
      bursts += "2024/01/31 12:" + std::to_string(10 + b) + ":00." + std::to_string(100 + i * 20) +
                ", 90 %\n";
  model::Trace u;
  ASSERT_TRUE(ReadSmiCsvText(bursts, u).ok());
  EXPECT_EQ(Find(u, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_EQ(Find(u, CounterKind::kGpuUtil, 0)->value.size(), 200u);
}

TEST(SmiCsv, BusIdTellsGpusApartWhateverTheOrder) {
  const char* log =
      "timestamp, pci.bus_id, utilization.gpu [%]\n"
      "2024/01/31 12:00:00.000, 00000000:18:00.0, 10 %\n"
      "2024/01/31 12:00:00.001, 00000000:32:00.0, 90 %\n"
      "2024/01/31 12:00:01.000, 00000000:32:00.0, 91 %\n"
      "2024/01/31 12:00:01.001, 00000000:18:00.0, 11 %\n";
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText(log, t).ok());
  const auto* u1 = Find(t, CounterKind::kGpuUtil, 1);
  ASSERT_NE(u1, nullptr);
  EXPECT_DOUBLE_EQ(u1->value[0], 0.90);
  EXPECT_DOUBLE_EQ(u1->value[1], 0.91);
}

TEST(SmiCsv, AppendedJobsGarbageAndTruncatedTail) {
  const char* log =
      "utilization.gpu [%], memory.used [MiB]\n"
      "10 %, 100 MiB\n"
      "+-----------------------------------------+\n"
      "| NVIDIA-SMI 535.54 |\n"
      "utilization.gpu [%], memory.used [MiB]\n"
      "20 %, 200 MiB\n"
      "30 %, 30";  // cut mid-field, no newline
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText(log, t).ok());
  const auto* u = Find(t, CounterKind::kGpuUtil, 0);
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(u->value.size(), 2u);
  EXPECT_DOUBLE_EQ(u->value[1], 0.2);
  EXPECT_FALSE(IsValid(u->period_ns));  // no timestamps: indexes, no period
  EXPECT_EQ(t.stats.Get(ImportStat::repeated_header), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 2u);
  EXPECT_EQ(t.stats.Get(ImportStat::truncated_tail), 1u);
  EXPECT_GE(t.stats.Get(ImportStat::no_timestamps), 1u);
}

TEST(SmiCsv, NoHeaderPercentLines) {
  model::Trace t;
  ASSERT_TRUE(ReadSmiCsvText("0 %\n5 %\n100 %\n", t).ok());
  const auto* u = Find(t, CounterKind::kGpuUtil, 0);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->value.size(), 3u);
  EXPECT_DOUBLE_EQ(u->value[2], 1.0);
}

TEST(SmiSniff, ClaimsLogsNotOtherFiles) {
  EXPECT_TRUE(LooksLikeSmiCsv("timestamp, utilization.gpu [%]\n2024/01/01 00:00:00.000, 3 %\n"));
  EXPECT_TRUE(LooksLikeSmiCsv("timestamp,memory.used,memory.total,utilization.gpu\n1,2,3,4\n"));
  EXPECT_TRUE(LooksLikeSmiCsv("1 %\n2 %\n3 %\n4 %\n"));
  EXPECT_FALSE(LooksLikeSmiCsv("{\"traceEvents\": [{\"ph\": \"X\"}]}"));
  EXPECT_FALSE(LooksLikeSmiCsv("a,b,c\n1,2,3\n"));
  EXPECT_FALSE(LooksLikeSmiCsv("epoch,loss,accuracy\n1,0.5,0.9\n"));
  EXPECT_FALSE(LooksLikeSmiDmon("a,b,c\n1,2,3\n"));
  EXPECT_FALSE(LooksLikeDcgm("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeDcgm("epoch,loss\n1,2\n"));
  EXPECT_FALSE(LooksLikeDcgm("timestamp, utilization.gpu [%]\n"));
}

TEST(SmiDmon, UtilAndProcesses) {
  const char* dmon =
      "# gpu     sm    mem    enc    dec    jpg    ofa\n"
      "# Idx      %      %      %      %      %      %\n"
      "    0     46     26      0      1      0      0\n"
      "    1      -     10      0      0      0      0\n"
      "# gpu     sm    mem    enc    dec    jpg    ofa\n"
      "# Idx      %      %      %      %      %      %\n"
      "    0     48     27      0      0      0      0\n";
  ASSERT_TRUE(LooksLikeSmiDmon(dmon));
  model::Trace t;
  ASSERT_TRUE(ReadSmiDmonText(dmon, t).ok());
  const auto* sm0 = Find(t, CounterKind::kGpuUtil, 0);
  const auto* sm1 = Find(t, CounterKind::kGpuUtil, 1);
  ASSERT_TRUE(sm0 && sm1);
  EXPECT_EQ(sm0->value.size(), 2u);
  EXPECT_DOUBLE_EQ(sm0->value[1], 0.48);
  EXPECT_TRUE(std::isnan(sm1->value[0]));
  const char* pmon =
      "# gpu         pid   type     sm    mem    enc    dec    command\n"
      "# Idx           #    C/G      %      %      %      %    name\n"
      "    0       1234     C     40     10      -      -    python\n";
  model::Trace p;
  ASSERT_TRUE(ReadSmiDmonText(pmon, p).ok());
  ASSERT_EQ(p.gpu_processes.size(), 1u);
  EXPECT_EQ(p.gpu_processes.pid[0], 1234);
  EXPECT_EQ(p.Str(p.gpu_processes.name[0]), "python");
}

TEST(Dcgm, LongWideAndDmonText) {
  const char* long_csv =
      "GPUId,TimeStampUs,Field,Values\n"
      "0,1718783836956328,power_usage_instant,71.20\n"
      "0,1718783837956328,power_usage_instant,70.00\n"
      "0,1718783836956328,DCGM_FI_PROF_SM_ACTIVE,0.25\n";
  ASSERT_TRUE(LooksLikeDcgm(long_csv));
  model::Trace a;
  ASSERT_TRUE(ReadDcgmText(long_csv, a).ok());
  const auto* pw = Find(a, CounterKind::kPowerMw, 0);
  ASSERT_NE(pw, nullptr);
  EXPECT_DOUBLE_EQ(pw->value[0], 71200.0);
  EXPECT_EQ(pw->period_ns, kNsPerS);
  ASSERT_NE(Find(a, CounterKind::kSmActive, 0), nullptr);
  EXPECT_DOUBLE_EQ(Find(a, CounterKind::kSmActive, 0)->value[0], 0.25);  // PROF: ratio kept

  const char* wide =
      "timestamp,gpu,DCGM_FI_DEV_GPU_UTIL,DCGM_FI_PROF_DRAM_ACTIVE\n"
      "1718783836,0,100,0.5\n"
      "1718783837,0,N/A,0.25\n";
  model::Trace b;
  ASSERT_TRUE(ReadDcgmText(wide, b).ok());
  EXPECT_DOUBLE_EQ(Find(b, CounterKind::kGpuUtil, 0)->value[0], 1.0);  // DEV: percent
  EXPECT_TRUE(std::isnan(Find(b, CounterKind::kGpuUtil, 0)->value[1]));
  EXPECT_DOUBLE_EQ(Find(b, CounterKind::kDramActive, 0)->value[1], 0.25);

  const char* dmon =
      "#Entity   SMACT  SMOCC  TENSO  DRAMA\n"
      "ID\n"
      "GPU 0     0.812  0.400  0.100  0.300\n"
      "GPU 1     0.000  0.000  0.000  N/A\n"
      "GPU 0     0.900  0.410  0.120  0.310\n"
      "garbage line\n";
  ASSERT_TRUE(LooksLikeDcgm(dmon));
  model::Trace c;
  ASSERT_TRUE(ReadDcgmText(dmon, c).ok());
  const auto* sm = Find(c, CounterKind::kSmActive, 0);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->value.size(), 2u);
  EXPECT_DOUBLE_EQ(sm->value[1], 0.9);
  EXPECT_FALSE(IsValid(sm->period_ns));
  EXPECT_TRUE(std::isnan(Find(c, CounterKind::kDramActive, 1)->value[0]));
  EXPECT_EQ(c.stats.Get(ImportStat::garbage_row), 1u);
}

TEST(SmiFiles, RegistryPicksByContentAndGarbageIsNotAnError) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gpuwhy_smi_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  Result<model::Trace> a = ImportFile(write("log.txt", "utilization.gpu [%], memory.used [MiB]\n5 %, 1 MiB\n@@@\n7 %, 1 MiB\n"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->info.format, "nvidia-smi-csv");
  EXPECT_EQ(a->stats.Get(ImportStat::garbage_row), 1u);
  Result<model::Trace> b = ImportFile(write("x.csv", "GPUId,TimeStampUs,Field,Values\n0,1718783836956328,power_usage,7\n"));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->info.format, "dcgm");
  // A header and nothing else is a clear error naming the file.
  Result<model::Trace> c = ImportFile(write("empty.csv", "utilization.gpu [%]\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("empty.csv"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy::import
