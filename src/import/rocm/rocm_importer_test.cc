// Unit tests of the ROCm importers: rocprofv3 / rocprof v1 CSVs (fixtures
// written here, in the layouts of the releases) and rocpd / RPD / rocprof v1
// SQLite databases built here from their schemas.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "import/registry.h"
#include "import/rocm/rocm_common.h"
#include "import/rocm/rocm_sqlite_importer.h"
#include "import/rocm/rocprof_csv_importer.h"
#include "import/sqlite_kind.h"
#include "model/trace_compare.h"

namespace gpuwhy::import {
namespace {

using model::ImportStat;

model::Trace MustParseCsv(const std::string& text) {
  model::Trace t;
  Status s = ParseRocprofCsv(text, "test.csv", t);
  EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

TEST(RocmCommon, WorkgroupsRoundUp) {
  EXPECT_EQ(rocm::Workgroups(1024, 256), 4);
  EXPECT_EQ(rocm::Workgroups(1000, 256), 4);
  EXPECT_EQ(rocm::Workgroups(1, 1), 1);
  EXPECT_FALSE(IsValid(rocm::Workgroups(0, 256)));
  EXPECT_FALSE(IsValid(rocm::Workgroups(1024, kMissingI64)));
}

TEST(RocmCommon, ParsesNumbersAndAgents) {
  EXPECT_EQ(rocm::ParseI64("42"), 42);
  EXPECT_EQ(rocm::ParseI64("0x10"), 16);
  EXPECT_EQ(rocm::ParseI64("64.000000"), 64);
  EXPECT_FALSE(IsValid(rocm::ParseI64("64.5")));
  EXPECT_FALSE(IsValid(rocm::ParseI64("abc")));
  EXPECT_EQ(rocm::AgentNumber("Agent 2"), 2);
  EXPECT_EQ(rocm::AgentNumber("3"), 3);
  EXPECT_FALSE(IsValid(rocm::AgentNumber("Agent x")));
  EXPECT_EQ(rocm::CopyKindOfDirection("MEMORY_COPY_HOST_TO_DEVICE"), model::CopyKind::kHtoD);
  EXPECT_EQ(rocm::CopyKindOfDirection("CopyDeviceToHost"), model::CopyKind::kDtoH);
  EXPECT_EQ(rocm::StemOf("foo.kd"), "foo");
  EXPECT_EQ(rocm::StemOf("bar [clone .kd]"), "bar");
}

TEST(RocmCsv, QuotedCellsWithCommasAndNewlines) {
  rocm::RocmCsv csv("a,\"b,c\",\"d\"\"e\"\n\"x\ny\",2,3\r\nlast,1");
  std::vector<std::string> cells;
  int64_t line = 0;
  bool complete = false;
  ASSERT_TRUE(csv.Next(&cells, &line, &complete));
  EXPECT_EQ(cells, (std::vector<std::string>{"a", "b,c", "d\"e"}));
  ASSERT_TRUE(csv.Next(&cells, &line, &complete));
  EXPECT_EQ(line, 2);
  EXPECT_EQ(cells[0], "x\ny");
  EXPECT_TRUE(complete);
  ASSERT_TRUE(csv.Next(&cells, &line, &complete));
  EXPECT_EQ(line, 4);
  EXPECT_FALSE(complete);
  EXPECT_FALSE(csv.Next(&cells, &line, &complete));
}

// rocprofv3 >= 6.3 layout: "Agent N", Stream_Id, per-axis sizes, quoted.
const char kV3Kernels[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
    "\"KERNEL_DISPATCH\",\"Agent 4\",\"1\",\"0\",\"77\",\"1\",\"9\",\"add(float*, int) [clone "
    ".kd]\",\"5\",\"1000\",\"3000\",\"512\",\"0\",\"16\",\"0\",\"24\",\"256\",\"1\",\"1\",\"1000\","
    "\"4\",\"1\"\n"
    "\"KERNEL_DISPATCH\",\"Agent 4\",\"1\",\"0\",\"77\",\"2\",\"9\",\"k2\",\"6\",\"4000\",\"3900\","
    "\"0\",\"0\",\"8\",\"0\",\"24\",\"64\",\"1\",\"1\",\"64\",\"1\",\"1\"\n";

TEST(RocprofCsv, V3KernelTraceByHeaderName) {
  EXPECT_EQ(ClassifyRocprofCsv(kV3Kernels), RocprofCsvPart::kV3KernelTrace);
  model::Trace t = MustParseCsv(kV3Kernels);
  EXPECT_EQ(t.info.format, "rocprofv3-csv");
  EXPECT_EQ(t.info.format_version, "kernel_trace");
  ASSERT_EQ(t.kernels.size(), 2u);
  model::KernelRow k = t.kernels.Get(0);
  EXPECT_EQ(t.Str(k.name), "add(float*, int)");
  EXPECT_EQ(k.device_id, 4);
  EXPECT_EQ(k.stream_id, 0);
  EXPECT_EQ(k.correlation_id, 5);
  EXPECT_EQ(k.start_ns, 1000);
  EXPECT_EQ(k.end_ns, 3000);
  EXPECT_EQ(k.grid_x, 4);  // 1000 work-items in workgroups of 256
  EXPECT_EQ(k.grid_y, 4);
  EXPECT_EQ(k.block_x, 256);
  EXPECT_EQ(k.registers_per_thread, 16);
  EXPECT_EQ(k.shared_mem_bytes, 512);
  EXPECT_EQ(t.stats.Get(ImportStat::negative_dur), 1u);  // second row ends before it starts
  ASSERT_NE(t.FindDevice(4), nullptr);
  EXPECT_EQ(t.FindDevice(4)->vendor, model::Vendor::kAmd);
}

// The SDK docs' early layout: integer Agent_Id, no Stream_Id, columns in another order.
TEST(RocprofCsv, V3EarlyLayoutColumnsReorderedAndUnquoted) {
  const char text[] =
      "Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,"
      "End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,"
      "Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n"
      "KERNEL_DISPATCH,1,2,10,\"kern\",3,100,200,0,1024,128,1,1,256,1,1\n";
  model::Trace t = MustParseCsv(text);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.Get(0).device_id, 1);
  EXPECT_EQ(t.kernels.Get(0).stream_id, 2);  // queue when no Stream_Id
  EXPECT_EQ(t.kernels.Get(0).grid_x, 2);
  EXPECT_EQ(t.kernels.Get(0).shared_mem_bytes, 1024);
}

TEST(RocprofCsv, HipApiAndMarkers) {
  const char text[] =
      "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
      "\"Start_Timestamp\",\"End_Timestamp\"\n"
      "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",\"10\",\"11\",\"5\",\"900\",\"950\"\n"
      "\"MARKER_CORE_API\",\"step 1\",\"10\",\"11\",\"0\",\"800\",\"5000\"\n"
      "\"HSA_CORE_API\",\"hsa_signal_wait\",\"10\",\"11\",\"7\",\"960\",\"970\"\n";
  model::Trace t = MustParseCsv(text);
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.Str(t.api_calls.Get(0).name), "hipLaunchKernel");
  EXPECT_EQ(t.api_calls.Get(0).kind, model::ApiKind::kRuntime);
  EXPECT_EQ(t.api_calls.Get(0).correlation_id, 5);
  EXPECT_EQ(t.api_calls.Get(1).kind, model::ApiKind::kDriver);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.Str(t.ranges.Get(0).name), "step 1");
}

TEST(RocprofCsv, MemoryCopies) {
  const char text[] =
      "Kind,Direction,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,Start_Timestamp,"
      "End_Timestamp\n"
      "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,0,1,0,10,20\n"
      "MEMORY_COPY,MEMORY_COPY_DEVICE_TO_HOST,1,0,0,30,40\n"
      "MEMORY_COPY,SIDEWAYS,1,0,0,50,60\n";
  model::Trace t = MustParseCsv(text);
  ASSERT_EQ(t.memcpys.size(), 3u);
  EXPECT_EQ(t.memcpys.Get(0).copy_kind, model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.Get(0).device_id, 1);
  EXPECT_EQ(t.memcpys.Get(1).copy_kind, model::CopyKind::kDtoH);
  EXPECT_EQ(t.memcpys.Get(1).device_id, 1);
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_memcpy_kind), 1u);
}

