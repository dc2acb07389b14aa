// nsys_compat: pure reproductions of Nsight Systems 2024.2 `nsys stats`
// reports and `nsys analyze` rules, computed from the trace model, so gpuwhy's
// numbers can be checked against the tool engineers already trust.
//
// Contract: every function takes a finalized Trace and returns plain rows; no
// I/O. Row sets and numbers follow nsys 2024.2.3 (shared/reference/nsys.md):
// - stats reports: Time % is the share of the report's summed time; Med is the
//   median (mean of the two middle values); StdDev is the sample standard
//   deviation (0 for one value); rows sorted by total time, descending.
// - rules: sorted as nsys sorts them; callers cut to `rows` (nsys default 50).
// Where nsys refuses a file (missing greenContextId or ENUM tables), gpuwhy
// still computes the result from the model. nsys's Context ID columns are not
// reproduced (the model has no CUDA context).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::analysis::nsys_compat {

// DurationStats: the summary columns shared by the stats reports.
struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  double avg_ns = 0;
  double med_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double stddev_ns = 0;
};

// Summarize: stats of `durations` (any order; empty gives count 0).
DurationStats Summarize(std::vector<int64_t> durations);

// StatRow: one row of cuda_gpu_kern_sum / cuda_api_sum / cuda_gpu_mem_time_sum.
struct StatRow {
  std::string name;
  double time_pct = 0;
  DurationStats stats;
};

// CudaGpuKernSum: per kernel name (demangled), kernel durations.
std::vector<StatRow> CudaGpuKernSum(const model::Trace& trace);
// CudaApiSum: per CUDA runtime/driver API (name without the `_vNNNN` suffix).
std::vector<StatRow> CudaApiSum(const model::Trace& trace);
// CudaGpuMemTimeSum: per memory operation ("[CUDA memcpy Host-to-Device]",
// "[CUDA memset]", ...).
std::vector<StatRow> CudaGpuMemTimeSum(const model::Trace& trace);

// KernExecRow: one row of cuda_kern_exec_sum, per (pid, tid, device, API,
// kernel): A = API duration, Q = kernel start - API end (stats over the
// launches with Q >= 0 only; q_count of them), K = kernel duration, T = max(kernel
// end, API end) - API start. Sorted by mean T, descending.
struct KernExecRow {
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  int32_t device_id = kMissingI32;
  int64_t q_count = 0;
  DurationStats total, api, queue, kernel;
  std::string api_name;
  std::string kernel_name;
};
std::vector<KernExecRow> CudaKernExecSum(const model::Trace& trace);

// ApiSyncRow: cuda_api_sync: cudaDeviceSynchronize% / cudaStreamSynchronize%
// calls, longest first.
struct ApiSyncRow {
  int64_t dur_ns = 0;
  int64_t start_ns = 0;
  int32_t pid = kMissingI32;
  int64_t tid = kMissingI64;
  std::string api_name;  // as exported, e.g. "cudaStreamSynchronize_v3020"
};
std::vector<ApiSyncRow> CudaApiSync(const model::Trace& trace);

// MemopRuleRow: cuda_memcpy_async / cuda_memcpy_sync / cuda_memset_sync rows,
// longest first. src_kind is kUnknown for memsets.
struct MemopRuleRow {
  int64_t dur_ns = 0;
  int64_t start_ns = 0;
  model::MemoryKind src_kind = model::MemoryKind::kUnknown;
  model::MemoryKind dst_kind = model::MemoryKind::kUnknown;
  int64_t bytes = kMissingI64;
  int32_t pid = kMissingI32;
  int32_t device_id = kMissingI32;
  int64_t stream_id = kMissingI64;
  std::string api_name;
};
// cuda_memcpy_async: pageable source or destination behind cudaMemcpy*Async*.
std::vector<MemopRuleRow> CudaMemcpyAsync(const model::Trace& trace);
// cuda_memcpy_sync: cudaMemcpy* without Async, minus HtoD <= 64000 B and
// same-device copies.
std::vector<MemopRuleRow> CudaMemcpySync(const model::Trace& trace);
// cuda_memset_sync: pinned or managed memsets behind cudaMemset* without async.
std::vector<MemopRuleRow> CudaMemsetSync(const model::Trace& trace);

// GapRow: gpu_gaps: idle stretches of one (pid, device) longer than min_gap_ns.
struct GapRow {
  int64_t dur_ns = 0;
  int64_t start_ns = 0;
  int32_t pid = kMissingI32;
  int32_t device_id = kMissingI32;
};
inline constexpr int64_t kDefaultGapNs = 500 * kNsPerMs;
std::vector<GapRow> GpuGaps(const model::Trace& trace, int64_t min_gap_ns = kDefaultGapNs);

// UtilRow: gpu_time_util: merged runs of low-utilization chunks (summed, not
// unioned, op time per chunk), longest first as nsys prints them.
struct UtilRow {
  double in_use_pct = 0;  // rounded to one decimal as nsys prints it
  int64_t dur_ns = 0;
  int64_t start_ns = 0;
  int32_t pid = kMissingI32;
  int32_t device_id = kMissingI32;
};
std::vector<UtilRow> GpuTimeUtil(const model::Trace& trace, int chunks = 30,
                                 double threshold_pct = 50.0);

// NsysCompatReport: everything above, plus notes on what could not be run
// (e.g. "no CUDA kernel data") in nsys's words.
struct NsysCompatReport {
  std::vector<StatRow> kern_sum, api_sum, mem_time_sum;
  std::vector<KernExecRow> kern_exec_sum;
  std::vector<ApiSyncRow> api_sync;
  std::vector<MemopRuleRow> memcpy_async, memcpy_sync, memset_sync;
  std::vector<GapRow> gaps;
  std::vector<UtilRow> time_util;
  std::vector<std::string> notes;
};
NsysCompatReport ComputeNsysCompat(const model::Trace& trace);

// StripApiVersion: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string StripApiVersion(std::string_view name);

}  // namespace gpuwhy::analysis::nsys_compat
