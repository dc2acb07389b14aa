// Unit tests of the ROCm importers: rocprofv3 / rocprof v1 CSVs (fixtures
// written here, in the layouts of the releases) and rocpd / RPD / rocprof v1
// SQLite databases built here from their schemas.
#include <gtest/gtest.h>

#include <string>

#include "import/rocm/rocm_common.h"
#include "import/rocm/rocprof_csv_importer.h"

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

}  // namespace
}  // namespace gpuwhy::import