TEST(RocprofCsv, AgentInfoGivesNamesAndCuCounts) {
  const char text[] =
      "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Wave_Front_Size\","
      "\"Max_Waves_Per_Cu\",\"Workgroup_Max_Size\",\"Lds_Size_In_Kb\",\"Name\",\"Product_Name\"\n"
      "\"0\",\"0\",\"CPU\",\"64\",\"0\",\"0\",\"0\",\"0\",\"AMD EPYC\",\"AMD EPYC\"\n"
      "\"2\",\"1\",\"GPU\",\"304\",\"64\",\"32\",\"1024\",\"64\",\"gfx942\",\"AMD Instinct "
      "MI300X\"\n";
  model::Trace t = MustParseCsv(text);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].device_id, 1);
  EXPECT_EQ(t.Str(t.devices[0].name), "AMD Instinct MI300X (gfx942)");
  EXPECT_EQ(t.devices[0].sm_count, 304);
  EXPECT_EQ(t.devices[0].warp_size, 64);
  EXPECT_EQ(t.devices[0].smem_per_block_bytes, 64 * 1024);
}

TEST(RocprofCsv, CounterCollectionLongForm) {
  const char text[] =
      "Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Name,"
      "Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,SGPR_Count,Counter_Name,"
      "Counter_Value,Start_Timestamp,End_Timestamp\n"
      "1,1,Agent 2,1,5,5,1024,k,256,0,0,8,16,SQ_WAVES,16.000000,100,200\n"
      "1,1,Agent 2,1,5,5,1024,k,256,0,0,8,16,GRBM_COUNT,99,100,200\n"
      "2,2,Agent 2,1,5,5,512,k,256,0,0,8,16,SQ_WAVES,8,300,400\n";
  model::Trace t = MustParseCsv(text);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.Get(0).grid_x, 4);
  ASSERT_EQ(t.counters.size(), 2u);
  for (const model::CounterSeries& s : t.counters) {
    if (t.Str(s.name) != "SQ_WAVES") continue;
    ASSERT_EQ(s.value.size(), 2u);
    EXPECT_EQ(s.value[0], 16.0);
    EXPECT_EQ(s.ts_ns[1], 400);
    EXPECT_EQ(s.device_id, 2);
  }
}

