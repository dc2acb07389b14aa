// Unit tests of the nsys SQLite importer on small exports written here with
// the sqlite3 C API (the schema subset real exports use).
#include "import/nsys/nsys_importer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "import/nsys/sqlite_db.h"
#include "import/registry.h"

namespace gpuwhy::import {
namespace {

namespace fs = std::filesystem;
using model::ImportStat;

class NsysImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuwhy_nsys_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& sql) {
    std::string path = (dir_ / name).string();
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    return path;
  }

  std::string Bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string WriteBytes(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

// ExpectSameKernels: every kernel column of `a` and `b` is identical.
void ExpectSameKernels(const model::Trace& a, const model::Trace& b) {
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
#define GPUWHY_TEST_SAME(type, name, def) \
  EXPECT_TRUE(model::SameBits(a.kernels.name, b.kernels.name)) << "kernel column " #name " differs";
  GPUWHY_KERNEL_COLUMNS(GPUWHY_TEST_SAME)
#undef GPUWHY_TEST_SAME
  for (size_t i = 0; i < model::kImportStatCount; ++i)
    EXPECT_EQ(a.stats.Get(i), b.stats.Get(i)) << model::kImportStatInfo[i].name;
}

// ManyKernels: `n` kernel rows (correlation ids 1..n) in shuffled start order
// with only 101 distinct (start, end) pairs, so the stable sort of Finalize
// keeps the read order of ties and any reordering by the readers shows; every
// 97th row misses its start, every 89th ends before it starts, every 61st has
// no demangled name, and every 13th rowid is deleted (gaps).
std::string ManyKernels(int n) {
  return fmt::format(R"SQL(
INSERT INTO StringIds VALUES (1, 'kernel_a'), (2, 'kernel_b'), (3, 'short_c');
DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT,
  streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT, gridX INT,
  gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT,
  staticSharedMemory INT, dynamicSharedMemory INT);
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < {0})
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  SELECT CASE WHEN x % 97 = 0 THEN NULL ELSE 10 * ((x * 7919) % 101) END,
         CASE WHEN x % 89 = 0 THEN 10 * ((x * 7919) % 101) - 5 ELSE 10 * ((x * 7919) % 101) + 5 END,
         x % 2, 1, 7 + x % 3, x, 72057594037927936 + 4242 * 16777216,
         CASE WHEN x % 61 = 0 THEN NULL ELSE 1 + x % 2 END, 3, x % 5, 1, 1, 32 * (1 + x % 4), 1, 1,
         x % 64, CASE WHEN x % 5 = 0 THEN NULL ELSE 16 * x END, 0
  FROM i;
DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 13 = 0;
)SQL", n);
}

// A minimal 2024-style export: one GPU whose CUDA ordinal differs from its id.
const char* kBaseSchema = R"SQL(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
CREATE TABLE TARGET_INFO_GPU (id INT, cuDevice INT, name TEXT, uuid TEXT, smCount INT,
  computeMajor INT, computeMinor INT, totalMemory INT, threadsPerWarp INT, maxWarpsPerSm INT,
  busLocation TEXT);
INSERT INTO TARGET_INFO_GPU VALUES (3, 1, 'NVIDIA A100', 'GPU-x', 108, 8, 0, 85899345920, 32, 64,
  '0000:82:00.0');
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100', 'GPU-y', 108, 8, 0, 85899345920, 32, 64,
  '0000:07:00.0');
CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT);
INSERT INTO PROCESSES VALUES (72057594037927936 + 4242 * 16777216, 4242, 'python');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT,
  contextId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,
  gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT,
  staticSharedMemory INT, dynamicSharedMemory INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT,
  correlationId INT, nameId INT, returnValue INT, callchainId INT);
)SQL";

