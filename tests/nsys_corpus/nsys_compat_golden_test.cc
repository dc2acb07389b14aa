// Golden test: gpuwhy's reproductions of `nsys stats` / `nsys analyze` on every
// shared export against the CSVs nsys 2024.2.3 wrote for it
// (../shared/traces/nsys/_reference_nsys2024.2.3/<file-key>/). Same rows,
// numbers within print rounding. A missing CSV means nsys found nothing, unless
// NOTES.txt says nsys refused the file for that rule (then gpuwhy's answer is
// printed, not compared).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/nsys_compat/nsys_compat.h"
#include "import/nsys/nsys_importer.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;
namespace nc = analysis::nsys_compat;

const std::string kDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/nsys";
const std::string kRef = kDir + "/_reference_nsys2024.2.3";

using Row = std::vector<std::string>;

Row ParseCsvLine(const std::string& line) {
  Row out;
  std::string cell;
  bool q = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        q = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      out.push_back(cell);
      cell.clear();
    } else if (c != '\r') {
      cell += c;
    }
  }
  out.push_back(cell);
  return out;
}

// ReadCsv: data rows (header dropped); false when the file is absent.
bool ReadCsv(const std::string& path, std::vector<Row>* rows) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    if (!line.empty()) rows->push_back(ParseCsvLine(line));
  }
  return true;
}

double D(const std::string& s) { return s.empty() ? std::nan("") : std::stod(s); }

std::string FileKey(const std::string& rel) {
  std::string k = rel.substr(0, rel.size() - 7);  // drop ".sqlite"
  for (char& c : k)
    if (c == '/' || c == ' ') c = '_';
  return k;
}

std::string Kind(model::MemoryKind k) {
  static const char* kNames[] = {"Unknown", "Pageable", "Pinned", "Device", "Array",
                                 "Managed", "Device Static", "Managed Static"};
  return kNames[static_cast<int>(k)];
}

// Tally: per report, files compared and rows matched (printed at the end).
std::map<std::string, std::pair<int, int>> g_tally;

void CompareStatReport(const std::string& name, const std::vector<nc::StatRow>& ours,
                       const std::vector<Row>& gold) {
  ASSERT_EQ(ours.size(), gold.size()) << name << ": row count";
  std::map<std::string, const nc::StatRow*> by_name;
  for (const nc::StatRow& r : ours) by_name[r.name] = &r;
  for (const Row& g : gold) {
    ASSERT_EQ(g.size(), 9u);
    auto it = by_name.find(g[8]);
    ASSERT_NE(it, by_name.end()) << name << ": nsys row missing: " << g[8].substr(0, 100);
    EXPECT_NEAR(it->second->time_pct, D(g[0]), 0.051) << name << " " << g[8].substr(0, 80);
    // Columns: Time, Total, Count, Avg, Med, Min, Max, StdDev.
    nc::DurationStats s = it->second->stats;
    EXPECT_EQ(s.total_ns, std::stoll(g[1]));
    EXPECT_EQ(s.count, std::stoll(g[2]));
    EXPECT_NEAR(s.avg_ns, D(g[3]), 0.051 + 1e-9 * s.avg_ns) << name << " " << g[8].substr(0, 80);
    EXPECT_NEAR(s.med_ns, D(g[4]), 0.051) << name << " " << g[8].substr(0, 80);
    EXPECT_EQ(s.min_ns, std::stoll(g[5]));
    EXPECT_EQ(s.max_ns, std::stoll(g[6]));
    EXPECT_NEAR(s.stddev_ns, D(g[7]), 0.051 + 1e-9 * s.stddev_ns) << name << " " << g[8].substr(0, 80);
  }
}