TEST(RocprofCsv, V1ResultsWorkItemsBecomeWorkgroups) {
  const char text[] =
      "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\","
      "\"wgr\",\"lds\",\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\",\"sig\",\"obj\","
      "\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n"
      "0,\"stencil(float*) [clone .kd]\",2,0,0,99,99,2097152,256,0,0,32,0,40,64,\"0x0\","
      "\"0x7f\",100,200,700,710,500\n";
  EXPECT_EQ(ClassifyRocprofCsv(text), RocprofCsvPart::kV1Results);
  model::Trace t = MustParseCsv(text);
  EXPECT_EQ(t.info.format, "rocprof-v1-csv");
  EXPECT_EQ(t.info.clock, "hsa_system");
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.Get(0).grid_x, 8192);
  EXPECT_EQ(t.kernels.Get(0).block_x, 256);
  EXPECT_EQ(t.kernels.Get(0).device_id, 2);
  EXPECT_EQ(t.kernels.Get(0).correlation_id, 0);
  EXPECT_EQ(t.Str(t.kernels.Get(0).name), "stencil(float*)");
}

TEST(RocprofCsv, StatsAreSummaryOnlyAndSaySo) {
  const char text[] =
      "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
      "\"vector_add(float*) [clone .kd]\",1,3430000,3430000,100.0\n";
  EXPECT_EQ(ClassifyRocprofCsv(text), RocprofCsvPart::kStats);
  model::Trace t;
  Status s = ParseRocprofCsv(text, "s.csv", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("summary"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("vector_add(float*)"), std::string::npos);
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(RocprofCsv, V1CountersWithoutTimestampsRefused) {
  const char text[] =
      "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,"
      "accum_vgpr,sgpr,wave_size,sig,obj,FETCH_SIZE,WRITE_SIZE\n"
      "0,k,2,0,0,1,1,64,64,0,0,8,0,16,64,0x0,0x1,1.0000000000,2.0000000000\n";
  EXPECT_EQ(ClassifyRocprofCsv(text), RocprofCsvPart::kV1Counters);
  model::Trace t;
  Status s = ParseRocprofCsv(text, "c.csv", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("FETCH_SIZE"), std::string::npos) << s.message();
}

TEST(RocprofCsv, HeaderOnlyHoldsNothing) {
  model::Trace t;
  Status s = ParseRocprofCsv(
      "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp\n",
      "h.csv", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no rows"), std::string::npos);
}

TEST(RocprofCsv, BadRowsCountedNotFatal) {
  std::string text = kV3Kernels;
  text += "\"KERNEL_DISPATCH\",\"short\"\n";
  text += "\"KERNEL_DISPATCH\",\"Agent 4\",\"1\",\"0\",\"77\",\"3\",\"9\",\"k3\",\"7\",\"abc\","
          "\"5000\",\"0\",\"0\",\"8\",\"0\",\"24\",\"64\",\"1\",\"1\",\"64\",\"1\",\"1\"\n";
  text += "\"KERNEL_DISPATCH\",\"Agent 4\",\"1\"";  // cut
  model::Trace t = MustParseCsv(text);
  EXPECT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.stats.Get(ImportStat::garbage_row), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::truncated_tail), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::non_numeric_value), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_ts), 1u);
}

