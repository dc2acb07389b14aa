// InputStream: sequential bytes of a file, transparently gunzipped.
//
// Contract: Open() fails with a Status that names the path (missing file,
// directory, permission). Read() returns the number of bytes placed in `buf`
// (0 at end of stream) or an error naming the path and the byte offset of the
// corruption (compressed offset for gzip). Concatenated gzip members are read
// as one stream. Memory use is bounded by the internal buffers (a few MiB),
// never by the file size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

class InputStream {
 public:
  virtual ~InputStream() = default;

  // Read: up to `n` bytes into buf; 0 means end of stream.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
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

// OpenInputStream: open `path`, detecting gzip by its magic bytes (not by name).
Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path);

// ReadPrefix: the first up-to-`n` decompressed bytes of `path` (for sniffing).
Result<std::string> ReadPrefix(const std::string& path, size_t n);

}  // namespace gpuwhy
