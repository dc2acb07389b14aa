#include "analysis/detectors/detector_registry.h"

#include <array>

#include "analysis/detectors/contention_detector.h"
#include "analysis/detectors/counter_detector.h"
#include "analysis/detectors/data_loading_detector.h"
#include "analysis/detectors/fragmentation_detector.h"
#include "analysis/detectors/host_detector.h"
#include "analysis/detectors/kernel_efficiency_detector.h"
#include "analysis/detectors/measured_kernel_detector.h"
#include "analysis/detectors/multi_gpu_detector.h"
#include "analysis/detectors/sync_detector.h"
#include "analysis/detectors/uvm_detector.h"

namespace gpuwhy::analysis::detectors {

namespace {

constexpr std::array<DetectorEntry, 12> kDetectors = {{
    {"sync", "host-blocking syncs and the GPU idle after them", &DetectSyncs},
    {"data_loading", "DataLoader stalls and host-to-device copies", &DetectDataLoading},
    {"uvm", "Unified Memory page migrations beside and between kernels", &DetectUvmMigrations},
    {"launch_bound", "tiny kernels, launch overhead, queue-empty gaps", &DetectFragmentation},
    {"host_bound", "GPU idle while the host runs work that launches nothing", &DetectHostBusy},
    {"one_off_gap", "one or two gaps holding most of the idle, not per step", &DetectOneOffGaps},
    {"kernel_efficiency", "tensor cores, memory-bound kernels, throttling", &DetectKernelEfficiency},
    {"measured_kernels", "kernels at the DRAM roof, latency-bound, low occupancy (measured, ncu)",
     &DetectMeasuredKernels},
    {"recompilation", "new kernels / module loads / recompiles after warm-up", &DetectRecompilation},
    {"contention", "other processes on the GPU", &DetectContention},
    {"communication", "collective time and its overlap with compute", &DetectCommunication},
    {"counters", "idle, SM activity, power, throttling from sampled counters (no timeline)",
     &DetectFromCounters},
}};

}  // namespace

std::span<const DetectorEntry> DetectorRegistry() { return kDetectors; }

}  // namespace gpuwhy::analysis::detectors