TEST_F(NsysImporterTest, ReadsKernelsApiDevicesAndDecodesIds) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*)'), (2, 'gemm'),
  (3, 'cudaLaunchKernel_v7000'), (4, 'cuLaunchKernel');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000, 3000, 1, 1, 7, 11, 72057594037927936 + 4242 * 16777216, 1, 2, 4, 1, 1, 256, 1, 1, 64,
   1024, 2048),
  (1000, 1500, 1, 1, 7, 10, 72057594037927936 + 4242 * 16777216, NULL, 2, 1, 1, 1, 32, 1, 1, 16,
   0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (900, 950, 0, 72057594037927936 + 4242 * 16777216 + 4243, 10, 3, 0, 0),
  (1900, 1950, 1, 72057594037927936 + 4242 * 16777216 + 4243, 11, 4, 0, 0);
)SQL";
  std::string path = Write("a.sqlite", sql);
  model::Trace t;
  NsysScanStats scan;
  {
    Status st = ReadNsysSqlite(path, t, &scan);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  EXPECT_EQ(scan.kernel_rows, 2u);
  ASSERT_EQ(t.kernels.size(), 2u);
  // Finalize sorted by start: the NULL-demangled kernel comes first, named by shortName.
  EXPECT_EQ(t.Str(t.kernels.name[0]), "gemm");
  EXPECT_EQ(t.Str(t.kernels.name[1]), "void gemm<float>(float*)");
  EXPECT_EQ(t.kernels.pid[1], 4242);
  EXPECT_EQ(t.kernels.device_id[1], 1);
  EXPECT_EQ(t.kernels.shared_mem_bytes[1], 3072);
  EXPECT_EQ(t.kernels.static_shared_mem_bytes[1], 1024);
  EXPECT_EQ(t.kernels.block_x[1], 256);
  EXPECT_FALSE(IsValid(t.kernels.graph_id[1]));
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.api_calls.tid[0], 4243);
  EXPECT_EQ(t.api_calls.pid[0], 4242);
  EXPECT_EQ(t.api_calls.kind[0], model::ApiKind::kRuntime);
  EXPECT_EQ(t.api_calls.kind[1], model::ApiKind::kDriver);
  EXPECT_EQ(t.Str(t.api_calls.name[0]), "cudaLaunchKernel_v7000");
  // Only the used GPU is kept; its ordinal is cuDevice (1), not id (3).
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].device_id, 1);
  EXPECT_EQ(t.devices[0].sm_count, 108);
  EXPECT_EQ(t.devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(t.devices[0].pcie_bus_id, (0x82 << 8));
  EXPECT_EQ(t.info.format_version, "3.11.1");
  EXPECT_EQ(t.info.clock, "nsys_session");
  EXPECT_EQ(t.info.base_time_ns, 1700000000000000000);
  ASSERT_EQ(t.gpu_processes.size(), 1u);
  EXPECT_EQ(t.Str(t.gpu_processes.name[0]), "python");
  EXPECT_EQ(t.gpu_processes.first_seen_ns[0], 1000);
  EXPECT_EQ(t.gpu_processes.last_seen_ns[0], 3000);
}

TEST_F(NsysImporterTest, MemcpyKindsAreHardCodedWithoutEnumTables) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, contextId INT,
  streamId INT, correlationId INT, globalPid INT, bytes INT, copyKind INT, srcKind INT,
  dstKind INT, srcDeviceId INT, dstDeviceId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 20, 0, 1, 7, 1, 0, 4096, 1, 0, 2, NULL, NULL),
  (30, 40, 0, 1, 7, 2, 0, 8192, 2, 2, 1, NULL, NULL), (50, 60, 0, 1, 7, 3, 0, 1, 99, 9, 9, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT, contextId INT,
  streamId INT, correlationId INT, globalPid INT, value INT, bytes INT, memKind INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (70, 80, 0, 1, 7, 4, 0, 0, 64, 4);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("m.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(t.memcpys.size(), 3u);
  EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.src_kind[0], model::MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys.dst_kind[0], model::MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys.copy_kind[1], model::CopyKind::kDtoH);
  EXPECT_EQ(t.memcpys.dst_kind[1], model::MemoryKind::kPinned);
  EXPECT_EQ(t.memcpys.copy_kind[2], model::CopyKind::kUnknown);
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_memcpy_kind), 1u);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets.dst_kind[0], model::MemoryKind::kManaged);
  EXPECT_EQ(t.memsets.bytes[0], 64);
}

