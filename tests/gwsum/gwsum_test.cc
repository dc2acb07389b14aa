// .gwsum summaries (docs/gwsum.md): `gpuwhy analyze *.gwsum` must give the
// report of `gpuwhy analyze` on the raw traces, byte for byte (terminal and
// --json), and bad summaries one error line with exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/commands.h"
#include "base/input_stream.h"
#include "base/gzip_writer.h"
#include "report/gwsum/gwsum_dictionary.h"
#include "report/gwsum/gwsum_format.h"
#include "synth_trace.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

const std::string kSource = GPUWHY_SOURCE_DIR;
// The frozen version 2 dictionary (report/gwsum/gwsum_dictionary.h).
constexpr size_t kDictionaryBytes = 21894;
constexpr uint32_t kDictionaryCrc32 = 396787441;
constexpr const char* kDlrmDir = "traces/kineto/param/et_replay/tests/inputs/dlrm_kineto";

using MainFn = int (*)(int, char**, std::ostream&, std::ostream&);

int RunCmd(MainFn fn, const std::string& name, std::vector<std::string> args, std::string* out,
        std::string* err) {
  std::string argv0 = "gpuwhy " + name;
  std::vector<char*> argv = {argv0.data()};
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  const int rc = fn(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

std::string Dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/gwsum_" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// SummarizeAll: one .gwsum per trace into `dir`; the summary paths in order.
std::vector<std::string> SummarizeAll(const std::vector<std::string>& traces, const std::string& dir) {
  std::vector<std::string> out;
  for (size_t i = 0; i < traces.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "rank%04zu.gwsum", i);
    const std::string path = dir + "/" + name;
    std::string o, e;
    EXPECT_EQ(RunCmd(cli::SummarizeMain, "summarize", {traces[i], "-o", path}, &o, &e), 0) << e;
    EXPECT_NE(o.find("wrote " + path), std::string::npos) << o;
    out.push_back(path);
  }
  return out;
}

// ExpectSameReports: analyze of `raw` and of `sums` give equal terminal and JSON reports.
void ExpectSameReports(const std::vector<std::string>& raw, const std::vector<std::string>& sums) {
  for (bool json : {false, true}) {
    std::vector<std::string> a = raw, b = sums;
    if (json) {
      a.push_back("--json");
      b.push_back("--json");
    }
    std::string ra, rb, ea, eb;
    ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", a, &ra, &ea), 0) << ea;
    ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", b, &rb, &eb), 0) << eb;
    EXPECT_TRUE(eb.empty()) << eb;
    EXPECT_EQ(ra, rb) << (json ? "--json" : "terminal") << " reports differ";
  }
}

// SynthRanks: `n` multi-rank traces of one job; the last rank computes
// longer (a straggler) and every rank waits for a DataLoader at each step
// start (all ranks idle together), so both cross-rank findings fire.
std::vector<std::string> SynthRanks(int n, const std::string& dir) {
  std::vector<std::string> paths;
  for (int r = 0; r < n; ++r) {
    synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kMultiRank);
    p.rank = r;
    p.world_size = n;
    p.seed = 7 + static_cast<uint64_t>(r);
    p.dataloader_ns = 4'000'000;
    if (r == n - 1) {
      p.kernel_min_ns *= 2;
      p.kernel_max_ns *= 2;
    }
    const std::string path = dir + "/rank" + std::to_string(r) + ".pt.trace.json.gz";
    EXPECT_TRUE(synth::WriteTrace(synth::Generate(p).json, path).ok());
    paths.push_back(path);
  }
  return paths;
}

TEST(Gwsum, SyntheticRankSetSameReportAsRawTraces) {
  const std::string dir = Dir("synth");
  const std::vector<std::string> raw = SynthRanks(4, dir);
  const std::vector<std::string> sums = SummarizeAll(raw, Dir("synth_sums"));
  ExpectSameReports(raw, sums);
  // The cross-rank findings are really exercised (computed from the summaries).
  std::string out, err;
  std::vector<std::string> args = sums;
  args.push_back("--json");
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", args, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"imbalance.stragglers\""), std::string::npos);
  EXPECT_NE(out.find("\"imbalance.slow_host\""), std::string::npos);
  // A folder of summaries is the same rank set.
  std::string out_dir;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {::testing::TempDir() + "/gwsum_synth_sums", "--json"},
                &out_dir, &err),
            0)
      << err;
  EXPECT_EQ(out_dir, out);
}

