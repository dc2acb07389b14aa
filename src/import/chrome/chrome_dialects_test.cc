// Tests of the Chrome Trace Event tokenizer and its dialect mappings. Every
// fixture is written here (the legacy CUDA layout follows PyTorch's
// export_chrome_trace: "s" on the op, "f" + "X" on "CUDA functions").
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <fstream>
#include <string>
#include <vector>

#include "base/gzip_writer.h"
#include "base/input_stream.h"
#include "import/chrome/chrome_dialects.h"
#include "import/chrome/chrome_trace_tokenizer.h"
#include "import/registry.h"
#include "model/trace_compare.h"

namespace gpuwhy::import {
namespace {

namespace fs = std::filesystem;

std::string ChromeTestGzip(const std::string& data) {
  Result<std::string> z = GzipCompress(data);
  EXPECT_TRUE(z.ok());
  return z.ok() ? *z : std::string();
}

class ChromeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwhy_chrome_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  struct Tokens {
    Status status;
    ChromeDocument doc;
    std::vector<std::string> names;
    std::vector<int64_t> ts_ns, pid_num;
    std::vector<std::string> pid_str;
    model::ImportStats stats;
  };
  Tokens Tokenize(const std::string& name, const std::string& bytes) {
    Tokens t;
    std::string p = Write(name, bytes);
    Result<std::unique_ptr<InputStream>> in = OpenInputStream(p);
    EXPECT_TRUE(in.ok());
    t.status = ReadChromeTrace(**in, t.stats, &t.doc, [&t](const ChromeEvent& ev) {
      t.names.emplace_back(ev.name);
      t.ts_ns.push_back(ev.ts_ns);
      t.pid_num.push_back(ev.pid.num);
      t.pid_str.emplace_back(ev.pid.str);
    });
    return t;
  }
  fs::path dir_;
};

// ---- tokenizer ----

TEST_F(ChromeTest, BothContainerFormsGiveTheSameEvents) {
  const std::string events =
      R"({"name":"a","ph":"X","ts":1.5,"dur":2,"pid":7,"tid":1},{},)"
      R"({"name":"b","ph":"X","ts":"3","dur":"1","pid":"7","tid":"1"})";
  Tokens obj = Tokenize("o.json", "{\"traceEvents\":[" + events + "],\"displayTimeUnit\":\"ns\"}");
  Tokens arr = Tokenize("a.json", "[" + events + "]");
  ASSERT_TRUE(obj.status.ok()) << obj.status.message();
  ASSERT_TRUE(arr.status.ok()) << arr.status.message();
  EXPECT_FALSE(obj.doc.array_form);
  EXPECT_TRUE(arr.doc.array_form);
  EXPECT_EQ(obj.doc.display_time_unit, "ns");
  EXPECT_EQ(obj.names, arr.names);
  ASSERT_EQ(obj.names.size(), 3u);  // the empty {} is an event too
  EXPECT_EQ(obj.ts_ns[0], 1500);
  EXPECT_EQ(obj.ts_ns[2], 3000);     // a number given as a string
  EXPECT_EQ(obj.pid_num[2], 7);      // "7" as an id
  EXPECT_EQ(obj.pid_str[2], "7");
  EXPECT_FALSE(IsValid(obj.ts_ns[1]));
}

TEST_F(ChromeTest, GzipReadsLikePlain) {
  const std::string doc = R"([{"name":"k","ph":"X","ts":10,"dur":1,"pid":1,"tid":1}])";
  Tokens plain = Tokenize("p.json", doc);
  Tokens gz = Tokenize("p.json.gz", ChromeTestGzip(doc));
  ASSERT_TRUE(gz.status.ok()) << gz.status.message();
  EXPECT_EQ(plain.names, gz.names);
  EXPECT_EQ(plain.ts_ns, gz.ts_ns);
}

TEST_F(ChromeTest, NonObjectElementsAreCountedAndSkipped) {
  Tokens t = Tokenize("n.json", R"([1, "x", {"name":"a","ph":"X","ts":1,"dur":1}])");
  ASSERT_TRUE(t.status.ok());
  EXPECT_EQ(t.names.size(), 1u);
  EXPECT_EQ(t.stats.Get(model::ImportStat::malformed_event), 2u);
}

TEST_F(ChromeTest, BrokenContainersAreOneLineWithTheOffset) {
  Tokens trunc = Tokenize("t.json", R"([{"name":"a","ph":"X","ts":1)");
  ASSERT_FALSE(trunc.status.ok());
  EXPECT_NE(trunc.status.message().find("truncated JSON at byte 28"), std::string::npos)
      << trunc.status.message();
  Tokens bad = Tokenize("b.json", R"({"traceEvents":[{"ph":"X",,}]})");
  ASSERT_FALSE(bad.status.ok());
  EXPECT_NE(bad.status.message().find("at byte 26"), std::string::npos) << bad.status.message();
  Tokens not_array = Tokenize("n.json", R"({"traceEvents":{}})");
  EXPECT_NE(not_array.status.message().find("traceEvents is not an array"), std::string::npos);
  Tokens none = Tokenize("x.json", R"({"a":1})");
  EXPECT_NE(none.status.message().find("no traceEvents"), std::string::npos);
  Tokens trailing = Tokenize("r.json", R"([] x)");
  EXPECT_FALSE(trailing.status.ok());
  for (const Tokens* t : {&trunc, &bad, &not_array, &none, &trailing})
    EXPECT_EQ(t->status.message().find('\n'), std::string::npos);
}

TEST_F(ChromeTest, TraceHeadSkipsBomAndWhitespace) {
  EXPECT_EQ(ChromeTraceHead("\xEF\xBB\xBF  [ {}"), '[');
  EXPECT_EQ(ChromeTraceHead("\n{\"a\":1}"), '{');
  EXPECT_EQ(ChromeTraceHead(",{}"), 0);
}

// ---- PyTorch legacy autograd profiler ----

// LegacyCpuTrace: ops of a CPU-only run with `steps` ProfilerStep ranges.
std::string LegacyCpuTrace(int steps) {
  std::string s = "[";
  int64_t ts = 100;
  for (int i = 0; i < steps; ++i) {
    if (i) s += ", ";
    s += R"({"name": "ProfilerStep#)" + std::to_string(i + 1) + R"(", "ph": "X", "ts": )" +
         std::to_string(ts) + R"(, "dur": 1000, "tid": 1, "pid": "CPU functions", "args": {}}, )";
    s += R"({"name": "aten::mm", "ph": "X", "ts": )" + std::to_string(ts + 10) +
         R"(, "dur": 500, "tid": 1, "pid": "CPU functions", "args": {}})";
    ts += 1200;
  }
  return s + "]";
}

TEST_F(ChromeTest, LegacyCpuOnlyIsAHostOnlyRunWithItsSteps) {
  std::string p = Write("cpu.json", LegacyCpuTrace(3));
  SourceInfo src;
  src.path = p;
  src.prefix = LegacyCpuTrace(3);
  TorchLegacyImporter imp;
  ASSERT_TRUE(imp.Sniff(src));
  model::Trace t;
  Status st = imp.Read(src, t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(t.info.format, "torch-legacy-json");
  EXPECT_TRUE(t.info.host_only_profile);
  EXPECT_EQ(t.kernels.size(), 0u);
  ASSERT_EQ(t.ranges.size(), 6u);
  int steps = 0;
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    if (!IsValid(t.ranges.step[i])) {
      EXPECT_EQ(t.ranges.kind[i], model::RangeKind::kCpuOp);
      continue;
    }
    ++steps;
    EXPECT_EQ(t.ranges.step[i], steps);
    EXPECT_EQ(t.ranges.kind[i], model::RangeKind::kUserAnnotation);
    EXPECT_EQ(t.ranges.end_ns[i] - t.ranges.start_ns[i], 1000000);  // µs -> ns
  }
  EXPECT_EQ(steps, 3);
  ASSERT_FALSE(t.info.import_notes.empty());
  EXPECT_NE(t.info.import_notes[0].find("CPU-only"), std::string::npos);
}

TEST_F(ChromeTest, LegacyCudaKernelsLinkToTheirLaunchByFlows) {
  // Two ops each launching one kernel on device 0; one kernel on device 1
  // without a flow.
  const std::string doc = R"([
{"name": "aten::mm", "ph": "X", "ts": 10, "dur": 5, "tid": 3, "pid": "CPU functions", "args": {}},
{"name": "aten::mm", "ph": "s", "ts": 10, "tid": 3, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
{"name": "gemm_kernel", "ph": "f", "ts": 20, "tid": 0, "pid": "CUDA functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
{"name": "gemm_kernel", "ph": "X", "ts": 20, "dur": 30, "tid": 0, "pid": "CUDA functions", "args": {}},
{"name": "aten::add", "ph": "X", "ts": 16, "dur": 2, "tid": 3, "pid": "CPU functions", "args": {}},
{"name": "aten::add", "ph": "s", "ts": 16, "tid": 3, "pid": "CPU functions", "id": 1, "cat": "cpu_to_cuda", "args": {}},
{"name": "add_kernel", "ph": "f", "ts": 50, "tid": 0, "pid": "CUDA functions", "id": 1, "cat": "cpu_to_cuda", "args": {}},
{"name": "add_kernel", "ph": "X", "ts": 50, "dur": 4, "tid": 0, "pid": "CUDA functions", "args": {}},
{"name": "lone_kernel", "ph": "X", "ts": 60, "dur": 4, "tid": 1, "pid": "CUDA functions", "args": {}}
])";
  Result<model::Trace> r = ImportFile(Write("cuda.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format, "torch-legacy-json");
  EXPECT_FALSE(t.info.host_only_profile);
  ASSERT_EQ(t.kernels.size(), 3u);
  ASSERT_EQ(t.ranges.size(), 2u);
  int linked = 0;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    std::string name(t.Str(t.kernels.name[k]));
    if (name == "lone_kernel") {
      EXPECT_EQ(t.kernels.device_id[k], 1);
      EXPECT_FALSE(IsValid(t.kernels.correlation_id[k]));
      continue;
    }
    EXPECT_EQ(t.kernels.device_id[k], 0);
    ASSERT_TRUE(IsValid(t.kernels.external_id[k]));
    // The kernel's external id is its launching op's.
    bool found = false;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
      if (t.ranges.external_id[i] != t.kernels.external_id[k]) continue;
      found = true;
      EXPECT_EQ(std::string(t.Str(t.ranges.name[i])), name == "gemm_kernel" ? "aten::mm" : "aten::add");
    }
    EXPECT_TRUE(found) << name;
    ++linked;
  }
  EXPECT_EQ(linked, 2);
  EXPECT_EQ(t.stats.Get(model::ImportStat::missing_correlation), 1u);
  ASSERT_FALSE(t.devices.empty());
  EXPECT_EQ(t.devices[0].vendor, model::Vendor::kNvidia);
}

TEST_F(ChromeTest, LegacyWithNoCompleteEventIsRefusedInOneLine) {
  std::string p = Write("empty.json", R"([{"name": "x", "ph": "M", "pid": "CPU functions", "args": {}}])");
  Result<model::Trace> r = ImportFile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("PyTorch legacy autograd-profiler trace"), std::string::npos);
  EXPECT_NE(r.status().message().find("nothing to analyse"), std::string::npos);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST_F(ChromeTest, LegacyBadEventsAreCountedNotFatal) {
  const std::string doc = R"([
{"name": "ProfilerStep#1", "ph": "X", "ts": 1, "dur": 100, "tid": 1, "pid": "CPU functions"},
{"name": "aten::mm", "ph": "X", "ts": "later", "dur": 5, "tid": 1, "pid": "CPU functions"},
{"name": "aten::mm", "ph": "X", "ts": 5, "tid": 1, "pid": "CPU functions"},
{"name": "aten::mm", "ph": "X", "ts": 5, "dur": -3, "tid": 1, "pid": "CPU functions"},
{"name": "aten::mm", "ph": "Q", "ts": 5, "tid": 1, "pid": "CPU functions"}
])";
  Result<model::Trace> r = ImportFile(Write("bad.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ranges.size(), 2u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::bad_field_type), 1u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::missing_dur), 1u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::negative_dur), 1u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::unknown_phase), 1u);
}

TEST_F(ChromeTest, KinetoSniffStillWinsForKinetoTraces) {
  const std::string doc =
      R"({"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7,"correlation":1}}]})";
  Result<model::Trace> r = ImportFile(Write("k.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->info.format, "kineto-json");
}

// ---- tokenizer: segments ----

// The events array cut into segments on threads hands out the same events,
// fields and args, in the same order, with the same counters, as one thread:
// escapes (decoded into scratch, copied out of segments), string numbers,
// `{}` and non-object elements included. 4 MB: several 1 MiB segments.
TEST_F(ChromeTest, SegmentedReadEqualsOneThread) {
  std::string doc = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  for (int i = 0; i < 20000; ++i) {
    if (i) doc += ",\n";
    if (i % 97 == 5) {
      doc += "{}";
      continue;
    }
    if (i % 211 == 7) {
      doc += "[1, 2]";
      continue;
    }
    doc += "{\"ph\":\"X\",\"name\":\"op\\\"" + std::to_string(i) + "\\u00e9\",\"pid\":\"" +
           std::to_string(i % 3) + "\",\"tid\":" + std::to_string(i % 7) + ",\"ts\":" +
           (i % 2 ? "\"" + std::to_string(i) + ".5\"" : std::to_string(i) + ".25") +
           ",\"dur\":1,\"bp\":\"e\",\"id\":" + std::to_string(i) +
           ",\"args\":{\"k\\n" + std::to_string(i % 5) + "\":\"v\\t" + std::to_string(i) +
           "\",\"n\":" + std::to_string(i) + ",\"o\":{\"a\":[" + std::to_string(i) +
           "]},\"padding\":\"" + std::string(160, 'x') + "\"}}";
  }
  doc += "\n]}\n";
  ASSERT_GT(doc.size(), size_t{4} << 20);
  const std::string p = Write("seg.json", doc);
  auto read = [&](int threads, std::vector<std::string>* out, model::ImportStats* stats,
                  ChromeDocument* d) {
    Result<std::unique_ptr<InputStream>> in = OpenInputStream(p);
    ASSERT_TRUE(in.ok());
    Status st = ReadChromeTrace(**in, *stats, d, [out](const ChromeEvent& ev) {
      std::string line = std::to_string(ev.index) + "|" + std::string(ev.ph) + "|" +
                         std::string(ev.name) + "|" + std::string(ev.bp) + "|" +
                         std::to_string(ev.pid.num) + "|" + std::string(ev.pid.str) + "|" +
                         std::to_string(ev.tid.num) + "|" + std::to_string(ev.id.num) + "|" +
                         std::to_string(ev.ts_ns) + "|" + std::string(ev.ts_text) + "|" +
                         std::to_string(ev.dur_ns);
      for (const ChromeArg& a : ev.args)
        line += "|" + std::string(a.key) + "=" + std::string(a.text) + (a.is_string ? "s" : "");
      out->push_back(std::move(line));
    }, nullptr, threads);
    ASSERT_TRUE(st.ok()) << st.message();
  };
  std::vector<std::string> one, many;
  model::ImportStats s1, s4;
  ChromeDocument d1, d4;
  read(1, &one, &s1, &d1);
  read(4, &many, &s4, &d4);
  EXPECT_EQ(d1.segments, 0u);
  EXPECT_GT(d4.segments, 2u);
  EXPECT_EQ(d1.events, 20000u);
  EXPECT_EQ(d4.events, 20000u);
  EXPECT_EQ(d4.display_time_unit, "ns");
  ASSERT_EQ(one.size(), many.size());
  for (size_t i = 0; i < one.size(); ++i) ASSERT_EQ(one[i], many[i]) << i;
  EXPECT_EQ(s1.Get(model::ImportStat::malformed_event), s4.Get(model::ImportStat::malformed_event));
  EXPECT_GT(s4.Get(model::ImportStat::malformed_event), 0u);
  // The escapes were decoded (not views of the raw text).
  EXPECT_NE(one[1].find("op\"1\xC3\xA9"), std::string::npos) << one[1];
  EXPECT_NE(one[1].find("|k\n1=v\t1s"), std::string::npos) << one[1];
}

// ---- tokenizer: args ----

TEST_F(ChromeTest, ArgsAreReadWhateverTheirPlace) {
  std::string p = Write("args.json",
                        R"([{"args":{"name":"GPU0","n":"12","o":{"a":[1]}},"ph":"M","pid":3,"name":"process_name"}])");
  Result<std::unique_ptr<InputStream>> in = OpenInputStream(p);
  ASSERT_TRUE(in.ok());
  model::ImportStats stats;
  ChromeDocument doc;
  int seen = 0;
  Status st = ReadChromeTrace(**in, stats, &doc, [&](const ChromeEvent& ev) {
    ++seen;
    EXPECT_EQ(ev.ArgText("name"), "GPU0");
    EXPECT_EQ(ev.ArgInt("n"), 12);
    EXPECT_EQ(ev.ArgText("o"), R"({"a":[1]})");
    EXPECT_EQ(ev.Arg("absent"), nullptr);
    EXPECT_EQ(ev.pid.num, 3);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(seen, 1);
}

// ---- JAX / XLA ----

// JaxGpuTrace: an xprof-style GPU trace: µs values with ns fractions under
// displayTimeUnit "ns"; metadata after the events when `meta_last`.
std::string JaxGpuTrace(bool meta_last) {
  const std::string meta = R"J(
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0 (NVIDIA A100-SXM4-40GB)"}},
{"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"Stream #14(Compute)"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"XLA Modules"}},
{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":701,"tid":9,"name":"thread_name","args":{"name":"python3"}})J";
  std::string events = R"J(
{"ph":"X","pid":701,"tid":9,"ts":1000.5,"dur":900,"name":"train","args":{"step_num":"7","_r":"1"}},
{"ph":"X","pid":701,"tid":9,"ts":1001.25,"dur":10.5,"name":"cuLaunchKernel","args":{"correlation_id":"41"}},
{"ph":"X","pid":1,"tid":14,"ts":1020.125,"dur":50.5,"name":"fusion_3","args":{"correlation_id":"41","kernel_details":"regs:32 static_shared:16 dynamic_shared:48 grid:128,2,1 block:256,1,1 occ_pct:50.0"}},
{"ph":"X","pid":1,"tid":14,"ts":1080,"dur":5,"name":"MemcpyDtoH","args":{"correlation_id":"42"}},
{"ph":"X","pid":1,"tid":3,"ts":1020.125,"dur":50.5,"name":"fusion.3","args":{"hlo_op":"fusion.3"}},
{"ph":"X","pid":1,"tid":2,"ts":1020,"dur":70,"name":"jit_train_step(1)"})J";
  return "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":[" +
         (meta_last ? events.substr(1) + "," + meta : meta.substr(1) + "," + events) + "]}";
}

TEST_F(ChromeTest, JaxGpuStreamsAreKernelsAndTheUnitIsNoted) {
  for (bool meta_last : {false, true}) {
    SCOPED_TRACE(meta_last);
    Result<model::Trace> r = ImportFile(Write("jax.trace.json.gz", ChromeTestGzip(JaxGpuTrace(meta_last))));
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::Trace& t = *r;
    EXPECT_EQ(t.info.format, "jax-trace-json");
    EXPECT_FALSE(t.info.host_only_profile);
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels.device_id[0], 0);
    EXPECT_EQ(t.kernels.stream_id[0], 14);
    EXPECT_EQ(t.kernels.start_ns[0], 1020125);  // µs with a fraction, not ns
    EXPECT_EQ(t.kernels.end_ns[0] - t.kernels.start_ns[0], 50500);
    EXPECT_EQ(t.kernels.correlation_id[0], 41);
    EXPECT_EQ(t.kernels.grid_x[0], 128);
    EXPECT_EQ(t.kernels.grid_y[0], 2);
    EXPECT_EQ(t.kernels.block_x[0], 256);
    EXPECT_EQ(t.kernels.registers_per_thread[0], 32);
    EXPECT_EQ(t.kernels.shared_mem_bytes[0], 64);
    ASSERT_EQ(t.memcpys.size(), 1u);
    EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kDtoH);
    ASSERT_EQ(t.api_calls.size(), 1u);
    EXPECT_EQ(t.api_calls.correlation_id[0], 41);
    EXPECT_EQ(t.api_calls.kind[0], model::ApiKind::kDriver);
    int steps = 0, gpu_annotations = 0;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
      if (IsValid(t.ranges.step[i])) {
        ++steps;
        EXPECT_EQ(t.ranges.step[i], 7);
      }
      gpu_annotations += t.ranges.kind[i] == model::RangeKind::kGpuUserAnnotation;
    }
    EXPECT_EQ(steps, 1);
    EXPECT_EQ(gpu_annotations, 2);  // "XLA Ops" beside a stream, "XLA Modules"
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].vendor, model::Vendor::kNvidia);
    ASSERT_EQ(t.info.import_notes.size(), 1u);
    EXPECT_NE(t.info.import_notes[0].find("read as µs although displayTimeUnit says \"ns\""),
              std::string::npos)
        << t.info.import_notes[0];
  }
}

