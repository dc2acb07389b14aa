#include "record/attribution/owner.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "fake_kubelet.h"

namespace gpuwhy::record {
namespace {

const char* kUid = "1b2c3d4e-0000-4111-8222-333344445555";
const std::string kCid(64, 'a');

TEST(ParseProcCgroup, CgroupV1CgroupfsDriver) {
  std::string text = "12:memory:/kubepods/burstable/pod" + std::string(kUid) + "/" + kCid +
                     "\n11:devices:/kubepods/burstable/pod" + kUid + "/" + kCid + "\n";
  CgroupOwner o = ParseProcCgroup(text);
  EXPECT_EQ(o.pod_uid, kUid);
  EXPECT_EQ(o.container_id, kCid);
  EXPECT_EQ(o.slurm_job_id, "");
}

TEST(ParseProcCgroup, CgroupV2SystemdDriverEveryRuntime) {
  std::string uid_us = kUid;
  std::replace(uid_us.begin(), uid_us.end(), '-', '_');
  for (std::string runtime : {"cri-containerd-", "docker-", "crio-"}) {
    std::string text = "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid_us +
                       ".slice/" + runtime + kCid + ".scope\n";
    CgroupOwner o = ParseProcCgroup(text);
    EXPECT_EQ(o.pod_uid, kUid) << runtime;
    EXPECT_EQ(o.container_id, kCid) << runtime;
  }
  // Guaranteed QoS has no QoS slice.
  CgroupOwner g = ParseProcCgroup("0::/kubepods.slice/kubepods-pod" + uid_us + ".slice/cri-containerd-" + kCid +
                                  ".scope");
  EXPECT_EQ(g.pod_uid, kUid);
  // conmon's scope is the monitor, not the container.
  CgroupOwner c = ParseProcCgroup("0::/kubepods.slice/kubepods-pod" + uid_us + ".slice/crio-conmon-" + kCid +
                                  ".scope");
  EXPECT_EQ(c.pod_uid, kUid);
  EXPECT_EQ(c.container_id, "");
}

TEST(ParseProcCgroup, SlurmV1AndV2) {
  EXPECT_EQ(ParseProcCgroup("4:memory:/slurm/uid_1000/job_123456/step_0/task_0\n").slurm_job_id, "123456");
  EXPECT_EQ(ParseProcCgroup("0::/system.slice/slurmstepd.scope/job_42/step_batch/user/task_0\n").slurm_job_id,
            "42");
  EXPECT_EQ(ParseProcCgroup("7:cpuset:/slurm_node17/uid_0/job_9/step_extern\n").slurm_job_id, "9");
  // job_ outside a slurm hierarchy is someone else's naming.
  EXPECT_EQ(ParseProcCgroup("0::/user.slice/job_77\n").slurm_job_id, "");
}

TEST(ParseProcCgroup, NotAPodAndGarbage) {
  EXPECT_EQ(ParseProcCgroup("0::/user.slice/user-1000.slice/session-3.scope\n").pod_uid, "");
  EXPECT_EQ(ParseProcCgroup("0::/system.slice/pod" + std::string(kUid) + "\n").pod_uid, "")
      << "a pod-like name outside kubepods";
  EXPECT_EQ(ParseProcCgroup("0::/kubepods/burstable/podNOT-A-UUID/x\n").pod_uid, "");
  EXPECT_EQ(ParseProcCgroup("").pod_uid, "");
  EXPECT_EQ(ParseProcCgroup(std::string("\0\0::::\n:\n", 9)).pod_uid, "");
}

TEST(ParseProcEnviron, SlurmAndHostname) {
  const char raw[] = "PATH=/bin\0SLURM_JOBID=7\0HOSTNAME=trainer-0\0SLURM_JOB_ID=8\0";
  std::string env(raw, sizeof raw - 1);
  EnvironOwner o = ParseProcEnviron(env);
  EXPECT_EQ(o.slurm_job_id, "8");
  EXPECT_EQ(o.hostname, "trainer-0");
  EXPECT_EQ(ParseProcEnviron(std::string("SLURM_JOBID=7\0", 14)).slurm_job_id, "7");
  EXPECT_EQ(ParseProcEnviron("NOEQUALS").slurm_job_id, "");
}

Snapshot TwoGpus() {
  auto sys = std::make_shared<SystemInfo>();
  for (int i = 0; i < 2; ++i) {
    DeviceInfo d;
    d.index = i;
    d.uuid = "GPU-0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
    sys->devices.push_back(d);
  }
  Snapshot s;
  s.system = sys;
  s.devices.resize(2);
  s.devices[0].index = 0;
  s.devices[1].index = 1;
  MigReading m;
  m.uuid = "MIG-11111111-2222-3333-4444-555555555555";
  s.devices[1].mig.push_back(m);
  return s;
}

TEST(GpuIndexOfDeviceId, EveryDevicePluginNaming) {
  Snapshot s = TwoGpus();
  EXPECT_EQ(GpuIndexOfDeviceId("GPU-00000001-aaaa-bbbb-cccc-dddddddddddd", s), 1);
  EXPECT_EQ(GpuIndexOfDeviceId("GPU-00000000-aaaa-bbbb-cccc-dddddddddddd::3", s), 0);
  EXPECT_EQ(GpuIndexOfDeviceId("MIG-11111111-2222-3333-4444-555555555555", s), 1);
  EXPECT_EQ(GpuIndexOfDeviceId("MIG-11111111-2222-3333-4444-555555555555::1", s), 1);
  EXPECT_EQ(GpuIndexOfDeviceId("nvidia1", s), 1);
  EXPECT_EQ(GpuIndexOfDeviceId("nvidia0/vgpu2", s), 0);
  EXPECT_EQ(GpuIndexOfDeviceId("1", s), 1);
  EXPECT_EQ(GpuIndexOfDeviceId("2", s), kMissingI32);
  EXPECT_EQ(GpuIndexOfDeviceId("GPU-unknown", s), kMissingI32);
  EXPECT_EQ(GpuIndexOfDeviceId("", s), kMissingI32);
  EXPECT_EQ(GpuIndexOfDeviceId("nvidia", s), kMissingI32);
}

ProcessInfo Proc(int32_t pid) {
  ProcessInfo p;
  p.pid = pid;
  return p;
}

PodDevice Dev(std::string ns, std::string pod, std::string ctr, std::string id,
              std::string res = "nvidia.com/gpu") {
  return {std::move(ns), std::move(pod), std::move(ctr), std::move(res), std::move(id)};
}

TEST(AttributeOwners, OneHolderPerGpuNamesTheProcessesPod) {
  Snapshot s = TwoGpus();
  s.devices[0].processes = {Proc(100)};
  s.devices[1].processes = {Proc(200), Proc(300)};
  std::unordered_map<int32_t, ProcFacts> facts;
  facts[100].cgroup.pod_uid = kUid;
  facts[200].cgroup.pod_uid = "22222222-0000-4111-8222-333344445555";
  facts[300].cgroup.slurm_job_id = "77";  // a host process of a Slurm job
  std::vector<PodDevice> devs = {
      Dev("ml", "trainer-0", "main", "GPU-00000000-aaaa-bbbb-cccc-dddddddddddd"),
      Dev("ml", "trainer-0", "main", "cpu-thing", "example.com/fpga"),  // not a GPU resource
      Dev("infer", "server-1", "triton", "MIG-11111111-2222-3333-4444-555555555555", "nvidia.com/mig-1g.10gb"),
  };
  Owners o = AttributeOwners(s, facts, devs, PodResourcesState::kUp, {});
  ASSERT_EQ(o.by_pid.count(100), 1u);
  EXPECT_EQ(o.by_pid[100].pod, "trainer-0");
  EXPECT_EQ(o.by_pid[100].namespace_name, "ml");
  EXPECT_EQ(o.by_pid[100].container, "main");
  EXPECT_EQ(o.by_pid[100].pod_uid, kUid);
  EXPECT_EQ(o.by_pid[200].pod, "server-1");
  EXPECT_EQ(o.by_pid[200].container, "triton");
  EXPECT_EQ(o.by_pid[300].pod, "") << "not in a pod: no pod labels even though a pod holds the GPU";
  EXPECT_EQ(o.by_pid[300].slurm_job_id, "77");
  // Holders: two pods and one job.
  ASSERT_EQ(o.gpus.size(), 3u);
  EXPECT_EQ(o.gpus[0].gpu_index, 0);
  EXPECT_EQ(o.gpus[1].gpu_index, 1);
  EXPECT_EQ(o.gpus[1].resource, "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(o.gpus[2].slurm_job_id, "77");
  EXPECT_EQ(o.ambiguous_processes, 0);
}

TEST(AttributeOwners, TimeSlicedGpuIsDecidedByHostnameOrLeftEmpty) {
  Snapshot s = TwoGpus();
  s.devices[0].processes = {Proc(1), Proc(2), Proc(3)};
  std::unordered_map<int32_t, ProcFacts> facts;
  for (int pid : {1, 2, 3}) facts[pid].cgroup.pod_uid = kUid;
  facts[1].environ.hostname = "a";
  facts[2].environ.hostname = "b";
  // pid 3: environ unreadable (gpuwhy not root): undecidable.
  std::vector<PodDevice> devs = {
      Dev("ns", "a", "c", "GPU-00000000-aaaa-bbbb-cccc-dddddddddddd::0"),
      Dev("ns", "b", "c", "GPU-00000000-aaaa-bbbb-cccc-dddddddddddd::1"),
  };
  Owners o = AttributeOwners(s, facts, devs, PodResourcesState::kUp, {});
  EXPECT_EQ(o.by_pid[1].pod, "a");
  EXPECT_EQ(o.by_pid[2].pod, "b");
  EXPECT_EQ(o.by_pid[3].pod, "");
  EXPECT_EQ(o.by_pid[3].pod_uid, kUid);
  EXPECT_EQ(o.ambiguous_processes, 1);
}

TEST(AttributeOwners, AHostnameThatIsNotTheHolderIsNotGuessed) {
  Snapshot s = TwoGpus();
  s.devices[0].processes = {Proc(5)};
  std::unordered_map<int32_t, ProcFacts> facts;
  facts[5].cgroup.pod_uid = kUid;
  facts[5].environ.hostname = "sneaky";  // a pod using a GPU it did not request
  Owners o = AttributeOwners(s, facts, {Dev("ns", "owner", "c", "0")}, PodResourcesState::kUp, {});
  EXPECT_EQ(o.by_pid[5].pod, "");
  EXPECT_EQ(o.ambiguous_processes, 1);
}

TEST(AttributeOwners, EnvironJobWinsAndExtraResourceNamesCount) {
  Snapshot s = TwoGpus();
  s.devices[1].processes = {Proc(9)};
  std::unordered_map<int32_t, ProcFacts> facts;
  facts[9].cgroup.slurm_job_id = "1";
  facts[9].environ.slurm_job_id = "2";
  Owners o = AttributeOwners(s, facts, {Dev("n", "p", "c", "nvidia1", "example.com/gpu")},
                             PodResourcesState::kUp, {"example.com/gpu"});
  EXPECT_EQ(o.by_pid[9].slurm_job_id, "2");
  ASSERT_EQ(o.gpus.size(), 2u);
  EXPECT_EQ(o.gpus[0].pod, "p");
  EXPECT_EQ(o.gpus[1].slurm_job_id, "2");
}

// The Attributor over a fake /proc tree: reads each process once, and again
// when its pid is reused (another start time).
TEST(Attributor, ReadsAFakeProcAndNoticesPidReuse) {
  std::string root = std::filesystem::temp_directory_path() / ("gpuwhy_proc_" + std::to_string(getpid()));
  std::filesystem::create_directories(root + "/4242");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(root + "/4242/" + name, std::ios::binary) << text;
  };
  auto stat_line = [](int start) {
    std::string s = "4242 (py thon) S";
    for (int f = 4; f <= 21; ++f) s += " 0";
    return s + " " + std::to_string(start) + " 0 0\n";
  };
  write("stat", stat_line(1000));
  write("cgroup", "0::/slurm/uid_0/job_5/step_0\n");
  write("environ", std::string("A=1\0", 4));
  AttributorOptions opt;
  opt.proc_root = root;
  Attributor a(opt);
  Snapshot s = TwoGpus();
  s.devices[0].processes = {Proc(4242)};
  Owners o = a.Resolve(s);
  EXPECT_EQ(o.pod_resources, PodResourcesState::kOff);
  EXPECT_EQ(o.by_pid[4242].slurm_job_id, "5");
  // Same process: the cached facts stand even if the file changes.
  write("cgroup", "0::/slurm/uid_0/job_6/step_0\n");
  EXPECT_EQ(a.Resolve(s).by_pid[4242].slurm_job_id, "5");
  // The pid is reused by a new process: read again.
  write("stat", stat_line(2000));
  EXPECT_EQ(a.Resolve(s).by_pid[4242].slurm_job_id, "6");
  // A process that vanished from /proc: nothing known, nothing invented.
  s.devices[0].processes = {Proc(9999)};
  EXPECT_EQ(a.Resolve(s).by_pid.count(9999), 0u);
  EXPECT_EQ(a.TakeNotice(), "");
  std::filesystem::remove_all(root);
}

// With a socket: the poll thread follows the kubelet (up, failing, back) and
// a failed call forgets the old holders rather than keep stale pod labels.
TEST(Attributor, FollowsTheKubeletUpDownAndBack) {
  std::string root = std::filesystem::temp_directory_path() / ("gpuwhy_proc2_" + std::to_string(getpid()));
  std::filesystem::create_directories(root + "/77");
  std::ofstream(root + "/77/cgroup") << "0::/kubepods/pod" << kUid << "/" << kCid << "\n";
  std::string sock = root + "/kubelet.sock";
  gpuwhy_test::FakeKubelet k;
  ASSERT_TRUE(k.Start(sock));
  k.Set({Dev("ns", "p", "c", "nvidia0")});
  AttributorOptions opt;
  opt.proc_root = root;
  opt.pod_resources_socket = sock;
  opt.pod_resources_period_ns = 20'000'000;
  Attributor a(opt);
  Snapshot s = TwoGpus();
  s.devices[0].processes = {Proc(77)};
  auto wait_for = [&](PodResourcesState want) {
    Owners o;
    for (int i = 0; i < 250; ++i) {  // bounded: 5 s
      o = a.Resolve(s);
      if (o.pod_resources == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return o;
  };
  Owners up = wait_for(PodResourcesState::kUp);
  ASSERT_EQ(up.pod_resources, PodResourcesState::kUp);
  EXPECT_EQ(up.by_pid[77].pod, "p");
  EXPECT_NE(a.TakeNotice().find("pod labels from the kubelet's pod-resources socket"), std::string::npos);
  EXPECT_EQ(a.TakeNotice(), "") << "said once";
  k.Set({Dev("ns", "p", "c", "nvidia0")}, gpuwhy_test::FakeKubelet::Mode::kGrpcError);
  Owners down = wait_for(PodResourcesState::kDown);
  ASSERT_EQ(down.pod_resources, PodResourcesState::kDown);
  EXPECT_EQ(down.by_pid[77].pod, "");
  EXPECT_EQ(down.by_pid[77].pod_uid, kUid) << "the cgroup still says which pod";
  EXPECT_NE(a.TakeNotice().find("permission denied; pod labels are left empty"), std::string::npos);
  k.Set({Dev("ns", "p2", "c", "nvidia0")});
  EXPECT_EQ(wait_for(PodResourcesState::kUp).by_pid[77].pod, "p2");
  k.Stop();
  EXPECT_EQ(wait_for(PodResourcesState::kAbsent).pod_resources, PodResourcesState::kAbsent);
  EXPECT_NE(a.TakeNotice().find("is gone"), std::string::npos);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace gpuwhy::record
