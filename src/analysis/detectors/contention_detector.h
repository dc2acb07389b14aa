// Contention detector: other processes on the profiled GPU (model
// gpu_processes from nsys PROCESSES, recordings, nvidia-smi pmon), MPS, and
// device memory held by others.
//
// Contract: DetectContention() returns one "contention.other_processes" per
// device that other (non-profiled) processes used during the trace. A single
// process's trace cannot measure time-slicing, so time lost is missing. A log
// without events of its own (nvidia-smi, pmon) needs two processes on the GPU
// whose lifetimes overlap: processes that follow each other are phases of one
// job.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectContention: see the file comment.
std::vector<Finding> DetectContention(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
