// Tests of SqlitePageReader: the direct file-format reader must give the
// kernel columns bit-identical to the sqlite3 path (NsysReadOptions::
// direct_reader off) on generated databases of every page size and layout
// it claims, fall back (same result) on the layouts it does not, never crash
// on corrupted pages, and match on every shared export.
#include "import/nsys/sqlite_page_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/sanitizer.h"
#include "base/units.h"
#include "import/nsys/nsys_importer.h"

namespace gpuwhy::import {
namespace {

namespace fs = std::filesystem;

// ExpectSameKernels: every kernel column and import counter of `a` and `b` match.
void ExpectSameKernels(const model::Trace& a, const model::Trace& b) {
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
#define GPUWHY_TEST_SAME(type, name, def) \
  EXPECT_TRUE(model::SameBits(a.kernels.name, b.kernels.name)) << "kernel column " #name " differs";
  GPUWHY_KERNEL_COLUMNS(GPUWHY_TEST_SAME)
#undef GPUWHY_TEST_SAME
  ASSERT_EQ(a.api_calls.size(), b.api_calls.size());
#define GPUWHY_TEST_SAME(type, name, def) \
  EXPECT_TRUE(model::SameBits(a.api_calls.name, b.api_calls.name)) << "api column " #name " differs";
  GPUWHY_API_COLUMNS(GPUWHY_TEST_SAME)
#undef GPUWHY_TEST_SAME
  for (size_t i = 0; i < model::kImportStatCount; ++i)
    EXPECT_EQ(a.stats.Get(i), b.stats.Get(i)) << model::kImportStatInfo[i].name;
}

// DbShape: one generated export's layout.
struct DbShape {
  int page_size = 4096;
  int reserved = 0;  // reserved bytes at the end of each page
  int rows = 3000;
  bool ipk = false;  // correlationId INTEGER PRIMARY KEY (the rowid)
  int text_max = 0;  // mangledName text up to this many bytes (overflow pages)
  std::string
      alter_default;         // "" = no ALTER; else "DEFAULT ..." clause of added graphId ("-" none)
  bool delete_some = false;  // leave freeblocks and free pages behind
  std::string odd_value;     // SQL literal put in gridX of a few rows ("'abc'", "1.5", ...)
  bool wal = false;
  bool without_rowid = false;
};

class PageReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuwhy_page_reader_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "") << " in " << sql;
    sqlite3_free(err);
  }

  std::string Make(const std::string& name, const DbShape& s) {
    std::string path = (dir_ / name).string();
    fs::remove(path);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    Exec(db, fmt::format("PRAGMA page_size={}", s.page_size));
    if (s.reserved > 0) {
      int n = s.reserved;
      EXPECT_EQ(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &n), SQLITE_OK);
    }
    if (s.wal) Exec(db, "PRAGMA journal_mode=WAL");
    Exec(db,
         "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
         "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
         "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.24.0');"
         "INSERT INTO StringIds VALUES (0, 'k0'), (1, 'k1'), (2, 'k2'), (3, 'k3');");
    std::string corr = s.ipk ? "correlationId INTEGER PRIMARY KEY" : "correlationId INTEGER";
    if (s.without_rowid) corr = "correlationId INTEGER PRIMARY KEY";
    Exec(db, fmt::format(
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
                 "deviceId INTEGER, contextId INTEGER, streamId INTEGER, {}, globalPid INTEGER, "
                 "demangledName INTEGER, shortName INTEGER, mangledName TEXT, gridX INTEGER, "
                 "gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, "
                 "registersPerThread INTEGER, staticSharedMemory INTEGER, "
                 "dynamicSharedMemory INTEGER){}",
                 corr, s.without_rowid ? " WITHOUT ROWID" : ""));
    std::mt19937_64 rng(static_cast<uint64_t>(s.page_size * 31 + s.rows + s.text_max));
    // Values of every serial type: NULL, 0/1 constants, 1..8-byte ints, edges.
    const int64_t kSpecial[] = {0,
                                1,
                                -1,
                                127,
                                -128,
                                32767,
                                -32768,
                                8388607,
                                -8388608,
                                2147483647,
                                -2147483648LL,
                                2147483648LL,
                                -2147483649LL,
                                (int64_t{1} << 47) - 1,
                                -(int64_t{1} << 47),
                                INT64_MAX,
                                INT64_MIN,
                                INT64_MIN + 1};
    auto value = [&](bool nullable) -> std::string {
      uint64_t r = rng() % 20;
      if (r == 0 && nullable) return "NULL";
      if (r < 8) return std::to_string(kSpecial[rng() % std::size(kSpecial)]);
      return std::to_string(static_cast<int64_t>(rng() % 2000000) - 1000000);
    };
    Exec(db, "BEGIN");
    for (int i = 0; i < s.rows; ++i) {
      if (!s.alter_default.empty() && i == s.rows / 2) {
        Exec(db, "COMMIT");
        std::string d = s.alter_default == "-" ? "" : s.alter_default;
        Exec(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN graphId INTEGER " + d);
        Exec(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN extra TEXT");
        Exec(db, "BEGIN");
      }
      int64_t start = static_cast<int64_t>(rng() % 1000000000) - 1000;
      std::string text = "NULL";
      if (s.text_max > 0 && rng() % 3 == 0)
        text = "'" + std::string(rng() % static_cast<uint64_t>(s.text_max), 'a' + i % 26) + "'";
      std::string corr_v = (s.ipk || s.without_rowid)
                               ? std::to_string(static_cast<int64_t>(i) * 7919 - 5000000)
                               : value(true);
      std::string grid_x = (!s.odd_value.empty() && i % 97 == 5) ? s.odd_value : value(true);
      std::string sql = fmt::format(
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
          "correlationId, globalPid, demangledName, shortName, mangledName, gridX, gridY, gridZ, "
          "blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory{}) "
          "VALUES ({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}{})",
          (!s.alter_default.empty() && i >= s.rows / 2) ? ", graphId, extra" : "",
          i % 101 == 7 ? "NULL" : std::to_string(start),
          i % 89 == 3 ? std::to_string(start - 5) : std::to_string(start + 100 + i % 1000),
          rng() % 4, value(true), value(true), corr_v, value(true),
          static_cast<int64_t>(rng() % 6) - 1, rng() % 5, text, grid_x, value(false), value(false),
          value(false), value(false), value(false), value(false), value(true), value(true),
          (!s.alter_default.empty() && i >= s.rows / 2)
              ? fmt::format(", {}, {}", value(true), rng() % 2 ? "'x'" : "NULL")
              : "");
      Exec(db, sql);
    }
    // A runtime table: eventClass 0/1/other, NULL ends, reversed intervals.
    Exec(db,
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER, "
         "eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER)");
    for (int i = 0; i < s.rows / 2; ++i) {
      int64_t start = static_cast<int64_t>(rng() % 1000000000);
      Exec(db,
           fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({}, {}, {}, {}, {}, {})",
                       start, i % 53 == 1 ? "NULL" : std::to_string(start + 7 - i % 11),
                       i % 3 == 2 ? value(true) : std::to_string(i % 3), value(true), value(true),
                       rng() % 5));
    }
    Exec(db, "COMMIT");
    if (s.delete_some) Exec(db, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 7 = 3");
    sqlite3_close(db);
    return path;
  }

  static std::string Bytes(const std::string& path) {
    std::string out(static_cast<size_t>(fs::file_size(path)), '\0');
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return {};
    size_t n = std::fread(out.data(), 1, out.size(), f);
    std::fclose(f);
    out.resize(n);
    return out;
  }

  // Compare: the file read with and without the page reader (and the image
  // read with it) give the same kernels; returns the direct read's scan stats.
  NsysScanStats Compare(const std::string& path, bool image = true) {
    NsysReadOptions on, off;
    on.threads = off.threads = 1;
    off.direct_reader = false;
    model::Trace a, b, c;
    NsysScanStats sa, sb, sc;
    Status s1 = ReadNsysSqlite(path, a, &sa, on);
    Status s2 = ReadNsysSqlite(path, b, &sb, off);
    EXPECT_EQ(s1.ok(), s2.ok()) << s1.message() << " / " << s2.message();
    EXPECT_EQ(s1.message(), s2.message());
    if (!s1.ok()) return sa;
    ExpectSameKernels(a, b);
    EXPECT_EQ(sa.kernel_rows, sb.kernel_rows);
    EXPECT_FALSE(sb.kernel_direct);
    if (!image) return sa;
    std::string bytes = Bytes(path);
    Status s3 = ReadNsysSqliteImage(bytes, path, c, &sc);
    EXPECT_TRUE(s3.ok()) << s3.message();
    ExpectSameKernels(a, c);
    EXPECT_EQ(sa.kernel_direct, sc.kernel_direct) << sc.direct_fallback;
    EXPECT_EQ(sa.runtime_direct, sc.runtime_direct) << sc.direct_fallback;
    return sa;
  }

  fs::path dir_;
};

