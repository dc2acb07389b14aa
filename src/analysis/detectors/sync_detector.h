// Sync detector: host-blocking synchronization (cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize, blocking cudaMemcpy, and the
// `loss.item()` / `.cpu()` pattern: a small DtoH cudaMemcpyAsync followed by a
// stream sync on the same thread), matched by cbid and by name.
//
// Contract: DetectSyncs() returns at most one finding per device, "sync.host_sync",
// when blocking calls exist inside the steps. Its time lost is the GPU idle
// that began while such a call blocked the host (the queue drained, then the
// host had to relaunch) — an upper bound on what removing the syncs saves.
#pragma once

#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// DetectSyncs: see the file comment.
std::vector<Finding> DetectSyncs(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
