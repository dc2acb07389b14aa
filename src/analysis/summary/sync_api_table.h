// Sync-type host APIs: one data table of CUDA runtime/driver and HIP calls that
// synchronize (or make the GPU wait), matched by CUPTI callback id and by name.
//
// Contract: MatchSyncApi() returns the table entry for a host API call, or
// nullptr when the call is not sync-type. cbids are per API layer (runtime and
// driver ids overlap), so the match uses (ApiKind, cbid). Names are compared
// after dropping CUPTI's version/per-thread suffixes (`_v3020`, `_ptsz`,
// `_ptds`, `_v2`), so "cudaStreamSynchronize_ptsz_v7000" matches too. HIP
// names are matched by name only (roctracer ids are not CUPTI cbids).
// Source of the ids: CUDA 13.0 cupti_runtime_cbid.h / cupti_driver_cbid.h.
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

}  // namespace gpuwhy::analysis
