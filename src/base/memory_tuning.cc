#include "base/memory_tuning.h"

#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/sanitizer.h"

namespace gpuwhy {
namespace {

constexpr const char* kMarker = "GPUWHY_MEMORY_TUNED";
// top_pad/trim_threshold: grow in 64 MiB steps, never give memory back
// mid-run; mmap_max=0: every block, large ones too, comes from the heap. So
// what one stage frees the next reuses, already faulted in, instead of
// unmapping it and faulting in fresh zeroed pages; arena_max=1:
// the analysis and parser worker threads allocate from the same heap, so what
// one section freed serves the next; hugetlb=1: the heap is backed by
// transparent huge pages, one fault per 2 MiB instead of per 4 KiB.
// Why the last two: on this project's current 2-core machine (a VM where a
// page fault costs ~4 us) faults were a third of the CPU time of the 10x
// bench trace. Against a 16 MiB mmap threshold without huge pages they took
// `analyze --json` of it from 0.64-0.67 s to 0.31-0.35 s and of the 100x one
// from 7.7 s to 3.0-3.2 s, at 175-191 MiB and 1373-1414 MiB peak
// (docs/performance.md). A 16 MiB threshold with huge pages mapped and
// unmapped 2.3 GB over the 100x run and was slower (3.4-4.6 s).
constexpr const char* kTunables =
    "glibc.malloc.mmap_max=0:glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1:"
    "glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=67108864";

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
  if (kSanitized || argv == nullptr || argv[0] == nullptr) return;
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

void ReleaseUnusedPages(void* begin, size_t bytes) {
#if defined(__linux__)
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  if (page == 0 || bytes < page) return;
  const auto b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (b + page - 1) / page * page;  // whole pages only:
  const uintptr_t last = (b + bytes) / page * page;      // the edges may hold data
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace gpuwhy
