#include "import/kineto/kineto_importer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "base/sanitizer.h"
#include "model/trace_compare.h"

namespace gpuwhy::import {
namespace {

using model::ImportStat;

Result<model::Trace> Parse(const std::string& json, size_t chunk = size_t{1} << 20) {
  auto in = OpenMemoryStream(json, "test.json");
  model::Trace t;
  KinetoOptions o;
  o.chunk_bytes = chunk;
  Status st = ReadKinetoStream(*in, o, t);
  if (!st.ok()) return st;
  return t;
}

// A modern (2024+) trace: fractional µs relative to baseTimeNanoseconds, which
// comes AFTER traceEvents, as older Kineto writers ordered it.
const std::string kModern = R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85520809984,
     "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
     "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
     "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
     "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}],
  "cupti_version": 24, "cuda_runtime_version": 12060, "cuda_driver_version": 12040,
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 2},
  "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7,
   "ts": 1000.123, "dur": 5.5,
   "args": {"External id": 11, "queued": 0, "device": 0, "context": 1, "stream": 7,
     "correlation": 42, "registers per thread": 128, "shared memory": 16384,
     "blocks per SM": 1.5, "warps per SM": 12.0, "grid": [198, 2, 1], "block": [256, 1, 1],
     "est. achieved occupancy %": 25, "graph id": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234,
   "ts": 999.001, "dur": 3.000, "args": {"cbid": 211, "correlation": 42, "External id": 11}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1234, "tid": 1234,
   "ts": 998.5, "dur": 1, "args": {"cbid": 307, "correlation": 43}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
   "tid": 7, "ts": 1010, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 44,
   "bytes": 4096, "memory bandwidth (GB/s)": 2.048}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "pid": 0,
   "tid": 7, "ts": 1011, "dur": 2, "args": {"fromDevice": 0, "inDevice": 0, "toDevice": 1,
   "stream": 7, "correlation": 45, "bytes": 8}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
   "ts": 1012, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 46, "bytes": 64}},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 1013,
   "dur": 4, "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": 7,
   "wait_on_cuda_event_id": 8, "stream": -1, "correlation": 47, "device": 0}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1020,
   "dur": 1, "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 1234, "tid": 1234,
   "ts": 990, "dur": 40, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1234, "tid": 1234, "ts": 995,
   "dur": 10, "args": {"External id": 11, "Input Dims": [[2, 3], [3, 4]], "Call stack": "a\nb"}},
  {"ph": "X", "cat": "python_function", "name": "model.py(12): forward", "pid": 1234,
   "tid": 1234, "ts": 991, "dur": 30, "args": {"Python id": 3}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:all_reduce", "pid": 0, "tid": 7,
   "ts": 1030, "dur": 3, "args": {"device": 0, "stream": 9}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 9,
   "ts": 1030.5, "dur": 2, "args": {"device": 0, "stream": 9, "correlation": 50,
   "Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024,
   "Group size": 8, "dtype": "Float", "Process Group Name": "0",
   "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3]"}},
  {"ph": "f", "id": 42, "pid": 0, "tid": 7, "ts": 1000.123, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "s", "id": 42, "pid": 1234, "tid": 1234, "ts": 999.001, "cat": "ac2g", "name": "ac2g"},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 1234, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1234, "tid": 1234, "args": {"name": "thread 1234 (python3)"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "C", "name": "GPU 0 Utilization", "pid": 0, "ts": 1000, "args": {"GPU Utilization": 0.5}},
  {"ph": "C", "name": "GPU 0 Utilization", "pid": 0, "ts": 1001, "args": {"GPU Utilization": 1}},
  {"ph": "i", "s": "g", "name": "Iteration Start: PyTorch Profiler", "pid": "Traces", "tid": "x", "ts": 990},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "x", "ts": 990, "dur": 50},
  {"ph": "X", "cat": "overhead", "name": "Instrumentation", "pid": -1, "tid": 0, "ts": 990, "dur": 1},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1040}
  ],
  "traceName": "x.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1743521598000000000
})J";

constexpr int64_t kBase = 1743521598000000000;

TEST(MicrosTextToNs, ExactDecimalConversion) {
  int64_t ns = 0;
  ASSERT_TRUE(MicrosTextToNs("1713738903328187", &ns));
  EXPECT_EQ(ns, 1713738903328187000);  // 19 digits: a double would lose the last ones
  ASSERT_TRUE(MicrosTextToNs("12.345", &ns));
  EXPECT_EQ(ns, 12345);
  ASSERT_TRUE(MicrosTextToNs("12.3", &ns));
  EXPECT_EQ(ns, 12300);
  ASSERT_TRUE(MicrosTextToNs("1.2344", &ns));
  EXPECT_EQ(ns, 1234);
  ASSERT_TRUE(MicrosTextToNs("1.2345", &ns));
  EXPECT_EQ(ns, 1235);
  ASSERT_TRUE(MicrosTextToNs("0.0005", &ns));
  EXPECT_EQ(ns, 1);
  ASSERT_TRUE(MicrosTextToNs("-1.5", &ns));
  EXPECT_EQ(ns, -1500);
  ASSERT_TRUE(MicrosTextToNs("1.5e3", &ns));
  EXPECT_EQ(ns, 1500000);
  ASSERT_TRUE(MicrosTextToNs("3743411222894.405", &ns));
  EXPECT_EQ(ns, 3743411222894405);
  EXPECT_FALSE(MicrosTextToNs("", &ns));
  EXPECT_FALSE(MicrosTextToNs("abc", &ns));
  EXPECT_FALSE(MicrosTextToNs("1.2.3", &ns));
  EXPECT_FALSE(MicrosTextToNs("99999999999999999", &ns));  // overflows int64 ns
}

