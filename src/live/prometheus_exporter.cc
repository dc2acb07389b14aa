#include "live/prometheus_exporter.h"

#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "record/nvml/nvml_api.h"

namespace gpuwhy::live {

using record::Metric;

namespace {

struct Exposed {
  Metric metric;
  const char* name;
  double scale;  // to base units
  const char* help;
};
constexpr Exposed kExposed[] = {
    {Metric::kGpuUtil, "gpuwhy_gpu_busy_ratio", 1,
     "NVML GPU-Util (surface): share of the sample period with >= 1 kernel running"},
    {Metric::kMemUtil, "gpuwhy_memory_busy_ratio", 1, "NVML memory-controller busy share"},
    {Metric::kSmActive, "gpuwhy_sm_active_ratio", 1,
     "SM utilization (real): share of SMs busy (GPM or DCGM, see gpuwhy_real_util_source_info)"},
    {Metric::kSmOccupancy, "gpuwhy_sm_occupancy_ratio", 1, "SM occupancy: resident warps / max (GPM or DCGM)"},
    {Metric::kTensorActive, "gpuwhy_tensor_active_ratio", 1, "tensor pipe utilization (GPM or DCGM)"},
    {Metric::kDramActive, "gpuwhy_dram_active_ratio", 1, "DRAM bandwidth utilization (GPM or DCGM)"},
    {Metric::kFp16Active, "gpuwhy_fp16_active_ratio", 1, "GPM FP16 pipe utilization (non-tensor)"},
    {Metric::kFp32Active, "gpuwhy_fp32_active_ratio", 1, "GPM FP32 pipe utilization (non-tensor)"},
    {Metric::kFp64Active, "gpuwhy_fp64_active_ratio", 1, "GPM FP64 pipe utilization (non-tensor)"},
    {Metric::kGrEngineActive, "gpuwhy_graphics_engine_active_ratio", 1, "GPM graphics/compute engine active"},
    {Metric::kPowerMw, "gpuwhy_power_watts", 1e-3, "power draw"},
    {Metric::kPowerLimitMw, "gpuwhy_power_limit_watts", 1e-3, "enforced power limit"},
    {Metric::kSmClockMhz, "gpuwhy_sm_clock_hertz", 1e6, "SM clock"},
    {Metric::kMemClockMhz, "gpuwhy_memory_clock_hertz", 1e6, "memory clock"},
    {Metric::kClockEventReasons, "gpuwhy_clock_event_reasons", 1,
     "NVML clock-event (throttle) reason bitmask"},
    {Metric::kPcieTxBytesPerS, "gpuwhy_pcie_tx_bytes_per_second", 1, "PCIe transmit throughput"},
    {Metric::kPcieRxBytesPerS, "gpuwhy_pcie_rx_bytes_per_second", 1, "PCIe receive throughput"},
    {Metric::kNvlinkTxBytesPerS, "gpuwhy_nvlink_tx_bytes_per_second", 1,
     "NVLink transmit throughput, all links (GPM, else NVML field values)"},
    {Metric::kNvlinkRxBytesPerS, "gpuwhy_nvlink_rx_bytes_per_second", 1,
     "NVLink receive throughput, all links (GPM, else NVML field values)"},
    {Metric::kMemUsedBytes, "gpuwhy_memory_used_bytes", 1, "device memory used"},
    {Metric::kMemTotalBytes, "gpuwhy_memory_total_bytes", 1, "device memory total"},
    {Metric::kTemperatureC, "gpuwhy_temperature_celsius", 1, "GPU temperature"},
};

// Clock-event reasons that slow a busy GPU down, one series each: PromQL has
// no bitwise operators, so alert rules cannot test the NVML bitmask itself.
struct ClockReason {
  unsigned long long bit;
  const char* name;
};
constexpr ClockReason kClockReasons[] = {
    {record::nvml::kClockEventSwPowerCap, "sw_power_cap"},
    {record::nvml::kClockEventHwSlowdown, "hw_slowdown"},
    {record::nvml::kClockEventSwThermal, "sw_thermal"},
    {record::nvml::kClockEventHwThermal, "hw_thermal"},
    {record::nvml::kClockEventHwPowerBrake, "hw_power_brake"},
    {record::nvml::kClockEventSyncBoost, "sync_boost"},
    {record::nvml::kClockEventGpuIdle, "gpu_idle"},
};

std::string LabelEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

// OwnerLabels: ",pod=\"...\"" etc. for the fields that are known.
std::string OwnerLabels(const std::string& pod, const std::string& ns, const std::string& container,
                        const std::string& pod_uid, const std::string& job) {
  std::string o;
  auto add = [&](const char* k, const std::string& v) {
    if (!v.empty()) o += fmt::format(",{}=\"{}\"", k, LabelEscape(v));
  };
  add("pod", pod);
  add("namespace", ns);
  add("container", container);
  add("pod_uid", pod_uid);
  add("slurm_job_id", job);
  return o;
}

}  // namespace

std::string PrometheusText(const record::Snapshot& snap, const History& history,
                           const record::Owners* owners) {
  const auto& sys = *snap.system;
  std::vector<std::string> labels;
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    const auto& info = sys.devices[i];
    labels.push_back(fmt::format("gpu=\"{}\",UUID=\"{}\",modelName=\"{}\",Hostname=\"{}\"",
                                 info.index, LabelEscape(info.uuid), LabelEscape(info.name),
                                 LabelEscape(sys.hostname)));
  }
  std::string o;
  for (const Exposed& e : kExposed) {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const record::Reading& r = snap.devices[i].at(e.metric);
      if (!r.valid() || snap.devices[i].lost) continue;
      body += fmt::format("{}{{{}}} {}\n", e.name, labels[i], r.value * e.scale);
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", e.name, e.help, e.name);
    o += body;
  }
  // Clock-event reasons, one 0/1 series per reason, when the bitmask is known.
  {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const record::Reading& r = snap.devices[i].at(Metric::kClockEventReasons);
      if (!r.valid() || snap.devices[i].lost) continue;
      const auto mask = static_cast<unsigned long long>(r.value);
      for (const ClockReason& c : kClockReasons)
        body += fmt::format("gpuwhy_clock_event_active{{{},reason=\"{}\"}} {}\n", labels[i], c.name,
                            (mask & c.bit) != 0 ? 1 : 0);
    }
    if (!body.empty()) {
      o += "# HELP gpuwhy_clock_event_active 1 while NVML reports this clock-event (throttle) "
           "reason\n# TYPE gpuwhy_clock_event_active gauge\n";
      o += body;
    }
  }
  // Per-link NVLink throughput (field values); the device totals are above.
  for (int dir = 0; dir < 2; ++dir) {
    const char* name = dir == 0 ? "gpuwhy_nvlink_link_tx_bytes_per_second"
                                : "gpuwhy_nvlink_link_rx_bytes_per_second";
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      if (snap.devices[i].lost) continue;
      for (const record::LinkReading& l : snap.devices[i].nvlinks) {
        const record::Reading& r = dir == 0 ? l.tx : l.rx;
        if (!r.valid()) continue;
        body += fmt::format("{}{{{},link=\"{}\"}} {}\n", name, labels[i], l.link, r.value);
      }
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} NVLink {} throughput of one link (NVML field values)\n# TYPE {} gauge\n",
                     name, dir == 0 ? "transmit" : "receive", name);
    o += body;
  }
  // Where the real-utilization figures come from (GPM or DCGM), per device.
  {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const auto& info = sys.devices[i];
      record::Source rs = info.real_source != record::Source::kNone
                              ? info.real_source
                              : (info.gpm_supported ? record::Source::kGpm : record::Source::kNone);
      if (rs == record::Source::kNone) continue;
      body += fmt::format("gpuwhy_real_util_source_info{{{},source=\"{}\"}} 1\n", labels[i],
                          record::SourceName(rs));
    }
    if (!body.empty()) {
      o += "# HELP gpuwhy_real_util_source_info source of the sm_active/occupancy/tensor/DRAM "
           "ratios (value always 1)\n# TYPE gpuwhy_real_util_source_info gauge\n";
      o += body;
    }
  }
  // MIG devices: memory per instance (GPU-Util does not exist per instance).
  for (int which = 0; which < 2; ++which) {
    const char* name = which == 0 ? "gpuwhy_mig_memory_used_bytes" : "gpuwhy_mig_sm_active_ratio";
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      if (snap.devices[i].lost) continue;
      for (const record::MigReading& m : snap.devices[i].mig) {
        const record::Reading& r = which == 0 ? m.mem_used : m.sm_active;
        if (!r.valid()) continue;
        body += fmt::format("{}{{{},GPU_I_ID=\"{}\",GPU_CI_ID=\"{}\"}} {}\n", name, labels[i],
                            m.gpu_instance_id, m.compute_instance_id, r.value);
      }
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} {} of one MIG instance\n# TYPE {} gauge\n", name,
                     which == 0 ? "device memory used" : "GPM SM utilization", name);
    o += body;
  }
  // Per-process series: NVML's process list, with the owner labels.
  for (int which = 0; which < 2; ++which) {
    const char* name = which == 0 ? "gpuwhy_process_memory_used_bytes" : "gpuwhy_process_sm_util_ratio";
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      if (snap.devices[i].lost) continue;
      for (const record::ProcessInfo& p : snap.devices[i].processes) {
        if (p.pid == kMissingI32) continue;
        double v = which == 0 ? (p.used_memory_bytes == kMissingI64 ? kMissingF64
                                                                     : static_cast<double>(p.used_memory_bytes))
                              : p.sm_util_ratio;
        if (!IsValid(v)) continue;
        std::string owner;
        if (owners) {
          auto it = owners->by_pid.find(p.pid);
          if (it != owners->by_pid.end()) {
            const record::ProcessOwner& w = it->second;
            owner = OwnerLabels(w.pod, w.namespace_name, w.container, w.pod_uid, w.slurm_job_id);
          }
        }
        body += fmt::format("{}{{{},pid=\"{}\",process_name=\"{}\"{}{}}} {}\n", name, labels[i], p.pid,
                            LabelEscape(p.name),
                            p.user.empty() ? std::string() : ",user=\"" + LabelEscape(p.user) + "\"", owner, v);
      }
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name,
                     which == 0 ? "device memory used by one process (NVML)"
                                : "share of the sample period one process had a kernel running (NVML "
                                  "per-process utilization: time-based, a time-share estimate like GPU-Util)",
                     name);
    o += body;
  }
  if (owners) {
    std::string body;
    for (const record::GpuOwner& g : owners->gpus) {
      for (size_t i = 0; i < snap.devices.size(); ++i) {
        if (sys.devices[i].index != g.gpu_index) continue;
        body += fmt::format("gpuwhy_gpu_owner_info{{{}{}{}}} 1\n", labels[i],
                            OwnerLabels(g.pod, g.namespace_name, g.container, "", g.slurm_job_id),
                            g.resource.empty() ? std::string() : ",resource=\"" + LabelEscape(g.resource) + "\"");
      }
    }
    if (!body.empty()) {
      o += "# HELP gpuwhy_gpu_owner_info a holder of the GPU: a container (kubelet pod-resources) or a "
           "Slurm job (its processes); value always 1\n# TYPE gpuwhy_gpu_owner_info gauge\n";
      o += body;
    }
    const std::string host = fmt::format("Hostname=\"{}\"", LabelEscape(sys.hostname));
    if (owners->pod_resources == record::PodResourcesState::kUp ||
        owners->pod_resources == record::PodResourcesState::kDown) {
      o += fmt::format("# HELP gpuwhy_pod_resources_up 1 when the last call to the kubelet's pod-resources "
                       "socket succeeded\n# TYPE gpuwhy_pod_resources_up gauge\ngpuwhy_pod_resources_up{{{}}} {}\n",
                       host, owners->pod_resources == record::PodResourcesState::kUp ? 1 : 0);
    }
    o += fmt::format("# HELP gpuwhy_attribution_ambiguous_processes processes in a pod whose GPU several pods "
                     "share and that no evidence assigns (their pod labels are left empty)\n"
                     "# TYPE gpuwhy_attribution_ambiguous_processes gauge\n"
                     "gpuwhy_attribution_ambiguous_processes{{{}}} {}\n", host, owners->ambiguous_processes);
  }
  o += "# HELP gpuwhy_device_lost 1 when NVML reported the GPU lost or gone\n"
       "# TYPE gpuwhy_device_lost gauge\n";
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    o += fmt::format("gpuwhy_device_lost{{{}}} {}\n", labels[i], snap.devices[i].lost ? 1 : 0);
  }
  o += "# HELP gpuwhy_curve_info live curve-shape class of GPU-Util (value always 1)\n"
       "# TYPE gpuwhy_curve_info gauge\n";
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    LiveVerdict v = ClassifyLive(history, i, sys.devices[i].util_sample_period_ns);
    o += fmt::format("gpuwhy_curve_info{{{},pattern=\"{}\"}} 1\n", labels[i], v.curve_class);
  }
  return o;
}

