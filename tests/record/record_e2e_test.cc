// End-to-end tests of live sampling against the fake NVML (no GPU needed):
// recording round trips and torn tails, `watch --once --json`, Prometheus over
// 127.0.0.1, `record` exit codes, signal forwarding, SIGKILL crash safety and
// the no-driver path. Every wait is bounded.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_stream.h"
#include "import/recording/recording_importer.h"
#include "import/recording/recording_reader.h"
#include "import/registry.h"
#include "record/format/recording_writer.h"

namespace {

namespace fs = std::filesystem;
using gpuwhy::import::ReadRecording;
using gpuwhy::import::Recording;
using gpuwhy::Result;

std::string TempDir() {
  static std::string dir = [] {
    std::string d = fs::temp_directory_path() / ("gpuwhy_record_test_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string p = TempDir() + "/" + name;
  std::ofstream(p) << text;
  return p;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Proc {
  pid_t pid = -1;
  std::string out_path, err_path;
};

// Spawn: run gpuwhy with args and extra env ("K=V"), stdout/stderr to files.
Proc Spawn(const std::vector<std::string>& args, const std::vector<std::string>& env,
           const std::string& tag) {
  Proc p;
  p.out_path = TempDir() + "/" + tag + ".out";
  p.err_path = TempDir() + "/" + tag + ".err";
  std::vector<std::string> all = {GPUWHY_EXE};
  all.insert(all.end(), args.begin(), args.end());
  p.pid = fork();
  if (p.pid == 0) {
    for (const auto& e : env) putenv(const_cast<char*>(strdup(e.c_str())));
    int o = open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(126);
  }
  return p;
}

// Wait: exit status (exit code, or 128+signal), killing the child after timeout_s.
int Wait(const Proc& p, int timeout_s = 60) {
  int st = 0;
  for (int i = 0; i < timeout_s * 20; ++i) {
    pid_t w = waitpid(p.pid, &st, WNOHANG);
    if (w == p.pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    usleep(50 * 1000);
  }
  kill(p.pid, SIGKILL);
  waitpid(p.pid, &st, 0);
  ADD_FAILURE() << "process did not end within " << timeout_s << " s";
  return -1;
}

int RunGpuwhy(const std::vector<std::string>& args, const std::vector<std::string>& env,
        const std::string& tag, int timeout_s = 60) {
  return Wait(Spawn(args, env, tag), timeout_s);
}

std::vector<std::string> FakeEnv(const std::string& scenario) {
  return {std::string("GPUWHY_NVML_LIBRARY=") + GPUWHY_FAKE_NVML,
          "GPUWHY_FAKE_NVML_SCENARIO=" + scenario, "CUDA_VISIBLE_DEVICES="};
}

const char* kTwoGpus = R"(devices 2
name 0 "NVIDIA H100 80GB HBM3"
metric 0 gpu_util square 0 100 400 0.5
metric 0 sm_active constant 30
metric 0 tensor_active constant 12
metric 0 power constant 350000
process 0 pid children mem 2000000000 util 90
process 0 pid 4242 name other_job mem 1000000000 util 40
name 1 "NVIDIA A100-SXM4-80GB"
arch 1 7
cc 1 8.0
gpm 1 0
unsupported 1 power
)";

Result<Recording> Load(const std::string& path) {
  auto in = gpuwhy::OpenInputStream(path);
  if (!in.ok()) return in.status();
  return ReadRecording(*in.value());
}

// ---- format ---------------------------------------------------------------

std::string WriteSmallRecording(const std::string& name) {
  using namespace gpuwhy::record;
  std::string path = TempDir() + "/" + name;
  auto w = RecordingWriter::Create(path, 100 * gpuwhy::kNsPerMs, gpuwhy::kNsPerS);
  EXPECT_TRUE(w.ok());
  RunInfo run;
  run.start_wall_ns = 1000;
  run.argv = {"python", "train.py"};
  run.rank = 3;
  run.hostname = "node7";
  w.value()->WriteRun(run);
  auto sys = std::make_shared<SystemInfo>();
  DeviceInfo d;
  d.index = 0;
  d.name = "GPU A";
  d.uuid = "GPU-a";
  d.supported.fill(true);
  d.supported[static_cast<size_t>(Metric::kPowerMw)] = false;
  d.probe_status[static_cast<size_t>(Metric::kPowerMw)] = 3;
  sys->devices.push_back(d);
  w.value()->WriteDevices(*sys);
  for (int t = 0; t < 20; ++t) {
    Snapshot s;
    s.ts_ns = 1'000'000'000 + t * 100'000'000LL;
    s.system = sys;
    DeviceSnapshot ds;
    ds.index = 0;
    ds.at(Metric::kGpuUtil) = Reading{t % 2 ? 1.0 : 0.0, 0, Source::kNvmlPoll, s.ts_ns};
    ds.at(Metric::kSmActive) = Reading{gpuwhy::kMissingF64, 15, Source::kGpm, s.ts_ns};
    ds.processes_read = true;
    ds.process_status = 0;
    ProcessInfo p;
    p.pid = 100 + t % 2;
    p.used_memory_bytes = 1000 * (t + 1);
    p.in_target = true;
    p.name = "python";
    ds.processes.push_back(p);
    s.devices.push_back(ds);
    w.value()->WriteSnapshot(s);
    EXPECT_TRUE(w.value()->Flush().ok());
  }
  EXPECT_TRUE(w.value()->Close(3'000'000'000LL, 7).ok());
  return path;
}

TEST(RecordingFormat, RoundTripThroughImporter) {
  std::string path = WriteSmallRecording("small.gwrec");
  auto rec = Load(path);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_FALSE(rec->torn_tail);
  EXPECT_TRUE(rec->has_end);
  EXPECT_EQ(rec->exit_code, 7);
  EXPECT_EQ(rec->run.rank, 3);
  ASSERT_EQ(rec->run.argv.size(), 2u);
  ASSERT_EQ(rec->devices.size(), 1u);
  ASSERT_EQ(rec->devices[0].unsupported.size(), 1u);

  auto trace = gpuwhy::import::ImportFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->info.format, "gpuwhy-recording");
  EXPECT_EQ(trace->rank.rank, 3);
  const gpuwhy::model::CounterSeries* util = nullptr;
  const gpuwhy::model::CounterSeries* sm = nullptr;
  for (const auto& c : trace->counters) {
    if (c.kind == gpuwhy::model::CounterKind::kGpuUtil) util = &c;
    if (c.kind == gpuwhy::model::CounterKind::kSmActive) sm = &c;
  }
  ASSERT_NE(util, nullptr);
  ASSERT_EQ(util->value.size(), 20u);
  EXPECT_EQ(util->value[1], 1.0);
  EXPECT_EQ(util->period_ns, 100 * gpuwhy::kNsPerMs);
  EXPECT_EQ(trace->Str(util->source), "nvml");
  ASSERT_NE(sm, nullptr);
  EXPECT_TRUE(std::isnan(sm->value[0]));  // an error is missing, never 0
  ASSERT_EQ(trace->gpu_processes.size(), 2u);
  EXPECT_TRUE(trace->gpu_processes.is_profiled[0]);
  EXPECT_EQ(trace->gpu_processes.used_memory_bytes[1], 20000);  // the peak
}

TEST(RecordingFormat, EveryTruncationIsReadableUpToTheTear) {
  std::string path = WriteSmallRecording("whole.gwrec");
  std::string bytes = ReadAll(path);
  auto whole = Load(path);
  ASSERT_TRUE(whole.ok());
  size_t prev_frames = 0;
  for (size_t n = gpuwhy::import::kRecordingHeaderBytes; n < bytes.size(); n += 7) {
    auto in = gpuwhy::OpenMemoryStream(std::string_view(bytes).substr(0, n), "cut.gwrec");
    auto rec = ReadRecording(*in);
    if (!rec.ok()) {
      // Only a cut before the run frame is complete may fail.
      EXPECT_LT(n, 200u) << rec.status().message();
      continue;
    }
    EXPECT_GE(rec->frames, prev_frames);
    prev_frames = rec->frames;
    EXPECT_FALSE(rec->has_end);
  }
  EXPECT_LE(prev_frames, whole->frames);
}

TEST(RecordingFormat, CorruptMiddleIsOneErrorWithOffset) {
  std::string path = WriteSmallRecording("corrupt.gwrec");
  std::string bytes = ReadAll(path);
  bytes[bytes.size() / 2] ^= 0x5a;
  auto in = gpuwhy::OpenMemoryStream(bytes, "corrupt.gwrec");
  auto rec = ReadRecording(*in);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.status().message().find("corrupt.gwrec"), std::string::npos);
  EXPECT_NE(rec.status().message().find("byte"), std::string::npos);
  // A zero-filled tail (preallocated blocks after a crash) is a torn tail.
  std::string zeros = ReadAll(path) + std::string(64, '\0');
  auto in2 = gpuwhy::OpenMemoryStream(zeros, "zeros.gwrec");
  auto rec2 = ReadRecording(*in2);
  ASSERT_TRUE(rec2.ok()) << rec2.status().message();
  EXPECT_TRUE(rec2->torn_tail);
}

TEST(RecordingFormat, BadMagicAndCliExitCode) {
  std::string p = WriteFile("notrec.gwrec", "\x89GWREX\r\nxxxxxxxxxxxxxxxx");
  EXPECT_EQ(RunGpuwhy({"analyze", p}, {}, "badmagic"), 2);
}

// ---- watch -----------------------------------------------------------------

TEST(Watch, OnceJsonAgainstFake) {
  std::string scen = WriteFile("two.txt", kTwoGpus);
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json"}, FakeEnv(scen), "watch_json"), 0);
  std::string out = ReadAll(TempDir() + "/watch_json.out");
  EXPECT_NE(out.find("\"name\":\"NVIDIA H100 80GB HBM3\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"sm_active\":{\"value\":0.3,\"unit\":\"ratio\",\"source\":\"nvml gpm\""),
            std::string::npos) << out;
  EXPECT_NE(out.find("\"util_sample_period_ns\":166666000"), std::string::npos);
  // GPU 1 has no GPM and no power: null with a status, never 0.
  size_t g1 = out.find("\"index\":1");
  ASSERT_NE(g1, std::string::npos);
  std::string dev1 = out.substr(g1);
  EXPECT_NE(dev1.find("\"sm_active\":{\"value\":null"), std::string::npos) << dev1;
  EXPECT_NE(dev1.find("\"power\":{\"value\":null,\"unit\":\"mW\",\"source\":null,\"status\":3}"),
            std::string::npos) << dev1;
  EXPECT_NE(out.find("\"name\":\"other_job\""), std::string::npos);
}

TEST(Watch, LostGpuAndR535Stride) {
  std::string scen = WriteFile("lost.txt", R"(devices 2
process_stride 32
process 0 pid 4242 name a mem 111 util 10
process 0 pid 4343 name b mem 222 util 20
lost 1 0 28
)");
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json"}, FakeEnv(scen), "watch_lost"), 0);
  std::string out = ReadAll(TempDir() + "/watch_lost.out");
  size_t g1 = out.find("\"index\":1");
  ASSERT_NE(g1, std::string::npos);
  EXPECT_NE(out.find("\"lost\":true", g1), std::string::npos) << out;
  // 32-byte records read with the right stride: both pids and memories intact.
  EXPECT_NE(out.find("\"pid\":4242,\"name\":\"a\",\"user\":\"\",\"used_memory_bytes\":111"),
            std::string::npos) << out;
  EXPECT_NE(out.find("\"pid\":4343,\"name\":\"b\",\"user\":\"\",\"used_memory_bytes\":222"),
            std::string::npos) << out;
}

TEST(Watch, NoDriverSaysSo) {
  EXPECT_EQ(RunGpuwhy({"watch", "--once"}, {"GPUWHY_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"}, "nodrv"), 2);
  EXPECT_NE(ReadAll(TempDir() + "/nodrv.err").find("no NVIDIA driver found"), std::string::npos);
  std::string scen = WriteFile("initerr.txt", "init_error 9\n");
  EXPECT_EQ(RunGpuwhy({"watch", "--once"}, FakeEnv(scen), "initerr"), 2);
  EXPECT_NE(ReadAll(TempDir() + "/initerr.err").find("no NVIDIA driver found"), std::string::npos);
}

int FreePort() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(s);
  return port;
}

// HttpGet: one GET over loopback; empty string when it cannot connect.
std::string HttpGet(int port, const std::string& path) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  timeval tv{2, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(s);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (write(s, req.data(), req.size()) < 0) {
    close(s);
    return "";
  }
  std::string resp;
  char buf[4096];
  for (int i = 0; i < 1000; ++i) {
    ssize_t n = read(s, buf, sizeof buf);
    if (n <= 0) break;
    resp.append(buf, static_cast<size_t>(n));
  }
  close(s);
  return resp;
}

TEST(Watch, PrometheusOverLoopback) {
  std::string scen = WriteFile("prom.txt", kTwoGpus);
  int port = FreePort();
  Proc p = Spawn({"watch", "--json", "--interval", "200", "--iterations", "100", "--prometheus",
                  "127.0.0.1:" + std::to_string(port)},
                 FakeEnv(scen), "prom");
  std::string body;
  for (int i = 0; i < 50; ++i) {  // bounded: at most ~10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    body = HttpGet(port, "/metrics");
    if (body.find("gpuwhy_sm_active_ratio") != std::string::npos) break;
  }
  kill(p.pid, SIGTERM);  // the test stops the server itself
  EXPECT_EQ(Wait(p, 20), 0);
  EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
  EXPECT_NE(body.find("# TYPE gpuwhy_gpu_busy_ratio gauge"), std::string::npos) << body;
  EXPECT_NE(body.find("gpuwhy_sm_active_ratio{gpu=\"0\",UUID=\"GPU-fake0000-0000-0000-0000-"
                      "000000000000\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\""),
            std::string::npos) << body;
  EXPECT_NE(body.find("gpuwhy_power_watts{gpu=\"0\""), std::string::npos);
  // GPU 1 has no power and no GPM: absent, not 0.
  EXPECT_EQ(body.find("gpuwhy_power_watts{gpu=\"1\""), std::string::npos) << body;
  EXPECT_EQ(body.find("gpuwhy_sm_active_ratio{gpu=\"1\""), std::string::npos);
  EXPECT_NE(body.find("gpuwhy_curve_info{gpu=\"0\""), std::string::npos);
}

// ---- record ----------------------------------------------------------------

TEST(Record, ForwardsExitCodeAndMarksTheCommandsProcesses) {
  std::string scen = WriteFile("rec.txt", kTwoGpus);
  std::string out = TempDir() + "/exit3.gwrec";
  EXPECT_EQ(RunGpuwhy({"record", "-o", out, "--interval", "50", "--", "sh", "-c", "sleep 1.2; exit 3"},
                FakeEnv(scen), "exit3"),
            3);
  auto rec = Load(out);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->has_end);
  EXPECT_EQ(rec->exit_code, 3);
  bool target = false, other = false, used0 = false;
  for (const auto& pl : rec->process_lists) {
    for (const auto& p : pl.processes) {
      if (p.in_target) target = true;
      if (p.pid == 4242 && !p.in_target) other = true;
    }
  }
  for (const auto& e : rec->events) {
    if (e.kind == static_cast<uint16_t>(gpuwhy::import::RecEventKind::kDeviceUsed) && e.device == 0) used0 = true;
  }
  EXPECT_TRUE(target);
  EXPECT_TRUE(other);
  EXPECT_TRUE(used0);
  // The importer keeps only the device the command used, with its sources.
  auto trace = gpuwhy::import::ImportFile(out);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->devices.size(), 1u);
  bool fine = false;
  for (const auto& c : trace->counters) {
    if (c.kind == gpuwhy::model::CounterKind::kGpuUtil) {
      fine = trace->Str(c.source).find("nvml samples") != std::string::npos;
      EXPECT_EQ(c.period_ns, 166666000);
    }
  }
  EXPECT_TRUE(fine);
  // The analysis was printed after the command ended.
  EXPECT_NE(ReadAll(TempDir() + "/exit3.out").find("gpuwhy-recording"), std::string::npos);
}

TEST(Record, KilledBySignalGives128PlusN) {
  std::string scen = WriteFile("rec2.txt", kTwoGpus);
  std::string out = TempDir() + "/sig.gwrec";
  EXPECT_EQ(RunGpuwhy({"record", "-o", out, "--no-report", "--", "sh", "-c", "kill -TERM $$"}, FakeEnv(scen),
                "sig"),
            128 + SIGTERM);
}

TEST(Record, ForwardsSigtermToTheCommand) {
  std::string scen = WriteFile("rec3.txt", kTwoGpus);
  std::string out = TempDir() + "/fwd.gwrec";
  std::string marker = TempDir() + "/fwd.marker";
  Proc p = Spawn({"record", "-o", out, "--no-report", "--", "sh", "-c",
                  "trap 'echo got > " + marker + "; exit 42' TERM; while true; do sleep 0.1; done"},
                 FakeEnv(scen), "fwd");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(p.pid, SIGTERM);
  EXPECT_EQ(Wait(p, 20), 42);
  EXPECT_EQ(ReadAll(marker), "got\n");
}

TEST(Record, SigkillLeavesAReadableRecording) {
  std::string scen = WriteFile("rec4.txt", kTwoGpus);
  std::string out = TempDir() + "/killed.gwrec";
  std::string pidfile = TempDir() + "/killed.pid";
  Proc p = Spawn({"record", "-o", out, "--interval", "50", "--", "sh", "-c",
                  "echo $$ > " + pidfile + "; exec sleep 30"},
                 FakeEnv(scen), "killed");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(p.pid, SIGKILL);
  Wait(p, 10);
  std::string child = ReadAll(pidfile);
  if (!child.empty()) kill(std::atoi(child.c_str()), SIGKILL);  // the orphaned command
  auto rec = Load(out);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_FALSE(rec->has_end);
  size_t samples = 0;
  for (const auto& s : rec->series) samples += s.ts_ns.size();
  EXPECT_GT(samples, 20u);  // ~1.4 s at 50 ms, flushed every tick
  EXPECT_EQ(RunGpuwhy({"analyze", out}, {}, "killed_analyze"), 0);
  // A tear in the last frame is still readable and counted.
  std::string bytes = ReadAll(out);
  std::string torn = TempDir() + "/torn.gwrec";
  std::ofstream(torn, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  auto trace = gpuwhy::import::ImportFile(torn);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->stats.Get(gpuwhy::model::ImportStat::truncated_tail), 1u);
}

TEST(Record, NoDriverStillRunsTheCommand) {
  std::string out = TempDir() + "/nodrv.gwrec";
  std::string marker = TempDir() + "/nodrv.marker";
  EXPECT_EQ(RunGpuwhy({"record", "-o", out, "--", "sh", "-c", "echo ran > " + marker + "; exit 5"},
                {"GPUWHY_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"}, "rec_nodrv"),
            5);
  EXPECT_EQ(ReadAll(marker), "ran\n");
  std::string err = ReadAll(TempDir() + "/rec_nodrv.err");
  EXPECT_NE(err.find("no NVIDIA driver found"), std::string::npos) << err;
  EXPECT_NE(err.find("nothing was sampled"), std::string::npos) << err;
  auto rec = Load(out);
  ASSERT_TRUE(rec.ok());
  EXPECT_NE(rec->run.nvml_status.find("no NVIDIA driver found"), std::string::npos);
}

TEST(Record, CommandNotFoundIs127) {
  std::string scen = WriteFile("rec5.txt", kTwoGpus);
  EXPECT_EQ(RunGpuwhy({"record", "-o", TempDir() + "/nf.gwrec", "--", "/nonexistent/cmd"}, FakeEnv(scen),
                "notfound"),
            127);
  EXPECT_NE(ReadAll(TempDir() + "/notfound.err").find("cannot run"), std::string::npos);
}

}  // namespace