TEST(RocprofCsv, NotRocprofIsNone) {
  EXPECT_EQ(ClassifyRocprofCsv("timestamp,gpu,util\n1,2,3\n"), RocprofCsvPart::kNone);
  EXPECT_EQ(ClassifyRocprofCsv("Kernel_Name,Start_Timestamp"), RocprofCsvPart::kNone);
}

// ---- SQLite readers: databases built here from each tool's schema ----------

// RocmTempDb: a database file made from `sql`, removed at scope end.
class RocmTempDb {
 public:
  explicit RocmTempDb(const std::string& sql) {
    path_ = (std::filesystem::temp_directory_path() /
             ("gpuwhy_rocm_" + std::to_string(::getpid()) + "_" + std::to_string(++n_) + ".db"))
                .string();
    std::remove(path_.c_str());
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }
  ~RocmTempDb() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int n_ = 0;
  std::string path_;
};

// rocprofiler-sdk rocpd_tables.sql, schema 3 as released (start/end in the
// event rows), the columns gpuwhy reads plus the required ones; uuid "_u1".
const char kRocpdDirectSchema[] = R"sql(
CREATE TABLE rocpd_metadata_u1 (id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rocpd_string_u1 (id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL UNIQUE);
CREATE TABLE rocpd_info_node_u1 (id INTEGER PRIMARY KEY, guid TEXT, hash BIGINT, machine_id TEXT,
  hostname TEXT);
CREATE TABLE rocpd_info_process_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER,
  pid INTEGER NOT NULL, command TEXT, environment JSONB, extdata JSONB);
CREATE TABLE rocpd_info_thread_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER,
  pid INTEGER, tid INTEGER NOT NULL, name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_agent_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER,
  name TEXT, generic_name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT,
  extdata JSONB);
CREATE TABLE rocpd_info_kernel_symbol_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
  pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT,
  group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER,
  arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB);
CREATE TABLE rocpd_info_pmc_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  agent_id INTEGER, name TEXT NOT NULL, symbol TEXT NOT NULL);
CREATE TABLE rocpd_event_u1 (id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER,
  stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB,
  line_info JSONB, extdata JSONB);
CREATE TABLE rocpd_pmc_event_u1 (id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER,
  pmc_id INTEGER NOT NULL, value REAL DEFAULT 0.0, extdata JSONB);
CREATE TABLE rocpd_region_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  tid INTEGER, start BIGINT NOT NULL, "end" BIGINT NOT NULL, name_id INTEGER NOT NULL,
  event_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_kernel_dispatch_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
  pid INTEGER, tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
  start BIGINT NOT NULL, "end" BIGINT NOT NULL, private_segment_size INTEGER,
  group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL,
  workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL,
  grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_memory_copy_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  tid INTEGER, start BIGINT NOT NULL, "end" BIGINT NOT NULL, name_id INTEGER NOT NULL,
  dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER,
  size INTEGER NOT NULL, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER,
  event_id INTEGER, extdata JSONB);
CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM rocpd_kernel_dispatch_u1;
INSERT INTO rocpd_metadata_u1 (tag, value) VALUES ('schema_version', '3');
)sql";

const char kRocpdDirectRows[] = R"sql(
INSERT INTO rocpd_string_u1 (id, string) VALUES (1, 'HIP_RUNTIME_API_EXT'),
  (2, 'hipLaunchKernel'), (3, 'MARKER_CORE_API'), (4, 'step 1'),
  (5, 'MEMORY_COPY_HOST_TO_DEVICE'), (6, 'hipMemcpyAsync');
INSERT INTO rocpd_info_process_u1 (id, nid, pid, command) VALUES (1, 1, 4242, 'train.py');
INSERT INTO rocpd_info_thread_u1 (id, nid, pid, tid) VALUES (1, 1, 1, 4243);
INSERT INTO rocpd_info_agent_u1 (id, nid, pid, type, absolute_index, logical_index, type_index,
  name, generic_name, product_name, extdata) VALUES
  (0, 1, 1, 'CPU', 0, 0, 0, 'AMD EPYC', 'AMD EPYC', 'AMD EPYC', '{}'),
  (1, 1, 1, 'GPU', 1, 1, 0, 'AMD Instinct MI300X', 'gfx942', 'AMD Instinct MI300X',
   '{"cu_count": 304, "wave_front_size": 64, "max_waves_per_cu": 32, "workgroup_max_size": 1024,
     "lds_size_in_kb": 64}');
INSERT INTO rocpd_info_kernel_symbol_u1 (id, nid, pid, code_object_id, kernel_name, display_name,
  arch_vgpr_count) VALUES (1, 1, 1, 1, '_Z3addPfi.kd', 'add(float*, int)', 24);
