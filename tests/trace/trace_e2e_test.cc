// End-to-end tests of `gpuwhy record --trace` on the CPU: gpuwhy runs
// trace_driver (which plays the CUDA driver and loads libgpuwhy_inject.so) with
// the fake libcupti; the recording is read back and `gpuwhy analyze` must name
// the scripted cause. Every wait is bounded.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_stream.h"
#include "import/recording/recording_reader.h"

namespace {

namespace fs = std::filesystem;
using gpuwhy::import::ReadRecording;
using gpuwhy::import::Recording;

std::string TempDir() {
  static std::string dir = [] {
    std::string d = fs::temp_directory_path() / ("gpuwhy_trace_test_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Out {
  int code = -1;
  std::string out, err;
};

// Run: args with `env` added; stdout/stderr captured; killed after timeout_s.
Out RunProc(const std::vector<std::string>& args, const std::vector<std::string>& env,
        const std::string& tag, int timeout_s = 60) {
  std::string so = TempDir() + "/" + tag + ".out", se = TempDir() + "/" + tag + ".err";
  pid_t pid = fork();
  if (pid == 0) {
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    freopen(so.c_str(), "w", stdout);
    freopen(se.c_str(), "w", stderr);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Out o;
  int st = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) {
      o.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      ADD_FAILURE() << tag << ": did not end within " << timeout_s << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  o.out = ReadAll(so);
  o.err = ReadAll(se);
  return o;
}

std::vector<std::string> FakeEnv() {
  return {std::string("GPUWHY_CUPTI_LIBRARY=") + GPUWHY_FAKE_CUPTI,
          std::string("GPUWHY_INJECT_LIBRARY=") + GPUWHY_INJECT,
          "GPUWHY_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
          "GPUWHY_DCGM_LIBRARY=/nonexistent/libdcgm.so.4"};
}

// Record: `gpuwhy record --trace -o <tag>.gwrec -- trace_driver SCENARIO [ARG]`.
Out Record(const std::string& scenario, const std::string& tag,
           std::vector<std::string> env = FakeEnv(), const std::string& arg = "") {
  std::vector<std::string> args = {GPUWHY_EXE, "record", "--trace", "--no-dcgm", "--json",
                                   "-o", TempDir() + "/" + tag + ".gwrec", "--",
                                   GPUWHY_TRACE_DRIVER, scenario};
  if (!arg.empty()) args.push_back(arg);
  return RunProc(args, env, tag);
}

Recording Read(const std::string& tag) {
  auto in = gpuwhy::OpenInputStream(TempDir() + "/" + tag + ".gwrec");
  EXPECT_TRUE(in.ok());
  if (!in.ok()) return {};
  auto rec = ReadRecording(*in.value());
  EXPECT_TRUE(rec.ok()) << rec.status().message();
  return rec.ok() ? std::move(rec).value() : Recording{};
}

// TopFinding: the first finding id of `analyze --json` output.
std::string TopFinding(const std::string& json) {
  size_t f = json.find("\"findings\"");
  if (f == std::string::npos) return "";
  size_t id = json.find("\"id\"", f);
  if (id == std::string::npos) return "";
  size_t q1 = json.find('"', json.find(':', id) + 1);
  size_t q2 = json.find('"', q1 + 1);
  return json.substr(q1 + 1, q2 - q1 - 1);
}

bool HasFinding(const std::string& json, const std::string& id) {
  return json.find("\"id\": \"" + id + "\"") != std::string::npos ||
         json.find("\"id\":\"" + id + "\"") != std::string::npos;
}

// Aligned: every kernel of the trace lies inside the command's wall-clock window.
void ExpectAligned(const Recording& rec) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& e : rec.events) {
    if (e.kind == 1) lo = e.ts_ns;  // command started
    if (e.kind == 2) hi = e.ts_ns;  // command exited
  }
  ASSERT_NE(lo, INT64_MAX);
  ASSERT_FALSE(rec.traces.empty());
  for (const auto& k : rec.traces[0].kernels) {
    ASSERT_GE(+k.start_ns, lo - 50'000'000);  // the driver paces in real time; +: packed field
    ASSERT_LE(+k.end_ns, hi + 50'000'000);
  }
}

TEST(TraceE2e, SyncEveryStep) {
  Out o = Record("sync", "sync");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("traced 1 CUDA process"), std::string::npos) << o.err;
  Recording rec = Read("sync");
  ASSERT_EQ(rec.traces.size(), 1u);
  const auto& t = rec.traces[0];
  EXPECT_TRUE(t.status.empty()) << t.status;
  EXPECT_EQ(t.kernels.size(), 30u * 40u);
  EXPECT_EQ(t.syncs.size(), 30u);
  EXPECT_EQ(t.ranges.size(), 30u);  // NVTX step ranges (NVTX_INJECTION64_PATH set by record)
  // record pointed NVTX at the injection library, which handed NVTX's getter to libcupti.
  EXPECT_NE(o.err.find(std::string("nvtx injection ") + GPUWHY_INJECT + " -> 1"), std::string::npos) << o.err;
  EXPECT_EQ(t.api.size(), 30u * 42u);  // launches, the copy, the sync; not cudaGetDevice
  for (const auto& a : t.api) EXPECT_NE(a.cbid, 17u) << "cudaGetDevice is switched off";
  EXPECT_GT(t.Stat(gpuwhy::wire::TraceStat::kOverheadRecords), 0u);
  ExpectAligned(rec);
  EXPECT_TRUE(HasFinding(o.out, "sync.host_sync")) << o.out.substr(0, 4000);
  Out a = RunProc({GPUWHY_EXE, "analyze", "--json", TempDir() + "/sync.gwrec"}, {}, "sync_an");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(TopFinding(a.out), "sync.host_sync");
  EXPECT_FALSE(fs::exists(TempDir() + "/sync.gwrec.trace"));  // merged and removed
}

TEST(TraceE2e, TinyKernels) {
  Out o = Record("tiny", "tiny");
  EXPECT_EQ(o.code, 0) << o.err;
  Recording rec = Read("tiny");
  ASSERT_EQ(rec.traces.size(), 1u);
  EXPECT_EQ(rec.traces[0].kernels.size(), 8000u);
  ExpectAligned(rec);
  EXPECT_EQ(TopFinding(o.out), "launch_bound.fragmented") << o.out.substr(0, 4000);
}

TEST(TraceE2e, PageableCopyPerStep) {
  Out o = Record("pageable", "pageable");
  EXPECT_EQ(o.code, 0) << o.err;
  Recording rec = Read("pageable");
  ASSERT_EQ(rec.traces.size(), 1u);
  EXPECT_EQ(rec.traces[0].copies.size(), 10u);
  EXPECT_EQ(TopFinding(o.out), "data_loading.h2d_copies") << o.out.substr(0, 4000);
}

TEST(TraceE2e, SecondSubscriberDisablesTracingAndTheProgramRuns) {
  std::vector<std::string> env = FakeEnv();
  env.push_back("FAKE_CUPTI_OTHER_SUBSCRIBER=1");
  Out o = Record("sync", "second", env);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("trace_driver: sync done"), std::string::npos);
  // One warning line from the library, then gpuwhy's own summary.
  size_t first = o.err.find("gpuwhy trace: another CUPTI subscriber");
  ASSERT_NE(first, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("gpuwhy trace:", first + 1), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("nothing was traced"), std::string::npos) << o.err;
  Recording rec = Read("second");
  ASSERT_EQ(rec.traces.size(), 1u);
  EXPECT_NE(rec.traces[0].status.find("another CUPTI subscriber"), std::string::npos);
  EXPECT_TRUE(rec.traces[0].kernels.empty());
}

