// The Perfetto JSON trace: valid JSON whatever the names hold, and read back
// by gpuwhy's own Kineto importer with the same GPU and runtime events
// (counts, names, streams, start times exact, durations within 1 ns).
#include "report/perfetto/perfetto_renderer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "import/registry.h"

namespace gpuwhy::report {
namespace {

namespace fs = std::filesystem;
const std::string kData = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/";
const fs::path kShared = fs::path(GPUWHY_SOURCE_DIR) / ".." / "shared" / "traces" / "kineto";

std::string Render(const std::vector<model::Trace>& traces) {
  const analysis::Analysis a = analysis::AnalyzeTraces(traces, {});
  std::ostringstream out;
  RenderPerfetto(analysis::BuildPerfettoView(traces, a), out);
  return out.str();
}

model::Trace Import(const std::string& path) {
  Result<model::Trace> t = import::ImportFile(path);
  EXPECT_TRUE(t.ok()) << path << ": " << t.status().message();
  return t.ok() ? std::move(t).value() : model::Trace{};
}

// ReadBack: `json` written to a file and imported again.
model::Trace ReadBack(const std::string& json, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + ".perfetto.json";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << json;
  }
  model::Trace t = Import(path);
  fs::remove(path);
  return t;
}

// Row: one GPU op or API call as the comparison sees it; end is checked
// separately (within 1 ns).
using Key = std::tuple<int64_t, std::string, int64_t, int64_t, int64_t>;  // start, name, dev/pid, stream/tid, corr
struct Row {
  Key key;
  int64_t end_ns;
  bool operator<(const Row& o) const { return key < o.key; }
};

std::vector<Row> Kernels(const model::Trace& t) {
  std::vector<Row> v;
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i)
    v.push_back({{k.start_ns[i], std::string(t.Str(k.name[i])), k.device_id[i], k.stream_id[i],
                  k.correlation_id[i]}, k.end_ns[i]});
  std::sort(v.begin(), v.end());
  return v;
}
std::vector<Row> Memcpys(const model::Trace& t) {
  std::vector<Row> v;
  const auto& m = t.memcpys;
  for (size_t i = 0; i < m.size(); ++i)
    v.push_back({{m.start_ns[i],
                  std::string(model::ToString(m.copy_kind[i])) + "/" +
                      std::string(model::ToString(m.src_kind[i])) + "/" +
                      std::string(model::ToString(m.dst_kind[i])) + "/" + std::to_string(m.bytes[i]),
                  m.device_id[i], m.stream_id[i], m.correlation_id[i]}, m.end_ns[i]});
  std::sort(v.begin(), v.end());
  return v;
}
std::vector<Row> Memsets(const model::Trace& t) {
  std::vector<Row> v;
  const auto& m = t.memsets;
  for (size_t i = 0; i < m.size(); ++i)
    v.push_back({{m.start_ns[i],
                  std::string(model::ToString(m.dst_kind[i])) + "/" + std::to_string(m.bytes[i]),
                  m.device_id[i], m.stream_id[i], m.correlation_id[i]}, m.end_ns[i]});
  std::sort(v.begin(), v.end());
  return v;
}
std::vector<Row> Apis(const model::Trace& t) {
  std::vector<Row> v;
  const auto& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i)
    v.push_back({{a.start_ns[i],
                  std::string(t.Str(a.name[i])) + "/" + std::string(model::ToString(a.kind[i])),
                  a.pid[i], a.tid[i], a.correlation_id[i]}, a.end_ns[i]});
  std::sort(v.begin(), v.end());
  return v;
}

// Collectives: (kernel start, name, message sizes, group, dtype, seq), sorted.
std::vector<std::tuple<int64_t, std::string, int64_t, int64_t, int32_t, std::string, int64_t>>
Collectives(const model::Trace& t) {
  std::vector<std::tuple<int64_t, std::string, int64_t, int64_t, int32_t, std::string, int64_t>> v;
  const auto& c = t.collectives;
  for (size_t i = 0; i < c.size(); ++i)
    v.emplace_back(t.kernels.start_ns[c.kernel_row[i]], std::string(t.Str(c.collective_name[i])),
                   c.in_msg_nelems[i], c.out_msg_nelems[i], c.group_size[i],
                   std::string(t.Str(c.process_group_ranks[i])), c.seq[i]);
  std::sort(v.begin(), v.end());
  return v;
}

