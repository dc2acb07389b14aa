// Bad-input set: every file is generated here in a temp dir (nothing is
// checked in). Each must fail with ONE line naming the path and, where a
// position exists, the byte offset; ImportFile must not return a trace.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "import/registry.h"
#include "import/xplane/xplane_importer.h"
#include "report/gwsum/gwsum_format.h"

namespace gpuwhy::import {
namespace {

namespace fs = std::filesystem;

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// ValidTrace: a small but real-looking Kineto document with n kernel events.
std::string ValidTrace(int n) {
  std::string s = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n"
                  "  \"traceEvents\": [\n";
  for (int i = 0; i < n; ++i) {
    if (i) s += ",\n";
    s += "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_" + std::to_string(i) +
         "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(1000 + i * 10) +
         ".5, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " +
         std::to_string(i) + "}}";
  }
  s += "\n  ],\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n";
  return s;
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwhy_bad_input_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "unreadable.json", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  // ExpectError: ImportFile fails with one line containing the path and `want`.
  std::string ExpectError(const std::string& path, const std::string& want) {
    Result<model::Trace> r = ImportFile(path);
    EXPECT_FALSE(r.ok()) << path << " imported but should not";
    if (r.ok()) return "";
    std::string m = r.status().message();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find(want), std::string::npos) << "want '" << want << "' in: " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "multi-line error: " << m;
    return m;
  }
  fs::path dir_;
};

TEST_F(BadInput, TheValidBaseImports) {
  Result<model::Trace> r = ImportFile(Write("ok.json", ValidTrace(50)));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kernels.size(), 50u);
  Result<model::Trace> g = ImportFile(Write("ok.bin", Gzip(ValidTrace(50))));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->kernels.size(), 50u);
}

TEST_F(BadInput, MissingEmptyDirectoryUnreadable) {
  std::string missing = (dir_ / "missing.json").string();
  Result<model::Trace> r = ImportFile(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  ExpectError(missing, "no such file");
  ExpectError(Write("empty.json", ""), "empty file");
  ExpectError(dir_.string(), "is a directory");
}

TEST_F(BadInput, UnreadableFile) {
  std::string unreadable = Write("unreadable.json", ValidTrace(2));
  ::chmod(unreadable.c_str(), 0);
  if (::access(unreadable.c_str(), R_OK) == 0) {
    GTEST_SKIP() << "SKIPPED: running as root, permissions are not enforced";
  }
  ExpectError(unreadable, "permission denied");
}

TEST_F(BadInput, NotJsonAndUnknownFormats) {
  ExpectError(Write("notes.json", "this is not json at all\n"), "unknown trace format");
  ExpectError(Write("bin.dat", std::string("\x00\x01\x02\x03garbage", 11)), "unknown trace format");
  // Claimed by the Kineto sniffer (traceEvents key) but broken JSON inside.
  std::string bad = ValidTrace(3);
  size_t at = bad.find("\"cat\"");
  bad.replace(at, 5, "\"cat\" \"x\"");  // missing ':' after a key
  std::string m = ExpectError(Write("bad_syntax.json", bad), "invalid JSON at byte ");
  EXPECT_NE(m.find("at byte " + std::to_string(at + 6)), std::string::npos) << m;
  ExpectError(Write("array.json", "[{\"ph\": \"X\", \"ts\": 1}]"), "array");
}

TEST_F(BadInput, TruncatedJsonAtSeveralPoints) {
  std::string full = ValidTrace(400);
  for (double frac : {0.1, 0.5, 0.9, 0.999}) {
    size_t cut = static_cast<size_t>(static_cast<double>(full.size()) * frac);
    std::string name = "cut_" + std::to_string(cut) + ".json";
    ExpectError(Write(name, full.substr(0, cut)), "truncated JSON at byte " + std::to_string(cut));
    // Same cut, gzip-wrapped: the offset is in decompressed bytes.
    ExpectError(Write(name + ".gz", Gzip(full.substr(0, cut))),
                "truncated JSON at byte " + std::to_string(cut));
  }
}

TEST_F(BadInput, WrongContainerTypes) {
  ExpectError(Write("te_object.json", "{\"schemaVersion\": 1, \"traceEvents\": {\"a\": 1}}"),
              "traceEvents is not an array (at byte 36)");
  ExpectError(Write("te_string.json", "{\"traceEvents\": \"nope\"}"), "traceEvents is not an array");
  ExpectError(Write("dp_object.json", "{\"deviceProperties\": {\"id\": 0}, \"traceEvents\": []}"),
              "deviceProperties is not an array (at byte 21)");
  ExpectError(Write("di_array.json", "{\"traceEvents\": [], \"distributedInfo\": [1]}"),
              "distributedInfo is not an object");
  ExpectError(Write("no_events.json", "{\"schemaVersion\": 1, \"deviceProperties\": []}"),
              "no traceEvents");
}

TEST_F(BadInput, EventLevelTypeErrorsAreCountedNotFatal) {
  std::string doc = "{\"traceEvents\": [7, \"x\", {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": \"1\", "
                    "\"dur\": 1}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ok\", \"ts\": 1, "
                    "\"dur\": 1, \"pid\": 1, \"tid\": 1}]}";
  Result<model::Trace> r = ImportFile(Write("event_types.json", doc));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ranges.size(), 1u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::malformed_event), 2u);
  EXPECT_EQ(r->stats.Get(model::ImportStat::bad_field_type), 1u);
}