std::vector<std::string> PrometheusMetricNames() {
  std::vector<std::string> names;
  for (const Exposed& e : kExposed) names.emplace_back(e.name);
  for (const char* n : {"gpuwhy_clock_event_active", "gpuwhy_nvlink_link_tx_bytes_per_second",
                        "gpuwhy_nvlink_link_rx_bytes_per_second", "gpuwhy_real_util_source_info",
                        "gpuwhy_mig_memory_used_bytes", "gpuwhy_mig_sm_active_ratio",
                        "gpuwhy_device_lost", "gpuwhy_curve_info", "gpuwhy_process_memory_used_bytes",
                        "gpuwhy_process_sm_util_ratio", "gpuwhy_gpu_owner_info", "gpuwhy_pod_resources_up",
                        "gpuwhy_attribution_ambiguous_processes"})
    names.emplace_back(n);
  return names;
}

PrometheusServer::PrometheusServer() = default;

PrometheusServer::~PrometheusServer() { Stop(); }

Status ParseHostPort(const std::string& spec, std::string* host, int* port) {
  auto colon = spec.rfind(':');
  if (colon == std::string::npos) return InvalidInput("--prometheus: expected HOST:PORT, got '" + spec + "'");
  *host = colon == 0 ? "127.0.0.1" : spec.substr(0, colon);
  char* end = nullptr;
  long p = std::strtol(spec.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || p < 0 || p > 65535 || colon + 1 == spec.size()) {
    return InvalidInput("--prometheus: bad port in '" + spec + "'");
  }
  *port = static_cast<int>(p);
  return Status::Ok();
}

