// Fragmentation / launch-bound detector: many tiny kernels, launch API time
// comparable to kernel time, and queue-empty gaps (HTA host_wait/kernel_wait).
//
// Contract: DetectFragmentation() returns per device "launch_bound.fragmented"
// when the GPU waited on launches for > 1% of the step or half the kernels run
// under 10 µs. Time lost = GPU idle attributed to kHostLaunch + kKernelWait —
// an upper bound on what CUDA graphs / fusion / a larger batch could save.
// It notes when CUDA graphs (graph_id valid) or Triton kernels are already used.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectFragmentation: see the file comment.
std::vector<Finding> DetectFragmentation(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