TEST_F(ChromeTest, JaxTpuXlaOpsAreTheDevicesWork) {
  const std::string doc = R"({"displayTimeUnit":"ns","traceEvents":[
{"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:2"}},
{"ph":"M","pid":3,"tid":1,"name":"thread_name","args":{"name":"Steps"}},
{"ph":"M","pid":3,"tid":2,"name":"thread_name","args":{"name":"XLA Ops"}},
{"ph":"X","pid":3,"tid":1,"ts":10,"dur":100,"name":"12"},
{"ph":"X","pid":3,"tid":2,"ts":11,"dur":40,"name":"convolution.1"},
{"ph":"X","pid":3,"tid":2,"ts":52,"dur":40,"name":"add.2"}]})";
  Result<model::Trace> r = ImportFile(Write("tpu.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->kernels.device_id[0], 2);
  ASSERT_EQ(r->ranges.size(), 1u);
  EXPECT_EQ(r->ranges.step[0], 12);
  ASSERT_EQ(r->devices.size(), 1u);
  EXPECT_EQ(r->devices[0].vendor, model::Vendor::kGoogle);  // reported as "TPU 2"
}

TEST_F(ChromeTest, JaxIntegerNsIsDetectedFromTheData) {
  // Whole numbers at epoch-ns magnitude: as µs they would pass year 2262.
  const std::string doc = R"({"displayTimeUnit":"ns","traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7"}},
{"ph":"X","pid":1,"tid":7,"ts":1700000000000001000,"dur":2500,"name":"k"}]})";
  Result<model::Trace> r = ImportFile(Write("ns.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels.start_ns[0], 1700000000000001000);
  EXPECT_EQ(r->kernels.end_ns[0] - r->kernels.start_ns[0], 2500);
  EXPECT_NE(r->info.import_notes[0].find("read as ns"), std::string::npos);
}

TEST_F(ChromeTest, JaxWithOnlyMetadataIsRefusedInOneLine) {
  std::string p = Write("meta.json", R"({"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}}]})");
  Result<model::Trace> r = ImportFile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a JAX/XLA trace"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("1 GPU and 0 TPU"), std::string::npos);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