void ExpectSameRows(const std::vector<Row>& want, const std::vector<Row>& got, const char* what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(want[i].key, got[i].key) << what << " row " << i;
    ASSERT_LE(std::llabs(want[i].end_ns - got[i].end_ns), 1) << what << " row " << i;
  }
}

// ExpectRoundTrip: the source's GPU ops and API calls survive the export.
void ExpectRoundTrip(const std::string& path, const std::string& name) {
  std::vector<model::Trace> one;
  one.push_back(Import(path));
  const model::Trace& src = one[0];
  ASSERT_GT(src.kernels.size(), 0u);
  const std::string json = Render(one);
  const model::Trace back = ReadBack(json, name);
  ExpectSameRows(Kernels(src), Kernels(back), "kernels");
  ExpectSameRows(Memcpys(src), Memcpys(back), "memcpys");
  ExpectSameRows(Memsets(src), Memsets(back), "memsets");
  ExpectSameRows(Apis(src), Apis(back), "api calls");
  EXPECT_EQ(src.ranges.size(), back.ranges.size());
  EXPECT_EQ(src.syncs.size(), back.syncs.size());
  EXPECT_EQ(Collectives(src), Collectives(back));
  EXPECT_EQ(src.devices.size(), back.devices.size());
  // Flows: one ac2g start per launch that has a GPU op.
  EXPECT_FALSE(src.kernels.size() > 0 && back.info.ac2g_flow_ids.empty());
}

TEST(Perfetto, SyntheticTraceRoundTrips) {
  for (const char* f : {"sync_every_step.pt.trace.json.gz", "dataloader_stall.pt.trace.json.gz",
                        "pageable_h2d.pt.trace.json.gz"}) {
    SCOPED_TRACE(f);
    ExpectRoundTrip(kData + f, f);
  }
}

TEST(Perfetto, RealTracesRoundTrip) {
  const std::vector<std::string> paths = {
      "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
      "kineto_tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
      "hta/trace_filter/sampled_rank-0.json.gz",
      "hta/nccl_parser_config/nccl_data.json.gz",  // collective args
  };
  int ran = 0;
  for (const std::string& p : paths) {
    const fs::path path = kShared / p;
    if (!fs::exists(path)) continue;
    SCOPED_TRACE(p);
    ExpectRoundTrip(path.string(), path.filename().string());
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "SKIPPED: ../shared/traces/kineto not present";
}

// Parsed: the document, or a test failure when it is not JSON.
struct Parsed {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
};

TEST(Perfetto, HostileNamesStayValidJson) {
  const std::vector<std::string> names = {
      "<script>alert(1)</script>", "say \"hi\"", "back\\slash\\", "ctl\x01\x1f\n\t",
      std::string("bad\xff\xfe utf8"), std::string("cut \xe2\x82"), std::string("nul\0in", 6),
      "\xe6\x97\xa5\xe6\x9c\xac kernel"};
  std::vector<model::Trace> traces(1);
  model::Trace& t = traces[0];
  for (size_t i = 0; i < names.size(); ++i) {
    const int64_t s = static_cast<int64_t>(i) * 1000;
    model::ApiRow a;
    a.pid = 1; a.tid = 2; a.start_ns = s; a.end_ns = s + 100;
    a.correlation_id = static_cast<int64_t>(i) + 1;
    a.name = t.strings.Intern(names[i]);
    t.api_calls.Append(a);
    model::KernelRow k;
    k.device_id = 0; k.stream_id = 7; k.start_ns = s + 200; k.end_ns = s + 700;
    k.correlation_id = a.correlation_id;
    k.name = t.strings.Intern(names[i]);
    t.kernels.Append(k);
    model::RangeRow r;
    r.pid = 1; r.tid = 2; r.start_ns = s; r.end_ns = s + 150;
    r.kind = model::RangeKind::kCpuOp;
    r.name = t.strings.Intern(names[i]);
    t.ranges.Append(r);
  }
  t.processes.push_back({1, t.strings.Intern("\"proc\"\\\x02")});
  t.threads.push_back({1, 2, t.strings.Intern("thr\xc3")});
  t.Finalize();
  const std::string json = Render(traces);
  Parsed p;
  ASSERT_EQ(p.parser.parse(json).get(p.doc), simdjson::SUCCESS) << json;
  // The raw markup never appears unescaped inside a string break-out.
  EXPECT_EQ(json.find("\"hi\""), std::string::npos);

  const model::Trace back = ReadBack(json, "hostile");
  ASSERT_EQ(back.kernels.size(), names.size());
  int replaced = 0;
  for (size_t i = 0; i < back.kernels.size(); ++i) {
    const std::string got(back.Str(back.kernels.name[i]));
    const std::string& want = names[static_cast<size_t>(back.kernels.start_ns[i] / 1000)];
    if (got.find("\xEF\xBF\xBD") != std::string::npos) {
      ++replaced;  // invalid UTF-8 became U+FFFD
    } else {
      EXPECT_EQ(got, want);
    }
  }
  EXPECT_EQ(replaced, 2);
}

// CountPhase: events of phase `ph` (and pid range [lo, hi) when given).
int CountPhase(simdjson::dom::element doc, std::string_view ph, int64_t lo = INT64_MIN,
               int64_t hi = INT64_MAX) {
  int n = 0;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view p;
    int64_t pid = 0;
    if (e["ph"].get_string().get(p) != simdjson::SUCCESS || p != ph) continue;
    if (e["pid"].get_int64().get(pid) != simdjson::SUCCESS) continue;
    if (pid >= lo && pid < hi) ++n;
  }
  return n;
}

