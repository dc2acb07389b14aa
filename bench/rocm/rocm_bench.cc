// rocm_bench [--rows N] [--repeat R] [--dir DIR] NSYS.sqlite
//
// --dir DIR keeps the databases in DIR and reuses them when present (for
// profiling the readers alone).
// Writes three synthetic databases of N kernel dispatches, each with one
// launching API call per dispatch (joined on the correlation id), into a
// temp folder: a rocprofv3 rocpd database (schema 3, start/end in the rows),
// a rocmProfileData RPD and a rocprof v1 results.db. Then, R rounds each, it
// imports NSYS.sqlite (the baseline: `make_big_nsys OUT N` writes one
// kernel and one runtime row per launch, the same shape) and each database
// through the registry's readers into a fresh Trace, and prints per reader
// the best round's wall time, table rows/s (every row of every table the
// reader scans: for nsys the kernel, runtime and string rows it reports, for
// the others every row of their database, all of which they read), event
// rows/s (kernels + API calls: rocpd spends 2 more rows per launch on
// rocpd_event, RPD 2 on rocpd_api_ops / rocpd_kernelapi) and the peak RSS of
// that reader alone (VmHWM, reset through /proc/self/clear_refs before
// each). The machine may be shared: best-of-R wall.
//
// The rocprofv3 CSV reader runs on a kernel_trace.csv of N dispatches in the
// layout of ROCm 6.3+ (quoted cells, "Agent N", per-axis sizes), beside a
// baseline pass over the same bytes that only splits lines and counts commas
// (the least any CSV reader does): MB/s and rows/s of both.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "import/nsys/nsys_importer.h"
#include "import/rocm/rocm_sqlite_importer.h"
#include "import/rocm/rocprof_csv_importer.h"

namespace {

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite: %s\n", err ? err : "?");
    sqlite3_free(err);
    return false;
  }
  return true;
}

bool Make(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  bool ok = Exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") &&
            Exec(db, sql) && Exec(db, "COMMIT;");
  sqlite3_close(db);
  return ok;
}

// Numbers 1..N as a CTE prefix for INSERT ... SELECT.
std::string Seq(long n) {
  return "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
         std::to_string(n) + ") ";
}

std::string RocpdSql(long n) {
  return "CREATE TABLE rocpd_string_b (id INTEGER PRIMARY KEY, string TEXT NOT NULL);"
         "CREATE TABLE rocpd_info_process_b (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,"
         " command TEXT);"
         "CREATE TABLE rocpd_info_thread_b (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,"
         " tid INTEGER);"
         "CREATE TABLE rocpd_info_agent_b (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,"
         " type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER,"
         " name TEXT, generic_name TEXT, product_name TEXT, extdata JSONB);"
         "CREATE TABLE rocpd_info_kernel_symbol_b (id INTEGER PRIMARY KEY, kernel_name TEXT,"
         " display_name TEXT, arch_vgpr_count INTEGER);"
         "CREATE TABLE rocpd_event_b (id INTEGER PRIMARY KEY, category_id INTEGER,"
         " correlation_id INTEGER);"
         "CREATE TABLE rocpd_region_b (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,"
         " tid INTEGER, start BIGINT, \"end\" BIGINT, name_id INTEGER, event_id INTEGER);"
         "CREATE TABLE rocpd_kernel_dispatch_b (id INTEGER PRIMARY KEY, nid INTEGER,"
         " pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER,"
         " queue_id INTEGER, stream_id INTEGER, start BIGINT, \"end\" BIGINT,"
         " private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER,"
         " workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER,"
         " grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id INTEGER);"
         "INSERT INTO rocpd_string_b VALUES (1, 'HIP_RUNTIME_API_EXT'), (2, 'hipLaunchKernel');"
         "INSERT INTO rocpd_info_process_b VALUES (1, 1, 4242, 'bench');"
         "INSERT INTO rocpd_info_thread_b VALUES (1, 1, 1, 4242);"
         "INSERT INTO rocpd_info_agent_b VALUES (1, 1, 1, 'GPU', 1, 0, 0, 'AMD Instinct MI300X',"
         " 'gfx942', 'AMD Instinct MI300X', '{\"cu_count\": 304}');" +
         Seq(64) + "INSERT INTO rocpd_info_kernel_symbol_b SELECT i, 'kernel_' || i || '.kd',"
         " 'kernel_' || i || '(float*, int)', 32 FROM n;" +
         Seq(2 * n) + "INSERT INTO rocpd_event_b SELECT i, CASE WHEN i > " + std::to_string(n) +
         " THEN 1 ELSE NULL END, ((i - 1) % " + std::to_string(n) + ") + 1 FROM n;" + Seq(n) +
         "INSERT INTO rocpd_kernel_dispatch_b SELECT i, 1, 1, 1, 1, 1 + i % 64, i, 1, 1,"
         " i * 2000, i * 2000 + 1500, 0, 1024, 256, 1, 1, 65536, 1, 1, NULL, i FROM n;" +
         Seq(n) + "INSERT INTO rocpd_region_b SELECT i, 1, 1, 1, i * 2000 - 600, i * 2000 - 100,"
         " 2, " + std::to_string(n) + " + i FROM n;";
}

