// TraceTranslator on hand-made CUPTI buffers (real record structs, walked by the
// fake libcupti's cuptiActivityGetNextRecord): clock shift, name interning,
// missing timestamps, NVTX pairing, the frame encoding and the stats frame.
#include "inject/trace_translator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace gpuwhy::inject {
namespace {

struct Buf {
  std::vector<uint8_t> b = std::vector<uint8_t>(1 << 16);
  size_t used = 0;
  template <typename T>
  void Add(const T& r) {
    std::memcpy(b.data() + used, &r, sizeof r);
    used += (sizeof r + 7) & ~size_t{7};
  }
};

// Frames: (type, payload) of an encoded frame sequence.
std::vector<std::pair<uint16_t, std::string>> Frames(const std::string& s) {
  std::vector<std::pair<uint16_t, std::string>> out;
  size_t off = 0;
  while (off + 12 <= s.size()) {
    uint32_t len;
    uint16_t type;
    std::memcpy(&len, s.data() + off, 4);
    std::memcpy(&type, s.data() + off + 4, 2);
    out.emplace_back(type, s.substr(off + 12, len));
    off += 12 + len;
  }
  EXPECT_EQ(off, s.size());
  return out;
}

TEST(TraceTranslator, TranslatesKernelsApiNvtxAndCountsMissingTimestamps) {
  Buf buf;
  const char* name = "my_kernel";
  for (int i = 0; i < 3; ++i) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = i == 2 ? 0 : 1000 + static_cast<uint64_t>(i) * 100;
    k.end = i == 2 ? 0 : 1050 + static_cast<uint64_t>(i) * 100;
    k.deviceId = 1;
    k.contextId = 5;
    k.streamId = 7;
    k.correlationId = static_cast<uint32_t>(i + 1);
    k.gridX = 2;
    k.name = name;
    buf.Add(k);
  }
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.start = 900;
  a.end = 990;
  a.threadId = 42;
  a.correlationId = 1;
  buf.Add(a);
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  m.timestamp = 800;
  m.id = 9;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.threadId = 42;
  m.name = "step 0";
  buf.Add(m);
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  m.timestamp = 2000;
  m.name = nullptr;
  buf.Add(m);
  m.id = 10;  // an end without a start
  buf.Add(m);

  TraceTranslator tr(&cuptiActivityGetNextRecord, &cuptiGetCallbackName, 1'000'000);
  EXPECT_EQ(tr.Translate(buf.b.data(), buf.used), 7u);
  std::string out;
  tr.TakeFrames(out);
  auto frames = Frames(out);
  std::vector<wire::WireKernel> kernels;
  std::vector<wire::WireApi> api;
  std::vector<wire::WireRange> ranges;
  std::vector<std::string> names(1);
  std::vector<uint64_t> stats;
  for (const auto& [type, p] : frames) {
    uint32_t n;
    std::memcpy(&n, p.data(), 4);
    auto fixed = [&](auto& v) {
      v.resize(n);
      std::memcpy(static_cast<void*>(v.data()), p.data() + 4, n * sizeof(v[0]));
    };
    switch (static_cast<wire::FrameType>(type)) {
      case wire::FrameType::kTraceKernels: fixed(kernels); break;
      case wire::FrameType::kTraceApi: fixed(api); break;
      case wire::FrameType::kTraceRanges: fixed(ranges); break;
      case wire::FrameType::kTraceStats: fixed(stats); break;
      case wire::FrameType::kTraceNames: {
        size_t off = 4;
        for (uint32_t i = 0; i < n; ++i) {
          uint32_t id, len;
          std::memcpy(&id, p.data() + off, 4);
          std::memcpy(&len, p.data() + off + 4, 4);
          if (names.size() <= id) names.resize(id + 1);
          names[id] = p.substr(off + 8, len);
          off += 8 + len;
        }
        break;
      }
      default: break;
    }
  }
  // The wire structs are packed: fields are read as values (+x), since gtest
  // binds its arguments to references, which must not be misaligned.
  ASSERT_EQ(kernels.size(), 2u);  // the third had no timestamps
  EXPECT_EQ(+kernels[0].start_ns, 1'001'000);
  EXPECT_EQ(+kernels[1].end_ns, 1'001'150);
  EXPECT_EQ(+kernels[0].name, +kernels[1].name);
  EXPECT_EQ(names.at(+kernels[0].name), "my_kernel");
  EXPECT_EQ(+kernels[0].grid[0], 2);
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(names.at(+api[0].name), "cudaLaunchKernel");  // _v7000 stripped
  EXPECT_EQ(+api[0].tid, 42u);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(+ranges[0].start_ns, 1'000'800);
  EXPECT_EQ(+ranges[0].end_ns, 1'002'000);
  EXPECT_EQ(names.at(+ranges[0].name), "step 0");
  ASSERT_EQ(stats.size(), static_cast<size_t>(wire::TraceStat::kCount));
  EXPECT_EQ(stats[static_cast<size_t>(wire::TraceStat::kRecords)], 7u);
  EXPECT_EQ(stats[static_cast<size_t>(wire::TraceStat::kMissingTimestamps)], 1u);
  EXPECT_EQ(stats[static_cast<size_t>(wire::TraceStat::kUnpairedRanges)], 1u);

  // Names are sent once: a second batch with the same kernel carries no names frame.
  out.clear();
  Buf again;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 5000;
  k.end = 5100;
  k.contextId = 5;
  k.deviceId = 1;
  k.name = name;
  again.Add(k);
  tr.Translate(again.b.data(), again.used);
  tr.TakeFrames(out);
  for (const auto& [type, p] : Frames(out)) {
    EXPECT_NE(type, static_cast<uint16_t>(wire::FrameType::kTraceNames));
    EXPECT_NE(type, static_cast<uint16_t>(wire::FrameType::kTraceContexts));
  }
}

}  // namespace
}  // namespace gpuwhy::inject
