#include "base/memory_tuning.h"

#include <unistd.h>

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstring>

namespace gpuwhy {
namespace {

constexpr const char* kMarker = "GPUWHY_MEMORY_TUNED";
// top_pad/trim_threshold: grow in 64 MiB steps, never give memory back
// mid-run; mmap_threshold 16 MiB: columns and analysis arrays up to that come
// from the heap, larger ones are mapped and returned when freed; arena_max=1:
// the analysis and parser worker threads allocate from the same heap, so what
// one section freed serves the next. On the 100x bench trace the last two
// took peak RSS from 1.51-1.55 to 1.42-1.43 million KiB at the same speed.
// Transparent huge pages on the heap (glibc.malloc.hugetlb=1) were dropped
// once the Kineto parse ran on two threads: without them the 10x run peaks
// ~25 MB lower at the same wall time, and the 100x run is as large and ~5 %
// faster (docs/performance.md).
constexpr const char* kTunables =
    "glibc.malloc.mmap_threshold=16777216:glibc.malloc.arena_max=1:"
    "glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=67108864";

bool Sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace

void TuneMemoryForBatch(char** argv) {
#if defined(__GLIBC__)
  if (const char* m = std::getenv(kMarker)) {
    // The re-executed process: the tunables were read at startup; hide them
    // from anything this process might start.
    if (std::strcmp(m, "1") == 0) unsetenv("GLIBC_TUNABLES");
    unsetenv(kMarker);
    return;
  }
  if (Sanitized() || argv == nullptr || argv[0] == nullptr) return;
  if (const char* off = std::getenv("GPUWHY_MEMORY_TUNING"); off && std::strcmp(off, "0") == 0)
    return;
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;  // the user's choice wins
  if (setenv("GLIBC_TUNABLES", kTunables, 1) != 0) return;
  if (setenv(kMarker, "1", 1) != 0) {
    unsetenv("GLIBC_TUNABLES");
    return;
  }
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, seccomp, ...): run with the default settings.
  unsetenv("GLIBC_TUNABLES");
  unsetenv(kMarker);
#else
  (void)argv;
#endif
}

void ReleaseFreeHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace gpuwhy