std::string RpdSql(long n) {
  return "CREATE TABLE rocpd_string (id integer PRIMARY KEY, string varchar(4096));"
         "CREATE TABLE rocpd_op (id integer PRIMARY KEY, gpuId integer, queueId integer,"
         " sequenceId integer, completionSignal varchar(18), start integer, \"end\" integer,"
         " description_id integer, opType_id integer);"
         "CREATE TABLE rocpd_api (id integer PRIMARY KEY, pid integer, tid integer,"
         " start integer, \"end\" integer, apiName_id integer, args_id integer);"
         "CREATE TABLE rocpd_api_ops (id integer PRIMARY KEY, api_id integer, op_id integer);"
         "CREATE TABLE rocpd_kernelapi (api_ptr_id integer PRIMARY KEY, stream varchar(18),"
         " gridX integer, gridY integer, gridZ integer, workgroupX integer,"
         " workgroupY integer, workgroupZ integer, groupSegmentSize integer,"
         " privateSegmentSize integer, kernelName_id integer);"
         "INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel'),"
         " (3, 'KernelExecution');" +
         Seq(64) + "INSERT INTO rocpd_string SELECT 3 + i, 'kernel_' || i FROM n;" + Seq(n) +
         "INSERT INTO rocpd_api SELECT i, 4242, 4242, i * 2000 - 600, i * 2000 - 100, 2, 1"
         " FROM n;" +
         Seq(n) + "INSERT INTO rocpd_op SELECT i, 0, 0, i, '', i * 2000, i * 2000 + 1500,"
         " 4 + i % 64, 3 FROM n;" +
         Seq(n) + "INSERT INTO rocpd_api_ops SELECT i, i, i FROM n;" + Seq(n) +
         "INSERT INTO rocpd_kernelapi SELECT i, '0x1', 256, 1, 1, 256, 1, 1, 1024, 0,"
         " 4 + i % 64 FROM n;";
}

std::string V1Sql(long n) {
  return "CREATE TABLE HIP (BeginNs INTEGER, EndNs INTEGER, pid INTEGER, tid INTEGER,"
         " Name TEXT, args TEXT, \"Index\" INTEGER);"
         "CREATE TABLE OPS (BeginNs INTEGER, EndNs INTEGER, \"dev-id\" INTEGER,"
         " \"queue-id\" INTEGER, Name TEXT, pid INTEGER, tid INTEGER, \"Index\" INTEGER);"
         "CREATE TABLE KERN (\"Index\" INTEGER, KernelName TEXT);" +
         Seq(n) + "INSERT INTO HIP SELECT i * 2000 - 600, i * 2000 - 100, 4242, 4242,"
         " 'hipLaunchKernel', '', i FROM n;" +
         Seq(n) + "INSERT INTO OPS SELECT i * 2000, i * 2000 + 1500, 0, 0,"
         " 'kernel_' || (i % 64) || '(float*) [clone .kd]', 4242, 4242, i FROM n;";
}

