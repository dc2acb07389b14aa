// The labelled corpus: every label of ../shared/traces/labelled/labels.json
// (what a performance engineer concludes from each real file; format in its
// SOURCES.md) must hold on gpuwhy's report, through the same path as
// `gpuwhy analyze FILE` (cli::ImportAndAnalyze, then the terminal renderer).
// Skipped with a message when ../shared is absent. The expectations come from
// the labels, never from gpuwhy's own output.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "cli/analyze_command.h"
#include "report/terminal/terminal_renderer.h"

namespace gpuwhy::labelled_test {
namespace {

using analysis::detectors::Finding;

// kCauseFamilies: the label vocabulary's cause families (labels.json "causes")
// and the finding ids that belong to each: an exact id, or a prefix ending in
// '.'. The one table that maps labels to findings.
const std::map<std::string, std::vector<std::string>>& CauseFamilies() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"data_loading", {"data_loading.dataloader"}},
      {"host_work", {"host."}},
      {"launch_overhead", {"launch_bound."}},
      {"sync", {"sync.host_sync"}},
      {"blocking_copy", {"sync.blocking_copy", "data_loading.h2d_sync"}},
      {"h2d_copies", {"data_loading.h2d_copies"}},
      {"one_off", {"idle.one_off_gap", "phase."}},
      {"memory_bound", {"kernel_efficiency.memory_bound"}},
      {"no_tensor_cores", {"kernel_efficiency.no_tensor_cores"}},
      {"inflated_busy",
       {"kernel_efficiency.busy_not_work", "kernel_efficiency.low_sm_activity",
        "kernel_efficiency.low_power"}},
      {"communication", {"communication."}},
      {"straggler", {"imbalance."}},
      {"contention", {"contention."}},
      {"unused_gpu", {"idle.unused_gpu"}},
      {"unified_memory", {"data_loading.uvm_migrations"}},
  };
  return k;
}

// kMaterialLoss: below this share of the step a first finding is no material
// cause, and the run's first family is "none" (the WHY line's 5% rule).
constexpr double kMaterialLoss = 0.05;

