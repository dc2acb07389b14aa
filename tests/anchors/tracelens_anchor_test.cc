// Agreement with TraceLens (AMD-AGI/TraceLens 171dd74) on the shared traces:
// per-op FLOPs and bytes (ops_instances.csv) and the GPU timeline
// (gpu_timeline.csv) of ../shared/traces/_reference_tracelens.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/anchor_compat/tracelens_compat.h"
#include "analysis/throughput/op_model.h"
#include "anchor_util.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

using Row = std::map<std::string, std::string>;

// ReadCsv: RFC-4180 rows (quoted fields, "" escapes) keyed by the header.
std::vector<Row> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  std::vector<Row> out;
  if (rows.empty()) return out;
  const std::vector<std::string>& head = rows[0];
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != head.size()) continue;
    Row row;
    for (size_t c = 0; c < head.size(); ++c) row[head[c]] = rows[r][c];
    out.push_back(std::move(row));
  }
  return out;
}

std::string RefDir() { return anchors::SharedPath("_reference_tracelens"); }

// TraceRel: the shared trace of a golden folder key, from index.tsv (the key
// is the trace path with '/' -> "__" and .json[.gz] removed).
std::string TraceRel(const std::string& key) {
  std::ifstream in(RefDir() + "/index.tsv");
  std::string line;
  while (std::getline(in, line)) {
    std::string path = line.substr(0, line.find('\t'));
    std::string k = path;
    for (const char* ext : {".json.gz", ".json"}) {
      size_t n = std::strlen(ext);
      if (k.size() > n && k.compare(k.size() - n, std::string::npos, ext) == 0) {
        k.resize(k.size() - n);
        break;
      }
    }
    for (size_t p; (p = k.find('/')) != std::string::npos;) k.replace(p, 1, "__");
    if (k == key && fs::exists(anchors::SharedPath("kineto/" + path))) return "kineto/" + path;
  }
  return "";
}

