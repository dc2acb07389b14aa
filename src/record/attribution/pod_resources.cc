#include "record/attribution/pod_resources.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <nghttp2/nghttp2.h>

namespace gpuwhy::record {

namespace {

// ---- protobuf wire format (only what the v1 schema needs) ------------------

// PbReader: walks one message's fields; `base` is the message's offset in the
// whole reply, so errors name an absolute byte.
class PbReader {
 public:
  PbReader(std::string_view msg, size_t base) : msg_(msg), base_(base) {}

  // Next: the next field. Returns false at the end or on error (see error()).
  // Length-delimited fields come back in `bytes`; other wire types are skipped.
  bool Next(uint32_t* field, uint32_t* wire, std::string_view* bytes, size_t* at) {
    if (pos_ >= msg_.size() || !error_.empty()) return false;
    *at = base_ + pos_;
    uint64_t key = 0;
    if (!Varint(&key)) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *wire = static_cast<uint32_t>(key & 7);
    if (*field == 0) return Fail("field number 0");
    switch (*wire) {
      case 0: {
        uint64_t v = 0;
        return Varint(&v);
      }
      case 1: return Skip(8);
      case 5: return Skip(4);
      case 2: {
        uint64_t len = 0;
        if (!Varint(&len)) return false;
        if (len > msg_.size() - pos_) return Fail("length past the end of the message");
        *bytes = msg_.substr(pos_, static_cast<size_t>(len));
        pos_ += static_cast<size_t>(len);
        return true;
      }
      default: return Fail(fmt::format("unsupported wire type {}", *wire));
    }
  }
  const std::string& error() const { return error_; }
  size_t error_at() const { return base_ + pos_; }

 private:
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= msg_.size()) return Fail("truncated varint");
      auto b = static_cast<uint8_t>(msg_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail("varint longer than 10 bytes");
  }
  bool Skip(size_t n) {
    if (n > msg_.size() - pos_) return Fail("fixed field past the end of the message");
    pos_ += n;
    return true;
  }
  bool Fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    return false;
  }

  std::string_view msg_;
  size_t base_ = 0;
  size_t pos_ = 0;
  std::string error_;
};

Status PbError(const PbReader& r) {
  return InvalidInput(fmt::format("pod-resources reply: {} at byte {}", r.error(), r.error_at()));
}

// Offset of `inner` (a view into `outer`'s buffer) from the reply's start.
size_t OffsetIn(std::string_view whole, std::string_view inner) {
  return static_cast<size_t>(inner.data() - whole.data());
}

}  // namespace

Result<std::vector<PodDevice>> ParseListPodResourcesResponse(std::string_view pb) {
  std::vector<PodDevice> out;
  PbReader top(pb, 0);
  uint32_t f = 0, w = 0;
  std::string_view b;
  size_t at = 0;
  while (top.Next(&f, &w, &b, &at)) {
    if (f != 1 || w != 2) continue;
    // PodResources
    std::string pod, ns;
    std::vector<std::string_view> containers;
    PbReader pr(b, OffsetIn(pb, b));
    std::string_view pb2;
    while (pr.Next(&f, &w, &pb2, &at)) {
      if (w != 2) continue;
      if (f == 1) pod.assign(pb2);
      else if (f == 2) ns.assign(pb2);
      else if (f == 3) containers.push_back(pb2);
    }
    if (!pr.error().empty()) return PbError(pr);
    for (std::string_view c : containers) {
      std::string cname;
      std::vector<std::string_view> devices;
      PbReader cr(c, OffsetIn(pb, c));
      std::string_view cb;
      while (cr.Next(&f, &w, &cb, &at)) {
        if (w != 2) continue;
        if (f == 1) cname.assign(cb);
        else if (f == 2) devices.push_back(cb);
      }
      if (!cr.error().empty()) return PbError(cr);
      for (std::string_view d : devices) {
        std::string resource;
        std::vector<std::string_view> ids;
        PbReader dr(d, OffsetIn(pb, d));
        std::string_view db;
        while (dr.Next(&f, &w, &db, &at)) {
          if (w != 2) continue;
          if (f == 1) resource.assign(db);
          else if (f == 2) ids.push_back(db);
        }
        if (!dr.error().empty()) return PbError(dr);
        for (std::string_view id : ids) out.push_back({ns, pod, cname, resource, std::string(id)});
      }
    }
  }
  if (!top.error().empty()) return PbError(top);
  return out;
}

