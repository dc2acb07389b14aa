#include "base/gzip_writer.h"

#include <zlib.h>

namespace gpuwhy {

Result<std::string> GzipCompress(std::string_view data) {
  z_stream zs{};
  // 15 + 16: a gzip header and trailer, not a zlib one.
  if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    return Internal("gzip: cannot initialise deflate");
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Internal("gzip: deflate failed");
  out.resize(n);
  return out;
}

}  // namespace gpuwhy
