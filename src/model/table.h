// Column-table machinery shared by every event table in the model.
//
// Contract: GPUWHY_DEFINE_TABLE(Table, Row, COLUMNS) declares a plain Row struct
// (one field per column, each defaulting to its "missing" value) and a Table
// that stores each column in its own std::vector. Columns are public so hot
// analysis loops can read them directly; Append()/Get() keep them in step.
// The column list is the single declaration of the schema (docs come from it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "base/memory_tuning.h"
#include "base/string_pool.h"
#include "base/units.h"

#define GPUWHY_ROW_FIELD(type, name, def) type name = def;
#define GPUWHY_COL_FIELD(type, name, def) std::vector<type> name;
#define GPUWHY_COL_PUSH(type, name, def) name.push_back(r.name);
#define GPUWHY_COL_GET(type, name, def) r.name = name[i];
#define GPUWHY_COL_RESERVE(type, name, def) name.reserve(n);
#define GPUWHY_COL_BYTES(type, name, def) b += name.size() * sizeof(type);
#define GPUWHY_COL_PERMUTE(type, name, def) ::gpuwhy::model::ApplyPermutation(name, order, scratch);
#define GPUWHY_COL_SHRINK(type, name, def) name.shrink_to_fit();
#define GPUWHY_COL_RELEASE_SPARE(type, name, def) ::gpuwhy::model::ReleaseSpareCapacity(name);
#define GPUWHY_COL_CLEAR(type, name, def) name.clear();
#define GPUWHY_COL_CAPACITY(type, name, def) c = name.capacity() < c ? name.capacity() : c;
// Columns declared with the type token StringId hold pool ids: AppendFrom
// maps them through `remap`; every other column is copied as it is.
#define GPUWHY_COL_APPEND(type, name, def)                                            \
  ::gpuwhy::model::AppendColumn(name, o.name,                                         \
                                ::gpuwhy::model::IsStringIdToken(#type) ? remap : nullptr);
#define GPUWHY_COL_DIFF(type, name, def) \
  if (!::gpuwhy::model::SameBits(name, o.name)) return #name;

namespace gpuwhy::model {

// ApplyPermutation: column[i] = old column[order[i]].
template <typename T>
void ApplyPermutation(std::vector<T>& col, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(col.size());
  for (uint32_t j : order) out.push_back(col[j]);
  col.swap(out);
}

// ApplyPermutation: the same, gathered into `scratch` (grown to the column's
// bytes; reused across a table's columns) and copied back, so the column
// keeps its memory. Why: a new vector per column grew the heap by 150 MB
// while a 21 M-event trace's ranges were sorted (the import's peak), and the
// gather waits on memory, so it prefetches a few rows ahead.
template <typename T>
void ApplyPermutation(std::vector<T>& col, const std::vector<uint32_t>& order,
                      std::vector<std::byte>& scratch) {
  if constexpr (std::is_same_v<T, bool>) {
    ApplyPermutation(col, order);  // packed bits: no data()
  } else {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(std::max_align_t));
    const size_t n = order.size();
    if (n == 0) return;  // an empty column's data() may be null, which memcpy may not take
    if (scratch.size() < n * sizeof(T)) scratch.resize(n * sizeof(T));
    T* out = reinterpret_cast<T*>(scratch.data());
    const T* in = col.data();
    const uint32_t* o = order.data();
    constexpr size_t kAhead = 16;
    const size_t head = n > kAhead ? n - kAhead : 0;
    for (size_t i = 0; i < head; ++i) {
      __builtin_prefetch(in + o[i + kAhead]);
      out[i] = in[o[i]];
    }
    for (size_t i = head; i < n; ++i) out[i] = in[o[i]];
    std::memcpy(col.data(), out, n * sizeof(T));
  }
}

// ReleaseSpareCapacity: the whole pages of `col`'s capacity past its size go
// back to the system (base/memory_tuning.h); size and capacity are unchanged.
template <typename T>
void ReleaseSpareCapacity(std::vector<T>& col) {
  if constexpr (!std::is_same_v<T, bool>) {  // packed bits: no data()
    if (col.capacity() > col.size())
      ReleaseUnusedPages(col.data() + col.size(), (col.capacity() - col.size()) * sizeof(T));
  }
}

// IsStringIdToken: true for the column type token "StringId" (see
// GPUWHY_COL_APPEND); a constant expression.
constexpr bool IsStringIdToken(const char* t) {
  const char* k = "StringId";
  for (; *t != 0 && *t == *k; ++t, ++k) {
  }
  return *t == 0 && *k == 0;
}

// AppendColumn: dst += src; with `remap`, each value v becomes remap[v]
// (string ids of another pool, translated into this one).
template <typename T>
void AppendColumn(std::vector<T>& dst, const std::vector<T>& src, const uint32_t* remap) {
  if constexpr (std::is_same_v<T, uint32_t>) {
    if (remap != nullptr) {
      const size_t n = dst.size();
      dst.resize(n + src.size());
      for (size_t i = 0; i < src.size(); ++i) dst[n + i] = remap[src[i]];
      return;
    }
  }
  dst.insert(dst.end(), src.begin(), src.end());
}

// SameBits: equal sizes and byte-identical elements (NaN payloads included,
// which operator== would call unequal).
template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a == b;  // packed bits: no data()
  } else {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
  }
}

}  // namespace gpuwhy::model

