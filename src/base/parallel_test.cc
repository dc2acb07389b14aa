#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace gpuwhy {
namespace {

TEST(Parallel, EveryIndexExactlyOnce) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}}) {
    std::vector<std::atomic<int>> calls(n);
    ForEachIndexOnTwoThreads(n, [&](size_t i) { calls[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(calls[i].load(), 1) << "n " << n << " index " << i;
  }
}

TEST(Parallel, AnExceptionReachesTheCallerAfterBothThreadsStop) {
  std::atomic<int> running{0};
  std::atomic<int> calls{0};
  EXPECT_THROW(ForEachIndexOnTwoThreads(500,
                                        [&](size_t i) {
                                          running.fetch_add(1);
                                          calls.fetch_add(1);
                                          running.fetch_sub(1);
                                          if (i == 3) throw std::runtime_error("piece 3");
                                        }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 0);  // nothing runs after the call returned
  EXPECT_GE(calls.load(), 4);
}

}  // namespace
}  // namespace gpuwhy
