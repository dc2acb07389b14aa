#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace gpuwhy::cli {
namespace {

const std::string kData = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/";
const std::string kShared = std::string(GPUWHY_SOURCE_DIR) + "/../shared/";

int Call(int (*fn)(int, char**, std::ostream&, std::ostream&), std::vector<std::string> args,
        std::string* out, std::string* err) {
  std::string argv0 = "gpuwhy";
  std::vector<char*> argv = {argv0.data()};
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  int rc = fn(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

// A saved `analyze --json` report stands for its run: diffed against the
// trace it came from, nothing changes.
TEST(DiffMain, SavedReportEqualsItsTrace) {
  std::string out, err;
  const std::string trace = kData + "dataloader_stall.pt.trace.json.gz";
  ASSERT_EQ(Call(AnalyzeMain, {"--json", trace}, &out, &err), 0) << err;
  const std::string saved = std::string(GPUWHY_BINARY_DIR) + "/diff_saved_report.json";
  std::ofstream(saved) << out;
  ASSERT_EQ(Call(DiffMain, {"--json", saved, trace}, &out, &err), 0) << err;
  std::filesystem::remove(saved);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS);
  for (simdjson::dom::element m : doc["metrics"].get_array()) {
    double before, after;
    if (m["before"].get_double().get(before) != simdjson::SUCCESS) continue;
    ASSERT_EQ(m["after"].get_double().get(after), simdjson::SUCCESS);
    EXPECT_NEAR(before, after, 1e-6 * std::max(1.0, std::abs(before)))
        << std::string_view(m["name"].get_string());
  }
  for (simdjson::dom::element f : doc["findings"].get_array())
    EXPECT_EQ(std::string_view(f["status"].get_string()), "same");
  bool beyond = true;
  ASSERT_EQ(doc["step_change_beyond_noise"].get_bool().get(beyond), simdjson::SUCCESS);
  EXPECT_FALSE(beyond);
}

// The generator's fix pair: the DataLoader stall removed (same seed).
TEST(DiffMain, GeneratorFixPairAndGates) {
  std::string out, err;
  const std::string before = kData + "dataloader_stall.pt.trace.json.gz";
  const std::string after = kData + "healthy.pt.trace.json.gz";
  ASSERT_EQ(Call(DiffMain, {before, after}, &out, &err), 0) << err;
  EXPECT_NE(out.find("DataLoader wait resolved"), std::string::npos) << out;
  EXPECT_NE(out.find("beyond run-to-run noise"), std::string::npos) << out;
  // A slower AFTER fails a step-time gate; the faster one passes it.
  EXPECT_EQ(Call(DiffMain, {"--fail-if", "step_time>+5%", before, after}, &out, &err), 0) << err;
  EXPECT_EQ(Call(DiffMain, {"--fail-if", "step_time>+5%", after, before}, &out, &err), 3);
  EXPECT_NE(err.find("gate failed: step_time>+5%"), std::string::npos) << err;
  EXPECT_EQ(Call(DiffMain, {"--fail-if", "finding:data_loading.dataloader", after, before}, &out, &err), 3);
  EXPECT_EQ(Call(DiffMain, {"--fail-if", "bogus", before, after}, &out, &err), 1);
}

// The shared ResNet50 pair: num_workers 0 -> 4.
TEST(DiffMain, ResNet50Workers) {
  const std::string nw0 = kShared +
      "traces/kineto/kineto_tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  const std::string nw4 = kShared +
      "traces/kineto/kineto_tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz";
  if (!std::filesystem::exists(nw0) || !std::filesystem::exists(nw4))
    GTEST_SKIP() << "SKIPPED: ../shared ResNet50 num_workers traces not present";
  std::string out, err;
  ASSERT_EQ(Call(DiffMain, {nw0, nw4}, &out, &err), 0) << err;
  const std::string head = out.substr(0, out.find('\n'));
  EXPECT_NE(head.find("step time -20."), std::string::npos) << head;
  EXPECT_NE(head.find("DataLoader wait resolved"), std::string::npos) << head;
  EXPECT_NE(head.find("now launch-bound"), std::string::npos) << head;
  EXPECT_NE(out.find("predicted step"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpuwhy::cli
