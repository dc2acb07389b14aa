// make_big_nsys OUT.sqlite [KERNELS=5000000] [--no-runtime]
// make_big_nsys --fuzz-seeds DIR
// make_big_nsys --uvm OUT.sqlite
//
// Writes a synthetic Nsight-Systems-like SQLite export: StringIds (64 kernel
// names + runtime API names), META_DATA_EXPORT, TARGET_INFO_GPU, PROCESSES,
// CUPTI_ACTIVITY_KIND_KERNEL with KERNELS rows (2024.2 column set) and one
// cudaLaunchKernel runtime row per kernel. Deterministic (fixed LCG). Write it
// under /tmp or a build folder, never into the repository.
//
// --uvm OUT.sqlite writes a small Unified Memory program export with known
// answers: 20 kernels of 1 ms, 0.5 ms apart; before each kernel but the first
// a 2 MiB page-fault migration HtoD of 300 µs in the gap, inside each kernel a
// 1 MiB one of 200 µs, after every 5th kernel a 64 KiB eviction DtoH of 50 µs
// (copyKind 11/12, migrationCause 2/4), and one explicit pageable HtoD copy.
// Inside the kernel span: 42 migrations, 9.85 ms union (4.0 ms beside
// kernels, 5.85 ms in gaps) of a 29.5 ms span.
//
// --fuzz-seeds DIR writes the small seed exports of fuzz/nsys/corpus (512-byte
// pages so each is a few KiB): every table the importer reads; a 2022-style
// export (EXPORT_META_DATA, GENERIC_EVENTS JSON, invalid UTF-8, NULL starts);
// and a foreign (non-nsys) database.
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

bool Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "make_big_nsys: %s\n", err ? err : "?");
    sqlite3_free(err);
    return false;
  }
  return true;
}

// Seeds: name and SQL of each fuzz seed (synthetic values, nsys column names).
constexpr const char* kSeedFull = R"SQL(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*)'), (2, 'gemm'),
  (3, 'cudaLaunchKernel_v7000'), (4, 'cuLaunchKernel'), (5, 'step'), (6, 'NCCL'),
  (7, 'pthread_cond_wait'), (8, 'CUDA profiling data flush overhead'), (9, 'main');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
CREATE TABLE TARGET_INFO_GPU (id INT, cuDevice INT, name TEXT, uuid TEXT, smCount INT,
  computeMajor INT, computeMinor INT, totalMemory INT, threadsPerWarp INT, maxWarpsPerSm INT,
  busLocation TEXT);
INSERT INTO TARGET_INFO_GPU VALUES (3, 1, 'NVIDIA A100', 'GPU-x', 108, 8, 0, 85899345920, 32, 64,
  '0000:82:00.0');
CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT);
INSERT INTO PROCESSES VALUES (72057594037927936 + 4242 * 16777216, 4242, 'python');
CREATE TABLE ThreadNames (nameId INT, priority INT, globalTid INT);
INSERT INTO ThreadNames VALUES (9, 0, 72057594037927936 + 4242 * 16777216 + 4243);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT,
  contextId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,
  gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT,
  staticSharedMemory INT, dynamicSharedMemory INT, graphId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000, 3000, 1, 1, 7, 11, 72057594037927936 + 4242 * 16777216, 1, 2, 4, 1, 1, 256, 1, 1, 64,
   1024, 2048, NULL),
  (1000, 900, 1, 1, 7, 10, 72057594037927936 + 4242 * 16777216, NULL, 2, 1, 1, 1, 32, 1, 1, 16,
   0, 0, 5);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT,
  correlationId INT, nameId INT, returnValue INT, callchainId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (900, 950, 0, 72057594037927936 + 4242 * 16777216 + 4243, 10, 3, 0, 0),
  (1900, 1950, 1, 72057594037927936 + 4242 * 16777216 + 4243, 11, 4, 0, 0),
  (1960, 1970, 7, 72057594037927936 + 4242 * 16777216 + 4243, 12, 3, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, contextId INT,
  streamId INT, correlationId INT, globalPid INT, bytes INT, copyKind INT, srcKind INT,
  dstKind INT, srcDeviceId INT, dstDeviceId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 20, 1, 1, 7, 1, 0, 4096, 1, 0, 2, NULL, NULL),
  (50, 60, 1, 1, 7, 3, 0, 1, 12, 9, 9, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT, contextId INT,
  streamId INT, correlationId INT, globalPid INT, value INT, bytes INT, memKind INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (70, 80, 1, 1, 7, 4, 0, 0, 64, 4);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INT, end INT, deviceId INT,
  contextId INT, streamId INT, correlationId INT, globalPid INT, syncType INT, eventId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (3000, 3500, 1, 1, -1, 20, 0, 4, NULL);
CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, rangeId INT, category INT,
  color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES (100, 200, 59, NULL, NULL, NULL, NULL, 16777216 * 5 + 6, NULL, 5, 0),
  (300, 400, 60, NULL, NULL, NULL, 'ncclAllReduce', 16777216 * 5 + 6, NULL, NULL, 2),
  (500, NULL, 34, NULL, NULL, NULL, 'mark', 16777216 * 5 + 6, NULL, NULL, 0),
  (0, NULL, 75, NULL, NULL, NULL, NULL, 16777216 * 5 + 6, NULL, 6, 2);
CREATE TABLE OSRT_API (start INT, end INT, eventClass INT, globalTid INT, nameId INT);
INSERT INTO OSRT_API VALUES (10, 5000, 27, 72057594037927936 + 4242 * 16777216 + 4243, 7);
CREATE TABLE PROFILER_OVERHEAD (start INT, end INT, globalTid INT, nameId INT, returnValue INT);
INSERT INTO PROFILER_OVERHEAD VALUES (4000, 4100, 72057594037927936 + 4242 * 16777216, 8, 0);
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INT, sourceId INT, typeName TEXT, metricId INT,
  metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (65539, 0, '', 0, 'SMs Active [Throughput %]'),
  (65539, 0, '', 1, 'GPC Clock Frequency'), (65539, 0, '', 2, 'DRAM Read Bandwidth'),
  (65539, 0, '', 3, 'DRAM Write Bandwidth');
CREATE TABLE GPU_METRICS (timestamp INT, typeId INT, metricId INT, value INT);
INSERT INTO GPU_METRICS VALUES (0, 65539, 0, 50), (100, 65539, 0, 100),
  (0, 65539, 1, 1500000000), (100, 65539, 1, -1964454041),
  (0, 65539, 2, 10), (100, 65539, 2, 20), (0, 65539, 3, 5), (100, 65539, 3, 5);
)SQL";

// 2022-style metrics (GENERIC_EVENTS JSON) and invalid UTF-8 in StringIds.
constexpr const char* kSeedGeneric = R"SQL(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, CAST(X'6B65726E656CFF41' AS TEXT));
CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);
INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, demangledName INT);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 1), (NULL, 5, 0, 1), (7, 9, 0, 99);
CREATE TABLE GENERIC_EVENTS (rawTimestamp INT, timestamp INT, typeId INT, data TEXT);
INSERT INTO GENERIC_EVENTS VALUES (0, 0, 1, '{"SM Active": "50", "GR Active": 70}'),
  (100, 100, 1, '{"SM Active": "x", "Tensor Active": 3.5}'), (200, NULL, 1, '[1, 2');
)SQL";

constexpr const char* kSeedForeign = R"SQL(
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO users VALUES (1, 'a'), (2, 'b');
)SQL";

// WriteSeeds: one small export per seed under `dir`; false on any error.
bool WriteSeeds(const std::string& dir) {
  struct Seed {
    const char* name;
    const char* sql;
  };
  const Seed seeds[] = {{"full.sqlite", kSeedFull},
                        {"generic_events.sqlite", kSeedGeneric},
                        {"foreign.sqlite", kSeedForeign}};
  for (const Seed& seed : seeds) {
    std::string path = dir + "/" + seed.name;
    std::remove(path.c_str());
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
              Exec(db, "PRAGMA page_size=512; PRAGMA journal_mode=OFF;") && Exec(db, seed.sql) &&
              Exec(db, "VACUUM;");
    sqlite3_close(db);
    if (!ok) return false;
    std::printf("wrote %s\n", path.c_str());
  }
  return true;
}