// Chrome-trace dialects (import/chrome): a broken container is one line with
// the byte offset; a file that parses but holds nothing says what it looks
// like and what is missing.
TEST_F(BadInput, ChromeDialectsBrokenOrEmpty) {
  // PyTorch legacy (top-level array, "CPU functions").
  std::string legacy =
      R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "CPU functions"}, )"
      R"({"name": "aten::add", "ph": "X", "ts": 4, "dur": 2, "tid": 1, "pid": "CPU functions"}])";
  for (size_t cut : {legacy.size() / 2, legacy.size() - 1}) {
    ExpectError(Write("legacy_cut_" + std::to_string(cut) + ".json", legacy.substr(0, cut)),
                "truncated JSON at byte " + std::to_string(cut));
    ExpectError(Write("legacy_cut_" + std::to_string(cut) + ".json.gz", Gzip(legacy.substr(0, cut))),
                "truncated JSON at byte " + std::to_string(cut));
  }
  std::string bad = legacy;
  bad.replace(bad.find("\"ts\": 4"), 7, "\"ts\" 4");
  ExpectError(Write("legacy_syntax.json", bad), "invalid JSON at byte " + std::to_string(legacy.find("\"ts\": 4") + 5));
  ExpectError(Write("legacy_empty.json", R"([{"name": "x", "ph": "i", "ts": 1, "pid": "CPU functions"}])"),
              "PyTorch legacy autograd-profiler trace");
  // JAX / XLA.
  const std::string jax_meta =
      R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}})";
  ExpectError(Write("jax_cut.json", jax_meta), "truncated JSON at byte " + std::to_string(jax_meta.size()));
  ExpectError(Write("jax_empty.json", jax_meta + "]}"), "a JAX/XLA trace");
  ExpectError(Write("jax_te.json", R"({"x":{"name":"/device:GPU:0"},"traceEvents":3})"),
              "traceEvents is not an array");
  // rocprof v1 / RPD.
  const std::string roc =
      R"({"traceEvents":[{},{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name"})";
  ExpectError(Write("roc_cut.json", roc), "truncated JSON at byte " + std::to_string(roc.size()));
  ExpectError(Write("roc_empty.json", roc + "]}"), "but no HIP call, kernel or copy");
  ExpectError(Write("roc_bare.json", ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\"}\n"),
              "without trace events");
  const std::string rpd_trailing =
      R"([ {}, {"pid":"2","name":"k","ph":"X","ts":"1","dur":"1","args":{"desc":"KernelExecution"}} ] x)";
  ExpectError(Write("rpd_trailing.json", rpd_trailing),
              "unexpected data after the top-level JSON array (at byte " +
                  std::to_string(rpd_trailing.rfind('x')) + ")");
}

TEST_F(BadInput, CorruptAndTruncatedGzip) {
  // Big enough that the corruption is past the 64 KiB sniffing prefix.
  std::string gz = Gzip(ValidTrace(20000));
  ASSERT_GT(gz.size(), 4096u);
  std::string corrupt = gz;
  for (size_t i = corrupt.size() * 3 / 4; i < corrupt.size() * 3 / 4 + 16; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0xA5);
  ExpectError(Write("corrupt.json.gz", corrupt), "corrupt gzip data at compressed byte ");
  // Corruption inside the sniffing prefix is reported the same way.
  std::string early = gz;
  for (size_t i = 40; i < 60; ++i) early[i] = static_cast<char>(early[i] ^ 0x5A);
  ExpectError(Write("corrupt_early.json.gz", early), "corrupt gzip data at compressed byte ");
  size_t cut = gz.size() / 2;
  ExpectError(Write("truncated.json.gz", gz.substr(0, cut)),
              "truncated gzip stream at compressed byte " + std::to_string(cut));
  ExpectError(Write("header_only.gz", gz.substr(0, 5)), "truncated gzip stream");
}