Result<std::string_view> ParseGrpcUnaryReply(std::string_view body) {
  if (body.size() < 5) {
    return InvalidInput(fmt::format("gRPC reply: {} bytes, shorter than the 5-byte message prefix", body.size()));
  }
  if (body[0] != 0) return InvalidInput("gRPC reply: compressed message (none was asked for)");
  uint32_t len = (static_cast<uint32_t>(static_cast<uint8_t>(body[1])) << 24) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(body[2])) << 16) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(body[3])) << 8) |
                 static_cast<uint32_t>(static_cast<uint8_t>(body[4]));
  if (len > body.size() - 5) {
    return InvalidInput(fmt::format("gRPC reply: message of {} bytes, only {} received", len, body.size() - 5));
  }
  return body.substr(5, len);
}

bool IsGpuResource(std::string_view resource, const std::vector<std::string>& extra) {
  if (resource == "nvidia.com/gpu" || resource == "nvidia.com/gpu.shared") return true;
  if (resource.rfind("nvidia.com/mig-", 0) == 0) return true;
  for (const auto& e : extra) {
    if (resource == e) return true;
  }
  return false;
}

// ---- the gRPC call over HTTP/2 ---------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

struct Call {
  int32_t stream_id = -1;
  std::string body;
  bool too_big = false;
  bool closed = false;
  uint32_t close_error = 0;
  std::string http_status;
  std::string grpc_status;
  std::string grpc_message;
  // The request body: an empty ListPodResourcesRequest behind the 5-byte prefix.
  std::string request = std::string(5, '\0');
  size_t request_sent = 0;
};

ssize_t ReadRequest(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                    nghttp2_data_source* source, void*) {
  auto* call = static_cast<Call*>(source->ptr);
  size_t n = std::min(length, call->request.size() - call->request_sent);
  std::memcpy(buf, call->request.data() + call->request_sent, n);
  call->request_sent += n;
  if (call->request_sent == call->request.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

int OnData(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len, void* user) {
  auto* call = static_cast<Call*>(user);
  if (stream_id != call->stream_id) return 0;
  if (call->body.size() + len > kMaxPodResourcesReplyBytes) {
    call->too_big = true;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
  call->body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
             const uint8_t* value, size_t valuelen, uint8_t, void* user) {
  auto* call = static_cast<Call*>(user);
  if (frame->hd.stream_id != call->stream_id) return 0;
  std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":status") call->http_status.assign(v);
  else if (n == "grpc-status") call->grpc_status.assign(v);
  else if (n == "grpc-message") call->grpc_message.assign(v.substr(0, 512));
  return 0;
}

int OnClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
  auto* call = static_cast<Call*>(user);
  if (stream_id == call->stream_id) {
    call->closed = true;
    call->close_error = error_code;
  }
  return 0;
}

// Session: owns the nghttp2 objects and the socket.
struct Session {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session* session = nullptr;
  int fd = -1;
  ~Session() {
    if (session) nghttp2_session_del(session);
    if (callbacks) nghttp2_session_callbacks_del(callbacks);
    if (fd >= 0) close(fd);
  }
};

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

nghttp2_nv Header(const char* name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.c_str())), std::strlen(name),
          value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