TEST_F(PageReaderTest, MatchesSqliteOnEveryPageSize) {
  for (int ps : {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}) {
    SCOPED_TRACE(ps);
    DbShape s;
    s.page_size = ps;
    s.rows = ps <= 4096 ? 4000 : 20000;  // several B-tree levels at the small sizes
    NsysScanStats st = Compare(Make(fmt::format("p{}.sqlite", ps), s));
    EXPECT_TRUE(st.kernel_direct) << st.direct_fallback;
    EXPECT_TRUE(st.runtime_direct) << st.direct_fallback;
    EXPECT_GT(st.kernel_rows, 0u);
    EXPECT_GT(st.runtime_rows, 0u);
  }
}

TEST_F(PageReaderTest, MatchesSqliteWithOverflowPages) {
  for (int ps : {512, 4096, 65536}) {
    SCOPED_TRACE(ps);
    DbShape s;
    s.page_size = ps;
    s.rows = 1500;
    s.text_max = ps * 3;
    NsysScanStats st = Compare(Make(fmt::format("o{}.sqlite", ps), s));
    EXPECT_TRUE(st.kernel_direct) << st.direct_fallback;
  }
}

TEST_F(PageReaderTest, MatchesSqliteWithReservedBytesDeletesAndRowidAlias) {
  DbShape s;
  s.page_size = 1024;
  s.reserved = 32;
  s.rows = 5000;
  s.text_max = 900;
  s.ipk = true;
  s.delete_some = true;
  NsysScanStats st = Compare(Make("r.sqlite", s));
  EXPECT_TRUE(st.kernel_direct) << st.direct_fallback;
}

