// Keeps docs/json-schema.md true: every key of every golden JSON report
// (tests/golden/expected/*.json) must be documented there, under its parent.
//
// The rule. A golden key is the pair (parent, key): `parent` is the name of the
// nearest enclosing object key ("" at the top level; array markers dropped), so
// `traces[].devices[].utilization.series[].label` is (series, label). The doc
// documents a pair when:
//   - a backticked token in the first column of a table row names it: `a.b[].c`
//     gives (a, b) and (b, c), and its first component pairs with the table's
//     context: the last component of the first backticked token of the nearest
//     `##`..`####` heading ("" when the heading has none). A token starting with
//     "." continues the cell's first token (`short_kernels[].count`, `.time_ns`).
//   - a shared type: a paragraph starting with **Type** defines it; its fields
//     are the paragraph's backticked tokens outside parentheses and, when the
//     paragraph ends with ":", the first column of the table right after it
//     (a paragraph not ending in ":" is followed by an ordinary table, as
//     "**Transfer fields**" in the memcpy section). A row whose type column names
//     Type gives (row key, field) for each field; backticked tokens in the type
//     column ("Transfer + `copy_kind`") are fields of the row key too.
// Why pairs and not bare names: "count" or "label" are documented somewhere, so a
// bare-name rule would let `busy.label` through; a full-path rule would force every
// shared type (DurationStats, Figure, ...) to be written out at every use.
//
// Goldens cover what tests/golden/cases.txt runs; keys written only with flags
// no case uses (--compat ...) are documented but not checked here.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

using Pair = std::pair<std::string, std::string>;  // (parent, key)

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// KeyComponents: `a.b[].c` -> {a, b, c}; empty when the token is not a key path
// (quoted values, `f()`, `nvml_1/6s`, ...). A leading "." is kept as an empty
// first component so the caller can resolve it.
std::vector<std::string> KeyComponents(const std::string& token) {
  static const std::regex kKey(
      R"(^\.?[a-z_][a-z0-9_]*(\[[a-z0-9]*\])?(\.[a-z_][a-z0-9_]*(\[[a-z0-9]*\])?)*$)");
  if (!std::regex_match(token, kKey)) return {};
  std::vector<std::string> out;
  std::stringstream ss(token);
  std::string part;
  while (std::getline(ss, part, '.')) {
    const size_t b = part.find('[');
    out.push_back(b == std::string::npos ? part : part.substr(0, b));
  }
  return out;
}

// Backticked: the `...` spans of `text`; with `outside_parens`, only those not
// inside (...).
std::vector<std::string> Backticked(const std::string& text, bool outside_parens = false) {
  std::vector<std::string> out;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') {
      const size_t j = text.find('`', i + 1);
      if (j == std::string::npos) break;
      if (!outside_parens || depth == 0) out.push_back(text.substr(i + 1, j - i - 1));
      i = j;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')' && depth > 0) {
      --depth;
    }
  }
  return out;
}

// Cells: the cells of a markdown table row ("\|" is not a separator).
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur.push_back('|');
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(line[i]);
    }
  }
  return cells;
}

// RowKeys: key paths of a row's first cell, "." continuations resolved.
std::vector<std::vector<std::string>> RowKeys(const std::string& cell) {
  std::vector<std::vector<std::string>> keys;
  for (const std::string& tok : Backticked(cell)) {
    std::vector<std::string> c = KeyComponents(tok);
    if (c.empty()) continue;
    if (c.front().empty()) {
      if (keys.empty()) continue;
      std::vector<std::string> full(keys.front().begin(), keys.front().end() - 1);
      full.insert(full.end(), c.begin() + 1, c.end());
      c = full;
    }
    keys.push_back(c);
  }
  return keys;
}

void AddPath(std::set<Pair>& pairs, const std::string& context,
             const std::vector<std::string>& comps) {
  std::string parent = context;
  for (size_t i = 0; i < comps.size(); ++i) {
    const std::string& c = comps[i];
    if (i == 0 && c == context) continue;  // `memcpy.total` under "### `memcpy`"
    pairs.insert({parent, c});
    parent = c;
  }
}

