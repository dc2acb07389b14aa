// CorrelationIndex: correlation id -> api row, the GPU-to-host link of every
// analysis that maps a GPU op to the call that launched it (the run's step
// windows, the diagnosis timeline).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::analysis {

// CorrelationIndex: correlation id → api row (any call; the first row of an
// id wins), for GPU→host links.
// Where every api row has a valid id and the ids rise with the row (Kineto
// and nsys exports as a rule: the table is sorted by start, ids are handed
// out in call order), it views the table's column instead of copying keys
// and rows (51 MB at the timeline's peak of a 21 M-event trace), so it must
// not outlive the table it was built from; copying it is not allowed.
class CorrelationIndex {
 public:
  CorrelationIndex() = default;
  CorrelationIndex(const CorrelationIndex&) = delete;
  CorrelationIndex& operator=(const CorrelationIndex&) = delete;
  // Build: the index of `api` (bucketed, as Index()).
  void Build(const model::ApiTable& api);
  // Assign: explicit ids (sorted, distinct) and their rows, not bucketed.
  void Assign(std::vector<int64_t> keys, std::vector<uint32_t> rows);
  // Index: bucket the ids so a search reads a few of them: one bucket per
  // four ids, whatever holes the ids have.
  void Index();
  // size: the ids indexed.
  size_t size() const { return keys_.size(); }
  // indexed: Index() has bucketed the ids (and they are not empty).
  bool indexed() const { return !bucket_.empty(); }
  // buckets: the bucket directory's entries (0 before Index()).
  size_t buckets() const { return bucket_.size(); }
  // views_table: true when the ids are the api table's own column.
  bool views_table() const { return views_table_; }
  // Find: the index of this id among the ids, or SIZE_MAX.
  size_t Find(int64_t correlation_id) const;
  // RowAt: the api row of the id at `index` (< size()).
  uint32_t RowAt(size_t index) const {
    return rows_.empty() ? static_cast<uint32_t>(index) : rows_[index];
  }
  // KeyAt: the id at `index` (< size()).
  int64_t KeyAt(size_t index) const { return keys_[index]; }
  // FindRow: the api row with this id, or UINT32_MAX.
  uint32_t FindRow(int64_t correlation_id) const {
    const size_t i = Find(correlation_id);
    return i == SIZE_MAX ? UINT32_MAX : RowAt(i);
  }

 private:
  bool views_table_ = false;
  std::vector<int64_t> own_keys_;  // the ids when they are not the table's column
  std::span<const int64_t> keys_;  // sorted, distinct
  std::vector<uint32_t> rows_;     // api row of keys_[i]; empty: row i
  // bucket_: where each bucket of 2^shift_ ids starts in keys_ (plus an end).
  std::vector<uint32_t> bucket_;
  int shift_ = 0;
};

}  // namespace gpuwhy::analysis