TEST(KinetoImporter, ModernTraceMapsEveryCategory) {
  Result<model::Trace> r = Parse(kModern);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format, "kineto-json");
  EXPECT_EQ(t.info.format_version, "1");
  EXPECT_EQ(t.info.base_time_ns, kBase);
  EXPECT_EQ(t.info.cupti_version, "24");
  EXPECT_EQ(t.info.cuda_runtime_version, "12060");
  EXPECT_EQ(t.rank.rank, 3);
  EXPECT_EQ(t.rank.world_size, 8);
  EXPECT_EQ(t.rank.pg_count, 2);
  EXPECT_EQ(t.Str(t.rank.backend), "nccl");

  // Device 0 from deviceProperties, device 1 only from the peer copy.
  const model::Device* d = t.FindDevice(0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(t.Str(d->name), "NVIDIA H100");
  EXPECT_EQ(d->vendor, model::Vendor::kNvidia);
  EXPECT_EQ(d->sm_count, 132);
  EXPECT_EQ(d->cc_major, 9);
  EXPECT_EQ(d->cc_minor, 0);
  EXPECT_EQ(d->total_memory_bytes, 85520809984);
  EXPECT_EQ(d->max_threads_per_sm, 2048);
  EXPECT_EQ(d->regs_per_sm, 65536);
  EXPECT_EQ(d->smem_per_sm_bytes, 233472);
  EXPECT_EQ(d->smem_per_block_optin_bytes, 232448);
  EXPECT_EQ(d->warp_size, 32);

  ASSERT_EQ(t.kernels.size(), 2u);
  model::KernelRow k = t.kernels.Get(0);
  EXPECT_EQ(t.Str(k.name), "gemm_kernel");
  EXPECT_EQ(k.start_ns, kBase + 1000123);  // base applied after the scan, exactly
  EXPECT_EQ(k.end_ns, kBase + 1005623);
  EXPECT_EQ(k.device_id, 0);
  EXPECT_EQ(k.stream_id, 7);
  EXPECT_EQ(k.correlation_id, 42);
  EXPECT_EQ(k.external_id, 11);
  EXPECT_EQ(k.grid_x, 198);
  EXPECT_EQ(k.grid_y, 2);
  EXPECT_EQ(k.block_x, 256);
  EXPECT_EQ(k.registers_per_thread, 128);
  EXPECT_EQ(k.shared_mem_bytes, 16384);
  EXPECT_FLOAT_EQ(k.blocks_per_sm, 1.5f);
  EXPECT_FLOAT_EQ(k.warps_per_sm, 12.0f);
  EXPECT_FLOAT_EQ(k.est_occupancy_pct, 25.0f);
  EXPECT_EQ(k.graph_id, 5);

  ASSERT_EQ(t.collectives.size(), 1u);
  model::CollectiveRow c = t.collectives.Get(0);
  EXPECT_EQ(t.Str(t.kernels.name[c.kernel_row]), "ncclKernel_AllReduce");
  EXPECT_EQ(t.Str(c.collective_name), "allreduce");
  EXPECT_EQ(c.in_msg_nelems, 1024);
  EXPECT_EQ(c.group_size, 8);
  EXPECT_EQ(t.Str(c.dtype), "Float");
  EXPECT_EQ(t.Str(c.process_group_desc), "default_pg");
  EXPECT_EQ(t.Str(c.process_group_ranks), "[0, 1, 2, 3]");

  ASSERT_EQ(t.api_calls.size(), 2u);
  // Sorted by start: the driver call (998.5) comes first.
  EXPECT_EQ(t.api_calls.kind[0], model::ApiKind::kDriver);
  EXPECT_EQ(t.api_calls.cbid[0], 307);
  EXPECT_EQ(t.api_calls.kind[1], model::ApiKind::kRuntime);
  EXPECT_EQ(t.Str(t.api_calls.name[1]), "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls.correlation_id[1], 42);
  EXPECT_EQ(t.api_calls.external_id[1], 11);
  EXPECT_EQ(t.api_calls.pid[1], 1234);
  EXPECT_EQ(t.api_calls.start_ns[1], kBase + 999001);

  ASSERT_EQ(t.memcpys.size(), 2u);
  EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.src_kind[0], model::MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys.dst_kind[0], model::MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys.bytes[0], 4096);
  EXPECT_EQ(t.memcpys.copy_kind[1], model::CopyKind::kPtoP);
  EXPECT_EQ(t.memcpys.src_device_id[1], 0);
  EXPECT_EQ(t.memcpys.dst_device_id[1], 1);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets.bytes[0], 64);
  EXPECT_EQ(t.memsets.dst_kind[0], model::MemoryKind::kDevice);

  ASSERT_EQ(t.syncs.size(), 2u);
  EXPECT_EQ(t.syncs.kind[0], model::SyncKind::kEventSynchronize);
  EXPECT_FALSE(IsValid(t.syncs.stream_id[0]));  // -1 means "not applicable"
  EXPECT_EQ(t.syncs.wait_on_stream_id[0], 7);
  EXPECT_EQ(t.syncs.event_id[0], 8);
  EXPECT_EQ(t.syncs.kind[1], model::SyncKind::kStreamSynchronize);
  EXPECT_EQ(t.syncs.stream_id[1], 7);

  // Ranges: step, cpu op, python function, GPU annotation.
  ASSERT_EQ(t.ranges.size(), 4u);
  int seen = 0;
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    model::RangeRow g = t.ranges.Get(i);
    if (g.kind == model::RangeKind::kUserAnnotation) {
      EXPECT_EQ(g.step, 12);
      ++seen;
    } else if (g.kind == model::RangeKind::kCpuOp) {
      EXPECT_EQ(t.Str(g.name), "aten::mm");
      EXPECT_EQ(g.external_id, 11);
      EXPECT_FALSE(IsValid(g.step));
      ++seen;
    } else if (g.kind == model::RangeKind::kPythonFunction) {
      ++seen;
    } else if (g.kind == model::RangeKind::kGpuUserAnnotation) {
      EXPECT_EQ(g.device_id, 0);
      EXPECT_EQ(g.stream_id, 9);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 4);

  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.Str(t.processes[0].name), "python3");
  ASSERT_EQ(t.threads.size(), 1u);
  EXPECT_EQ(t.threads[0].tid, 1234);
  ASSERT_EQ(t.streams.size(), 1u);
  EXPECT_EQ(t.streams[0].stream_id, 7);
  EXPECT_EQ(t.streams[0].device_id, 0);

  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].value.size(), 2u);
  EXPECT_DOUBLE_EQ(t.counters[0].value[1], 1.0);
  EXPECT_EQ(t.counters[0].device_id, 0);
  EXPECT_EQ(t.markers.size(), 2u);

  EXPECT_EQ(t.stats.Get(ImportStat::flow_event), 2u);
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_category), 1u);  // overhead; the Trace span is kept:
  EXPECT_TRUE(IsValid(t.info.capture_start_ns));               // the capture window
  EXPECT_EQ(t.info.capture_end_ns - t.info.capture_start_ns, 50 * kNsPerUs);  // dur 50 µs
  EXPECT_EQ(t.stats.Get(ImportStat::counter_event), 2u);
  EXPECT_EQ(t.stats.Get(ImportStat::metadata_event), 3u);
  EXPECT_EQ(t.stats.Get(ImportStat::bad_field_type), 0u);
}

