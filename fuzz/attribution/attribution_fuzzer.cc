// libFuzzer entry: arbitrary bytes as a pod-resources reply body, a protobuf
// message, a cgroup file and an environ block. Invariants: no crash, errors
// name an offset inside the input, and parsed ids are well formed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "record/attribution/owner.h"
#include "record/attribution/pod_resources.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  using namespace gpuwhy::record;
  auto body = ParseGrpcUnaryReply(in);
  if (body.ok() && body->size() > in.size()) std::abort();
  auto pods = ParseListPodResourcesResponse(in);
  if (pods.ok()) {
    size_t bytes = 0;
    for (const PodDevice& d : *pods) bytes += d.device_id.size();
    if (bytes > in.size()) std::abort();
  } else if (pods.status().message().find("at byte ") == std::string::npos) {
    std::abort();
  }
  CgroupOwner c = ParseProcCgroup(in);
  if (!c.pod_uid.empty() && c.pod_uid.size() != 36) std::abort();
  if (!c.container_id.empty() && c.container_id.size() != 64) std::abort();
  EnvironOwner e = ParseProcEnviron(in);
  if (e.hostname.size() > 256 || e.slurm_job_id.size() > 256) std::abort();
  return 0;
}