TEST_F(NsysImporterTest, NvtxDomainsMarksAndOpenRanges) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
INSERT INTO StringIds VALUES (5, 'step'), (6, 'NCCL');
CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, rangeId INT, category INT,
  color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES (100, 200, 59, NULL, NULL, NULL, NULL, 16777216 * 5 + 6, NULL, 5, 0),
  (300, 400, 60, NULL, NULL, NULL, 'ncclAllReduce', 16777216 * 5 + 6, NULL, NULL, 2),
  (500, NULL, 34, NULL, NULL, NULL, 'mark', 16777216 * 5 + 6, NULL, NULL, 0),
  (600, NULL, 59, NULL, NULL, NULL, 'open', 16777216 * 5 + 6, NULL, NULL, 0),
  (0, NULL, 75, NULL, NULL, NULL, NULL, 16777216 * 5 + 6, NULL, 6, 2);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("n.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.Str(t.ranges.name[0]), "step");
  EXPECT_EQ(t.ranges.kind[0], model::RangeKind::kNvtx);
  EXPECT_EQ(t.ranges.pid[0], 5);
  EXPECT_EQ(t.ranges.tid[0], 6);
  EXPECT_EQ(t.Str(t.ranges.domain[1]), "NCCL");
  ASSERT_EQ(t.markers.size(), 1u);
  EXPECT_EQ(t.Str(t.markers.name[0]), "mark");
  EXPECT_EQ(t.stats.Get(ImportStat::missing_dur), 1u);
}