TEST(TraceE2e, BufferOverflowIsCountedAndReported) {
  std::vector<std::string> env = FakeEnv();
  env.push_back("GPUWHY_TRACE_BUFFERS=2");
  env.push_back("GPUWHY_TRACE_BUFFER_KB=64");
  Out o = Record("tiny", "overflow", env);
  EXPECT_EQ(o.code, 0) << o.err;
  Recording rec = Read("overflow");
  ASSERT_EQ(rec.traces.size(), 1u);
  const auto& t = rec.traces[0];
  EXPECT_GT(t.Stat(gpuwhy::wire::TraceStat::kDroppedRecords), 1000u);
  EXPECT_LT(t.kernels.size(), 8000u);
  // The report says so (import notes), in the terminal and in the JSON.
  EXPECT_NE(o.out.find("trace_records_dropped"), std::string::npos) << o.out.substr(0, 4000);
  Out a = RunProc({GPUWHY_EXE, "analyze", TempDir() + "/overflow.gwrec"}, {}, "overflow_an");
  EXPECT_NE(a.out.find("trace_records_dropped"), std::string::npos) << a.out;
}

TEST(TraceE2e, SigkillMidRunKeepsWhatWasFlushed) {
  Out o = Record("sigkill", "killed", FakeEnv(), "150");
  EXPECT_EQ(o.code, 128 + SIGKILL) << o.err;
  Recording rec = Read("killed");
  ASSERT_EQ(rec.traces.size(), 1u);
  // ~1.35 s of steps; the writer flushes every 0.5 s, so most of it is there.
  EXPECT_GT(rec.traces[0].kernels.size(), 40u * 50u);
  EXPECT_LE(rec.traces[0].kernels.size(), 40u * 150u);
  EXPECT_TRUE(HasFinding(o.out, "sync.host_sync")) << o.out.substr(0, 4000);
}