TEST(KinetoImporter, EventSplitAcrossEveryChunkBoundary) {
  Result<model::Trace> whole = Parse(kModern);
  ASSERT_TRUE(whole.ok());
  for (size_t chunk = 1; chunk <= 97; chunk += (chunk < 24 ? 1 : 7)) {
    SCOPED_TRACE(chunk);
    Result<model::Trace> r = Parse(kModern, chunk);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->event_count(), whole->event_count());
    EXPECT_EQ(r->kernels.start_ns, whole->kernels.start_ns);
    EXPECT_EQ(r->kernels.grid_x, whole->kernels.grid_x);
    EXPECT_EQ(r->api_calls.end_ns, whole->api_calls.end_ns);
    EXPECT_EQ(r->ranges.name.size(), whole->ranges.name.size());
    for (size_t i = 0; i < r->ranges.size(); ++i)
      EXPECT_EQ(r->Str(r->ranges.name[i]), whole->Str(whole->ranges.name[i]));
    EXPECT_EQ(r->collectives.size(), 1u);
    EXPECT_EQ(r->info.base_time_ns, kBase);
  }
}

TEST(KinetoImporter, Legacy2021CategoriesAndAbsoluteMicros) {
  const std::string legacy = R"J({"schemaVersion": 1,
    "computeProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416,
      "major": 7, "minor": 0, "maxThreadsPerMultiProcessor": 2048,
      "multiProcessorCount": 80, "sharedMemPerMultiprocessor": 98304}],
    "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 24572, "tid": "24572",
     "ts": 1621401187223005, "dur": 1000},
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7",
     "ts": 1621401187225275, "dur": 3, "args": {"queued": 0, "device": 0, "context": 1,
     "stream": 7, "correlation": 333, "external id": 41, "registers per thread": 72,
     "shared memory": 13824, "blocks per SM": 0.025, "warps per SM": 0.1,
     "grid": [1, 2, 1], "block": [128, 1, 1], "theoretical occupancy %": 0}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 24572, "tid": "24572",
     "ts": 1621401187225200, "dur": 10, "args": {"correlation": 333, "external id": 41}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0,
     "tid": "stream 7", "ts": 1621401187225300, "dur": 2, "args": {"device": 0,
     "stream": 7, "correlation": 334, "bytes": 4}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7",
     "ts": 1621401187225400, "dur": 1, "args": {"correlation": 335}}
    ]})J";
  Result<model::Trace> r = Parse(legacy);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.start_ns[0], 1621401187225275000);
  EXPECT_EQ(t.kernels.external_id[0], 41);
  EXPECT_FALSE(IsValid(t.kernels.est_occupancy_pct[0]));  // "theoretical" is not "est. achieved"
  ASSERT_EQ(t.api_calls.size(), 1u);
  EXPECT_EQ(t.api_calls.kind[0], model::ApiKind::kRuntime);
  EXPECT_FALSE(IsValid(t.api_calls.tid[0]));  // a string tid is not a number
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kDtoH);
  EXPECT_EQ(t.memcpys.dst_kind[0], model::MemoryKind::kPinned);
  // The memset has no device/stream args: taken from pid / "stream N" tid.
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets.device_id[0], 0);
  EXPECT_EQ(t.memsets.stream_id[0], 7);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_device), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_stream), 1u);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.ranges.kind[0], model::RangeKind::kCpuOp);
  EXPECT_EQ(t.ranges.step[0], 3);
  const model::Device* d = t.FindDevice(0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->sm_count, 80);
  EXPECT_EQ(d->cc_major, 7);
  EXPECT_EQ(d->max_threads_per_sm, 2048);
  EXPECT_FALSE(IsValid(t.info.base_time_ns));
}

TEST(KinetoImporter, BaseTimeIsNotAddedToAbsoluteTimestamps) {
  const std::string doc = R"J({"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1700000000000001, "dur": 1}]})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ranges.start_ns[0], 1700000000000001000);
}

TEST(KinetoImporter, SixteenDigitAndHugeTimestamps) {
  const std::string doc = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 9223372036854774, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 9223372036854775.9, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 99999999999999999, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "d", "pid": 1, "tid": 1, "ts": 1669783687389324.5, "dur": 1}]})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // b and c overflow int64 ns; a fits int64 but lies past kMaxAbsTimeNs (2^62
  // ns, year 2116): all three dropped and counted.
  ASSERT_EQ(r->ranges.size(), 1u);
  EXPECT_EQ(r->ranges.start_ns[0], 1669783687389324500);
  EXPECT_EQ(r->stats.Get(ImportStat::bad_field_type), 2u);
  EXPECT_EQ(r->stats.Get(ImportStat::time_out_of_range), 1u);
}

// Times within ±2^62 ns are kept to the last µs; past it an event is dropped,
// whether its start or its end crosses, and an instant or counter too. A base
// time that moves relative times past it makes them missing, counted.
TEST(KinetoImporter, TimesPastTwoToTheSixtyTwoNsAreDroppedAndCounted) {
  const std::string doc = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "last", "pid": 1, "tid": 1, "ts": 4611686018427386, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "ends_past", "pid": 1, "tid": 1, "ts": 4611686018427387, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "first", "pid": 1, "tid": 1, "ts": -4611686018427387, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "before", "pid": 1, "tid": 1, "ts": -4611686018427388, "dur": 1},
    {"ph": "i", "cat": "cpu_instant_event", "name": "mark", "pid": 1, "tid": 1, "ts": 4611686018427388},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 4611686018427388, "args": {"v": 1}}]})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranges.size(), 2u);
  EXPECT_EQ(r->ranges.start_ns[0], -4611686018427387000);
  EXPECT_EQ(r->ranges.end_ns[1], 4611686018427387000);
  EXPECT_EQ(r->markers.size(), 0u);
  EXPECT_TRUE(r->counters.empty());
  EXPECT_EQ(r->stats.Get(ImportStat::time_out_of_range), 4u);

  const std::string shifted = R"J({"baseTimeNanoseconds": 4611686018427387000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 10, "dur": 1}]})J";
  r = Parse(shifted);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranges.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    if (r->Str(r->ranges.name[i]) == "a") {
      EXPECT_EQ(r->ranges.start_ns[i], 4611686018427387000);
      EXPECT_FALSE(IsValid(r->ranges.end_ns[i]));  // 1 µs past the bound
    } else {
      EXPECT_FALSE(IsValid(r->ranges.start_ns[i]));
      EXPECT_FALSE(IsValid(r->ranges.end_ns[i]));
    }
  }
  EXPECT_EQ(r->stats.Get(ImportStat::time_out_of_range), 3u);
}