INSERT INTO rocpd_info_pmc_u1 (id, nid, pid, agent_id, name, symbol) VALUES
  (1, 1, 1, 1, 'SQ_WAVES', 'SQ_WAVES');
INSERT INTO rocpd_event_u1 (id, category_id, correlation_id) VALUES (1, 1, 7), (2, NULL, 7),
  (3, 3, 0), (4, 1, 8), (5, NULL, 8);
INSERT INTO rocpd_region_u1 (nid, pid, tid, start, "end", name_id, event_id) VALUES
  (1, 1, 1, 1000, 1500, 2, 1), (1, 1, 1, 900, 9000, 4, 3), (1, 1, 1, 5000, 5200, 6, 4);
INSERT INTO rocpd_kernel_dispatch_u1 (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,
  stream_id, start, "end", group_segment_size, workgroup_size_x, workgroup_size_y,
  workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES
  (1, 1, 1, 1, 1, 1, 3, 0, 2000, 4000, 512, 256, 1, 1, 1000, 2, 1, 2);
INSERT INTO rocpd_memory_copy_u1 (nid, pid, tid, start, "end", name_id, dst_agent_id,
  src_agent_id, size, queue_id, stream_id, event_id) VALUES
  (1, 1, 1, 5100, 6100, 5, 1, 0, 4096, NULL, 0, 5);
INSERT INTO rocpd_pmc_event_u1 (event_id, pmc_id, value) VALUES (2, 1, 48.0);
)sql";

TEST(RocpdSqlite, SchemaThreeDirectLayout) {
  RocmTempDb db(std::string(kRocpdDirectSchema) + kRocpdDirectRows);
  model::Trace t;
  RocmSqliteScan scan;
  Status s = ReadRocmSqlite(db.path(), t, &scan);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(t.info.format, "rocpd-sqlite");
  EXPECT_EQ(t.info.format_version, "schema 3");
  EXPECT_EQ(t.info.clock, "rocprofiler");
  ASSERT_EQ(t.kernels.size(), 1u);
  model::KernelRow k = t.kernels.Get(0);
  EXPECT_EQ(t.Str(k.name), "add(float*, int)");
  EXPECT_EQ(k.device_id, 1);
  EXPECT_EQ(k.start_ns, 2000);
  EXPECT_EQ(k.end_ns, 4000);
  EXPECT_EQ(k.grid_x, 4);  // 1000 work-items / 256
  EXPECT_EQ(k.grid_y, 2);
  EXPECT_EQ(k.block_x, 256);
  EXPECT_EQ(k.correlation_id, 7);
  EXPECT_EQ(k.registers_per_thread, 24);
  EXPECT_EQ(k.shared_mem_bytes, 512);
  EXPECT_EQ(t.kernels.pid[0], 4242);
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.Str(t.api_calls.Get(0).name), "hipLaunchKernel");
  EXPECT_EQ(t.api_calls.Get(0).correlation_id, 7);  // joins the kernel
  EXPECT_EQ(t.api_calls.Get(0).tid, 4243);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.Str(t.ranges.Get(0).name), "step 1");
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.Get(0).copy_kind, model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.Get(0).device_id, 1);
  EXPECT_EQ(t.memcpys.Get(0).bytes, 4096);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.Str(t.devices[0].name), "AMD Instinct MI300X (gfx942)");
  EXPECT_EQ(t.devices[0].sm_count, 304);
  EXPECT_EQ(t.devices[0].max_threads_per_sm, 32 * 64);
  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].value[0], 48.0);
  EXPECT_EQ(t.counters[0].ts_ns[0], 4000);
  EXPECT_EQ(scan.kernel_rows, 1u);
}

