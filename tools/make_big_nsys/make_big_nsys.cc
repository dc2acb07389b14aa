// make_big_nsys OUT.sqlite [KERNELS=5000000] [--no-runtime]
//
// Writes a synthetic Nsight-Systems-like SQLite export: StringIds (64 kernel
// names + runtime API names), META_DATA_EXPORT, TARGET_INFO_GPU, PROCESSES,
// CUPTI_ACTIVITY_KIND_KERNEL with KERNELS rows (2024.2 column set) and one
// cudaLaunchKernel runtime row per kernel. Deterministic (fixed LCG). Write it
// under /tmp or a build folder, never into the repository.
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_big_nsys OUT.sqlite [KERNELS]\n");
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
