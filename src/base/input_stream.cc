#include "base/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#ifdef GPUWHY_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace gpuwhy {

Status InputStream::ReadBlock(StreamBlock* block, size_t front, size_t want, size_t pad) {
  block->buf.resize(front + want + pad);
  Result<size_t> got = Read(block->buf.data() + front, want);
  if (!got.ok()) return got.status();
  block->begin = front;
  block->end = front + *got;
  return Status::Ok();
}

namespace {

constexpr size_t kRawChunkBytes = size_t{256} << 10;

// RawSource: undecoded bytes, from a file descriptor or from memory.
class RawSource {
 public:
  virtual ~RawSource() = default;
  // ReadRaw: up to n bytes; 0 at end of file.
  virtual Result<size_t> ReadRaw(char* buf, size_t n) = 0;
  virtual uint64_t size() const = 0;
  virtual const std::string& path() const = 0;
};

class FileSource final : public RawSource {
 public:
  FileSource(int fd, std::string path, uint64_t size)
      : fd_(fd), path_(std::move(path)), size_(size) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<size_t> ReadRaw(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        pos_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno == EINTR) continue;
      return IoError(fmt::format("{}: read error at byte {}: {}", path_, pos_,
                                 std::strerror(errno)));
    }
  }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

class MemorySource final : public RawSource {
 public:
  MemorySource(std::string_view data, std::string name) : data_(data), name_(std::move(name)) {}
  Result<size_t> ReadRaw(char* buf, size_t n) override {
    size_t k = std::min(n, data_.size() - pos_);
    if (k) std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  uint64_t size() const override { return data_.size(); }
  const std::string& path() const override { return name_; }

 private:
  std::string_view data_;
  std::string name_;
  size_t pos_ = 0;
};

// PlainStream: an uncompressed file. `head` holds the bytes already read for
// magic detection.
class PlainStream final : public InputStream {
 public:
  PlainStream(std::unique_ptr<RawSource> src, std::string head)
      : src_(std::move(src)), head_(std::move(head)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    if (n == 0) return size_t{0};
    if (head_pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(buf, head_.data() + head_pos_, k);
      head_pos_ += k;
      offset_ += k;
      return k;
    }
    Result<size_t> got = src_->ReadRaw(buf, n);
    if (got.ok()) offset_ += *got;
    return got;
  }
  const std::string& path() const override { return src_->path(); }
  bool compressed() const override { return false; }
  uint64_t raw_offset() const override { return offset_; }
  uint64_t offset() const override { return offset_; }
  uint64_t raw_size() const override { return src_->size(); }

 private:
  std::unique_ptr<RawSource> src_;
  std::string head_;
  size_t head_pos_ = 0;
  uint64_t offset_ = 0;
};

// GzipStream: shared input buffering and member handling; the Inflater
// (zlib or ISA-L) decodes one member at a time.
class GzipStream : public InputStream {
 public:
  GzipStream(std::unique_ptr<RawSource> src, std::string head)
      : src_(std::move(src)), in_(kRawChunkBytes) {
    std::memcpy(in_.data(), head.data(), head.size());
    in_len_ = head.size();
    file_read_ = head.size();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    size_t produced = 0;
    while (produced == 0 && n > 0 && !done_) {
      if (in_pos_ == in_len_ && !eof_) {
        Result<size_t> got = src_->ReadRaw(in_.data(), in_.size());
        if (!got.ok()) return Fail(got.status());
        in_pos_ = 0;
        in_len_ = *got;
        file_read_ += *got;
        if (*got == 0) eof_ = true;
      }
      if (member_done_) {
        // Between members: another member, trailing zero padding, or the end.
        if (in_pos_ == in_len_ && eof_) {
          done_ = true;
          break;
        }
        if (in_len_ - in_pos_ < 2 && !eof_) {
          // Need two bytes to see the next magic; keep the one we have.
          std::memmove(in_.data(), in_.data() + in_pos_, in_len_ - in_pos_);
          in_len_ -= in_pos_;
          in_pos_ = 0;
          Result<size_t> got = src_->ReadRaw(in_.data() + in_len_, in_.size() - in_len_);
          if (!got.ok()) return Fail(got.status());
          in_len_ += *got;
          file_read_ += *got;
          if (*got == 0) eof_ = true;
          continue;
        }
        const auto* b = reinterpret_cast<const unsigned char*>(in_.data() + in_pos_);
        if (in_len_ - in_pos_ >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
          ResetMember();
          member_done_ = false;
          continue;
        }
        if (b[0] == 0x1f && eof_) {
          return Fail(InvalidInput(fmt::format("{}: truncated gzip stream at compressed byte {}",
                                               path(), RawPos())));
        }
        // Trailing bytes that are not a gzip member: ignored, like gzip -d does.
        done_ = true;
        break;
      }
      size_t out = 0;
      Status st = Inflate(buf, n, &out);
      if (!st.ok()) return Fail(st);
      produced += out;
      if (!member_done_ && out == 0 && in_pos_ == in_len_ && eof_) {
        return Fail(InvalidInput(
            fmt::format("{}: truncated gzip stream at compressed byte {}", path(), RawPos())));
      }
    }
    offset_ += produced;
    return produced;
  }

