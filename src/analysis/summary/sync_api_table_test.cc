#include "analysis/summary/sync_api_table.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace gpuwhy::analysis {
namespace {

using model::ApiKind;

TEST(SyncApiTable, MatchByCbidPerLayer) {
  // Runtime 131 is cudaStreamSynchronize; driver 126 is cuStreamSynchronize while
  // runtime 126 is cudaThreadSynchronize: the layer decides.
  const SyncApiEntry* e = MatchSyncApi("INVALID", ApiKind::kRuntime, 131);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "cudaStreamSynchronize");
  e = MatchSyncApi("", ApiKind::kDriver, 126);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "cuStreamSynchronize");
  e = MatchSyncApi("", ApiKind::kRuntime, 126);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "cudaThreadSynchronize");
  EXPECT_EQ(MatchSyncApi("", ApiKind::kRuntime, 239)->name, "cudaStreamSynchronize");
  EXPECT_EQ(MatchSyncApi("", ApiKind::kRuntime, 165)->name, "cudaDeviceSynchronize");
  EXPECT_EQ(MatchSyncApi("", ApiKind::kRuntime, 31)->api_class, SyncApiClass::kBlockingMemcpy);
  EXPECT_EQ(MatchSyncApi("", ApiKind::kRuntime, 147)->api_class, SyncApiClass::kGpuWait);
  EXPECT_EQ(MatchSyncApi("", ApiKind::kDriver, 800)->name, "cuCtxSynchronize");
}

TEST(SyncApiTable, NonSyncCallsDoNotMatch) {
  EXPECT_EQ(MatchSyncApi("cudaLaunchKernel", ApiKind::kRuntime, 211), nullptr);
  EXPECT_EQ(MatchSyncApi("cudaMemcpyAsync", ApiKind::kRuntime, 41), nullptr);
  EXPECT_EQ(MatchSyncApi("cudaStreamQuery", ApiKind::kRuntime, 132), nullptr);
  EXPECT_EQ(MatchSyncApi("hipLaunchKernel", ApiKind::kRuntime, kMissingI32), nullptr);
  EXPECT_EQ(MatchSyncApi("", ApiKind::kRuntime, kMissingI32), nullptr);
}

TEST(SyncApiTable, MatchByNameWithSuffixes) {
  EXPECT_EQ(CanonicalApiName("cudaStreamSynchronize_ptsz_v7000"), "cudaStreamSynchronize");
  EXPECT_EQ(CanonicalApiName("cuMemcpyDtoH_v2_ptds"), "cuMemcpyDtoH");
  EXPECT_EQ(CanonicalApiName("cudaMemcpy"), "cudaMemcpy");
  const SyncApiEntry* e =
      MatchSyncApi("cudaDeviceSynchronize_v3020", ApiKind::kRuntime, kMissingI32);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "cudaDeviceSynchronize");
  // HIP: by name only, whatever id the source put in cbid.
  e = MatchSyncApi("hipStreamSynchronize", ApiKind::kRuntime, 211);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "hipStreamSynchronize");
  EXPECT_EQ(MatchSyncApi("hipMemcpy", ApiKind::kRuntime, kMissingI32)->api_class,
            SyncApiClass::kBlockingMemcpy);
}

TEST(SyncApiTable, NoCbidIsListedTwiceInOneLayer) {
  std::set<std::pair<int, int32_t>> seen;
  std::set<std::string_view> names;
  for (const SyncApiEntry& e : SyncApiTable()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    for (int32_t id : e.cbids)
      EXPECT_TRUE(seen.insert({static_cast<int>(e.kind), id}).second) << e.name << " " << id;
  }
}

TEST(RuntimeApiTable, NoNameOrCbidInBothTables) {
  std::set<std::pair<int, int32_t>> seen;
  std::set<std::string_view> names;
  for (const SyncApiEntry& e : SyncApiTable()) {
    names.insert(e.name);
    for (int32_t id : e.cbids) seen.insert({static_cast<int>(e.kind), id});
  }
  for (const RuntimeApiEntry& e : RuntimeApiTable()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    for (int32_t id : e.cbids)
      EXPECT_TRUE(seen.insert({static_cast<int>(e.kind), id}).second) << e.name << " " << id;
    EXPECT_NE(e.role, RuntimeApiRole::kNone) << e.name;
  }
}

