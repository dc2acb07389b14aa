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
// fields" / "dcgm" series sources; 2 adds the CUPTI trace streams (frame types
// 10-17, written by libgpuwhy_inject.so, `gpuwhy record --trace`).
inline constexpr uint16_t kRecordingVersionMinor = 2;
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
  // 1.2: one CUPTI trace stream per traced process. A kTrace frame opens a
  // stream; the frames 11-17 that follow belong to it until the next kTrace.
  kTrace = 10,       // stream header (TraceHeader fields, see the doc)
  kTraceNames = 11,  // u32 n, n x (u32 id, str text): names used by later frames
  kTraceKernels = 12,    // u32 n, n x WireKernel
  kTraceCopies = 13,     // u32 n, n x WireCopy (memcpy, peer memcpy, memset)
  kTraceApi = 14,        // u32 n, n x WireApi (runtime / driver API calls)
  kTraceSyncs = 15,      // u32 n, n x WireSync
  kTraceRanges = 16,     // u32 n, n x WireRange (NVTX push/pop and start/end ranges)
  kTraceContexts = 17,   // u32 n, n x (u32 context, u32 device)
  kTraceStats = 18,      // u32 n, n x u64 counters (TraceStat order); cumulative, last wins
};

// Trace record layouts (1.2). Packed, little-endian, fixed size; a reader takes
// the record size from this header and a later minor version may only append
// fields to a record by adding a new frame type. Times are int64 ns on
// CLOCK_REALTIME (already shifted from CUPTI's clock by the writer); 0 or a
// negative time is missing. Ids: 0xFFFFFFFF is missing (CUPTI's own sentinel).
inline constexpr uint32_t kTraceMissingU32 = 0xFFFFFFFFu;

#pragma pack(push, 1)
struct WireKernel {
  int64_t start_ns, end_ns;
  uint32_t device, context, stream, correlation;
  uint32_t name;      // id of a names frame entry (0 = unknown)
  uint32_t graph_id;  // 0 = not launched from a graph
  int32_t grid[3], block[3];
  uint16_t registers_per_thread;
  uint16_t reserved;
  int32_t static_shared_bytes, dynamic_shared_bytes;
};
struct WireCopy {
  int64_t start_ns, end_ns;
  int64_t bytes;
  uint32_t device, context, stream, correlation;
  uint32_t graph_id;
  uint8_t op;         // TraceCopyOp
  uint8_t copy_kind;  // CUpti_ActivityMemcpyKind (memcpy) / 0 (memset)
  uint8_t src_kind;   // CUpti_ActivityMemoryKind
  uint8_t dst_kind;   // CUpti_ActivityMemoryKind (memset: the memory set)
  uint32_t src_device, dst_device;  // peer copies; missing otherwise
};
struct WireApi {
  int64_t start_ns, end_ns;
  uint32_t tid;  // system thread id (gettid)
  uint32_t correlation;
  uint32_t cbid;
  uint32_t name;   // names frame id, "_vNNNN" suffix stripped
  uint8_t kind;    // TraceApiKind
  uint8_t reserved[3];
  int32_t return_value;  // CUresult / cudaError_t
};
struct WireSync {
  int64_t start_ns, end_ns;
  uint32_t context, stream, correlation, event_id;
  uint8_t type;  // CUpti_ActivitySynchronizationType
  uint8_t reserved[3];
};
struct WireRange {
  int64_t start_ns, end_ns;
  uint32_t tid;
  uint32_t name, domain;  // names frame ids
};
#pragma pack(pop)
static_assert(sizeof(WireKernel) == 76 && sizeof(WireCopy) == 56 && sizeof(WireApi) == 40 &&
              sizeof(WireSync) == 36 && sizeof(WireRange) == 28);

// TraceCopyOp: WireCopy::op.
enum class TraceCopyOp : uint8_t { kMemcpy = 1, kPeerMemcpy = 2, kMemset = 3 };
// TraceApiKind: WireApi::kind.
enum class TraceApiKind : uint8_t { kRuntime = 1, kDriver = 2, kInternalLaunch = 3 };

// TraceStat: the counters of a kTraceStats frame, in wire order. Cumulative
// since the stream started; the last frame of a stream wins.
enum class TraceStat : uint32_t {
  kRecords = 0,           // activity records read from CUPTI buffers
  kDroppedRecords = 1,    // records CUPTI dropped (cuptiActivityGetNumDroppedRecords)
  kRejectedBuffers = 2,   // buffer requests refused because the memory bound was reached
  kMissingTimestamps = 3, // kernel/copy records with start = end = 0 (kept out)
  kOverheadRecords = 4,   // CUPTI_ACTIVITY_KIND_OVERHEAD records
  kOverheadNs = 5,        // their total duration
  kOtherRecords = 6,      // records of kinds not translated (events, JIT, ...)
  kUnpairedRanges = 7,    // NVTX range ends without a start, or starts never ended
  kBuffers = 8,           // buffers completed by CUPTI
  kCount = 9,
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
