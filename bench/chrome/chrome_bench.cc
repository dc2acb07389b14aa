// chrome_bench [--mb N] [--repeat R] [--dir DIR] [KINETO_TRACE...]
//
// Writes one synthetic trace per dialect of about N MB of JSON (default 64)
// under DIR (default /tmp/gpuwhy-chrome-bench; never the repository): a
// Kineto trace (the baseline, same event mix: ops, launches, kernels), a
// PyTorch legacy trace with CUDA flows, a JAX GPU trace and a rocprof v1
// results.json. Each is imported with import::ImportFile (the production path,
// sniffing included) in its own forked child, R times; prints the median wall,
// MB/s of JSON and peak RSS (ru_maxrss of the child), and each dialect's MB/s
// as a ratio to the Kineto figure of this run. Shared Kineto traces given on
// the command line are timed too, as a second baseline. "tok:" lines time the
// Chrome Trace Event tokenizer alone (ReadChromeTrace, events counted, no
// model) on each file.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/input_stream.h"
#include "import/chrome/chrome_trace_tokenizer.h"
#include "import/registry.h"

namespace {

using Clock = std::chrono::steady_clock;

// One "iteration": an op, its launch and the kernel, in each dialect's words.
std::string KinetoEvent(long i) {
  const long ts = 1000 + i * 20;
  char b[1024];
  std::snprintf(b, sizeof b,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %ld.125, \"dur\": 8.5, \"args\": {\"External id\": %ld, \"Sequence number\": %ld}},\n"
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %ld.250, \"dur\": 3.5, \"args\": {\"External id\": %ld, \"correlation\": %ld}},\n"
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_128x64_tn\", \"pid\": 0, "
                "\"tid\": 7, \"ts\": %ld.500, \"dur\": 9.25, \"args\": {\"External id\": %ld, \"device\": 0, "
                "\"stream\": 7, \"correlation\": %ld, \"grid\": [128, 2, 1], \"block\": [256, 1, 1], "
                "\"registers per thread\": 90, \"shared memory\": 0}}",
                ts, i, i, ts + 1, i, i, ts + 6, i, i);
  return b;
}

std::string LegacyEvent(long i) {
  const long ts = 1000 + i * 20;
  char b[1024];
  std::snprintf(b, sizeof b,
                "{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": %ld, \"dur\": 8, \"tid\": 1, \"pid\": "
                "\"CPU functions\", \"args\": {}}, {\"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": %ld, "
                "\"tid\": 1, \"pid\": \"CPU functions\", \"id\": %ld, \"cat\": \"cpu_to_cuda\", \"args\": "
                "{}}, {\"name\": \"ampere_sgemm_128x64_tn\", \"ph\": \"f\", \"ts\": %ld, \"tid\": 0, "
                "\"pid\": \"CUDA functions\", \"id\": %ld, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
                "{\"name\": \"ampere_sgemm_128x64_tn\", \"ph\": \"X\", \"ts\": %ld, \"dur\": 9, \"tid\": "
                "0, \"pid\": \"CUDA functions\", \"args\": {}}",
                ts, ts, i, ts + 6, i, ts + 6);
  return b;
}

std::string JaxEvent(long i) {
  const long ts = 1000 + i * 20;
  char b[1024];
  std::snprintf(b, sizeof b,
                "{\"ph\":\"X\",\"pid\":701,\"tid\":9,\"ts\":%ld.125,\"dur\":8.5,\"name\":\"PjitFunction(step)\"},\n"
                "{\"ph\":\"X\",\"pid\":701,\"tid\":9,\"ts\":%ld.250,\"dur\":3.5,\"name\":\"cuLaunchKernel\","
                "\"args\":{\"correlation_id\":\"%ld\"}},\n"
                "{\"ph\":\"X\",\"pid\":1,\"tid\":14,\"ts\":%ld.500,\"dur\":9.25,\"name\":\"fusion_%ld\","
                "\"args\":{\"correlation_id\":\"%ld\",\"kernel_details\":\"regs:90 static_shared:0 "
                "dynamic_shared:0 grid:128,2,1 block:256,1,1 occ_pct:50.0\",\"hlo_op\":\"fusion.%ld\"}}",
                ts, ts + 1, i, ts + 6, i % 97, i, i % 97);
  return b;
}

std::string RocprofEvent(long i) {
  const long ts = 622108000000 + i * 20;
  char b[1024];
  std::snprintf(b, sizeof b,
                "{\"ph\": \"X\", \"name\": \"hipLaunchKernel\", \"pid\": \"2\", \"tid\": \"77\", \"ts\": "
                "\"%ld\", \"dur\": \"3\", \"args\": {\"BeginNs\": \"%ld125\", \"EndNs\": \"%ld625\", "
                "\"pid\": \"77\", \"tid\": \"77\", \"Name\": \"hipLaunchKernel\", \"args\": \"( "
                "kernel(vadd(float*)) numBlocks({z(1) y(1) x(64}) dimBlocks({z(1) y(1) x(256}) "
                "sharedMemBytes(0))\"}},\n"
                "{\"ph\": \"X\", \"name\": \"vadd(float*)\", \"pid\": \"6\", \"tid\": \"1\", \"ts\": "
                "\"%ld\", \"dur\": \"9\", \"args\": {\"BeginNs\": \"%ld500\", \"EndNs\": \"%ld750\", "
                "\"dev-id\": \"0\", \"queue-id\": \"0\", \"Name\": \"vadd(float*)\"}},\n"
                "{\"ts\": %ld, \"ph\": \"s\", \"cat\": \"DataFlow\", \"id\": %ld, \"pid\": 2, \"tid\": 77, "
                "\"name\": \"dep\"},\n{\"ts\": %ld, \"ph\": \"t\", \"cat\": \"DataFlow\", \"id\": %ld, "
                "\"pid\": 6, \"tid\": 1, \"name\": \"dep\"}",
                ts, ts, ts + 3, ts + 6, ts + 6, ts + 15, ts + 1, i, ts + 6, i);
  return b;
}

struct Dialect {
  const char* name;
  const char* head;
  const char* tail;
  std::string (*event)(long);
};

const Dialect kDialects[] = {
    {"kineto", "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], "
               "\"traceEvents\": [\n",
     "\n], \"baseTimeNanoseconds\": 1700000000000000000}\n", KinetoEvent},
    {"torch-legacy", "[", "]\n", LegacyEvent},
    {"jax", "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
            "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},\n"
            "{\"ph\":\"M\",\"pid\":1,\"tid\":14,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #14(Compute)\"}},\n"
            "{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},\n",
     "\n]}\n", JaxEvent},
    {"rocprof-v1", "{\"traceEvents\":[{},\n"
                   "{\"args\":{\"name\":\"CPU HIP API\"},\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\"},\n"
                   "{\"args\":{\"name\":\"GPU0\"},\"ph\":\"M\",\"pid\":6,\"name\":\"process_name\"},\n",
     "\n],\"otherData\":{}}\n", RocprofEvent},
};

std::string WriteTrace(const std::string& dir, const Dialect& d, size_t bytes) {
  const std::string path = dir + "/" + d.name + ".json";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && static_cast<size_t>(st.st_size) >= bytes) return path;
  std::ofstream out(path, std::ios::binary);
  out << d.head;
  size_t n = std::strlen(d.head);
  for (long i = 0; n < bytes; ++i) {
    std::string e = d.event(i);
    if (i) e.insert(0, ",\n");
    out << e;
    n += e.size();
  }
  out << d.tail;
  return path;
}

