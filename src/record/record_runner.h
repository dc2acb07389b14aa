// Record runner: run a command and sample the GPUs while it runs.
//
// Lifecycle of RunAndRecord(): load NVML (a missing driver is not an error:
// the command still runs and the recording says why nothing was sampled),
// create the recording, fork/exec the command, then sample at the interval
// until it exits. SIGINT/SIGTERM/SIGHUP sent to gpuwhy are forwarded to the
// command (a terminal's Ctrl-C already reaches it through the process group,
// so kernel-generated signals are not sent twice). The recording is flushed
// every tick (at least once a second), so a SIGKILL of gpuwhy loses at most
// the last tick. Returns the command's exit code (128+N when killed by signal
// N; 127 when it could not be started).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/units.h"

namespace gpuwhy::record {

struct RecordOptions {
  std::vector<std::string> argv;   // the command and its arguments (non-empty)
  std::string output_path;         // empty: DefaultRecordingName()
  int64_t interval_ns = 100 * kNsPerMs;
  std::string gpuwhy_version;
  // dcgm / dcgm_host: DCGM host engine for the real figures of GPUs without GPM.
  bool dcgm = true;
  std::string dcgm_host = "127.0.0.1";
  // trace: run the command with the CUPTI injection library (`record --trace`,
  // docs/record-trace.md): CUDA_INJECTION64_PATH = inject_library, each CUDA
  // process writes a stream into <output>.trace/, merged into the recording
  // when the command ends. trace_kinds: GPUWHY_TRACE_KINDS for the library
  // (empty = its default set).
  bool trace = false;
  std::string inject_library;
  std::string trace_kinds;
  // quiet_without_nvml: say nothing when NVML is absent (`record --torch`,
  // where a CPU-only run is normal and gets its own line).
  bool quiet_without_nvml = false;
};

struct RecordResult {
  int exit_code = 0;
  std::string output_path;
  bool sampled = false;          // at least one device was sampled
  std::string nvml_status;       // why nothing was sampled (empty when sampled)
  int32_t device_count = 0;
  uint64_t samples = 0;          // sample values written
  uint64_t ticks = 0;
  // With options.trace: streams merged into the recording, how many of them
  // hold trace data (the others were disabled), and why nothing was traced
  // when traced_streams is 0.
  int32_t trace_streams = 0;
  int32_t traced_streams = 0;
  std::string trace_status;
};

// TraceStreamFacts: what RecordingWriter::AppendTraceStream() learned from one
// stream file when RunAndRecord() merged it.
struct TraceStreamFacts {
  int32_t pid = kMissingI32;
  std::string status;   // empty: traced; otherwise why the library disabled itself
  uint64_t frames = 0;  // frames appended (a torn tail is left out)
};

// NoDriverReason: why CUDA cannot run here ("no NVIDIA driver (libcuda.so.1: ...)"),
// or empty when libcuda.so.1 loads.
std::string NoDriverReason();

// RankFromEnv: RANK, else SLURM_PROCID, else LOCAL_RANK; missing when none.
int32_t RankFromEnv();

// DefaultRecordingName: "gpuwhy-<host>-<pid>[.rank<R>].gwrec".
std::string DefaultRecordingName(const std::string& host, int32_t pid, int32_t rank);

// RunAndRecord: see the file comment. Progress and warnings go to `err`.
// Fails (Status) only when the recording cannot be created or written; a
// command that fails to start gives exit_code 127 and a message on `err`.
Result<RecordResult> RunAndRecord(const RecordOptions& options, std::ostream& err);

}  // namespace gpuwhy::record