std::set<std::string> FamiliesOf(const std::string& id) {
  std::set<std::string> out;
  for (const auto& [family, ids] : CauseFamilies())
    for (const std::string& p : ids)
      if (id == p || (p.back() == '.' && id.starts_with(p))) out.insert(family);
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// WhatItSays: what a finding says about this run (title, summary, evidence
// labels, examples, notes), not its generic advice; lowercase.
std::string WhatItSays(const Finding& f) {
  std::string s = f.title + " " + f.summary;
  for (const auto& m : f.evidence) s += " " + m.label;
  for (const auto& e : f.examples) s += " " + e.what + " " + e.detail;
  for (const auto& n : f.notes) s += " " + n;
  return Lower(s);
}

std::string WithAdvice(const Finding& f) {
  std::string s = WhatItSays(f);
  for (const auto& r : f.recommendations) s += " " + Lower(r.text);
  return s;
}

std::filesystem::path Labelled() {
  return std::filesystem::path(GPUWHY_SOURCE_DIR) / ".." / "shared" / "traces" / "labelled";
}

std::vector<std::string> Strings(simdjson::ondemand::value v) {
  std::vector<std::string> out;
  simdjson::ondemand::array a;
  if (v.get_array().get(a)) return out;
  for (auto x : a) {
    std::string_view s;
    if (!x.get_string().get(s)) out.emplace_back(s);
  }
  return out;
}

// Label: one entry of labels.json.
struct Label {
  std::string file;
  std::vector<std::string> cls, top, top_mentions, top_mentions_any, top_not, also, also_mentions,
      forbidden;
  bool has_cls = false, has_top = false, no_mangled_names = false;
  std::map<std::string, double> facts;
};

std::vector<Label> ReadLabels(const std::string& path) {
  std::vector<Label> out;
  simdjson::ondemand::parser parser;
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json)) return out;
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) return out;
  simdjson::ondemand::array labels;
  if (doc["labels"].get_array().get(labels)) return out;
  for (auto entry : labels) {
    simdjson::ondemand::object o;
    if (entry.get_object().get(o)) continue;
    Label l;
    for (auto field : o) {
      std::string_view key;
      if (field.unescaped_key().get(key)) continue;
      simdjson::ondemand::value v = field.value();
      const bool is_null = v.is_null();
      if (key == "file") {
        std::string_view s;
        if (!v.get_string().get(s)) l.file = s;
      } else if (key == "cls") {
        l.has_cls = !is_null;
        if (!is_null) l.cls = Strings(v);
      } else if (key == "top") {
        l.has_top = !is_null;
        if (!is_null) l.top = Strings(v);
      } else if (key == "top_mentions") {
        l.top_mentions = Strings(v);
      } else if (key == "top_mentions_any") {
        l.top_mentions_any = Strings(v);
      } else if (key == "top_not") {
        l.top_not = Strings(v);
      } else if (key == "also") {
        l.also = Strings(v);
      } else if (key == "also_mentions") {
        l.also_mentions = Strings(v);
      } else if (key == "forbidden") {
        l.forbidden = Strings(v);
      } else if (key == "no_mangled_names") {
        bool b = false;
        if (!v.get_bool().get(b)) l.no_mangled_names = b;
      } else if (key == "facts") {
        simdjson::ondemand::object fo;
        if (v.get_object().get(fo)) continue;
        for (auto fact : fo) {
          std::string_view name;
          double x = 0;
          if (!fact.unescaped_key().get(name) && !fact.value().get_double().get(x))
            l.facts[std::string(name)] = x;
        }
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

// BusiestDevice: the utilization entry with the most kernel time, or null.
const analysis::DeviceUtilization* BusiestDevice(const analysis::TraceAnalysis& ta) {
  const analysis::DeviceUtilization* best = nullptr;
  for (const auto& du : ta.utilization.devices)
    if (du.kernel_time_ns > 0 && (best == nullptr || du.kernel_time_ns > best->kernel_time_ns))
      best = &du;
  return best;
}

// Fact: the report's figure for a labels.json fact name (without _min/_max).
double Fact(const analysis::Analysis& a, const std::string& name) {
  const analysis::TraceAnalysis& ta = a.traces.front();
  const analysis::DeviceUtilization* du = BusiestDevice(ta);
  if (name == "communication_share_of_kernel_time")
    return du ? du->class_share[static_cast<size_t>(analysis::KernelClass::kCommunication)]
              : kMissingF64;
  if (name == "tensor_core_share_of_kernel_time") return du ? du->tensor_core_share.value : kMissingF64;
  if (name == "matrix_core_gemm_share_of_kernel_time") {
    for (const auto& d : ta.summary.devices)
      if (du != nullptr && d.device_id == du->device_id) return d.kernels.tensor_core_time_ratio;
    return kMissingF64;
  }
  if (name == "mean_gpu_util")
    return a.diagnosis && IsValid(a.diagnosis->idle_step_ratio) ? 1.0 - a.diagnosis->idle_step_ratio
                                                                 : kMissingF64;
  ADD_FAILURE() << "unknown fact " << name;
  return kMissingF64;
}

// CheckLabel: every assertion of one label; returns the failures.
std::vector<std::string> CheckLabel(const Label& l, const analysis::Analysis& a,
                                    const std::string& terminal) {
  std::vector<std::string> fails;
  if (!a.diagnosis) return {"no diagnosis"};
  const auto& d = *a.diagnosis;
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (l.has_cls && !in(l.cls, d.curve_shape)) fails.push_back("class " + d.curve_shape);
  const Finding* first = d.findings.empty() ? nullptr : &d.findings.front();
  std::set<std::string> first_families;
  if (first != nullptr) first_families = FamiliesOf(first->id);
  if (first == nullptr || !(IsValid(first->lost_step_ratio) && first->lost_step_ratio >= kMaterialLoss))
    first_families.insert("none");
  const std::string first_id = first ? first->id : "(none)";
  if (l.has_top) {
    bool ok = false;
    for (const std::string& f : l.top) ok = ok || first_families.count(f) > 0;
    if (!ok) fails.push_back("first finding " + first_id + " is not of an accepted family");
  }
  for (const std::string& f : l.top_not)
    if (first_families.count(f)) fails.push_back("first finding " + first_id + " is of family " + f);
  const std::string says = first ? WhatItSays(*first) : "";
  for (const std::string& w : l.top_mentions)
    if (says.find(Lower(w)) == std::string::npos) fails.push_back("first finding lacks '" + w + "'");
  if (!l.top_mentions_any.empty()) {
    bool any = false;
    for (const std::string& w : l.top_mentions_any) any = any || says.find(Lower(w)) != std::string::npos;
    if (!any) fails.push_back("first finding mentions none of the accepted words");
  }
  std::set<std::string> all;
  for (const Finding& f : d.findings)
    for (const std::string& fam : FamiliesOf(f.id)) all.insert(fam);
  for (const std::string& f : l.also)
    if (!all.count(f)) fails.push_back("no finding of family " + f);
  for (const std::string& f : l.forbidden)
    if (all.count(f)) fails.push_back("a finding of forbidden family " + f);
  for (const std::string& w : l.also_mentions) {
    bool any = false;
    for (const Finding& f : d.findings) any = any || WithAdvice(f).find(Lower(w)) != std::string::npos;
    if (!any) fails.push_back("no finding mentions '" + w + "'");
  }
  if (l.no_mangled_names && std::regex_search(terminal, std::regex(R"(\b_Z[A-Za-z0-9_]{4,})")))
    fails.push_back("a mangled name in the terminal report");
  for (const auto& [key, bound] : l.facts) {
    const bool is_min = key.ends_with("_min");
    const std::string name = key.substr(0, key.size() - 4);
    const double v = Fact(a, name);
    if (!IsValid(v)) {
      fails.push_back("fact " + name + " missing");
    } else if (is_min ? v < bound : v > bound) {
      char b[160];
      std::snprintf(b, sizeof b, "fact %s = %.4f, %s %.4f", name.c_str(), v, is_min ? "min" : "max",
                    bound);
      fails.push_back(b);
    }
  }
  return fails;
}

TEST(Labelled, EveryLabelHolds) {
  const std::filesystem::path dir = Labelled();
  if (!std::filesystem::exists(dir / "labels.json"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/labelled not present";
  const std::vector<Label> labels = ReadLabels((dir / "labels.json").string());
  ASSERT_GE(labels.size(), 21u);
  int held = 0;
  for (const Label& l : labels) {
    SCOPED_TRACE(l.file);
    const std::string path = (dir / l.file).string();
    if (!std::filesystem::exists(path)) {
      ADD_FAILURE() << "labelled file missing: " << path;
      continue;
    }
    std::vector<model::Trace> kept;
    Result<analysis::Analysis> r = cli::ImportAndAnalyze({path}, {}, &kept);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::ostringstream term;
    report::RenderTerminal(r.value(), term, {});
    const std::vector<std::string> fails = CheckLabel(l, r.value(), term.str());
    const auto& d = *r.value().diagnosis;
    std::printf("%s %s\n    %s\n", fails.empty() ? "held " : "FAILED", l.file.c_str(),
                d.top_line.c_str());
    for (const std::string& f : fails) ADD_FAILURE() << f << "\n  WHY: " << d.top_line;
    held += fails.empty() ? 1 : 0;
  }
  std::printf("labels held: %d of %zu\n", held, labels.size());
}

// The family table covers the labels' whole vocabulary, and every family
// names at least one finding id.
TEST(Labelled, FamilyTableCoversTheVocabulary) {
  const std::filesystem::path dir = Labelled();
  if (!std::filesystem::exists(dir / "labels.json"))
    GTEST_SKIP() << "SKIPPED: ../shared/traces/labelled not present";
  simdjson::ondemand::parser parser;
  simdjson::padded_string json;
  ASSERT_FALSE(simdjson::padded_string::load((dir / "labels.json").string()).get(json));
  simdjson::ondemand::document doc;
  ASSERT_FALSE(parser.iterate(json).get(doc));
  simdjson::ondemand::value causes;
  ASSERT_FALSE(doc["causes"].get(causes));
  for (const std::string& c : Strings(causes)) {
    if (c == "none") continue;
    EXPECT_TRUE(CauseFamilies().count(c)) << "family " << c << " has no finding ids";
  }
  EXPECT_EQ(FamiliesOf("idle.one_off_gap"), std::set<std::string>{"one_off"});
  EXPECT_EQ(FamiliesOf("launch_bound.fragmented"), std::set<std::string>{"launch_overhead"});
  EXPECT_TRUE(FamiliesOf("no.such_finding").empty());
}

}  // namespace
}  // namespace gpuwhy::labelled_test