Result<std::vector<PodDevice>> ListPodResources(const std::string& socket_path, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto fail = [&](const std::string& what) {
    return IoError(fmt::format("pod-resources {}: {}", socket_path, what));
  };
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof addr.sun_path) return fail("socket path too long");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);

  Session s;
  s.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s.fd < 0) return fail(std::string("socket: ") + std::strerror(errno));
  if (connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    return fail(std::string("connect: ") + std::strerror(errno));
  }

  Call call;
  nghttp2_session_callbacks_new(&s.callbacks);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(s.callbacks, OnData);
  nghttp2_session_callbacks_set_on_header_callback(s.callbacks, OnHeader);
  nghttp2_session_callbacks_set_on_stream_close_callback(s.callbacks, OnClose);
  if (nghttp2_session_client_new(&s.session, s.callbacks, &call) != 0) return fail("HTTP/2 session setup failed");
  nghttp2_submit_settings(s.session, NGHTTP2_FLAG_NONE, nullptr, 0);
  const std::string method = "POST", scheme = "http", path = kPodResourcesListPath,
                    authority = "localhost", ctype = "application/grpc", te = "trailers",
                    agent = "gpuwhy";
  nghttp2_nv headers[] = {Header(":method", method),      Header(":scheme", scheme),
                          Header(":path", path),          Header(":authority", authority),
                          Header("content-type", ctype),  Header("te", te),
                          Header("user-agent", agent)};
  nghttp2_data_provider data{};
  data.source.ptr = &call;
  data.read_callback = ReadRequest;
  call.stream_id = nghttp2_submit_request(s.session, nullptr, headers, std::size(headers), &data, nullptr);
  if (call.stream_id < 0) return fail("HTTP/2 request could not be queued");

  std::string pending;  // bytes nghttp2 produced that the socket has not taken yet
  char buf[64 * 1024];
  size_t received = 0;
  while (!call.closed) {
    if (pending.empty()) {
      const uint8_t* out = nullptr;
      ssize_t n;
      while ((n = nghttp2_session_mem_send(s.session, &out)) > 0) pending.append(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
      if (n < 0) return fail(std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(n)));
    }
    int left = RemainingMs(deadline);
    if (left == 0) return fail(fmt::format("no reply within {} ms", timeout_ms));
    pollfd p{s.fd, static_cast<short>(POLLIN | (pending.empty() ? 0 : POLLOUT)), 0};
    int pr = poll(&p, 1, left);
    if (pr < 0 && errno != EINTR) return fail(std::string("poll: ") + std::strerror(errno));
    if (pr <= 0) continue;
    if (p.revents & POLLOUT) {
      ssize_t w = send(s.fd, pending.data(), pending.size(), MSG_NOSIGNAL);
      if (w < 0 && errno != EAGAIN && errno != EINTR) return fail(std::string("send: ") + std::strerror(errno));
      if (w > 0) pending.erase(0, static_cast<size_t>(w));
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = recv(s.fd, buf, sizeof buf, 0);
      if (r == 0) {
        if (received == 0) return fail("the kubelet closed the connection before replying");
        return fail(fmt::format("HTTP/2: the connection closed after {} bytes without a complete reply "
                                "(not a gRPC server?)", received));
      }
      if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return fail(std::string("recv: ") + std::strerror(errno));
      }
      received += static_cast<size_t>(r);
      ssize_t used = nghttp2_session_mem_recv(s.session, reinterpret_cast<const uint8_t*>(buf), static_cast<size_t>(r));
      if (call.too_big) return fail(fmt::format("reply larger than {} bytes", kMaxPodResourcesReplyBytes));
      if (used < 0) return fail(std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(used)));
      // nghttp2 answers a protocol error with GOAWAY and stops reading.
      if (!call.closed && !nghttp2_session_want_read(s.session)) {
        return fail("HTTP/2: protocol error in the reply (not a gRPC server?)");
      }
    }
  }
  if (call.close_error != 0) {
    return fail(fmt::format("stream reset ({})", nghttp2_http2_strerror(call.close_error)));
  }
  if (call.http_status != "200") return fail(fmt::format("HTTP status {}", call.http_status.empty() ? "missing" : call.http_status));
  if (call.grpc_status.empty()) return fail("reply without grpc-status");
  if (call.grpc_status != "0") {
    return fail(fmt::format("gRPC status {}{}{}", call.grpc_status, call.grpc_message.empty() ? "" : ": ",
                            call.grpc_message));
  }
  auto msg = ParseGrpcUnaryReply(call.body);
  if (!msg.ok()) return fail(msg.status().message());
  auto devices = ParseListPodResourcesResponse(*msg);
  if (!devices.ok()) return fail(devices.status().message());
  return devices;
}

}  // namespace gpuwhy::record