TEST(Gwsum, FolderOfSummariesAndSingleRank) {
  const std::string dir = Dir("folder");
  const std::vector<std::string> raw = SynthRanks(2, dir);
  const std::string sdir = Dir("folder_sums");
  const std::vector<std::string> sums = SummarizeAll(raw, sdir);
  std::string a, b, e;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {dir, "--json"}, &a, &e), 0) << e;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {sdir, "--json"}, &b, &e), 0) << e;
  EXPECT_EQ(a, b);
  // One rank alone, and a single-trace fixture without rank info.
  ExpectSameReports({raw[0]}, {sums[0]});
  const std::vector<std::string> one =
      SummarizeAll({kSource + "/tests/data/dataloader_stall.pt.trace.json.gz"}, Dir("one"));
  ExpectSameReports({kSource + "/tests/data/dataloader_stall.pt.trace.json.gz"}, one);
}

// Traces without rank numbers are numbered by input position in both paths.
TEST(Gwsum, RanklessTracesNumberedByPosition) {
  const std::vector<std::string> raw = {kSource + "/tests/data/sync_every_step.pt.trace.json.gz",
                                        kSource + "/tests/data/fragmented.pt.trace.json.gz",
                                        kSource + "/tests/data/healthy.pt.trace.json.gz"};
  ExpectSameReports(raw, SummarizeAll(raw, Dir("rankless")));
}

TEST(Gwsum, EncodeDecodeRoundTrip) {
  std::string out, err;
  const std::string path = Dir("rt") + "/r.gwsum";
  // A synthetic rank with DataLoader waits: idle gaps the summary keeps.
  const std::vector<std::string> raw = SynthRanks(2, Dir("rt_src"));
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize", {raw[0], "-o", path}, &out, &err), 0) << err;
  Result<analysis::RankSummary> a = report::ReadRankSummaryFile(path);
  ASSERT_TRUE(a.ok()) << a.status().message();
  Result<std::string> bytes = report::EncodeRankSummary(*a);
  ASSERT_TRUE(bytes.ok());
  Result<analysis::RankSummary> b = report::DecodeRankSummary(*bytes, "mem");
  ASSERT_TRUE(b.ok()) << b.status().message();
  Result<std::string> again = report::EncodeRankSummary(*b);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*bytes, *again);
  ASSERT_TRUE(a->digest.primary.has_value());
  EXPECT_FALSE(a->digest.primary->idle.empty());
  EXPECT_EQ(a->digest.trace_rank, 0);
}

