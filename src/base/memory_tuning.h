// Process memory settings for the batch commands (analyze, diff, summarize).
//
// Why: a batch run builds a column model of 100 MB+ by growing vectors, then
// frees it at exit. With glibc's defaults every growth step maps fresh 4 KiB
// pages and trims them again; on the virtual machines these tools run on each
// page fault is expensive. On the 10x bench trace (2.16 M events) `analyze
// --json` took 74k minor faults and 2.8 s of CPU by default, 0.6-1k faults and
// 1.5-1.7 s with huge pages and no trimming (see docs/performance.md).
#pragma once

namespace gpuwhy {

// TuneMemoryForBatch: when glibc is the allocator and GLIBC_TUNABLES is not
// already set by the user, re-executes /proc/self/exe once with the same argv
// and GLIBC_TUNABLES asking for transparent huge pages on the heap
// (glibc.malloc.hugetlb=1), no heap trimming and a 64 MiB top pad. In the
// re-executed process it removes both variables again, so that nothing the
// command starts inherits them. Returns normally (settings unchanged) when
// GPUWHY_MEMORY_TUNING=0, under a sanitizer, or when exec fails. Call first
// thing in main, only for commands that start no child processes.
void TuneMemoryForBatch(char** argv);

}  // namespace gpuwhy