TEST_F(NsysImporterTest, EmitNvtxRangesBecomeOpsWithShapes) {
  // torch.autograd.profiler.emit_nvtx(record_shapes=True) range texts.
  std::string sql = std::string(kBaseSchema) + R"SQL(
CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, rangeId INT, category INT,
  color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES
  (100, 900, 59, NULL, NULL, NULL, 'aten::mm, seq = 12, op_id = 4, sizes = [[64, 128], [128, 256]], input_op_ids = [(3, 0), (2, 0)]', 16777216 * 5 + 6, NULL, NULL, 0),
  (1000, 1100, 59, NULL, NULL, NULL, 'aten::relu, seq = 13, op_id = 5', 16777216 * 5 + 6, NULL, NULL, 0),
  (1200, 1300, 59, NULL, NULL, NULL, 'forward', 16777216 * 5 + 6, NULL, NULL, 0),
  (1400, 1500, 59, NULL, NULL, NULL, 'my::thing, not an op', 16777216 * 5 + 6, NULL, NULL, 0),
  (1600, 1700, 59, NULL, NULL, NULL, 'aten::add, sizes = [[2, 3], [], []]', 16777216 * 5 + 6, NULL, NULL, 0);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("e.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(t.ranges.size(), 5u);
  EXPECT_EQ(t.ranges.kind[0], model::RangeKind::kCpuOp);
  EXPECT_EQ(t.Str(t.ranges.name[0]), "aten::mm");
  EXPECT_EQ(t.Str(t.ranges.input_dims[0]), "[[64, 128], [128, 256]]");
  EXPECT_EQ(t.ranges.kind[1], model::RangeKind::kCpuOp);
  EXPECT_EQ(t.Str(t.ranges.name[1]), "aten::relu");
  EXPECT_EQ(t.ranges.input_dims[1], kEmptyString);
  EXPECT_EQ(t.ranges.kind[2], model::RangeKind::kNvtx);
  EXPECT_EQ(t.ranges.kind[3], model::RangeKind::kNvtx);
  EXPECT_EQ(t.Str(t.ranges.name[3]), "my::thing, not an op");
  EXPECT_EQ(t.Str(t.ranges.input_dims[4]), "[[2, 3], [], []]");
}

TEST_F(NsysImporterTest, GpuMetricsBecomeCounterSeriesAndWrappedValuesAreMissing) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INT, sourceId INT, typeName TEXT, metricId INT,
  metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (65536 + 3, 0, '', 0, 'SMs Active [Throughput %]'),
  (65536 + 3, 0, '', 1, 'GPC Clock Frequency'), (65536 + 3, 0, '', 2, 'DRAM Read Bandwidth'),
  (65536 + 3, 0, '', 3, 'DRAM Write Bandwidth'), (65536 + 3, 0, '', 4, 'Something New');
CREATE TABLE GPU_METRICS (timestamp INT, typeId INT, metricId INT, value INT);
INSERT INTO GPU_METRICS VALUES (0, 65539, 0, 50), (100, 65539, 0, 100), (200, 65539, 0, 0),
  (0, 65539, 1, 1500000000), (100, 65539, 1, -1964454041), (200, 65539, 1, 1400000000),
  (0, 65539, 2, 10), (100, 65539, 2, 20), (200, 65539, 2, 30),
  (0, 65539, 3, 5), (100, 65539, 3, 5), (200, 65539, 3, 5), (0, 65539, 4, 7);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("g.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  const model::CounterSeries* sm = nullptr;
  const model::CounterSeries* clk = nullptr;
  const model::CounterSeries* dram = nullptr;
  const model::CounterSeries* other = nullptr;
  for (const auto& s : t.counters) {
    if (s.kind == model::CounterKind::kSmActive) sm = &s;
    if (s.kind == model::CounterKind::kSmClockMhz) clk = &s;
    if (s.kind == model::CounterKind::kDramActive) dram = &s;
    if (t.Str(s.name) == "Something New") other = &s;
  }
  ASSERT_NE(sm, nullptr);
  ASSERT_NE(clk, nullptr);
  ASSERT_NE(dram, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(sm->device_id, 1);  // typeId & 0xFF = 3 = TARGET_INFO_GPU.id -> cuDevice 1
  EXPECT_EQ(sm->period_ns, 100);
  EXPECT_DOUBLE_EQ(sm->value[0], 0.5);
  EXPECT_EQ(t.Str(sm->source), kNsysMetricsSource);
  EXPECT_DOUBLE_EQ(clk->value[0], 1500.0);
  EXPECT_TRUE(std::isnan(clk->value[1]));
  EXPECT_EQ(t.stats.Get(ImportStat::negative_value), 1u);
  EXPECT_DOUBLE_EQ(dram->value[2], 0.35);
  EXPECT_EQ(other->kind, model::CounterKind::kOther);
  EXPECT_FALSE(IsValid(other->period_ns));
}

TEST_F(NsysImporterTest, InvalidUtf8IsRepairedAndCounted) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
INSERT INTO StringIds VALUES (1, CAST(X'6B65726E656CFF41' AS TEXT));
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, demangledName) VALUES (1, 2, 0, 1);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("u.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.Str(t.kernels.name[0]), "kernel\xEF\xBF\xBD" "A");
  EXPECT_EQ(t.stats.Get(ImportStat::invalid_utf8), 1u);
}

// Kernel and NVTX times past kMaxAbsTimeNs (2^62 ns) in a damaged export are
// dropped and counted, start or end; 2^62 itself is kept.
TEST_F(NsysImporterTest, TimesPastTwoToTheSixtyTwoNsAreDroppedAndCounted) {
  std::string sql = std::string(kBaseSchema) + R"SQL(
INSERT INTO StringIds VALUES (1, 'k');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, demangledName) VALUES
  (1, 2, 0, 1), (4611686018427387900, 4611686018427387904, 0, 1),
  (4611686018427387900, 4611686018427387905, 0, 1), (-4611686018427387905, 5, 0, 1);
CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, rangeId INT, category INT,
  color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES (100, 9000000000000000000, 59, NULL, NULL, NULL, 'r', 16777216 * 5 + 6, NULL, NULL, 0),
  (9000000000000000000, NULL, 34, NULL, NULL, NULL, 'mark', 16777216 * 5 + 6, NULL, NULL, 0);
)SQL";
  model::Trace t;
  {
    Status st = ReadNsysSqlite(Write("range.sqlite", sql), t);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.end_ns[1], int64_t{1} << 62);
  EXPECT_EQ(t.ranges.size(), 0u);
  EXPECT_EQ(t.markers.size(), 0u);
  EXPECT_EQ(t.stats.Get(ImportStat::time_out_of_range), 4u);
}