// Bad summaries: exit 2, one line naming the file and the byte offset.
// Le: `n` bytes of `v`, little-endian (the header's integers).
std::string Le(uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// V2File: a version 2 file around `body` (the format's header, then the body
// deflated with the dictionary), as a writer of that version would make it.
std::string V2File(uint16_t major, uint16_t minor, const std::string& body) {
  Result<std::string> z = DeflateWithDictionary(body, report::GwsumDictionaryV2());
  EXPECT_TRUE(z.ok());
  return std::string(report::kGwsumMagic) + Le(major, 2) + Le(minor, 2) + Le(body.size(), 4) +
         Le(Crc32(body), 4) + *z;
}

TEST(Gwsum, TruncatedCorruptAndFutureVersions) {
  const std::string dir = Dir("bad");
  std::string out, err;
  const std::string good = dir + "/good.gwsum";
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize",
                {kSource + "/tests/data/multi_rank/rank1.pt.trace.json.gz", "-o", good}, &out, &err),
            0);
  std::ifstream f(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string& name, const std::string& data) {
    const std::string p = dir + "/" + name;
    std::ofstream o(p, std::ios::binary);
    o << data;
    return p;
  };
  auto expect_one_line = [&](const std::string& path, const std::string& needle) {
    std::string o, e;
    EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {path}, &o, &e), 2) << path;
    EXPECT_TRUE(o.empty());
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    EXPECT_NE(e.find(path), std::string::npos) << e;
    EXPECT_NE(e.find(needle), std::string::npos) << e;
  };
  std::string good_report, e;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {good, "--json"}, &good_report, &e), 0) << e;
  // --threads changes nothing in the summary.
  const std::string one = dir + "/one_thread.gwsum";
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize",
                {kSource + "/tests/data/multi_rank/rank1.pt.trace.json.gz", "-o", one, "--threads", "1"},
                &out, &err),
            0) << err;
  {
    std::ifstream g(one, std::ios::binary);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>()), bytes);
  }

  // Version 2 (what summarize writes): magic, 2.1, body length and CRC, deflate.
  ASSERT_GT(bytes.size(), 40u);
  ASSERT_EQ(bytes.substr(0, 8), report::kGwsumMagic);
  ASSERT_EQ(bytes.substr(8, 4), Le(2, 2) + Le(1, 2));
  const uint32_t body_bytes = static_cast<uint32_t>(static_cast<uint8_t>(bytes[12])) |
                              static_cast<uint32_t>(static_cast<uint8_t>(bytes[13])) << 8 |
                              static_cast<uint32_t>(static_cast<uint8_t>(bytes[14])) << 16 |
                              static_cast<uint32_t>(static_cast<uint8_t>(bytes[15])) << 24;
  Result<std::string> body = InflateWithDictionary(bytes.substr(20), report::GwsumDictionaryV2(),
                                                   body_bytes, "good", 20);
  ASSERT_TRUE(body.ok()) << body.status().message();
  // The writer's own bytes come back from the same body.
  EXPECT_EQ(V2File(2, 1, *body), bytes);
  // 2.0 (without the fields 2.1 appends: here no import note, not host-only
  // and no measured kernels, so the body's last 15 bytes: four zero varints,
  // the missing host step mean's 10 and an absent optional) reads, with the
  // same report.
  {
    std::string o20;
    ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze",
                     {write("v20.gwsum", V2File(2, 0, body->substr(0, body->size() - 15))), "--json"},
                     &o20, &e),
              0) << e;
    EXPECT_EQ(o20.substr(o20.find("\"traces\"")), good_report.substr(good_report.find("\"traces\"")));
  }
  expect_one_line(write("truncated.gwsum", bytes.substr(0, bytes.size() / 2)),
                  "truncated deflate stream at byte");
  // A body cut short (and re-deflated, so the container is sound): the body's own offset.
  expect_one_line(write("short_body.gwsum", V2File(2, 1, body->substr(0, body->size() - 7))),
                  "at payload byte");
  expect_one_line(write("trailing.gwsum", V2File(2, 1, *body + "xyz")), "3 trailing bytes");
  expect_one_line(write("future.gwsum", V2File(3, 0, *body)), "format version 3.0 is not supported");
  // A newer minor version appends fields: skipped, same report.
  std::string o;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {write("minor.gwsum", V2File(2, 2, *body + "new field")),
                "--json"}, &o, &e), 0) << e;
  EXPECT_EQ(o.substr(o.find("\"traces\"")), good_report.substr(good_report.find("\"traces\"")));
  expect_one_line(write("magic.gwsum", "GWSUX" + bytes.substr(5)), "bad magic at byte 0");

  // Version 1 (earlier gpuwhy): gzip around the header and the fields, and
  // the bare payload. Both read, with the same report.
  Result<analysis::RankSummary> s = report::ReadRankSummaryFile(good);
  ASSERT_TRUE(s.ok());
  Result<std::string> v1 = report::EncodeRankSummaryVersion1(*s);
  ASSERT_TRUE(v1.ok());
  std::string payload;
  {
    std::unique_ptr<InputStream> in = OpenMemoryStream(*v1, "x");
    char buf[4096];
    for (Result<size_t> n = in->Read(buf, sizeof buf); n.ok() && *n > 0; n = in->Read(buf, sizeof buf))
      payload.append(buf, *n);
  }
  ASSERT_GT(payload.size(), 100u);
  ASSERT_EQ(payload.substr(8, 4), Le(1, 2) + Le(0, 2));
  for (const auto& [name, data] : {std::pair{"v1.gwsum", *v1}, std::pair{"v1_bare.gwsum", payload}}) {
    std::string r1;
    ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {write(name, data), "--json"}, &r1, &e), 0) << e;
    EXPECT_EQ(r1.substr(r1.find("\"traces\"")), good_report.substr(good_report.find("\"traces\"")))
        << name;
  }
  // Version 1 is bigger: every double takes 8 bytes, and no dictionary.
  EXPECT_LT(bytes.size(), v1->size());
  expect_one_line(write("truncated_gzip.gwsum", v1->substr(0, v1->size() / 2)), "byte");
  expect_one_line(write("truncated_payload.gwsum", payload.substr(0, payload.size() - 7)),
                  "at payload byte");
  std::string newer_minor = payload + "appended by 1.1";
  newer_minor[10] = 1;  // minor 1: trailing fields are skipped
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {write("minor_v1.gwsum", newer_minor)}, &o, &e), 0) << e;

  // Summaries mixed with raw traces: one line too.
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze",
                {good, kSource + "/tests/data/multi_rank/rank0.pt.trace.json.gz"}, &o, &e),
            2);
  EXPECT_NE(e.find("cannot mix"), std::string::npos) << e;
  // Options that need events: usage error.
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {good, "--compat", "hta"}, &o, &e), 1);
  EXPECT_NE(e.find("need the raw traces"), std::string::npos) << e;
}

