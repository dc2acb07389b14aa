// Data-loading detector: the input pipeline and host-to-device copies.
//
// Contract: DetectDataLoading() returns per device
//   "data_loading.dataloader" when DataLoader ranges (`enumerate(DataLoader)#...
//     __next__`) take > 5% of the step (TB-plugin rule) or leave the GPU idle
//     > 1% of it; time lost = GPU idle overlapping those ranges;
//   "data_loading.h2d_copies" when host-to-device copies come from pageable
//     memory or run exposed (not overlapped by kernels) for > 1% of the step;
//     time lost = exposed HtoD copy time.
// Both are upper bounds on what the fix saves.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectDataLoading: see the file comment.
std::vector<Finding> DetectDataLoading(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