struct Result {
  double best_s = 1e30;
  size_t kernels = 0, api = 0;
  uint64_t table_rows = 0;
  long rss_kb = 0;
};

// TableRows: rows of every table in the database at `path`.
uint64_t TableRows(const std::string& path) {
  sqlite3* db = nullptr;
  uint64_t n = 0;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    std::vector<std::string> tables;
    sqlite3_exec(
        db, "SELECT name FROM sqlite_master WHERE type='table'",
        [](void* p, int, char** v, char**) {
          static_cast<std::vector<std::string>*>(p)->emplace_back(v[0] ? v[0] : "");
          return 0;
        },
        &tables, nullptr);
    for (const std::string& t : tables) {
      std::string q = "SELECT count(*) FROM \"" + t + "\"";
      sqlite3_exec(
          db, q.c_str(),
          [](void* p, int, char** v, char**) {
            *static_cast<uint64_t*>(p) += v[0] ? std::strtoull(v[0], nullptr, 10) : 0;
            return 0;
          },
          &n, nullptr);
    }
  }
  sqlite3_close(db);
  return n;
}

template <typename Fn>
bool Measure(const char* what, int repeat, Fn&& read, Result* r) {
  for (int i = 0; i < repeat; ++i) {
    ResetPeakRss();
    gpuwhy::model::Trace t;
    double t0 = Now();
    gpuwhy::Status s = read(t);
    double dt = Now() - t0;
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", what, s.message().c_str());
      return false;
    }
    if (dt < r->best_s) r->best_s = dt;
    r->kernels = t.kernels.size();
    r->api = t.api_calls.size();
    long rss = PeakRssKb();
    if (rss > r->rss_kb) r->rss_kb = rss;
  }
  double rows = static_cast<double>(r->kernels + r->api);
  std::printf("  %-16s %8zu kernels %8zu api %9llu table rows  %.3f s  %6.2f M table rows/s  "
              "%5.2f M event rows/s  peak RSS %ld MiB\n",
              what, r->kernels, r->api, static_cast<unsigned long long>(r->table_rows), r->best_s,
              static_cast<double>(r->table_rows) / r->best_s / 1e6, rows / r->best_s / 1e6,
              r->rss_kb / 1024);
  return true;
}

std::string KernelTraceCsv(long n) {
  std::string s =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  s.reserve(static_cast<size_t>(n) * 260);
  char buf[512];
  for (long i = 1; i <= n; ++i) {
    int len = std::snprintf(
        buf, sizeof buf,
        "\"KERNEL_DISPATCH\",\"Agent 2\",\"1\",\"0\",\"4242\",\"%ld\",\"%ld\","
        "\"void gemm_kernel_%ld<float, 128, 64>(float const*, float const*, float*, int) [clone "
        ".kd]\",\"%ld\",\"%ld\",\"%ld\",\"1024\",\"0\",\"32\",\"0\",\"24\",\"256\",\"1\","
        "\"1\",\"65536\",\"1\",\"1\"\n",
        i, i % 64, i % 64, i, 1000000000L + i * 2000, 1000000000L + i * 2000 + 1500);
    s.append(buf, static_cast<size_t>(len));
  }
  return s;
}