// A host-only profile (PyTorch's legacy profiler without CUDA) keeps, through
// a summary, its import note and its verdict: a CPU-only run with its steps,
// never an idle GPU (the fields version 2.1 appends).
TEST(Gwsum, HostOnlyProfileAndImportNotesSurviveTheSummary) {
  const std::string dir = Dir("host_only");
  std::string trace = "[";
  for (int i = 0; i < 3; ++i) {
    const std::string ts = std::to_string(1000 + i * 40000);
    trace += R"({"name":"ProfilerStep#)" + std::to_string(i + 1) + R"(","ph":"X","ts":)" + ts +
             R"(,"dur":38000,"tid":1,"pid":"CPU functions","args":{}},)";
    trace += R"({"name":"aten::mm","ph":"X","ts":)" + ts + R"(,"dur":30000,"tid":1,"pid":"CPU functions","args":{}},)";
  }
  trace += "{}]";
  const std::string raw = dir + "/legacy.json", sum = dir + "/legacy.gwsum";
  std::ofstream(raw) << trace;
  std::string out, err, from_raw, from_sum;
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize", {raw, "-o", sum}, &out, &err), 0) << err;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {raw, "--json"}, &from_raw, &err), 0) << err;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {sum, "--json"}, &from_sum, &err), 0) << err;
  for (const std::string* j : {&from_raw, &from_sum}) {
    EXPECT_NE(j->find("\"import_notes\""), std::string::npos) << *j;
    EXPECT_NE(j->find("PyTorch legacy autograd profiler"), std::string::npos);
    EXPECT_NE(j->find("\"host_only_profile\": true"), std::string::npos);
    EXPECT_NE(j->find("CPU-only run"), std::string::npos);
  }
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {sum}, &out, &err), 0) << err;
  EXPECT_NE(out.find("CPU-only run: the profiler recorded host activity only (3 steps"), std::string::npos) << out;
}

