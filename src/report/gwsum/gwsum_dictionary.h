// The preset deflate dictionary of `.gwsum` format version 2 (docs/gwsum.md).
//
// Every summary repeats the same text: finding titles, advice, caveats,
// metric names and sources. Priming deflate with that text makes each repeat a
// back-reference, which roughly halves a summary's fixed part.
//
// Contract: the bytes are frozen with version 2. A writer and a reader must use
// the same dictionary, so changing a single byte breaks every version 2 file;
// a new dictionary needs a new major version (and this reader keeps the old
// one). gwsum_test checks the size and CRC-32. The bytes were made once by
// tools/gwsum_dictionary from summaries of the project's own synthetic traces.
#pragma once

#include <string_view>

namespace gpuwhy::report {

// GwsumDictionaryV2: the version 2 dictionary (32 KiB at most).
std::string_view GwsumDictionaryV2();

}  // namespace gpuwhy::report
