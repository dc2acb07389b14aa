// NsysReportImporter: recognition by content, the one-line error without nsys,
// and the export through a fake `nsys` the test puts first on PATH.
#include "import/nsys/nsys_report_importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "import/registry.h"

namespace gpuwhy::import::nsys_report_test {
namespace {

namespace fs = std::filesystem;

const std::string kRepDir = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/nsys_rep/";

struct Sample {
  const char* report;   // relative to kRepDir
  const char* sqlite;   // its export, beside it
  const char* version;  // the nsys that wrote it (SOURCES.md)
  size_t kernels;       // kernel rows (SOURCES.md)
  size_t memcpys;       // memcpy rows (SOURCES.md; fusion has no memcpy table)
};
const Sample kSamples[] = {
    {"michael-beebe__RaiderSTREAM/report1.qdrep", "michael-beebe__RaiderSTREAM/report1.sqlite",
     "2021.1.1.66", 1, 10},
    {"Young768__profiling_/fusion.nsys-rep", "Young768__profiling_/fusion.sqlite", "2023.3.1.92",
     1002, 0},
};

int RunAnalyze(std::vector<std::string> args, std::string* out, std::string* err) {
  std::string argv0 = "gpuwhy analyze";
  std::vector<char*> argv = {argv0.data()};
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  int rc = cli::AnalyzeMain(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

// WithoutHeader: the report without its "== path · format" header lines.
std::string WithoutHeader(const std::string& report) {
  std::istringstream in(report);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("== ", 0) != 0) out += line + "\n";
  return out;
}

void ExpectOneLine(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

// The fixture owns a temp dir and PATH: `bin/` holds the fake nsys (when one
// is written) and PATH is bin/ alone, so a real nsys never answers.
class NsysReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuwhy_nsys_report_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    const char* p = std::getenv("PATH");
    old_path_ = p ? p : "";
    // sh, cp and friends stay reachable for the fake script through its own PATH.
    ::setenv("PATH", (dir_ / "bin").c_str(), 1);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    fs::remove_all(dir_);
  }
  // WriteFakeNsys: bin/nsys; `export` copies `sqlite` to --output, or (when
  // `newer`) fails as nsys does on a report from a newer version.
  void WriteFakeNsys(const std::string& sqlite, bool newer) {
    std::string script = "#!/bin/sh\nPATH='" + old_path_ + "'\n";
    script +=
        "if [ \"$1\" = --version ]; then\n"
        "  echo 'NVIDIA Nsight Systems version 2024.2.3.38-242334140272v0'; exit 0\nfi\n";
    script +=
        "out=''; last=''\nwhile [ $# -gt 0 ]; do\n"
        "  if [ \"$1\" = --output ]; then out=$2; shift; fi\n  last=$1; shift\ndone\n";
    script += "echo \"$out\" > '" + (dir_ / "last_output").string() + "'\n";
    if (newer) {
      script +=
          "echo 'Importer error status: Report was created in Nsight Systems version "
          "(2026.1.1.204-261130312440v0), newer than your current version "
          "(2024.2.3.38-242334140272v0).' >&2\nexit 1\n";
    } else {
      script += "echo 'Generating SQLite file'\ncp '" + sqlite + "' \"$out\"\n";
    }
    fs::path nsys = dir_ / "bin" / "nsys";
    std::ofstream(nsys) << script;
    fs::permissions(nsys, fs::perms::owner_all);
  }
  // ExportDirIsGone: the directory the fake nsys was told to write into no
  // longer exists.
  void ExpectExportDirGone() {
    std::ifstream in(dir_ / "last_output");
    std::string out;
    std::getline(in, out);
    ASSERT_FALSE(out.empty()) << "the fake nsys was not asked to export";
    EXPECT_FALSE(fs::exists(fs::path(out).parent_path())) << out;
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
  std::string old_path_;
};

TEST(NsysReportSniff, MagicAndVersion) {
  EXPECT_TRUE(LooksLikeNsysReport("NVIDIA Tegra Profiler Report 1.\n\x0b"));
  EXPECT_FALSE(LooksLikeNsysReport("NVIDIA Tegra Profiler"));
  EXPECT_FALSE(LooksLikeNsysReport("SQLite format 3"));
  // A length-prefixed version string (the metadata record); the last one wins.
  std::string tail = std::string("\x32\x0a") + "2023.2.2.3" + "junk 2099.1.1.1 " +
                     std::string("\xaa\x01\x1a") + "2023.3.1.92-233133147223v0" + "rest";
  EXPECT_EQ(NsysReportVersionIn(tail), "2023.3.1.92");
  EXPECT_EQ(NsysReportVersionIn(std::string("\x0b") + "2021.1.1.66"), "2021.1.1.66");
  EXPECT_EQ(NsysReportVersionIn("no version 2021.1.1.66 here"), "");
  // A length byte longer than the version (a suffix that is not one) is no match.
  EXPECT_EQ(NsysReportVersionIn(std::string("\x0d") + "2021.1.1.66!!"), "");
  EXPECT_EQ(NsysReportVersionIn(std::string("\x0c") + "2021.1.1.66"), "");
  EXPECT_EQ(NsysReportVersionIn(std::string("\x0a") + "2020.3.2.6"), "2020.3.2.6");
  EXPECT_EQ(NsysReportVersionIn(""), "");
}

TEST_F(NsysReportTest, SamplesWithoutNsysGiveTheExportCommand) {
  if (!fs::exists(kRepDir)) GTEST_SKIP() << "SKIPPED: " << kRepDir << " not found";
  for (const Sample& s : kSamples) {
    std::string path = kRepDir + s.report;
    EXPECT_EQ(NsysReportVersion(path), s.version) << path;
    Result<model::Trace> r = ImportFile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    std::string out, err;
    EXPECT_EQ(RunAnalyze({path}, &out, &err), 2) << path;
    EXPECT_TRUE(out.empty()) << out;
    ExpectOneLine(err);
    EXPECT_NE(err.find(path + ": Nsight Systems report (written by Nsight Systems " +
                       std::string(s.version) + ")"),
              std::string::npos)
        << err;
    std::string want_out = kRepDir + fs::path(s.report).replace_extension(".sqlite").string();
    EXPECT_NE(err.find("`nsys export --type sqlite --output " + want_out + " " + path +
                       "`, then `gpuwhy analyze " + want_out + "`"),
              std::string::npos)
        << err;
    std::cout << "[ no nsys  ] " << err;
  }
}

// The reports of shared/traces/nsys (kept there without exports) span 2020.3
// to 2023.1; each states its version in the same record.
TEST(NsysReportVersions, OtherSharedReports) {
  const std::string root = std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/nsys/";
  if (!fs::exists(root)) GTEST_SKIP() << "SKIPPED: " << root << " not found";
  const std::pair<const char*, const char*> kReports[] = {
      {"Raphael-Hao__Abacus/report1.qdrep", "2020.3.2.6"},
      {"MohanadOdema__DLProf/nsys_profile.nsys-rep", "2022.1.3.3"},
      {"LeiWang1999__memfusion_artifact/report1.nsys-rep", "2023.1.2.43"},
  };
  for (const auto& [rel, version] : kReports) {
    std::string path = root + rel;
    if (!fs::exists(path)) GTEST_SKIP() << "SKIPPED: " << path << " not present";
    EXPECT_EQ(NsysReportVersion(path), version) << path;
  }
}

TEST_F(NsysReportTest, FakeNsysExportAnalyzesLikeTheSqlite) {
  if (!fs::exists(kRepDir)) GTEST_SKIP() << "SKIPPED: " << kRepDir << " not found";
  for (const Sample& s : kSamples) {
    std::string path = kRepDir + s.report, sqlite = kRepDir + s.sqlite;
    WriteFakeNsys(sqlite, false);
    Result<model::Trace> rep = ImportFile(path);
    ASSERT_TRUE(rep.ok()) << rep.status().message();
    ExpectExportDirGone();
    Result<model::Trace> direct = ImportFile(sqlite);
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    EXPECT_EQ(rep->kernels.size(), s.kernels) << path;
    EXPECT_EQ(rep->memcpys.size(), s.memcpys) << path;
    EXPECT_EQ(rep->kernels.size(), direct->kernels.size());
    EXPECT_EQ(rep->api_calls.size(), direct->api_calls.size());
    EXPECT_EQ(rep->memcpys.size(), direct->memcpys.size());
    EXPECT_EQ(rep->ranges.size(), direct->ranges.size());
    EXPECT_EQ(rep->info.source_path, path);
    EXPECT_EQ(rep->info.format, "nsys-report");
    EXPECT_EQ(rep->info.format_version, std::string(s.version) + ", exported by nsys 2024.2.3.38");

    std::string out_rep, err_rep, out_sql, err_sql;
    ASSERT_EQ(RunAnalyze({path}, &out_rep, &err_rep), 0) << err_rep;
    ASSERT_EQ(RunAnalyze({sqlite}, &out_sql, &err_sql), 0) << err_sql;
    EXPECT_NE(out_rep.find(" · nsys-report " + std::string(s.version) +
                           ", exported by nsys 2024.2.3.38 · "),
              std::string::npos)
        << out_rep.substr(0, 300);
    // The whole diagnosis (first line included) is the sqlite's.
    EXPECT_EQ(WithoutHeader(out_rep), WithoutHeader(out_sql));
    ExpectExportDirGone();
  }
}

TEST_F(NsysReportTest, ExportFailureQuotesNsys) {
  if (!fs::exists(kRepDir)) GTEST_SKIP() << "SKIPPED: " << kRepDir << " not found";
  const Sample& s = kSamples[1];
  std::string path = kRepDir + s.report;
  WriteFakeNsys(kRepDir + s.sqlite, true);
  std::string out, err;
  EXPECT_EQ(RunAnalyze({path}, &out, &err), 2);
  EXPECT_TRUE(out.empty()) << out;
  ExpectOneLine(err);
  EXPECT_NE(err.find(path + ": Nsight Systems report (written by Nsight Systems 2023.3.1.92); "
                            "nsys 2024.2.3.38 could not export it: Importer error status: Report "
                            "was created in Nsight Systems version (2026.1.1.204"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("newer than your current version"), std::string::npos) << err;
  ExpectExportDirGone();
  std::cout << "[ newer    ] " << err;
}

TEST_F(NsysReportTest, GarbageWithTheMagicIsOneLine) {
  // Truncated after the header: no version stated, recognised all the same,
  // whatever the name.
  std::string path = Write("truncated.bin", "NVIDIA Tegra Profiler Report 1.\n\x0b\x4c\x6f");
  std::string out, err;
  EXPECT_EQ(RunAnalyze({path}, &out, &err), 2);
  EXPECT_TRUE(out.empty());
  ExpectOneLine(err);
  EXPECT_NE(err.find(path + ": Nsight Systems report; gpuwhy reads its SQLite export"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("--output " + (dir_ / "truncated.sqlite").string()), std::string::npos) << err;

  // A path that needs quoting is quoted in the command.
  std::string spaced = Write("my report.nsys-rep", "NVIDIA Tegra Profiler Report 1.\n");
  Result<model::Trace> r = ImportFile(spaced);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'" + spaced + "'"), std::string::npos)
      << r.status().message();

  // An nsys that "exports" garbage: the SQLite importer's error, one line,
  // naming the report; the temporary directory is gone.
  std::string bogus = Write("bogus.sqlite", "SQLite format 3\0garbage");
  WriteFakeNsys(bogus, false);
  err.clear();
  EXPECT_EQ(RunAnalyze({path}, &out, &err), 2);
  ExpectOneLine(err);
  EXPECT_NE(err.find(path + ": the SQLite export made by nsys 2024.2.3.38"), std::string::npos)
      << err;
  ExpectExportDirGone();

  // An nsys that fails without a word: its exit code.
  fs::path nsys = dir_ / "bin" / "nsys";
  std::ofstream(nsys) << "#!/bin/sh\nexit 3\n";
  fs::permissions(nsys, fs::perms::owner_all);
  err.clear();
  EXPECT_EQ(RunAnalyze({path}, &out, &err), 2);
  ExpectOneLine(err);
  EXPECT_NE(err.find("nsys could not export it: exit code 3"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpuwhy::import::nsys_report_test