TEST(KinetoImporter, TimestampsOfEveryLengthMatchTheExactConversion) {
  // The timestamp fast path reads 8 digits at a time; every length from 1 to
  // 17 digits, with fractions, with every digit value in every position
  // (a digit cycle shifted per length), and split across every chunk size up
  // to 19, must give what MicrosTextToNs gives.
  std::string doc = R"({"traceEvents": [)";
  std::vector<std::string> texts;
  for (int len = 1; len <= 17; ++len) {
    std::string digits;
    for (int i = 0; i < len; ++i) digits += static_cast<char>('0' + (i * 7 + len) % 10);
    if (digits[0] == '0') digits[0] = '9';
    for (const std::string& t : {digits, digits + ".5", digits + ".125", digits + ".1239", digits + "e0"})
      texts.push_back(t);
    // 16 digits from 4.7e15 are past 2^62 ns and dropped: epoch µs (1.7e15)
    // are 16 digits, so that length is also read with a leading 1.
    if (len == 16) {
      std::string low = digits;
      low[0] = '1';
      for (const std::string& t : {low, low + ".5", low + ".1239"}) texts.push_back(t);
    }
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    doc += (i ? "," : "");
    doc += R"({"ph": "i", "name": "m", "pid": 1, "tid": 1, "ts": )" + texts[i] + "}";
  }
  doc += "]}";
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{8}, size_t{9}, size_t{19}, size_t{1} << 20}) {
    SCOPED_TRACE(chunk);
    Result<model::Trace> r = Parse(doc, chunk);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::vector<int64_t> want;
    for (const std::string& t : texts) {
      int64_t ns = 0;
      if (MicrosTextToNs(t, &ns) && PlausibleTimeNs(ns)) want.push_back(ns);
    }
    std::vector<int64_t> got = r->markers.ts_ns;
    std::sort(want.begin(), want.end());
    // Markers are sorted by time; texts that overflow, or lie past 2^62 ns,
    // are dropped.
    EXPECT_EQ(got, want);
  }
}

TEST(KinetoImporter, IntegersOfEveryLengthParseExactly) {
  // Integers are read 8 bytes at a time: every length from 1 to 19 digits,
  // negative ones, and ones followed by every kind of delimiter, split across
  // every chunk size up to 19.
  std::vector<std::string> texts;
  for (int len = 1; len <= 18; ++len) {
    std::string digits;
    for (int i = 0; i < len; ++i) digits += static_cast<char>('0' + (i * 3 + len) % 10);
    if (len > 1 && digits[0] == '0') digits[0] = '7';
    texts.push_back(digits);
    texts.push_back("-" + digits);
  }
  texts.push_back("9223372036854775807");
  std::string doc = R"({"traceEvents": [)";
  for (size_t i = 0; i < texts.size(); ++i) {
    doc += (i ? "," : "");
    // The correlation is followed by '}', ',' or whitespace in turn.
    const char* after = i % 3 == 0 ? "}" : i % 3 == 1 ? ", \"x\": 1}" : "\n }";
    doc += R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
           std::to_string(i) + R"(, "dur": 1, "args": {"correlation": )" + texts[i] + after + "}";
  }
  doc += "]}";
  for (size_t chunk : {size_t{1}, size_t{5}, size_t{8}, size_t{9}, size_t{19}, size_t{1} << 20}) {
    SCOPED_TRACE(chunk);
    Result<model::Trace> r = Parse(doc, chunk);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->api_calls.size(), texts.size());
    for (size_t i = 0; i < texts.size(); ++i)
      EXPECT_EQ(r->api_calls.correlation_id[i], std::stoll(texts[i])) << texts[i];
  }
}

TEST(KinetoImporter, KeysThatDifferInOneByteAreNotTheKnownKeys) {
  // Each known key with one byte changed (first, middle, last), for keys of
  // 2-25 bytes: the word compares must look at every byte, so none of these
  // is read. The real keys in the last kernel are.
  const std::string look_alikes = R"J({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 2, "tS": 9, "duR": 9,
   "args": {"device": 0, "stream": 7, "correlatioN": 11, "Xorrelation": 12, "corrXlation": 13,
            "External iD": 14, "devicE": 3, "grId": [9, 9, 9], "blocK": [9, 9, 9],
            "registers per threaD": 99, "shared memorY": 99, "warps per SX": 9,
            "est. achieved occupancy X": 9, "est. achieved Xccupancy %": 9}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 8, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 21, "External id": 22, "grid": [2, 3, 4],
            "registers per thread": 32, "est. achieved occupancy %": 50}}
  ]})J";
  Result<model::Trace> r = Parse(look_alikes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::KernelTable& k = r->kernels;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k.start_ns[0], 5000);
  EXPECT_EQ(k.end_ns[0], 7000);
  EXPECT_FALSE(IsValid(k.correlation_id[0]));
  EXPECT_FALSE(IsValid(k.external_id[0]));
  EXPECT_EQ(k.device_id[0], 0);
  EXPECT_FALSE(IsValid(k.grid_x[0]));
  EXPECT_FALSE(IsValid(k.block_x[0]));
  EXPECT_FALSE(IsValid(k.registers_per_thread[0]));
  EXPECT_FALSE(IsValid(k.shared_mem_bytes[0]));
  EXPECT_FALSE(IsValid(k.warps_per_sm[0]));
  EXPECT_FALSE(IsValid(k.est_occupancy_pct[0]));
  EXPECT_EQ(k.correlation_id[1], 21);
  EXPECT_EQ(k.external_id[1], 22);
  EXPECT_EQ(k.grid_z[1], 4);
  EXPECT_EQ(k.registers_per_thread[1], 32);
  EXPECT_EQ(k.est_occupancy_pct[1], 50.0f);
}

TEST(KinetoImporter, InfOccupancyArgsAreMissingAndCounted) {
  const std::string doc = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 1, "blocks per SM": "inf",
              "warps per SM": "inf", "est. achieved occupancy %": 0}}]})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(IsValid(r->kernels.blocks_per_sm[0]));
  EXPECT_FALSE(IsValid(r->kernels.warps_per_sm[0]));
  EXPECT_EQ(r->stats.Get(ImportStat::inf_occupancy_arg), 1u);
}

TEST(KinetoImporter, EscapesAndUnicodeInNames) {
  const std::string doc = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "q\"b\\s\/\u00e9\ud83d\ude00\n\u4e2d", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "lone \udc00 surrogate", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "raw é UTF-8", "pid": 1, "tid": 1, "ts": 3, "dur": 1}]})J";
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{1} << 20}) {
    Result<model::Trace> r = Parse(doc, chunk);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->ranges.size(), 3u);
    EXPECT_EQ(r->Str(r->ranges.name[0]), "q\"b\\s/\xC3\xA9\xF0\x9F\x98\x80\n\xE4\xB8\xAD");
    EXPECT_EQ(r->Str(r->ranges.name[1]), "lone \xEF\xBF\xBD surrogate");
    EXPECT_EQ(r->Str(r->ranges.name[2]), "raw \xC3\xA9 UTF-8");
    EXPECT_EQ(r->stats.Get(ImportStat::invalid_utf8), 1u);
  }
}