// .gwsum summaries (report/gwsum): a truncated version 2 file, a corrupt
// body, an impossible body length, version 1's truncated gzip and truncated
// payload, and a foreign major version each give one line with the path and
// the position.
TEST_F(BadInput, TruncatedAndFutureGwsumSummaries) {
  Result<std::string> good = report::EncodeRankSummary(analysis::RankSummary{});
  ASSERT_TRUE(good.ok());
  auto expect = [&](const std::string& path, const std::string& want) {
    Result<analysis::RankSummary> r = report::ReadRankSummaryFile(path);
    ASSERT_FALSE(r.ok()) << path;
    const std::string m = r.status().message();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find(want), std::string::npos) << "want '" << want << "' in: " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  };
  Result<analysis::RankSummary> ok = report::DecodeRankSummary(*good, "mem");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  // Version 2: header (20 bytes), then the deflated body.
  expect(Write("cut.gwsum", good->substr(0, good->size() - 3)), "truncated deflate stream at byte");
  expect(Write("header_cut.gwsum", good->substr(0, 15)), "truncated header");
  std::string flipped = *good;
  flipped[24] = static_cast<char>(flipped[24] ^ 0xff);
  expect(Write("flipped.gwsum", flipped), "corrupt .gwsum");
  std::string huge = *good;
  huge[15] = 0x7f;  // body length ~2 GiB
  expect(Write("huge.gwsum", huge), "impossible for");
  std::string crc = *good;
  crc[16] = static_cast<char>(crc[16] ^ 1);
  expect(Write("crc.gwsum", crc), "CRC-32 mismatch) at byte 16");
  // Version 1, as earlier gpuwhy wrote it: gzip, or the bare payload.
  Result<std::string> v1 = report::EncodeRankSummaryVersion1(analysis::RankSummary{});
  ASSERT_TRUE(v1.ok());
  expect(Write("cut_v1.gwsum", v1->substr(0, v1->size() - 9)), "truncated gzip stream at compressed byte");
  std::string payload(report::kGwsumMagic);
  payload += std::string("\x01\x00\x00\x00", 4);
  expect(Write("header_only.gwsum", payload), "at payload byte 12");
  payload[8] = 9;
  expect(Write("v9.gwsum", payload), "format version 9.0 is not supported");
  expect(Write("empty.gwsum", ""), "bad magic at byte 0");
}

// RecordingBytes: a .gwrec header (version major.1) then each (type, payload)
// as a frame with its length and CRC (docs/recording-format.md).
std::string RecordingBytes(const std::vector<std::pair<uint16_t, std::string>>& frames,
                           uint16_t major = 1) {
  std::string out("\x89GWREC\r\n", 8);
  auto put = [&out](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  const uint16_t minor = 2;
  const uint32_t reserved = 0;
  put(&major, 2), put(&minor, 2), put(&reserved, 4);
  for (const auto& [type, payload] : frames) {
    const uint32_t len = static_cast<uint32_t>(payload.size());
    const uint16_t flags = 0;
    uLong c = crc32(0L, reinterpret_cast<const Bytef*>(&type), 2);
    c = crc32(c, reinterpret_cast<const Bytef*>(&flags), 2);
    c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(len));
    const uint32_t crc = static_cast<uint32_t>(c);
    put(&len, 4), put(&type, 2), put(&flags, 2), put(&crc, 4);
    out += payload;
  }
  return out;
}

