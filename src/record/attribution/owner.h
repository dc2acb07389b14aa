// Who owns a GPU process: the Kubernetes pod, namespace and container, and the
// Slurm job. The exporter's per-process series carry these as labels, the way
// dcgm-exporter labels its series, so that a platform team can sum by pod or
// by job.
//
// Sources, all optional:
//   - /proc/PID/cgroup: the pod UID and container id (kubepods cgroups, both
//     the cgroupfs and the systemd drivers, cgroup v1 and v2) and the Slurm
//     job (slurmstepd's job_N cgroup);
//   - /proc/PID/environ: SLURM_JOB_ID (readable when gpuwhy runs as root or
//     as the job's user), and HOSTNAME, which is the pod's name by default;
//   - the kubelet's pod-resources socket: which container of which pod holds
//     each GPU (pod_resources.h).
// A pod UID names no pod by itself: the pod-resources API lists names, not
// UIDs. So a process in a kubepods cgroup gets the pod that holds its GPU; when
// several pods share the GPU (time-slicing), HOSTNAME picks among them, and
// when nothing decides, the pod labels stay empty rather than guessed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "record/attribution/pod_resources.h"
#include "record/snapshot.h"

namespace gpuwhy::record {

// CgroupOwner: what one /proc/PID/cgroup file says.
struct CgroupOwner {
  std::string pod_uid;       // with dashes; empty when not in a kubepods cgroup
  std::string container_id;  // the runtime's 64-hex id; empty when not seen
  std::string slurm_job_id;  // from .../job_N/... under a slurm cgroup; empty when none
};

// ParseProcCgroup: the owner named by a /proc/PID/cgroup text (lines
// "ID:controllers:path"). Never fails; unknown layouts give empty fields.
CgroupOwner ParseProcCgroup(std::string_view text);

// EnvironOwner: what one /proc/PID/environ (NUL-separated) says.
struct EnvironOwner {
  std::string slurm_job_id;  // SLURM_JOB_ID, else SLURM_JOBID
  std::string hostname;      // HOSTNAME
};

// ParseProcEnviron: see EnvironOwner. Values are cut at 256 bytes.
EnvironOwner ParseProcEnviron(std::string_view environ);

// ProcessOwner: the labels of one process. Empty fields are unknown.
struct ProcessOwner {
  std::string pod, namespace_name, container, pod_uid, slurm_job_id;
};

// GpuOwner: one holder of one GPU: a container (from pod-resources) or a
// Slurm job (from the GPU's processes).
struct GpuOwner {
  int32_t gpu_index = kMissingI32;
  std::string pod, namespace_name, container, resource, slurm_job_id;
};

// PodResourcesState: how the last pod-resources call went.
enum class PodResourcesState : uint8_t {
  kOff = 0,     // not asked for
  kAbsent = 1,  // the socket does not exist (not a Kubernetes node, or not mounted)
  kUp = 2,      // the last List succeeded
  kDown = 3,    // the socket exists and the last List failed
};

// Owners: the attribution of one Snapshot.
struct Owners {
  std::unordered_map<int32_t, ProcessOwner> by_pid;  // pids with at least one known field
  std::vector<GpuOwner> gpus;                        // distinct holders per GPU, by GPU index
  PodResourcesState pod_resources = PodResourcesState::kOff;
  // ambiguous_processes: processes in a pod whose GPU several containers share
  // and whose HOSTNAME did not pick one (their pod labels are left empty).
  int32_t ambiguous_processes = 0;
};

// GpuIndexOfDeviceId: the GPU a device-plugin id names: a GPU UUID, with or
// without a time-slicing "::N" suffix, a MIG UUID (its parent GPU), "nvidiaN"
// or "nvidiaN/..." (GKE), or a bare index. kMissingI32 when none matches.
int32_t GpuIndexOfDeviceId(std::string_view id, const Snapshot& snap);

// AttributeOwners: the pure join (no I/O): processes of `snap` with their
// /proc facts (`facts`, by pid) and the pod-resources `devices`.
struct ProcFacts {
  CgroupOwner cgroup;
  EnvironOwner environ;
};
Owners AttributeOwners(const Snapshot& snap, const std::unordered_map<int32_t, ProcFacts>& facts,
                       const std::vector<PodDevice>& devices, PodResourcesState state,
                       const std::vector<std::string>& extra_gpu_resources);

// AttributorOptions: where to look.
struct AttributorOptions {
  std::string proc_root = "/proc";
  std::string pod_resources_socket;  // empty: do not ask the kubelet
  bool pod_resources_explicit = false;  // the user named the socket: say so when it is missing
  int64_t pod_resources_period_ns = 10'000'000'000;  // List at most this often
  int pod_resources_timeout_ms = 2000;
  std::vector<std::string> extra_gpu_resources;  // more resource names holding GPUs
};

// Attributor: the I/O around AttributeOwners. Lifecycle: construct (starts a
// thread that calls List every period when a socket is set, so that a slow
// kubelet never delays sampling), call Resolve() once per Snapshot from one
// thread, destroy (joins the thread). /proc facts are read once per process
// (keyed by pid and start time) and forgotten when the process leaves.
class Attributor {
 public:
  explicit Attributor(AttributorOptions options);
  ~Attributor();
  Attributor(const Attributor&) = delete;
  Attributor& operator=(const Attributor&) = delete;

  // Resolve: the owners of `snap`'s processes and GPUs.
  Owners Resolve(const Snapshot& snap);
  // TakeNotice: a one-line message when the pod-resources state changed since
  // the last call (first failure, recovery), else empty. For stderr.
  std::string TakeNotice();

 private:
  struct Cached {
    std::string start_time;  // /proc/PID/stat field 22: tells a reused pid apart
    ProcFacts facts;
  };
  void PollLoop();

  AttributorOptions options_;
  std::unordered_map<int32_t, Cached> cache_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<PodDevice> devices_;
  PodResourcesState state_ = PodResourcesState::kOff;
  std::string last_error_;
  PodResourcesState noticed_ = PodResourcesState::kOff;
  std::thread thread_;
};

}  // namespace gpuwhy::record
