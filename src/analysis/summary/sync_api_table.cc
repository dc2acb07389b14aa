#include "analysis/summary/sync_api_table.h"

#include <array>
#include <cctype>
#include <unordered_map>

namespace gpuwhy::analysis {

namespace {

using model::ApiKind;
using C = SyncApiClass;

// cbid lists (CUDA 13.0 cupti_runtime_cbid.h / cupti_driver_cbid.h): base id,
// then _ptsz/_ptds and later versions.
constexpr int32_t kCudaDeviceSynchronize[] = {165};
constexpr int32_t kCudaThreadSynchronize[] = {126};
constexpr int32_t kCudaStreamSynchronize[] = {131, 239};
constexpr int32_t kCudaEventSynchronize[] = {137};
constexpr int32_t kCudaStreamWaitEvent[] = {147, 247};
constexpr int32_t kCudaMemcpy[] = {31, 215};
constexpr int32_t kCudaMemcpy2D[] = {32, 216};
constexpr int32_t kCudaMemcpyToArray[] = {33, 217};
constexpr int32_t kCudaMemcpy2DToArray[] = {34, 218};
constexpr int32_t kCudaMemcpyFromArray[] = {35, 219};
constexpr int32_t kCudaMemcpy2DFromArray[] = {36, 220};
constexpr int32_t kCudaMemcpyArrayToArray[] = {37, 221};
constexpr int32_t kCudaMemcpy2DArrayToArray[] = {38, 222};
constexpr int32_t kCudaMemcpyToSymbol[] = {39, 223};
constexpr int32_t kCudaMemcpyFromSymbol[] = {40, 224};
constexpr int32_t kCudaMemcpy3D[] = {144, 245};
constexpr int32_t kCudaMemcpyPeer[] = {160};
constexpr int32_t kCudaMemcpy3DPeer[] = {162, 249};
constexpr int32_t kCuCtxSynchronize[] = {17, 800};
constexpr int32_t kCuStreamSynchronize[] = {126, 440};
constexpr int32_t kCuEventSynchronize[] = {121};
constexpr int32_t kCuStreamWaitEvent[] = {295, 436};
constexpr int32_t kCuMemcpy[] = {305, 408};
constexpr int32_t kCuMemcpyHtoD[] = {43, 276, 397};
constexpr int32_t kCuMemcpyDtoH[] = {45, 278, 398};
constexpr int32_t kCuMemcpyDtoD[] = {47, 280, 399};
constexpr int32_t kCuMemcpy2D[] = {56, 287, 405};
constexpr int32_t kCuMemcpy3D[] = {58, 290, 407};
constexpr int32_t kCuMemcpyPeer[] = {318, 409};
constexpr std::span<const int32_t> kNoCbids{};

constexpr std::array<SyncApiEntry, 49> kSyncApis = {{
    // CUDA runtime
    {"cudaDeviceSynchronize", ApiKind::kRuntime, C::kExplicitSync, kCudaDeviceSynchronize},
    {"cudaThreadSynchronize", ApiKind::kRuntime, C::kExplicitSync, kCudaThreadSynchronize},
    {"cudaStreamSynchronize", ApiKind::kRuntime, C::kExplicitSync, kCudaStreamSynchronize},
    {"cudaEventSynchronize", ApiKind::kRuntime, C::kExplicitSync, kCudaEventSynchronize},
    {"cudaStreamWaitEvent", ApiKind::kRuntime, C::kGpuWait, kCudaStreamWaitEvent},
    {"cudaMemcpy", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy},
    {"cudaMemcpy2D", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy2D},
    {"cudaMemcpyToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyToArray},
    {"cudaMemcpy2DToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy2DToArray},
    {"cudaMemcpyFromArray", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyFromArray},
    {"cudaMemcpy2DFromArray", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy2DFromArray},
    {"cudaMemcpyArrayToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyArrayToArray},
    {"cudaMemcpy2DArrayToArray", ApiKind::kRuntime, C::kBlockingMemcpy,
     kCudaMemcpy2DArrayToArray},
    {"cudaMemcpyToSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyToSymbol},
    {"cudaMemcpyFromSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyFromSymbol},
    {"cudaMemcpy3D", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy3D},
    {"cudaMemcpyPeer", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpyPeer},
    {"cudaMemcpy3DPeer", ApiKind::kRuntime, C::kBlockingMemcpy, kCudaMemcpy3DPeer},
    // CUDA driver
    {"cuCtxSynchronize", ApiKind::kDriver, C::kExplicitSync, kCuCtxSynchronize},
    {"cuStreamSynchronize", ApiKind::kDriver, C::kExplicitSync, kCuStreamSynchronize},
    {"cuEventSynchronize", ApiKind::kDriver, C::kExplicitSync, kCuEventSynchronize},
    {"cuStreamWaitEvent", ApiKind::kDriver, C::kGpuWait, kCuStreamWaitEvent},
    {"cuMemcpy", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpy},
    {"cuMemcpyHtoD", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpyHtoD},
    {"cuMemcpyDtoH", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpyDtoH},
    {"cuMemcpyDtoD", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpyDtoD},
    {"cuMemcpy2D", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpy2D},
    {"cuMemcpy3D", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpy3D},
    {"cuMemcpyPeer", ApiKind::kDriver, C::kBlockingMemcpy, kCuMemcpyPeer},
    // HIP runtime (name only)
    {"hipDeviceSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNoCbids},
    {"hipCtxSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNoCbids},
    {"hipStreamSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNoCbids},
    {"hipEventSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNoCbids},
    {"hipStreamWaitEvent", ApiKind::kRuntime, C::kGpuWait, kNoCbids},
    {"hipMemcpy", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    // hipMemcpyWithStream returns after the copy, like hipMemcpy.
    {"hipMemcpyWithStream", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpy2D", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpy3D", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyHtoD", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyDtoH", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyDtoD", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyToSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyFromSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyPeer", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyFromArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpy2DToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpy2DFromArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
    {"hipMemcpyParam2D", ApiKind::kRuntime, C::kBlockingMemcpy, kNoCbids},
}};

// Runtime table: launches, async copies and memsets (cbids as above).
using R = RuntimeApiRole;
constexpr int32_t kCudaLaunch[] = {13};
constexpr int32_t kCudaLaunchKernel[] = {211, 214};
constexpr int32_t kCudaLaunchCooperativeKernel[] = {269, 270};
constexpr int32_t kCudaLaunchCooperativeKernelMultiDevice[] = {272};
constexpr int32_t kCudaLaunchKernelExC[] = {430, 431};
constexpr int32_t kCudaLaunchKernelInternal[] = {505, 506};  // __cudaLaunchKernel (CUDA 13)
constexpr int32_t kCudaGraphLaunch[] = {311, 312};
constexpr int32_t kCuLaunchKernel[] = {307, 442};
constexpr int32_t kCuLaunchCooperativeKernel[] = {477, 478};
constexpr int32_t kCuLaunchCooperativeKernelMultiDevice[] = {480};
constexpr int32_t kCuLaunchKernelEx[] = {652, 653};
constexpr int32_t kCuGraphLaunch[] = {514, 515};
constexpr int32_t kCudaMemcpyAsync[] = {41, 225};
constexpr int32_t kCudaMemcpy2DAsync[] = {44, 228};
constexpr int32_t kCudaMemcpy3DAsync[] = {145, 246};
constexpr int32_t kCudaMemcpyPeerAsync[] = {161};
constexpr int32_t kCudaMemset[] = {49, 233};
constexpr int32_t kCudaMemsetAsync[] = {51, 235};
constexpr int32_t kCuMemcpyAsync[] = {306, 418};
constexpr int32_t kCuMemcpyHtoDAsync[] = {60, 277, 421};
constexpr int32_t kCuMemcpyDtoHAsync[] = {62, 279, 422};
constexpr int32_t kCuMemcpyDtoDAsync[] = {64, 281, 423};
constexpr int32_t kCuMemsetD8Async[] = {216, 428};
constexpr int32_t kCuMemsetD32Async[] = {220, 430};

constexpr RuntimeApiEntry kRuntimeTable[] = {
    // Kernel and graph launches.
    {"cudaLaunchKernel", ApiKind::kRuntime, R::kLaunch, kCudaLaunchKernel},
    {"cudaLaunchKernelExC", ApiKind::kRuntime, R::kLaunch, kCudaLaunchKernelExC},
    {"__cudaLaunchKernel", ApiKind::kRuntime, R::kLaunch, kCudaLaunchKernelInternal},
    {"cudaLaunchCooperativeKernel", ApiKind::kRuntime, R::kLaunch, kCudaLaunchCooperativeKernel},
    {"cudaLaunchCooperativeKernelMultiDevice", ApiKind::kRuntime, R::kLaunch,
     kCudaLaunchCooperativeKernelMultiDevice},
    {"cudaLaunch", ApiKind::kRuntime, R::kLaunch, kCudaLaunch},
    {"cudaGraphLaunch", ApiKind::kRuntime, R::kGraphLaunch, kCudaGraphLaunch},
    {"cuLaunchKernel", ApiKind::kDriver, R::kLaunch, kCuLaunchKernel},
    {"cuLaunchKernelEx", ApiKind::kDriver, R::kLaunch, kCuLaunchKernelEx},
    {"cuLaunchCooperativeKernel", ApiKind::kDriver, R::kLaunch, kCuLaunchCooperativeKernel},
    {"cuLaunchCooperativeKernelMultiDevice", ApiKind::kDriver, R::kLaunch,
     kCuLaunchCooperativeKernelMultiDevice},
    {"cuGraphLaunch", ApiKind::kDriver, R::kGraphLaunch, kCuGraphLaunch},
    {"hipLaunchKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipLaunchKernelExC", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipExtLaunchKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipExtModuleLaunchKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipModuleLaunchKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipModuleLaunchCooperativeKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipLaunchCooperativeKernel", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipLaunchCooperativeKernelMultiDevice", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipExtLaunchMultiKernelMultiDevice", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipDrvLaunchKernelEx", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipLaunchByPtr", ApiKind::kRuntime, R::kLaunch, kNoCbids},
    {"hipGraphLaunch", ApiKind::kRuntime, R::kGraphLaunch, kNoCbids},
    // Asynchronous copies (the host returns at once for pinned memory).
    {"cudaMemcpyAsync", ApiKind::kRuntime, R::kAsyncCopy, kCudaMemcpyAsync},
    {"cudaMemcpy2DAsync", ApiKind::kRuntime, R::kAsyncCopy, kCudaMemcpy2DAsync},
    {"cudaMemcpy3DAsync", ApiKind::kRuntime, R::kAsyncCopy, kCudaMemcpy3DAsync},
    {"cudaMemcpyPeerAsync", ApiKind::kRuntime, R::kAsyncCopy, kCudaMemcpyPeerAsync},
    {"cudaMemcpyToSymbolAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpyFromSymbolAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpy2DToArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpy2DFromArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpyToArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpyFromArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cudaMemcpy3DPeerAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"cuMemcpyAsync", ApiKind::kDriver, R::kAsyncCopy, kCuMemcpyAsync},
    {"cuMemcpyHtoDAsync", ApiKind::kDriver, R::kAsyncCopy, kCuMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync", ApiKind::kDriver, R::kAsyncCopy, kCuMemcpyDtoHAsync},
    {"cuMemcpyDtoDAsync", ApiKind::kDriver, R::kAsyncCopy, kCuMemcpyDtoDAsync},
    {"cuMemcpy2DAsync", ApiKind::kDriver, R::kAsyncCopy, kNoCbids},
    {"cuMemcpy3DAsync", ApiKind::kDriver, R::kAsyncCopy, kNoCbids},
    {"cuMemcpyPeerAsync", ApiKind::kDriver, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyHtoDAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyDtoHAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyDtoDAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpy2DAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpy2DToArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpy2DFromArrayAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyParam2DAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpy3DAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyPeerAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyToSymbolAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    {"hipMemcpyFromSymbolAsync", ApiKind::kRuntime, R::kAsyncCopy, kNoCbids},
    // Memsets.
    {"cudaMemset", ApiKind::kRuntime, R::kMemset, kCudaMemset},
    {"cudaMemsetAsync", ApiKind::kRuntime, R::kMemset, kCudaMemsetAsync},
    {"cudaMemset2D", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"cudaMemset2DAsync", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"cudaMemset3D", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"cudaMemset3DAsync", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"cuMemsetD8", ApiKind::kDriver, R::kMemset, kNoCbids},
    {"cuMemsetD16", ApiKind::kDriver, R::kMemset, kNoCbids},
    {"cuMemsetD32", ApiKind::kDriver, R::kMemset, kNoCbids},
    {"cuMemsetD8Async", ApiKind::kDriver, R::kMemset, kCuMemsetD8Async},
    {"cuMemsetD16Async", ApiKind::kDriver, R::kMemset, kNoCbids},
    {"cuMemsetD32Async", ApiKind::kDriver, R::kMemset, kCuMemsetD32Async},
    {"hipMemset", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetAsync", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD8", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD16", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD32", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD8Async", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD16Async", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemsetD32Async", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemset2D", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemset2DAsync", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemset3D", ApiKind::kRuntime, R::kMemset, kNoCbids},
    {"hipMemset3DAsync", ApiKind::kRuntime, R::kMemset, kNoCbids},
};

RuntimeApiRole RoleOf(SyncApiClass c) {
  switch (c) {
    case C::kExplicitSync: return R::kExplicitSync;
    case C::kBlockingMemcpy: return R::kBlockingCopy;
    case C::kGpuWait: return R::kGpuWait;
  }
  return R::kNone;
}

// RoleIndex: both tables by (layer, cbid) and by canonical name, built once.
struct RoleIndex {
  static constexpr int32_t kMaxCbid = 2048;
  std::array<RuntimeApiRole, kMaxCbid> runtime{};
  std::array<RuntimeApiRole, kMaxCbid> driver{};
  std::unordered_map<std::string_view, RuntimeApiRole> by_name;

  void Add(std::string_view name, ApiKind kind, RuntimeApiRole role,
           std::span<const int32_t> cbids) {
    by_name.emplace(name, role);
    for (int32_t id : cbids) {
      if (id < 0 || id >= kMaxCbid) continue;
      (kind == ApiKind::kDriver ? driver : runtime)[static_cast<size_t>(id)] = role;
    }
  }
};

const RoleIndex& GetRoleIndex() {
  static const RoleIndex index = [] {
    RoleIndex x;
    for (const SyncApiEntry& e : kSyncApis) x.Add(e.name, e.kind, RoleOf(e.api_class), e.cbids);
    for (const RuntimeApiEntry& e : kRuntimeTable) x.Add(e.name, e.kind, e.role, e.cbids);
    return x;
  }();
  return index;
}

// StripSuffix: `s` without a trailing `_v<digits>`, `_ptsz` or `_ptds`;
// returns false when there is none.
bool StripSuffix(std::string_view& s) {
  if (s.ends_with("_ptsz") || s.ends_with("_ptds")) {
    s.remove_suffix(5);
    return true;
  }
  size_t i = s.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
  if (i < s.size() && i >= 2 && s[i - 1] == 'v' && s[i - 2] == '_') {
    s = s.substr(0, i - 2);
    return true;
  }
  return false;
}

}  // namespace

std::string_view ToString(SyncApiClass c) {
  switch (c) {
    case SyncApiClass::kExplicitSync: return "sync";
    case SyncApiClass::kBlockingMemcpy: return "blocking_memcpy";
    case SyncApiClass::kGpuWait: return "gpu_wait";
  }
  return "unknown";
}

std::span<const SyncApiEntry> SyncApiTable() { return kSyncApis; }
std::span<const RuntimeApiEntry> RuntimeApiTable() { return kRuntimeTable; }

std::string_view ToString(RuntimeApiRole r) {
  switch (r) {
    case R::kExplicitSync: return "sync";
    case R::kBlockingCopy: return "blocking_copy";
    case R::kGpuWait: return "gpu_wait";
    case R::kAsyncCopy: return "async_copy";
    case R::kMemset: return "memset";
    case R::kLaunch: return "launch";
    case R::kGraphLaunch: return "graph_launch";
    case R::kNone: break;
  }
  return "none";
}

std::string_view CanonicalApiName(std::string_view name) {
  while (StripSuffix(name)) {
  }
  return name;
}

const SyncApiEntry* MatchSyncApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  const bool hip = name.starts_with("hip");
  if (!hip && IsValid(cbid) && (kind == ApiKind::kRuntime || kind == ApiKind::kDriver)) {
    for (const SyncApiEntry& e : kSyncApis) {
      if (e.kind != kind) continue;
      for (int32_t id : e.cbids)
        if (id == cbid) return &e;
    }
  }
  // Old Kineto printed "INVALID" for unknown cbids; a name match still helps
  // when the cbid is missing or from another numbering.
  std::string_view canon = CanonicalApiName(name);
  if (canon.empty()) return nullptr;
  for (const SyncApiEntry& e : kSyncApis)
    if (e.name == canon) return &e;
  return nullptr;
}

RuntimeApiRole RuntimeApiRoleOf(std::string_view name, model::ApiKind kind, int32_t cbid) {
  const RoleIndex& index = GetRoleIndex();
  if (!name.starts_with("hip") && IsValid(cbid) && cbid >= 0 && cbid < RoleIndex::kMaxCbid) {
    const size_t id = static_cast<size_t>(cbid);
    RuntimeApiRole r = RuntimeApiRole::kNone;
    if (kind == ApiKind::kRuntime) r = index.runtime[id];
    if (kind == ApiKind::kDriver) r = index.driver[id];
    if (r != RuntimeApiRole::kNone) return r;
  }
  auto it = index.by_name.find(CanonicalApiName(name));
  return it == index.by_name.end() ? RuntimeApiRole::kNone : it->second;
}

bool IsKernelLaunchApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  const RuntimeApiRole r = RuntimeApiRoleOf(name, kind, cbid);
  return r == RuntimeApiRole::kLaunch || r == RuntimeApiRole::kGraphLaunch;
}

}  // namespace gpuwhy::analysis
