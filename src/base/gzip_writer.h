// GzipCompress: bytes to one gzip member (zlib deflate), for small files that
// gpuwhy writes compressed (per-rank `.gwsum` summaries). Reading them back is
// InputStream's transparent gunzip.
//
// Contract: pure; returns the gzip bytes, or Internal when zlib fails (out of
// memory). Level 9: the files are small and written once.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

// GzipCompress: see the file comment.
Result<std::string> GzipCompress(std::string_view data);

}  // namespace gpuwhy
