#include "record/attribution/owner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <utility>

#include <fmt/format.h>

namespace gpuwhy::record {

namespace {

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// A pod UID: 8-4-4-4-12 hex digits.
bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !IsHex(s[i])) return false;
  }
  return true;
}

bool IsContainerId(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), IsHex);
}

bool IsDigits(std::string_view s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The pod UID a kubepods path segment names, or empty:
//   cgroupfs driver: "pod<uid>";  systemd driver: "kubepods[-<qos>]-pod<uid_with_underscores>.slice".
std::string PodUidOfSegment(std::string_view seg) {
  if (StartsWith(seg, "pod") && IsUuid(seg.substr(3))) return std::string(seg.substr(3));
  if (StartsWith(seg, "kubepods") && EndsWith(seg, ".slice")) {
    size_t at = seg.rfind("-pod");
    if (at == std::string_view::npos) return {};
    std::string uid(seg.substr(at + 4, seg.size() - at - 4 - 6));
    std::replace(uid.begin(), uid.end(), '_', '-');
    if (IsUuid(uid)) return uid;
  }
  return {};
}

// The container id a segment names, or empty: "<64 hex>" (cgroupfs) or
// "<runtime>-<64 hex>.scope" (systemd: cri-containerd, docker, crio). conmon's
// own scope ("crio-conmon-<id>.scope") is the monitor, not the container.
std::string ContainerIdOfSegment(std::string_view seg) {
  if (IsContainerId(seg)) return std::string(seg);
  if (EndsWith(seg, ".scope") && seg.size() > 6 + 65 && seg.find("conmon") == std::string_view::npos) {
    std::string_view id = seg.substr(seg.size() - 6 - 64, 64);
    if (seg[seg.size() - 6 - 65] == '-' && IsContainerId(id)) return std::string(id);
  }
  return {};
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// ReadSmall: up to `cap` bytes of a (proc) file; empty when unreadable.
std::string ReadSmall(const std::string& path, size_t cap) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  while (out.size() < cap) {
    ssize_t n = read(fd, buf, std::min(sizeof buf, cap - out.size()));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// Field 22 (starttime) of /proc/PID/stat; the command name may hold spaces
// and parentheses, so count from the last ')'.
std::string StartTimeOfStat(std::string_view stat) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return {};
  std::vector<std::string_view> f;
  for (std::string_view t : Split(stat.substr(close + 1), ' ')) {
    if (!t.empty()) f.push_back(t);
  }
  return f.size() > 19 ? std::string(f[19]) : std::string();
}

bool SameHolder(const GpuOwner& a, const GpuOwner& b) {
  return a.gpu_index == b.gpu_index && a.pod == b.pod && a.namespace_name == b.namespace_name &&
         a.container == b.container && a.slurm_job_id == b.slurm_job_id;
}

void AddOwner(std::vector<GpuOwner>& owners, GpuOwner o) {
  for (const GpuOwner& e : owners) {
    if (SameHolder(e, o)) return;
  }
  owners.push_back(std::move(o));
}

const char* StateWord(PodResourcesState s) {
  switch (s) {
    case PodResourcesState::kOff: return "off";
    case PodResourcesState::kAbsent: return "absent";
    case PodResourcesState::kUp: return "up";
    case PodResourcesState::kDown: return "down";
  }
  return "?";
}

}  // namespace

CgroupOwner ParseProcCgroup(std::string_view text) {
  CgroupOwner o;
  for (std::string_view line : Split(text, '\n')) {
    size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::vector<std::string_view> segs = Split(line.substr(c2 + 1), '/');
    bool kube = false, slurm = false;
    std::string uid, cid, job;
    for (std::string_view seg : segs) {
      if (seg.find("kubepods") != std::string_view::npos) kube = true;
      if (StartsWith(seg, "slurm")) slurm = true;
      if (kube) {
        if (std::string u = PodUidOfSegment(seg); !u.empty()) uid = std::move(u);
        else if (!uid.empty()) {
          if (std::string c = ContainerIdOfSegment(seg); !c.empty()) cid = std::move(c);
        }
      }
      if (slurm && StartsWith(seg, "job_") && IsDigits(seg.substr(4))) job = std::string(seg.substr(4));
    }
    if (o.pod_uid.empty() && !uid.empty()) {
      o.pod_uid = uid;
      o.container_id = cid;
    }
    if (o.slurm_job_id.empty() && !job.empty()) o.slurm_job_id = job;
  }
  return o;
}

EnvironOwner ParseProcEnviron(std::string_view environ) {
  EnvironOwner o;
  std::string jobid_alt;
  auto value = [](std::string_view kv, size_t eq) { return std::string(kv.substr(eq + 1, 256)); };
  for (std::string_view kv : Split(environ, '\0')) {
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view k = kv.substr(0, eq);
    if (k == "SLURM_JOB_ID") o.slurm_job_id = value(kv, eq);
    else if (k == "SLURM_JOBID") jobid_alt = value(kv, eq);
    else if (k == "HOSTNAME") o.hostname = value(kv, eq);
  }
  if (o.slurm_job_id.empty()) o.slurm_job_id = jobid_alt;
  return o;
}

int32_t GpuIndexOfDeviceId(std::string_view id, const Snapshot& snap) {
  if (!snap.system) return kMissingI32;
  const auto& devs = snap.system->devices;
  if (size_t sep = id.find("::"); sep != std::string_view::npos) id = id.substr(0, sep);
  if (StartsWith(id, "GPU-")) {
    for (const auto& d : devs) {
      if (d.uuid == id) return d.index;
    }
    return kMissingI32;
  }
  if (StartsWith(id, "MIG-")) {
    for (size_t i = 0; i < snap.devices.size() && i < devs.size(); ++i) {
      for (const auto& m : snap.devices[i].mig) {
        if (m.uuid == id) return devs[i].index;
      }
    }
    return kMissingI32;
  }
  std::string_view num = id;
  if (StartsWith(num, "nvidia")) {
    num = num.substr(6);
    if (size_t slash = num.find('/'); slash != std::string_view::npos) num = num.substr(0, slash);
  }
  if (!IsDigits(num) || num.size() > 6) return kMissingI32;
  int32_t want = 0;
  for (char c : num) want = want * 10 + (c - '0');
  for (const auto& d : devs) {
    if (d.index == want) return d.index;
  }
  return kMissingI32;
}

Owners AttributeOwners(const Snapshot& snap, const std::unordered_map<int32_t, ProcFacts>& facts,
                       const std::vector<PodDevice>& devices, PodResourcesState state,
                       const std::vector<std::string>& extra_gpu_resources) {
  Owners o;
  o.pod_resources = state;
  for (const PodDevice& d : devices) {
    if (!IsGpuResource(d.resource, extra_gpu_resources)) continue;
    int32_t gpu = GpuIndexOfDeviceId(d.device_id, snap);
    if (gpu == kMissingI32) continue;
    GpuOwner g;
    g.gpu_index = gpu;
    g.pod = d.pod;
    g.namespace_name = d.namespace_name;
    g.container = d.container;
    g.resource = d.resource;
    AddOwner(o.gpus, std::move(g));
  }
  const size_t pod_holders = o.gpus.size();
  if (!snap.system) return o;
  for (size_t i = 0; i < snap.devices.size() && i < snap.system->devices.size(); ++i) {
    const int32_t gpu = snap.system->devices[i].index;
    for (const ProcessInfo& p : snap.devices[i].processes) {
      auto it = facts.find(p.pid);
      if (it == facts.end()) continue;
      const ProcFacts& f = it->second;
      ProcessOwner po;
      po.pod_uid = f.cgroup.pod_uid;
      po.slurm_job_id = !f.environ.slurm_job_id.empty() ? f.environ.slurm_job_id : f.cgroup.slurm_job_id;
      if (!po.pod_uid.empty()) {
        std::vector<const GpuOwner*> holders;
        for (size_t k = 0; k < pod_holders; ++k) {
          if (o.gpus[k].gpu_index == gpu) holders.push_back(&o.gpus[k]);
        }
        // One holder: it is the process's pod, unless the pod's own hostname
        // says otherwise (a pod using a GPU it did not request). Several
        // (time-slicing): the hostname, the pod's name by default, picks.
        std::vector<const GpuOwner*> named;
        for (const GpuOwner* h : holders) {
          if (f.environ.hostname.empty() ? holders.size() == 1 : h->pod == f.environ.hostname) named.push_back(h);
        }
        bool one_pod = !named.empty();
        bool one_container = !named.empty();
        for (const GpuOwner* h : named) {
          one_pod = one_pod && h->pod == named[0]->pod && h->namespace_name == named[0]->namespace_name;
          one_container = one_container && h->container == named[0]->container;
        }
        if (one_pod) {
          po.pod = named[0]->pod;
          po.namespace_name = named[0]->namespace_name;
          if (one_container) po.container = named[0]->container;
        } else if (!holders.empty()) {
          ++o.ambiguous_processes;
        }
      }
      if (!po.slurm_job_id.empty()) {
        GpuOwner g;
        g.gpu_index = gpu;
        g.slurm_job_id = po.slurm_job_id;
        AddOwner(o.gpus, std::move(g));
      }
      const bool known = !po.pod_uid.empty() || !po.slurm_job_id.empty();
      if (!known) continue;
      auto [slot, fresh] = o.by_pid.emplace(p.pid, po);
      if (!fresh && slot->second.pod.empty() && !po.pod.empty()) slot->second = std::move(po);
    }
  }
  return o;
}

Attributor::Attributor(AttributorOptions options) : options_(std::move(options)) {
  if (!options_.pod_resources_socket.empty()) thread_ = std::thread([this] { PollLoop(); });
}

Attributor::~Attributor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Attributor::PollLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    PodResourcesState st;
    std::vector<PodDevice> devs;
    std::string err;
    struct stat sb {};
    if (stat(options_.pod_resources_socket.c_str(), &sb) != 0) {
      st = PodResourcesState::kAbsent;
    } else {
      auto r = ListPodResources(options_.pod_resources_socket, options_.pod_resources_timeout_ms);
      if (r.ok()) {
        st = PodResourcesState::kUp;
        devs = std::move(r).value();
      } else {
        st = PodResourcesState::kDown;
        err = r.status().message();
      }
    }
    lock.lock();
    state_ = st;
    // A failed call keeps nothing: stale holders would label pods that have left.
    devices_ = std::move(devs);
    last_error_ = std::move(err);
    cv_.wait_for(lock, std::chrono::nanoseconds(options_.pod_resources_period_ns), [this] { return stop_; });
  }
}

