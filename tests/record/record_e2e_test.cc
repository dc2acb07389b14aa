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

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_stream.h"
#include "import/recording/recording_importer.h"
#include "import/recording/recording_reader.h"
#include "import/registry.h"
#include "base/recording_wire.h"
#include "record/format/recording_writer.h"

#include "fake_kubelet.h"
#include "test_process.h"

namespace {

using namespace gpuwhy_test;  // NOLINT: the helpers of every test below

namespace fs = std::filesystem;
using gpuwhy::import::ReadRecording;
using gpuwhy::import::Recording;
using gpuwhy::Result;

// An A100-like GPU with NVLink (no GPM: DCGM gives the real figures), an
// H100 in MIG mode with two instances, and a GPU without NVLink.
// The fake processes' pids are above the kernel's PID_MAX_LIMIT (4194304),
// so no live process has them: the sampler names a process (and its user)
// from /proc/PID when that exists, and a CI machine once had a pid 4242 of
// its own, whose name and user then replaced the scenario's.
const char* kNvlinkMig = R"(devices 3
name 0 "NVIDIA A100-SXM4-80GB"
gpm 0 0
nvlinks 0 12
metric 0 nvlink_tx_kibps constant 100000
metric 0 nvlink_rx_kibps constant 25000
name 1 "NVIDIA H100 80GB HBM3"
mig 1 1
mig_instance 1 1 0 20000000000 5000000000 40
mig_instance 1 2 0 40000000000 1000000000 7
name 2 "NVIDIA A10"
gpm 2 0
)";
const char* kDcgmValues = R"(gpus 3
value 0 1002 0.42
value 0 1003 0.21
value 0 1004 0.05
blank 0 1005
)";

const char* kTwoGpus = R"(devices 2
name 0 "NVIDIA H100 80GB HBM3"
metric 0 gpu_util square 0 100 400 0.5
metric 0 sm_active constant 30
metric 0 tensor_active constant 12
metric 0 power constant 350000
process 0 pid children mem 2000000000 util 90
process 0 pid 4194342 name other_job mem 1000000000 util 40
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
process 0 pid 4194342 name a mem 111 util 10
process 0 pid 4194343 name b mem 222 util 20
lost 1 0 28
)");
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json"}, FakeEnv(scen), "watch_lost"), 0);
  std::string out = ReadAll(TempDir() + "/watch_lost.out");
  size_t g1 = out.find("\"index\":1");
  ASSERT_NE(g1, std::string::npos);
  EXPECT_NE(out.find("\"lost\":true", g1), std::string::npos) << out;
  // 32-byte records read with the right stride: both pids and memories intact.
  EXPECT_NE(out.find("\"pid\":4194342,\"name\":\"a\",\"user\":\"\",\"used_memory_bytes\":111"),
            std::string::npos) << out;
  EXPECT_NE(out.find("\"pid\":4194343,\"name\":\"b\",\"user\":\"\",\"used_memory_bytes\":222"),
            std::string::npos) << out;
}

