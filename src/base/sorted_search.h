// Searches over sorted ranges that callers query in (mostly) rising order.
// RunIndex allocates its run table once.
//
// Contract: header-only; `less(element, value)` is the
// strict order the range is sorted by, as for std::lower_bound.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace gpuwhy {

// LowerBoundNear: std::lower_bound(first, last, value, less), searched
// outward from `hint` (any iterator in [first, last], typically the previous
// answer) with doubling steps: O(log d) for an answer d places from the hint,
// so a run of queries that mostly rise costs O(1) each where a plain binary
// search costs O(log n) each.
template <typename It, typename T, typename Less>
It LowerBoundNear(It first, It last, const T& value, It hint, Less less) {
  using Diff = typename std::iterator_traits<It>::difference_type;
  if (hint < first) hint = first;
  if (hint > last) hint = last;
  It lo = first, hi = last;  // the answer is in [lo, hi]
  if (hint != last && less(*hint, value)) {
    lo = hint + 1;  // after hint: double the step until an element >= value
    Diff step = 1;
    while (step <= last - lo && less(*(lo + (step - 1)), value)) {
      lo += step;
      step *= 2;
    }
    hi = step <= last - lo ? lo + (step - 1) : last;
  } else {
    hi = hint;  // at or before hint: double the step back until an element < value
    Diff step = 1;
    while (step <= hi - first && !less(*(hi - step), value)) {
      hi -= step;
      step *= 2;
    }
    lo = step <= hi - first ? hi - (step - 1) : first;
  }
  return std::lower_bound(lo, hi, value, less);
}

// RunIndex: lookups by key in a vector filled run after run (one run per
// source table), where each run is usually sorted by the key already (a
// Finalize()d table in start order has its correlation ids rising). Sorted
// runs are searched as they are, each from where its last search ended
// (LowerBoundNear), so keys queried in rising order cost O(1) each; when any
// run is not sorted, the whole vector is sorted by `full_less` once and is one
// run. Entries of a key are visited run by run in insertion order, and in
// vector order within a run: with `full_less` ordering equal keys by
// insertion, that is insertion order either way.
template <typename T, typename KeyOf>
class RunIndex {
 public:
  // `v` holds the runs back to back, run r from run_begin[r] to the next
  // begin (or v's end). It may be sorted here and must outlive the index.
  template <typename FullLess>
  RunIndex(std::vector<T>& v, const std::vector<size_t>& run_begin, KeyOf key_of, FullLess full_less)
      : v_(v), key_of_(key_of) {
    for (size_t r = 0; r < run_begin.size(); ++r)
      runs_.push_back({run_begin[r], r + 1 < run_begin.size() ? run_begin[r + 1] : v.size()});
    const auto by_key = [this](const T& a, const T& b) { return key_of_(a) < key_of_(b); };
    for (const auto& [b, e] : runs_) {
      if (!std::is_sorted(v.begin() + static_cast<std::ptrdiff_t>(b),
                          v.begin() + static_cast<std::ptrdiff_t>(e), by_key)) {
        std::sort(v.begin(), v.end(), full_less);
        runs_.assign(1, {0, v.size()});
        break;
      }
    }
    for (const auto& run : runs_) hint_.push_back(run.first);
  }

  // ForEach: fn(entry) for each entry whose key is `key`, in the order above,
  // until fn returns false.
  template <typename Key, typename Fn>
  void ForEach(const Key& key, Fn fn) {
    const auto less = [this](const T& e, const Key& k) { return key_of_(e) < k; };
    for (size_t r = 0; r < runs_.size(); ++r) {
      const auto first = v_.begin() + static_cast<std::ptrdiff_t>(runs_[r].first);
      const auto last = v_.begin() + static_cast<std::ptrdiff_t>(runs_[r].second);
      auto it = LowerBoundNear(first, last, key, v_.begin() + static_cast<std::ptrdiff_t>(hint_[r]), less);
      hint_[r] = static_cast<size_t>(it - v_.begin());
      for (; it != last && !(key < key_of_(*it)); ++it)
        if (!fn(*it)) return;
    }
  }

 private:
  const std::vector<T>& v_;
  KeyOf key_of_;
  std::vector<std::pair<size_t, size_t>> runs_;  // [begin, end) of v_
  std::vector<size_t> hint_;                     // per run: where its last search ended
};

}  // namespace gpuwhy