// Recordings: each damage gives one line with the path and the byte offset;
// a names frame whose id skips ahead (which sized a table from the input's
// say-so: 2 GB for a 10-byte frame, found by the recording fuzzer) is one.
TEST_F(BadInput, RecordingDamageIsOneLineWithTheOffset) {
  // A run frame (2 i64, 4 i32, 6 empty str, u32 argc), then two event frames
  // (i64 ts, u16 kind, i32 device, i64 code, str text); the first frame is at
  // byte 16, the second at 16 + 12 + 60.
  const std::string run(2 * 8 + 4 * 4 + 6 * 4 + 4, '\0');
  const std::string event(8 + 2 + 4 + 8 + 4, '\0');
  const size_t second = 16 + 12 + run.size();
  const std::string good = RecordingBytes({{1, run}, {6, event}, {6, event}});
  Result<model::Trace> ok = ImportFile(Write("ok.gwrec", good));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  // Sniffed by content: without the magic it is no recording at all.
  ExpectError(Write("magic.gwrec", "\x89GWREX" + good.substr(6)), "unknown trace format");
  ExpectError(Write("header.gwrec", good.substr(0, 12)), "truncated recording header");
  ExpectError(Write("v9.gwrec", RecordingBytes({{1, run}}, 9)), "version 9.2 at byte 8");
  std::string crc = good;
  crc[16 + 12] = static_cast<char>(crc[16 + 12] ^ 1);  // the run frame's payload
  ExpectError(Write("crc.gwrec", crc), "CRC mismatch in frame at byte 16");
  std::string huge = good;
  huge[16 + 3] = 0x7f;  // the run frame's length: ~2 GiB
  ExpectError(Write("huge.gwrec", huge), "corrupt frame header at byte 16");
  ExpectError(
      Write("short.gwrec", RecordingBytes({{1, run}, {6, std::string(5, '\0')}, {6, event}})),
      "malformed event frame at byte " + std::to_string(second));
  // Trace data before any trace header.
  ExpectError(Write("orphan.gwrec", RecordingBytes({{1, run}, {11, std::string(4, '\0')}})),
              "no trace header before it) frame at byte " + std::to_string(second));
  // A trace header (5 i32, 3 i64, u32, 3 empty str), then names 1 and 1,048,576.
  const std::string trace(5 * 4 + 3 * 8 + 4 + 3 * 4, '\0');
  std::string names;
  auto u32 = [&names](uint32_t v) { names.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2), u32(1), u32(1), names += "k", u32(1u << 20), u32(1), names += "x";
  ExpectError(Write("names.gwrec", RecordingBytes({{1, run}, {10, trace}, {11, names}})),
              "malformed trace names frame at byte " + std::to_string(second + 12 + trace.size()));
  // An event timed past 2^62 ns imports without it, counted.
  std::string far = event;
  const int64_t ts = (int64_t{1} << 62) + 1;
  far.replace(0, 8, reinterpret_cast<const char*>(&ts), 8);
  Result<model::Trace> dropped =
      ImportFile(Write("far.gwrec", RecordingBytes({{1, run}, {6, far}, {6, event}})));
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_EQ(dropped->markers.size(), ok->markers.size() - 1);
  EXPECT_EQ(dropped->stats.Get(model::ImportStat::time_out_of_range), 1u);
}

