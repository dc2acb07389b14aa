// The `.gwsum` per-rank summary file: writer and reader (docs/gwsum.md).
//
// A `.gwsum` holds one analysis::RankSummary: the rank's report sections
// (TraceAnalysis, without the per-op instance table and the --compat
// reproductions) and its diagnosis digest (detectors::RankDigest). `gpuwhy
// analyze A.gwsum B.gwsum ...` merges them with MergeRankSummaries(), the same
// merge the raw-trace path runs.
//
// Layout (version 2.1; 2.0 lacks the fields 2.1 appends): the 8-byte magic "GWSUM\0\r\n", the format version
// (major, minor: uint16 little-endian each), the body's length and CRC-32
// (uint32 little-endian each), then the body as raw deflate primed with a
// fixed dictionary (gwsum_dictionary.h). The body holds the summary's fields in
// the order docs/gwsum.md lists them. Integers are LEB128 varints (signed ones
// zigzag); floats a tagged varint (missing, whole, or 8 raw IEEE bytes, NaN
// kept bit for bit); utilization samples the whole nanoseconds they are the
// share of; strings and lists a varint length then the items; interval and
// step lists delta-coded. Missing values are written as their sentinels, never
// 0. Version 1 files (one gzip member around the header and the fields, floats
// always 8 raw bytes) are still read.
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
#include <vector>

#include "analysis/analysis.h"
#include "base/status.h"

namespace gpuwhy::report {

// kGwsumMajorVersion / kGwsumMinorVersion: the format version this build
// writes. A reader accepts its own major version and version 1 (any minor: a
// newer minor only appends fields, which it skips) and refuses others.
inline constexpr uint16_t kGwsumMajorVersion = 2;
// 2.1 appends the import notes, the host-only flags and the measured-kernel
// section (docs/gwsum.md).
inline constexpr uint16_t kGwsumMinorVersion = 1;

// kGwsumMagic: the first 8 payload bytes.
inline constexpr std::string_view kGwsumMagic{"GWSUM\0\r\n", 8};

// EncodeRankSummary: the `.gwsum` bytes (version 2) of `summary`.
Result<std::string> EncodeRankSummary(const analysis::RankSummary& summary);

// WrapRankSummaryBody: a version 2 file around `body`, the fields as
// EncodeRankSummary encodes them: header, body length, CRC-32, deflate with
// the dictionary. EncodeRankSummary is this of the encoded fields; the fuzzer
// wraps arbitrary bodies with it to reach the field decoding.
Result<std::string> WrapRankSummaryBody(std::string_view body);

// EncodeRankSummaryVersion1: the version 1 bytes (gzip) of `summary`, as
// gpuwhy wrote them before version 2; for tests that old files still read.
Result<std::string> EncodeRankSummaryVersion1(const analysis::RankSummary& summary);

// DecodeRankSummary: parse `.gwsum` bytes (version 2; version 1 gzip or its
// bare payload); `name` stands in for the path in error messages.
Result<analysis::RankSummary> DecodeRankSummary(std::string_view bytes, const std::string& name);

// WriteRankSummaryFile: encode `summary` and write it to `path` (IoError naming it).
Status WriteRankSummaryFile(const analysis::RankSummary& summary, const std::string& path);

// ReadRankSummaryFile: read and decode the `.gwsum` at `path`.
Result<analysis::RankSummary> ReadRankSummaryFile(const std::string& path);

// SummaryStrings: every string field of `summary`, in the order the format
// writes them (tools/gwsum_dictionary builds the dictionary from them).
std::vector<std::string> SummaryStrings(const analysis::RankSummary& summary);

// IsGwsumPath: the path names a `.gwsum` file (by its extension).
bool IsGwsumPath(std::string_view path);

}  // namespace gpuwhy::report