TEST(KinetoImporter, BadEventsAreCountedAndSkipped) {
  const std::string doc = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ok", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "string ts", "pid": 1, "tid": 1, "ts": "1", "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "no ts", "pid": 1, "tid": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "no dur", "pid": 1, "tid": 1, "ts": 1},
    {"ph": "X", "cat": "cpu_op", "name": "neg dur", "pid": 1, "tid": 1, "ts": 5, "dur": -3},
    {"ph": "X", "cat": "kernel", "name": "bad arg", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": "zero", "stream": 7, "correlation": 9}},
    42, "text", [1, 2], null,
    {"ph": "Q", "name": "odd phase", "ts": 1},
    {"ph": "X", "cat": "brand_new_cat", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {}
    ], "someNewKey": {"nested": [1, 2, {"a": "b"}]}})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.ranges.size(), 2u);  // "ok" and "neg dur" (clamped)
  EXPECT_EQ(t.stats.Get(ImportStat::bad_field_type), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_ts), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::missing_dur), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::negative_dur), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::malformed_event), 4u);
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_phase), 2u);  // "Q" and the event without ph
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_category), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::unknown_field), 1u);
  EXPECT_EQ(t.stats.Get(ImportStat::bad_arg_type), 1u);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.device_id[0], 0);  // bad device arg: taken from pid
  for (size_t i = 0; i < t.ranges.size(); ++i)
    if (t.Str(t.ranges.name[i]) == "neg dur") {
      EXPECT_EQ(t.ranges.end_ns[i], t.ranges.start_ns[i]);
    }
}

TEST(KinetoImporter, AmdDevicesAndHipRuntime) {
  const std::string doc = R"J({"deviceProperties": [{"id": 2, "name": "AMD Instinct MI300X"}],
    "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 2, "tid": 0, "ts": 1.5, "dur": 0.639,
     "args": {"device": 2, "stream": 0, "correlation": 4066, "kind": "Dispatch Kernel"}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 2, "tid": 0,
     "ts": 3, "dur": 1, "args": {"device": 2, "stream": 0, "correlation": 4068, "bytes": "1024"}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 0, "ts": 2, "dur": 1,
     "args": {"device": 3, "stream": 0, "correlation": 4067}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 9, "tid": 9, "ts": 1,
     "dur": 0.25, "args": {"correlation": 4066}}]})J";
  Result<model::Trace> r = Parse(doc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_NE(r->FindDevice(2), nullptr);
  EXPECT_EQ(r->FindDevice(2)->vendor, model::Vendor::kAmd);
  ASSERT_NE(r->FindDevice(3), nullptr);  // known only from events; HIP calls say AMD
  EXPECT_EQ(r->FindDevice(3)->vendor, model::Vendor::kAmd);
  EXPECT_EQ(r->kernels.end_ns[0] - r->kernels.start_ns[0], 639);
  ASSERT_EQ(r->memcpys.size(), 1u);
  EXPECT_EQ(r->memcpys.bytes[0], 1024);  // ROCm's string-typed number
  EXPECT_EQ(r->stats.Get(ImportStat::bad_arg_type), 0u);
}

TEST(KinetoImporter, ContainerErrorsNameTheOffset) {
  struct Case {
    std::string doc, want;
  };
  const Case cases[] = {
      {"[1, 2]", "array"},
      {"hello", "not a JSON object"},
      {"", "empty"},
      {"{\"traceEvents\": {}}", "traceEvents is not an array (at byte 16)"},
      {"{\"deviceProperties\": 3, \"traceEvents\": []}", "deviceProperties is not an array"},
      {"{\"traceEvents\": [{\"ph\": \"X\"", "truncated JSON at byte 27"},
      {"{\"traceEvents\": [{\"ph\" \"X\"}]}", "invalid JSON at byte 23"},
      {"{\"traceEvents\": []} trailing", "unexpected data after the top-level JSON object"},
      {"{\"schemaVersion\": 1}", "no traceEvents"},
  };
  for (const Case& c : cases) {
    for (size_t chunk : {size_t{1}, size_t{1} << 20}) {
      Result<model::Trace> r = Parse(c.doc, chunk);
      ASSERT_FALSE(r.ok()) << c.doc;
      EXPECT_NE(r.status().message().find(c.want), std::string::npos)
          << c.doc << " -> " << r.status().message();
      EXPECT_NE(r.status().message().find("test.json"), std::string::npos);
    }
  }
}

// Unsupported is not empty: layouts that hold GPU work gpuwhy does not map
// yet are named in one line, never read as a trace without GPU activity.
TEST(KinetoImporter, UnmappedLayoutsAreNamed) {
  Result<model::Trace> legacy = Parse(
      R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "CPU functions"}])");
  ASSERT_FALSE(legacy.ok());
  EXPECT_NE(legacy.status().message().find("PyTorch legacy autograd-profiler trace"),
            std::string::npos)
      << legacy.status().message();
  Result<model::Trace> jax = Parse(R"({"displayTimeUnit": "ns", "traceEvents": [
    {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "/device:GPU:0"}},
    {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "/host:CPU"}},
    {"name": "fusion.3", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 7}]})");
  ASSERT_FALSE(jax.ok());
  EXPECT_NE(jax.status().message().find("a JAX/XLA profile (1 device process: /device:GPU:0)"),
            std::string::npos)
      << jax.status().message();
  // A host-only Kineto trace (no device processes) is still a trace.
  EXPECT_TRUE(Parse(R"({"traceEvents": [
    {"name": "aten::mm", "ph": "X", "cat": "cpu_op", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})")
                  .ok());
}

TEST(KinetoImporter, SniffByContent) {
  EXPECT_TRUE(LooksLikeKineto("  {\n \"schemaVersion\": 1, \"deviceProperties\": []"));
  EXPECT_TRUE(LooksLikeKineto("{\"traceEvents\": ["));
  EXPECT_FALSE(LooksLikeKineto("[1, 2]"));
  EXPECT_TRUE(LooksLikeKineto("[{\"ph\": \"X\"}]"));  // claimed, then refused clearly
  EXPECT_FALSE(LooksLikeKineto("{\"other\": 1}"));
  EXPECT_FALSE(LooksLikeKineto("timestamp, name, utilization.gpu [%]\n"));
}

// ManyEvents: a trace of `steps` steps, each with CPU ops, runtime calls and
// their kernels and copies, in the order Kineto writes them.
std::string ManyEvents(int steps) {
  std::string s = R"({"schemaVersion": 1, "traceEvents": [)";
  int64_t t = 1700000000000000;
  int corr = 1;
  for (int step = 0; step < steps; ++step) {
    s += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(step) +
         R"(", "pid": 7, "tid": 7, "ts": )" + std::to_string(t) + R"(, "dur": 900},)";
    for (int op = 0; op < 6; ++op, ++corr) {
      const int64_t o = t + 10 + op * 140;
      s += R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": )" +
           std::to_string(o) + R"(, "dur": 120, "args": {"External id": )" + std::to_string(corr) +
           R"(, "Input Dims": [[64, 64], [64, 64]]}},)";
      s += R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": )" +
           std::to_string(o + 5) + R"(, "dur": 8, "args": {"correlation": )" + std::to_string(corr) +
           R"(, "cbid": 211}},)";
      s += R"({"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": )" +
           std::to_string(o + 20) + R"(, "dur": 90, "args": {"device": 0, "stream": 7, "correlation": )" +
           std::to_string(corr) + R"(, "grid": [132, 1, 1], "block": [256, 1, 1]}},)";
    }
    s += R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": )J" +
         std::to_string(t + 880) + R"(, "dur": 15, "args": {"device": 0, "stream": 7, "bytes": 4096}},)";
    t += 1000;
  }
  s.pop_back();
  s += "]}";
  return s;
}