TEST(NsysCompatGolden, EveryExportMatchesNsys) {
  if (!fs::exists(kRef)) GTEST_SKIP() << "SKIPPED: ../shared/traces/nsys/_reference_nsys2024.2.3 not present";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kDir)) {
    std::string p = e.path().string();
    if (p.size() < 7 || p.substr(p.size() - 7) != ".sqlite") continue;
    std::string rel = p.substr(kDir.size() + 1);
    std::string ref = kRef + "/" + FileKey(rel);
    if (!fs::exists(ref)) continue;
    SCOPED_TRACE(rel);
    model::Trace t;
    Status st = import::ReadNsysSqlite(p, t);
    ASSERT_TRUE(st.ok()) << st.message();
    nc::NsysCompatReport rep = nc::ComputeNsysCompat(t);
    std::string notes;
    {
      std::ifstream in(ref + "/NOTES.txt");
      notes.assign(std::istreambuf_iterator<char>(in), {});
    }
    // Refused: nsys skipped the rule for a schema reason, so there is no truth.
    auto refused = [&](const std::string& script) {
      size_t at = notes.find("/" + script + ".py]");
      if (at == std::string::npos) return false;
      size_t nl = notes.find('\n', at);
      size_t nl2 = notes.find('\n', nl + 1);
      std::string next = notes.substr(nl + 1, nl2 - nl - 1);
      return next.find("greenContextId") != std::string::npos ||
             next.find("ENUM_") != std::string::npos;
    };
    auto check = [&](const std::string& csv, const std::string& script, size_t ours_size,
                     auto&& compare) {
      std::vector<Row> gold;
      if (!ReadCsv(ref + "/" + csv, &gold)) {
        if (refused(script)) {
          std::printf("  %s: nsys refused %s; gpuwhy finds %zu rows\n", rel.c_str(),
                      script.c_str(), ours_size);
          return;
        }
        EXPECT_EQ(ours_size, 0u) << csv << ": nsys found nothing";
        g_tally[script].first++;
        return;
      }
      compare(gold);
      g_tally[script].first++;
      g_tally[script].second += static_cast<int>(gold.size());
    };
    check("stats_cuda_gpu_kern_sum.csv", "cuda_gpu_kern_sum", rep.kern_sum.size(),
          [&](const std::vector<Row>& g) { CompareStatReport("kern_sum", rep.kern_sum, g); });
    check("stats_cuda_api_sum.csv", "cuda_api_sum", rep.api_sum.size(),
          [&](const std::vector<Row>& g) { CompareStatReport("api_sum", rep.api_sum, g); });
    check("stats_cuda_gpu_mem_time_sum.csv", "cuda_gpu_mem_time_sum", rep.mem_time_sum.size(),
          [&](const std::vector<Row>& g) { CompareStatReport("mem_time_sum", rep.mem_time_sum, g); });
    check("stats_cuda_kern_exec_sum.csv", "cuda_kern_exec_sum", rep.kern_exec_sum.size(),
          [&](const std::vector<Row>& gold) {
            ASSERT_EQ(rep.kern_exec_sum.size(), gold.size());
            std::map<std::string, const nc::KernExecRow*> by;
            for (const auto& r : rep.kern_exec_sum)
              by[std::to_string(r.pid) + "|" + std::to_string(r.tid) + "|" +
                 std::to_string(r.device_id) + "|" + r.api_name + "|" + r.kernel_name] = &r;
            for (const Row& g : gold) {
              ASSERT_EQ(g.size(), 27u);
              auto it = by.find(g[0] + "|" + g[1] + "|" + g[2] + "|" + g[25] + "|" + g[26]);
              ASSERT_NE(it, by.end()) << "kern_exec row missing: " << g[25] << " " << g[26].substr(0, 80);
              const nc::KernExecRow& r = *it->second;
              EXPECT_EQ(r.total.count, std::stoll(g[3]));
              EXPECT_EQ(r.q_count, std::stoll(g[4]));
              EXPECT_NEAR(r.total.avg_ns, D(g[5]), 0.051 + 1e-9 * r.total.avg_ns);
              EXPECT_EQ(r.total.min_ns, std::stoll(g[7]));
              EXPECT_NEAR(r.api.avg_ns, D(g[10]), 0.051 + 1e-9 * r.api.avg_ns);
              EXPECT_NEAR(r.api.stddev_ns, D(g[14]), 0.051 + 1e-9 * r.api.stddev_ns);
              if (r.q_count > 0) {
                EXPECT_NEAR(r.queue.avg_ns, D(g[15]), 0.051 + 1e-9 * r.queue.avg_ns);
                EXPECT_NEAR(r.queue.med_ns, D(g[16]), 0.051);
              }
              EXPECT_NEAR(r.kernel.avg_ns, D(g[20]), 0.051 + 1e-9 * r.kernel.avg_ns);
              EXPECT_EQ(r.kernel.max_ns, std::stoll(g[23]));
            }
          });
    check("analyze_cuda_api_sync.csv", "cuda_api_sync", rep.api_sync.size(),
          [&](const std::vector<Row>& gold) {
            ASSERT_GE(rep.api_sync.size(), gold.size());
            std::multiset<std::string> ours;
            for (const auto& r : rep.api_sync)
              ours.insert(std::to_string(r.dur_ns) + "|" + std::to_string(r.start_ns) + "|" +
                          std::to_string(r.pid) + "|" + std::to_string(r.tid) + "|" + r.api_name);
            for (size_t i = 0; i < gold.size(); ++i) {
              const Row& g = gold[i];
              EXPECT_EQ(rep.api_sync[i].dur_ns, std::stoll(g[0])) << "row " << i;
              EXPECT_EQ(ours.count(g[0] + "|" + g[1] + "|" + g[2] + "|" + g[3] + "|" + g[4]), 1u)
                  << "api_sync row missing: " << g[0] << " " << g[1] << " " << g[4];
            }
            if (gold.size() < 50) {
              EXPECT_EQ(rep.api_sync.size(), gold.size());
            }
          });
    auto memop = [&](const std::vector<nc::MemopRuleRow>& mine) {
      return [&mine](const std::vector<Row>& gold) {
        ASSERT_GE(mine.size(), gold.size());
        std::multiset<std::string> ours;
        for (const auto& r : mine) {
          char mb[32];
          std::snprintf(mb, sizeof mb, "%.3f", static_cast<double>(r.bytes) / 1e6);
          ours.insert(std::to_string(r.dur_ns) + "|" + std::to_string(r.start_ns) + "|" +
                      Kind(r.src_kind) + "|" + Kind(r.dst_kind) + "|" + mb + "|" +
                      std::to_string(r.pid) + "|" + std::to_string(r.device_id) + "|" +
                      std::to_string(r.stream_id) + "|" + r.api_name);
        }
        for (size_t i = 0; i < gold.size(); ++i) {
          const Row& g = gold[i];
          ASSERT_EQ(g.size(), 11u);
          EXPECT_EQ(mine[i].dur_ns, std::stoll(g[0])) << "row " << i;
          std::string key = g[0] + "|" + g[1] + "|" + g[2] + "|" + g[3] + "|" + g[4] + "|" + g[5] +
                            "|" + g[6] + "|" + g[9] + "|" + g[10];
          EXPECT_EQ(ours.count(key), 1u) << "memop row missing: " << key;
        }
        if (gold.size() < 50) {
          EXPECT_EQ(mine.size(), gold.size());
        }
      };
    };
    check("analyze_cuda_memcpy_async.csv", "cuda_memcpy_async", rep.memcpy_async.size(),
          memop(rep.memcpy_async));
    check("analyze_cuda_memcpy_sync.csv", "cuda_memcpy_sync", rep.memcpy_sync.size(),
          memop(rep.memcpy_sync));
    check("analyze_cuda_memset_sync.csv", "cuda_memset_sync", rep.memset_sync.size(),
          [&](const std::vector<Row>& gold) { EXPECT_EQ(rep.memset_sync.size(), gold.size()); });
    check("analyze_gpu_gaps.csv", "gpu_gaps", rep.gaps.size(), [&](const std::vector<Row>& gold) {
      ASSERT_EQ(rep.gaps.size(), gold.size());
      for (size_t i = 0; i < gold.size(); ++i) {
        EXPECT_EQ(rep.gaps[i].dur_ns, std::stoll(gold[i][1]));
        EXPECT_EQ(rep.gaps[i].start_ns, std::stoll(gold[i][2]));
        EXPECT_EQ(rep.gaps[i].pid, std::stoi(gold[i][3]));
        EXPECT_EQ(rep.gaps[i].device_id, std::stoi(gold[i][4]));
      }
    });
    check("analyze_gpu_time_util.csv", "gpu_time_util", rep.time_util.size(),
          [&](std::vector<Row> gold) {
            // Ties in duration: nsys's order among them is not specified; use start.
            std::stable_sort(gold.begin(), gold.end(), [](const Row& a, const Row& b) {
              return a[2] != b[2] ? std::stoll(a[2]) > std::stoll(b[2])
                                  : std::stoll(a[3]) < std::stoll(b[3]);
            });
            ASSERT_EQ(rep.time_util.size(), gold.size());
            for (size_t i = 0; i < gold.size(); ++i) {
              EXPECT_NEAR(rep.time_util[i].in_use_pct, D(gold[i][1]), 0.051) << "row " << i;
              EXPECT_EQ(rep.time_util[i].dur_ns, std::stoll(gold[i][2])) << "row " << i;
              EXPECT_EQ(rep.time_util[i].start_ns, std::stoll(gold[i][3])) << "row " << i;
              EXPECT_EQ(rep.time_util[i].pid, std::stoi(gold[i][4]));
              EXPECT_EQ(rep.time_util[i].device_id, std::stoi(gold[i][5]));
            }
          });
    ++files;
  }
  EXPECT_GE(files, 15);
  std::printf("compared %d exports against nsys 2024.2.3\n", files);
  for (const auto& [name, n] : g_tally)
    std::printf("  %-22s %2d files, %4d nsys rows compared\n", name.c_str(), n.first, n.second);
}

}  // namespace
}  // namespace gpuwhy