TEST(Watch, NvlinkDcgmAndMigInJson) {
  std::string scen = WriteFile("nvmig.txt", kNvlinkMig);
  std::string dscen = WriteFile("nvmig_dcgm.txt", kDcgmValues);
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json", "--dcgm", "127.0.0.1:5555"},
                      FakeEnvDcgm(scen, dscen), "watch_nvmig"), 0);
  std::string out = ReadAll(TempDir() + "/watch_nvmig.out");
  size_t g1 = out.find("\"index\":1");
  size_t g2 = out.find("\"index\":2,\"name\"");
  ASSERT_NE(g1, std::string::npos) << out;
  ASSERT_NE(g2, std::string::npos) << out;
  std::string dev0 = out.substr(0, g1), dev1 = out.substr(g1, g2 - g1), dev2 = out.substr(g2);
  // NVLink totals from field values in bytes/s: 12 links x 100000 KiB/s.
  size_t nt = dev0.find("\"nvlink_tx\":{\"value\":");
  ASSERT_NE(nt, std::string::npos) << dev0;
  double tx = std::atof(dev0.c_str() + nt + std::strlen("\"nvlink_tx\":{\"value\":"));
  EXPECT_NEAR(tx, 12 * 100000 * 1024.0, 12 * 100000 * 1024.0 * 0.01) << dev0;
  EXPECT_NE(dev0.find("\"unit\":\"bytes/s\",\"source\":\"nvml fields\",\"status\":0}"),
            std::string::npos) << dev0;
  EXPECT_NE(dev0.find("\"nvlink_count\":12"), std::string::npos);
  EXPECT_NE(dev0.find("{\"link\":11,\"tx_bytes_per_second\":"), std::string::npos) << dev0;
  // Real figures from DCGM on the GPU without GPM, labelled; a blank is null.
  EXPECT_NE(dev0.find("\"real_source\":\"dcgm\""), std::string::npos) << dev0;
  EXPECT_NE(dev0.find("\"sm_active\":{\"value\":0.42,\"unit\":\"ratio\",\"source\":\"dcgm\""),
            std::string::npos) << dev0;
  EXPECT_NE(dev0.find("\"dram_active\":{\"value\":null,\"unit\":\"ratio\",\"source\":\"dcgm\",\"status\":-4}"),
            std::string::npos) << dev0;
  EXPECT_NE(out.find("\"dcgm_status\":\"DCGM host engine at 127.0.0.1:5555"), std::string::npos);
  // MIG: no GPU-Util (null, NOT_SUPPORTED), said per instance; two instances with memory.
  EXPECT_NE(dev1.find("\"gpu_util\":{\"value\":null,\"unit\":\"ratio\",\"source\":null,\"status\":3}"),
            std::string::npos) << dev1;
  EXPECT_NE(dev1.find("\"gpu_util_per_instance\":\"n/a: NVML gives no GPU-Util per MIG instance\""),
            std::string::npos) << dev1;
  EXPECT_NE(dev1.find("\"gpu_instance_id\":1,\"compute_instance_id\":0,\"gpu_util\":null,"
                      "\"mem_used_bytes\":5000000000,\"mem_total_bytes\":20000000000,\"sm_active\":0.4,"),
            std::string::npos) << dev1;
  EXPECT_NE(dev1.find("\"gpu_instance_id\":2,"), std::string::npos) << dev1;
  EXPECT_NE(dev1.find("\"real_source\":\"nvml gpm\""), std::string::npos) << dev1;
  // No NVLink: null with NOT_SUPPORTED, no links; never 0.
  EXPECT_NE(dev2.find("\"nvlink_tx\":{\"value\":null,\"unit\":\"bytes/s\",\"source\":null,\"status\":3}"),
            std::string::npos) << dev2;
  EXPECT_NE(dev2.find("\"nvlink_count\":null,\"nvlinks\":[]"), std::string::npos) << dev2;
  // The terminal view names the sources and the MIG limitation.
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--no-color"}, FakeEnvDcgm(scen, dscen), "watch_nvmig_text"), 0);
  std::string text = ReadAll(TempDir() + "/watch_nvmig_text.out");
  EXPECT_NE(text.find("(real: DCGM)"), std::string::npos) << text;
  EXPECT_NE(text.find("[DCGM]"), std::string::npos) << text;
  EXPECT_NE(text.find("(real: NVML GPM)  MIG on: GPU-Util n/a per instance"), std::string::npos) << text;
  EXPECT_NE(text.find("MIG GI 2 CI 0"), std::string::npos) << text;
  EXPECT_NE(text.find("(12 links)"), std::string::npos) << text;
}