TEST(RuntimeApiTable, HipNamesAsRocmKinetoWritesThem) {
  // ROCm Kineto: category cuda_runtime, no cbid.
  const int32_t none = kMissingI32;
  struct Case {
    std::string_view name;
    RuntimeApiRole role;
  };
  const Case cases[] = {
      {"hipMemcpy", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpyWithStream", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpyDtoH", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpyHtoD", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpyDtoD", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpy2D", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpy2DToArray", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpy2DFromArray", RuntimeApiRole::kBlockingCopy},
      {"hipMemcpyAsync", RuntimeApiRole::kAsyncCopy},
      {"hipMemcpy2DAsync", RuntimeApiRole::kAsyncCopy},
      {"hipMemcpyHtoDAsync", RuntimeApiRole::kAsyncCopy},
      {"hipMemset", RuntimeApiRole::kMemset},
      {"hipMemsetAsync", RuntimeApiRole::kMemset},
      {"hipMemsetD32Async", RuntimeApiRole::kMemset},
      {"hipMemset2DAsync", RuntimeApiRole::kMemset},
      {"hipDeviceSynchronize", RuntimeApiRole::kExplicitSync},
      {"hipStreamSynchronize", RuntimeApiRole::kExplicitSync},
      {"hipEventSynchronize", RuntimeApiRole::kExplicitSync},
      {"hipStreamWaitEvent", RuntimeApiRole::kGpuWait},
      {"hipLaunchKernel", RuntimeApiRole::kLaunch},
      {"hipExtLaunchKernel", RuntimeApiRole::kLaunch},
      {"hipExtModuleLaunchKernel", RuntimeApiRole::kLaunch},
      {"hipModuleLaunchKernel", RuntimeApiRole::kLaunch},
      {"hipLaunchCooperativeKernel", RuntimeApiRole::kLaunch},
      {"hipGraphLaunch", RuntimeApiRole::kGraphLaunch},
      {"hipStreamQuery", RuntimeApiRole::kNone},
      {"hipGetDevice", RuntimeApiRole::kNone},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToString(RuntimeApiRoleOf(c.name, ApiKind::kRuntime, none)), ToString(c.role))
        << c.name;
    // A cbid the source happened to write does not override a HIP name.
    EXPECT_EQ(ToString(RuntimeApiRoleOf(c.name, ApiKind::kRuntime, 211)), ToString(c.role))
        << c.name;
  }
  EXPECT_TRUE(IsKernelLaunchApi("hipExtModuleLaunchKernel", ApiKind::kRuntime, none));
  EXPECT_TRUE(IsKernelLaunchApi("hipGraphLaunch", ApiKind::kRuntime, none));
  EXPECT_FALSE(IsKernelLaunchApi("hipMemcpyAsync", ApiKind::kRuntime, none));
  // The blocking HIP copies are sync-type for the summary too.
  const SyncApiEntry* e = MatchSyncApi("hipMemcpyWithStream", ApiKind::kRuntime, none);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->api_class, SyncApiClass::kBlockingMemcpy);
}

TEST(RuntimeApiTable, CudaByCbidAndByName) {
  const int32_t none = kMissingI32;
  // By cbid, whatever the name says (old Kineto writes "INVALID" names).
  EXPECT_EQ(RuntimeApiRoleOf("INVALID", ApiKind::kRuntime, 211), RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 214), RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 311), RuntimeApiRole::kGraphLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kDriver, 307), RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kDriver, 514), RuntimeApiRole::kGraphLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 41), RuntimeApiRole::kAsyncCopy);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 51), RuntimeApiRole::kMemset);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 131), RuntimeApiRole::kExplicitSync);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 31), RuntimeApiRole::kBlockingCopy);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 147), RuntimeApiRole::kGpuWait);
  // Runtime 430 is cudaLaunchKernelExC, driver 430 cuMemsetD32Async_ptsz: the layer decides.
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 430), RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kDriver, 430), RuntimeApiRole::kMemset);
  // By name, with CUPTI's suffixes.
  EXPECT_EQ(RuntimeApiRoleOf("cudaLaunchKernel_v7000", ApiKind::kRuntime, none),
            RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("cudaLaunchKernelExC_v11060", ApiKind::kRuntime, none),
            RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("cuLaunchKernelEx", ApiKind::kDriver, none), RuntimeApiRole::kLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("cudaGraphLaunch_ptsz_v10000", ApiKind::kRuntime, none),
            RuntimeApiRole::kGraphLaunch);
  EXPECT_EQ(RuntimeApiRoleOf("cuMemcpyHtoDAsync_v2", ApiKind::kDriver, none),
            RuntimeApiRole::kAsyncCopy);
  EXPECT_EQ(RuntimeApiRoleOf("cudaStreamSynchronize", ApiKind::kRuntime, none),
            RuntimeApiRole::kExplicitSync);
  EXPECT_EQ(RuntimeApiRoleOf("cudaGetDevice", ApiKind::kRuntime, 10), RuntimeApiRole::kNone);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, 100000), RuntimeApiRole::kNone);
  EXPECT_EQ(RuntimeApiRoleOf("", ApiKind::kRuntime, -5), RuntimeApiRole::kNone);
  EXPECT_EQ(ToString(RuntimeApiRole::kGraphLaunch), "graph_launch");
}

}  // namespace
}  // namespace gpuwhy::analysis