std::vector<std::string> GoldenKeys() {
  std::vector<std::string> keys;
  if (!fs::exists(RefDir())) return keys;
  for (const auto& e : fs::directory_iterator(RefDir()))
    if (e.is_directory()) keys.push_back(e.path().filename().string());
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Deliberate differences (docs/throughput.md): ops whose figures differ from
// TraceLens's on purpose (reduce output sizes; inductor triton_* kernels,
// which gpuwhy does not model).
const std::set<std::string> kDifferOnPurpose = {
    "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::amax", "aten::amin",
    "aten::linalg_norm", "aten::norm", "aten::std", "aten::var", "aten::logsumexp",
};

TEST(TraceLensAnchor, PerOpFlopsAndBytes) {
  std::vector<std::string> keys = GoldenKeys();
  if (keys.empty()) GTEST_SKIP() << "SKIPPED: ../shared/traces/_reference_tracelens not present";
  int64_t compared = 0, equal = 0, on_purpose = 0, unexpected = 0;
  for (const std::string& key : keys) {
    std::string csv = RefDir() + "/" + key + "/ops_instances.csv";
    std::string rel = TraceRel(key);
    if (!fs::exists(csv) || rel.empty()) continue;
    GPUWHY_LOAD_SHARED(trace, rel);
    std::map<std::pair<std::string, int64_t>, std::vector<uint32_t>> by_key;
    const model::RangeTable& R = trace->ranges;
    for (size_t i = 0; i < R.size(); ++i)
      if (R.kind[i] == model::RangeKind::kCpuOp && IsValid(R.external_id[i]))
        by_key[{std::string(trace->Str(R.name[i])), R.external_id[i]}].push_back(
            static_cast<uint32_t>(i));
    int64_t n = 0, eq = 0, purpose = 0, bad = 0;
    for (const Row& row : ReadCsv(csv)) {
      if (row.at("GFLOPS").empty() || row.at("External id").empty()) continue;
      std::string name = row.at("name");
      auto it = by_key.find({name, std::stoll(row.at("External id"))});
      if (it == by_key.end() || it->second.size() != 1) continue;
      uint32_t r = it->second[0];
      analysis::ShapeArgs a;
      ASSERT_TRUE(analysis::ParseShapeArgs(trace->Str(R.input_dims[r]), trace->Str(R.input_types[r]),
                                           trace->Str(R.concrete_inputs[r]), &a));
      analysis::OpWork w = analysis::ModelOpWork(name, a);
      double gf = std::stod(row.at("GFLOPS"));
      bool same = std::isfinite(w.flops) && std::abs(w.flops / 1e9 - gf) <= 1e-9 * std::max(1.0, gf);
      if (!row.at("Data Moved (MB)").empty()) {
        double mb = std::stod(row.at("Data Moved (MB)"));
        same = same && std::isfinite(w.bytes) &&
               std::abs(w.bytes / 1048576.0 - mb) <= 1e-9 * std::max(1.0, mb);
      }
      ++n;
      if (same) {
        ++eq;
      } else if (kDifferOnPurpose.count(name) || name.rfind("triton_", 0) == 0) {
        ++purpose;
      } else {
        ++bad;
        ADD_FAILURE() << key << " " << name << " ext " << row.at("External id") << ": ours "
                      << w.flops / 1e9 << " GF " << w.bytes / 1048576.0 << " MiB vs TraceLens "
                      << gf << " GF " << row.at("Data Moved (MB)") << " MiB (" << w.note << ")";
      }
    }
    std::printf("tracelens per-op %-70s compared %lld equal %lld differ-on-purpose %lld\n",
                key.c_str(), static_cast<long long>(n), static_cast<long long>(eq),
                static_cast<long long>(purpose));
    compared += n;
    equal += eq;
    on_purpose += purpose;
    unexpected += bad;
  }
  std::printf("tracelens per-op total: compared %lld equal %lld differ-on-purpose %lld unexpected %lld\n",
              static_cast<long long>(compared), static_cast<long long>(equal),
              static_cast<long long>(on_purpose), static_cast<long long>(unexpected));
  EXPECT_GT(compared, 1000);
  EXPECT_EQ(unexpected, 0);
}

TEST(TraceLensAnchor, GpuTimelineEqualsEveryGolden) {
  std::vector<std::string> keys = GoldenKeys();
  if (keys.empty()) GTEST_SKIP() << "SKIPPED: ../shared/traces/_reference_tracelens not present";
  int checked = 0;
  for (const std::string& key : keys) {
    std::string csv = RefDir() + "/" + key + "/gpu_timeline.csv";
    std::string rel = TraceRel(key);
    if (!fs::exists(csv) || rel.empty()) continue;
    GPUWHY_LOAD_SHARED(trace, rel);
    analysis::TraceLensResult r = analysis::ReproduceTraceLensTimeline(*trace);
    // perf_sheets_only goldens (no ops_instances) were made with unlinked kernels.
    bool linked = fs::exists(RefDir() + "/" + key + "/ops_instances.csv");
    const analysis::TraceLensTimeline& t = linked ? r.linked : r.all;
    ASSERT_TRUE(t.ok) << key << ": " << t.error;
    std::map<std::string, double> ours = {
        {"computation_time", t.computation_us}, {"exposed_comm_time", t.exposed_comm_us},
        {"exposed_memcpy_time", t.exposed_memcpy_us}, {"busy_time", t.busy_us},
        {"idle_time", t.idle_us}, {"total_time", t.total_us},
        {"total_comm_time", t.total_comm_us}, {"total_memcpy_time", t.total_memcpy_us}};
    // TraceLens sums float µs; ours are exact ns: allow 1 ns per event.
    double tol_us = 1e-3 * static_cast<double>(t.events_used) + 1e-6;
    for (const Row& row : ReadCsv(csv)) {
      auto it = ours.find(row.at("type"));
      if (it == ours.end()) continue;
      double golden_us = std::stod(row.at("time ms")) * 1e3;
      EXPECT_NEAR(it->second, golden_us, tol_us) << key << " " << row.at("type");
    }
    std::printf("tracelens timeline %-70s %s events %lld: total %.3f ms busy %.3f ms comp %.3f ms\n",
                key.c_str(), linked ? "linked" : "unlinked", static_cast<long long>(t.events_used),
                t.total_us / 1e3, t.busy_us / 1e3, t.computation_us / 1e3);
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

}  // namespace
}  // namespace gpuwhy
