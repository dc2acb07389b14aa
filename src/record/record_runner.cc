#include "record/record_runner.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <ostream>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "record/format/recording_writer.h"
#include "record/nvml/nvml_sampler.h"

namespace gpuwhy::record {
namespace {

int32_t EnvInt(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return kMissingI32;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > INT32_MAX) return kMissingI32;
  return static_cast<int32_t>(x);
}

int32_t FirstEnvInt(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    int32_t v = EnvInt(n);
    if (IsValid(v)) return v;
  }
  return kMissingI32;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  std::string h = buf;
  if (auto dot = h.find('.'); dot != std::string::npos) h.resize(dot);  // short name in file names
  return h;
}

// ParentOf: ppid from /proc/<pid>/stat; 0 when unknown.
int32_t ParentOf(int32_t pid) {
  // POSIX read: iostream iterators trip -Wnull-dereference in gcc 12.
  char buf[1024];
  int fd = ::open(fmt::format("/proc/{}/stat", pid).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  std::string s(buf, static_cast<size_t>(n));
  auto close = s.rfind(')');  // comm may contain spaces and ')'
  if (close == std::string::npos || close + 4 > s.size()) return 0;
  // ") S ppid ..."
  const char* p = s.c_str() + close + 2;
  while (*p && *p != ' ') ++p;
  return static_cast<int32_t>(std::strtol(p, nullptr, 10));
}

// TargetTracker: which pids belong to the command's process tree (cached).
class TargetTracker {
 public:
  explicit TargetTracker(int32_t root) : root_(root) {}
  bool InTree(int32_t pid) {
    if (pid == root_) return true;
    auto it = cache_.find(pid);
    if (it != cache_.end()) return it->second;
    bool in = false;
    int32_t cur = pid;
    for (int depth = 0; depth < 64 && cur > 1; ++depth) {
      cur = ParentOf(cur);
      if (cur == root_) {
        in = true;
        break;
      }
    }
    cache_[pid] = in;
    return in;
  }

 private:
  int32_t root_;
  std::unordered_map<int32_t, bool> cache_;
};

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

timespec ToTimespec(int64_t ns) {
  if (ns < 0) ns = 0;
  timespec t{};
  t.tv_sec = static_cast<time_t>(ns / kNsPerS);
  t.tv_nsec = static_cast<long>(ns % kNsPerS);
  return t;
}

// ChildEnv: the environment of the command; `set` entries replace same-named ones.
std::vector<std::string> ChildEnv(const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& [k, v] : set) replaced = replaced || k == key;
    if (!replaced) env.push_back(kv);
  }
  for (const auto& [k, v] : set) env.push_back(k + "=" + v);
  return env;
}

// StreamFiles: trace-*.gwrec in `dir`, sorted.
std::vector<std::string> StreamFiles(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.rfind("trace-", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == ".gwrec")
      out.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string NoDriverReason() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return "";
  }
  const char* e = dlerror();
  return fmt::format("no NVIDIA driver ({})", e ? e : "libcuda.so.1 not found");
}

int32_t RankFromEnv() { return FirstEnvInt({"RANK", "SLURM_PROCID", "LOCAL_RANK"}); }

std::string DefaultRecordingName(const std::string& host, int32_t pid, int32_t rank) {
  if (IsValid(rank)) return fmt::format("gpuwhy-{}-{}.rank{}.gwrec", host, pid, rank);
  return fmt::format("gpuwhy-{}-{}.gwrec", host, pid);
}

