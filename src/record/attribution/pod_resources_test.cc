#include "record/attribution/pod_resources.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include "fake_kubelet.h"

namespace gpuwhy::record {
namespace {

using gpuwhy_test::EncodeListPodResourcesResponse;
using gpuwhy_test::FakeKubelet;

std::vector<PodDevice> Sample() {
  return {
      {"ml", "trainer-0", "main", "nvidia.com/gpu", "GPU-aaaa"},
      {"ml", "trainer-0", "main", "nvidia.com/gpu", "GPU-bbbb"},
      {"ml", "trainer-0", "sidecar", "example.com/nic", "nic0"},
      {"infer", "server", "triton", "nvidia.com/mig-1g.10gb", "MIG-cccc::1"},
  };
}

bool Same(const PodDevice& a, const PodDevice& b) {
  return a.namespace_name == b.namespace_name && a.pod == b.pod && a.container == b.container &&
         a.resource == b.resource && a.device_id == b.device_id;
}

TEST(ParseListPodResourcesResponse, RoundTripSkippingUnknownFields) {
  auto parsed = ParseListPodResourcesResponse(EncodeListPodResourcesResponse(Sample()));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(Same((*parsed)[i], Sample()[i])) << i;
  EXPECT_TRUE(ParseListPodResourcesResponse("")->empty());
}

// Every truncation of a valid reply either parses (a prefix that ends on a
// field boundary) or is one error naming a byte inside the reply.
TEST(ParseListPodResourcesResponse, EveryTruncationIsAnErrorWithOffsetOrAPrefix) {
  std::string pb = EncodeListPodResourcesResponse(Sample());
  int errors = 0;
  for (size_t n = 0; n < pb.size(); ++n) {
    auto r = ParseListPodResourcesResponse(std::string_view(pb).substr(0, n));
    if (r.ok()) {
      EXPECT_LE(r->size(), 4u);
      continue;
    }
    ++errors;
    const std::string m = r.status().message();
    EXPECT_NE(m.find("at byte "), std::string::npos) << m;
    size_t at = std::stoul(m.substr(m.find("at byte ") + 8));
    EXPECT_LE(at, n) << m;
  }
  EXPECT_GT(errors, static_cast<int>(pb.size() / 2));
}

TEST(ParseListPodResourcesResponse, BadInputs) {
  for (std::string bad : {std::string("\x0a\x80", 2),                // truncated length varint
                          std::string("\x0a\x05" "ab", 4),           // length past the end
                          std::string("\x0b", 1),                    // wire type 3 (group)
                          std::string("\x00\x01", 2),                // field 0
                          std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12)}) {
    auto r = ParseListPodResourcesResponse(bad);
    EXPECT_FALSE(r.ok()) << testing::PrintToString(bad);
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("pod-resources reply: "), std::string::npos);
    }
  }
}

TEST(ParseGrpcUnaryReply, PrefixChecks) {
  EXPECT_EQ(*ParseGrpcUnaryReply(std::string("\0\0\0\0\2hi", 7)), "hi");
  EXPECT_FALSE(ParseGrpcUnaryReply(std::string("\0\0\0", 3)).ok());
  EXPECT_FALSE(ParseGrpcUnaryReply(std::string("\1\0\0\0\0", 5)).ok()) << "compressed";
  EXPECT_FALSE(ParseGrpcUnaryReply(std::string("\0\0\0\0\5hi", 7)).ok()) << "short";
}

TEST(IsGpuResource, NvidiaNamesAndExtras) {
  EXPECT_TRUE(IsGpuResource("nvidia.com/gpu", {}));
  EXPECT_TRUE(IsGpuResource("nvidia.com/gpu.shared", {}));
  EXPECT_TRUE(IsGpuResource("nvidia.com/mig-3g.40gb", {}));
  EXPECT_FALSE(IsGpuResource("nvidia.com/gpus", {}));
  EXPECT_FALSE(IsGpuResource("amd.com/gpu", {}));
  EXPECT_TRUE(IsGpuResource("amd.com/gpu", {"amd.com/gpu"}));
}

std::string SocketPath(const std::string& tag) {
  return std::filesystem::temp_directory_path() / ("gpuwhy_kubelet_" + tag + "_" + std::to_string(getpid()) + ".sock");
}

TEST(ListPodResources, AgainstTheFakeKubelet) {
  FakeKubelet k;
  std::string sock = SocketPath("ok");
  ASSERT_TRUE(k.Start(sock));
  k.Set(Sample());
  auto r = ListPodResources(sock, 2000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_TRUE(Same((*r)[3], Sample()[3]));
  // A node with no pods: an empty reply is an empty list, not an error.
  k.Set({});
  auto empty = ListPodResources(sock, 2000);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(k.calls(), 2);
}

TEST(ListPodResources, ALargeNodeFitsInSeveralFrames) {
  std::vector<PodDevice> many;
  for (int i = 0; i < 3000; ++i) {
    many.push_back({"ns", "pod-" + std::to_string(i), "c", "nvidia.com/gpu", "GPU-" + std::to_string(i)});
  }
  FakeKubelet k;
  std::string sock = SocketPath("big");
  ASSERT_TRUE(k.Start(sock));
  k.Set(many);
  auto r = ListPodResources(sock, 5000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), many.size());
  EXPECT_EQ(r->back().pod, "pod-2999");
}

TEST(ListPodResources, FailuresAreOneLineAndBounded) {
  std::string sock = SocketPath("bad");
  auto none = ListPodResources(sock, 500);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("connect"), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find(sock), std::string::npos);

  FakeKubelet k;
  ASSERT_TRUE(k.Start(sock));
  k.Set(Sample(), FakeKubelet::Mode::kGrpcError);
  auto denied = ListPodResources(sock, 2000);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("gRPC status 7: pod-resources: permission denied"), std::string::npos)
      << denied.status().message();

  k.Set(Sample(), FakeKubelet::Mode::kGarbage);
  auto garbage = ListPodResources(sock, 2000);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("HTTP/2"), std::string::npos) << garbage.status().message();

  k.Set(Sample(), FakeKubelet::Mode::kHang);
  auto t0 = std::chrono::steady_clock::now();
  auto hung = ListPodResources(sock, 300);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(hung.ok());
  EXPECT_NE(hung.status().message().find("no reply within 300 ms"), std::string::npos) << hung.status().message();
  EXPECT_LT(secs, 3.0) << "the timeout bounds the call";  // generous: a loaded CI machine
  k.Stop();
}

}  // namespace
}  // namespace gpuwhy::record
