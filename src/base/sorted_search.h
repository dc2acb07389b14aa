// Searches over sorted ranges that callers query in (mostly) rising order.
//
// Contract: header-only, no allocation; `less(element, value)` is the
// strict order the range is sorted by, as for std::lower_bound.
#pragma once

#include <algorithm>
#include <iterator>

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

}  // namespace gpuwhy