// ---- rocprof v1 results.json / RPD JSON ----

TEST_F(ChromeTest, RocprofV1StringFieldsAndFlowsJoinCallAndOp) {
  const std::string doc = R"J({"traceEvents":[{},
{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name","sort_index":0},
{"args":{"name":"COPY"},"ph":"M","pid":1,"name":"process_name","sort_index":1},
{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name","sort_index":2},
{"ph":"X","name":"CopyHostToDevice","pid":"1","tid":"0","ts":"5000","dur":"90","args":{"BeginNs":"5000123","EndNs":"5090456","dev-id":"0","queue-id":"0","Name":"CopyHostToDevice","pid":"77","tid":"77"}},
{"ph":"X","name":"hipMemcpy","pid":"2","tid":"77","ts":"4990","dur":"120","args":{"BeginNs":"4990000","EndNs":"5110000","pid":"77","tid":"77","Name":"hipMemcpy","args":"( dst(0x1) src(0x2) sizeBytes(4096) kind(1))"}},
{"ph":"X","name":"hipLaunchKernel","pid":"2","tid":"77","ts":"5200","dur":"10","args":{"BeginNs":"5200000","EndNs":"5210000","pid":"77","tid":"77","Name":"hipLaunchKernel","args":"( kernel(vadd(float*)) numBlocks({z(1) y(1) x(64}) dimBlocks({z(1) y(1) x(256}) sharedMemBytes(0) stream(0))"}},
{"ph":"X","name":"vadd(float*)","pid":"6","tid":"1","ts":"5300","dur":"30","args":{"BeginNs":"5300000","EndNs":"5330000","dev-id":"0","queue-id":"0","Name":"vadd(float*)"}},
{"ts":4995,"ph":"s","cat":"DataFlow","id":0,"pid":2,"tid":77,"name":"dep"},
{"ts":5000,"ph":"t","cat":"DataFlow","id":0,"pid":1,"tid":0,"name":"dep"},
{"ts":5205,"ph":"s","cat":"DataFlow","id":1,"pid":2,"tid":77,"name":"dep"},
{"ts":5300,"ph":"t","cat":"DataFlow","id":1,"pid":6,"tid":1,"name":"dep"}
],"otherData":{"x":"y"}})J";
  Result<model::Trace> r = ImportFile(Write("results.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format, "rocprof-json");
  EXPECT_EQ(t.info.clock, "hsa_system");
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.start_ns[0], 5000123);  // BeginNs, not ts
  EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.bytes[0], 4096);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.device_id[0], 0);
  EXPECT_EQ(t.kernels.grid_x[0], 64);
  EXPECT_EQ(t.kernels.block_x[0], 256);
  EXPECT_TRUE(IsValid(t.kernels.correlation_id[0]));
  ASSERT_EQ(t.api_calls.size(), 2u);
  for (const model::Device& d : t.devices) EXPECT_EQ(d.vendor, model::Vendor::kAmd);
}