TEST_F(NsysImporterTest, ForeignSqliteIsOneClearError) {
  std::string path = Write("other.sqlite", "CREATE TABLE users (id INT, name TEXT);");
  Result<model::Trace> r = ImportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("not an Nsight Systems export"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  EXPECT_NE(r.status().message().find("users"), std::string::npos);
}

TEST_F(NsysImporterTest, CorruptSqliteIsOneClearError) {
  std::string good = Write("good.sqlite", std::string(kBaseSchema));
  // Keep the 100-byte header (so the file still sniffs as SQLite) and garble the rest.
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 200u);
  for (size_t i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131) & 0xFF);
  std::string bad = (dir_ / "corrupt.sqlite").string();
  {
    std::ofstream out(bad, std::ios::binary);
    out << bytes;
  }
  Result<model::Trace> r = ImportFile(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  // A truncated header is not SQLite at all.
  std::string tiny = (dir_ / "tiny.sqlite").string();
  {
    std::ofstream out(tiny, std::ios::binary);
    out << bytes.substr(0, 50);
  }
  model::Trace t;
  Status s = ReadNsysSqlite(tiny, t);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(tiny), std::string::npos);
}

TEST_F(NsysImporterTest, NsysReportGivesExportHint) {
  // Recognised by its header (nsys_report_importer.h), not by its name; this
  // holds where `nsys` is not on PATH (nsys_report_importer_test covers both).
  std::string rep = (dir_ / "x.nsys-rep").string();
  {
    std::ofstream out(rep, std::ios::binary);
    out << "NVIDIA Tegra Profiler Report 1.\n";
  }
  Result<model::Trace> r = ImportFile(rep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nsys export --type sqlite"), std::string::npos);
}

TEST_F(NsysImporterTest, TwoKernelReadersGiveTheSameTraceAsOne) {
  std::string path = Write("many.sqlite", std::string(kBaseSchema) + ManyKernels(5000));
  NsysReadOptions one;
  one.threads = 1;
  model::Trace t1;
  NsysScanStats s1;
  ASSERT_TRUE(ReadNsysSqlite(path, t1, &s1, one).ok());
  EXPECT_EQ(s1.kernel_readers, 1);
  // 5000 rows minus every 13th deleted; 1/97 have no start.
  EXPECT_EQ(s1.kernel_rows, 5000u - 5000u / 13);
  EXPECT_GT(t1.stats.Get(ImportStat::missing_ts), 0u);
  EXPECT_GT(t1.stats.Get(ImportStat::negative_dur), 0u);
  // Chunk sizes that do and do not divide the rowid span, down to 1 row.
  for (int64_t chunk : {1, 7, 64, 1000, 4999}) {
    NsysReadOptions two;
    two.threads = 2;
    two.chunk_rows = chunk;
    two.direct_reader = false;  // the sqlite3 readers; `one` used the page reader
    model::Trace t2;
    NsysScanStats s2;
    Status st = ReadNsysSqlite(path, t2, &s2, two);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(s2.kernel_readers, 2) << "chunk " << chunk;
    EXPECT_EQ(s2.kernel_rows, s1.kernel_rows) << "chunk " << chunk;
    ExpectSameKernels(t1, t2);
  }
  // One chunk spanning the table: one reader, whatever was asked.
  NsysReadOptions big;
  big.threads = 2;
  big.chunk_rows = 1 << 20;
  big.direct_reader = false;
  model::Trace t3;
  NsysScanStats s3;
  ASSERT_TRUE(ReadNsysSqlite(path, t3, &s3, big).ok());
  EXPECT_EQ(s3.kernel_readers, 1);
  ExpectSameKernels(t1, t3);
}

TEST_F(NsysImporterTest, ImageImportMatchesTheFileImport) {
  std::string path = Write("img.sqlite", std::string(kBaseSchema) + ManyKernels(300));
  model::Trace from_file;
  ASSERT_TRUE(ReadNsysSqlite(path, from_file).ok());
  model::Trace from_image;
  Status st = ReadNsysSqliteImage(Bytes(path), "memory:img", from_image);
  ASSERT_TRUE(st.ok()) << st.message();
  ExpectSameKernels(from_file, from_image);
  EXPECT_EQ(from_image.info.source_path, "memory:img");
  EXPECT_EQ(from_image.devices.size(), from_file.devices.size());
  // Not a database: one message naming the stand-in path.
  model::Trace bad;
  Status junk = ReadNsysSqliteImage("SQLite format 3\0 but nothing else", "memory:junk", bad);
  EXPECT_FALSE(junk.ok());
  EXPECT_NE(junk.message().find("memory:junk"), std::string::npos) << junk.message();
  model::Trace empty;
  EXPECT_FALSE(ReadNsysSqliteImage("", "memory:empty", empty).ok());
}

// A GENERIC_EVENTS value whose JSON type cannot be read (a fuzzer find, kept
// as a corpus seed) is a malformed event, never an exception out of the importer.
TEST_F(NsysImporterTest, DamagedGenericEventValueIsCountedNotThrown) {
  const std::string path =
      std::string(GPUWHY_SOURCE_DIR) + "/fuzz/nsys/corpus/regress_generic_events_value_type";
  const std::string bytes = Bytes(path);
  ASSERT_FALSE(bytes.empty());
  model::Trace t;
  Status st = Status::Ok();
  EXPECT_NO_THROW(st = ReadNsysSqliteImage(bytes, "memory:regress", t));
  if (!st.ok()) {
    EXPECT_NE(st.message().find("memory:regress"), std::string::npos) << st.message();
  }
}

// ExpectOneLineError: `st` failed with one line that names `path` and `want`.
void ExpectOneLineError(const Status& st, const std::string& path, const std::string& want) {
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(want), std::string::npos) << "want '" << want << "' in " << st.message();
  EXPECT_EQ(st.message().find('\n'), std::string::npos) << st.message();
}

