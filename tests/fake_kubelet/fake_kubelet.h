// A stand-in for the kubelet's pod-resources gRPC server, for tests: a unix
// socket speaking HTTP/2 (libnghttp2's server side) with gRPC framing, serving
// /v1.PodResourcesLister/List from a device list, or misbehaving on purpose.
//
// Lifecycle: Start() binds and serves on a thread until Stop() or the
// destructor. One connection at a time, as the exporter makes them.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record/attribution/pod_resources.h"

namespace gpuwhy_test {

// EncodeListPodResourcesResponse: the protobuf a kubelet would send for
// `devices` (grouped by pod, container and resource, in order of first
// appearance), with fields gpuwhy does not read (cpu_ids, memory, topology)
// filled in so that skipping them is exercised.
std::string EncodeListPodResourcesResponse(const std::vector<gpuwhy::record::PodDevice>& devices);

class FakeKubelet {
 public:
  enum class Mode {
    kServe,      // answer List
    kGrpcError,  // trailers-only reply, grpc-status 7 (PERMISSION_DENIED)
    kHang,       // read the request, never answer
    kGarbage,    // answer with HTTP/1.1 bytes and close
  };
  FakeKubelet() = default;
  ~FakeKubelet() { Stop(); }

  // Start: listen on `socket_path` (replacing a stale file). False when it cannot bind.
  bool Start(const std::string& socket_path);
  // Set: what the next calls see.
  void Set(std::vector<gpuwhy::record::PodDevice> devices, Mode mode = Mode::kServe);
  void Stop();
  // calls: List requests answered (or refused) so far.
  int calls() const { return calls_.load(); }

 private:
  void Loop();
  void Serve(int fd);

  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> calls_{0};
  std::mutex mu_;
  std::vector<gpuwhy::record::PodDevice> devices_;
  Mode mode_ = Mode::kServe;
};

}  // namespace gpuwhy_test
