// Small-file compression with zlib, for files gpuwhy writes compressed and
// reads whole (per-rank `.gwsum` summaries):
// - GzipCompress: one gzip member. Reading it back is InputStream's transparent gunzip.
// - DeflateWithDictionary / InflateWithDictionary: a raw deflate stream (RFC
//   1951, no header or trailer) primed with a preset dictionary, so that text
//   every file repeats (finding titles, advice) costs a back-reference.
//
// Contract: pure; level 9 (the files are small and written once). Compressing
// returns Internal only when zlib fails (out of memory). Inflating never reads
// past `data` nor writes past `out_bytes`, and names the compressed byte of any
// error (InvalidInput); the caller bounds `out_bytes` before calling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

// GzipCompress: see the file comment.
Result<std::string> GzipCompress(std::string_view data);

// DeflateWithDictionary: raw deflate of `data`, primed with `dictionary`
// (zlib uses at most its last 32 KiB).
Result<std::string> DeflateWithDictionary(std::string_view data, std::string_view dictionary);

// InflateWithDictionary: the inverse of DeflateWithDictionary. The stream must
// end exactly at the end of `data` and inflate to exactly `out_bytes` bytes;
// otherwise InvalidInput "<name>: <why> at byte <N>", N being `base_offset`
// plus the compressed byte where the stream went wrong.
Result<std::string> InflateWithDictionary(std::string_view data, std::string_view dictionary,
                                          size_t out_bytes, const std::string& name,
                                          size_t base_offset);

// Crc32: the CRC-32 (ISO 3309, as gzip and zlib compute it) of `data`.
uint32_t Crc32(std::string_view data);

}  // namespace gpuwhy
