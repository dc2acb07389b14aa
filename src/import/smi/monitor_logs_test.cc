// Unit tests of the monitoring-log readers (issue 40 §4) on logs written
// here: the DCGM field table, DCGM CSVs by short name / field id / DCGM_FI_*
// name with MIG entities, dcgm-exporter scrapes, `nvidia-smi dmon` with -s/-o
// options, and script CSVs read by the meaning of their columns.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "import/registry.h"
#include "import/smi/dcgm_exporter_importer.h"
#include "import/smi/dcgm_importer.h"
#include "import/smi/script_csv_importer.h"
#include "import/smi/smi_csv_importer.h"
#include "model/dcgm_fields.h"

namespace gpuwhy::import {
namespace {

using model::CounterKind;
using model::ImportStat;

const model::CounterSeries* MonFind(const model::Trace& t, CounterKind k, int32_t dev) {
  for (const auto& s : t.counters)
    if (s.kind == k && s.device_id == dev) return &s;
  return nullptr;
}

bool MonNoted(const model::Trace& t, std::string_view what) {
  for (const std::string& n : t.info.import_notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(DcgmFieldTable, EveryNameFindsTheSameField) {
  for (const model::DcgmField& f : model::DcgmFields()) {
    SCOPED_TRACE(std::string(f.fi_name));
    EXPECT_EQ(model::FindDcgmField(std::to_string(f.id)), &f);
    EXPECT_EQ(model::FindDcgmField(f.fi_name), &f);
    if (!f.short_name.empty()) {
      EXPECT_EQ(model::FindDcgmField(f.short_name), &f);
    }
    EXPECT_TRUE(f.fi_name.starts_with("DCGM_FI_"));
  }
  // Ids are unique and ascending.
  uint16_t last = 0;
  for (const model::DcgmField& f : model::DcgmFields()) {
    EXPECT_GT(f.id, last);
    last = f.id;
  }
  double scale = 0;
  const model::DcgmField* gr = model::FindDcgmField(" gract ", &scale);
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->id, 1001);
  EXPECT_EQ(gr->kind, CounterKind::kGrEngineActive);  // never SM activity
  // DCGM 4.x renamed GPU_UTIL to a ratio: no percent scale then.
  ASSERT_NE(model::FindDcgmField("DCGM_FI_DEV_GPU_UTIL_RATIO", &scale), nullptr);
  EXPECT_DOUBLE_EQ(scale, 1.0);
  ASSERT_NE(model::FindDcgmField("DCGM_FI_DEV_GPU_UTIL", &scale), nullptr);
  EXPECT_DOUBLE_EQ(scale, 0.01);
  EXPECT_EQ(model::FindDcgmField("9999"), nullptr);
  EXPECT_EQ(model::FindDcgmField("loss"), nullptr);
  EXPECT_EQ(model::FindDcgmField(""), nullptr);
}

TEST(DcgmCsv, ShortNamesIdsMigEntitiesIsoTimesAndNa) {
  const char* by_name =
      "timestamp,entity,GRACT,SMACT,SMOCC,TENSO,DRAMA,FBUSD,POWER\n"
      "2026-01-05T10:00:00Z,GPU 0,0.90,0.40,0.20,0.05,0.30,1024,250.5\n"
      "2026-01-05T10:00:01Z,GPU 0,0.95,N/A,0.25,0.06,0.31,1024,260\n"
      "2026-01-05T10:00:00Z,GPU-I 3,0.50,0.10,0.05,0.00,0.10,512,N/A\n"
      "2026-01-05T10:00:01Z,GPU-I 3,0.60,0.20,0.05,0.00,0.10,512,N/A\n";
  ASSERT_TRUE(LooksLikeDcgm(by_name));
  model::Trace t;
  ASSERT_TRUE(ReadDcgmText(by_name, t).ok());
  const auto* gr = MonFind(t, CounterKind::kGrEngineActive, 0);
  const auto* sm = MonFind(t, CounterKind::kSmActive, 0);
  ASSERT_TRUE(gr && sm);
  EXPECT_DOUBLE_EQ(gr->value[1], 0.95);
  EXPECT_TRUE(std::isnan(sm->value[1]));
  EXPECT_EQ(sm->period_ns, kNsPerS);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kMemUsedBytes, 0)->value[0], 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kPowerMw, 0)->value[0], 250500.0);
  // MIG GPU instance 3 is a device of its own, never GPU 3.
  ASSERT_NE(MonFind(t, CounterKind::kSmActive, 1003), nullptr);
  EXPECT_EQ(MonFind(t, CounterKind::kSmActive, 3), nullptr);
  EXPECT_TRUE(MonNoted(t, "graphics-engine activity"));
  EXPECT_TRUE(MonNoted(t, "MIG"));