TEST(KinetoImporter, TablesSizedForTheWholeInputGiveTheSameModel) {
  const std::string json = ManyEvents(300);
  // One thread sizes after a refill; segments after a merge.
  for (int threads : {1, 2}) {
    for (size_t chunk : {size_t{977}, size_t{1} << 20}) {
      SCOPED_TRACE(testing::Message() << "chunk " << chunk << " threads " << threads);
      auto read = [&](uint64_t reserve_after, KinetoScanStats* scan) {
        auto in = OpenMemoryStream(json, "test.json");
        model::Trace t;
        KinetoOptions o;
        o.chunk_bytes = chunk;
        o.threads = threads;
        o.segment_bytes = 4096;
        o.reserve_after_bytes = reserve_after;
        EXPECT_TRUE(ReadKinetoStream(*in, o, t, scan).ok());
        return t;
      };
      KinetoScanStats off, on;
      model::Trace plain = read(0, &off);
      model::Trace sized = read(json.size() / 8, &on);
      EXPECT_EQ(off.reserve_factor, 0.0);
      // Sized after an eighth (or, with one big chunk, at the end: not at all).
      if (chunk < json.size() / 8) {
        EXPECT_GT(on.reserve_factor, 5.0);
        EXPECT_LT(on.reserve_factor, 12.0);
      }
      EXPECT_EQ(model::DescribeDifference(plain, sized), "");
      EXPECT_EQ(plain.kernels.size(), 1800u);
    }
  }
}

// ---- Segmented (multi-thread) parse: identical to the one-thread parse ----

struct ReadOut {
  std::string error;  // "" when the import succeeded
  model::Trace trace;
  KinetoScanStats scan;
};

// ReadWith: the import with `threads` parsers; `ahead` > 0 reads through a
// read-ahead stream of `ahead`-byte blocks (which the parser takes over whole,
// with the previous segment's tail put in front).
ReadOut ReadWith(const std::string& json, int threads, size_t segment, size_t chunk,
                 size_t ahead = 0, bool learn = true) {
  InputStreamOptions so;
  so.read_ahead = ahead > 0;
  if (ahead > 0) so.read_ahead_chunk_bytes = ahead;
  auto in = OpenMemoryStream(json, "test.json", so);
  ReadOut r;
  KinetoOptions o;
  o.threads = threads;
  o.segment_bytes = segment;
  o.chunk_bytes = chunk;
  o.learn_repeats = learn;
  Status st = ReadKinetoStream(*in, o, r.trace, &r.scan);
  if (!st.ok()) r.error = st.message();
  return r;
}

// ExpectSameAsOneThread: every segmented setting, and one thread with
// learned separators, gives the result of one thread that lexes every
// separator (KinetoOptions::learn_repeats off): the same error line, or a
// bit-identical model and scan counts. Returns the most segments any setting
// merged.
uint64_t ExpectSameAsOneThread(const std::string& json) {
  ReadOut base = ReadWith(json, 1, size_t{1} << 20, size_t{1} << 20, 0, false);
  EXPECT_EQ(base.scan.segments, 0u);
  uint64_t most = 0;
  struct Setting {
    int threads;
    size_t segment, chunk, ahead = 0;
  };
  for (Setting set : {Setting{1, 1 << 20, 1 << 20}, Setting{1, 1 << 20, 61},
                      Setting{2, 1, 1}, Setting{2, 1, 97}, Setting{3, 64, 31},
                      Setting{2, 700, 1000}, Setting{2, 1 << 20, 4096}, Setting{2, 1, 1, 1},
                      Setting{2, 1, 64, 37}, Setting{3, 200, 64, 300}, Setting{2, 4096, 1, 4096}}) {
    SCOPED_TRACE(testing::Message() << "threads " << set.threads << " segment " << set.segment
                                    << " chunk " << set.chunk << " ahead " << set.ahead);
    ReadOut r = ReadWith(json, set.threads, set.segment, set.chunk, set.ahead);
    EXPECT_EQ(r.error, base.error);
    if (!base.error.empty() || !r.error.empty()) continue;
    EXPECT_EQ(model::DescribeDifference(base.trace, r.trace), "");
    EXPECT_EQ(r.scan.trace_events, base.scan.trace_events);
    EXPECT_EQ(r.scan.json_bytes, base.scan.json_bytes);
    most = std::max(most, r.scan.segments);
  }
  return most;
}

TEST(KinetoSegments, EveryKindOfEventMergesToTheOneThreadModel) {
  // kModern has metadata, counters, flows, markers, collectives, the capture
  // span and a stream named "stream 7 "; cut before every event, each of
  // those lands in its own segment.
  EXPECT_GT(ExpectSameAsOneThread(kModern), 20u);
  EXPECT_GT(ExpectSameAsOneThread(ManyEvents(40)), 100u);
}

TEST(KinetoSegments, SideTablesMergeByTheirOwnRules) {
  // A process renamed later (the last name wins), a stream named twice with
  // different text (the first wins; both strings are interned), one counter
  // series spread over segments and a second one from another pid.
  const std::string json = R"J({"traceEvents": [
  {"name": "process_name", "ph": "M", "pid": 5, "tid": 0, "args": {"name": "first"}},
  {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
  {"ph": "C", "name": "mem", "pid": 0, "ts": 1, "args": {"used": 1, "free": 9}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7  "}},
  {"name": "process_name", "ph": "M", "pid": 5, "tid": 0, "args": {"name": "second"}},
  {"ph": "C", "name": "mem", "pid": 1, "ts": 3, "args": {"used": 2}},
  {"ph": "C", "name": "mem", "pid": 0, "ts": 4, "args": {"used": 3, "free": 7}},
  {"name": "thread_name", "ph": "M", "pid": 5, "tid": 6, "args": {"name": "worker"}},
  {"name": "thread_name", "ph": "M", "pid": 5, "tid": 6, "args": {"name": "worker 2"}}
  ]})J";
  EXPECT_GT(ExpectSameAsOneThread(json), 5u);
  ReadOut r = ReadWith(json, 2, 1, 1);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.trace.processes.size(), 1u);
  EXPECT_EQ(r.trace.Str(r.trace.processes[0].name), "second");
  ASSERT_EQ(r.trace.streams.size(), 1u);
  EXPECT_EQ(r.trace.Str(r.trace.streams[0].name), "stream 7");
  ASSERT_EQ(r.trace.threads.size(), 1u);
  EXPECT_EQ(r.trace.Str(r.trace.threads[0].name), "worker 2");
  ASSERT_EQ(r.trace.counters.size(), 3u);  // mem/used pid 0, mem/free pid 0, mem/used pid 1
  EXPECT_EQ(r.trace.counters[0].ts_ns.size(), 2u);
}