TEST_F(PageReaderTest, ColumnsAddedByAlterTableReadTheirDefault) {
  int i = 0;
  for (std::string d :
       {"DEFAULT 42", "DEFAULT -7", "-", "DEFAULT NULL", "DEFAULT (3)", "DEFAULT 'x'"}) {
    SCOPED_TRACE(d);
    DbShape s;
    s.page_size = 512;
    s.rows = 2000;
    s.alter_default = d;
    NsysScanStats st = Compare(Make(fmt::format("a{}.sqlite", i++), s));
    // Only NULL and integer literals are evaluated here (SQLite stores "(3)"
    // as "3"); a text default is left to the sqlite3 path.
    if (d == "DEFAULT 'x'") {
      EXPECT_FALSE(st.kernel_direct);
      EXPECT_NE(st.direct_fallback.find("default"), std::string::npos);
    } else {
      EXPECT_TRUE(st.kernel_direct) << st.direct_fallback;
    }
  }
}

TEST_F(PageReaderTest, NonIntegerCellsFallBackToSqlite) {
  int i = 0;
  for (std::string v : {"'abc'", "1.5", "x'0102'", "'12'"}) {
    SCOPED_TRACE(v);
    DbShape s;
    s.rows = 1000;
    s.odd_value = v;
    NsysScanStats st = Compare(Make(fmt::format("n{}.sqlite", i++), s));
    // '12' gets INTEGER affinity on insert, so it is an integer cell.
    EXPECT_EQ(st.kernel_direct, v == "'12'") << st.direct_fallback;
  }
}

TEST_F(PageReaderTest, DescOnlyAsAWordRefusesTheRowidAlias) {
  // RPD's rocpd_op has a `description_id` column: no DESC key, the page path
  // applies; a real INTEGER PRIMARY KEY DESC still falls back.
  for (bool desc : {false, true}) {
    SCOPED_TRACE(desc);
    std::string path = (dir_ / (desc ? "desc.sqlite" : "description.sqlite")).string();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql = desc ? "CREATE TABLE t (id INTEGER PRIMARY KEY DESC, v INTEGER);"
                           : "CREATE TABLE t (id integer PRIMARY KEY, description_id integer);";
    ASSERT_EQ(sqlite3_exec(db, (sql + "INSERT INTO t VALUES (1, 2), (5, 6);").c_str(), nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    Result<PageTablePlan> plan = PlanIntTable(db, "t", {"id", desc ? "v" : "description_id"});
    EXPECT_EQ(plan.ok(), !desc);
    if (plan.ok()) {
      Result<SqlitePageReader> r = SqlitePageReader::OpenFile(path);
      ASSERT_TRUE(r.ok()) << r.status().message();
      std::vector<int64_t> got;
      uint64_t rows = 0;
      ASSERT_TRUE(r->ScanInts(*plan,
                              [&](const int64_t* v, size_t n) { got.insert(got.end(), v, v + 2 * n); },
                              &rows)
                      .ok());
      EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 5, 6}));
    }
    sqlite3_close(db);
  }
}

