// The exporter DaemonSet (deploy/kubernetes/gpuwhy-exporter-daemonset.yaml)
// against the binary it runs: the arguments name a real subcommand and real
// flags (checked against `gpuwhy watch --help`), the exposed port is the one
// --prometheus listens on, the pod-resources socket lies inside the mounted
// host path, and the settings attribution needs (hostPID, honorLabels) are
// there. Kubernetes itself is not available here; this checks the text.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// Items of the YAML block list under `key:` (one "- item" per line).
std::vector<std::string> ListUnder(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool inside = false;
  std::regex item(R"(^\s*- ([^#]*?)\s*$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (line.find(key + ":") != std::string::npos && line.find_first_not_of(' ') == line.find(key)) {
      inside = true;
      continue;
    }
    if (!inside || line.find_first_not_of(' ') == std::string::npos) continue;
    if (line[line.find_first_not_of(' ')] == '#') continue;
    if (!std::regex_match(line, m, item)) break;
    out.push_back(m[1]);
  }
  return out;
}

const std::string kDaemonSet = GPUWHY_SOURCE_DIR "/deploy/kubernetes/gpuwhy-exporter-daemonset.yaml";

TEST(DaemonSet, ArgumentsAreRealFlagsOfWatch) {
  std::string text = ReadFile(kDaemonSet);
  ASSERT_FALSE(text.empty()) << kDaemonSet;
  std::vector<std::string> args = ListUnder(text, "args");
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[0], "watch");
  std::string help = RunCommand(std::string(GPUWHY_EXE) + " watch --help 2>&1");
  ASSERT_NE(help.find("--prometheus"), std::string::npos) << help;
  std::string prometheus, socket;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].rfind("--", 0) != 0) continue;
    EXPECT_NE(help.find(args[i]), std::string::npos) << args[i] << " is not a flag of gpuwhy watch";
    if (i + 1 < args.size() && args[i] == "--prometheus") prometheus = args[i + 1];
    if (i + 1 < args.size() && args[i] == "--pod-resources-socket") socket = args[i + 1];
  }
  // Listens on all interfaces, on the port the container exposes.
  std::smatch m;
  ASSERT_TRUE(std::regex_match(prometheus, m, std::regex(R"(0\.0\.0\.0:(\d+))"))) << prometheus;
  EXPECT_NE(text.find("containerPort: " + m[1].str()), std::string::npos);
  // The socket is inside a mounted host path, and that mount is the kubelet's.
  ASSERT_FALSE(socket.empty());
  std::regex mount(R"(mountPath: (\S+))");
  bool mounted = false;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), mount); it != std::sregex_iterator(); ++it) {
    std::string path = (*it)[1];
    if (socket.rfind(path + "/", 0) == 0) {
      mounted = true;
      EXPECT_NE(text.find("path: " + path), std::string::npos) << "hostPath for " << path;
    }
  }
  EXPECT_TRUE(mounted) << socket << " is not under a volumeMount";
}

TEST(DaemonSet, AttributionSettingsAreThere) {
  std::string text = ReadFile(kDaemonSet);
  EXPECT_NE(text.find("hostPID: true"), std::string::npos) << "NVML reports host PIDs";
  EXPECT_NE(text.find("honorLabels: true"), std::string::npos) << "keep the workload's pod labels";
  EXPECT_NE(text.find("kind: DaemonSet"), std::string::npos);
  EXPECT_NE(text.find("image: gpuwhy-exporter:"), std::string::npos);
  // The exporter watches GPUs; it must not take one from the scheduler.
  std::string yaml;  // without comment lines
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] != '#') yaml += line + "\n";
  }
  EXPECT_EQ(yaml.find("nvidia.com/gpu: "), std::string::npos);
  EXPECT_NE(text.find("readOnlyRootFilesystem: true"), std::string::npos);
}

}  // namespace