TEST_F(ChromeTest, RpdArrayFormWithCounters) {
  const std::string doc = R"J([ {},
{"name":"process_name","ph":"M","pid":"2","args":{"name":"GPU0"}},
{"name":"thread_name","ph":"M","pid":"100","tid":"100","args":{"name":"Hip 100"}},
{"pid":"100","tid":"100","name":"hipLaunchKernel","ts":"10","dur":"5","ph":"X","args":{"desc":"hipLaunchKernel"}},
{"pid":"2","tid":"0","name":"Cijk_gemm","ts":"20","dur":"40","ph":"X","args":{"desc":"KernelExecution"}},
{"pid":"100","tid":"100","ts":"12","ph":"s","cat":"api_op","name":"dep","id":"9"},
{"pid":"2","tid":"0","ts":"20","ph":"f","cat":"api_op","name":"dep","id":"9","bp":"e"},
{"pid":"2","name":"sclk","ph":"C","ts":"15","args":{"sclk":"1700"}}
])J";
  Result<model::Trace> r = ImportFile(Write("matmul_result.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Trace& t = *r;
  EXPECT_EQ(t.info.format_version, "rpd");
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels.start_ns[0], 20000);
  EXPECT_EQ(t.kernels.correlation_id[0], 9);
  ASSERT_EQ(t.api_calls.size(), 1u);
  EXPECT_EQ(t.api_calls.correlation_id[0], 9);
  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].kind, model::CounterKind::kSmClockMhz);
}

