#include "base/thread_priority.h"

#include <algorithm>
#include <cerrno>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace gpuwhy {

void LowerCurrentThreadPriority(int steps) {
#if defined(__linux__)
  if (steps <= 0) return;
  const auto tid = static_cast<id_t>(gettid());
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (now == -1 && errno != 0) return;
  (void)setpriority(PRIO_PROCESS, tid, std::min(19, now + steps));
#else
  (void)steps;
#endif
}

}  // namespace gpuwhy