  const std::string& path() const override { return src_->path(); }
  bool compressed() const override { return true; }
  uint64_t raw_offset() const override { return RawPos(); }
  uint64_t offset() const override { return offset_; }
  uint64_t raw_size() const override { return src_->size(); }

 protected:
  // Inflate: decode from in_[in_pos_, in_len_) into buf; advance in_pos_, set
  // member_done_ at the end of a member.
  virtual Status Inflate(char* buf, size_t n, size_t* out) = 0;
  virtual void ResetMember() = 0;

  Status Corrupt(uint64_t at, std::string_view why) const {
    return InvalidInput(fmt::format("{}: corrupt gzip data at compressed byte {} ({})", path(),
                                    at, why));
  }
  uint64_t RawPos() const { return file_read_ - (in_len_ - in_pos_); }

  std::unique_ptr<RawSource> src_;
  std::vector<char> in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  uint64_t file_read_ = 0;
  bool eof_ = false;
  bool member_done_ = false;

 private:
  Status Fail(Status st) {
    error_ = st;
    return st;
  }
  bool done_ = false;
  uint64_t offset_ = 0;
  Status error_;
};

class ZlibStream final : public GzipStream {
 public:
  ZlibStream(std::unique_ptr<RawSource> src, std::string head)
      : GzipStream(std::move(src), std::move(head)) {
    std::memset(&z_, 0, sizeof(z_));
    inflateInit2(&z_, 16 + MAX_WBITS);
  }
  ~ZlibStream() override { inflateEnd(&z_); }
  ZlibStream(const ZlibStream&) = delete;
  ZlibStream& operator=(const ZlibStream&) = delete;

 protected:
  Status Inflate(char* buf, size_t n, size_t* out) override {
    z_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    z_.avail_in = static_cast<uInt>(in_len_ - in_pos_);
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    uInt before_out = z_.avail_out;
    int rc = inflate(&z_, Z_NO_FLUSH);
    in_pos_ = in_len_ - z_.avail_in;
    *out = before_out - z_.avail_out;
    if (rc == Z_STREAM_END) {
      member_done_ = true;
      return Status::Ok();
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Status::Ok();
    return Corrupt(RawPos(), z_.msg ? z_.msg : "inflate failed");
  }
  void ResetMember() override { inflateReset(&z_); }

 private:
  z_stream z_;
};

#ifdef GPUWHY_HAVE_ISAL
class IsalStream final : public GzipStream {
 public:
  IsalStream(std::unique_ptr<RawSource> src, std::string head)
      : GzipStream(std::move(src), std::move(head)),
        state_(std::make_unique<inflate_state>()) {
    ResetMember();
  }