TEST_F(ChromeTest, RocprofWithoutTracingIsRefusedInOneLine) {
  std::string p = Write("results.json",
                        ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\"}\n");
  Result<model::Trace> r = ImportFile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("without trace events"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST_F(ChromeTest, LegacyLaunchFlowsWithoutKernelsAreRefusedNotCpuOnly) {
  // PyTorch 1.8+ with use_cuda: the "s" flows stay, the kernels are gone.
  const std::string doc = R"([
{"name": "ProfilerStep#1", "ph": "X", "ts": 1, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::mm", "ph": "X", "ts": 10, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::mm", "ph": "s", "ts": 10, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}
])";
  Result<model::Trace> r = ImportFile(Write("flows_only.json", doc));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("launched 1 GPU kernels"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST_F(ChromeTest, JaxDevicesNamedPastTheSniffedPrefixStillReadAsJax) {
  // 70 KB of host events before the device's process_name: the Kineto
  // sniffer claims the object, finds the device processes, and hands over.
  std::string doc = R"({"traceEvents":[)";
  for (int i = 0; doc.size() < (70u << 10); ++i)
    doc += R"({"ph":"X","pid":701,"tid":9,"ts":)" + std::to_string(1000 + i) +
           R"(.5,"dur":0.5,"name":"host_work"},)";
  doc += R"J({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"Stream #14(Compute)"}},
{"ph":"X","pid":1,"tid":14,"ts":1020.125,"dur":50.5,"name":"fusion_3"}]})J";
  Result<model::Trace> r = ImportFile(Write("late_devices.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->info.format, "jax-trace-json");
  EXPECT_EQ(r->kernels.size(), 1u);
}

TEST_F(ChromeTest, KinetoTraceNamingAJaxProcessStaysKineto) {
  const std::string doc =
      R"({"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"user_annotation","name":"/host:CPU","pid":1,"tid":1,"ts":1,"dur":1},)"
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":1,"args":{"device":0,"stream":7,"correlation":1}}]})";
  SourceInfo src;
  src.prefix = doc;
  EXPECT_FALSE(JaxTraceImporter().Sniff(src));
  Result<model::Trace> r = ImportFile(Write("kineto_named.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->info.format, "kineto-json");
}


// ---- the mapping form: each segment mapped on its worker, merged in order ----

// CountingMapping: records every event's name as Event or a segment's Event
// saw it, and how many segments were made and merged.
struct CountingSegment final : ChromeSegmentMapper {
  std::vector<std::string> names;
  int resets = 0;
  void Event(const ChromeEvent& ev) override { names.emplace_back(ev.name); }
  void Reset() override {
    names.clear();
    ++resets;
  }
};
struct CountingMapping final : ChromeMapping {
  std::vector<std::string> names;
  mutable std::atomic<int> made{0};
  int merged = 0;
  void Event(const ChromeEvent& ev) override { names.emplace_back(ev.name); }
  std::unique_ptr<ChromeSegmentMapper> NewSegment() const override {
    ++made;
    return std::make_unique<CountingSegment>();
  }
  void Merge(ChromeSegmentMapper& seg, double) override {
    auto& c = static_cast<CountingSegment&>(seg);
    names.insert(names.end(), c.names.begin(), c.names.end());
    ++merged;
  }
};

TEST(ChromeMappingForm, SegmentsAreMappedOnWorkersAndMergedInFileOrder) {
  std::string doc = "[";
  for (int i = 0; i < 3000; ++i)
    doc += R"({"name":"e)" + std::to_string(i) + R"(","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},)";
  doc += "{}]";
  auto run = [&](int threads, size_t segment_bytes, CountingMapping* m) {
    auto in = OpenMemoryStream(doc, "m.json");
    model::ImportStats stats;
    ChromeDocument d;
    ChromeReadOptions o;
    o.threads = threads;
    o.segment_bytes = segment_bytes;
    o.chunk_bytes = 4096;
    EXPECT_TRUE(ReadChromeTrace(*in, stats, &d, *m, nullptr, o).ok());
    return d.segments;
  };
  CountingMapping one, many;
  EXPECT_EQ(run(1, 0, &one), 0u);
  EXPECT_EQ(one.made, 0);
  EXPECT_GT(run(2, 2048, &many), 20u);
  EXPECT_GT(many.merged, 20);
  // Mappers are reused, not made per segment (at most a few per worker).
  EXPECT_LT(many.made, many.merged);
  ASSERT_EQ(one.names.size(), 3001u);
  EXPECT_EQ(many.names, one.names);
}

