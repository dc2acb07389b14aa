// Detector registry: the explicit list of per-trace detectors, in run order.
// Adding a detector: write <name>_detector.{h,cc} here, add one line to
// kDetectors in detector_registry.cc and the .cc to CMakeLists.txt.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

using DetectorFn = std::vector<Finding> (*)(const DetectorInput& in);

// DetectorEntry: one registered per-trace detector.
struct DetectorEntry {
  std::string_view id;           // e.g. "sync"
  std::string_view description;  // one line for docs and --help
  DetectorFn fn;
};

// DetectorRegistry: every per-trace detector, in a stable order. The
// cross-rank detector (DetectCrossRank) runs separately on a rank set.
std::span<const DetectorEntry> DetectorRegistry();

}  // namespace gpuwhy::analysis::detectors