// An Nsight Compute report's per-kernel bound table (measured figures, no
// timeline) is kept in its summary (version 2.1) and printed from it.
TEST(Gwsum, KernelProfilerBoundTableSurvivesTheSummary) {
  const std::string dir = Dir("ncu");
  std::string page =
      R"q("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","gpu__time_duration.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","dram__cycles_active.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","sm__maximum_warps_per_active_cycle_pct")q"
      "\n"
      R"q("","","","","","","","","","","","ms","%","%","%","%","%")q"
      "\n"
      R"q("0","42","python","host","void add<float>(float*, int)","1","7","(256, 1, 1)","(1024, 2, 1)","0","9.0","1.5","12.5","91.0","90.5","40.25","100")q"
      "\n"
      R"q("1","42","python","host","gemm(int)","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","0.25","85.0","30.0","n/a","12.5","50")q"
      "\n";
  const std::string raw = dir + "/k.raw.csv", sum = dir + "/k.gwsum";
  std::ofstream(raw) << page;
  std::string out, err, from_raw, from_sum;
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize", {raw, "-o", sum}, &out, &err), 0) << err;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {raw}, &from_raw, &err), 0) << err;
  ASSERT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {sum}, &from_sum, &err), 0) << err;
  for (const std::string* o : {&from_raw, &from_sum}) {
    EXPECT_NE(o->find("kernels measured (ncu): 2 launches"), std::string::npos) << *o;
    EXPECT_NE(o->find("void add<float>(float*, int)    memory  12%  91%  90%  40% 100%"), std::string::npos)
        << *o;
    EXPECT_NE(o->find("gemm(int)                      compute  85%  30%  n/a  12%  50%"), std::string::npos);
  }
}

// The version 2 dictionary is frozen: every version 2 file depends on its
// exact bytes. A new dictionary needs a new major version.
TEST(Gwsum, DictionaryIsFrozenWithVersion2) {
  const std::string_view d = report::GwsumDictionaryV2();
  EXPECT_EQ(d.size(), kDictionaryBytes);
  EXPECT_EQ(Crc32(d), kDictionaryCrc32);
  EXPECT_LE(d.size(), 32768u);  // deflate's window: more would never be used
}

