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

}  // namespace
}  // namespace gpuwhy::analysis