namespace {

using SteadyClock = std::chrono::steady_clock;

// Limits that keep the server's threads and memory bounded whatever clients do.
constexpr size_t kMaxConnections = 256;          // beyond: the stalest reader is dropped
constexpr size_t kMaxRequestBytes = 8 * 1024;    // a request head larger than this: 431
constexpr auto kRequestTimeout = std::chrono::seconds(2);  // to send a whole request head
constexpr auto kWriteTimeout = std::chrono::seconds(5);    // without write progress
constexpr auto kIdleTimeout = std::chrono::seconds(15);    // keep-alive between scrapes

bool SetNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool HeaderHas(std::string_view head, std::string_view name, std::string_view value) {
  // Case-insensitive search for "name: ...value..." on one header line.
  auto lower = [](std::string_view v) {
    std::string o(v);
    for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return o;
  };
  std::string h = lower(head), n = lower(name) + ":", v = lower(value);
  for (size_t at = h.find(n); at != std::string::npos; at = h.find(n, at + 1)) {
    if (at != 0 && h[at - 1] != '\n') continue;
    size_t eol = h.find('\r', at);
    if (h.substr(at, eol - at).find(v) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// Conn: one client connection of the poll loop.
struct PrometheusServer::Conn {
  int fd = -1;
  std::string in;          // bytes of the request(s) not yet answered
  std::string out;         // response bytes not yet written
  size_t out_off = 0;
  bool close_after = false;
  SteadyClock::time_point deadline;
  SteadyClock::time_point since;  // when the current request or write began
};

Status PrometheusServer::Start(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port_s = std::to_string(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port_s.c_str(), &hints, &res) != 0 || !res)
    return IoError(fmt::format("--prometheus: cannot resolve {}", host));
  int fd = -1;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0 || !SetNonBlocking(fd)) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0)
    return IoError(fmt::format("--prometheus: cannot listen on {}:{} (in use or not permitted)", host, port));
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(fd);
    return IoError("--prometheus: cannot create the wake-up pipe");
  }
  listen_fd_ = fd;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

// Loop: one thread, non-blocking sockets and poll(), so that slow or
// half-open clients cost a slot and a deadline, never a thread. Why not a
// thread-per-connection server (cpp-httplib, used before): 64 half-open
// connections held its whole pool and a scrape then took 18.8 s.
void PrometheusServer::Loop() {
  std::vector<Conn> conns;
  std::vector<pollfd> pfds;
  while (!stop_.load()) {
    pfds.clear();
    pfds.push_back({wake_[0], POLLIN, 0});
    pfds.push_back({listen_fd_, POLLIN, 0});
    for (const Conn& c : conns)
      pfds.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
    if (poll(pfds.data(), pfds.size(), 200) < 0 && errno != EINTR) break;
    if (pfds[0].revents != 0) {
      char b[64];
      while (read(wake_[0], b, sizeof b) > 0) {
      }
    }
    const auto now = SteadyClock::now();
    // Serve existing connections first (their pollfds follow the first two).
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      const short ev = pfds[i + 2].revents;
      bool drop = (ev & (POLLERR | POLLNVAL)) != 0;
      if (!drop && c.out.empty() && (ev & (POLLIN | POLLHUP)) != 0) {
        char buf[4096];
        ssize_t n = recv(c.fd, buf, sizeof buf, 0);
        if (n > 0) {
          if (c.in.empty()) {
            c.since = now;
            c.deadline = now + kRequestTimeout;
          }
          c.in.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          drop = true;
        }
      }
      if (!drop && c.out.empty()) {
        size_t head_end = c.in.find("\r\n\r\n");
        if (head_end != std::string::npos) {
          Respond(c, std::string_view(c.in).substr(0, head_end + 2));
          c.in.erase(0, head_end + 4);
          c.since = now;
          c.deadline = now + kWriteTimeout;
        } else if (c.in.size() > kMaxRequestBytes) {
          c.out = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
                  "Connection: close\r\n\r\n";
          c.out_off = 0;
          c.close_after = true;
          c.deadline = now + kWriteTimeout;
        }
      }
      if (!drop && !c.out.empty() && (ev & POLLOUT) != 0) {
        ssize_t n = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
        if (n > 0) {
          c.out_off += static_cast<size_t>(n);
          c.deadline = now + kWriteTimeout;
          if (c.out_off == c.out.size()) {
            c.out.clear();
            c.out_off = 0;
            if (c.close_after) drop = true;
            // A pipelined request already buffered gets its own deadline.
            c.deadline = now + (c.in.empty() ? kIdleTimeout : kRequestTimeout);
          }
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
          drop = true;
        }
      }
      if (!drop && now > c.deadline) drop = true;
      if (drop) {
        close(c.fd);
        c.fd = -1;
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const Conn& c) { return c.fd < 0; }),
                conns.end());
    // New connections. At the cap, the reader that has waited longest for a
    // request goes: a new scraper is worth more than a stalled client.
    if (pfds[1].revents & POLLIN) {
      for (;;) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        if (conns.size() >= kMaxConnections) {
          auto stalest = std::min_element(conns.begin(), conns.end(), [](const Conn& a, const Conn& b) {
            return a.since < b.since;
          });
          close(stalest->fd);
          conns.erase(stalest);
          dropped_stale_.fetch_add(1);
        }
        Conn c;
        c.fd = fd;
        c.since = now;
        c.deadline = now + kRequestTimeout;
        conns.push_back(std::move(c));
      }
    }
  }
  for (Conn& c : conns) close(c.fd);
}

