// Process memory settings for the batch commands (analyze, diff, summarize).
//
// Why: a batch run builds a column model of 100 MB+ by growing vectors, then
// frees it at exit. With glibc's defaults every growth step maps fresh 4 KiB
// pages and trims them again. On the 10x bench trace (2.16 M events) `analyze
// --json` takes 70-71k page faults by default and 52k with these settings.
// Since the Kineto parse runs on two threads they save little or no time
// (docs/performance.md).
#pragma once

namespace gpuwhy {

// TuneMemoryForBatch: when glibc is the allocator and GLIBC_TUNABLES is not
// already set by the user, re-executes /proc/self/exe once with the same argv
// and GLIBC_TUNABLES asking for one malloc arena, a 16 MiB mmap threshold,
// no heap trimming and a 64 MiB top pad. In the
// re-executed process it removes both variables again, so that nothing the
// command starts inherits them. Returns normally (settings unchanged) when
// GPUWHY_MEMORY_TUNING=0, under a sanitizer, or when exec fails. Call first
// thing in main, only for commands that start no child processes.
void TuneMemoryForBatch(char** argv);

// ReleaseFreeHeap: give the heap's free pages back to the system now
// (malloc_trim). The batch settings above never trim, so the column buffers
// an import outgrew stay resident; the analysis that follows allocates its
// large arrays with mmap and cannot reuse them. Calling this once between a
// big import and its analysis lowers the peak a little (docs/performance.md).
// A no-op where glibc is not the allocator.
void ReleaseFreeHeap();

}  // namespace gpuwhy