// ExpectDialectSegmentsMatchOneThread: `read` (a dialect's stream reader)
// gives the same error line or a bit-identical model on one thread and with
// the events array cut into segments of many sizes, down to one event each.
using DialectRead = Status (*)(InputStream&, model::Trace&, const ChromeReadOptions&);
void ExpectDialectSegmentsMatchOneThread(DialectRead read, const std::string& doc,
                                        model::Trace* one_out = nullptr) {
  auto import = [&](int threads, size_t segment, size_t chunk, model::Trace* t) {
    auto in = OpenMemoryStream(doc, "d.json");
    ChromeReadOptions o;
    o.threads = threads;
    o.segment_bytes = segment;
    o.chunk_bytes = chunk;
    Status st = read(*in, *t, o);
    return st.ok() ? std::string() : st.message();
  };
  model::Trace one;
  const std::string one_error = import(1, 0, 0, &one);
  ASSERT_EQ(one_error, "");
  struct Setting {
    int threads;
    size_t segment, chunk;
  };
  for (Setting set : {Setting{2, 1, 1}, Setting{2, 1, 97}, Setting{3, 64, 31}, Setting{2, 700, 1000},
                      Setting{2, 4096, 4096}, Setting{4, 100000, 1 << 20}}) {
    SCOPED_TRACE(testing::Message() << "threads " << set.threads << " segment " << set.segment
                                    << " chunk " << set.chunk);
    model::Trace t;
    EXPECT_EQ(import(set.threads, set.segment, set.chunk, &t), one_error);
    EXPECT_EQ(model::DescribeDifference(one, t), "");
    // Cut at all: the import notes count what was mapped, the same either way.
    EXPECT_EQ(t.info.import_notes, one.info.import_notes);
  }
  if (one_out != nullptr) *one_out = std::move(one);
}

