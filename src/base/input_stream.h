// InputStream: sequential bytes of a file, transparently gunzipped.
//
// Contract: Open() fails with a Status that names the path (missing file,
// directory, permission). Read() returns the number of bytes placed in `buf`
// (0 at end of stream) or an error naming the path and the byte offset of the
// corruption (compressed offset for gzip). Concatenated gzip members are read
// as one stream. Memory use is bounded by the internal buffers (a few MiB),
// never by the file size. After Read() returned an error, the stream stays
// failed and returns the same error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// StreamBlock: decompressed bytes in a buffer the caller owns:
// buf[begin, end). InputStream::ReadBlock leaves writable room before begin
// and after end, so a caller can prepend a few bytes and read past the end.
struct StreamBlock {
  std::vector<char> buf;
  size_t begin = 0;
  size_t end = 0;
};

// kStreamBlockFront: the room before a block that a read-ahead stream keeps,
// so a ReadBlock asking for at most this much is served without a copy.
constexpr size_t kStreamBlockFront = size_t{64} << 10;

class InputStream {
 public:
  virtual ~InputStream() = default;

  // Read: up to `n` bytes into buf; 0 means end of stream.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  // ReadBlock: the stream's next bytes (about `want`, maybe more) as a whole
  // buffer, with at least `front` bytes of room before block->begin and `pad`
  // after block->end; begin == end at the end of the stream. block->buf's old
  // contents are lost (its storage may be reused). A read-ahead stream hands
  // over the buffer it decompressed into, so the bytes are never copied; the
  // default reads into block->buf. Errors as Read's.
  virtual Status ReadBlock(StreamBlock* block, size_t front, size_t want, size_t pad);
  // path: the file this stream reads.
  virtual const std::string& path() const = 0;
  // compressed: true when the file is gzip.
  virtual bool compressed() const = 0;
  // raw_offset: bytes consumed from the file so far (compressed offset).
  virtual uint64_t raw_offset() const = 0;
  // offset: decompressed bytes returned so far.
  virtual uint64_t offset() const = 0;
  // raw_size: file size in bytes.
  virtual uint64_t raw_size() const = 0;
};

// GzipBackend: which inflater decodes gzip. kAuto picks ISA-L igzip when it was
// built in (measured ~2-3x faster than zlib here, see bench/import), else zlib.
enum class GzipBackend : uint8_t { kAuto = 0, kIsal = 1, kZlib = 2 };

// InputStreamOptions: tuning knobs; the defaults are what the CLI uses.
struct InputStreamOptions {
  GzipBackend gzip = GzipBackend::kAuto;
  // read_ahead: decompress on a second thread that fills a bounded queue of
  // `read_ahead_chunk_bytes` chunks (at most `read_ahead_chunks` in flight).
  bool read_ahead = false;
  size_t read_ahead_chunk_bytes = size_t{1} << 20;
  size_t read_ahead_chunks = 4;
};

// OpenInputStream: open `path`, detecting gzip by its magic bytes (not by name).
Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path);
Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path,
                                                     const InputStreamOptions& options);

// OpenMemoryStream: a stream over bytes in memory (tests, fuzzers), with the same
// gzip detection. `data` must outlive the stream; `name` stands in for the path
// in error messages.
std::unique_ptr<InputStream> OpenMemoryStream(std::string_view data, std::string name,
                                              const InputStreamOptions& options = {});

// ReadPrefix: the first up-to-`n` decompressed bytes of `path` (for sniffing).
// A gzip file whose first `n` bytes cannot be decoded gives the stream's error.
Result<std::string> ReadPrefix(const std::string& path, size_t n);

// IsalAvailable: true when the ISA-L backend was compiled in.
bool IsalAvailable();

}  // namespace gpuwhy
