// Exact order statistics of a stream that can be read twice, without a copy
// of the stream: a histogram of log-linear buckets locates the value, and a
// second read (only when that bucket holds distinct values) keeps just the
// values of its bucket. Used for the median and percentiles of millions of
// kernel durations (on the 100x bench trace, a copy and a copy of the copy
// for nth_element were 31 MB and most of the launch_bound detector's time).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuwhy {

// Int64Histogram: counts, minimum and maximum per bucket of int64 values.
// Bucket 0 holds every negative value; a value v >= 0 goes to 1 + 64 * w +
// (the 6 bits after v's leading bit), w = bit_width(v): buckets are ordered
// as their values are, and each spans at most 1/64 of its values' magnitude
// (a single value below 128).
class Int64Histogram {
 public:
  static constexpr size_t kBuckets = 1 + 65 * 64;

  // BucketOf: the bucket of v (monotone non-decreasing in v).
  static size_t BucketOf(int64_t v) {
    if (v < 0) return 0;
    const uint64_t u = static_cast<uint64_t>(v);
    const int w = std::bit_width(u);
    const uint64_t mantissa = w > 7 ? (u >> (w - 7)) & 63 : u & 63;
    return 1 + 64 * static_cast<size_t>(w) + static_cast<size_t>(mantissa);
  }

  // Add: counts v.
  void Add(int64_t v) {
    Bucket& b = buckets_[BucketOf(v)];
    if (b.count == 0 || v < b.min) b.min = v;
    if (b.count == 0 || v > b.max) b.max = v;
    ++b.count;
    ++count_;
  }

  // count: values added.
  uint64_t count() const { return count_; }

  // Locate: for 0 <= k < count(), the bucket holding the k-th smallest value
  // and that value's rank within the bucket.
  struct Location {
    size_t bucket = 0;
    uint64_t rank_in_bucket = 0;
    uint64_t count = 0;  // values in the bucket
    int64_t min = 0;     // the bucket's least and greatest values
    int64_t max = 0;
    // Known: the value is the bucket's min or max (one distinct value, or
    // the first or last rank in it), so the values need not be read again.
    bool Known() const { return min == max || rank_in_bucket == 0 || rank_in_bucket + 1 == count; }
    int64_t KnownValue() const { return rank_in_bucket == 0 ? min : max; }
  };
  Location Locate(uint64_t k) const {
    uint64_t before = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      const Bucket& b = buckets_[i];
      if (k < before + b.count) return {i, k - before, b.count, b.min, b.max};
      before += b.count;
    }
    return {};
  }

 private:
  struct Bucket {
    uint64_t count = 0;
    int64_t min = 0;
    int64_t max = 0;
  };
  std::vector<Bucket> buckets_ = std::vector<Bucket>(kBuckets);  // 100 kB: on the heap
  uint64_t count_ = 0;
};

// SelectNths: SelectNth() for each rank of `ranks` (each < histogram.count()),
// with at most one more call of `for_each`, whatever the number of ranks.
template <class ForEach>
std::vector<int64_t> SelectNths(const Int64Histogram& histogram, const std::vector<uint64_t>& ranks,
                                ForEach&& for_each) {
  std::vector<int64_t> out(ranks.size());
  std::vector<Int64Histogram::Location> at(ranks.size());
  std::vector<size_t> buckets;  // the buckets of the answers not Known(), sorted
  for (size_t i = 0; i < ranks.size(); ++i) {
    at[i] = histogram.Locate(ranks[i]);
    if (at[i].Known())
      out[i] = at[i].KnownValue();
    else
      buckets.push_back(at[i].bucket);
  }
  if (buckets.empty()) return out;
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  std::vector<std::vector<int64_t>> in_bucket(buckets.size());
  for_each([&](int64_t v) {
    const size_t b = Int64Histogram::BucketOf(v);
    if (b < buckets.front() || b > buckets.back()) return;
    const auto it = std::lower_bound(buckets.begin(), buckets.end(), b);
    if (*it == b) in_bucket[static_cast<size_t>(it - buckets.begin())].push_back(v);
  });
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (at[i].Known()) continue;
    std::vector<int64_t>& v = in_bucket[static_cast<size_t>(
        std::lower_bound(buckets.begin(), buckets.end(), at[i].bucket) - buckets.begin())];
    const auto nth = v.begin() + static_cast<std::ptrdiff_t>(at[i].rank_in_bucket);
    std::nth_element(v.begin(), nth, v.end());
    out[i] = *nth;
  }
  return out;
}

// SelectNth: the k-th smallest (0-based) of the values `histogram` counted,
// the value nth_element would put at position k of a copy of them. Requires
// k < histogram.count(). `for_each(f)` must pass the same values to f again
// (in any order); it is called only when the histogram does not settle the
// answer (Location::Known). Memory: that bucket's values.
template <class ForEach>
int64_t SelectNth(const Int64Histogram& histogram, uint64_t k, ForEach&& for_each) {
  return SelectNths(histogram, std::vector<uint64_t>{k}, for_each).front();
}

}  // namespace gpuwhy