// WriteUvm: the --uvm export (see the file comment); false on any error.
bool WriteUvm(const std::string& path) {
  std::string sql = R"SQL(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'void saxpy_managed(float*, float const*, int)'), (2, 'saxpy_managed'),
  (3, 'cudaLaunchKernel_v7000');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
CREATE TABLE TARGET_INFO_GPU (vmId INT, id INT, name TEXT, busLocation TEXT, totalMemory INT,
  smCount INT, uuid TEXT, cuDevice INT, threadsPerWarp INT, maxWarpsPerSm INT,
  computeMajor INT, computeMinor INT);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA RTX A5000', '0000:3b:00.0', 25283526656,
  64, 'GPU-uvm', 0, 32, 48, 8, 6);
CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT);
INSERT INTO PROCESSES VALUES (72057594037927936 + 1000 * 16777216, 1000, 'python');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT,
  contextId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,
  gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT,
  staticSharedMemory INT, dynamicSharedMemory INT, graphId INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT,
  correlationId INT, nameId INT, returnValue INT, callchainId INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
)SQL";
  const long long gpid = 72057594037927936LL + 1000LL * 16777216LL;
  char b[512];
  // The explicit copy: 4 MiB pageable -> device before everything.
  std::snprintf(b, sizeof b,
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (999000000, 999400000, 0, 1, NULL, 7, 1, "
                "%lld, 4194304, 1, NULL, 0, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL);\n",
                gpid);
  sql += b;
  for (int i = 0; i < 20; ++i) {
    const long long ks = 1000000000LL + i * 1500000LL, ke = ks + 1000000LL;
    std::snprintf(b, sizeof b,
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%lld, %lld, 0, 1, 7, %d, %lld, 1, 2, "
                  "256, 1, 1, 256, 1, 1, 32, 0, 0, NULL);\n"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%lld, %lld, 0, %lld, %d, 3, 0, NULL);\n",
                  ks, ke, 100 + i, gpid, ks - 20000, ks - 10000, gpid + 1000, 100 + i);
    sql += b;
    auto mig = [&](long long s, long long e, long long bytes, int kind, int cause) {
      std::snprintf(b, sizeof b,
                    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (%lld, %lld, 0, 1, NULL, 0, NULL, %lld, "
                    "%lld, %d, NULL, NULL, NULL, NULL, NULL, NULL, NULL, %d, NULL, %lld);\n",
                    s, e, gpid, bytes, kind, cause, 0x7f0000000000LL + s);
      sql += b;
    };
    mig(ks - 400000, ks - 100000, 2 << 20, 11, 2);
    mig(ks + 100000, ks + 300000, 1 << 20, 11, 2);
    if (i % 5 == 4) mig(ke + 50000, ke + 100000, 64 << 10, 12, 4);
  }
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
            Exec(db, "PRAGMA page_size=1024; PRAGMA journal_mode=OFF;") && Exec(db, sql.c_str()) &&
            Exec(db, "VACUUM;");
  sqlite3_close(db);
  if (ok) std::printf("wrote %s\n", path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--fuzz-seeds") return WriteSeeds(argv[2]) ? 0 : 1;
  if (argc == 3 && std::string(argv[1]) == "--uvm") return WriteUvm(argv[2]) ? 0 : 1;
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: make_big_nsys OUT.sqlite [KERNELS] [--no-runtime]\n"
                 "       make_big_nsys --fuzz-seeds DIR\n"
                 "       make_big_nsys --uvm OUT.sqlite\n");
    return 2;
  }
  const std::string out = argv[1];
  const long long n = argc > 2 ? std::atoll(argv[2]) : 5000000;
  // --no-runtime: kernels only, so a benchmark measures the kernel path alone.
  const bool runtime = !(argc > 3 && std::string(argv[3]) == "--no-runtime");
  std::remove(out.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(out.c_str(), &db) != SQLITE_OK) {
    std::fprintf(stderr, "make_big_nsys: cannot create %s\n", out.c_str());
    return 2;
  }
  bool ok = Exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") &&
            Exec(db, R"SQL(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
CREATE TABLE TARGET_INFO_GPU (vmId INT, id INT, name TEXT, busLocation TEXT, totalMemory INT,
  smCount INT, uuid TEXT, cuDevice INT, threadsPerWarp INT, maxWarpsPerSm INT,
  computeMajor INT, computeMinor INT);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100-SXM4-80GB', '0000:07:00.0', 85899345920,
  108, 'GPU-synthetic', 0, 32, 64, 8, 0);
CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT);
INSERT INTO PROCESSES VALUES (72057594037927936 + 1000 * 16777216, 1000, 'python');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
)SQL");
  sqlite3_stmt* s = nullptr;
  ok = ok && sqlite3_prepare_v2(db, "INSERT INTO StringIds VALUES (?, ?)", -1, &s, nullptr) == SQLITE_OK;
  for (int i = 0; ok && i < 64; ++i) {
    std::string name = "void synthetic_kernel_" + std::to_string(i) + "<float, 128>(float const*, float*, int)";
    sqlite3_bind_int(s, 1, i + 1);
    sqlite3_bind_text(s, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    ok = sqlite3_step(s) == SQLITE_DONE;
    sqlite3_reset(s);
  }
  sqlite3_bind_int(s, 1, 100);
  sqlite3_bind_text(s, 2, "cudaLaunchKernel_v7000", -1, SQLITE_STATIC);
  ok = ok && sqlite3_step(s) == SQLITE_DONE;
  sqlite3_finalize(s);
  sqlite3_stmt* k = nullptr;
  sqlite3_stmt* r = nullptr;
  ok = ok && sqlite3_prepare_v2(db,
                                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,NULL,7,?,?,?,?,NULL,0,0,"
                                "?,?,1,1,?,1,1,?,0,0,0,?,0,NULL,0)",
                                -1, &k, nullptr) == SQLITE_OK;
  ok = ok && sqlite3_prepare_v2(db,
                                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,100,0,NULL)",
                                -1, &r, nullptr) == SQLITE_OK;
  const int64_t gpid = 72057594037927936LL + 1000LL * 16777216LL;
  uint64_t lcg = 12345;
  int64_t t = 1000000000;
  for (long long i = 0; ok && i < n; ++i) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    int name = static_cast<int>((lcg >> 33) % 64) + 1;
    int64_t dur = 2000 + static_cast<int64_t>((lcg >> 20) % 50000);
    int64_t gap = static_cast<int64_t>((lcg >> 40) % 3000);
    sqlite3_bind_int64(k, 1, t);
    sqlite3_bind_int64(k, 2, t + dur);
    sqlite3_bind_int64(k, 3, i + 1);
    sqlite3_bind_int64(k, 4, gpid);
    sqlite3_bind_int(k, 5, name);
    sqlite3_bind_int(k, 6, name);
    sqlite3_bind_int(k, 7, 32 + name);
    sqlite3_bind_int(k, 8, 108 * (1 + name % 4));
    sqlite3_bind_int(k, 9, 128);
    sqlite3_bind_int(k, 10, 4096);
    sqlite3_bind_int64(k, 11, i + 1);
    ok = sqlite3_step(k) == SQLITE_DONE;
    sqlite3_reset(k);
    if (!runtime) {
      t += dur + gap;
      continue;
    }
    sqlite3_bind_int64(r, 1, t - 8000);
    sqlite3_bind_int64(r, 2, t - 3000);
    sqlite3_bind_int64(r, 3, gpid + 1001);
    sqlite3_bind_int64(r, 4, i + 1);
    ok = ok && sqlite3_step(r) == SQLITE_DONE;
    sqlite3_reset(r);
    t += dur + gap;
  }
  sqlite3_finalize(k);
  sqlite3_finalize(r);
  ok = ok && Exec(db, "COMMIT;");
  sqlite3_close(db);
  if (!ok) return 1;
  std::printf("wrote %s: %lld kernel rows, %lld runtime rows\n", out.c_str(), n, runtime ? n : 0);
  return 0;
}