TEST(ChromeDialectSegments, LegacyFlowsThatCrossSegmentsLinkAsOnOneThread) {
  // Ops on two threads, each starting a flow ("s" at the op's ts, so cut at
  // one event per segment the op is in an earlier segment); kernels after
  // and before their "f"; a flow whose ts misses its op; two kernels at one
  // place; escapes; "{}" and a non-object element.
  std::string doc = R"([{"name":"ProfilerStep#3","ph":"X","ts":0,"dur":900000,"tid":1,"pid":"CPU functions","args":{}},)";
  for (int i = 0; i < 400; ++i) {
    const std::string tid = std::to_string(1 + i % 2), ts = std::to_string(100 + i * 20),
                      kts = std::to_string(106 + i * 20), id = std::to_string(i);
    const std::string kname = i % 3 == 0 ? "gemm\\u005fk" : "elementwise";
    doc += R"({"name":"aten::mm","ph":"X","ts":)" + ts + R"(,"dur":8,"tid":)" + tid +
           R"(,"pid":"CPU functions","args":{}},)";
    doc += R"({"name":"aten::mm","ph":"s","ts":)" + (i % 7 == 0 ? std::to_string(101 + i * 20) : ts) +
           R"(,"tid":)" + tid + R"(,"pid":"CPU functions","id":)" + id + R"(,"cat":"cpu_to_cuda","args":{}},)";
    const std::string flow_end = R"({"name":")" + kname + R"(","ph":"f","ts":)" + kts +
                                 R"(,"tid":0,"pid":"CUDA functions","id":)" + id + R"(,"cat":"cpu_to_cuda","args":{}},)";
    const std::string kernel = R"({"name":")" + kname + R"(","ph":"X","ts":)" + kts +
                               R"(,"dur":9,"tid":0,"pid":"CUDA functions","args":{}},)";
    doc += i % 5 == 0 ? kernel + flow_end : flow_end + kernel;
    if (i % 11 == 0) doc += kernel;
    if (i % 13 == 0) doc += "{},3,";
  }
  doc += R"({"name":"aten::add","ph":"s","ts":5,"tid":1,"pid":"CPU functions","cat":"cpu_to_cuda"}])";
  model::Trace t;
  ExpectDialectSegmentsMatchOneThread(&ReadTorchLegacyStream, doc, &t);
  // The join itself: most kernels linked, each to its launching op.
  size_t linked = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) linked += IsValid(t.kernels.external_id[i]);
  EXPECT_GT(linked, 300u);
  EXPECT_LT(linked, t.kernels.size());  // the duplicates and the missed flows
}