// Doubles of every kind survive the round trip bit for bit, and utilization
// samples are stored as whole nanoseconds only when that gives the same double.
TEST(Gwsum, DoublesAndSamplesRoundTripBitForBit) {
  analysis::RankSummary r;
  analysis::DeviceUtilization du;
  analysis::UtilSeries series;
  series.label = "fine";
  series.period_ns = 1'200'000;
  series.start_ns = 5;
  const double neg_nan = -std::numeric_limits<double>::quiet_NaN();
  series.util_ratio = {0.0, 1.0, 600'000.0 / 1'200'000.0, 123'456.0 / 1'200'000.0, kMissingF64,
                       neg_nan, -0.0, 0.1, 1e-300, 2.5, std::numeric_limits<double>::infinity(),
                       777.0 / 1'000.0 /* a partial last bin: not n / period */};
  series.mean_ratio = 0.3333333333333333;
  du.series.push_back(series);
  analysis::UtilSeries no_period = series;
  no_period.period_ns = kMissingI64;
  du.series.push_back(no_period);
  du.sm_fill_verdict_ratio = -0.0;
  du.triton_share = 4.0;
  du.graph_share = -9007199254740992.0;  // -2^53: the largest integer stored as one
  du.occupancy_coverage = 9007199254740994.0;  // 2^53 + 2: stored raw
  r.analysis.utilization.devices.push_back(du);
  Result<std::string> bytes = report::EncodeRankSummary(r);
  ASSERT_TRUE(bytes.ok());
  Result<analysis::RankSummary> back = report::DecodeRankSummary(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->analysis.utilization.devices.size(), 1u);
  const analysis::DeviceUtilization& b = back->analysis.utilization.devices[0];
  auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  ASSERT_EQ(b.series.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(b.series[k].util_ratio.size(), series.util_ratio.size());
    for (size_t i = 0; i < series.util_ratio.size(); ++i)
      EXPECT_TRUE(same(b.series[k].util_ratio[i], series.util_ratio[i])) << k << " " << i;
    EXPECT_TRUE(same(b.series[k].mean_ratio, series.mean_ratio));
  }
  EXPECT_TRUE(same(b.sm_fill_verdict_ratio, -0.0));
  EXPECT_TRUE(same(b.triton_share, 4.0));
  EXPECT_TRUE(same(b.graph_share, du.graph_share));
  EXPECT_TRUE(same(b.occupancy_coverage, du.occupancy_coverage));
  EXPECT_TRUE(std::isnan(b.sm_fill_active_ratio));  // missing stays missing
  // Version 1 carries the same values.
  Result<std::string> v1 = report::EncodeRankSummaryVersion1(r);
  ASSERT_TRUE(v1.ok());
  Result<analysis::RankSummary> back1 = report::DecodeRankSummary(*v1, "mem1");
  ASSERT_TRUE(back1.ok()) << back1.status().message();
  Result<std::string> again = report::EncodeRankSummary(*back1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);
}

// The shared 8-rank DLRM set: 8 raw traces against their 8 summaries, and
// each summary's size against its trace (recorded in docs/gwsum.md).
TEST(Gwsum, DlrmEightRanksSameReportAsRawTraces) {
  const std::string shared = kSource + "/../shared/" + kDlrmDir;
  if (!fs::exists(shared)) GTEST_SKIP() << "SKIPPED: ../shared/" << kDlrmDir << " not present";
  std::vector<std::string> raw;
  for (const auto& e : fs::directory_iterator(shared))
    if (e.path().filename().string().starts_with("worker")) raw.push_back(e.path().string());
  std::sort(raw.begin(), raw.end());
  ASSERT_EQ(raw.size(), 8u);
  const std::vector<std::string> sums = SummarizeAll(raw, Dir("dlrm"));
  int64_t raw_bytes = 0, sum_bytes = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto t = static_cast<int64_t>(fs::file_size(raw[i]));
    const auto s = static_cast<int64_t>(fs::file_size(sums[i]));
    raw_bytes += t;
    sum_bytes += s;
    EXPECT_LT(s * 100, t) << sums[i] << " is not under 1% of its trace";
  }
  std::printf("dlrm 8 ranks: traces %lld bytes, summaries %lld bytes, ratio %.4f%%\n",
              static_cast<long long>(raw_bytes), static_cast<long long>(sum_bytes),
              100.0 * static_cast<double>(sum_bytes) / static_cast<double>(raw_bytes));
  ExpectSameReports(raw, sums);
}

// deploy/: the Slurm array script parses (bash -n) and holds the steps the
// README describes; the Kubernetes manifest has the Indexed Job keys.
TEST(Gwsum, DeployExamplesStructure) {
  const std::string sbatch = kSource + "/deploy/slurm/summarize_array.sbatch";
  const std::string merge = kSource + "/deploy/slurm/merge.sbatch";
  for (const std::string& p : {sbatch, merge}) {
    ASSERT_TRUE(fs::exists(p)) << p;
    EXPECT_EQ(std::system(("bash -n '" + p + "'").c_str()), 0) << p;
  }
  auto slurp = [](const std::string& p) {
    std::ifstream f(p);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string s = slurp(sbatch);
  for (const char* needle : {"#SBATCH --array=", "SLURM_ARRAY_TASK_ID", "\"$GPUWHY\" summarize",
                             "--dependency=afterok:", "merge.sbatch"})
    EXPECT_NE(s.find(needle), std::string::npos) << needle;
  EXPECT_NE(slurp(merge).find("\"$GPUWHY\" analyze \"$out_dir\""), std::string::npos);
  const std::string k = slurp(kSource + "/deploy/kubernetes/summarize-indexed-job.yaml");
  for (const char* needle : {"kind: Job", "completionMode: Indexed", "completions:", "parallelism:",
                             "JOB_COMPLETION_INDEX", "gpuwhy summarize", "gpuwhy analyze",
                             "---"})
    EXPECT_NE(k.find(needle), std::string::npos) << needle;
  EXPECT_TRUE(fs::exists(kSource + "/deploy/README.md"));
}

}  // namespace
}  // namespace gpuwhy