void CsvBench(long n, int repeat) {
  std::string text = KernelTraceCsv(n);
  double mb = static_cast<double>(text.size()) / 1e6;
  double best_base = 1e30, best = 1e30;
  size_t lines = 0, commas = 0, kernels = 0;
  long rss_kb = 0;
  for (int i = 0; i < repeat; ++i) {
    double t0 = Now();
    lines = commas = 0;
    for (char c : text) {
      lines += c == '\n';
      commas += c == ',';
    }
    best_base = std::min(best_base, Now() - t0);
    ResetPeakRss();
    gpuwhy::model::Trace t;
    t0 = Now();
    gpuwhy::Status st = gpuwhy::import::ParseRocprofCsv(text, "bench.csv", t);
    double dt = Now() - t0;
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return;
    }
    best = std::min(best, dt);
    kernels = t.kernels.size();
    rss_kb = std::max(rss_kb, PeakRssKb());
  }
  std::printf("rocprofv3 kernel_trace.csv, %.1f MB, %zu lines (%zu commas):\n", mb, lines, commas);
  std::printf("  %-16s %.3f s  %7.1f MB/s\n", "baseline (scan)", best_base, mb / best_base);
  std::printf("  %-16s %.3f s  %7.1f MB/s  %5.2f M rows/s  %zu kernels  peak RSS %ld MiB\n",
              "rocprofv3-csv", best, mb / best, static_cast<double>(kernels) / best / 1e6, kernels,
              rss_kb / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  long rows = 1000000;
  int repeat = 3;
  std::string nsys, keep;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) {
      rows = std::atol(argv[++i]);
    } else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) {
      keep = argv[++i];
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      nsys = argv[i];
    }
  }
  if (nsys.empty() || rows <= 0 || repeat <= 0) {
    std::fprintf(stderr, "usage: rocm_bench [--rows N] [--repeat R] NSYS.sqlite\n");
    return 1;
  }
  std::string dir = !keep.empty() ? keep
                                  : (std::filesystem::temp_directory_path() /
                                     ("gpuwhy_rocm_bench_" + std::to_string(::getpid())))
                                        .string();
  std::filesystem::create_directories(dir);
  std::string rocpd = dir + "/rocpd.db", rpd = dir + "/bench.rpd", v1 = dir + "/results.db";
  double t0 = Now();
  bool reuse = !keep.empty() && std::filesystem::exists(v1);
  if (!reuse &&
      (!Make(rocpd, RocpdSql(rows)) || !Make(rpd, RpdSql(rows)) || !Make(v1, V1Sql(rows))))
    return 1;
  std::printf("wrote 3 databases of %ld dispatches in %.1f s; best of %d rounds:\n", rows,
              Now() - t0, repeat);
  Result base, a, b, c;
  a.table_rows = TableRows(rocpd);
  b.table_rows = TableRows(rpd);
  c.table_rows = TableRows(v1);
  bool ok = Measure("nsys (baseline)", repeat,
                    [&](gpuwhy::model::Trace& t) {
                      gpuwhy::import::NsysScanStats scan;
                      gpuwhy::Status s = gpuwhy::import::ReadNsysSqlite(nsys, t, &scan);
                      base.table_rows = scan.kernel_rows + scan.runtime_rows + scan.string_rows +
                                        scan.memcpy_rows + scan.memset_rows + scan.sync_rows +
                                        scan.nvtx_rows + scan.osrt_rows + scan.metric_rows;
                      return s;
                    },
                    &base) &&
            Measure("rocpd-sqlite", repeat,
                    [&](gpuwhy::model::Trace& t) { return gpuwhy::import::ReadRocmSqlite(rocpd, t); },
                    &a) &&
            Measure("rpd-sqlite", repeat,
                    [&](gpuwhy::model::Trace& t) { return gpuwhy::import::ReadRocmSqlite(rpd, t); },
                    &b) &&
            Measure("rocprof-v1-db", repeat,
                    [&](gpuwhy::model::Trace& t) { return gpuwhy::import::ReadRocmSqlite(v1, t); },
                    &c);
  if (keep.empty()) std::filesystem::remove_all(dir);
  if (!ok) return 1;
  auto rate = [](const Result& r) { return static_cast<double>(r.kernels + r.api) / r.best_s; };
  auto trate = [](const Result& r) { return static_cast<double>(r.table_rows) / r.best_s; };
  std::printf("vs nsys table rows/s: rocpd %.2fx, rpd %.2fx, rocprof v1 %.2fx\n",
              trate(a) / trate(base), trate(b) / trate(base), trate(c) / trate(base));
  std::printf("vs nsys event rows/s: rocpd %.2fx, rpd %.2fx, rocprof v1 %.2fx\n",
              rate(a) / rate(base), rate(b) / rate(base), rate(c) / rate(base));
  CsvBench(rows, repeat);
  return 0;
}
