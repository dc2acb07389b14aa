// Shared pieces of the ROCm profiler importers (rocprofv3 CSV and rocpd,
// rocprof v1 CSV and results.db, rocmProfileData RPD): a quoted-CSV reader
// that looks columns up by header name, and the translations every ROCm
// source shares (grid work-items to workgroups, copy directions, API
// domains, AMD devices from agent properties).
//
// Contract: pure translation helpers; nothing here reads a file. Missing or
// unparsable numbers are the kMissing* sentinels, never 0.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::import::rocm {

// RocmCsv: reads RFC 4180 CSV records from `text` (quoted cells may hold
// commas, doubled quotes and newlines; '\r' before a newline is dropped).
class RocmCsv {
 public:
  explicit RocmCsv(std::string_view text) : text_(text) {}
  // Next: the next record's cells into `cells` (reused). Returns false at the
  // end. `line` is the record's first line (1-based); `complete` is false for
  // a last record that ends at the end of the text (inside quotes or without
  // its newline: possibly cut).
  bool Next(std::vector<std::string>* cells, int64_t* line, bool* complete);
  // offset: bytes consumed so far.
  size_t offset() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

// RocmColumns: a header row, looked up by name (exact, else ASCII
// case-insensitive). Columns drifted between releases; every reader asks
// by name with the aliases each release used.
class RocmColumns {
 public:
  explicit RocmColumns(std::vector<std::string> names) : names_(std::move(names)) {}
  // Find: index of the first of `names` present, or -1.
  int Find(std::initializer_list<std::string_view> names) const;
  bool Has(std::string_view name) const { return Find({name}) >= 0; }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

// Cell: cells[i], or "" when i < 0 or past the row.
inline std::string_view Cell(const std::vector<std::string>& cells, int i) {
  return (i < 0 || static_cast<size_t>(i) >= cells.size()) ? std::string_view{} : cells[i];
}

// ParseI64: a decimal (or 0x hex) integer cell; kMissingI64 for empty or
// text. A float cell ("64.000000") is read when it is integral.
int64_t ParseI64(std::string_view s);
// ParseF64: a number (fixed or scientific); NaN for empty or text.
double ParseF64(std::string_view s);
// AgentNumber: "Agent 2" -> 2, "2" -> 2; kMissingI32 otherwise.
int32_t AgentNumber(std::string_view s);
// TimeOk: a valid time within kMaxAbsTimeNs.
bool TimeOk(int64_t ns);

// Workgroups: a grid of `grid_items` work-items in workgroups of `wg_items`
// work-items (HSA dispatch packets count work-items; the model counts
// blocks): ceil(grid / wg), or missing when either is missing or <= 0.
int32_t Workgroups(int64_t grid_items, int64_t wg_items);
// ClampI32: v as int32, missing when missing or out of range.
int32_t ClampI32(int64_t v);

// CopyKindOfDirection: MEMORY_COPY_HOST_TO_DEVICE / "CopyHostToDevice" /
// "HOST_TO_DEVICE" ... -> the model's kind.
model::CopyKind CopyKindOfDirection(std::string_view direction);

// ApiKindOfDomain: HIP_RUNTIME_API* / HIP_COMPILER_API -> kRuntime;
// HSA_* -> kDriver (the layer under HIP); others kOther.
model::ApiKind ApiKindOfDomain(std::string_view domain);
// IsMarkerDomain: roctx markers (MARKER_CORE_API, ROCTX...).
bool IsMarkerDomain(std::string_view domain);

// AmdAgent: what an agent-info row says about one GPU.
struct AmdAgent {
  int32_t id = kMissingI32;  // the number events use ("Agent N", agent id)
  std::string product_name;  // "AMD Instinct MI300X"
  std::string arch_name;     // "gfx942"
  int32_t cu_count = kMissingI32;
  int32_t wave_size = kMissingI32;
  int32_t max_waves_per_cu = kMissingI32;
  int32_t max_workgroup_size = kMissingI32;
  int64_t lds_bytes = kMissingI64;  // per workgroup
};

// AddAmdDevice: the device `a.id` of `t` with AMD's names and limits (name
// "AMD Instinct MI300X (gfx942)" or the arch alone, CU count as sm_count).
void AddAmdDevice(model::Trace& t, const AmdAgent& a);

// StemOf: a kernel name with rocprof's " [clone .kd]" / ".kd" suffix cut.
std::string_view StemOf(std::string_view kernel_name);

}  // namespace gpuwhy::import::rocm
