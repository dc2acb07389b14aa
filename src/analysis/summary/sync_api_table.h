// Host runtime/driver API tables, vendor-neutral (CUDA runtime, CUDA driver,
// HIP): the sync-type table (calls that synchronize or make the GPU wait) and
// the runtime table (kernel and graph launches, async copies, memsets), both
// matched by CUPTI callback id and by name.
//
// Contract: MatchSyncApi() returns the table entry for a host API call, or
// nullptr when the call is not sync-type. cbids are per API layer (runtime and
// driver ids overlap), so the match uses (ApiKind, cbid). Names are compared
// after dropping CUPTI's version/per-thread suffixes (`_v3020`, `_ptsz`,
// `_ptds`, `_v2`), so "cudaStreamSynchronize_ptsz_v7000" matches too. HIP
// names are matched by name only (roctracer ids are not CUPTI cbids).
// ROCm Kineto traces label HIP calls `cuda_runtime` with no cbid, so every
// HIP row is found by name. RuntimeApiRoleOf() answers for both tables in
// O(1) (a cbid array and a name hash built once), so per-event loops may call
// it. Source of the ids: CUDA 13.0 cupti_runtime_cbid.h / cupti_driver_cbid.h.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "analysis/summary/device_summary.h"
#include "model/enums.h"

namespace gpuwhy::analysis {

// SyncApiEntry: one canonical sync-type API.
struct SyncApiEntry {
  std::string_view name;        // canonical name (reported)
  model::ApiKind kind;          // kRuntime or kDriver (HIP: kRuntime, no cbids)
  SyncApiClass api_class;
  std::span<const int32_t> cbids;  // CUPTI callback ids of every variant
};

// SyncApiTable: the whole table, in a stable order.
std::span<const SyncApiEntry> SyncApiTable();

// CanonicalApiName: `name` without CUPTI version/per-thread suffixes.
std::string_view CanonicalApiName(std::string_view name);

// MatchSyncApi: the entry for a call with this name, layer and cbid (cbid may
// be kMissingI32), or nullptr.
const SyncApiEntry* MatchSyncApi(std::string_view name, model::ApiKind kind, int32_t cbid);

// RuntimeApiRole: what a host API call does, over both tables.
enum class RuntimeApiRole : uint8_t {
  kNone = 0,          // in neither table
  kExplicitSync = 1,  // sync table, SyncApiClass::kExplicitSync
  kBlockingCopy = 2,  // sync table, SyncApiClass::kBlockingMemcpy
  kGpuWait = 3,       // sync table, SyncApiClass::kGpuWait
  kAsyncCopy = 4,     // cudaMemcpyAsync, hipMemcpyAsync, hipMemcpy2DAsync, cuMemcpyHtoDAsync ...
  kMemset = 5,        // cudaMemset*, hipMemset*, cuMemsetD*
  kLaunch = 6,        // cudaLaunchKernel, hipLaunchKernel, hipExtModuleLaunchKernel, ...
  kGraphLaunch = 7,   // cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch
};
// ToString: "none", "sync", "blocking_copy", "gpu_wait", "async_copy", "memset",
// "launch", "graph_launch".
std::string_view ToString(RuntimeApiRole r);

// RuntimeApiEntry: one row of the runtime table (launches, async copies, memsets).
struct RuntimeApiEntry {
  std::string_view name;        // canonical name
  model::ApiKind kind;          // kRuntime or kDriver (HIP: kRuntime, no cbids)
  RuntimeApiRole role;          // kAsyncCopy, kMemset, kLaunch or kGraphLaunch
  std::span<const int32_t> cbids;
};

// RuntimeApiTable: the runtime table, in a stable order.
std::span<const RuntimeApiEntry> RuntimeApiTable();

// RuntimeApiRoleOf: the role of a call with this name, layer and cbid (cbid
// may be kMissingI32; HIP names ignore it): a valid cbid of a known layer
// decides, else the canonical name (CanonicalApiName). kNone when neither
// table has it.
RuntimeApiRole RuntimeApiRoleOf(std::string_view name, model::ApiKind kind, int32_t cbid);

// IsKernelLaunchApi: RuntimeApiRoleOf() is kLaunch or kGraphLaunch.
bool IsKernelLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid);

}  // namespace gpuwhy::analysis
