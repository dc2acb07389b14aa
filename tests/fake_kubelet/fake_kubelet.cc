#include "fake_kubelet.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include <nghttp2/nghttp2.h>

namespace gpuwhy_test {

using gpuwhy::record::PodDevice;

namespace {

void Varint(std::string& o, uint64_t v) {
  while (v >= 0x80) {
    o += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  o += static_cast<char>(v);
}

void Bytes(std::string& o, uint32_t field, const std::string& b) {
  Varint(o, (field << 3) | 2);
  Varint(o, b.size());
  o += b;
}

void VarintField(std::string& o, uint32_t field, uint64_t v) {
  Varint(o, field << 3);
  Varint(o, v);
}

}  // namespace

std::string EncodeListPodResourcesResponse(const std::vector<PodDevice>& devices) {
  // pod -> container -> resource -> ids, in order of first appearance.
  struct Res { std::string name; std::vector<std::string> ids; };
  struct Ctr { std::string name; std::vector<Res> res; };
  struct Pod { std::string ns, name; std::vector<Ctr> ctrs; };
  std::vector<Pod> pods;
  for (const PodDevice& d : devices) {
    Pod* pod = nullptr;
    for (auto& p : pods) if (p.ns == d.namespace_name && p.name == d.pod) pod = &p;
    if (!pod) pod = &pods.emplace_back(Pod{d.namespace_name, d.pod, {}});
    Ctr* ctr = nullptr;
    for (auto& c : pod->ctrs) if (c.name == d.container) ctr = &c;
    if (!ctr) ctr = &pod->ctrs.emplace_back(Ctr{d.container, {}});
    Res* res = nullptr;
    for (auto& r : ctr->res) if (r.name == d.resource) res = &r;
    if (!res) res = &ctr->res.emplace_back(Res{d.resource, {}});
    if (!d.device_id.empty()) res->ids.push_back(d.device_id);
  }
  std::string out;
  for (const Pod& p : pods) {
    std::string pm;
    Bytes(pm, 1, p.name);
    Bytes(pm, 2, p.ns);
    for (const Ctr& c : p.ctrs) {
      std::string cm;
      Bytes(cm, 1, c.name);
      for (const Res& r : c.res) {
        std::string dm;
        Bytes(dm, 1, r.name);
        for (const auto& id : r.ids) Bytes(dm, 2, id);
        std::string topo, numa;
        VarintField(numa, 1, 0);  // NUMANode{ID: 0}
        Bytes(topo, 1, numa);
        Bytes(dm, 3, topo);  // TopologyInfo: skipped by the reader
        Bytes(cm, 2, dm);
      }
      std::string packed;  // cpu_ids, packed
      Varint(packed, 2);
      Varint(packed, 3);
      Bytes(cm, 3, packed);
      VarintField(cm, 3, 7);  // and one unpacked
      std::string mem;  // ContainerMemory{memory_type, size}
      Bytes(mem, 1, "memory");
      VarintField(mem, 2, 1ull << 33);
      Bytes(cm, 4, mem);
      Bytes(pm, 3, cm);
    }
    Bytes(out, 1, pm);
  }
  return out;
}

bool FakeKubelet::Start(const std::string& socket_path) {
  path_ = socket_path;
  unlink(path_.c_str());
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path_.size() >= sizeof a.sun_path) return false;
  std::memcpy(a.sun_path, path_.c_str(), path_.size() + 1);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listen_fd_, 16) != 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  if (pipe2(wake_, O_CLOEXEC) != 0) return false;
  thread_ = std::thread([this] { Loop(); });
  return true;
}

void FakeKubelet::Set(std::vector<PodDevice> devices, Mode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  devices_ = std::move(devices);
  mode_ = mode;
}

void FakeKubelet::Stop() {
  if (stop_.exchange(true)) return;
  if (wake_[1] >= 0) {
    char c = 1;
    (void)!write(wake_[1], &c, 1);
  }
  if (thread_.joinable()) thread_.join();
  for (int& fd : {std::ref(listen_fd_), std::ref(wake_[0]), std::ref(wake_[1])}) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  unlink(path_.c_str());
}

void FakeKubelet::Loop() {
  while (!stop_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(p, 2, -1) <= 0) continue;
    if (p[1].revents) break;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Serve(fd);
    close(fd);
  }
}

namespace {

struct Stream {
  std::string path;
  std::string body;
  size_t sent = 0;
};

struct Conn {
  FakeKubelet::Mode mode;
  std::string reply;  // the encoded response for List
  std::map<int32_t, Stream> streams;
  std::atomic<int>* calls;
};

nghttp2_nv Nv(const char* n, const char* v) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(n)), reinterpret_cast<uint8_t*>(const_cast<char*>(v)),
          std::strlen(n), std::strlen(v), NGHTTP2_NV_FLAG_NONE};
}

