// Column-table machinery shared by every event table in the model.
//
// Contract: GPUWHY_DEFINE_TABLE(Table, Row, COLUMNS) declares a plain Row struct
// (one field per column, each defaulting to its "missing" value) and a Table
// that stores each column in its own std::vector, or, for a column declared
// with the type token Lazy<T>, in a LazyColumn<T> (below): no memory until a
// row holds something other than the missing value. Columns are public so hot
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

#define GPUWHY_ROW_FIELD(type, name, def) ::gpuwhy::model::ColumnTraits<type>::Value name = def;
#define GPUWHY_COL_FIELD(type, name, def) \
  ::gpuwhy::model::ColumnTraits<type>::Store name = ::gpuwhy::model::ColumnTraits<type>::Make(def);
#define GPUWHY_COL_PUSH(type, name, def) name.push_back(r.name);
#define GPUWHY_COL_GET(type, name, def) r.name = name[i];
#define GPUWHY_COL_RESERVE(type, name, def) name.reserve(n);
#define GPUWHY_COL_BYTES(type, name, def) b += ::gpuwhy::model::ColumnBytes(name);
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

// SameValueBits: a and b are the same bytes (NaN payloads included).
template <typename T>
bool SameValueBits(const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// LazyColumn: a column whose rows almost always hold one value, `missing`
// (a kernel's CUDA graph id, a CPU op's recorded shapes, a range's GPU
// stream). It holds no memory while every row is `missing`; the first other
// value stores the column in full from then on (materialized()). Reads cost
// one predictable branch.
// Why: such columns were a third of a Kineto trace's range rows (32 of 77
// bytes) and a sixth of its kernel rows, written, permuted and kept for
// every event (docs/performance.md, "Model bytes per event").
template <typename T>
class LazyColumn {
 public:
  using value_type = T;
  explicit LazyColumn(T missing) : missing_(missing) {}

  // size, empty: the rows, stored or not.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // materialized: rows are stored (some row held a value other than missing()).
  bool materialized() const { return !values_.empty(); }
  T missing() const { return missing_; }
  // all_missing: every row holds missing() (an unstored column always does).
  bool all_missing() const {
    for (const T& v : values_)
      if (!SameValueBits(v, missing_)) return false;
    return true;
  }
  // operator[]: row i's value (i < size()).
  T operator[](size_t i) const { return values_.empty() ? missing_ : values_[i]; }
  // Set: row i's value becomes v (i < size()).
  void Set(size_t i, T v) {
    if (values_.empty()) {
      if (SameValueBits(v, missing_)) return;
      Materialize();
    }
    values_[i] = v;
  }
  // push_back: one more row holding v.
  void push_back(T v) {
    if (values_.empty()) {
      if (SameValueBits(v, missing_)) {
        ++size_;
        return;
      }
      Materialize();
    }
    values_.push_back(v);
    ++size_;
  }
  // reserve: room for n rows once materialized (no memory before that).
  void reserve(size_t n) {
    if (values_.empty())
      reserve_ = n > reserve_ ? n : reserve_;
    else
      values_.reserve(n);
  }
  // capacity: rows held without reallocating; unbounded before materializing.
  size_t capacity() const { return values_.empty() ? SIZE_MAX : values_.capacity(); }
  // clear: no rows, nothing stored (capacity kept); shrink_to_fit: no spare
  // capacity.
  void clear() {
    values_.clear();
    size_ = 0;
  }
  void shrink_to_fit() { values_.shrink_to_fit(); }
  // values: the stored rows (empty unless materialized()).
  std::vector<T>& values() { return values_; }
  const std::vector<T>& values() const { return values_; }
  // AppendMissing: n more rows of `missing`.
  void AppendMissing(size_t n) {
    if (!values_.empty()) values_.resize(values_.size() + n, missing_);
    size_ += n;
  }
  // AddStoredRows: the caller appended n rows to values() itself.
  void AddStoredRows(size_t n) { size_ += n; }
  // Materialize: store every row from now on (the rows so far are missing).
  void Materialize() {
    if (!values_.empty()) return;
    values_.reserve(reserve_ > size_ + 1 ? reserve_ : size_ + 1);
    values_.assign(size_, missing_);
  }

 private:
  std::vector<T> values_;  // empty, or one per row
  size_t size_ = 0;
  size_t reserve_ = 0;  // reserve() before materializing
  T missing_;
};

// Lazy<T>: the type token of a LazyColumn<T> in a COLUMNS list.
template <typename T>
struct Lazy;

// ColumnTraits: a column type token's row value type and column store.
template <typename Token>
struct ColumnTraits {
  using Value = Token;
  using Store = std::vector<Token>;
  static Store Make(Token) { return {}; }
};
template <typename T>
struct ColumnTraits<Lazy<T>> {
  using Value = T;
  using Store = LazyColumn<T>;
  static Store Make(T missing) { return Store(missing); }
};

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

// The same operations on a lazy column: only stored rows move or count.
template <typename T>
void ApplyPermutation(LazyColumn<T>& col, const std::vector<uint32_t>& order,
                      std::vector<std::byte>& scratch) {
  if (col.materialized()) ApplyPermutation(col.values(), order, scratch);
}
template <typename T>
void ReleaseSpareCapacity(LazyColumn<T>& col) {
  if (col.materialized()) ReleaseSpareCapacity(col.values());
}

// ColumnBytes: bytes of a column's stored rows.
template <typename T>
size_t ColumnBytes(const std::vector<T>& col) {
  return col.size() * sizeof(T);
}
template <typename T>
size_t ColumnBytes(const LazyColumn<T>& col) {
  return col.values().size() * sizeof(T);
}

// IsStringIdToken: true for the column type tokens "StringId" and
// "Lazy<StringId>" (see GPUWHY_COL_APPEND); a constant expression.
constexpr bool IsStringIdToken(const char* t) {
  auto equals = [](const char* a, const char* b) {
    for (; *a != 0 && *a == *b; ++a, ++b) {
    }
    return *a == 0 && *b == 0;
  };
  return equals(t, "StringId") || equals(t, "Lazy<StringId>");
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

// AppendColumn: the same for a lazy column; rows stay unstored while both
// sides are all missing. `remap` must keep kEmptyString (every pool's id 0).
template <typename T>
void AppendColumn(LazyColumn<T>& dst, const LazyColumn<T>& src, const uint32_t* remap) {
  if (!src.materialized()) {
    dst.AppendMissing(src.size());
    return;
  }
  dst.Materialize();
  AppendColumn(dst.values(), src.values(), remap);
  dst.AddStoredRows(src.size());
}

// SameBits for lazy columns: the same rows, stored or not.
template <typename T>
bool SameBits(const LazyColumn<T>& a, const LazyColumn<T>& b) {
  if (a.size() != b.size()) return false;
  if (a.materialized() && b.materialized()) return SameBits(a.values(), b.values());
  for (size_t i = 0; i < a.size(); ++i)
    if (!SameValueBits(a[i], b[i])) return false;
  return true;
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
