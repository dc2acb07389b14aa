// `gpuwhy watch`: live view of surface vs real utilization per GPU.
// Collect (NvmlSampler -> Snapshot) and draw (live::Draw) are separate; this
// file only owns the loop, the terminal (raw termios + ANSI) and the keys.
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

// CLI11 trips -Wnull-dereference in inlined std::string code; not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include "cli/commands.h"
#include "live/prometheus_exporter.h"
#include "live/watch_view.h"
#include "record/attribution/owner.h"
#include "record/nvml/nvml_sampler.h"

namespace gpuwhy::cli {
namespace {

volatile sig_atomic_t g_stop = 0;
void OnStop(int) { g_stop = 1; }

// RawTerminal: raw mode + alternate screen for the interactive view; restores
// the terminal in its destructor.
class RawTerminal {
 public:
  RawTerminal() {
    if (tcgetattr(STDIN_FILENO, &old_) != 0) return;
    termios raw = old_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    Write("\x1b[?1049h\x1b[?25l");
  }
  ~RawTerminal() {
    Write("\x1b[?25h\x1b[?1049l");
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &old_);
  }
  static void Write(const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t w = ::write(STDOUT_FILENO, s.data() + off, s.size() - off);
      if (w <= 0) return;
      off += static_cast<size_t>(w);
    }
  }
  static void Size(int* w, int* h) {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
      *w = ws.ws_col;
      *h = ws.ws_row;
    }
  }

 private:
  termios old_{};
  bool active_ = false;
};

enum class Key { kNone, kQuit, kHelp, kUp, kDown, kLeft, kRight, kSortPrev, kSortNext, kReverse,
                 kLonger, kShorter, kRefresh };

// ReadKey: wait up to timeout_ms for one key (escape sequences decoded).
Key ReadKey(int timeout_ms) {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return Key::kNone;
  char buf[8] = {};
  ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
  if (n <= 0) return Key::kNone;
  if (buf[0] == '\x1b') {
    if (n == 1) return Key::kQuit;  // a lone Esc
    if (buf[1] == '[') {
      switch (buf[2]) {
        case 'A': return Key::kUp;
        case 'B': return Key::kDown;
        case 'C': return Key::kRight;
        case 'D': return Key::kLeft;
        case '2': return buf[3] == '1' ? Key::kQuit : Key::kNone;  // F10 = ESC [21~
        default: return Key::kNone;
      }
    }
    return Key::kNone;
  }
  switch (buf[0]) {
    case 'q': case 'Q': return Key::kQuit;
    case 'h': case '?': return Key::kHelp;
    case 'k': return Key::kUp;
    case 'j': return Key::kDown;
    case ',': case '<': return Key::kSortPrev;
    case '.': case '>': return Key::kSortNext;
    case '/': return Key::kReverse;
    case '+': return Key::kLonger;
    case '-': return Key::kShorter;
    case 'r': return Key::kRefresh;
    default: return Key::kNone;
  }
}

void Apply(Key k, live::ViewState& v, live::History& h, size_t devices) {
  int n = static_cast<int>(live::SortKey::kCount);
  switch (k) {
    case Key::kHelp: v.help = !v.help; break;
    case Key::kUp: if (v.selected_process > 0) --v.selected_process; break;
    case Key::kDown: ++v.selected_process; break;
    case Key::kLeft: if (v.selected_device > 0) --v.selected_device; v.selected_process = 0; break;
    case Key::kRight:
      if (v.selected_device + 1 < devices) ++v.selected_device;
      v.selected_process = 0;
      break;
    case Key::kSortPrev: v.sort = static_cast<live::SortKey>((static_cast<int>(v.sort) + n - 1) % n); break;
    case Key::kSortNext: v.sort = static_cast<live::SortKey>((static_cast<int>(v.sort) + 1) % n); break;
    case Key::kReverse: v.reverse = !v.reverse; break;
    case Key::kLonger: h.set_window_ns(std::min<int64_t>(h.window_ns() * 2, 3600 * kNsPerS)); break;
    case Key::kShorter: h.set_window_ns(std::max<int64_t>(h.window_ns() / 2, 10 * kNsPerS)); break;
    default: break;
  }
}

}  // namespace

int WatchMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"live view: surface (GPU-Util) against real utilization per GPU", "gpuwhy watch"};
  bool once = false, json = false, ascii = false, no_color = false;
  int interval_ms = 1000;
  int iterations = 0;
  int window_s = 60;
  std::string prometheus;
  app.add_flag("-1,--once", once, "print one frame (or one JSON object) and exit");
  app.add_flag("--json", json, "JSON instead of the terminal view (one object per line)");
  app.add_option("--interval", interval_ms, "refresh interval in milliseconds (default 1000)")
      ->check(CLI::Range(100, 60000));
  app.add_option("--prometheus", prometheus,
                 "serve Prometheus metrics on HOST:PORT (e.g. 127.0.0.1:9400) at /metrics");
  app.add_option("--window", window_s, "seconds of curve history (default 60)")
      ->check(CLI::Range(10, 3600));
  app.add_option("--iterations", iterations, "stop after N refreshes (0 = until q / SIGINT)")
      ->check(CLI::Range(0, 100000000));
  app.add_flag("-U,--ascii", ascii, "ASCII only (no Unicode blocks)");
  app.add_flag("--no-color", no_color, "no colors");
  std::string dcgm_host = "127.0.0.1";
  bool no_dcgm = false;
  app.add_option("--dcgm", dcgm_host,
                 "DCGM host engine (HOST, HOST:PORT or a unix socket path; default 127.0.0.1) "
                 "for the real figures of GPUs without GPM");
  app.add_flag("--no-dcgm", no_dcgm, "do not try DCGM");
  std::string pod_resources = record::kDefaultPodResourcesSocket;
  bool no_pod_resources = false;
  std::string proc_root = "/proc";
  std::vector<std::string> gpu_resources;
  auto* pod_opt = app.add_option("--pod-resources-socket", pod_resources,
                 "the kubelet's pod-resources socket, for pod/namespace/container labels on the "
                 "per-process Prometheus series (default " + pod_resources + "; used when present)");
  app.add_flag("--no-pod-resources", no_pod_resources, "do not ask the kubelet for pod labels");
  app.add_option("--proc-root", proc_root,
                 "where the host's /proc is (cgroups and environments of GPU processes; default /proc)");
  app.add_option("--gpu-resource", gpu_resources,
                 "extra Kubernetes resource name whose devices are GPUs (repeatable; also "
                 "NVIDIA_RESOURCE_NAMES, comma-separated)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? 0 : 1;
  }

  std::string prom_host;
  int prom_port = 0;
  if (!prometheus.empty()) {
    if (Status s = live::ParseHostPort(prometheus, &prom_host, &prom_port); !s.ok()) {
      err << "gpuwhy watch: " << s.message() << "\n";
      return 1;
    }
  }
  auto lib = record::nvml::NvmlLibrary::Load();
  if (!lib.ok()) {
    err << "gpuwhy watch: " << lib.status().message() << "\n";
    return 2;
  }
  record::SamplerOptions so;
  so.slow_period_ns = std::max<int64_t>(kNsPerS, static_cast<int64_t>(interval_ms) * kNsPerMs);
  so.dcgm = !no_dcgm;
  so.dcgm_host = dcgm_host;
  so.dcgm_period_ns = std::max<int64_t>(100 * kNsPerMs, static_cast<int64_t>(interval_ms) * kNsPerMs);
  auto sampler_or = record::NvmlSampler::Open(std::move(lib).value(), so);
  if (!sampler_or.ok()) {
    err << "gpuwhy watch: " << sampler_or.status().message() << "\n";
    return 2;
  }
  std::unique_ptr<record::NvmlSampler> sampler = std::move(sampler_or).value();
  if (sampler->system()->devices.empty()) {
    err << "gpuwhy watch: no NVIDIA GPU found (NVML reports 0 devices)\n";
    return 2;
  }

  // Said once: where the real figures of GPUs without GPM come from, or why not.
  if (!sampler->system()->dcgm_status.empty()) err << "gpuwhy watch: " << sampler->system()->dcgm_status << "\n";

  live::History history(static_cast<int64_t>(window_s) * kNsPerS);
  live::ViewState view;
  view.ascii = ascii;
  const bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
  view.color = !no_color && tty && !json;

  if (once) {
    // Two reads >= 100 ms apart: GPM needs a pair of samples for its first value.
    history.Add(sampler->Sample());
    usleep(200 * 1000);
    record::Snapshot snap = sampler->Sample();
    history.Add(snap);
    if (json) {
      out << live::SnapshotJson(snap, history) << "\n";
    } else {
      int w = 100, h = 1000;
      if (tty) RawTerminal::Size(&w, &h);
      out << live::Draw(snap, history, view, w, 1000) << "\n";
    }
    return 0;
  }

  // Owners of GPU processes (pods, Slurm jobs) for the per-process series.
  std::unique_ptr<record::Attributor> attributor;
  if (!prometheus.empty()) {
    record::AttributorOptions ao;
    ao.proc_root = proc_root;
    if (!no_pod_resources) ao.pod_resources_socket = pod_resources;
    if (pod_opt->count() > 0) ao.pod_resources_explicit = true;
    ao.extra_gpu_resources = gpu_resources;
    if (const char* names = std::getenv("NVIDIA_RESOURCE_NAMES")) {
      std::stringstream ss(names);
      for (std::string n; std::getline(ss, n, ',');) {
        if (!n.empty()) ao.extra_gpu_resources.push_back(n);
      }
    }
    attributor = std::make_unique<record::Attributor>(std::move(ao));
  }
  live::PrometheusServer server;
  if (!prometheus.empty()) {
    if (Status s = server.Start(prom_host, prom_port); !s.ok()) {
      err << "gpuwhy watch: " << s.message() << "\n";
      return 2;
    }
    err << "gpuwhy watch: Prometheus metrics on http://" << prom_host << ":" << server.port()
        << "/metrics\n";
  }
  struct sigaction sa {};
  sa.sa_handler = OnStop;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);

  const bool interactive = tty && !json;
  std::unique_ptr<RawTerminal> term;
  if (interactive) term = std::make_unique<RawTerminal>();
  int64_t interval_ns = static_cast<int64_t>(interval_ms) * kNsPerMs;
  int done = 0;
  while (!g_stop) {
    int64_t t0 = record::MonoNowNs();
    record::Snapshot snap = sampler->Sample();
    history.Add(snap);
    if (attributor) {
      record::Owners owners = attributor->Resolve(snap);
      if (std::string notice = attributor->TakeNotice(); !notice.empty()) err << "gpuwhy watch: " << notice << "\n";
      server.Update(live::PrometheusText(snap, history, &owners));
    }
    if (json) {
      out << live::SnapshotJson(snap, history) << std::endl;
    } else if (interactive) {
      int w = 100, h = 40;
      RawTerminal::Size(&w, &h);
      RawTerminal::Write("\x1b[H" + live::Draw(snap, history, view, w, h) + "\x1b[J");
    } else if (prometheus.empty()) {
      out << live::Draw(snap, history, view, 100, 1000) << "\n\n" << std::flush;
    }
    if (iterations > 0 && ++done >= iterations) break;
    // Wait for the next tick, handling keys meanwhile.
    while (!g_stop) {
      int64_t left = interval_ns - (record::MonoNowNs() - t0);
      if (left <= 0) break;
      if (!interactive) {
        usleep(static_cast<useconds_t>(std::min<int64_t>(left, 100 * kNsPerMs) / 1000));
        continue;
      }
      Key k = ReadKey(static_cast<int>(left / kNsPerMs) + 1);
      if (k == Key::kNone) continue;
      if (k == Key::kQuit) {
        g_stop = 1;
        break;
      }
      Apply(k, view, history, snap.devices.size());
      if (k == Key::kRefresh) break;
      int w = 100, h = 40;
      RawTerminal::Size(&w, &h);
      RawTerminal::Write("\x1b[H" + live::Draw(snap, history, view, w, h) + "\x1b[J");
    }
  }
  term.reset();
  server.Stop();
  return 0;
}

}  // namespace gpuwhy::cli