  const char* by_id =
      "time,gpu,1001,1002,203\n"
      "1767607200,0,0.5,0.25,40\n"
      "1767607201,0,0.6,0.30,N/A\n";
  ASSERT_TRUE(LooksLikeDcgm(by_id));
  model::Trace b;
  ASSERT_TRUE(ReadDcgmText(by_id, b).ok());
  EXPECT_DOUBLE_EQ(MonFind(b, CounterKind::kSmActive, 0)->value[1], 0.30);
  EXPECT_DOUBLE_EQ(MonFind(b, CounterKind::kGpuUtil, 0)->value[0], 0.40);
  EXPECT_TRUE(std::isnan(MonFind(b, CounterKind::kGpuUtil, 0)->value[1]));
  EXPECT_EQ(MonFind(b, CounterKind::kGpuUtil, 0)->period_ns, kNsPerS);
  // Lower-case profiling names in percent (a script's own log): DCGM's
  // fields, read as percent because the values pass 1.
  const char* lower =
      "time,gpu,smact,sm_occupancy\n"
      "1767607200,0,40,20\n"
      "1767607201,0,60,N/A\n";
  ASSERT_TRUE(LooksLikeDcgm(lower));
  model::Trace c;
  ASSERT_TRUE(ReadDcgmText(lower, c).ok());
  EXPECT_DOUBLE_EQ(MonFind(c, CounterKind::kSmActive, 0)->value[1], 0.60);
  EXPECT_DOUBLE_EQ(MonFind(c, CounterKind::kSmOccupancy, 0)->value[0], 0.20);
  EXPECT_TRUE(MonNoted(c, "`smact` (GPU 0) holds values above 1: read as percent"));
  // A script's lower-case "power" or a lone number is not a DCGM header.
  EXPECT_FALSE(LooksLikeDcgm("time,gpu,power\n1,0,3\n"));
  EXPECT_FALSE(LooksLikeDcgm("time,gpu,7\n1,0,3\n"));
}

// pydcgm-style long rows: the entity group (1 GPU, 4 GPU instance, 5 compute
// instance) says what the entity id is; other groups are not GPUs.
TEST(DcgmCsv, EntityGroupColumnTellsMigFromGpu) {
  const char* csv =
      "entityGroupId,entityId,fieldId,ts,value\n"
      "1,0,1002,1767607200000000,0.5\n"
      "4,0,1002,1767607200000000,0.25\n"
      "5,2,1002,1767607200000000,0.125\n"
      "3,0,1002,1767607200000000,0.9\n";
  ASSERT_TRUE(LooksLikeDcgm(csv));
  model::Trace t;
  ASSERT_TRUE(ReadDcgmText(csv, t).ok());
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kSmActive, 0)->value[0], 0.5);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kSmActive, 1000)->value[0], 0.25);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kSmActive, 2002)->value[0], 0.125);
  EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 1u);  // the NVSwitch row
}