// The track / timestamp layout: event rows point at rocpd_track and
// rocpd_timestamp rows.
TEST(RocpdSqlite, TrackAndTimestampLayout) {
  const char sql[] = R"sql(
CREATE TABLE rocpd_string_u2 (id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rocpd_info_agent_u2 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, type TEXT,
  absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, name TEXT,
  product_name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_kernel_symbol_u2 (id INTEGER PRIMARY KEY, kernel_name TEXT,
  display_name TEXT, arch_vgpr_count INTEGER);
CREATE TABLE rocpd_track_u2 (id INTEGER PRIMARY KEY, nid INTEGER, ppid INTEGER, pid INTEGER,
  tid INTEGER, agent_id INTEGER, queue_id INTEGER, stream_id INTEGER, name_id INTEGER);
CREATE TABLE rocpd_timestamp_u2 (id INTEGER PRIMARY KEY, value BIGINT NOT NULL, phase INTEGER,
  track_id INTEGER);
CREATE TABLE rocpd_event_u2 (id INTEGER PRIMARY KEY, category_id INTEGER, correlation_id INTEGER);
CREATE TABLE rocpd_kernel_dispatch_u2 (id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL, start_id INTEGER NOT NULL,
  end_id INTEGER NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER,
  workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
  grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER,
  event_id INTEGER);
INSERT INTO rocpd_info_agent_u2 VALUES (5, 1, 1, 'GPU', 5, 2, 0, 'gfx90a', NULL, '{}');
INSERT INTO rocpd_info_kernel_symbol_u2 VALUES (1, 'k.kd', NULL, 8);
INSERT INTO rocpd_track_u2 VALUES (1, 1, NULL, 77, 78, 5, 4, NULL, NULL);
INSERT INTO rocpd_timestamp_u2 VALUES (1, 100, 1, 1), (2, 300, 2, 1), (3, 400, 1, 1),
  (4, 350, 2, 1);
INSERT INTO rocpd_event_u2 VALUES (1, NULL, 11), (2, NULL, 12);
INSERT INTO rocpd_kernel_dispatch_u2 VALUES (1, 1, 1, 1, 1, 2, 0, 0, 64, 1, 1, 128, 1, 1, NULL, 1),
  (2, 1, 1, 2, 3, 4, 0, 0, 64, 1, 1, 64, 1, 1, NULL, 2), (3, 1, 1, 3, 9, 2, 0, 0, 64, 1, 1, 64, 1,
  1, NULL, NULL);
)sql";
  RocmTempDb db(sql);
  model::Trace t;
  Status s = ReadRocmSqlite(db.path(), t);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.Get(0).device_id, 2);  // logical index, not the row id
  EXPECT_EQ(t.kernels.Get(0).stream_id, 4);  // the queue when no stream
  EXPECT_EQ(t.kernels.Get(0).grid_x, 2);
  EXPECT_EQ(t.kernels.Get(0).correlation_id, 11);
  EXPECT_EQ(t.Str(t.kernels.Get(0).name), "k");
  EXPECT_EQ(t.kernels.Get(1).end_ns, 400);  // ended before it started: clamped
  EXPECT_EQ(t.stats.Get(ImportStat::negative_dur), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_ts), 1u);  // timestamp row 9 is absent
  EXPECT_EQ(t.stats.Get(ImportStat::missing_correlation), 0u);
  EXPECT_EQ(t.Str(t.devices[0].name), "gfx90a");
}

