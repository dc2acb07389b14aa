#include "base/subprocess.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpuwhy::subprocess_test {
namespace {

TEST(Subprocess, CapturesStdoutStderrAndExitCode) {
  Result<ProcessResult> r = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->stderr_text, "err\n");
  EXPECT_FALSE(r->timed_out);
}

TEST(Subprocess, ArgumentsAreNotShellWords) {
  Result<ProcessResult> r = RunProcess({"echo", "a b;$(false)"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "a b;$(false)\n");
}

TEST(Subprocess, MissingProgramIsAStatus) {
  Result<ProcessResult> r = RunProcess({"/nonexistent/gpuwhy-no-such-tool"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gpuwhy-no-such-tool"), std::string::npos);
  EXPECT_FALSE(RunProcess({}).ok());
}

TEST(Subprocess, TimeoutKillsTheChild) {
  ProcessOptions o;
  o.timeout_ms = 200;
  Result<ProcessResult> r = RunProcess({"sleep", "30"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->term_signal, 9);
}

TEST(Subprocess, FindOnPathAndTempDir) {
  EXPECT_FALSE(FindOnPath("sh").empty());
  EXPECT_TRUE(FindOnPath("gpuwhy-no-such-tool-xyz").empty());
  Result<std::string> d = MakeTempDir("gpuwhy-subprocess-test-");
  ASSERT_TRUE(d.ok());
  std::ofstream(*d + "/f") << "x";
  EXPECT_TRUE(std::filesystem::is_directory(*d));
  EXPECT_TRUE(RemoveTree(*d));
  EXPECT_FALSE(std::filesystem::exists(*d));
}

}  // namespace
}  // namespace gpuwhy::subprocess_test
