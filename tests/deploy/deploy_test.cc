// The shipped deploy/ files against the exporter they are written for: the
// Grafana dashboard imports as is (a datasource variable, no hard-coded UIDs)
// and every metric named in it or in the Prometheus rules is one that
// `gpuwhy watch --prometheus` serves, or a recording rule the rules define.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "live/prometheus_exporter.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string kRules = GPUWHY_SOURCE_DIR "/deploy/prometheus/gpuwhy-rules.yml";
const std::string kDashboard = GPUWHY_SOURCE_DIR "/deploy/grafana/gpuwhy.json";

// RecordedNames: the `record:` names of the rules file.
std::set<std::string> RecordedNames() {
  std::set<std::string> out;
  std::istringstream in(ReadFile(kRules));
  std::regex rec(R"(^\s*- record:\s*(\S+)\s*$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, rec)) out.insert(m[1]);
  return out;
}

// MetricNames: identifiers in a PromQL expression that name gpuwhy series.
std::vector<std::string> MetricNames(const std::string& expr) {
  std::vector<std::string> out;
  std::regex name(R"(\bgpuwhy[_:][A-Za-z0-9_:]*)");
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), name); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

// Unknown: names in `exprs` that are neither served nor recorded.
std::vector<std::string> Unknown(const std::vector<std::string>& exprs) {
  std::vector<std::string> served = gpuwhy::live::PrometheusMetricNames();
  std::set<std::string> known(served.begin(), served.end());
  for (const std::string& r : RecordedNames()) known.insert(r);
  std::vector<std::string> bad;
  for (const std::string& e : exprs)
    for (const std::string& n : MetricNames(e))
      if (known.count(n) == 0) bad.push_back(n + " in: " + e);
  return bad;
}

TEST(DeployRules, EveryExpressionNamesAServedOrRecordedSeries) {
  std::string text = ReadFile(kRules);
  ASSERT_FALSE(text.empty()) << kRules;
  // expr values, including folded (`expr: >`) ones up to the next key.
  std::vector<std::string> exprs;
  std::istringstream in(text);
  std::string cur;
  bool folding = false;
  std::regex key(R"(^\s*(- )?[a-z_]+:)");
  for (std::string line; std::getline(in, line);) {
    // Comments are not PromQL (they may name series in prose).
    if (size_t first = line.find_first_not_of(' '); first != std::string::npos && line[first] == '#') continue;
    auto at = line.find("expr:");
    if (at != std::string::npos) {
      if (!cur.empty()) exprs.push_back(cur);
      cur = line.substr(at + 5);
      folding = true;
      continue;
    }
    if (folding && std::regex_search(line, key)) {
      exprs.push_back(cur);
      cur.clear();
      folding = false;
    } else if (folding) {
      cur += " " + line;
    }
  }
  if (!cur.empty()) exprs.push_back(cur);
  EXPECT_GE(exprs.size(), 10u);
  std::vector<std::string> bad = Unknown(exprs);
  EXPECT_TRUE(bad.empty()) << bad.front();
  // Each alert has a summary and a runbook.
  std::regex alert(R"(- alert: (\S+))");
  int alerts = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), alert); it != std::sregex_iterator(); ++it)
    ++alerts;
  EXPECT_EQ(alerts, 5);
  size_t runbooks = 0, summaries = 0;
  for (size_t p = text.find("runbook_url:"); p != std::string::npos; p = text.find("runbook_url:", p + 1))
    ++runbooks;
  for (size_t p = text.find("summary:"); p != std::string::npos; p = text.find("summary:", p + 1))
    ++summaries;
  EXPECT_EQ(runbooks, 5u);
  EXPECT_EQ(summaries, 5u);
}

// Walk: every panel (rows' nested panels too).
void Walk(simdjson::dom::array panels, std::vector<simdjson::dom::object>* out) {
  for (simdjson::dom::element p : panels) {
    simdjson::dom::object o;
    ASSERT_EQ(p.get(o), simdjson::SUCCESS);
    out->push_back(o);
    simdjson::dom::array nested;
    if (o["panels"].get(nested) == simdjson::SUCCESS) Walk(nested, out);
  }
}

TEST(DeployDashboard, ImportsAsIsAndQueriesOnlyServedMetrics) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(kDashboard).get(doc), simdjson::SUCCESS) << kDashboard;
  // No hard-coded dashboard or datasource UIDs: only the datasource variable.
  EXPECT_TRUE(doc["uid"].is_null());
  std::string text = ReadFile(kDashboard);
  std::regex uid(R"re("uid":\s*"([^"]*)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), uid); it != std::sregex_iterator(); ++it)
    EXPECT_EQ((*it)[1].str(), "${datasource}") << it->str();
  bool has_ds_var = false;
  for (simdjson::dom::element v : doc["templating"]["list"].get_array()) {
    std::string_view type, name;
    if (v["type"].get(type) == simdjson::SUCCESS && type == "datasource" &&
        v["name"].get(name) == simdjson::SUCCESS && name == "datasource")
      has_ds_var = true;
  }
  EXPECT_TRUE(has_ds_var);

  std::vector<simdjson::dom::object> panels;
  Walk(doc["panels"].get_array(), &panels);
  std::set<int64_t> ids;
  std::vector<std::string> exprs;
  std::set<std::string> types;
  for (simdjson::dom::object p : panels) {
    int64_t id = 0;
    ASSERT_EQ(p["id"].get(id), simdjson::SUCCESS);
    EXPECT_TRUE(ids.insert(id).second) << "duplicate panel id " << id;
    std::string_view type;
    ASSERT_EQ(p["type"].get(type), simdjson::SUCCESS);
    types.insert(std::string(type));
    if (type == "row") continue;
    simdjson::dom::array targets;
    ASSERT_EQ(p["targets"].get(targets), simdjson::SUCCESS) << "panel " << id;
    EXPECT_GT(targets.size(), 0u) << "panel " << id;
    for (simdjson::dom::element t : targets) {
      std::string_view e;
      ASSERT_EQ(t["expr"].get(e), simdjson::SUCCESS) << "panel " << id;
      exprs.emplace_back(e);
    }
  }
  for (simdjson::dom::element v : doc["templating"]["list"].get_array()) {
    std::string_view def;
    if (v["definition"].get(def) == simdjson::SUCCESS) exprs.emplace_back(def);
  }
  // What the issue asks to see: surface and real together, the class timeline.
  EXPECT_TRUE(types.count("state-timeline"));
  bool together = false;
  for (simdjson::dom::object p : panels) {
    simdjson::dom::array targets;
    if (p["targets"].get(targets) != simdjson::SUCCESS) continue;
    bool surface = false, real = false;
    for (simdjson::dom::element t : targets) {
      std::string_view e;
      if (t["expr"].get(e) != simdjson::SUCCESS) continue;
      surface |= e.find("gpu_busy_ratio") != std::string_view::npos || e.find("surface_ratio") != std::string_view::npos;
      real |= e.find("sm_active_ratio") != std::string_view::npos || e.find("real_ratio") != std::string_view::npos;
    }
    together |= surface && real;
  }
  EXPECT_TRUE(together);
  std::vector<std::string> bad = Unknown(exprs);
  EXPECT_TRUE(bad.empty()) << bad.front();
}

}  // namespace