TEST(RocpdSqlite, AgentsOnlyHoldsNothing) {
  RocmTempDb db(std::string(kRocpdDirectSchema) +
                "INSERT INTO rocpd_info_agent_u1 (id, type, logical_index, name) VALUES "
                "(1, 'GPU', 1, 'gfx942');");
  model::Trace t;
  Status s = ReadRocmSqlite(db.path(), t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rocpd database with 1 GPU agents"), std::string::npos)
      << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(RocpdSqlite, DispatchTableOfAnotherLayoutIsOneError) {
  RocmTempDb db(
      "CREATE TABLE rocpd_info_agent_x (id INTEGER PRIMARY KEY, type TEXT);"
      "CREATE TABLE rocpd_kernel_dispatch_x (id INTEGER PRIMARY KEY, kernel_id INTEGER);"
      "INSERT INTO rocpd_kernel_dispatch_x VALUES (1, 1);");
  model::Trace t;
  Status s = ReadRocmSqlite(db.path(), t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rocpd_kernel_dispatch_x has no column start"), std::string::npos)
      << s.message();
}

// rocmProfileData's RPD schema (rocpd_op / rocpd_api / rocpd_api_ops ...).
const char kRpdSchema[] = R"sql(
CREATE TABLE rocpd_string (id integer PRIMARY KEY, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_op (id integer PRIMARY KEY, gpuId integer, queueId integer,
  sequenceId integer, completionSignal varchar(18), start integer, "end" integer,
  description_id integer, opType_id integer);
CREATE TABLE rocpd_api (id integer PRIMARY KEY, pid integer, tid integer, start integer,
  "end" integer, apiName_id integer, args_id integer);
CREATE TABLE rocpd_api_ops (id integer PRIMARY KEY, api_id integer, op_id integer);
CREATE TABLE rocpd_kernelapi (api_ptr_id integer PRIMARY KEY, stream varchar(18), gridX integer,
  gridY integer, gridZ integer, workgroupX integer, workgroupY integer, workgroupZ integer,
  groupSegmentSize integer, privateSegmentSize integer, kernelArgAddress varchar(18),
  aquireFence varchar(8), releaseFence varchar(8), codeObject_id integer, kernelName_id integer);
CREATE TABLE rocpd_copyapi (api_ptr_id integer PRIMARY KEY, stream varchar(18), size integer,
  width integer, height integer, kind integer, dst varchar(18), src varchar(18),
  dstDevice integer, srcDevice integer, sync bool, pinned bool);
CREATE TABLE rocpd_monitor (id integer PRIMARY KEY, deviceType varchar(16), deviceId integer,
  monitorType varchar(16), start integer, "end" integer, value varchar(255));
CREATE TABLE rocpd_metadata (id integer PRIMARY KEY, tag varchar(4096), value varchar(4096));
)sql";

TEST(RpdSqlite, OpsJoinTheirApiCalls) {
  const char rows[] = R"sql(
INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'hipExtModuleLaunchKernel'),
  (4, 'KernelExecution'), (5, 'small_kernel'), (6, 'Cijk_gemm'), (7, 'CopyHostToDevice'),
  (8, 'hipMemcpyAsync'), (9, 'UserMarker'), (10, 'epoch 1');
INSERT INTO rocpd_api VALUES (1, 10, 11, 100, 150, 2, 1), (2, 10, 11, 200, 260, 3, 1),
  (3, 10, 11, 300, 320, 8, 1), (4, 10, 11, 50, 5000, 9, 10);
INSERT INTO rocpd_op VALUES (1, 2, 0, 1, '', 400, 900, 5, 4), (2, 2, 0, 2, '', 1000, 3000, 6, 4),
  (3, 2, 1, 3, '', 3100, 3600, 1, 7);
INSERT INTO rocpd_api_ops VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3);
INSERT INTO rocpd_kernelapi VALUES (1, '0x0', 8, 1, 1, 128, 1, 1, 0, 0, '', '', '', 1, 5),
  (2, '0x0', 1792, 1, 1, 256, 1, 1, 4096, 0, '', '', '', 1, 6);
INSERT INTO rocpd_copyapi VALUES (3, '0x0', 65536, 0, 0, 1, '', '', 2, -1, 0, 1);
INSERT INTO rocpd_monitor VALUES (1, 'gpu', 2, 'sclk', 100, 200, '1700'),
  (2, 'gpu', 2, 'sclk', 200, 300, '800');
)sql";
  RocmTempDb db(std::string(kRpdSchema) + rows);
  SourceInfo src;
  src.path = db.path();
  src.prefix = std::string("SQLite format 3\0", 16);
  EXPECT_EQ(SqliteKindOfSource(src), SqliteKind::kRpd);
  Result<model::Trace> r = ImportFile(db.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format, "rpd-sqlite");
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.Str(t.kernels.Get(0).name), "small_kernel");
  EXPECT_EQ(t.kernels.Get(0).grid_x, 8);  // hipLaunchKernel: blocks already
  EXPECT_EQ(t.kernels.Get(0).correlation_id, 1);
  EXPECT_EQ(t.kernels.Get(1).grid_x, 7);  // module launch: 1792 work-items / 256
  EXPECT_EQ(t.kernels.Get(1).shared_mem_bytes, 4096);
  EXPECT_EQ(t.kernels.Get(1).device_id, 2);
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.Get(0).copy_kind, model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.Get(0).bytes, 65536);
  EXPECT_EQ(t.api_calls.size(), 3u);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.Str(t.ranges.Get(0).name), "epoch 1");
  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].kind, model::CounterKind::kSmClockMhz);
  EXPECT_EQ(t.counters[0].value.size(), 2u);
}

TEST(RpdSqlite, ApiOnlyHoldsNothing) {
  RocmTempDb db(std::string(kRpdSchema) +
                "INSERT INTO rocpd_string VALUES (1, 'hipMalloc');"
                "INSERT INTO rocpd_api VALUES (1, 1, 1, 10, 20, 1, 1);");
  model::Trace t;
  Status s = ReadRocmSqlite(db.path(), t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("RPD with 1 API calls and no GPU op"), std::string::npos)
      << s.message();
}

// rocprof v1 results.db: one table per trace domain.
const char kV1Schema[] = R"sql(
CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT,
  "args" TEXT, "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER,
  "DurationNs" INTEGER);
CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER,
  "Name" TEXT, "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER,
  "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE COPY ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER,
  "Name" TEXT, "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER,
  "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT);
)sql";

