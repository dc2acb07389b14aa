// Thread priority: let a pipeline's feeding stage run first on a busy machine.
//
// Contract: best effort. On Linux a thread has its own nice value, and raising
// it needs no privilege; elsewhere, or when the call fails, nothing changes.
// Never throws.
#pragma once

namespace gpuwhy {

// LowerCurrentThreadPriority: add `steps` (> 0) to the calling thread's nice
// value, up to the maximum (19). Threads it starts later inherit the new value.
void LowerCurrentThreadPriority(int steps);

}  // namespace gpuwhy