TEST_F(NsysImporterTest, TruncatedExportIsOneClearErrorWithEitherReaderCount) {
  std::string good = Write("full.sqlite", std::string(kBaseSchema) + ManyKernels(20000));
  std::string bytes = Bytes(good);
  ASSERT_GT(bytes.size(), 100000u);
  // Cut at several points past the schema pages: the kernel B-tree loses pages.
  for (double frac : {0.3, 0.6, 0.95}) {
    size_t cut = static_cast<size_t>(static_cast<double>(bytes.size()) * frac);
    std::string path = WriteBytes("cut_" + std::to_string(cut) + ".sqlite", bytes.substr(0, cut));
    for (int threads : {1, 2}) {
      NsysReadOptions o;
      o.threads = threads;
      o.chunk_rows = 512;
      model::Trace t;
      ExpectOneLineError(ReadNsysSqlite(path, t, nullptr, o), path, "SQLite");
    }
    Result<model::Trace> r = ImportFile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  }
}

TEST_F(NsysImporterTest, CorruptKernelPagesAreOneClearErrorWithEitherReaderCount) {
  std::string good = Write("full.sqlite", std::string(kBaseSchema) + ManyKernels(20000));
  std::string bytes = Bytes(good);
  // Garble 3 pages (4 KiB each) in the middle of the file: kernel table leaves.
  size_t mid = (bytes.size() / 2) & ~size_t{4095};
  for (size_t i = mid; i < mid + 3 * 4096 && i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 167) & 0xFF);
  std::string path = WriteBytes("garbled.sqlite", bytes);
  for (int threads : {1, 2}) {
    NsysReadOptions o;
    o.threads = threads;
    o.chunk_rows = 512;
    model::Trace t;
    ExpectOneLineError(ReadNsysSqlite(path, t, nullptr, o), path, "corrupt SQLite database");
  }
}