TEST(KinetoSegments, ACutInsideAStringFallsBackToOneThread) {
  // A name ending in "}, {" looks exactly like a boundary between events
  // ('}' ',' '{' then '"'); the segment before it cannot end there, so the
  // rest is parsed on one thread and the model is still the same.
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < 30; ++i) {
    json += R"({"ph": "X", "cat": "cpu_op", "name": "op}, {", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(10 * i) + R"(, "dur": 5, "args": {"note": "x},{"}},)";
    json += "\n";
  }
  json.pop_back();
  json.pop_back();
  json += "]}";
  ExpectSameAsOneThread(json);
  ReadOut r = ReadWith(json, 2, 1, 1);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.scan.serial_fallback);
  EXPECT_EQ(r.trace.ranges.size(), 30u);
}

TEST(KinetoSegments, KeysAfterTheArrayAreParsedOnce) {
  // deviceProperties after traceEvents holds "}, {" between devices: cuts
  // there are dropped once the segment holding ']' is merged.
  const std::string json = R"J({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 1, "tid": 7, "ts": 3, "dur": 1,
   "args": {"device": 1, "stream": 7, "correlation": 2}},
  ],
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132},
    {"id": 1, "name": "NVIDIA H100", "numSms": 132}, {"id": 2, "name": "x"}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "baseTimeNanoseconds": 1000})J";
  ExpectSameAsOneThread(json);
  ExpectSameAsOneThread(R"({"traceEvents": []})");
  ExpectSameAsOneThread(R"({"traceEvents": [1, {"ph": "X"}, "x", {}, []], "schemaVersion": 1})");
}

// LayoutVariants: events written in runs of one layout, then changed the
// way real writers and hand edits change them, so that learned separators
// are replayed, then meet bytes that differ from them in every way that
// matters: other whitespace (none, tabs, CRLF, a run longer than a separator
// the memo keeps), extra whitespace before a value (the separator matches
// and the byte after it does not), keys in another order, keys escaped
// ("n\u0061me") or one byte off ("nam3", "Ph"), args the importer does not
// read, a value of another type, and an object's end in other places.
std::string LayoutVariants(int events) {
  uint32_t seed = 2026;
  auto pick = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  const std::vector<std::string> kWs = {"", " ", "\n    ", "\t", "\r\n  ", "\n      ",
                                        std::string(60, ' ')};
  std::string s = "{\"traceEvents\": [";
  int64_t t = 1700000000000000;
  size_t layout = 0;
  for (int i = 0; i < events; ++i) {
    if (i % 9 == 0) layout = pick(static_cast<uint32_t>(kWs.size()));
    auto ws = [&]() { return pick(12) == 0 ? kWs[pick(static_cast<uint32_t>(kWs.size()))] : kWs[layout]; };
    auto key = [&](std::string k) {
      switch (pick(40)) {
        case 0: return "\"" + k.substr(0, 1) + "\\u00" + fmt::format("{:02x}", k[1]) + k.substr(2) + "\"";
        case 1: return "\"" + k.substr(0, k.size() - 1) + "3\"";
        case 2: return "\"" + std::string(1, static_cast<char>(std::toupper(k[0]))) + k.substr(1) + "\"";
        default: return "\"" + k + "\"";
      }
    };
    auto value = [&](std::string v) { return (pick(25) == 0 ? std::string("  ") : std::string()) + v; };
    // A repeated small integer, sometimes with text that starts like it.
    const std::vector<std::string> kNear = {"77", "7.5", "7e1", "-7", "\"7\"", "07", "70000000", "8"};
    auto repeat = [&](std::string v) {
      return pick(8) == 0 ? kNear[pick(static_cast<uint32_t>(kNear.size()))] : v;
    };
    // A repeated grid or block, sometimes with text that starts like it.
    const std::vector<std::string> kNearArray = {"[8, 1, 10]", "[8, 1, 1, 4]", "[-8, 1, 1]",
                                                 "[8, \"1\", 1]", "[8,1,1]", "[8, 1, 1 ]", "[128,1,2]"};
    auto array = [&](std::string v) {
      return pick(6) == 0 ? kNearArray[pick(static_cast<uint32_t>(kNearArray.size()))] : v;
    };
    const int kind = static_cast<int>(pick(4));
    std::vector<std::pair<std::string, std::string>> fields;
    const std::string corr = std::to_string(100 + i);
    std::string args;
    if (kind == 0) {
      fields = {{"ph", "\"X\""}, {"cat", "\"kernel\""}, {"name", "\"gemm\""}, {"pid", repeat("0")},
                {"tid", repeat("7")}, {"ts", std::to_string(t + i * 10)}, {"dur", "5"}};
      args = "{" + ws() + key("queued") + ":" + ws() + value("0") + "," + ws() + key("device") + ": " +
             value(repeat("0")) + ", " + key("stream") + ": " + value(repeat("7")) + "," + ws() +
             key("correlation") + ": " + value(corr) + ", " + key("registers per thread") + ": " +
             repeat("32") + ", " + key("shared memory") + ": " + repeat("0") + ", " + key("grid") + ": " +
             value(array("[8, 1, 1]")) + "," + ws() + key("block") + ": " + array("[128,1,1]") + ws() + "}";
    } else if (kind == 1) {
      fields = {{"ph", "\"X\""}, {"cat", "\"cuda_runtime\""}, {"name", "\"cudaLaunchKernel\""},
                {"pid", repeat("7")}, {"tid", repeat("7")}, {"ts", std::to_string(t + i * 10 - 3)}, {"dur", "2"}};
      args = "{" + ws() + key("External id") + ": " + value(corr) + "," + key("cbid") + ": " + repeat("211") + ", " +
             key("correlation") + ": " + value(corr) + ws() + "}";
    } else if (kind == 2) {
      fields = {{"ph", "\"X\""}, {"cat", "\"cpu_op\""}, {"name", "\"aten::mm\""}, {"pid", "7"},
                {"tid", "7"}, {"ts", std::to_string(t + i * 10 - 5)}, {"dur", "9"}};
      args = "{" + ws() + key("External id") + ": " + value(corr) + "," + key("Ev Idx") + ": " +
             value(std::to_string(i)) + ", " + key("Input Dims") + ": [[4, 4]]" + ws() + "}";
    } else {
      fields = {{"ph", pick(2) ? "\"s\"" : "\"f\""}, {"id", corr}, {"pid", "7"}, {"tid", "7"},
                {"ts", std::to_string(t + i * 10)}, {"cat", "\"ac2g\""}, {"name", "\"ac2g\""}, {"bp", "\"e\""}};
    }
    if (!args.empty()) fields.push_back({"args", args});
    if (pick(10) == 0) std::swap(fields[1 + pick(static_cast<uint32_t>(fields.size() - 1))], fields[1]);
    s += (i == 0 ? std::string() : "," + ws()) + "{" + ws();
    for (size_t f = 0; f < fields.size(); ++f) {
      if (f > 0) s += "," + ws();
      s += key(fields[f].first) + ":" + (pick(3) ? " " : ws()) + value(fields[f].second);
    }
    s += ws() + "}";
  }
  s += "]}";
  return s;
}