// DocPairs: every (parent, key) pair docs/json-schema.md documents (see the file comment).
std::set<Pair> DocPairs(const std::string& doc) {
  std::vector<std::string> lines;
  {
    std::stringstream ss(doc);
    std::string l;
    while (std::getline(ss, l)) lines.push_back(l);
  }
  static const std::regex kTypeStart(R"(^\*\*([A-Za-z]+))");
  // Pass 1: shared types.
  std::map<std::string, std::vector<std::vector<std::string>>> types;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, kTypeStart)) continue;
    const std::string name = m[1];
    std::string para;
    size_t j = i;
    for (; j < lines.size() && !lines[j].empty(); ++j) para += lines[j] + "\n";
    auto& fields = types[name];
    for (const std::string& tok : Backticked(para, /*outside_parens=*/true)) {
      std::vector<std::string> c = KeyComponents(tok);
      if (!c.empty() && !c.front().empty()) fields.push_back(c);
    }
    if (!para.ends_with(":\n")) continue;
    while (j < lines.size() && lines[j].empty()) ++j;
    for (; j < lines.size() && lines[j].starts_with("|"); ++j) {
      const std::vector<std::string> cells = Cells(lines[j]);
      if (cells.empty()) continue;
      for (auto& k : RowKeys(cells[0])) fields.push_back(k);
    }
  }
  // Pass 2: tables with their context.
  std::set<Pair> pairs;
  std::string context;
  // A **Type** paragraph, and the table right after it, belong to the type.
  enum class State { kNone, kTypePara, kAfterTypePara, kTypeTable } state = State::kNone;
  bool type_para_ends_in_colon = false;
  for (const std::string& l : lines) {
    if (l.starts_with("##")) {
      state = State::kNone;
      context.clear();
      const std::vector<std::string> toks = Backticked(l);
      if (!toks.empty()) {
        const std::vector<std::string> c = KeyComponents(toks.front());
        if (!c.empty()) context = c.back();
      }
      continue;
    }
    if (std::regex_search(l, kTypeStart)) state = State::kTypePara;
    if (state == State::kTypePara && l.empty()) {
      state = type_para_ends_in_colon ? State::kAfterTypePara : State::kNone;
      continue;
    }
    if (state == State::kTypePara) {
      type_para_ends_in_colon = l.ends_with(":");
      continue;
    }
    if (l.starts_with("|")) {
      if (state == State::kAfterTypePara) state = State::kTypeTable;
      if (state == State::kTypeTable) continue;
    } else {
      if (!(l.empty() && state == State::kAfterTypePara)) state = State::kNone;
      continue;
    }
    const std::vector<std::string> cells = Cells(l);
    if (cells.size() < 2) continue;
    const auto keys = RowKeys(cells[0]);
    for (const auto& k : keys) AddPath(pairs, context, k);
    for (const auto& [name, fields] : types) {
      if (!std::regex_search(cells[1], std::regex("\\b" + name + "\\b"))) continue;
      for (const auto& k : keys)
        for (const auto& f : fields) AddPath(pairs, k.back(), f);
    }
    for (const std::string& tok : Backticked(cells[1])) {
      const std::vector<std::string> c = KeyComponents(tok);
      if (c.empty() || c.front().empty()) continue;
      for (const auto& k : keys) AddPath(pairs, k.back(), c);
    }
  }
  return pairs;
}

struct GoldenKey {
  std::string path;  // traces[].devices[].busy.idle_ns
  Pair pair;         // (busy, idle_ns)
};

void Walk(simdjson::dom::element e, const std::string& path, const std::string& parent,
          std::vector<GoldenKey>& out) {
  simdjson::dom::object obj;
  simdjson::dom::array arr;
  if (e.get_object().get(obj) == simdjson::SUCCESS) {
    for (auto field : obj) {
      const std::string key(field.key);
      const std::string p = path.empty() ? key : path + "." + key;
      out.push_back({p, {parent, key}});
      Walk(field.value, p, key, out);
    }
  } else if (e.get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element x : arr) Walk(x, path + "[]", parent, out);
  }
}

// Undocumented: golden key paths whose pair the doc does not document (sorted, unique);
// `error` gets a parse error.
std::vector<std::string> Undocumented(const std::string& json, const std::set<Pair>& doc,
                                      std::vector<GoldenKey>* keys, std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded(json);
  if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS) {
    *error = simdjson::error_message(err);
    return {};
  }
  std::vector<GoldenKey> all;
  Walk(root, "", "", all);
  std::set<std::string> bad;
  for (const GoldenKey& k : all) {
    if (!doc.count(k.pair))
      bad.insert(k.path + "  (parent `" + k.pair.first + "`, key `" + k.pair.second + "`)");
  }
  if (keys != nullptr) keys->insert(keys->end(), all.begin(), all.end());
  return {bad.begin(), bad.end()};
}

