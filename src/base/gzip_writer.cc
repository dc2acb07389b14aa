#include "base/gzip_writer.h"

#include <zlib.h>

#include <algorithm>

namespace gpuwhy {

namespace {

// Deflate: all of `data` through an initialised stream; frees it.
Result<std::string> Deflate(z_stream& zs, std::string_view data) {
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Internal("deflate failed");
  out.resize(n);
  return out;
}

}  // namespace

Result<std::string> GzipCompress(std::string_view data) {
  z_stream zs{};
  // 15 + 16: a gzip header and trailer, not a zlib one.
  if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    return Internal("gzip: cannot initialise deflate");
  return Deflate(zs, data);
}

Result<std::string> DeflateWithDictionary(std::string_view data, std::string_view dictionary) {
  z_stream zs{};
  // -15: raw deflate, 32 KiB window.
  if (deflateInit2(&zs, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    return Internal("deflate: cannot initialise");
  if (!dictionary.empty() &&
      deflateSetDictionary(&zs, reinterpret_cast<const Bytef*>(dictionary.data()),
                           static_cast<uInt>(dictionary.size())) != Z_OK) {
    deflateEnd(&zs);
    return Internal("deflate: cannot set the dictionary");
  }
  return Deflate(zs, data);
}

Result<std::string> InflateWithDictionary(std::string_view data, std::string_view dictionary,
                                          size_t out_bytes, const std::string& name,
                                          size_t base_offset) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Internal(name + ": cannot initialise inflate");
  auto fail = [&](const std::string& why) {
    const size_t at = base_offset + static_cast<size_t>(zs.total_in);
    inflateEnd(&zs);
    return InvalidInput(name + ": " + why + " at byte " + std::to_string(at));
  };
  if (!dictionary.empty() &&
      inflateSetDictionary(&zs, reinterpret_cast<const Bytef*>(dictionary.data()),
                           static_cast<uInt>(dictionary.size())) != Z_OK) {
    inflateEnd(&zs);
    return Internal(name + ": cannot set the inflate dictionary");
  }
  std::string out(out_bytes, '\0');
  // One spare byte: a stream longer than declared shows as output past out_bytes.
  char spare = 0;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  for (;;) {
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) return fail("corrupt deflate data");
    if (rc == Z_MEM_ERROR) return fail("out of memory inflating");
    if (zs.avail_out == 0) {
      if (zs.next_out == reinterpret_cast<Bytef*>(&spare) + 1)
        return fail("deflate stream longer than the declared " + std::to_string(out_bytes) +
                    " bytes");
      zs.next_out = reinterpret_cast<Bytef*>(&spare);
      zs.avail_out = 1;
      continue;
    }
    if (zs.avail_in == 0 || rc == Z_BUF_ERROR) return fail("truncated deflate stream");
  }
  if (zs.total_out != out_bytes)
    return fail("deflate stream of " + std::to_string(zs.total_out) +
                " bytes, not the declared " + std::to_string(out_bytes));
  if (zs.avail_in != 0) return fail(std::to_string(zs.avail_in) + " bytes after the deflate stream");
  inflateEnd(&zs);
  return out;
}

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed big inputs in pieces.
  while (!data.empty()) {
    const size_t n = std::min<size_t>(data.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace gpuwhy