TEST(KinetoSegments, LearnedRepeatsGiveTheLexedModel) {
  for (int events : {50, 700}) {
    SCOPED_TRACE(events);
    const std::string json = LayoutVariants(events);
    ReadOut lexed = ReadWith(json, 1, size_t{1} << 20, size_t{1} << 20, 0, false);
    ASSERT_EQ(lexed.error, "");
    ASSERT_GT(lexed.trace.kernels.size(), 0u);
    ASSERT_GT(lexed.trace.api_calls.size(), 0u);
    EXPECT_GT(ExpectSameAsOneThread(json), 10u);
  }
}

TEST(KinetoSegments, ErrorsAreTheOneThreadErrors) {
  // Truncated at every 13th byte, and a stray byte at every 29th (strides
  // prime to the event length, so the positions walk through every part of
  // an event): the same error line (offset and event count included) as the
  // one-thread parse. 64-byte reads with 1-byte segments cut before nearly
  // every event. Sanitized (kSanitized): every 41st and 89th, primes too; the
  // full walk took 76 s of the CI's ASan run against 4 s in the plain build.
  const std::string json = ManyEvents(3);
  const size_t cut_stride = kSanitized ? 41 : 13, byte_stride = kSanitized ? 89 : 29;
  int errors = 0;
  for (size_t n = 0; n < json.size(); n += cut_stride) {
    const std::string cut = json.substr(0, n);
    ReadOut base = ReadWith(cut, 1, size_t{1} << 20, size_t{1} << 20, 0, false);
    ASSERT_EQ(ReadWith(cut, 1, size_t{1} << 20, size_t{1} << 20).error, base.error)
        << "truncated at " << n << ", learned separators";
    ReadOut r = ReadWith(cut, 2, 1, 64);
    ASSERT_EQ(r.error, base.error) << "truncated at " << n;
    ReadOut ahead = ReadWith(cut, 2, 1, 64, 53);
    ASSERT_EQ(ahead.error, base.error) << "truncated at " << n << ", read ahead";
    errors += !base.error.empty();
  }
  for (size_t i = 1; i < json.size(); i += byte_stride) {
    std::string bad = json;
    bad[i] = '#';
    ReadOut base = ReadWith(bad, 1, size_t{1} << 20, size_t{1} << 20, 0, false);
    ASSERT_EQ(ReadWith(bad, 1, size_t{1} << 20, size_t{1} << 20).error, base.error)
        << "'#' at " << i << ", learned separators";
    ReadOut r = ReadWith(bad, 2, 1, 64);
    ASSERT_EQ(r.error, base.error) << "'#' at " << i;
    ReadOut ahead = ReadWith(bad, 2, 1, 64, 53);
    ASSERT_EQ(ahead.error, base.error) << "'#' at " << i << ", read ahead";
    if (base.error.empty()) {
      EXPECT_EQ(model::DescribeDifference(base.trace, r.trace), "");
      EXPECT_EQ(model::DescribeDifference(base.trace, ahead.trace), "");
    }
    errors += !base.error.empty();
  }
  EXPECT_GT(errors, 250);  // 316 at the sanitized strides
}

// FastDecimal gives from_chars' double bit for bit wherever it answers, and
// answers for every plain decimal of at most 15 digits.
TEST(KinetoImporter, FastDecimalIsFromCharsBitForBit) {
  uint32_t seed = 99;
  auto pick = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  std::vector<std::string> texts = {"0", "-0", "0.0", "-0.0", "1.", ".5", "1e5", "1.5e-3", "-",
                                    "", "999999999999999", "9999999999999999", "0.000000000000001",
                                    "123456789012345", "1234567890.12345", "00.5", "--1", "1.2.3"};
  for (int n = 0; n < 200000; ++n) {
    std::string t = pick(4) == 0 ? "-" : "";
    const uint32_t int_digits = 1 + pick(12), frac_digits = pick(10);
    for (uint32_t i = 0; i < int_digits; ++i) t += static_cast<char>('0' + pick(10));
    if (frac_digits > 0) {
      t += '.';
      for (uint32_t i = 0; i < frac_digits; ++i) t += static_cast<char>('0' + pick(10));
    }
    texts.push_back(t);
  }
  size_t fast = 0;
  for (const std::string& t : texts) {
    double want = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), want);
    const bool full = r.ec == std::errc() && r.ptr == t.data() + t.size();
    double got = 0;
    if (!FastDecimal(t, &got)) {
      size_t digits = 0;
      for (char c : t) digits += c >= '0' && c <= '9';
      const bool plain = full && digits <= 15 && t.find_first_of("e.") == std::string::npos;
      EXPECT_FALSE(plain) << t;  // plain integers of <= 15 digits always take the fast path
      continue;
    }
    ++fast;
    ASSERT_TRUE(full) << t;
    ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << t << ": " << got << " vs " << want;
  }
  EXPECT_GT(fast, 100000u);
}

TEST(KinetoImporter, GzipInputMatchesPlain) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string gz(deflateBound(&z, kModern.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(kModern.data()));
  z.avail_in = static_cast<uInt>(kModern.size());
  z.next_out = reinterpret_cast<Bytef*>(gz.data());
  z.avail_out = static_cast<uInt>(gz.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  gz.resize(z.total_out);
  deflateEnd(&z);
  auto in = OpenMemoryStream(gz, "t.json.gz", KinetoOptions::ReadAheadOn());
  model::Trace t;
  KinetoScanStats scan;
  ASSERT_TRUE(ReadKinetoStream(*in, {}, t, &scan).ok());
  EXPECT_EQ(scan.json_bytes, kModern.size());
  Result<model::Trace> plain = Parse(kModern);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(t.event_count(), plain->event_count());
  EXPECT_EQ(t.kernels.start_ns, plain->kernels.start_ns);
}

}  // namespace
}  // namespace gpuwhy::import
