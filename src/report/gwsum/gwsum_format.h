// The `.gwsum` per-rank summary file: writer and reader (docs/gwsum.md).
//
// A `.gwsum` holds one analysis::RankSummary: the rank's report sections
// (TraceAnalysis, without the per-op instance table and the --compat
// reproductions) and its diagnosis digest (detectors::RankDigest). `gpuwhy
// analyze A.gwsum B.gwsum ...` merges them with MergeRankSummaries(), the same
// merge the raw-trace path runs.
//
// Layout: one gzip member whose payload is the 8-byte magic "GWSUM\0\r\n",
// the format version (major, minor: uint16 little-endian each), then the
// summary's fields in the order docs/gwsum.md lists them. Integers are LEB128
// varints (signed ones zigzag), floats 8-byte IEEE little-endian (NaN = missing,
// kept as is), strings and lists a varint length then the items, interval and
// step lists delta-coded. Missing values are written as their sentinels, never 0.
//
// Contract: EncodeRankSummary/DecodeRankSummary round-trip every field they
// carry. The reader refuses another major version with one line, and a
// truncated or corrupt file with one line naming the file and the byte offset
// (compressed offset for broken gzip, payload offset for a broken payload);
// it never reads past its input and bounds every length by the bytes left.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "base/status.h"

namespace gpuwhy::report {

// kGwsumMajorVersion / kGwsumMinorVersion: the format version this build
// writes. A reader accepts its own major version (any minor: a newer minor
// only appends fields, which it skips) and refuses others.
inline constexpr uint16_t kGwsumMajorVersion = 1;
inline constexpr uint16_t kGwsumMinorVersion = 0;

// kGwsumMagic: the first 8 payload bytes.
inline constexpr std::string_view kGwsumMagic{"GWSUM\0\r\n", 8};

// EncodeRankSummary: the `.gwsum` bytes (gzip) of `summary`.
Result<std::string> EncodeRankSummary(const analysis::RankSummary& summary);

// DecodeRankSummary: parse `.gwsum` bytes (gzip or the bare payload); `name`
// stands in for the path in error messages.
Result<analysis::RankSummary> DecodeRankSummary(std::string_view bytes, const std::string& name);

// WriteRankSummaryFile: encode `summary` and write it to `path` (IoError naming it).
Status WriteRankSummaryFile(const analysis::RankSummary& summary, const std::string& path);

// ReadRankSummaryFile: read and decode the `.gwsum` at `path`.
Result<analysis::RankSummary> ReadRankSummaryFile(const std::string& path);

// IsGwsumPath: the path names a `.gwsum` file (by its extension).
bool IsGwsumPath(std::string_view path);

}  // namespace gpuwhy::report