TEST_F(BadInput, NsysReportGetsTheExportHint) {
  std::string m = ExpectError(Write("report1.nsys-rep", "NVIDIA Tegra Profiler Report 1.\n\x0b"),
                              "nsys export --type sqlite");
  Result<model::Trace> r = ImportFile((dir_ / "report1.nsys-rep").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  // By content, whatever the name.
  ExpectError(Write("renamed.bin", "NVIDIA Tegra Profiler Report 1.\n"), "nsys export");
}

// RocmMakeDb: a SQLite file at `path` built from `sql`; its bytes.
std::string RocmMakeDb(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST_F(BadInput, RocmProfilerFilesFailInOneLine) {
  // rocprofv3 CSVs: a header and nothing else; a --stats summary.
  ExpectError(Write("kernel_trace.csv",
                    "Kind,Agent_Id,Queue_Id,Kernel_Name,Correlation_Id,Start_Timestamp,"
                    "End_Timestamp,Workgroup_Size_X,Grid_Size_X\n"),
              "header and no rows");
  ExpectError(Write("stats.csv", "Name,Calls,TotalDurationNs,AverageNs,Percentage\nk,1,5,5,100\n"),
              "--stats summary");
  // A rocpd database cut in half: SQLite's complaint, one line, the path.
  std::string sql =
      "CREATE TABLE rocpd_info_agent_s (id INTEGER PRIMARY KEY, type TEXT, logical_index INTEGER,"
      " name TEXT);"
      "CREATE TABLE rocpd_kernel_dispatch_s (id INTEGER PRIMARY KEY, agent_id INTEGER,"
      " kernel_id INTEGER, start BIGINT, \"end\" BIGINT, workgroup_size_x INTEGER,"
      " workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER,"
      " grid_size_y INTEGER, grid_size_z INTEGER);"
      "INSERT INTO rocpd_info_agent_s VALUES (1, 'GPU', 0, 'gfx942');"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
      " INSERT INTO rocpd_kernel_dispatch_s SELECT i, 1, 1, i * 10, i * 10 + 5, 64, 1, 1, 64,"
      " 1, 1 FROM n;";
  std::string whole = RocmMakeDb((dir_ / "whole.db").string(), sql);
  ASSERT_GT(whole.size(), 8192u);
  std::string cut = Write("cut_rocpd.db", whole.substr(0, whole.size() / 2));
  Result<model::Trace> r = ImportFile(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(cut), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  // An RPD whose rocpd_op lacks its times: the table and column are named.
  std::string rpd = (dir_ / "odd.rpd").string();
  RocmMakeDb(rpd, "CREATE TABLE rocpd_op (id INTEGER PRIMARY KEY, gpuId INTEGER);"
                  "CREATE TABLE rocpd_api (id INTEGER PRIMARY KEY, pid INTEGER);");
  ExpectError(rpd, "RPD table rocpd_api has no column start");
  // rocprof v1 results.db with empty tables holds nothing.
  std::string v1 = (dir_ / "results.db").string();
  RocmMakeDb(v1, "CREATE TABLE OPS (BeginNs INTEGER, EndNs INTEGER, Name TEXT);"
                 "CREATE TABLE KERN (\"Index\" INTEGER, KernelName TEXT);");
  ExpectError(v1, "no kernel or copy row");
}

// Nsight Compute: CSV pages that are broken or hold nothing, and a report
// with no `ncu` to export it. Recognised by content (the names say nothing).
TEST_F(BadInput, NsightComputePagesAndReports) {
  const std::string lead =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
      "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\"";
  ExpectError(Write("header_only.txt", lead + ",\"gpu__time_duration.sum\"\n"),
              "Nsight Compute CSV export (raw page) with no kernel rows: nothing to analyze");
  ExpectError(Write("open_quote.log", lead + ",\"gpu__time_duration.sum\"\n\"0\",\"1\",\"p"),
              "line 2: a quoted cell is never closed");
  ExpectError(Write("no_duration.csv",
                    lead + ",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                           "\"0\",\"1\",\"p\",\"h\",\"k()\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\","
                           "\"0\",\"8.6\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"50\"\n"),
              "details page) with 1 kernel rows but no kernel duration");
  // Cells cut short on every row: counted, and then nothing is left.
  ExpectError(Write("short_rows.csv", lead + ",\"gpu__time_duration.sum\"\n\"0\",\"1\"\n\"1\",\"1\"\n"),
              "no kernel rows");
  const char* path_env = std::getenv("PATH");
  const std::string old_path = path_env ? path_env : "";
  ::setenv("PATH", "/nonexistent-gpuwhy-bad-input", 1);
  ExpectError(Write("kernels.bin", std::string("NVR\0\2\0\0\0\x08\x07\x48", 11)),
              "`ncu` is not on PATH: run `ncu --import");
  ::setenv("PATH", old_path.c_str(), 1);
}

// XplaneField: protobuf field `num` with a length-delimited value, by hand (the
// bad-input set needs no protobuf; the bytes are what protobuf writes).
std::string XplaneField(int num, const std::string& value) {
  std::string out(1, static_cast<char>((num << 3) | 2));
  for (uint64_t n = value.size(); ; n >>= 7) {
    if (n < 0x80) { out += static_cast<char>(n); break; }
    out += static_cast<char>((n & 0x7F) | 0x80);
  }
  return out + value;
}

TEST_F(BadInput, XSpaceDamageIsOneLine) {
  // An XSpace whose only plane is /device:GPU:0 with one line (id, name, one event).
  std::string event = std::string("\x08\x01\x10\x64\x18\xE8\x07", 7);  // metadata 1, offset, dur
  std::string line = std::string("\x08\x07", 2) + XplaneField(2, "Stream #7") + XplaneField(4, event);
  std::string plane = std::string("\x08\x01", 2) + XplaneField(2, "/device:GPU:0") + XplaneField(3, line);
  std::string space = XplaneField(1, plane);
  if (!XSpaceReaderBuilt()) {
    ExpectError(Write("nopb.xplane.pb", space), "libprotobuf-dev");
    return;
  }
  // Recognised by content: the same bytes under any name.
  ASSERT_TRUE(ImportFile(Write("ok.bin", space)).ok());
  // Truncated: plane 1 declares more bytes than remain.
  ExpectError(Write("cut.xplane.pb", space.substr(0, space.size() - 5)), "at byte 0 declares");
  ExpectError(Write("cut.xplane.pb.gz", Gzip(space.substr(0, space.size() - 5))), "at byte 0 declares");
  // A field after the plane with an invalid wire type (7).
  ExpectError(Write("wire.xplane.pb", space + "\x0F"),
              "at byte " + std::to_string(space.size()) + " has wire type 7");
  // The plane body does not parse (its line claims more than the plane holds).
  std::string bad_plane = std::string("\x08\x01", 2) + XplaneField(2, "/device:GPU:0") + "\x1A\x7F";
  ExpectError(Write("body.xplane.pb", XplaneField(1, bad_plane)), "plane 1 (bytes 2-");
  // Parses, but holds no device plane: what it is and what is missing.
  std::string host = XplaneField(1, std::string("\x08\x02", 2) + XplaneField(2, "/host:CPU"));
  ExpectError(Write("host.xplane.pb", host), "no /device:GPU:N or /device:TPU:N plane");
  // Binary saved as text: every byte >= 0x80 became U+FFFD.
  std::string mangled;
  std::string big = space;
  for (int i = 0; i < 40; ++i) big += XplaneField(4, "h\xC3\xA9\xC3\xA9\xC3\xA9");
  for (char c : big) {
    if (static_cast<uint8_t>(c) >= 0x80) mangled += "\xEF\xBF\xBD";
    else mangled += c;
  }
  ExpectError(Write("mangled.xplane.pb", mangled), "EF BF BD");
}

TEST_F(BadInput, ExpandInputs) {
  Result<std::vector<std::string>> missing = ExpandInputs({(dir_ / "nope").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  fs::create_directories(dir_ / "empty_dir");
  EXPECT_FALSE(ExpandInputs({(dir_ / "empty_dir").string()}).ok());
  fs::create_directories(dir_ / "run" / "sub");
  std::string b = (dir_ / "run" / "sub" / "b.json").string();
  std::string a = (dir_ / "run" / "a.json.gz").string();
  std::ofstream(b) << ValidTrace(1);
  std::ofstream(a, std::ios::binary) << Gzip(ValidTrace(1));
  std::ofstream((dir_ / "run" / "README.md").string()) << "# notes\n";
  std::ofstream((dir_ / "run" / "notes.txt").string()) << "just notes\n";
  std::ofstream((dir_ / "run" / ".hidden.json").string()) << ValidTrace(1);
  Result<std::vector<std::string>> got = ExpandInputs({(dir_ / "run").string()});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0], a);
  EXPECT_EQ((*got)[1], b);
  // Plain files pass through in argument order.
  Result<std::vector<std::string>> files = ExpandInputs({b, a});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, (std::vector<std::string>{b, a}));
}


// Monitoring logs (issue 40 §4) that parse but hold nothing gpuwhy maps: one
// line naming what the file looks like and what is missing, never an idle GPU.
TEST_F(BadInput, MonitoringLogsThatHoldNothingMapped) {
  ExpectError(Write("dcgm_unmapped.csv", "GPUId,TimeStampUs,Field,Values\n"
                                         "0,1718783836956328,throttle_reason_idle,1\n"),
              "DCGM log with fields throttle_reason_idle: none gpuwhy maps");
  ExpectError(Write("scrape.txt", "# HELP DCGM_FI_DEV_XID_ERRORS Last XID.\n"
                                  "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
                                  "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 0\n"),
              "Prometheus text with 1 DCGM_FI_* HELP lines and 1 DCGM_FI_* samples, none of a "
              "field gpuwhy maps");
  ExpectError(Write("power_only.csv", "timestamp,gpu,power_w,temp_c\n1767607200,0,100,40\n"),
              "monitoring log with columns timestamp, gpu, power_w, temp_c (line 1): no column "
              "reads as GPU utilization");
}

}  // namespace
}  // namespace gpuwhy::import
