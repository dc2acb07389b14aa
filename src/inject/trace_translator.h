// TraceTranslator: turns CUPTI activity buffers into the trace frames of the
// recording format (docs/recording-format.md, frame types 10-18).
//
// Lifecycle: one translator per traced process, used by one thread (the
// injection library's writer thread; the benchmark's main thread). Translate()
// each completed buffer, then TakeFrames() to append the encoded frames
// (names first, then contexts, kernels, copies, API calls, syncs, ranges, stats)
// to an output string. Never throws on bad input: records of unknown kinds are
// counted, a record CUPTI could not complete ends the buffer.
//
// Times: CUPTI timestamps plus `clock_offset_ns` (CUPTI's clock -> CLOCK_REALTIME,
// measured by the caller); 0 stays missing.
#pragma once

#include <cupti.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/recording_wire.h"

namespace gpuwhy::inject {

// NextRecordFn: cuptiActivityGetNextRecord's signature.
using NextRecordFn = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
// CallbackNameFn: cuptiGetCallbackName's signature (may be null: names are "cbid N").
using CallbackNameFn = CUptiResult (*)(CUpti_CallbackDomain, uint32_t, const char**);

class TraceTranslator {
 public:
  TraceTranslator(NextRecordFn next, CallbackNameFn callback_name, int64_t clock_offset_ns);

  // Translate: every record of buffer[0, valid_bytes). Returns the records read.
  uint64_t Translate(uint8_t* buffer, size_t valid_bytes);
  // TakeFrames: append the frames of everything translated since the last call
  // (and a stats frame) to `out`; clears the pending records. Frames stay under
  // wire::kMaxFrameBytes.
  void TakeFrames(std::string& out);
  // AddStat: bump a counter the translator cannot see (drops, rejected buffers).
  void AddStat(wire::TraceStat s, uint64_t n) { stats_[static_cast<size_t>(s)] += n; }
  // stat: a counter so far (cumulative since construction).
  uint64_t stat(wire::TraceStat s) const { return stats_[static_cast<size_t>(s)]; }
  // pending_bytes: encoded bytes waiting for TakeFrames().
  size_t pending_bytes() const;

 private:
  uint32_t NameId(const char* text);
  uint32_t NameId(std::string_view text);
  uint32_t ApiNameId(CUpti_ActivityKind kind, uint32_t cbid);
  void Context(uint32_t context, uint32_t device);
  int64_t Ts(uint64_t t) const { return t == 0 ? 0 : static_cast<int64_t>(t) + offset_ns_; }
  void One(const CUpti_Activity* r);

  NextRecordFn next_;
  CallbackNameFn callback_name_;
  int64_t offset_ns_;
  std::unordered_map<const char*, uint32_t> by_pointer_;  // CUPTI's names are long-lived
  std::unordered_map<std::string, uint32_t> by_text_;
  std::unordered_map<uint64_t, uint32_t> api_names_;      // (kind << 32 | cbid) -> id
  std::unordered_map<uint32_t, uint32_t> contexts_;       // context -> device (sent)
  struct OpenRange {
    int64_t start_ns;
    uint32_t tid, name, domain;
  };
  std::unordered_map<uint32_t, OpenRange> open_ranges_;   // NVTX id -> start
  std::string new_names_, new_contexts_;
  uint32_t n_new_names_ = 0, n_new_contexts_ = 0;
  std::string kernels_, copies_, api_, syncs_, ranges_;
  std::array<uint64_t, static_cast<size_t>(wire::TraceStat::kCount)> stats_{};
};

// AppendFrame: one recording frame (length, type, flags 0, CRC-32, payload) to `out`.
void AppendFrame(std::string& out, wire::FrameType type, std::string_view payload);

}  // namespace gpuwhy::inject