TEST(DcgmCsv, OnlyUnmappedFieldsIsOneLineRefusal) {
  const char* csv =
      "GPUId,TimeStampUs,Field,Values\n"
      "0,1718783836956328,throttle_reason_idle,1\n"
      "0,1718783837956328,throttle_reason_idle,0\n";
  model::Trace t;
  Status s = ReadDcgmText(csv, t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("throttle_reason_idle"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("none gpuwhy maps"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(DcgmDmonText, MigEntitiesAndGractNote) {
  const char* dmon =
      "#Entity   GRACT  SMACT\n"
      "ID\n"
      "GPU 0     0.812  0.400\n"
      "GPU-I 1   0.500  0.250\n"
      "GPU-CI 2  0.400  0.200\n";
  model::Trace t;
  ASSERT_TRUE(ReadDcgmText(dmon, t).ok());
  ASSERT_NE(MonFind(t, CounterKind::kSmActive, 1001), nullptr);
  ASSERT_NE(MonFind(t, CounterKind::kSmActive, 2002), nullptr);
  EXPECT_EQ(t.Str(t.FindDevice(1001)->name), "MIG GPU instance 1");
  EXPECT_TRUE(MonNoted(t, "SMACT (1002) gives SM activity"));
}

std::string MonScrape(int gpu_util, int64_t ts_ms, bool with_ts) {
  std::string tail = with_ts ? " " + std::to_string(ts_ms) : "";
  return "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
         "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aaaa\",device=\"nvidia0\",modelName=\"NVIDIA "
         "A100-SXM4-40GB\",Hostname=\"h\"} " +
         std::to_string(gpu_util) + tail +
         "\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-bbbb\",device=\"nvidia1\",modelName=\"NVIDIA "
         "A100-SXM4-40GB\",Hostname=\"h\"} 0" +
         tail +
         "\n"
         "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n"
         "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"
         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-aaaa\",GPU_I_PROFILE=\"1g.5gb\","
         "GPU_I_ID=\"7\"} 0.5" +
         tail + "\n" +
         "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-aaaa\"} 2048" + tail + "\n";
}

TEST(DcgmExporter, ManyScrapesTimedByDateLinesOrSampleTimes) {
  // `date; curl -s host:9400/metrics` in a loop.
  std::string text = "Mon Jan  5 10:00:00 UTC 2026\n" + MonScrape(40, 0, false) +
                     "Mon Jan  5 10:00:05 UTC 2026\n" + MonScrape(60, 0, false) +
                     "Mon Jan  5 10:00:10 UTC 2026\n" + MonScrape(80, 0, false);
  ASSERT_TRUE(LooksLikeDcgmExporter(text));
  EXPECT_FALSE(LooksLikeDcgm(text) && !LooksLikeDcgmExporter(text));
  model::Trace t;
  ASSERT_TRUE(ReadDcgmExporterText(text, t).ok());
  const auto* u0 = MonFind(t, CounterKind::kGpuUtil, 0);
  ASSERT_NE(u0, nullptr);
  ASSERT_EQ(u0->value.size(), 3u);
  EXPECT_DOUBLE_EQ(u0->value[2], 0.80);
  EXPECT_EQ(u0->period_ns, 5 * kNsPerS);
  ASSERT_NE(MonFind(t, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_EQ(t.Str(t.FindDevice(0)->name), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(t.Str(t.FindDevice(0)->uuid), "GPU-aaaa");
  // The MIG instance's engine activity is its own device (1000 + 100*gpu + id).
  ASSERT_NE(MonFind(t, CounterKind::kGrEngineActive, 1007), nullptr);
  EXPECT_EQ(MonFind(t, CounterKind::kGrEngineActive, 0), nullptr);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kMemUsedBytes, 0)->value[0], 2048.0 * 1024 * 1024);
  EXPECT_TRUE(MonNoted(t, "3 dcgm-exporter scrape(s)"));
  EXPECT_TRUE(MonNoted(t, "not SM activity"));

  // Sample timestamps (ms) win; scrapes concatenated with nothing between.
  std::string timed = MonScrape(10, 1767607200000, true) + MonScrape(20, 1767607201000, true);
  model::Trace b;
  ASSERT_TRUE(ReadDcgmExporterText(timed, b).ok());
  EXPECT_EQ(MonFind(b, CounterKind::kGpuUtil, 0)->period_ns, kNsPerS);

  // One scrape without times: scrape indexes, said in a note.
  model::Trace c;
  ASSERT_TRUE(ReadDcgmExporterText(MonScrape(33, 0, false), c).ok());
  EXPECT_TRUE(MonFind(c, CounterKind::kGpuUtil, 0)->ts_are_indexes);
  EXPECT_TRUE(MonNoted(c, "without times"));
}

TEST(DcgmExporter, SeveralHostsKeepTheirGpusApart) {
  const char* text =
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"node1\"} 90 1767607200000\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-b\",Hostname=\"node2\"} 10 1767607200000\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-c\",Hostname=\"node2\"} 20 1767607200000\n";
  model::Trace t;
  ASSERT_TRUE(ReadDcgmExporterText(text, t).ok());
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kGpuUtil, 0)->value[0], 0.90);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kGpuUtil, 100)->value[0], 0.10);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kGpuUtil, 101)->value[0], 0.20);
  EXPECT_EQ(t.Str(t.FindDevice(101)->uuid), "GPU-c");
  EXPECT_TRUE(MonNoted(t, "scrapes of 2 hosts kept apart as devices: node1 = 0+gpu, node2 = 100+gpu"));
}

