// The kubelet's pod-resources API (k8s.io/kubelet/pkg/apis/podresources/v1):
// which container of which pod holds which device. dcgm-exporter attributes
// GPUs to pods the same way.
//
// Contract: ListPodResources() makes one unary gRPC call,
// /v1.PodResourcesLister/List, over the kubelet's unix socket (HTTP/2 without
// TLS, through libnghttp2), bounded in time and reply size, and never throws.
// ParseListPodResourcesResponse() decodes the protobuf reply by field number
// (the v1 schema below); unknown fields are skipped, so newer kubelets work.
//
//   message ListPodResourcesResponse { repeated PodResources pod_resources = 1; }
//   message PodResources { string name = 1; string namespace = 2;
//                          repeated ContainerResources containers = 3; }
//   message ContainerResources { string name = 1; repeated ContainerDevices devices = 2; }
//   message ContainerDevices { string resource_name = 1; repeated string device_ids = 2; }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy::record {

// PodDevice: one device id the kubelet assigned to one container.
struct PodDevice {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string resource;   // "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", ...
  std::string device_id;  // as the device plugin named it: "GPU-<uuid>", "GPU-<uuid>::2", "MIG-<uuid>", "nvidia0"
};

// kDefaultPodResourcesSocket: where the kubelet serves the API.
inline constexpr const char* kDefaultPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";
// kPodResourcesListPath: the gRPC method path of List.
inline constexpr const char* kPodResourcesListPath = "/v1.PodResourcesLister/List";
// kMaxPodResourcesReplyBytes: a reply larger than this is refused (a node
// with thousands of pods answers in well under 1 MiB).
inline constexpr size_t kMaxPodResourcesReplyBytes = 16u << 20;

// ParseListPodResourcesResponse: one PodDevice per (container, device id), in
// message order. A truncated or malformed message is InvalidInput naming the
// byte offset.
Result<std::vector<PodDevice>> ParseListPodResourcesResponse(std::string_view protobuf);

// ParseGrpcUnaryReply: the one message of a unary gRPC reply body (5-byte
// prefix: compressed flag, big-endian length). Compressed or truncated
// bodies are InvalidInput.
Result<std::string_view> ParseGrpcUnaryReply(std::string_view body);

// ListPodResources: call List on `socket_path` and decode the reply. At most
// `timeout_ms` in all. Errors name the socket and what failed: connect,
// HTTP/2, the gRPC status and message, or the decoding.
Result<std::vector<PodDevice>> ListPodResources(const std::string& socket_path, int timeout_ms);

// IsGpuResource: resource names whose device ids are NVIDIA GPUs or MIG
// devices: "nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*",
// and any name in `extra` (as dcgm-exporter's NVIDIA_RESOURCE_NAMES).
bool IsGpuResource(std::string_view resource, const std::vector<std::string>& extra);

}  // namespace gpuwhy::record
