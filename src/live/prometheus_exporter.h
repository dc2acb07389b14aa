// Prometheus exposition of the live figures (`gpuwhy watch --prometheus`).
//
// Contract: PrometheusText() renders one Snapshot in the text exposition
// format 0.0.4: base units (watts, hertz, bytes, celsius), fractions as
// `_ratio` 0..1, prefix `gpuwhy_`, labels gpu, UUID, modelName, Hostname (as
// dcgm-exporter names them). A figure that is missing is left out (no NaN, no
// 0). PrometheusServer serves the latest text on GET /metrics (HTTP/1.0 and
// 1.1, keep-alive) from one thread with a poll loop: slow, half-open or
// flooding clients are bounded by connection count and deadlines and never
// block Update() (the sampler); Stop() (or the destructor) ends it.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/status.h"
#include "live/watch_view.h"
#include "record/attribution/owner.h"
#include "record/snapshot.h"

namespace gpuwhy::live {

// PrometheusText: see the file comment. With `owners` (record::Attributor),
// per-process series carry pod, namespace, container, pod_uid and
// slurm_job_id labels where known, and gpuwhy_gpu_owner_info names each GPU's
// holders; empty labels are left out, as Prometheus treats them.
std::string PrometheusText(const record::Snapshot& snap, const History& history,
                           const record::Owners* owners = nullptr);

// PrometheusMetricNames: every metric family PrometheusText can emit (the
// shipped rules and dashboard may name only these; a test checks that).
std::vector<std::string> PrometheusMetricNames();

class PrometheusServer {
 public:
  PrometheusServer();
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // Start: listen on host:port (port 0 picks a free one; see port()). Fails
  // with the address in the message when the port cannot be bound.
  Status Start(const std::string& host, int port);
  // Update: the text served from now on.
  void Update(std::string text);
  // Stop: stop listening and join the thread. Idempotent.
  void Stop();
  int port() const { return port_; }
  // scrapes: GET /metrics answered so far.
  uint64_t scrapes() const;

 // stale_dropped: connections closed to make room for new ones at the cap.
  uint64_t stale_dropped() const { return dropped_stale_.load(); }

 private:
  struct Conn;
  void Loop();
  void Respond(Conn& c, std::string_view head);

  std::thread thread_;
  std::atomic<bool> stop_{false};
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::atomic<uint64_t> dropped_stale_{0};
  mutable std::mutex mu_;
  std::string text_;
  uint64_t scrapes_ = 0;
  int port_ = 0;
};

// HttpRequestHead: what the /metrics server reads of one request head.
struct HttpRequestHead {
  bool valid = false;  // a request line "METHOD TARGET HTTP/x.y"
  std::string_view method, target, version;  // views into the head; target without "?query"
  bool keep_alive = false;  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only if asked
};

// ParseRequestHead: parse `head` (the request line and header lines, CRLF
// separated, without the blank line). Never reads outside `head`; an invalid
// request line gives valid == false (the server answers 400).
HttpRequestHead ParseRequestHead(std::string_view head);

// ParseHostPort: "127.0.0.1:9400" or ":9400" (host 127.0.0.1) into parts.
Status ParseHostPort(const std::string& spec, std::string* host, int* port);

}  // namespace gpuwhy::live