const fs::path kSource = GPUWHY_SOURCE_DIR;

std::set<Pair> LoadDoc() { return DocPairs(ReadFile(kSource / "docs/json-schema.md")); }

TEST(golden_json_schema_doc, EveryGoldenKeyIsDocumented) {
  const std::set<Pair> doc = LoadDoc();
  ASSERT_GT(doc.size(), 200u) << "docs/json-schema.md: too few documented keys; parser broken?";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSource / "tests/golden/expected"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  std::vector<GoldenKey> keys;
  std::map<std::string, std::vector<std::string>> bad_by_path;
  for (const fs::path& f : files) {
    std::string error;
    for (const std::string& b : Undocumented(ReadFile(f), doc, &keys, &error))
      bad_by_path[b].push_back(f.filename().string());
    EXPECT_TRUE(error.empty()) << f << ": " << error;
  }
  // The walk must reach the deep sections, or the check is vacuous.
  std::set<std::string> seen;
  for (const GoldenKey& k : keys) seen.insert(k.path);
  for (const char* p :
       {"traces[].devices[].utilization.series[].label",
        "traces[].devices[].utilization.curve.features.gap_p95_ns",
        "traces[].diagnosis.findings[].evidence[].unit", "traces[].step_detection.steps[].number",
        "traces[].devices[].kernels.duration.p99_ns"})
    EXPECT_TRUE(seen.count(p)) << "no golden has " << p;
  for (const auto& [path, in] : bad_by_path) {
    std::string where;
    for (const std::string& f : in) where += " " + f;
    ADD_FAILURE() << "undocumented in docs/json-schema.md: " << path << " in" << where;
  }
  std::cout << "checked " << seen.size() << " key paths of " << files.size() << " goldens against "
            << doc.size() << " documented (parent, key) pairs\n";
}

// The rule itself: a key the doc does not name, or a documented name under another
// parent, is flagged; documented keys (also through shared types) are not.
TEST(golden_json_schema_doc, FlagsUndocumentedKeys) {
  const std::set<Pair> doc = LoadDoc();
  const std::string json = R"({
    "schema_version": 1,
    "traces": [{
      "undocumented_section": {"count": 1},
      "devices": [{
        "busy": {"label": 2, "idle_ns": 3},
        "steps": {"step_time": {"p99_ns": 4}},
        "utilization": {
          "series": [{"label": "fine", "no_such_key_in_docs": 1}],
          "curve": {"features": {"sample_count": 5}},
          "kernel_class_share": {"gemm_conv": 0.5}
        }
      }]
    }]
  })";
  std::string error;
  const std::vector<std::string> bad = Undocumented(json, doc, nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<std::string> expected = {
      "traces[].devices[].busy.label  (parent `busy`, key `label`)",
      "traces[].devices[].utilization.series[].no_such_key_in_docs  (parent `series`, key "
      "`no_such_key_in_docs`)",
      "traces[].undocumented_section  (parent `traces`, key `undocumented_section`)",
      "traces[].undocumented_section.count  (parent `undocumented_section`, key `count`)",
  };
  EXPECT_EQ(bad, expected);
}

TEST(golden_json_schema_doc, ParsesRowsContinuationsAndTypes) {
  const std::set<Pair> p = DocPairs(
      "## `outer[i]`\n\n"
      "| key | type | meaning |\n|---|---|---|\n"
      "| `a.b[].c`, `.d` | int | x |\n"
      "| `t` | Thing + `extra` | y |\n\n"
      "**Thing**: `f1` (int; not `f9`), `g.h`.\n\n"
      "**Other** is a table type with these keys:\n\n"
      "| key | type | meaning |\n|---|---|---|\n| `o1` | int | z |\n\n"
      "**Prose** without a colon.\n\n"
      "| key | type | meaning |\n|---|---|---|\n| `outer.p1` | Other | w |\n");
  const std::set<Pair> expected = {{"outer", "a"}, {"a", "b"},      {"b", "c"},  {"b", "d"},
                                   {"outer", "t"}, {"t", "f1"},     {"t", "g"},  {"g", "h"},
                                   {"t", "extra"}, {"outer", "p1"}, {"p1", "o1"}};
  // `f9` (in parentheses) is no field; the Other table only through `p1`.
  EXPECT_EQ(p, expected);
}

}  // namespace