TEST(DcgmExporter, NothingMappedIsOneLineRefusal) {
  const char* text =
      "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
      "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
      "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",UUID=\"GPU-a\"} 0\n"
      "go_goroutines 12\n";
  ASSERT_TRUE(LooksLikeDcgmExporter(text));
  model::Trace t;
  Status s = ReadDcgmExporterText(text, t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("none of a field gpuwhy maps"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  EXPECT_FALSE(LooksLikeDcgmExporter("go_goroutines 12\nprocess_cpu_seconds_total 3\n"));
}

TEST(SmiDmonOptions, DateTimeMemoryClocksPcieAndViolations) {
  // nvidia-smi dmon -s pucvmet -o DT
  const char* dmon =
      "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk  "
      "pviol  tviol     fb   bar1  sbecc  dbecc    pci  rxpci  txpci\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz  "
      "    %   bool     MB     MB   errs   errs   errs   MB/s   MB/s\n"
      " 20260105   10:00:00      0     70     40      -     35     10      0      0   1215   1410  "
      "    0      0   2048      5      0      0      0     10     20\n"
      " 20260105   10:00:01      0     75     41      -     45     12      0      0   1215   1395  "
      "    0      0   2048      5      0      0      0     12     22\n";
  ASSERT_TRUE(LooksLikeSmiDmon(dmon));
  model::Trace t;
  ASSERT_TRUE(ReadSmiDmonText(dmon, t).ok());
  const auto* sm = MonFind(t, CounterKind::kGpuUtil, 0);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->period_ns, kNsPerS);
  EXPECT_EQ(sm->ts_ns[0], 1767607200 * kNsPerS);
  EXPECT_DOUBLE_EQ(sm->value[1], 0.45);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kSmClockMhz, 0)->value[1], 1395.0);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kMemUsedBytes, 0)->value[0], 2048.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kPcieTxBytesPerS, 0)->value[1], 22e6);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kPowerMw, 0)->value[0], 70000.0);

  // -o T: time of day only; the clock passes midnight.
  const char* tod =
      "#Time        gpu     sm    mem\n"
      "#HH:MM:SS    Idx      %      %\n"
      " 23:59:59      0     10      1\n"
      " 00:00:00      0     20      2\n";
  ASSERT_TRUE(LooksLikeSmiDmon(tod));
  model::Trace b;
  ASSERT_TRUE(ReadSmiDmonText(tod, b).ok());
  const auto* u = MonFind(b, CounterKind::kGpuUtil, 0);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->ts_ns[1] - u->ts_ns[0], kNsPerS);
  EXPECT_EQ(b.info.clock, "time_of_day");
}