struct Run {
  double wall_s;
  long rss_kib;
  bool ok;
};

// TokenizeOnly: the Chrome Trace Event tokenizer alone (ReadChromeTrace with
// a callback that only counts), to tell its cost from the mapping's.
bool TokenizeOnly(const std::string& path) {
  auto in = gpuwhy::OpenInputStream(path, gpuwhy::import::ChromeStreamOptions());
  if (!in.ok()) return false;
  gpuwhy::model::ImportStats stats;
  gpuwhy::import::ChromeDocument doc;
  uint64_t n = 0;
  gpuwhy::Status st = gpuwhy::import::ReadChromeTrace(
      **in, stats, &doc, [&n](const gpuwhy::import::ChromeEvent& ev) { n += ev.ph.size(); });
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.message().c_str());
  return st.ok() && n > 0;
}

Run TimeImport(const std::string& path, bool tokenize_only = false) {
  const auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    if (tokenize_only) ::_exit(TokenizeOnly(path) ? 0 : 1);
    gpuwhy::Result<gpuwhy::model::Trace> r = gpuwhy::import::ImportFile(path);
    if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().message().c_str());
    ::_exit(r.ok() ? 0 : 1);
  }
  int status = 0;
  rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  return {wall, ru.ru_maxrss, WIFEXITED(status) && WEXITSTATUS(status) == 0};
}

uint64_t JsonBytes(const std::string& path) {
  auto in = gpuwhy::OpenInputStream(path);
  if (!in.ok()) return 0;
  std::vector<char> buf(size_t{1} << 20);
  uint64_t n = 0;
  for (;;) {
    auto got = (*in)->Read(buf.data(), buf.size());
    if (!got.ok() || *got == 0) break;
    n += *got;
  }
  return n;
}

struct Figure {
  std::string label;
  double mbps = 0;
};

Figure Measure(const std::string& label, const std::string& path, int repeat,
               bool tokenize_only = false) {
  const uint64_t bytes = JsonBytes(path);
  std::vector<double> walls;
  long rss = 0;
  bool ok = true;
  for (int i = 0; i < repeat; ++i) {
    Run r = TimeImport(path, tokenize_only);
    walls.push_back(r.wall_s);
    rss = std::max(rss, r.rss_kib);
    ok = ok && r.ok;
  }
  std::sort(walls.begin(), walls.end());
  const double wall = walls[walls.size() / 2];
  const double mbps = static_cast<double>(bytes) / 1e6 / wall;
  std::printf("%-14s %9.1f MB JSON  %8.3f s  %8.1f MB/s  peak RSS %7.1f MiB%s\n", label.c_str(),
              static_cast<double>(bytes) / 1e6, wall, mbps, static_cast<double>(rss) / 1024.0,
              ok ? "" : "  (import FAILED)");
  return {label, mbps};
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 64;
  int repeat = 3;
  std::string dir = "/tmp/gpuwhy-chrome-bench";
  std::vector<std::string> extra;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mb" && i + 1 < argc) mb = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else extra.push_back(a);
  }
  std::filesystem::create_directories(dir);
  std::vector<Figure> figs;
  for (const Dialect& d : kDialects)
    figs.push_back(Measure(d.name, WriteTrace(dir, d, mb << 20), repeat));
  for (const std::string& f : extra) Measure("kineto(shared)", f, repeat);
  // The tokenizer alone on each file (no model): what the mappings add.
  for (const Dialect& d : kDialects)
    Measure(std::string("tok:") + d.name, WriteTrace(dir, d, mb << 20), repeat, true);
  const double base = figs[0].mbps;
  std::printf("MB/s against the Kineto importer on the same event mix (this run):");
  for (size_t i = 1; i < figs.size(); ++i)
    std::printf("  %s %.2fx", figs[i].label.c_str(), figs[i].mbps / base);
  std::printf("\n");
  return 0;
}