 protected:
  Status Inflate(char* buf, size_t n, size_t* out) override {
    state_->next_in = reinterpret_cast<uint8_t*>(in_.data() + in_pos_);
    state_->avail_in = static_cast<uint32_t>(in_len_ - in_pos_);
    state_->next_out = reinterpret_cast<uint8_t*>(buf);
    state_->avail_out = static_cast<uint32_t>(std::min<size_t>(n, 1u << 30));
    uint32_t before_out = state_->avail_out;
    int rc = isal_inflate(state_.get());
    in_pos_ = in_len_ - state_->avail_in;
    *out = before_out - state_->avail_out;
    if (rc < 0) {
      const char* why = rc == ISAL_INCORRECT_CHECKSUM ? "CRC mismatch"
                        : rc == ISAL_INVALID_WRAPPER  ? "bad gzip header"
                                                      : "invalid deflate data";
      return Corrupt(RawPos(), why);
    }
    if (state_->block_state == ISAL_BLOCK_FINISH) member_done_ = true;
    return Status::Ok();
  }
  void ResetMember() override {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
  }

 private:
  std::unique_ptr<inflate_state> state_;
};
#endif

// ReadAheadStream: runs the inner stream on a worker thread so decompression
// overlaps parsing (2 cores here). The queue bounds memory to a few chunks.
class ReadAheadStream final : public InputStream {
 public:
  ReadAheadStream(std::unique_ptr<InputStream> inner, size_t chunk_bytes, size_t max_chunks)
      : inner_(std::move(inner)), chunk_bytes_(chunk_bytes), max_chunks_(max_chunks) {
    worker_ = std::thread([this] { Run(); });
  }
  ~ReadAheadStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  ReadAheadStream(const ReadAheadStream&) = delete;
  ReadAheadStream& operator=(const ReadAheadStream&) = delete;

  Result<size_t> Read(char* buf, size_t n) override {
    if (n == 0) return size_t{0};
    if (cur_pos_ == cur_end_) {
      ASSIGN_OR_RETURN(size_t end, NextChunk(&cur_));
      if (end == 0) return size_t{0};
      cur_pos_ = kFront;
      cur_end_ = end;
    }
    size_t k = std::min(n, cur_end_ - cur_pos_);
    std::memcpy(buf, cur_.data() + cur_pos_, k);
    cur_pos_ += k;
    offset_ += k;
    return k;
  }
  // ReadBlock: hands the next decompressed chunk over whole (the caller's old
  // buffer goes back to the worker), unless a Read() left part of one.
  Status ReadBlock(StreamBlock* block, size_t front, size_t want, size_t pad) override {
    if (cur_pos_ != cur_end_ || front > kFront || pad > kBackPad)
      return InputStream::ReadBlock(block, front, want, pad);
    ASSIGN_OR_RETURN(size_t end, NextChunk(&block->buf));
    if (end == 0) {
      block->buf.resize(front + pad);
      block->begin = block->end = front;
      return Status::Ok();
    }
    block->begin = kFront;
    block->end = end;
    offset_ += end - kFront;
    return Status::Ok();
  }
  const std::string& path() const override { return inner_->path(); }
  bool compressed() const override { return inner_->compressed(); }
  uint64_t raw_offset() const override { return raw_offset_; }
  uint64_t offset() const override { return offset_; }
  uint64_t raw_size() const override { return inner_->raw_size(); }

