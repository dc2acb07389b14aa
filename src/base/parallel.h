// Two-thread index loops for the analysis's independent pieces of work.
//
// Contract: ForEachIndexOnTwoThreads(n, fn) calls fn(i) exactly once for
// every i in [0, n), on the calling thread and one helper thread that take
// the next index in turn, and returns when every call has returned. The
// calls may run in any order and at the same time, so fn must only write
// what index i owns. An exception from either thread reaches the caller
// after both have stopped.
#pragma once

#include <atomic>
#include <cstddef>
#include <future>

namespace gpuwhy {

// ForEachIndexOnTwoThreads: see the file comment. Why two threads and an
// atomic counter, not a pool: the project's machines have two cores, and the
// pieces (detectors, launching threads) differ in cost by 100x, so each
// thread takes the next piece when it is free.
template <typename Fn>
void ForEachIndexOnTwoThreads(size_t n, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::future<void> helper = std::async(std::launch::async, work);
  try {
    work();
  } catch (...) {
    next.store(n);  // the helper takes nothing more
    helper.wait();
    throw;
  }
  helper.get();
}

}  // namespace gpuwhy
