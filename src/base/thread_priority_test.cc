#include "base/thread_priority.h"

#include <gtest/gtest.h>

#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace gpuwhy {
namespace {

#if defined(__linux__)
int ThreadNice() { return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())); }

// The calling thread's nice value rises by the steps asked for, capped at 19,
// and no other thread's changes (Linux threads have their own).
TEST(ThreadPriority, LowersOnlyTheCallingThread) {
  const int main_before = ThreadNice();
  int before = 0, after = 0, capped = 0;
  std::thread t([&] {
    before = ThreadNice();
    LowerCurrentThreadPriority(3);
    after = ThreadNice();
    LowerCurrentThreadPriority(100);
    capped = ThreadNice();
  });
  t.join();
  EXPECT_EQ(after, std::min(19, before + 3));
  EXPECT_EQ(capped, 19);
  EXPECT_EQ(ThreadNice(), main_before);
}
#endif

}  // namespace
}  // namespace gpuwhy