TEST(ChromeDialectSegments, JaxNamesGivenLateOrTwiceApplyToEverySegment) {
  // The device's process_name comes last, a thread is renamed, and memcpy /
  // memset / kernel_details / step markers are spread over the document.
  std::string doc = R"({"displayTimeUnit":"ns","traceEvents":[)"
                    R"({"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"old name"}},)"
                    R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:7"}},)"
                    R"({"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},)"
                    R"({"ph":"M","pid":2,"name":"process_name","args":{"name":"/device:TPU:1"}},)"
                    R"({"ph":"M","pid":2,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)";
  for (int i = 0; i < 300; ++i) {
    const std::string ts = std::to_string(1000 + i * 20), c = std::to_string(i);
    doc += R"({"ph":"X","pid":701,"tid":9,"ts":)" + ts + R"(.125,"dur":3.5,"name":"cuLaunchKernel","args":{"correlation_id":")" + c + R"("}},)";
    const std::string name = i % 10 == 0 ? "MemcpyHtoD" : i % 10 == 1 ? "memset32" : "fusion_" + c;
    doc += R"({"ph":"X","pid":1,"tid":14,"ts":)" + ts + R"(.5,"dur":9.25,"name":")" + name +
           R"(","args":{"correlation_id":")" + c +
           R"(","kernel_details":"regs:90 static_shared:0 dynamic_shared:16 grid:128,2,1 block:256,1,1"}},)";
    if (i % 25 == 0)
      doc += R"({"ph":"X","pid":701,"tid":9,"ts":)" + ts + R"(,"dur":1,"name":"StepMarker","args":{"group_id":")" + c + R"("}},)";
    if (i % 9 == 0) doc += R"({"ph":"X","pid":2,"tid":3,"ts":)" + ts + R"(,"dur":2,"name":"tpu_op"},)";
  }
  doc += R"J({"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"Stream #14(Compute)"}},)J"
         R"J({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0 NVIDIA H100"}}]})J";
  model::Trace t;
  ExpectDialectSegmentsMatchOneThread(&ReadJaxTraceStream, doc, &t);
  EXPECT_EQ(t.memcpys.size(), 30u);
  EXPECT_EQ(t.memsets.size(), 30u);
  EXPECT_EQ(t.kernels.size(), 240u + 34u);  // GPU kernels and the TPU's ops
  ASSERT_EQ(t.devices.size(), 2u);  // GPU:7 was renamed GPU:0
  EXPECT_EQ(t.devices[0].device_id, 0);
}

TEST(ChromeDialectSegments, RocprofAndRpdFlowsCountersAndCallArgsMergeAsOnOneThread) {
  // rocprof v1: string numbers, BeginNs, call args with launch dims and copy
  // sizes, flows "s" -> "t", and the GPU's process named last.
  std::string v1 = R"({"traceEvents":[{},{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name"},)"
                   R"({"args":{"name":"COPY"},"ph":"M","pid":3,"name":"process_name"},)";
  for (int i = 0; i < 300; ++i) {
    const long ts = 622108000000 + i * 20L;
    const std::string id = std::to_string(i), t0 = std::to_string(ts), t6 = std::to_string(ts + 6);
    const bool copy = i % 6 == 0;
    v1 += R"({"ph":"X","name":")" + std::string(copy ? "hipMemcpy" : "hipLaunchKernel") + R"(","pid":"2","tid":"77","ts":")" + t0 +
          R"(","dur":"3","args":{"BeginNs":")" + t0 + R"(125","EndNs":")" + t0 + R"(3625","args":")" +
          (copy ? "( dst(0x1) src(0x2) sizeBytes(4096) kind(1))" : "( kernel(vadd(float*)) numBlocks({z(1) y(2) x(64}) dimBlocks({z(1) y(1) x(256}) sharedMemBytes(32))") + R"("}},)";
    v1 += R"({"ph":"X","name":")" + std::string(copy ? "CopyHostToDevice" : "vadd(float*)") + R"(","pid":")" + (copy ? "3" : "6") +
          R"(","tid":"1","ts":")" + t6 + R"(","dur":"9","args":{"BeginNs":")" + t6 + R"(500","EndNs":")" + t6 +
          R"(750","dev-id":"0","queue-id":"0"}},)";
    v1 += R"({"ts":)" + std::to_string(ts + 1) + R"(,"ph":"s","cat":"DataFlow","id":)" + id + R"(,"pid":2,"tid":77,"name":"dep"},)";
    v1 += R"({"ts":)" + t6 + R"(,"ph":"t","cat":"DataFlow","id":)" + id + R"(,"pid":)" + (copy ? "3" : "6") + R"(,"tid":1,"name":"dep"},)";
  }
  v1 += R"({"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}]})";
  model::Trace t;
  ExpectDialectSegmentsMatchOneThread(&ReadRocprofJsonStream, v1, &t);
  ASSERT_EQ(t.kernels.size(), 250u);
  size_t sized = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) sized += t.kernels.grid_y[i] == 2 && t.kernels.shared_mem_bytes[i] == 32;
  EXPECT_EQ(sized, 250u);
  ASSERT_EQ(t.memcpys.size(), 50u);
  EXPECT_EQ(t.memcpys.bytes[0], 4096);

  // RPD: a top-level array, counters whose series spread over segments.
  std::string rpd = R"([{},)";
  for (int i = 0; i < 300; ++i) {
    const std::string ts = std::to_string(1000 + i * 20);
    rpd += R"({"pid":"6","tid":"1","name":"k)" + std::to_string(i % 4) + R"(","ph":"X","ts":)" + ts +
           R"(,"dur":5,"args":{"desc":")" + (i % 8 == 0 ? "FillBuffer" : "KernelExecution") + R"("}},)";
    rpd += R"({"pid":"2","tid":"9","name":"sclk","ph":"C","ts":)" + ts + R"(,"args":{"sclk":)" + std::to_string(1500 + i) + R"(}},)";
    if (i % 3 == 0)
      rpd += R"({"pid":"2","tid":"9","name":"Allocated Memory","ph":"C","ts":)" + ts + R"(,"args":{"Allocated Memory":)" + std::to_string(i) + R"(}},)";
  }
  rpd += R"({"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}])";
  model::Trace r;
  ExpectDialectSegmentsMatchOneThread(&ReadRocprofJsonStream, rpd, &r);
  ASSERT_EQ(r.counters.size(), 2u);
  EXPECT_EQ(r.counters[0].value.size(), 300u);
  EXPECT_EQ(r.counters[1].value.size(), 100u);
}

}  // namespace
}  // namespace gpuwhy::import