ssize_t ReadBody(nghttp2_session* s, int32_t sid, uint8_t* buf, size_t len, uint32_t* flags,
                 nghttp2_data_source*, void* user) {
  auto* c = static_cast<Conn*>(user);
  Stream& st = c->streams[sid];
  size_t n = std::min(len, st.body.size() - st.sent);
  std::memcpy(buf, st.body.data() + st.sent, n);
  st.sent += n;
  if (st.sent == st.body.size()) {
    *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
    nghttp2_nv trailers[] = {Nv("grpc-status", "0")};
    nghttp2_submit_trailer(s, sid, trailers, 1);
  }
  return static_cast<ssize_t>(n);
}

int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
             const uint8_t* value, size_t valuelen, uint8_t, void* user) {
  auto* c = static_cast<Conn*>(user);
  if (std::string_view(reinterpret_cast<const char*>(name), namelen) == ":path") {
    c->streams[frame->hd.stream_id].path.assign(reinterpret_cast<const char*>(value), valuelen);
  }
  return 0;
}

int OnFrame(nghttp2_session* s, const nghttp2_frame* frame, void* user) {
  auto* c = static_cast<Conn*>(user);
  const bool request_end = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                           (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
  if (!request_end) return 0;
  const int32_t sid = frame->hd.stream_id;
  Stream& st = c->streams[sid];
  if (c->mode == FakeKubelet::Mode::kHang) return 0;
  c->calls->fetch_add(1);
  if (st.path != gpuwhy::record::kPodResourcesListPath) {
    nghttp2_nv h[] = {Nv(":status", "200"), Nv("content-type", "application/grpc"), Nv("grpc-status", "12"),
                      Nv("grpc-message", "unknown method")};
    return nghttp2_submit_response(s, sid, h, 4, nullptr);
  }
  if (c->mode == FakeKubelet::Mode::kGrpcError) {
    nghttp2_nv h[] = {Nv(":status", "200"), Nv("content-type", "application/grpc"), Nv("grpc-status", "7"),
                      Nv("grpc-message", "pod-resources: permission denied")};
    return nghttp2_submit_response(s, sid, h, 4, nullptr);
  }
  const uint32_t n = static_cast<uint32_t>(c->reply.size());
  st.body = std::string(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8) st.body += static_cast<char>((n >> shift) & 0xff);
  st.body += c->reply;
  nghttp2_nv h[] = {Nv(":status", "200"), Nv("content-type", "application/grpc")};
  nghttp2_data_provider dp{};
  dp.read_callback = ReadBody;
  return nghttp2_submit_response(s, sid, h, 2, &dp);
}

}  // namespace

void FakeKubelet::Serve(int fd) {
  Conn c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.mode = mode_;
    c.reply = EncodeListPodResourcesResponse(devices_);
  }
  c.calls = &calls_;
  if (c.mode == Mode::kGarbage) {
    // Read the request first, so the client sees the junk rather than a reset.
    pollfd p{fd, POLLIN, 0};
    char sink[4096];
    if (poll(&p, 1, 1000) > 0) (void)!read(fd, sink, sizeof sink);
    const char junk[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    (void)!write(fd, junk, sizeof junk - 1);
    calls_.fetch_add(1);
    // Drain until the client hangs up: closing with unread bytes would reset
    // the connection and the client would never see the junk.
    shutdown(fd, SHUT_WR);
    while (poll(&p, 1, 1000) > 0 && read(fd, sink, sizeof sink) > 0) {
    }
    return;
  }
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_session_callbacks_new(&cb);
  nghttp2_session_callbacks_set_on_header_callback(cb, OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, OnFrame);
  nghttp2_session* s = nullptr;
  nghttp2_session_server_new(&s, cb, &c);
  nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, nullptr, 0);
  char buf[16384];
  while (!stop_) {
    const uint8_t* out = nullptr;
    ssize_t n;
    while ((n = nghttp2_session_mem_send(s, &out)) > 0) {
      if (write(fd, out, static_cast<size_t>(n)) != n) break;
    }
    if (!nghttp2_session_want_read(s) && !nghttp2_session_want_write(s)) break;
    pollfd p[2] = {{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(p, 2, 5000) <= 0 || p[1].revents) break;
    ssize_t r = read(fd, buf, sizeof buf);
    if (r <= 0) break;
    if (nghttp2_session_mem_recv(s, reinterpret_cast<const uint8_t*>(buf), static_cast<size_t>(r)) < 0) break;
  }
  nghttp2_session_del(s);
  nghttp2_session_callbacks_del(cb);
}

}  // namespace gpuwhy_test
