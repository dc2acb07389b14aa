// Process memory settings for the batch commands (analyze, diff, summarize).
//
// Why: a batch run builds a column model of 100 MB+ by growing vectors, and
// its analysis allocates and frees arrays of tens of MB, then it frees it all
// at exit. With glibc's defaults every large block is a fresh mapping whose
// pages the kernel faults in and zeroes one 4 KiB page at a time, and frees
// again. On a VM where a fault costs microseconds that was a third of the CPU
// time of `analyze --json` on the 10x bench trace (docs/performance.md).
#pragma once

#include <cstddef>

namespace gpuwhy {

// TuneMemoryForBatch: when glibc is the allocator and GLIBC_TUNABLES is not
// already set by the user, re-executes /proc/self/exe once with the same argv
// and GLIBC_TUNABLES asking for one malloc arena, no mmap (every block from
// the heap), transparent huge pages for the heap, no heap trimming and a
// 64 MiB top pad. In the re-executed process it removes both variables
// again, so that nothing the command starts inherits them. Returns normally
// (settings unchanged) when GPUWHY_MEMORY_TUNING=0, under a sanitizer, or
// when exec fails. Call first thing in main, only for commands that start no
// child processes.
void TuneMemoryForBatch(char** argv);

// ReleaseUnusedPages: give the system back the whole pages inside
// [begin, begin + bytes), memory the caller owns but holds no data in (a
// vector's capacity past its size); they read as zero when next touched.
// Why: an importer's tables end with spare capacity from their growth, and
// copying them to exact size (shrink_to_fit) cost a 21 M-event import 0.25 s
// and 130 MB at its peak. A no-op where madvise is not available.
void ReleaseUnusedPages(void* begin, size_t bytes);

}  // namespace gpuwhy
