// Finding: one root cause a detector found, with its evidence, its cost and
// what to do about it. Detectors return findings; the diagnosis ranks them and
// the renderers print them.
//
// Contract: plain data, no pointers into a model::Trace (strings are copied).
// Times are int64 ns, ratios 0..1 (`_ratio`). `lost_per_step_ns` is an UPPER
// BOUND on what the fix could save per step (the GPU time the cause is
// responsible for); it is kMissingI64 when the detector cannot estimate it.
// When the trace has no step markers the "step" is the whole profiled span and
// `per_step_basis` says so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"

namespace gpuwhy::analysis::detectors {

// Category: the bottleneck family a finding belongs to. Values are stable (JSON).
enum class Category : uint8_t {
  kSync = 0,              // host-blocking synchronization
  kDataLoading = 1,       // input pipeline and host-to-device copies
  kLaunchBound = 2,       // fragmentation, launch overhead, queue-empty gaps
  kKernelEfficiency = 3,  // tensor cores, memory-bound kernels, throttling
  kRecompilation = 4,     // JIT / torch.compile recompiles, new kernels after warm-up
  kContention = 5,        // other processes on the GPU
  kCommunication = 6,     // collectives and their overlap
  kImbalance = 7,         // stragglers and load imbalance across ranks
  kIdle = 8,              // GPU idle for no cause the detectors could name
  kHostBound = 9,         // host CPU work (preprocessing, Python) that launches nothing
};
std::string_view ToString(Category c);

// Severity: how much the finding matters (ordered).
enum class Severity : uint8_t { kInfo = 0, kLow = 1, kMedium = 2, kHigh = 3, kCritical = 4 };
std::string_view ToString(Severity s);

// FixKind: the kind of remedy, used to order fixes by scenario (dev/prod/...).
enum class FixKind : uint8_t {
  kFewerSyncs = 0,       // log every N steps, keep scalars on the GPU
  kAsyncCopies = 1,      // non_blocking, events instead of host syncs
  kDataLoaderWorkers = 2,
  kPinMemory = 3,
  kPrefetch = 4,         // side-stream prefetch of the next batch
  kBiggerBatch = 5,
  kFusion = 6,           // torch.compile / fused kernels
  kCudaGraphs = 7,
  kMixedPrecision = 8,   // AMP / bf16 / TF32
  kKernelTuning = 9,     // profile kernels (ncu), better algorithms
  kStaticShapes = 10,    // avoid recompiles
  kIsolation = 11,       // dedicated GPU, MIG, memory quotas
  kCommOverlap = 12,     // bucket sizes, overlap, fewer collectives
  kLoadBalance = 13,
  kHostSpeed = 14,       // faster host code, fewer Python ops
  kCooling = 15,         // power / clock limits
  kSteadyState = 16,     // profile steady-state steps; keep one-off phases out of the window
};
std::string_view ToString(FixKind k);

// Metric: one number of evidence. `unit` is one of "ns", "ratio", "count",
// "bytes", "GB/s", "per_s", "MHz", "mW" so renderers can format it.
struct Metric {
  std::string name;   // stable snake_case key, e.g. "dataloader_step_ratio"
  double value = kMissingF64;
  std::string unit;
  std::string label;  // short human label, e.g. "DataLoader share of step"
};

// Example: one of the worst occurrences, for the reader to find in the trace.
struct Example {
  std::string what;                  // e.g. API or kernel name
  int64_t start_ns = kMissingI64;    // on the trace clock
  int64_t dur_ns = kMissingI64;
  int32_t step = kMissingI32;        // step number when known
  int32_t device_id = kMissingI32;
  int32_t rank = kMissingI32;
  std::string detail;                // e.g. "GPU idle 2.1 ms after it"
};

// Recommendation: one specific fix.
struct Recommendation {
  FixKind kind = FixKind::kKernelTuning;
  std::string text;
};

// Finding: see the file comment.
struct Finding {
  std::string id;          // stable, e.g. "sync.host_sync", "data_loading.dataloader"
  Category category = Category::kIdle;
  Severity severity = Severity::kInfo;
  std::string title;       // one line, no numbers needed
  std::string summary;     // one sentence with the key numbers
  int32_t device_id = kMissingI32;  // kMissingI32 when trace- or job-wide
  int32_t rank = kMissingI32;
  std::vector<Metric> evidence;
  std::vector<Example> examples;   // worst first, at most a handful
  int64_t lost_per_step_ns = kMissingI64;  // upper bound, see file comment
  double lost_step_ratio = kMissingF64;    // lost_per_step_ns / mean step time
  // lost_is_upper_bound: false when the time lost is an estimate of what the
  // fix saves (e.g. a 2x speed-up of fp32 GEMMs), not the GPU time the cause held.
  bool lost_is_upper_bound = true;
  bool per_step_basis = true;  // false: "step" is the whole span (no step markers)
  // predicted_step_ns: the mean step (span) time expected once this one cause
  // is fixed, and the assumption behind it in one line (prediction.h); a
  // model, unlike lost_per_step_ns. kMissingI64 when not predicted.
  int64_t predicted_step_ns = kMissingI64;
  std::string prediction_assumption;
  int32_t step_count = kMissingI32;
  std::vector<Recommendation> recommendations;  // most specific first
  std::vector<std::string> caveats;
  std::vector<std::string> notes;  // e.g. "CUDA graphs already in use"
};

// SeverityFromLoss: kCritical at >= 20% of the step, kHigh >= 10%, kMedium >= 5%,
// kLow >= 1%, else kInfo (TF input-pipeline analyzer and TraceML bands). NaN: kLow.
Severity SeverityFromLoss(double lost_step_ratio);

// AddMetric: append a Metric to `f.evidence`.
void AddMetric(Finding& f, std::string name, double value, std::string unit, std::string label);

// MetricOf: the value of `f`'s evidence metric `name`; NaN when it has none.
double MetricOf(const Finding& f, std::string_view name);

}  // namespace gpuwhy::analysis::detectors