TEST(ScriptCsv, OwnHeadersReadByMeaning) {
  const char* a =
      "timestamp,gpu_index,utilization_gpu_percent,power_W\n"
      "2026-01-05 10:00:00,0,35,120.5\n"
      "2026-01-05 10:00:01,0,N/A,130\n"
      "2026-01-05 10:00:00,1,80,250\n"
      "2026-01-05 10:00:01,1,90,260\n";
  ASSERT_FALSE(LooksLikeSmiCsv(a));
  ASSERT_FALSE(LooksLikeDcgm(a));
  ASSERT_TRUE(LooksLikeScriptCsv(a));
  model::Trace t;
  ASSERT_TRUE(ReadScriptCsvText(a, t).ok());
  EXPECT_EQ(t.info.format, "monitor-csv");
  EXPECT_EQ(t.info.clock, "unix_realtime");
  const auto* u1 = MonFind(t, CounterKind::kGpuUtil, 1);
  ASSERT_NE(u1, nullptr);
  EXPECT_DOUBLE_EQ(u1->value[1], 0.90);
  EXPECT_EQ(u1->period_ns, kNsPerS);
  EXPECT_TRUE(std::isnan(MonFind(t, CounterKind::kGpuUtil, 0)->value[1]));
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kPowerMw, 0)->value[0], 120500.0);
  EXPECT_TRUE(MonNoted(t, "`utilization_gpu_percent` read as GPU utilization (%: unit from the name)"));
  EXPECT_TRUE(MonNoted(t, "`power_W` read as power draw (W"));
  EXPECT_TRUE(MonNoted(t, "`gpu_index` read as the GPU index"));

  // Short names, seconds since start, ratio utilization, mW power: units
  // from the values.
  const char* b =
      "time,util,mem,watts\n"
      "0.0,0.5,12,150000\n"
      "0.5,0.75,15,160000\n"
      "1.0,1.0,20,170000\n";
  ASSERT_TRUE(LooksLikeScriptCsv(b));
  model::Trace tb;
  ASSERT_TRUE(ReadScriptCsvText(b, tb).ok());
  EXPECT_EQ(tb.info.clock, "log_relative");
  const auto* ub = MonFind(tb, CounterKind::kGpuUtil, 0);
  ASSERT_NE(ub, nullptr);
  EXPECT_DOUBLE_EQ(ub->value[1], 0.75);
  EXPECT_EQ(ub->period_ns, kNsPerS / 2);
  EXPECT_DOUBLE_EQ(MonFind(tb, CounterKind::kMemUtil, 0)->value[0], 0.12);
  EXPECT_DOUBLE_EQ(MonFind(tb, CounterKind::kPowerMw, 0)->value[0], 150000.0);
  EXPECT_TRUE(MonNoted(tb, "values <= 1 throughout, so a ratio"));
  EXPECT_TRUE(MonNoted(tb, "values above 5000, so mW"));
  EXPECT_TRUE(MonNoted(tb, "seconds since the log's start"));
  EXPECT_TRUE(MonNoted(tb, "no GPU column"));

  // Whitespace-separated, GPUs by UUID only, memory in MB, tab-free.
  const char* c =
      "timestamp dev_uuid dev_util_pc dev_mem_used_mb dev_temp_deg_c\n"
      "2026-01-05T10:00:00Z  GPU-aaaa 50 100 40\n"
      "2026-01-05T10:00:00Z  GPU-bbbb 0 4 30\n"
      "2026-01-05T10:00:01Z  GPU-aaaa 70 120 41\n"
      "2026-01-05T10:00:01Z  GPU-bbbb 1 4 30\n";
  ASSERT_TRUE(LooksLikeScriptCsv(c));
  model::Trace tc;
  ASSERT_TRUE(ReadScriptCsvText(c, tc).ok());
  ASSERT_NE(MonFind(tc, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_DOUBLE_EQ(MonFind(tc, CounterKind::kGpuUtil, 0)->value[1], 0.70);
  EXPECT_DOUBLE_EQ(MonFind(tc, CounterKind::kMemUsedBytes, 0)->value[0], 100.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(MonFind(tc, CounterKind::kTemperatureC, 1)->value[0], 30.0);
  EXPECT_EQ(tc.Str(tc.FindDevice(1)->uuid), "GPU-bbbb");

  // Units written in the cells, semicolons, a garbage row.
  const char* d =
      "Time;GPU;GPU Util;Memory Used\n"
      "1767607200;0;45 %;1.5 GiB\n"
      "oops\n"
      "1767607202;0;55 %;2 GiB\n";
  ASSERT_TRUE(LooksLikeScriptCsv(d));
  model::Trace td;
  ASSERT_TRUE(ReadScriptCsvText(d, td).ok());
  EXPECT_DOUBLE_EQ(MonFind(td, CounterKind::kGpuUtil, 0)->value[0], 0.45);
  EXPECT_DOUBLE_EQ(MonFind(td, CounterKind::kMemUsedBytes, 0)->value[0], 1.5 * 1024 * 1024 * 1024);
  EXPECT_EQ(td.stats.Get(ImportStat::garbage_row), 1u);
}

// No GPU column, rows 2 per tick a few ms apart: two GPUs by row order.
TEST(ScriptCsv, RowsNPerTickWithoutAGpuColumnAreNGpus) {
  std::string log = "time,gpu_util\n";
  for (int i = 0; i < 6; ++i) {
    log += std::to_string(1767607200000 + i * 1000) + ",90\n";
    log += std::to_string(1767607200000 + i * 1000 + 3) + ",5\n";
  }
  model::Trace t;
  ASSERT_TRUE(ReadScriptCsvText(log, t).ok());
  ASSERT_NE(MonFind(t, CounterKind::kGpuUtil, 1), nullptr);
  EXPECT_EQ(MonFind(t, CounterKind::kGpuUtil, 0)->value.size(), 6u);
  EXPECT_DOUBLE_EQ(MonFind(t, CounterKind::kGpuUtil, 1)->value[3], 0.05);
  EXPECT_EQ(MonFind(t, CounterKind::kGpuUtil, 0)->period_ns, kNsPerS);
  EXPECT_TRUE(MonNoted(t, "rows come 2 per tick"));
}

TEST(ScriptCsv, NoUtilizationColumnIsOneLineRefusal) {
  const char* csv =
      "timestamp,gpu,power_w,temp_c\n"
      "1767607200,0,100,40\n"
      "1767607201,0,110,41\n";
  ASSERT_TRUE(LooksLikeScriptCsv(csv));
  model::Trace t;
  Status s = ReadScriptCsvText(csv, t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no column reads as GPU utilization"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("power_w"), std::string::npos);
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(ScriptCsv, SnifferLeavesOtherCsvsAlone) {
  EXPECT_FALSE(LooksLikeScriptCsv("epoch,loss,accuracy\n1,0.5,0.9\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("a,b,c\n1,2,3\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeScriptCsv(
      "Index,KernelName,gpu-id,queue-id,DispatchNs,BeginNs,EndNs\n0,k,0,0,1,2,3\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                                  "\"0\",\"k\",\"sm__throughput\",\"5\"\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("time,util\nno numbers,here\n"));
  // Profiler summaries: a share alone is not GPU utilization.
  EXPECT_FALSE(LooksLikeScriptCsv("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                                  "\"CopyDeviceToHost\",1,885,885,83.0\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("type,time ms,percent\ncomputation_time,282.5,60.8\n"));
  EXPECT_FALSE(LooksLikeScriptCsv("Row#,In-Use (%),Duration (ns),Start (ns),PID,Device ID\n"
                                  "1,0.1,531987523,1348466847,3410277,0\n"));
  EXPECT_TRUE(LooksLikeScriptCsv("time,gpu %\n1,50\n"));
}

TEST(MonitorFiles, RegistryPicksEachByContent) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gpuwhy_mon_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  struct {
    const char* name;
    std::string text;
    const char* format;
  } cases[] = {
      {"a.log", MonScrape(40, 1767607200000, true), "dcgm-exporter"},
      {"b.txt", "time,gpu,1001,1002\n1767607200,0,0.5,0.25\n", "dcgm"},
      {"c.csv", "time,util,mem,watts\n0,50,12,150\n1,60,13,160\n", "monitor-csv"},
      {"d.csv", "#Date Time gpu sm\n#YYYYMMDD HH:MM:SS Idx %\n 20260105 10:00:00 0 5\n",
       "nvidia-smi-dmon"},
  };
  for (const auto& c : cases) {
    Result<model::Trace> r = ImportFile(write(c.name, c.text));
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status().message();
    EXPECT_EQ(r->info.format, c.format) << c.name;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy::import