TEST(TraceE2e, EveryProcessGetsItsOwnStreamWithItsRank) {
  // Two CUDA processes under one command (a launcher and its workers): two
  // streams, each with its pid and rank, both merged into the recording.
  std::string drv = GPUWHY_TRACE_DRIVER;
  Out o = RunProc({GPUWHY_EXE, "record", "--trace", "--no-dcgm", "-o", TempDir() + "/two.gwrec", "--",
                   "/bin/sh", "-c",
                   "RANK=0 " + drv + " tiny & RANK=1 " + drv + " sync; s=$?; wait $! || exit 9; exit $s"},
                  FakeEnv(), "two");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("traced 2 CUDA processes"), std::string::npos) << o.err;
  Recording rec = Read("two");
  ASSERT_EQ(rec.traces.size(), 2u);
  EXPECT_NE(rec.traces[0].pid, rec.traces[1].pid);
  size_t tiny = rec.traces[0].kernels.size() == 8000u ? 0 : 1;
  EXPECT_EQ(rec.traces[tiny].kernels.size(), 8000u);
  EXPECT_EQ(rec.traces[tiny].rank, 0);
  EXPECT_EQ(rec.traces[1 - tiny].kernels.size(), 1200u);
  EXPECT_EQ(rec.traces[1 - tiny].rank, 1);
  // The diagnosis treats them as two ranks (the cross-rank detectors run), and
  // `analyze` on the recording agrees.
  EXPECT_NE(o.out.find("2 ranks analyzed together"), std::string::npos) << o.out.substr(0, 2000);
  Out a = RunProc({GPUWHY_EXE, "analyze", "--json", TempDir() + "/two.gwrec"}, {}, "two_an");
  ASSERT_EQ(a.code, 0) << a.err;
  for (int rank : {0, 1}) {
    std::regex input("\"input\": \\{[^}]*\"rank\": " + std::to_string(rank) + ",\\s*\"world_size\": 2,");
    EXPECT_TRUE(std::regex_search(a.out, input)) << "rank " << rank << ": " << a.out.substr(0, 3000);
  }
  // Each rank keeps its own kernels: the tiny-kernel rank is the launch-bound one.
  Out t = RunProc({GPUWHY_EXE, "analyze", TempDir() + "/two.gwrec"}, {}, "two_txt");
  EXPECT_NE(t.out.find("rank 0"), std::string::npos);
}

TEST(TraceE2e, ForkedChildExitDoesNotFlushOrHang) {
  Out o = Record("fork", "fork");
  EXPECT_EQ(o.code, 0) << o.err;
  Recording rec = Read("fork");
  ASSERT_EQ(rec.traces.size(), 1u);  // the child never initialized CUDA: no stream of its own
  EXPECT_EQ(rec.traces[0].kernels.size(), 8000u);
}

TEST(TraceE2e, TraceKindsSelectWhatIsTracedAndUnknownWordsAreRefused) {
  Out bad = RunProc({GPUWHY_EXE, "record", "--trace", "--trace-kinds", "kernel,bogus", "--", "/bin/true"},
                    FakeEnv(), "kinds_bad");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("unknown --trace-kinds word 'bogus'"), std::string::npos) << bad.err;
  Out o = RunProc({GPUWHY_EXE, "record", "--trace", "--trace-kinds", "kernel,sync", "--no-dcgm", "-o",
                   TempDir() + "/kinds.gwrec", "--", GPUWHY_TRACE_DRIVER, "sync"},
                  FakeEnv(), "kinds");
  EXPECT_EQ(o.code, 0) << o.err;
  Recording rec = Read("kinds");
  ASSERT_EQ(rec.traces.size(), 1u);
  EXPECT_EQ(rec.traces[0].kernels.size(), 1200u);
  EXPECT_EQ(rec.traces[0].syncs.size(), 30u);
  EXPECT_TRUE(rec.traces[0].api.empty());
  EXPECT_TRUE(rec.traces[0].copies.empty());
}

TEST(TraceE2e, NoDriverNoLibraryLoadKeepsTheExitCode) {
  // The command never initializes CUDA: it still runs, its exit code is kept,
  // and one line says why nothing was traced.
  Out o = RunProc({GPUWHY_EXE, "record", "--trace", "--no-dcgm", "-o", TempDir() + "/none.gwrec", "--",
               "/bin/sh", "-c", "exit 3"},
              FakeEnv(), "none");
  EXPECT_EQ(o.code, 3);
  EXPECT_NE(o.err.find("nothing was traced ("), std::string::npos) << o.err;
}

TEST(TraceE2e, StreamFileReadsOnItsOwn) {
  // Without gpuwhy record (CUDA_INJECTION64_PATH set by hand), the stream file
  // is itself a readable recording.
  std::string dir = TempDir() + "/bare";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> env = FakeEnv();
  env.push_back(std::string("CUDA_INJECTION64_PATH=") + GPUWHY_INJECT);
  env.push_back("GPUWHY_TRACE_DIR=" + dir);
  Out o = RunProc({GPUWHY_TRACE_DRIVER, "tiny"}, env, "bare");
  ASSERT_EQ(o.code, 0) << o.err;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  Out a = RunProc({GPUWHY_EXE, "analyze", "--json", files[0]}, {}, "bare_an");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(TopFinding(a.out), "launch_bound.fragmented");
}

}  // namespace