 private:
  void Run() {
    for (;;) {
      std::vector<char> chunk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || queue_.size() < max_chunks_; });
        if (stop_) return;
        if (!free_.empty()) {
          chunk = std::move(free_.back());
          free_.pop_back();
        }
      }
      // Room before and after the bytes, for ReadBlock's callers.
      chunk.resize(kFront + chunk_bytes_ + kBackPad);
      size_t filled = 0;
      Status st;
      while (filled < chunk_bytes_) {
        Result<size_t> got = inner_->Read(chunk.data() + kFront + filled, chunk_bytes_ - filled);
        if (!got.ok()) {
          st = got.status();
          break;
        }
        if (*got == 0) break;
        filled += *got;
      }
      chunk.resize(kFront + filled + kBackPad);
      std::lock_guard<std::mutex> lock(mu_);
      if (filled > 0) {
        queue_.push_back(std::move(chunk));
        raw_marks_.push_back(inner_->raw_offset());
      }
      if (!st.ok() || filled < chunk_bytes_) {
        error_ = st;
        finished_ = true;
        cv_.notify_all();
        return;
      }
      cv_.notify_all();
    }
  }

  // NextChunk: waits for the next decompressed chunk and moves it into
  // *into, giving *into's old buffer back to the worker. Returns where its
  // bytes end (they start at kFront), 0 at the end of the stream, or the
  // stream's error.
  Result<size_t> NextChunk(std::vector<char>* into) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !queue_.empty() || finished_; });
    if (queue_.empty()) {
      if (!error_.ok()) return error_;
      return size_t{0};
    }
    free_.push_back(std::move(*into));
    *into = std::move(queue_.front());
    queue_.pop_front();
    raw_offset_ = raw_marks_.front();
    raw_marks_.pop_front();
    lock.unlock();
    cv_.notify_all();
    return into->size() - kBackPad;
  }

  // Every chunk holds its bytes at [kFront, size - kBackPad): room for a
  // ReadBlock caller to prepend the tail of the previous block (the Kineto
  // importer's partial event) and to read past the end.
  static constexpr size_t kFront = kStreamBlockFront;
  static constexpr size_t kBackPad = 64;

  std::unique_ptr<InputStream> inner_;
  size_t chunk_bytes_;
  size_t max_chunks_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> queue_;
  std::deque<uint64_t> raw_marks_;
  std::vector<std::vector<char>> free_;
  bool stop_ = false;
  bool finished_ = false;
  Status error_;
  std::vector<char> cur_;
  size_t cur_pos_ = 0;
  size_t cur_end_ = 0;
  uint64_t offset_ = 0;
  uint64_t raw_offset_ = 0;
};

Result<std::unique_ptr<InputStream>> Wrap(std::unique_ptr<RawSource> src,
                                          const InputStreamOptions& options) {
  // Read the first two bytes to detect gzip by magic, not by file name.
  std::string head(2, '\0');
  size_t have = 0;
  while (have < 2) {
    Result<size_t> got = src->ReadRaw(head.data() + have, 2 - have);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    have += *got;
  }
  head.resize(have);
  bool gzip = have == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
              static_cast<unsigned char>(head[1]) == 0x8b;
  std::unique_ptr<InputStream> s;
  if (!gzip) {
    s = std::make_unique<PlainStream>(std::move(src), std::move(head));
  } else {
    GzipBackend b = options.gzip;
#ifdef GPUWHY_HAVE_ISAL
    if (b == GzipBackend::kAuto) b = GzipBackend::kIsal;
    if (b == GzipBackend::kIsal)
      s = std::make_unique<IsalStream>(std::move(src), std::move(head));
    else
      s = std::make_unique<ZlibStream>(std::move(src), std::move(head));
#else
    (void)b;
    s = std::make_unique<ZlibStream>(std::move(src), std::move(head));
#endif
  }
  if (options.read_ahead)
    s = std::make_unique<ReadAheadStream>(std::move(s), std::max<size_t>(options.read_ahead_chunk_bytes, 1),
                                          std::max<size_t>(options.read_ahead_chunks, 1));
  return s;
}

}  // namespace

bool IsalAvailable() {
#ifdef GPUWHY_HAVE_ISAL
  return true;
#else
  return false;
#endif
}

Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path) {
  return OpenInputStream(path, InputStreamOptions{});
}

Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path,
                                                     const InputStreamOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(path + ": no such file");
    return IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return IoError(path + ": is a directory, not a trace file");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EACCES) return IoError(path + ": permission denied");
    return IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  auto src = std::make_unique<FileSource>(fd, path, static_cast<uint64_t>(st.st_size));
  return Wrap(std::move(src), options);
}

std::unique_ptr<InputStream> OpenMemoryStream(std::string_view data, std::string name,
                                              const InputStreamOptions& options) {
  Result<std::unique_ptr<InputStream>> s =
      Wrap(std::make_unique<MemorySource>(data, std::move(name)), options);
  // A memory source cannot fail to read, so Wrap always succeeds.
  return std::move(s).value();
}

Result<std::string> ReadPrefix(const std::string& path, size_t n) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> s, OpenInputStream(path));
  std::string out(n, '\0');
  size_t have = 0;
  while (have < n) {
    ASSIGN_OR_RETURN(size_t got, s->Read(out.data() + have, n - have));
    if (got == 0) break;
    have += got;
  }
  out.resize(have);
  return out;
}

}  // namespace gpuwhy