TEST(Perfetto, SmiLogAloneGivesCounterTracks) {
  std::vector<model::Trace> traces;
  traces.push_back(Import(kData + "with_smi/nvidia_smi.csv"));
  ASSERT_FALSE(traces[0].counters.empty());
  const std::string json = Render(traces);
  Parsed p;
  ASSERT_EQ(p.parser.parse(json).get(p.doc), simdjson::SUCCESS);
  EXPECT_GT(CountPhase(p.doc, "C"), 10);
  EXPECT_EQ(CountPhase(p.doc, "X"), 0);
  EXPECT_NE(json.find("\"process_name\""), std::string::npos);
}

TEST(Perfetto, TpuProcessesAreCalledSo) {
  // A TPU (vendor google) is exported as "TPU N", a GPU as "GPU N".
  std::vector<model::Trace> traces(1);
  model::Trace& t = traces[0];
  t.info.format = "jax-trace-json";
  model::KernelRow k;
  k.stream_id = 1;
  k.start_ns = 1000;
  k.end_ns = 5000;
  k.name = t.strings.Intern("convolution.1");
  k.device_id = 2;
  t.kernels.Append(k);
  k.device_id = 3;
  t.kernels.Append(k);
  t.Finalize();
  for (model::Device& d : t.devices)
    if (d.device_id == 2) d.vendor = model::Vendor::kGoogle;
  const std::string json = Render(traces);
  EXPECT_NE(json.find("\"TPU 2"), std::string::npos) << json.substr(0, 2000);
  EXPECT_NE(json.find("TPU idle cause (gpuwhy)"), std::string::npos);
  EXPECT_NE(json.find("\"GPU 3"), std::string::npos);
  EXPECT_EQ(json.find("\"GPU 2"), std::string::npos);
}

TEST(Perfetto, RankSetUsesOnePidRangePerRank) {
  std::vector<model::Trace> traces;
  traces.push_back(Import(kData + "multi_rank/rank0.pt.trace.json.gz"));
  traces.push_back(Import(kData + "multi_rank/rank1.pt.trace.json.gz"));
  const std::string json = Render(traces);
  Parsed p;
  ASSERT_EQ(p.parser.parse(json).get(p.doc), simdjson::SUCCESS);
  const int64_t stride = analysis::kRankPidStride;
  const int all = CountPhase(p.doc, "X");
  const int r0 = CountPhase(p.doc, "X", 0, stride), r1 = CountPhase(p.doc, "X", stride, 2 * stride);
  EXPECT_GT(r0, 0);
  EXPECT_GT(r1, 0);
  EXPECT_EQ(r0 + r1, all);
  EXPECT_NE(json.find("(rank 1)"), std::string::npos);
}

TEST(Perfetto, TimestampsAreExactMicroseconds) {
  std::vector<model::Trace> traces(1);
  model::Trace& t = traces[0];
  model::KernelRow k;
  k.device_id = 0; k.stream_id = 7;
  k.start_ns = 1'700'000'000'123'456'789;  // epoch ns: 19 digits, more than a double holds
  k.end_ns = k.start_ns + 1'001;
  k.name = t.strings.Intern("k");
  t.kernels.Append(k);
  t.Finalize();
  const std::string json = Render(traces);
  EXPECT_NE(json.find("\"ts\":1700000000123456.789"), std::string::npos) << json;
  EXPECT_NE(json.find("\"dur\":1.001"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy::report