TEST(RocprofV1Db, KernelsCopiesAndApiOnIndex) {
  const char rows[] = R"sql(
INSERT INTO HIP VALUES (100, 200, 9, 9, 'hipLaunchKernel', '', 1, '', 2, 9, 100),
  (300, 900, 9, 9, 'hipMemcpy', '', 2, '', 2, 9, 600);
INSERT INTO OPS VALUES (250, 290, 4, 0, 'vector_add(float*) [clone .kd]', 9, 9, '', 0, 1, '', 1,
  0, 40);
INSERT INTO COPY VALUES (310, 880, 4, 0, 'CopyDeviceToHost', 9, 9, '', 0, 2, '', 1, 0, 570);
)sql";
  RocmTempDb db(std::string(kV1Schema) + rows);
  Result<model::Trace> r = ImportFile(db.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format, "rocprof-v1-db");
  EXPECT_EQ(t.info.clock, "hsa_system");
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.Str(t.kernels.Get(0).name), "vector_add(float*)");
  EXPECT_EQ(t.kernels.Get(0).correlation_id, 1);
  EXPECT_EQ(t.kernels.Get(0).device_id, 4);
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.Get(0).copy_kind, model::CopyKind::kDtoH);
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.api_calls.Get(0).correlation_id, 1);
}

TEST(RocprofV1Db, ApiTablesReadOnASecondConnectionGiveTheOnePassModel) {
  // From a file the HIP/HSA tables are read meanwhile on their own
  // connection and appended; from an image (no path) in one pass. Names
  // shared between the tables, an HSA table and rows without times check the
  // string order and the counters.
  std::string sql = std::string(kV1Schema) +
                    R"sql(CREATE TABLE HSA ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER,
  "tid" INTEGER, "Name" TEXT, "args" TEXT, "Index" INTEGER);
BEGIN;
)sql";
  for (int i = 0; i < 500; ++i) {
    const std::string b = std::to_string(1000 + i * 100), e = std::to_string(1050 + i * 100);
    const std::string name = i % 3 == 0 ? "'shared_name'" : "'k" + std::to_string(i % 7) + "(int) [clone .kd]'";
    sql += "INSERT INTO OPS VALUES (" + b + ", " + e + ", 0, 0, " + name + ", 9, 9, '', 0, " +
           std::to_string(i) + ", '', 1, 0, 50);\n";
    sql += "INSERT INTO HIP VALUES (" + (i % 50 == 0 ? std::string("NULL") : b) + ", " + e + ", 9, 9, " +
           (i % 3 == 0 ? "'shared_name'" : "'hipLaunchKernel'") + ", '', " + std::to_string(i) +
           ", '', 2, 9, 50);\n";
    if (i % 10 == 0)
      sql += "INSERT INTO HSA VALUES (" + b + ", " + e + ", 9, 9, 'hsa_signal_wait', '', " +
             std::to_string(i) + ");\n";
  }
  RocmTempDb db(sql + "COMMIT;");
  model::Trace from_file, from_image;
  ASSERT_TRUE(ReadRocmSqlite(db.path(), from_file).ok());
  std::ifstream f(db.path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(ReadRocmSqliteImage(bytes, db.path(), from_image).ok());
  from_image.info.source_path = db.path();  // set by the file reader only
  EXPECT_EQ(model::DescribeDifference(from_image, from_file), "");
  EXPECT_EQ(from_file.api_calls.size(), 490u + 50u);
  EXPECT_EQ(from_file.stats.Get(model::ImportStat::missing_ts), 10u);
}

TEST(RocprofV1Db, EmptyTablesHoldNothing) {
  RocmTempDb db(kV1Schema);
  model::Trace t;
  Status s = ReadRocmSqlite(db.path(), t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rocprof v1 results.db"), std::string::npos) << s.message();
}

TEST(SqliteKind, ToldApartByTables) {
  RocmTempDb nsys(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);");
  RocmTempDb other("CREATE TABLE users (id INTEGER);");
  RocmTempDb rocpd(kRocpdDirectSchema);
  RocmTempDb rpd(kRpdSchema);
  RocmTempDb v1(kV1Schema);
  auto kind = [](const RocmTempDb& db) {
    SourceInfo src;
    src.path = db.path();
    src.prefix = std::string("SQLite format 3\0", 16);
    return SqliteKindOfSource(src);
  };
  EXPECT_EQ(kind(nsys), SqliteKind::kNsys);
  EXPECT_EQ(kind(other), SqliteKind::kOther);
  EXPECT_EQ(kind(rocpd), SqliteKind::kRocpd);
  EXPECT_EQ(kind(rpd), SqliteKind::kRpd);
  EXPECT_EQ(kind(v1), SqliteKind::kRocprofV1);
  // A foreign database still goes to the nsys importer's one-line refusal.
  Result<model::Trace> r = ImportFile(other.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not an Nsight Systems export"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy::import