TEST(Watch, DcgmAbsentIsSaidOnceAndWatchGoesOn) {
  std::string scen = WriteFile("nodcgm.txt", kTwoGpus);  // GPU 1 has no GPM
  ASSERT_EQ(RunGpuwhy({"watch", "--json", "--interval", "100", "--iterations", "3"}, FakeEnv(scen),
                      "watch_nodcgm"), 0);
  std::string err = ReadAll(TempDir() + "/watch_nodcgm.err");
  size_t first = err.find("DCGM not used");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("DCGM not used", first + 1), std::string::npos) << err;  // once
  EXPECT_NE(err.find("libdcgm not found"), std::string::npos) << err;
  std::string out = ReadAll(TempDir() + "/watch_nodcgm.out");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
  // The host engine is absent (library present): also said, also no failure.
  std::string dscen = WriteFile("nohe.txt", "connect_error -21\n");
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json"}, FakeEnvDcgm(scen, dscen), "watch_nohe"), 0);
  EXPECT_NE(ReadAll(TempDir() + "/watch_nohe.err").find("no DCGM host engine at 127.0.0.1"),
            std::string::npos);
  // --no-dcgm: not tried, nothing said.
  ASSERT_EQ(RunGpuwhy({"watch", "--once", "--json", "--no-dcgm"}, FakeEnv(scen), "watch_nodcgm2"), 0);
  EXPECT_EQ(ReadAll(TempDir() + "/watch_nodcgm2.err").find("DCGM"), std::string::npos);
}

TEST(Watch, NoDriverSaysSo) {
  EXPECT_EQ(RunGpuwhy({"watch", "--once"}, {"GPUWHY_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"}, "nodrv"), 2);
  EXPECT_NE(ReadAll(TempDir() + "/nodrv.err").find("no NVIDIA driver found"), std::string::npos);
  std::string scen = WriteFile("initerr.txt", "init_error 9\n");
  EXPECT_EQ(RunGpuwhy({"watch", "--once"}, FakeEnv(scen), "initerr"), 2);
  EXPECT_NE(ReadAll(TempDir() + "/initerr.err").find("no NVIDIA driver found"), std::string::npos);
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

  // promtool's linter: the only complaints allowed are the camelCase label
  // names kept from dcgm-exporter (UUID, modelName, Hostname; docs/fleet.md).
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    std::cout << "SKIPPED promtool lint: promtool not installed (Debian package prometheus)\n";
    return;
  }
  size_t at = body.find("\r\n\r\n");
  ASSERT_NE(at, std::string::npos);
  std::string metrics = WriteFile("scrape.prom", body.substr(at + 4));
  std::string lint_out = TempDir() + "/promlint.txt";
  std::string cmd = "promtool check metrics < '" + metrics + "' > '" + lint_out + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream lint(lint_out);
  int problems = 0;
  for (std::string line; std::getline(lint, line);) {
    if (line.empty()) continue;
    ++problems;
    const bool camel = line.find("camelCase") != std::string::npos;
    EXPECT_TRUE(camel) << "promtool check metrics: " << line;
  }
  EXPECT_TRUE(rc == 0 || problems > 0) << "promtool failed without saying why";
}

// Kubernetes and Slurm attribution end to end: the fake NVML lists three
// processes, a fake /proc gives their cgroups and environments, and the fake
// kubelet says which pod holds which GPU. The scrape must carry the owners.
const char* kOwnedProcesses = R"(devices 2
name 0 "NVIDIA H100 80GB HBM3"
metric 0 gpu_util constant 90
process 0 pid 4194342 name trainer mem 1000000000 util 40
process 0 pid 4194343 name notebook mem 2000000000 util 10
name 1 "NVIDIA H100 80GB HBM3"
metric 1 gpu_util constant 50
process 1 pid 4194351 name srun_task mem 3000000000 util 30
)";

void FakeProc(const std::string& root, int pid, const std::string& cgroup, const std::string& environ) {
  std::string dir = root + "/" + std::to_string(pid);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cgroup") << cgroup;
  std::ofstream(dir + "/environ", std::ios::binary) << environ;
  std::string stat = std::to_string(pid) + " (x) S";
  for (int f = 4; f <= 22; ++f) stat += " " + std::to_string(f);
  std::ofstream(dir + "/stat") << stat << "\n";
}