#define GPUWHY_DEFINE_TABLE(Table, Row, COLS)                             \
  struct Row {                                                            \
    COLS(GPUWHY_ROW_FIELD)                                                \
  };                                                                      \
  class Table {                                                           \
   public:                                                                \
    COLS(GPUWHY_COL_FIELD)                                                \
    /* size: number of rows. */                                           \
    size_t size() const { return size_; }                                 \
    bool empty() const { return size_ == 0; }                             \
    /* Append: add one row; returns its index. */                         \
    [[gnu::flatten]] uint32_t Append(const Row& r) {                      \
      COLS(GPUWHY_COL_PUSH)                                               \
      return static_cast<uint32_t>(size_++);                              \
    }                                                                     \
    /* Get: a copy of row i (for tests and cold paths). */                \
    Row Get(size_t i) const {                                             \
      Row r;                                                              \
      COLS(GPUWHY_COL_GET)                                                \
      return r;                                                           \
    }                                                                     \
    void Reserve(size_t n) { COLS(GPUWHY_COL_RESERVE) }                   \
    /* capacity: rows every column holds without reallocating. */        \
    size_t capacity() const {                                             \
      size_t c = SIZE_MAX;                                                \
      COLS(GPUWHY_COL_CAPACITY)                                           \
      return c;                                                           \
    }                                                                     \
    /* AppendFrom: append every row of o; its StringId columns index     \
       another pool and are translated through remap (indexed by o's     \
       ids, covering all of them). */                                    \
    void AppendFrom(const Table& o, const uint32_t* remap) {              \
      COLS(GPUWHY_COL_APPEND)                                             \
      size_ += o.size_;                                                   \
    }                                                                     \
    /* Clear: no rows; capacity is kept for reuse. */                     \
    void Clear() {                                                        \
      COLS(GPUWHY_COL_CLEAR)                                              \
      size_ = 0;                                                          \
    }                                                                     \
    /* Permute: reorder rows so new row i is old row order[i]. */         \
    void Permute(const std::vector<uint32_t>& order) {                    \
      std::vector<std::byte> scratch;                                     \
      COLS(GPUWHY_COL_PERMUTE)                                            \
    }                                                                     \
    void ShrinkToFit() { COLS(GPUWHY_COL_SHRINK) }                        \
    /* ReleaseSpareCapacity: the columns' unused capacity goes back to    \
       the system, without copying (ReleaseSpareCapacity above). */       \
    void ReleaseSpareCapacity() { COLS(GPUWHY_COL_RELEASE_SPARE) }        \
    /* FirstDifferentColumn: name of the first column that differs from   \
       o's in size or bits, or nullptr when the tables are identical. */  \
    const char* FirstDifferentColumn(const Table& o) const {              \
      COLS(GPUWHY_COL_DIFF)                                               \
      return nullptr;                                                     \
    }                                                                     \
    /* memory_bytes: bytes of the columns' rows (spare capacity, which    \
       importers give back with ReleaseSpareCapacity, is not counted). */ \
    size_t memory_bytes() const {                                         \
      size_t b = 0;                                                       \
      COLS(GPUWHY_COL_BYTES)                                              \
      return b;                                                           \
    }                                                                     \
                                                                          \
   private:                                                               \
    size_t size_ = 0;                                                     \
  };
