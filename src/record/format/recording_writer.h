// RecordingWriter: writes the gpuwhy recording format (docs/recording-format.md).
//
// Lifecycle: Create() opens the file and writes the 16-byte header; then
// WriteRun() once, WriteDevices() once, WriteSnapshot() per sampler tick and
// WriteEvent() as things happen; Flush() hands buffered frames to the kernel
// (one write(2)); Close() writes the end record and closes. Every frame is
// length-prefixed and CRC-checked, so after a SIGKILL the file is readable up
// to the last Flush(); the caller flushes at least once a second.
// The reader lives in import/recording (the import layer may not include
// record/); both take the wire constants from base/recording_wire.h, and
// tests/record round-trips writer -> importer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "base/recording_wire.h"
#include "base/status.h"
#include "record/snapshot.h"

namespace gpuwhy::record {

// Wire constants: one definition in base/recording_wire.h, shared with the reader.
inline constexpr const char (&kRecordingMagic)[8] = wire::kRecordingMagic;
inline constexpr uint16_t kRecordingVersionMajor = wire::kRecordingVersionMajor;
inline constexpr uint16_t kRecordingVersionMinor = wire::kRecordingVersionMinor;
using FrameType = wire::FrameType;
using EventKind = wire::EventKind;

// RunInfo: the run's identity (first frame after the header).
struct RunInfo {
  int64_t start_wall_ns = kMissingI64;
  int64_t interval_ns = kMissingI64;
  int32_t gpuwhy_pid = kMissingI32;
  int32_t rank = kMissingI32;
  int32_t local_rank = kMissingI32;
  int32_t world_size = kMissingI32;
  std::string hostname;
  std::string gpuwhy_version;
  std::string driver_version;
  std::string nvml_version;
  std::string nvml_status;  // empty when NVML loaded; else why nothing is sampled
  std::string cwd;
  std::vector<std::string> argv;  // the recorded command
};

class RecordingWriter {
 public:
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Create: create/truncate `path` and write the header. `interval_ns` and
  // `slow_period_ns` become the period_ns of polled series.
  static Result<std::unique_ptr<RecordingWriter>> Create(const std::string& path,
                                                         int64_t interval_ns,
                                                         int64_t slow_period_ns);

  void WriteRun(const RunInfo& run);
  void WriteDevices(const SystemInfo& system);
  // WriteSnapshot: new readings (each series' value only when its time moved),
  // driver-buffer samples, process lists when read, device-lost events, and
  // per-link NVLink / MIG frames (at most once per slow period per device).
  void WriteSnapshot(const Snapshot& snap);
  void WriteEvent(int64_t ts_ns, EventKind kind, int32_t device, int64_t code,
                  const std::string& text);
  // AppendTraceStream: append the frames of a trace stream file written by
  // libgpuwhy_inject.so (header checked, every frame's CRC checked; a torn or
  // corrupt tail is left out). Fills `pid`/`status` from its trace frame.
  // Fails only when the file cannot be read or is not a recording.
  Status AppendTraceStream(const std::string& stream_path, int32_t* pid, std::string* status,
                           uint64_t* frames);
  // Flush: write buffered frames to the file (write(2), no fsync).
  Status Flush();
  // Close: write the end record, flush and close. Idempotent.
  Status Close(int64_t ts_ns, int32_t exit_code);

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t samples_written() const { return samples_written_; }

 private:
  RecordingWriter() = default;
  uint16_t SeriesId(int32_t device, Metric m, Source src);
  void Frame(FrameType type, const std::string& payload);

  int fd_ = -1;
  std::string path_;
  std::string buf_;
  int64_t interval_ns_ = kMissingI64;
  int64_t slow_period_ns_ = kMissingI64;
  std::map<std::tuple<int32_t, uint8_t, uint8_t>, uint16_t> series_;
  std::vector<int64_t> last_ts_;  // by series id
  std::map<int32_t, int64_t> util_period_ns_;  // device -> driver sample period
  std::map<int32_t, int64_t> last_links_ns_;   // device -> last links frame
  std::map<int32_t, int64_t> last_mig_ns_;     // device -> last mig frame
  uint64_t bytes_written_ = 0;
  uint64_t samples_written_ = 0;
  bool closed_ = false;
};

}  // namespace gpuwhy::record