TEST(Watch, PrometheusLabelsProcessesWithPodsAndSlurmJobs) {
  std::string scen = WriteFile("owned.txt", kOwnedProcesses);
  const std::string proc = TempDir() + "/fakeproc";
  const std::string uid_a = "aaaaaaaa-1111-4222-8333-444455556666", uid_b = "bbbbbbbb-1111-4222-8333-444455556666";
  std::string us_b = uid_b;
  std::replace(us_b.begin(), us_b.end(), '-', '_');
  // 4194342: cgroupfs driver; 4194343: systemd driver, time-sliced with
  // 4194342, told apart by HOSTNAME.
  FakeProc(proc, 4194342, "0::/kubepods/burstable/pod" + uid_a + "/" + std::string(64, 'c') + "\n",
           std::string("HOSTNAME=trainer-0\0PATH=/bin\0", 29));
  FakeProc(proc, 4194343, "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + us_b +
                           ".slice/cri-containerd-" + std::string(64, 'd') + ".scope\n",
           std::string("HOSTNAME=notebook-7\0", 20));
  FakeProc(proc, 4194351, "0::/system.slice/slurmstepd.scope/job_31337/step_0/user/task_0\n",
           std::string("SLURM_JOB_ID=31337\0", 19));
  gpuwhy_test::FakeKubelet kubelet;
  const std::string sock = TempDir() + "/kubelet.sock";
  ASSERT_TRUE(kubelet.Start(sock));
  kubelet.Set({{"ml", "trainer-0", "pytorch", "nvidia.com/gpu", "GPU-fake0000-0000-0000-0000-000000000000::0"},
               {"lab", "notebook-7", "jupyter", "nvidia.com/gpu", "GPU-fake0000-0000-0000-0000-000000000000::1"}});
  int port = FreePort();
  Proc p = Spawn({"watch", "--json", "--interval", "200", "--iterations", "100", "--prometheus",
                  "127.0.0.1:" + std::to_string(port), "--proc-root", proc, "--pod-resources-socket", sock},
                 FakeEnv(scen), "owned");
  std::string body;
  for (int i = 0; i < 50; ++i) {  // bounded: at most ~10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    body = HttpGet(port, "/metrics");
    if (body.find("pod=\"notebook-7\"") != std::string::npos && body.find("slurm_job_id") != std::string::npos) break;
  }
  kill(p.pid, SIGTERM);
  EXPECT_EQ(Wait(p, 20), 0);
  kubelet.Stop();
  auto line_of = [&](const std::string& family, const std::string& pid) {
    size_t at = body.find(family + "{gpu=");
    while (at != std::string::npos) {
      size_t end = body.find('\n', at);
      std::string line = body.substr(at, end - at);
      if (line.find("pid=\"" + pid + "\"") != std::string::npos) return line;
      at = body.find(family + "{gpu=", end);
    }
    return std::string();
  };
  std::string a = line_of("gpuwhy_process_memory_used_bytes", "4194342");
  EXPECT_NE(a.find("process_name=\"trainer\""), std::string::npos) << body;
  EXPECT_NE(a.find("pod=\"trainer-0\",namespace=\"ml\",container=\"pytorch\",pod_uid=\"" + uid_a + "\""),
            std::string::npos) << a;
  EXPECT_NE(a.find("} 1000000000"), std::string::npos) << a;
  std::string b = line_of("gpuwhy_process_sm_util_ratio", "4194343");
  EXPECT_NE(b.find("pod=\"notebook-7\",namespace=\"lab\",container=\"jupyter\",pod_uid=\"" + uid_b + "\""),
            std::string::npos) << b;
  std::string c = line_of("gpuwhy_process_memory_used_bytes", "4194351");
  EXPECT_NE(c.find("gpu=\"1\""), std::string::npos) << c;
  EXPECT_NE(c.find("slurm_job_id=\"31337\""), std::string::npos) << c;
  EXPECT_EQ(c.find("pod="), std::string::npos) << c;
  EXPECT_NE(body.find("gpuwhy_gpu_owner_info{gpu=\"0\""), std::string::npos) << body;
  EXPECT_NE(body.find(",pod=\"notebook-7\",namespace=\"lab\",container=\"jupyter\",resource=\"nvidia.com/gpu\"} 1"),
            std::string::npos) << body;
  EXPECT_NE(body.find(",slurm_job_id=\"31337\"} 1"), std::string::npos) << body;
  EXPECT_NE(body.find("gpuwhy_pod_resources_up{Hostname="), std::string::npos) << body;
  EXPECT_NE(body.find("gpuwhy_attribution_ambiguous_processes{Hostname=\""), std::string::npos);
  EXPECT_GE(kubelet.calls(), 1);
  EXPECT_NE(ReadAll(p.err_path).find("pod labels from the kubelet's pod-resources socket"), std::string::npos)
      << ReadAll(p.err_path);
}

