// Helpers of the end-to-end tests that run gpuwhy (and other programs) as
// child processes: temp files, spawn/wait with a bound, the fake NVML/DCGM
// environment, loopback HTTP. Header-only; each test executable that includes
// it defines GPUWHY_EXE and GPUWHY_FAKE_NVML / GPUWHY_FAKE_DCGM.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwhy_test {

inline std::string TempDir() {
  static std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("gpuwhy_record_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string WriteFile(const std::string& name, const std::string& text) {
  std::string p = TempDir() + "/" + name;
  std::ofstream(p) << text;
  return p;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Proc {
  pid_t pid = -1;
  std::string out_path, err_path;
};

// SpawnExe: run `exe` with args and extra env ("K=V"), stdout/stderr to files.
inline Proc SpawnExe(const std::string& exe, const std::vector<std::string>& args,
              const std::vector<std::string>& env, const std::string& tag) {
  Proc p;
  p.out_path = TempDir() + "/" + tag + ".out";
  p.err_path = TempDir() + "/" + tag + ".err";
  std::vector<std::string> all = {exe};
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
    execvp(argv[0], argv.data());
    _exit(126);
  }
  return p;
}

// Spawn: run gpuwhy with args and extra env ("K=V"), stdout/stderr to files.
inline Proc Spawn(const std::vector<std::string>& args, const std::vector<std::string>& env,
           const std::string& tag) {
  return SpawnExe(GPUWHY_EXE, args, env, tag);
}

// Wait: exit status (exit code, or 128+signal), killing the child after timeout_s.
inline int Wait(const Proc& p, int timeout_s = 60) {
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

inline int RunGpuwhy(const std::vector<std::string>& args, const std::vector<std::string>& env,
        const std::string& tag, int timeout_s = 60) {
  return Wait(Spawn(args, env, tag), timeout_s);
}

// FakeEnv: the fake NVML; no DCGM (a host's real libdcgm must not change the results).
inline std::vector<std::string> FakeEnv(const std::string& scenario) {
  return {std::string("GPUWHY_NVML_LIBRARY=") + GPUWHY_FAKE_NVML,
          "GPUWHY_FAKE_NVML_SCENARIO=" + scenario, "CUDA_VISIBLE_DEVICES=",
          "GPUWHY_DCGM_LIBRARY=/nonexistent/libdcgm.so.4"};
}

// FakeEnvDcgm: the fake NVML and the fake libdcgm driven by `dcgm_scenario`.
inline std::vector<std::string> FakeEnvDcgm(const std::string& scenario, const std::string& dcgm_scenario) {
  return {std::string("GPUWHY_NVML_LIBRARY=") + GPUWHY_FAKE_NVML,
          "GPUWHY_FAKE_NVML_SCENARIO=" + scenario, "CUDA_VISIBLE_DEVICES=",
          std::string("GPUWHY_DCGM_LIBRARY=") + GPUWHY_FAKE_DCGM,
          "GPUWHY_FAKE_DCGM_SCENARIO=" + dcgm_scenario};
}

inline int FreePort() {
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
inline std::string HttpGet(int port, const std::string& path) {
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


}  // namespace gpuwhy_test