Result<RecordResult> RunAndRecord(const RecordOptions& options, std::ostream& err) {
  if (options.argv.empty()) return InvalidInput("gpuwhy record: no command given (use -- CMD ARGS...)");
  RecordResult result;
  const int32_t self = static_cast<int32_t>(getpid());
  const int32_t rank = RankFromEnv();
  result.output_path = options.output_path.empty()
                           ? DefaultRecordingName(HostName(), self, rank)
                           : options.output_path;
  int64_t interval = std::max<int64_t>(options.interval_ns, 10 * kNsPerMs);

  // NVML: optional. Without it the command still runs.
  std::unique_ptr<NvmlSampler> sampler;
  {
    auto lib = nvml::NvmlLibrary::Load();
    if (!lib.ok()) {
      result.nvml_status = lib.status().message();
    } else {
      SamplerOptions so;
      if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) so.visible_devices = v;
      so.slow_period_ns = std::max<int64_t>(kNsPerS, interval);
      so.dcgm = options.dcgm;
      so.dcgm_host = options.dcgm_host;
      so.dcgm_period_ns = std::max<int64_t>(100 * kNsPerMs, interval);
      auto s = NvmlSampler::Open(std::move(lib).value(), so);
      if (!s.ok()) {
        result.nvml_status = s.status().message();
      } else if (s.value()->system()->devices.empty()) {
        result.nvml_status = "no NVIDIA GPU found (NVML reports 0 devices)";
      } else {
        sampler = std::move(s).value();
      }
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<RecordingWriter> writer,
                   RecordingWriter::Create(result.output_path, interval,
                                           std::max<int64_t>(kNsPerS, interval)));
  RunInfo run;
  run.start_wall_ns = WallNowNs();
  run.interval_ns = interval;
  run.gpuwhy_pid = self;
  run.rank = rank;
  run.local_rank = FirstEnvInt({"LOCAL_RANK", "SLURM_LOCALID"});
  run.world_size = FirstEnvInt({"WORLD_SIZE", "SLURM_NTASKS"});
  run.hostname = HostName();
  run.gpuwhy_version = options.gpuwhy_version;
  run.nvml_status = result.nvml_status;
  run.argv = options.argv;
  if (char* cwd = getcwd(nullptr, 0)) {
    run.cwd = cwd;
    std::free(cwd);
  }
  if (sampler) {
    run.driver_version = sampler->system()->driver_version;
    run.nvml_version = sampler->system()->nvml_version;
  }
  writer->WriteRun(run);
  if (sampler) {
    writer->WriteDevices(*sampler->system());
    if (!sampler->system()->dcgm_status.empty()) {
      // Said once: where the real figures of GPUs without GPM come from, or why not.
      err << "gpuwhy record: " << sampler->system()->dcgm_status << "\n";
      writer->WriteEvent(WallNowNs(), EventKind::kNote, kMissingI32, 0, sampler->system()->dcgm_status);
    }
    result.device_count = static_cast<int32_t>(sampler->system()->devices.size());
    err << fmt::format("gpuwhy record: sampling {} GPU{} every {} ms into {}\n",
                       result.device_count, result.device_count == 1 ? "" : "s",
                       interval / kNsPerMs, result.output_path);
  } else if (!options.quiet_without_nvml) {
    err << fmt::format("gpuwhy record: {}; running the command without sampling "
                       "(nothing will be sampled)\n", result.nvml_status);
  }
  RETURN_IF_ERROR(writer->Flush());

  // Block the signals we wait for; the child gets the original mask back.
  sigset_t wait_set, old_set;
  sigemptyset(&wait_set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&wait_set, s);
  sigprocmask(SIG_BLOCK, &wait_set, &old_set);

  std::vector<char*> cargv;
  for (const auto& a : options.argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  // --trace: every CUDA process of the command loads the injection library and
  // writes its own stream into trace_dir (docs/record-trace.md).
  const std::string trace_dir = result.output_path + ".trace";
  std::vector<std::string> env_strings;
  std::vector<char*> cenv;
  if (options.trace) {
    ::mkdir(trace_dir.c_str(), 0755);
    for (const std::string& old : StreamFiles(trace_dir)) ::unlink(old.c_str());
    std::vector<std::pair<std::string, std::string>> set = {
        {"CUDA_INJECTION64_PATH", options.inject_library}, {"GPUWHY_TRACE_DIR", trace_dir}};
    if (!options.trace_kinds.empty()) set.emplace_back("GPUWHY_TRACE_KINDS", options.trace_kinds);
    // NVTX ranges: the injection library forwards NVTX's initialisation to the
    // libcupti it loads (injection.h); a user's own NVTX injection is kept.
    const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
    if (!nvtx || !*nvtx) set.emplace_back("NVTX_INJECTION64_PATH", options.inject_library);
    if (const char* prev = std::getenv("CUDA_INJECTION64_PATH");
        prev && *prev && std::string(prev) != "none" && options.inject_library != prev) {
      err << fmt::format("gpuwhy record: CUDA_INJECTION64_PATH was {}; replaced for --trace\n", prev);
    }
    env_strings = ChildEnv(set);
    for (std::string& e : env_strings) cenv.push_back(e.data());
    cenv.push_back(nullptr);
  }
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
    return IoError(fmt::format("gpuwhy record: pipe: {}", std::strerror(errno)));
  }
  pid_t child = fork();
  if (child < 0) {
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
    return IoError(fmt::format("gpuwhy record: fork: {}", std::strerror(errno)));
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
    close(exec_pipe[0]);
    if (!cenv.empty()) {
      execvpe(cargv[0], cargv.data(), cenv.data());
    } else {
      execvp(cargv[0], cargv.data());
    }
    int e = errno;
    ssize_t ignored = write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got = read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  close(exec_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int st = 0;
    waitpid(child, &st, 0);
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
    err << fmt::format("gpuwhy record: cannot run '{}': {}\n", options.argv[0],
                       std::strerror(exec_errno));
    writer->WriteEvent(WallNowNs(), EventKind::kNote, kMissingI32, 127,
                       fmt::format("cannot run '{}': {}", options.argv[0], std::strerror(exec_errno)));
    RETURN_IF_ERROR(writer->Close(WallNowNs(), 127));
    result.exit_code = 127;
    return result;
  }
  writer->WriteEvent(WallNowNs(), EventKind::kCommandStarted, kMissingI32, child, "");

  TargetTracker tracker(static_cast<int32_t>(child));
  std::set<int32_t> used_devices;
  bool child_done = false;
  int child_status = 0;
  Status write_status;
  auto tick = [&]() {
    if (!sampler) return;
    Snapshot snap = sampler->Sample();
    for (DeviceSnapshot& d : snap.devices) {
      for (ProcessInfo& p : d.processes) {
        p.in_target = tracker.InTree(p.pid);
        if (p.in_target && used_devices.insert(d.index).second) {
          writer->WriteEvent(snap.ts_ns, EventKind::kDeviceUsed, d.index, p.pid, "");
        }
      }
    }
    writer->WriteSnapshot(snap);
    ++result.ticks;
    if (Status s = writer->Flush(); !s.ok() && write_status.ok()) write_status = s;
  };

  int64_t next = MonoNowNs();
  while (!child_done) {
    int64_t now = MonoNowNs();
    if (now >= next) {
      tick();
      next += interval;
      if (next < now) next = now + interval;  // fell behind: skip, do not burst
      continue;
    }
    timespec to = ToTimespec(sampler ? next - now : kNsPerS);
    siginfo_t info{};
    int sig = sigtimedwait(&wait_set, &info, &to);
    if (sig < 0) continue;  // timeout or EINTR
    if (sig == SIGCHLD) {
      int st = 0;
      pid_t w = waitpid(child, &st, WNOHANG);
      if (w == child && (WIFEXITED(st) || WIFSIGNALED(st))) {
        child_done = true;
        child_status = st;
      }
      continue;
    }
    // Forward what a process sent us; a terminal's signal already reached the
    // child through the foreground process group.
    if (info.si_code != SI_KERNEL) kill(child, sig);
  }
  tick();  // the last state after the command ended
  sigprocmask(SIG_SETMASK, &old_set, nullptr);
  result.exit_code = ExitCodeOf(child_status);
  if (options.trace) {
    // One stream per CUDA process (pid order); a torn tail of a killed process is left out.
    std::vector<std::string> streams = StreamFiles(trace_dir);
    bool all_merged = true;
    for (const std::string& path : streams) {
      TraceStreamFacts f;
      Status ms = writer->AppendTraceStream(path, &f.pid, &f.status, &f.frames);
      if (!ms.ok()) {
        all_merged = false;
        err << "gpuwhy record: " << ms.message() << "\n";
        continue;
      }
      ++result.trace_streams;
      if (f.status.empty()) {
        ++result.traced_streams;
      } else if (result.trace_status.empty()) {
        result.trace_status = fmt::format("process {}: {}", f.pid, f.status);
      }
    }
    if (all_merged) {
      for (const std::string& path : streams) ::unlink(path.c_str());
      ::rmdir(trace_dir.c_str());
    }
    if (result.trace_streams == 0) {
      std::string why = NoDriverReason();
      result.trace_status = why.empty() ? "no process of the command initialized CUDA" : why;
    }
    if (result.traced_streams == 0) {
      writer->WriteEvent(WallNowNs(), EventKind::kNote, kMissingI32, 0,
                         "nothing was traced: " + result.trace_status);
    }
  }
  int64_t end = WallNowNs();
  writer->WriteEvent(end, EventKind::kCommandExited, kMissingI32, result.exit_code,
                     WIFSIGNALED(child_status) ? strsignal(WTERMSIG(child_status)) : "");
  Status cs = writer->Close(end, result.exit_code);
  if (!write_status.ok()) return write_status;
  RETURN_IF_ERROR(cs);
  result.sampled = sampler != nullptr;
  result.samples = writer->samples_written();
  return result;
}

}  // namespace gpuwhy::record
