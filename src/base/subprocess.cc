#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

extern char** environ;

namespace gpuwhy {

namespace {

// SubprocessFd: a file descriptor closed when it goes out of scope.
struct SubprocessFd {
  int fd = -1;
  ~SubprocessFd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// DrainInto: read what `fd` has now into `out` (up to `cap` bytes kept).
// Returns false at end of file or on an error other than EINTR/EAGAIN.
bool DrainInto(int fd, std::string* out, size_t cap) {
  char buf[8192];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t room = cap > out->size() ? cap - out->size() : 0;
  out->append(buf, std::min(room, static_cast<size_t>(n)));
  return true;
}

}  // namespace

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const ProcessOptions& options) {
  if (argv.empty() || argv[0].empty()) return InvalidInput("RunProcess: no program named");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return IoError(fmt::format("{}: cannot create a pipe: {}", argv[0], std::strerror(errno)));
  SubprocessFd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return IoError(fmt::format("{}: cannot create a pipe: {}", argv[0], std::strerror(errno)));
  SubprocessFd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return IoError(fmt::format("{}: cannot run: {}", argv[0], std::strerror(rc)));
  out_w.Close();
  err_w.Close();

  ProcessResult result;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(options.timeout_ms > 0 ? options.timeout_ms : 0);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    int wait_ms = -1;
    if (options.timeout_ms > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        ::kill(pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1000));
    }
    pollfd fds[2];
    nfds_t n = 0;
    if (out_open) fds[n++] = {out_r.fd, POLLIN, 0};
    if (err_open) fds[n++] = {err_r.fd, POLLIN, 0};
    int ready = ::poll(fds, n, wait_ms);
    if (ready < 0 && errno != EINTR) {
      ::kill(pid, SIGKILL);
      break;
    }
    for (nfds_t i = 0; ready > 0 && i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (fds[i].fd == out_r.fd) {
        out_open = DrainInto(out_r.fd, &result.stdout_text, options.max_output_bytes);
      } else {
        err_open = DrainInto(err_r.fd, &result.stderr_text, options.max_output_bytes);
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return IoError(
          fmt::format("{}: cannot wait for the child: {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  return result;
}

std::string FindOnPath(std::string_view name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string_view::npos)
    return ::access(std::string(name).c_str(), X_OK) == 0 ? std::string(name) : std::string();
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view dirs(path);
  while (true) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string candidate =
        (dir.empty() ? std::string(".") : std::string(dir)) + "/" + std::string(name);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return {};
}

Result<std::string> MakeTempDir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  std::string templ = base + "/" + std::string(prefix) + "XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr)
    return IoError(
        fmt::format("{}: cannot create a temporary directory: {}", base, std::strerror(errno)));
  return templ;
}

bool RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  return !ec && !std::filesystem::exists(path, ec);
}

}  // namespace gpuwhy
