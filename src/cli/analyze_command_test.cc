#include "cli/analyze_command.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "import/registry.h"

namespace gpuwhy::cli {
namespace {

const std::string kData = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/";

int RunAnalyze(std::vector<std::string> args, std::string* out, std::string* err) {
  std::string argv0 = "gpuwhy analyze";
  std::vector<char*> argv = {argv0.data()};
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  int rc = AnalyzeMain(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

TEST(AnalyzeMain, TopLimitsTheKernelTable) {
  std::string out, err;
  ASSERT_EQ(RunAnalyze({"--top", "0", kData + "multi_rank/rank0.pt.trace.json.gz"}, &out, &err), 0)
      << err;
  EXPECT_TRUE(err.empty());
  EXPECT_NE(out.find("(2 other names)"), std::string::npos) << out;
  ASSERT_EQ(RunAnalyze({"--top", "1", "--json", kData + "multi_rank/rank0.pt.trace.json.gz"}, &out,
                &err),
            0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array top;
  ASSERT_EQ(doc["traces"].at(0)["devices"].at(0)["kernels"]["top"].get_array().get(top),
            simdjson::SUCCESS);
  EXPECT_EQ(top.size(), 1u);  // the NCCL kernel is beyond --top 1
  std::string_view name;
  ASSERT_EQ(top.at(0)["name"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_TRUE(name.starts_with("sm90_xmma_gemm")) << name;
}

// --perfetto FILE writes a Chrome JSON trace beside the report; a trace plus
// its nvidia-smi log gives the log's counters on the trace's GPU; an
// unwritable path is exit 2 with one line.
TEST(AnalyzeMain, PerfettoWritesATrace) {
  const std::string path = ::testing::TempDir() + "/analyze_perfetto.json";
  std::string out, err;
  ASSERT_EQ(RunAnalyze({"--perfetto", path, kData + "with_smi/dataloader.pt.trace.json.gz",
                        kData + "with_smi/nvidia_smi.csv"},
                       &out, &err),
            0)
      << err;
  EXPECT_FALSE(out.empty());  // the report is still printed
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(path).get(doc), simdjson::SUCCESS);
  int kernels = 0, counters = 0, idle = 0, findings = 0;
  bool smi = false;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view ph, cat, name;
    if (e["ph"].get_string().get(ph) != simdjson::SUCCESS) continue;
    if (e["cat"].get_string().get(cat) != simdjson::SUCCESS) cat = "";
    if (e["name"].get_string().get(name) != simdjson::SUCCESS) name = "";
    kernels += ph == "X" && cat == "kernel";
    counters += ph == "C";
    idle += ph == "X" && cat == "gpuwhy_idle";
    findings += ph == "i" && cat == "gpuwhy_finding";
    smi = smi || (ph == "C" && name.find("nvidia-smi") != std::string_view::npos);
  }
  EXPECT_GT(kernels, 0);
  EXPECT_GT(counters, 0);
  EXPECT_GT(idle, 0);
  EXPECT_GT(findings, 0);
  EXPECT_TRUE(smi);
  std::filesystem::remove(path);

  EXPECT_EQ(RunAnalyze({"--perfetto", "/nonexistent-dir/x.json", kData + "healthy.pt.trace.json.gz"},
                       &out, &err),
            2);
  EXPECT_NE(err.find("cannot write the Perfetto trace"), std::string::npos) << err;
}

// --compat takes one (comma-separated) token per occurrence: files after it
// stay positional.
TEST(AnalyzeMain, CompatDoesNotSwallowFiles) {
  std::string out, err;
  ASSERT_EQ(RunAnalyze({"--compat", "tbplugin,hta,nsys", kData + "healthy.pt.trace.json.gz",
                        kData + "fragmented.pt.trace.json.gz"},
                       &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("healthy.pt.trace.json.gz"), std::string::npos);
  EXPECT_NE(out.find("fragmented.pt.trace.json.gz"), std::string::npos);
  ASSERT_EQ(RunAnalyze({"--json", "--compat", "tbplugin", "--compat", "nsys",
                        kData + "healthy.pt.trace.json.gz"},
                       &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("\"compat\""), std::string::npos);
  EXPECT_NE(out.find("\"nsys_compat\""), std::string::npos);
  EXPECT_EQ(RunAnalyze({"--compat", "bogus", kData + "healthy.pt.trace.json.gz"}, &out, &err), 1);
}

// A trace and the nvidia-smi log of the same run (tests/data/with_smi, log in
// UTC+8 local time) become one analyzed trace with the log's counters.
TEST(AnalyzeMain, TraceAndSmiLogMerge) {
  std::string out, err;
  ASSERT_EQ(RunAnalyze({"--json", kData + "with_smi"}, &out, &err), 0) << err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array traces;
  ASSERT_EQ(doc["traces"].get_array().get(traces), simdjson::SUCCESS);
  ASSERT_EQ(traces.size(), 1u);
  simdjson::dom::array merged;
  ASSERT_EQ(traces.at(0)["input"]["merged_inputs"].get_array().get(merged), simdjson::SUCCESS);
  ASSERT_EQ(merged.size(), 1u);
  std::string_view note;
  ASSERT_EQ(merged.at(0).get_string().get(note), simdjson::SUCCESS);
  EXPECT_NE(note.find("-8 h"), std::string_view::npos) << note;
  simdjson::dom::array counters;
  ASSERT_EQ(traces.at(0)["devices"].at(0)["counters"].get_array().get(counters), simdjson::SUCCESS);
  EXPECT_GE(counters.size(), 1u);
  int64_t ranks = 0;
  ASSERT_EQ(traces.at(0)["diagnosis"]["rank_count"].get_int64().get(ranks), simdjson::SUCCESS);
  EXPECT_EQ(ranks, 1);
}

TEST(AnalyzeMain, OutputFileAndFolderInput) {
  std::string path = std::string(GPUWHY_BINARY_DIR) + "/analyze_command_test_out.json";
  std::string out, err;
  ASSERT_EQ(RunAnalyze({"--json", "-o", path, kData + "multi_rank"}, &out, &err), 0) << err;
  EXPECT_TRUE(out.empty());
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  EXPECT_NE(text.find("rank0.pt.trace.json.gz"), std::string::npos);
  EXPECT_NE(text.find("rank1.pt.trace.json.gz"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(AnalyzeMain, BadInputIsExit2WithOneLineAndNoReport) {
  std::string out, err;
  EXPECT_EQ(RunAnalyze({kData + "healthy.pt.trace.json.gz", kData + "bad/truncated.pt.trace.json"},
                &out, &err),
            2);
  EXPECT_TRUE(out.empty()) << out;
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  EXPECT_NE(err.find("truncated.pt.trace.json"), std::string::npos) << err;
}

TEST(AnalyzeMain, UsageErrorsAreExit1AndHelpIsExit0) {
  std::string out, err;
  EXPECT_EQ(RunAnalyze({}, &out, &err), 1);
  EXPECT_NE(err.find("Usage"), std::string::npos);
  EXPECT_EQ(RunAnalyze({"--top", "x", kData + "healthy.pt.trace.json.gz"}, &out, &err), 1);
  EXPECT_EQ(RunAnalyze({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("--json"), std::string::npos);
}

// --threads sets the Kineto parser threads; the report is the same for any
// value (the fragmented fixture is 1.96 MB of JSON: two 1 MiB segments).
TEST(AnalyzeMain, ThreadsOptionKeepsTheReport) {
  const std::string trace = kData + "fragmented.pt.trace.json.gz";
  std::string base, out, err;
  ASSERT_EQ(RunAnalyze({"--json", trace}, &base, &err), 0) << err;
  for (const char* n : {"1", "2", "3", "0"}) {
    ASSERT_EQ(RunAnalyze({"--json", "--threads", n, trace}, &out, &err), 0) << err;
    EXPECT_EQ(out, base) << "--threads " << n;
  }
  EXPECT_EQ(RunAnalyze({"--threads", "-1", trace}, &out, &err), 1);
  EXPECT_NE(err.find("--threads"), std::string::npos) << err;
  EXPECT_EQ(RunAnalyze({"--threads", "65", trace}, &out, &err), 1);
}

TEST(AnalyzeAndRender, SameReportAsTheCommand) {
  std::string path = kData + "sync_every_step.pt.trace.json.gz";
  Result<model::Trace> t = import::ImportFile(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<model::Trace> traces;
  traces.push_back(std::move(t).value());
  std::ostringstream os;
  AnalyzeAndRender(traces, AnalyzeOptions{}, os);
  std::string out, err;
  ASSERT_EQ(RunAnalyze({path}, &out, &err), 0);
  EXPECT_EQ(os.str(), out);
}

}  // namespace
}  // namespace gpuwhy::cli