HttpRequestHead ParseRequestHead(std::string_view head) {
  HttpRequestHead r;
  const size_t eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return r;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return r;
  r.method = line.substr(0, sp1);
  r.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  r.version = line.substr(sp2 + 1);
  if (size_t q = r.target.find('?'); q != std::string_view::npos) r.target = r.target.substr(0, q);
  // Checked after the query is cut: "GET ?x HTTP/1.1" has no path (found by http_head_fuzzer).
  if (r.method.empty() || r.target.empty() || r.version.substr(0, 5) != "HTTP/") return r;
  r.valid = true;
  const std::string_view headers = eol == std::string_view::npos ? std::string_view() : head.substr(eol);
  r.keep_alive = r.version == "HTTP/1.1" ? !HeaderHas(headers, "connection", "close")
                                         : HeaderHas(headers, "connection", "keep-alive");
  return r;
}

// Respond: the response to one request head (request line and headers).
void PrometheusServer::Respond(Conn& c, std::string_view head) {
  const HttpRequestHead req = ParseRequestHead(head);
  const std::string_view method = req.method, target = req.target;
  const bool keep = req.keep_alive;
  int code = 200;
  const char* reason = "OK";
  const char* type = "text/plain; version=0.0.4; charset=utf-8";
  std::string body;
  if (!req.valid) {
    code = 400;
    reason = "Bad Request";
  } else if (method != "GET" && method != "HEAD") {
    code = 405;
    reason = "Method Not Allowed";
  } else if (target == "/metrics") {
    std::lock_guard<std::mutex> lock(mu_);
    body = text_;
    ++scrapes_;
  } else if (target == "/") {
    type = "text/plain";
    body = "gpuwhy watch: metrics at /metrics\n";
  } else {
    code = 404;
    reason = "Not Found";
  }
  c.close_after = !keep || code == 400;
  c.out = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n",
                      code, reason, type, body.size(), c.close_after ? "close" : "keep-alive");
  if (method != "HEAD") c.out += body;
  c.out_off = 0;
}

void PrometheusServer::Update(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  text_ = std::move(text);
}

uint64_t PrometheusServer::scrapes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return scrapes_;
}

void PrometheusServer::Stop() {
  if (thread_.joinable()) {
    stop_ = true;
    ssize_t w = write(wake_[1], "x", 1);
    (void)w;
    thread_.join();
  }
  for (int* fd : {&listen_fd_, &wake_[0], &wake_[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

}  // namespace gpuwhy::live
