// Prometheus exposition of the live figures (`gpuwhy watch --prometheus`).
//
// Contract: PrometheusText() renders one Snapshot in the text exposition
// format 0.0.4: base units (watts, hertz, bytes, celsius), fractions as
// `_ratio` 0..1, prefix `gpuwhy_`, labels gpu, UUID, modelName, Hostname (as
// dcgm-exporter names them). A figure that is missing is left out (no NaN, no
// 0). PrometheusServer serves the latest text on GET /metrics from its own
// thread; Stop() (or the destructor) ends it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "live/watch_view.h"
#include "record/snapshot.h"

namespace httplib {
class Server;
}

namespace gpuwhy::live {

// PrometheusText: see the file comment.
std::string PrometheusText(const record::Snapshot& snap, const History& history);

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

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::string text_;
  uint64_t scrapes_ = 0;
  int port_ = 0;
};

// ParseHostPort: "127.0.0.1:9400" or ":9400" (host 127.0.0.1) into parts.
Status ParseHostPort(const std::string& spec, std::string* host, int* port);

}  // namespace gpuwhy::live