TEST_F(PageReaderTest, WalWithoutRowidAndWalFileFallBack) {
  {
    DbShape s;
    s.wal = true;
    s.rows = 500;
    // sqlite3_deserialize cannot open a WAL-mode image either: files only.
    NsysScanStats st = Compare(Make("wal.sqlite", s), false);
    EXPECT_FALSE(st.kernel_direct);
    EXPECT_NE(st.direct_fallback.find("WAL"), std::string::npos);
  }
  {
    DbShape s;
    s.without_rowid = true;
    s.rows = 500;
    NsysScanStats st = Compare(Make("wr.sqlite", s));
    EXPECT_FALSE(st.kernel_direct);
    EXPECT_NE(st.direct_fallback.find("page type"), std::string::npos);
  }
  {
    DbShape s;
    s.rows = 500;
    std::string path = Make("walfile.sqlite", s);
    std::ofstream(path + "-wal") << "";
    NsysReadOptions on;
    model::Trace t;
    NsysScanStats st;
    ASSERT_TRUE(ReadNsysSqlite(path, t, &st, on).ok());
    EXPECT_FALSE(st.kernel_direct);
    EXPECT_NE(st.direct_fallback.find("-wal"), std::string::npos);
  }
}

// Sanitized builds damage fewer images: this test took 82 s of the CI's
// ASan run against 9 s in the plain build, which damages all 3000.
constexpr int kDamagedImages = kSanitized ? 1000 : 3000;

// Random byte damage anywhere in the image: the page reader reports an
// error or rows, and the importer a Status; nothing crashes or throws.
TEST_F(PageReaderTest, CorruptedImagesNeverCrash) {
  for (int ps : {512, 4096}) {
    DbShape s;
    s.page_size = ps;
    s.rows = 1500;
    s.text_max = ps * 2;
    s.alter_default = "DEFAULT 5";
    std::string path = Make(fmt::format("f{}.sqlite", ps), s);
    std::string clean = Bytes(path);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    Result<PageTablePlan> plan =
        PlanIntTable(db, "CUPTI_ACTIVITY_KIND_KERNEL",
                     {"start", "end", "correlationId", "gridX", "graphId", "nope"});
    sqlite3_close(db);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    std::mt19937_64 rng(ps);
    int scanned = 0;
    for (int iter = 0; iter < kDamagedImages; ++iter) {
      std::string img = clean;
      int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) {
        // Mostly the kernel table's pages; sometimes the header or a cell pointer.
        size_t at = rng() % 4 == 0 ? rng() % 120 : ps + rng() % (img.size() - ps);
        img[at] = static_cast<char>(rng() % 3 == 0 ? 0xFF : rng());
      }
      Result<SqlitePageReader> r = SqlitePageReader::OpenImage(img);
      if (r.ok()) {
        uint64_t n = 0;
        uint64_t sum = 0;
        Status st = r->ScanInts(
            *plan,
            [&](const int64_t* v, size_t rows) {
              for (size_t k = 0; k < rows * plan->columns.size(); ++k)
                sum += static_cast<uint64_t>(v[k]);
            },
            &n);
        scanned += st.ok();
        (void)sum;
      }
      if (iter % 10 == 0) {
        model::Trace t;
        Status st = ReadNsysSqliteImage(img, "fuzz.sqlite", t);
        if (!st.ok()) {
          EXPECT_NE(st.message().find("fuzz.sqlite"), std::string::npos);
        }
      }
    }
    std::printf("page size %d: %d of %d damaged images still scanned\n", ps, scanned, kDamagedImages);
  }
}

// Every shared export reads the same with and without the page reader.
TEST(PageReaderShared, MatchesSqliteOnEveryExport) {
  fs::path root = fs::path(GPUWHY_SOURCE_DIR) / ".." / "shared" / "traces" / "nsys";
  if (!fs::exists(root)) GTEST_SKIP() << "SKIPPED: " << root << " not found";
  int files = 0, direct = 0, runtime = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".sqlite") continue;
    std::string path = e.path().string();
    SCOPED_TRACE(path);
    NsysReadOptions on, off;
    off.direct_reader = false;
    model::Trace a, b;
    NsysScanStats sa, sb;
    Status s1 = ReadNsysSqlite(path, a, &sa, on);
    Status s2 = ReadNsysSqlite(path, b, &sb, off);
    ASSERT_EQ(s1.ok(), s2.ok());
    EXPECT_EQ(s1.message(), s2.message());
    if (!s1.ok()) continue;
    ExpectSameKernels(a, b);
    EXPECT_EQ(sa.kernel_rows, sb.kernel_rows);
    EXPECT_EQ(sa.runtime_rows, sb.runtime_rows);
    ++files;
    runtime += sa.runtime_direct;
    direct += sa.kernel_direct;
    if (!sa.direct_fallback.empty()) {
      std::printf("fell back: %s: %s\n", path.c_str(), sa.direct_fallback.c_str());
    }
  }
  std::printf(
      "compared %d shared exports; page reader read the kernels of %d, the runtime "
      "calls of %d\n",
      files, direct, runtime);
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace gpuwhy::import
