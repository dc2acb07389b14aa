#include "analysis/summary/sync_api_table.h"

#include <array>
#include <cctype>

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
constexpr std::span<const int32_t> kNone{};

constexpr std::array<SyncApiEntry, 47> kTable = {{
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
    {"hipDeviceSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNone},
    {"hipCtxSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNone},
    {"hipStreamSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNone},
    {"hipEventSynchronize", ApiKind::kRuntime, C::kExplicitSync, kNone},
    {"hipStreamWaitEvent", ApiKind::kRuntime, C::kGpuWait, kNone},
    {"hipMemcpy", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpy2D", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpy3D", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyHtoD", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyDtoH", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyDtoD", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyToSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyFromSymbol", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyPeer", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyFromArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpy2DToArray", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
    {"hipMemcpyParam2D", ApiKind::kRuntime, C::kBlockingMemcpy, kNone},
}};

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

std::span<const SyncApiEntry> SyncApiTable() { return kTable; }

std::string_view CanonicalApiName(std::string_view name) {
  while (StripSuffix(name)) {
  }
  return name;
}

const SyncApiEntry* MatchSyncApi(std::string_view name, model::ApiKind kind, int32_t cbid) {
  const bool hip = name.starts_with("hip");
  if (!hip && IsValid(cbid) && (kind == ApiKind::kRuntime || kind == ApiKind::kDriver)) {
    for (const SyncApiEntry& e : kTable) {
      if (e.kind != kind) continue;
      for (int32_t id : e.cbids)
        if (id == cbid) return &e;
    }
  }
  // Old Kineto printed "INVALID" for unknown cbids; a name match still helps
  // when the cbid is missing or from another numbering.
  std::string_view canon = CanonicalApiName(name);
  if (canon.empty()) return nullptr;
  for (const SyncApiEntry& e : kTable)
    if (e.name == canon) return &e;
  return nullptr;
}

}  // namespace gpuwhy::analysis