// A real Prometheus scrapes `watch --prometheus` and evaluates the shipped
// rules (deploy/prometheus): GpuwhySurfaceInflated fires for GPU 0 (GPU-Util
// 95%, SM active 10%) and not for GPU 1 (95% / 85%). The rules' `for:` holds
// are cut to 0s and the recording group's interval to 1s, so that the test
// needs seconds, not 15 minutes; the expressions are the shipped ones
// (promtool test rules covers the holds).
const char* kInflatedAndHealthy = R"(devices 2
name 0 "NVIDIA H100 80GB HBM3"
metric 0 gpu_util constant 95
metric 0 sm_active constant 10
name 1 "NVIDIA H100 80GB HBM3"
metric 1 gpu_util constant 95
metric 1 sm_active constant 85
)";

TEST(Prometheus, RealServerFiresSurfaceInflatedForTheInflatedGpuOnly) {
  if (std::system("command -v prometheus >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus; scripts/install_deps.sh --test)";
  }
  std::string scen = WriteFile("inflated.txt", kInflatedAndHealthy);
  const int exporter_port = FreePort();
  Proc watch = Spawn({"watch", "--json", "--interval", "200", "--iterations", "300", "--prometheus",
                      "127.0.0.1:" + std::to_string(exporter_port)},
                     FakeEnv(scen), "prom_e2e_watch");
  // The shipped rules with the `for:` holds cut to 0s.
  std::ifstream rules_in(GPUWHY_SOURCE_DIR "/deploy/prometheus/gpuwhy-rules.yml");
  std::stringstream rules_ss;
  rules_ss << rules_in.rdbuf();
  std::string rules = std::regex_replace(rules_ss.str(), std::regex(R"(for: \d+m)"), "for: 0s");
  rules = std::regex_replace(rules, std::regex(R"(interval: \d+m)"), "interval: 1s");
  ASSERT_NE(rules.find("GpuwhySurfaceInflated"), std::string::npos);
  std::string rules_path = WriteFile("gpuwhy-rules.yml", rules);
  std::string config = WriteFile("prometheus.yml",
      "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      "rule_files:\n  - " + rules_path + "\n"
      "scrape_configs:\n  - job_name: gpuwhy\n    static_configs:\n"
      "      - targets: ['127.0.0.1:" + std::to_string(exporter_port) + "']\n");
  const int prom_port = FreePort();
  Proc prom = SpawnExe("prometheus",
                       {"--config.file=" + config, "--storage.tsdb.path=" + TempDir() + "/tsdb",
                        "--web.listen-address=127.0.0.1:" + std::to_string(prom_port),
                        "--log.level=warn"},
                       {}, "prom_e2e_server");
  // Bounded: at most ~40 s for the first scrape, two rule evaluations and the alert.
  std::string alerts;
  bool fired = false;
  for (int i = 0; i < 80 && !fired; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    alerts = HttpGet(prom_port, "/api/v1/alerts");
    fired = alerts.find("\"alertname\":\"GpuwhySurfaceInflated\"") != std::string::npos &&
            alerts.find("\"state\":\"firing\"") != std::string::npos;
  }
  std::string targets = HttpGet(prom_port, "/api/v1/targets");
  kill(prom.pid, SIGTERM);
  kill(watch.pid, SIGTERM);
  Wait(prom, 20);
  Wait(watch, 20);
  ASSERT_TRUE(fired) << "alerts: " << alerts << "\ntargets: " << targets << "\nprometheus log: "
                     << ReadAll(prom.err_path);
  // Exactly one GpuwhySurfaceInflated alert, for GPU 0.
  size_t first = alerts.find("\"alertname\":\"GpuwhySurfaceInflated\"");
  EXPECT_EQ(alerts.find("\"alertname\":\"GpuwhySurfaceInflated\"", first + 1), std::string::npos) << alerts;
  EXPECT_NE(alerts.find("\"gpu\":\"0\""), std::string::npos) << alerts;
  EXPECT_EQ(alerts.find("\"gpu\":\"1\""), std::string::npos) << alerts;
  EXPECT_NE(targets.find("\"health\":\"up\""), std::string::npos) << targets;
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
      if (p.pid == 4194342 && !p.in_target) other = true;
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

TEST(Record, NvlinkDcgmAndMigRoundTrip) {
  std::string scen = WriteFile("rec_nvmig.txt", kNvlinkMig);
  std::string dscen = WriteFile("rec_nvmig_dcgm.txt", kDcgmValues);
  std::string out = TempDir() + "/nvmig.gwrec";
  EXPECT_EQ(RunGpuwhy({"record", "-o", out, "--interval", "100", "--no-report", "--", "sleep", "1.5"},
                      FakeEnvDcgm(scen, dscen), "rec_nvmig"), 0);
  auto rec = Load(out);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_EQ(rec->version_minor, gpuwhy::wire::kRecordingVersionMinor);
  EXPECT_EQ(rec->unknown_frames, 0u);
  bool nv = false, dcgm = false;
  for (const auto& s : rec->series) {
    if (s.device == 0 && s.name == "nvlink_tx" && s.source == "nvml fields") {
      for (double v : s.value) {
        if (!std::isnan(v)) {
          nv = true;
          EXPECT_NEAR(v, 12 * 100000 * 1024.0, 12 * 100000 * 1024.0 * 0.01);
        }
      }
    }
    if (s.device == 0 && s.name == "sm_active" && s.source == "dcgm") {
      dcgm = true;
      ASSERT_FALSE(s.value.empty());
      EXPECT_DOUBLE_EQ(s.value.back(), 0.42);
    }
  }
  EXPECT_TRUE(nv);
  EXPECT_TRUE(dcgm);
  ASSERT_FALSE(rec->links.empty());
  EXPECT_EQ(rec->links[0].links.size(), 12u);
  ASSERT_FALSE(rec->mig.empty());
  ASSERT_EQ(rec->mig[0].instances.size(), 2u);
  EXPECT_EQ(rec->mig[0].instances[1].gpu_instance_id, 2);
  EXPECT_DOUBLE_EQ(rec->mig[0].instances[0].figures[0].value, 5e9);  // mem_used
  bool note = false;
  for (const auto& e : rec->events) {
    note = note || (e.kind == static_cast<uint16_t>(gpuwhy::wire::EventKind::kNote) &&
                    e.text.find("DCGM host engine at 127.0.0.1") != std::string::npos);
  }
  EXPECT_TRUE(note);
  // analyze sees NVLink as a counter series in bytes/s, and DCGM as the SM-active source.
  auto trace = gpuwhy::import::ImportFile(out);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const gpuwhy::model::CounterSeries* tx = nullptr;
  const gpuwhy::model::CounterSeries* sm = nullptr;
  for (const auto& c : trace->counters) {
    if (c.device_id == 0 && c.kind == gpuwhy::model::CounterKind::kNvlinkTxBytesPerS) tx = &c;
    if (c.device_id == 0 && c.kind == gpuwhy::model::CounterKind::kSmActive) sm = &c;
  }
  ASSERT_NE(tx, nullptr);
  EXPECT_EQ(trace->Str(tx->source), "nvml fields");
  EXPECT_EQ(tx->period_ns, 100 * gpuwhy::kNsPerMs);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(trace->Str(sm->source), "dcgm");
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