Owners Attributor::Resolve(const Snapshot& snap) {
  std::unordered_map<int32_t, ProcFacts> facts;
  std::unordered_map<int32_t, Cached> next;
  for (const DeviceSnapshot& d : snap.devices) {
    for (const ProcessInfo& p : d.processes) {
      if (p.pid == kMissingI32 || p.pid <= 0 || next.count(p.pid)) continue;
      const std::string dir = fmt::format("{}/{}", options_.proc_root, p.pid);
      std::string start = StartTimeOfStat(ReadSmall(dir + "/stat", 4096));
      Cached c;
      auto it = cache_.find(p.pid);
      if (it != cache_.end() && it->second.start_time == start) {
        c = std::move(it->second);
      } else {
        c.start_time = start;
        c.facts.cgroup = ParseProcCgroup(ReadSmall(dir + "/cgroup", 64 * 1024));
        c.facts.environ = ParseProcEnviron(ReadSmall(dir + "/environ", 256 * 1024));
      }
      facts.emplace(p.pid, c.facts);
      next.emplace(p.pid, std::move(c));
    }
  }
  cache_ = std::move(next);
  std::vector<PodDevice> devices;
  PodResourcesState state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    devices = devices_;
    state = state_;
  }
  return AttributeOwners(snap, facts, devices, state, options_.extra_gpu_resources);
}

std::string Attributor::TakeNotice() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == noticed_) return {};
  PodResourcesState was = noticed_;
  noticed_ = state_;
  // A node without the default socket is the quiet, common case (not Kubernetes).
  if (state_ == PodResourcesState::kAbsent && was == PodResourcesState::kOff && !options_.pod_resources_explicit) {
    return {};
  }
  const std::string& sock = options_.pod_resources_socket;
  switch (state_) {
    case PodResourcesState::kUp:
      return fmt::format("pod labels from the kubelet's pod-resources socket {} ({} GPU assignments)", sock,
                         devices_.size());
    case PodResourcesState::kDown:
      return fmt::format("{}; pod labels are left empty until it answers", last_error_);
    case PodResourcesState::kAbsent:
      if (was == PodResourcesState::kOff) {
        return fmt::format("pod-resources socket {} not found; pod labels are left empty (on Kubernetes, mount "
                           "the host's /var/lib/kubelet/pod-resources)", sock);
      }
      return fmt::format("pod-resources socket {} is gone (was {}); pod labels are left empty", sock,
                         StateWord(was));
    case PodResourcesState::kOff: break;
  }
  return {};
}

}  // namespace gpuwhy::record