TEST_F(NsysImporterTest, ExportMissingKeyTablesIsOneClearError) {
  // Has the metadata but lost StringIds (every name would be unresolvable).
  std::string no_strings = Write("no_strings.sqlite", R"SQL(
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, demangledName INT);
)SQL");
  model::Trace t;
  ExpectOneLineError(ReadNsysSqlite(no_strings, t), no_strings, "not an Nsight Systems export");
  // StringIds alone (no metadata, target or activity tables).
  std::string only_strings =
      Write("only_strings.sqlite", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);");
  model::Trace t2;
  ExpectOneLineError(ReadNsysSqlite(only_strings, t2), only_strings, "not an Nsight Systems export");
  // An empty database (valid header, no tables).
  sqlite3* db = nullptr;
  std::string empty_db = (dir_ / "empty_db.sqlite").string();
  ASSERT_EQ(sqlite3_open(empty_db.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 1;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  Result<model::Trace> r = ImportFile(empty_db);
  ASSERT_FALSE(r.ok());
  ExpectOneLineError(r.status(), empty_db, "tables found: none");
}

// Found by nsys_importer_fuzzer: SQLite's "malformed database schema" message
// quotes the schema SQL, newlines included; the Status must stay one line.
TEST_F(NsysImporterTest, MalformedSchemaMessageStaysOnOneLine) {
  std::string path = Write("schema.sqlite", std::string(kBaseSchema) +
                                                "CREATE TABLE NVTX_EVENTS (start INT,\n end INT);");
  std::string bytes = Bytes(path);
  // Break the stored CREATE statement after its newline (sqlite_master is on page 1).
  size_t at = bytes.find("CREATE TABLE NVTX_EVENTS (start INT,\n end");
  ASSERT_NE(at, std::string::npos);
  bytes[at + std::strlen("CREATE TABLE NVTX_EVENTS (start INT,\n ")] = '`';
  std::string bad = WriteBytes("bad_schema.sqlite", bytes);
  model::Trace t;
  ExpectOneLineError(ReadNsysSqlite(bad, t), bad, "malformed database schema");
  model::Trace t2;
  ExpectOneLineError(ReadNsysSqliteImage(bytes, "memory:bad", t2), "memory:bad", "malformed");
  EXPECT_EQ(OneLine("a\nb\tc"), "a b c");
  EXPECT_EQ(OneLine(std::string(300, 'x'), 10), std::string(10, 'x') + "...");
}

TEST_F(NsysImporterTest, QdrepGivesExportHint) {
  std::string rep = WriteBytes("old.qdrep", "NVIDIA Tegra Profiler Report 1.\n\x0b");
  Result<model::Trace> r = ImportFile(rep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  ExpectOneLineError(r.status(), rep, "nsys export --type sqlite");
}

// Every shared export reads identically with one reader and with two small-chunk readers.
TEST(NsysSharedExports, TwoReadersMatchOneOnEveryExport) {
  fs::path root = fs::path(GPUWHY_SOURCE_DIR) / ".." / "shared" / "traces" / "nsys";
  if (!fs::exists(root)) GTEST_SKIP() << "SKIPPED: " << root << " not found";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".sqlite") continue;
    std::string path = e.path().string();
    NsysReadOptions one, two;
    one.threads = 1;
    two.threads = 2;
    two.chunk_rows = 97;
    two.direct_reader = false;
    model::Trace t1, t2;
    Status s1 = ReadNsysSqlite(path, t1, nullptr, one);
    Status s2 = ReadNsysSqlite(path, t2, nullptr, two);
    ASSERT_EQ(s1.ok(), s2.ok()) << path;
    if (!s1.ok()) continue;
    SCOPED_TRACE(path);
    ExpectSameKernels(t1, t2);
    ++files;
  }
  std::printf("compared %d shared exports\n", files);
  EXPECT_GT(files, 0);
}

TEST(NsysSniff, OnlySqliteHeaders) {
  EXPECT_TRUE(LooksLikeSqlite(std::string_view("SQLite format 3\0rest", 20)));
  EXPECT_FALSE(LooksLikeSqlite("SQLite format 2"));
  EXPECT_FALSE(LooksLikeSqlite("{\"traceEvents\": []}"));
}

}  // namespace
}  // namespace gpuwhy::import
