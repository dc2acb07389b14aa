// .gwsum summaries (docs/gwsum.md): `gpuwhy analyze *.gwsum` must give the
// report of `gpuwhy analyze` on the raw traces, byte for byte (terminal and
// --json), and bad summaries one error line with exit 2.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "report/gwsum/gwsum_format.h"
#include "synth_trace.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

const std::string kSource = GPUWHY_SOURCE_DIR;
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
  ASSERT_EQ(RunCmd(cli::SummarizeMain, "summarize",
                {kSource + "/tests/data/multi_rank/rank0.pt.trace.json.gz", "-o", path}, &out, &err),
            0)
      << err;
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
  expect_one_line(write("truncated_gzip.gwsum", bytes.substr(0, bytes.size() / 2)), "byte");
  // A bare payload (no gzip) cut short: the payload offset.
  Result<analysis::RankSummary> s = report::ReadRankSummaryFile(good);
  ASSERT_TRUE(s.ok());
  std::string payload;
  {
    std::unique_ptr<InputStream> in = OpenMemoryStream(bytes, "x");
    char buf[4096];
    for (Result<size_t> n = in->Read(buf, sizeof buf); n.ok() && *n > 0; n = in->Read(buf, sizeof buf))
      payload.append(buf, *n);
  }
  ASSERT_GT(payload.size(), 100u);
  expect_one_line(write("truncated_payload.gwsum", payload.substr(0, payload.size() - 7)),
                  "at payload byte");
  std::string future = payload;
  future[8] = 2;  // major version 2
  expect_one_line(write("future.gwsum", future), "format version 2.0 is not supported");
  std::string newer_minor = payload + "appended by 1.1";
  newer_minor[10] = 1;  // minor 1: trailing fields are skipped
  std::string o, e;
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {write("minor.gwsum", newer_minor)}, &o, &e), 0) << e;
  expect_one_line(write("magic.gwsum", "GWSUX" + payload.substr(5)), "bad magic at byte 0");
  // Summaries mixed with raw traces: one line too.
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze",
                {good, kSource + "/tests/data/multi_rank/rank0.pt.trace.json.gz"}, &o, &e),
            2);
  EXPECT_NE(e.find("cannot mix"), std::string::npos) << e;
  // Options that need events: usage error.
  EXPECT_EQ(RunCmd(cli::AnalyzeMain, "analyze", {good, "--compat", "hta"}, &o, &e), 1);
  EXPECT_NE(e.find("need the raw traces"), std::string::npos) << e;
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
