// Wire constants of the gpuwhy recording format (docs/recording-format.md),
// shared by the writer (record/format/recording_writer) and the reader
// (import/recording/recording_reader) so the two cannot drift. Base layer:
// both sides may include it without breaking the layering.
//
// Contract: values are fixed by the format; adding a frame type or an event
// kind is a minor-version change (readers skip unknown frame types), changing
// or removing one is a major-version change.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuwhy::wire {

// kRecordingMagic: the first 8 bytes (PNG-style high byte and CR LF).
inline constexpr char kRecordingMagic[8] = {'\x89', 'G', 'W', 'R', 'E', 'C', '\r', '\n'};
inline constexpr uint16_t kRecordingVersionMajor = 1;
// kRecordingVersionMinor: 1 adds the links and mig frames and the "nvml
// fields" / "dcgm" series sources.
inline constexpr uint16_t kRecordingVersionMinor = 1;
// Header: magic, u16 major, u16 minor, u32 reserved.
inline constexpr size_t kRecordingHeaderBytes = 16;
// Frame header: u32 payload_len, u16 type, u16 flags, u32 crc32.
inline constexpr size_t kFrameHeaderBytes = 12;
// kMaxFrameBytes: a longer length field is corruption, not data.
inline constexpr uint32_t kMaxFrameBytes = 64u << 20;
// kSampleRecordBytes: one entry of a samples frame.
inline constexpr size_t kSampleRecordBytes = 24;

// FrameType: the u16 type of a frame.
enum class FrameType : uint16_t {
  kRun = 1,
  kDevice = 2,
  kSeries = 3,
  kSamples = 4,
  kProcesses = 5,
  kEvent = 6,
  kEnd = 7,
  kLinks = 8,  // 1.1: per-link NVLink throughput of one device
  kMig = 9,    // 1.1: MIG instances of one device
};

// EventKind: the u16 kind of an event frame.
enum class EventKind : uint16_t {
  kCommandStarted = 1,  // code = child pid
  kCommandExited = 2,   // code = exit code (128+signal when killed)
  kDeviceLost = 3,      // device = index, text = NVML's reason
  kNote = 4,            // text = a message for the report ("nothing was sampled: ...")
  kDeviceUsed = 5,      // device = index first seen running the command's processes
};

// kMigFigures: the (status, value) pairs of one MIG entry, in this order:
// mem_used, mem_total (bytes), sm_active, sm_occupancy, tensor_active, dram_active (ratios).
inline constexpr size_t kMigFigures = 6;

}  // namespace gpuwhy::wire
