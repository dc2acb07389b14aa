// Loads `gpuwhy analyze --html` pages in headless Chromium and checks what a
// reader would see: no script error or console message, every chart drawn
// (the page counts canvases with pixels into data-charts-drawn), a screenshot
// for review under <build>/browser/, and hostile kernel names rendered as
// text with no element injected.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "synth_trace.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

const char* Chromium() {
  const char* env = getenv("GPUWHY_CHROMIUM");
  if (env != nullptr && *env != '\0') return env;
  return "/usr/bin/chromium";
}

bool HaveChromium() { return access(Chromium(), X_OK) == 0; }

#define SKIP_WITHOUT_CHROMIUM()             \
  if (!HaveChromium())                      \
  GTEST_SKIP() << "SKIPPED: " << Chromium() \
               << " not found (scripts/install_deps.sh --test installs chromium)"

std::string TempDir() {
  std::string t = (fs::temp_directory_path() / "gpuwhy-browser-XXXXXX").string();
  char* d = mkdtemp(t.data());
  return d == nullptr ? std::string() : std::string(d);
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Analyze: `gpuwhy analyze INPUTS --html OUT` in process; returns the exit code.
int Analyze(const std::vector<std::string>& inputs, const std::string& html) {
  std::vector<std::string> args = {"analyze"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  args.push_back("--html");
  args.push_back(html);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  int rc = cli::AnalyzeMain(static_cast<int>(argv.size()), argv.data(), out, err);
  EXPECT_EQ(err.str(), "");
  return rc;
}

struct PageResult {
  std::string dom;
  std::string log;  // Chromium's stderr (console messages appear as CONSOLE lines)
  int rc = -1;
};

// Load: open `html` headless once: dump the DOM after the scripts ran and save
// a 1400x2400 screenshot to <build>/browser/<screenshot_name>.
// `query` is appended to the URL ("?selftest" runs the page's interaction self-test).
PageResult Load(const std::string& html, const std::string& screenshot_name,
                const std::string& query = "") {
  PageResult r;
  std::string profile = TempDir();
  std::string shots = std::string(GPUWHY_BINARY_DIR) + "/browser";
  fs::create_directories(shots);
  std::string log_path = profile + "/chromium.log";
  // The background-networking flags matter: without them Chromium tries to
  // reach Google services and fails on a closed network.
  std::string cmd = std::string("timeout 90 ") + Chromium() +
                    " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                    " --disable-background-networking --disable-component-update"
                    " --disable-sync --disable-extensions --hide-scrollbars"
                    " --enable-logging=stderr --v=0 --virtual-time-budget=1000"
                    " --user-data-dir=" +
                    profile + " --window-size=1400,2400 --screenshot=" + shots + "/" +
                    screenshot_name + " --dump-dom 'file://" + html + query + "' 2>" + log_path;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.dom.append(buf, n);
  r.rc = pclose(p);
  r.log = ReadAll(log_path);
  EXPECT_TRUE(fs::exists(shots + "/" + screenshot_name)) << r.log;
  std::error_code ec;
  fs::remove_all(profile, ec);
  return r;
}

std::string Attr(const std::string& dom, const std::string& name) {
  std::smatch m;
  std::regex re(name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : std::string("(absent)");
}

// ExpectCleanPage: no error, no console line, every chart drawn.
void ExpectCleanPage(const PageResult& r, int min_charts) {
  ASSERT_EQ(r.rc, 0) << r.log;
  ASSERT_FALSE(r.dom.empty()) << r.log;
  EXPECT_EQ(Attr(r.dom, "data-js-errors"), "0") << r.dom.substr(0, 2000);
  std::string charts = Attr(r.dom, "data-charts");
  std::string drawn = Attr(r.dom, "data-charts-drawn");
  EXPECT_EQ(drawn, charts);
  EXPECT_GE(std::atoi(drawn.c_str()), min_charts) << "charts " << charts << " drawn " << drawn;
  EXPECT_EQ(r.dom.find("id=\"js-errors\""), std::string::npos);
  std::istringstream lines(r.log);
  for (std::string line; std::getline(lines, line);)
    EXPECT_EQ(line.find("CONSOLE"), std::string::npos) << line;
}

// WriteRankSet: 8 synthetic rank traces in `dir`; rank 5 computes 40% longer.
void WriteRankSet(const std::string& dir) {
  for (int rank = 0; rank < 8; ++rank) {
    synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kMultiRank);
    p.rank = rank;
    p.world_size = 8;
    p.seed = static_cast<uint64_t>(rank + 1);
    p.steps = 6;
    if (rank == 5) {  // the straggler computes 40% longer
      p.kernel_min_ns = p.kernel_min_ns * 14 / 10;
      p.kernel_max_ns = p.kernel_max_ns * 14 / 10;
    }
    synth::SynthTrace t = synth::Generate(p);
    EXPECT_TRUE(synth::WriteTrace(t.json, dir + "/rank" + std::to_string(rank) + ".json").ok());
  }
}

int64_t FileBytes(const std::string& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? -1 : static_cast<int64_t>(n);
}

// Without a browser: --html writes a page beside the normal report, and an
// unwritable path is exit code 2 with one error line.
TEST(HtmlCli, WritesThePageAndReportsAnUnwritablePath) {
  std::string dir = TempDir();
  synth::SynthTrace t = synth::Generate(synth::DefaultParams(synth::Scenario::kSyncEveryStep));
  ASSERT_TRUE(synth::WriteTrace(t.json, dir + "/t.json").ok());
  ASSERT_EQ(Analyze({dir + "/t.json"}, dir + "/r.html"), 0);
  std::string page = ReadAll(dir + "/r.html");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("id=\"gpuwhy-data\""), std::string::npos);
  std::vector<std::string> args = {"analyze", dir + "/t.json", "--html",
                                   dir + "/no/such/dir/r.html"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  EXPECT_EQ(cli::AnalyzeMain(static_cast<int>(argv.size()), argv.data(), out, err), 2);
  EXPECT_NE(err.str().find("cannot write the HTML report"), std::string::npos) << err.str();
  fs::remove_all(dir);
}

// Without a browser: the rank set's data names the straggler the diagnosis found.
TEST(HtmlCli, RankSetDataMarksTheStraggler) {
  std::string dir = TempDir();
  WriteRankSet(dir);
  ASSERT_EQ(Analyze({dir}, dir + "/r.html"), 0);
  std::string page = ReadAll(dir + "/r.html");
  // The "ranks" array of the data (short: search it, not the whole page).
  size_t at = page.find("\"ranks\":[");
  ASSERT_NE(at, std::string::npos);
  std::string ranks = page.substr(at, page.find(']', at) - at);
  std::smatch m;
  std::regex straggler("\\{[^{}]*\"rank\":([0-9]+)[^{}]*\"straggler\":true\\}");
  ASSERT_TRUE(std::regex_search(ranks, m, straggler)) << ranks;
  EXPECT_EQ(m[1].str(), "5");
  fs::remove_all(dir);
}

TEST(HtmlBrowser, SharedKinetoTrace) {
  SKIP_WITHOUT_CHROMIUM();
  std::string trace = std::string(GPUWHY_SOURCE_DIR) +
                      "/../shared/traces/kineto/kineto_tb_plugin/samples/"
                      "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "SKIPPED: " << trace << " not present";
  std::string dir = TempDir();
  std::string html = dir + "/report.html";
  ASSERT_EQ(Analyze({trace}, html), 0);
  EXPECT_LE(FileBytes(html), 3 * 1024 * 1024);
  PageResult r = Load(html, "shared_kineto.png", "?selftest");
  ExpectCleanPage(r, 4);
  // Wheel zoom moved the device's other charts too; a header click sorted a table.
  EXPECT_EQ(Attr(r.dom, "data-selftest"), "sort,zoom,sync");
  EXPECT_NE(r.dom.find("Findings, ranked by time lost"), std::string::npos);
  fs::remove_all(dir);
}

TEST(HtmlBrowser, EightRankSetMarksTheStraggler) {
  SKIP_WITHOUT_CHROMIUM();
  std::string dir = TempDir();
  WriteRankSet(dir);
  std::string html = dir + "/report.html";
  ASSERT_EQ(Analyze({dir}, html), 0);
  PageResult r = Load(html, "rank_set.png");
  ExpectCleanPage(r, 9);
  EXPECT_NE(r.dom.find("Ranks: step time and idle per step"), std::string::npos);
  EXPECT_NE(r.dom.find("rank 5 ◀ straggler"), std::string::npos);
  fs::remove_all(dir);
}

TEST(HtmlBrowser, NvidiaSmiLogDrawsTheCounterChart) {
  SKIP_WITHOUT_CHROMIUM();
  std::string dir = TempDir();
  synth::SynthTrace t = synth::Generate(synth::DefaultParams(synth::Scenario::kDataloaderStall));
  synth::SmiLogParams sp;
  std::ofstream(dir + "/gpu.csv") << synth::SmiLog(t, sp);
  std::string html = dir + "/report.html";
  ASSERT_EQ(Analyze({dir + "/gpu.csv"}, html), 0);
  PageResult r = Load(html, "nvidia_smi.png");
  ExpectCleanPage(r, 1);
  EXPECT_NE(r.dom.find("Sampled counters: GPU-Util vs SM activity"), std::string::npos);
  fs::remove_all(dir);
}

// A script's own CSV is read by column meaning; the page says how each
// column was read, as the terminal and JSON reports do.
TEST(HtmlBrowser, ScriptCsvShowsHowColumnsWereRead) {
  SKIP_WITHOUT_CHROMIUM();
  std::string dir = TempDir();
  {
    std::ofstream f(dir + "/gpu_log.csv");
    f << "time,util,watts\n";
    for (int i = 0; i < 60; ++i) f << 1767607200 + i << ',' << (i % 2 ? 95 : 5) << ",200\n";
  }
  std::string html = dir + "/report.html";
  ASSERT_EQ(Analyze({dir + "/gpu_log.csv"}, html), 0);
  PageResult r = Load(html, "script_csv.png");
  ExpectCleanPage(r, 1);
  EXPECT_NE(r.dom.find("read: `util` read as GPU utilization"), std::string::npos)
      << r.dom.substr(0, 3000);
  fs::remove_all(dir);
}

TEST(HtmlBrowser, HostileKernelNamesStayText) {
  SKIP_WITHOUT_CHROMIUM();
  std::string dir = TempDir();
  synth::ScenarioParams p = synth::DefaultParams(synth::Scenario::kHealthy);
  p.kernel_mix = {{"<script>alert(1)</script>", false, false},
                  {"\"><img src=x onerror=alert(1)>", false, false},
                  {"it's a \"quoted\" & </script><!-- kernel \u2028", false, false}};
  synth::SynthTrace t = synth::Generate(p);
  ASSERT_TRUE(synth::WriteTrace(t.json, dir + "/evil.json").ok());
  std::string html = dir + "/report.html";
  ASSERT_EQ(Analyze({dir + "/evil.json"}, html), 0);
  std::string page = ReadAll(html);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  PageResult r = Load(html, "hostile_names.png");
  ExpectCleanPage(r, 3);
  // The names are in the DOM as text (serialized escaped), and no element was made.
  EXPECT_NE(r.dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(r.dom.find("\"&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(r.dom.find("it's a \"quoted\" &amp; &lt;/script&gt;&lt;!-- kernel"), std::string::npos);
  EXPECT_EQ(r.dom.find("<img"), std::string::npos);
  size_t scripts = 0;
  for (size_t at = r.dom.find("<script"); at != std::string::npos;
       at = r.dom.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);  // data, uPlot, report: nothing injected
  fs::remove_all(dir);
}

// `gpuwhy diff --html`: the comparison page draws its chart and tables, cleanly.
TEST(HtmlBrowser, DiffPage) {
  SKIP_WITHOUT_CHROMIUM();
  const std::string data = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/";
  const std::string html = TempDir() + "/diff.html";
  std::vector<std::string> args = {"gpuwhy diff", "--html", html,
                                   data + "dataloader_stall.pt.trace.json.gz",
                                   data + "healthy.pt.trace.json.gz"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  ASSERT_EQ(cli::DiffMain(static_cast<int>(argv.size()), argv.data(), out, err), 0) << err.str();
  PageResult r = Load(html, "diff.png");
  ExpectCleanPage(r, 1);
  EXPECT_NE(r.dom.find("DataLoader wait resolved"), std::string::npos);
  EXPECT_NE(r.dom.find("data_loading.dataloader"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy
