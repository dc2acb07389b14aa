// Unified Memory detector: managed-memory page migrations (nsys copyKind
// 11..13, CUPTI unified-memory transfers; model CopyKind::kUvm*) that stall
// kernels or fill the gaps between them.
//
// Contract: DetectUvmMigrations() returns per device with migrations inside
// its step windows "data_loading.uvm_migrations" when their union covers >= 1%
// of the steps. Time lost is that union (an upper bound: prefetching moves the
// bytes ahead of the kernels, advice keeps them in place, explicit device
// allocations remove the faults). Evidence: migrations, bytes and time by
// direction, the share overlapping kernels (kernels waiting on page faults)
// and in the gaps between them, and the migration causes. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

// UvmStats: Unified Memory migrations of one device inside its step windows.
struct UvmStats {
  int32_t device_id = kMissingI32;
  int64_t count = 0;
  int64_t bytes = 0;               // summed where known
  int64_t htod_count = 0, dtoh_count = 0, dtod_count = 0;
  int64_t htod_bytes = 0, dtoh_bytes = 0, dtod_bytes = 0;
  int64_t union_ns = 0;            // union of migration intervals
  int64_t beside_kernels_ns = 0;   // part of the union while a kernel runs
  int64_t in_gaps_ns = 0;          // part of the union with no kernel running
  std::array<int64_t, 6> by_cause{};  // count per model::MigrationCause
};

// ComputeUvmStats: the UvmStats of `device` (empty count when none).
UvmStats ComputeUvmStats(const model::Trace& trace, const DeviceTimeline& device);

// DetectUvmMigrations: see the file comment.
std::vector<Finding> DetectUvmMigrations(const DetectorInput& in);

}  // namespace gpuwhy::analysis::detectors
