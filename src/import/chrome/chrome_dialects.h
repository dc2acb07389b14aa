// Chrome-trace dialects: one Importer per tool whose JSON is a Chrome trace
// but not Kineto's. Each reads its events through the one tokenizer
// (chrome_trace_tokenizer.h) and maps them to the trace model by the rules of
// the tool that wrote them; each is recognised by content (Sniff), never by
// file name. Kineto / torch.profiler JSON stays with KinetoImporter.
//
// Contract shared by all: per-event problems bump trace.stats counters; a
// broken container is one Status (path + byte offset); a document that parses
// but holds nothing the dialect maps is one Status saying what it looks like
// and what is missing (the CLI exits 2), never an empty trace that would read
// as an idle GPU. Read() ends with trace.Finalize().
#pragma once

#include <string_view>

#include "base/input_stream.h"
#include "base/status.h"
#include "import/chrome/chrome_trace_tokenizer.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// ---- PyTorch legacy autograd profiler ("torch-legacy-json") ----
//
// torch.autograd.profiler.profile().export_chrome_trace() (and every PyTorch
// built without Kineto): a top-level array; pid "CPU functions" holds the ops
// (integer tid, µs since the profiler started, no cat); pid "CUDA functions"
// holds kernels (tid = the device), each linked to its launching op by a flow
// pair ("s" on the op, "f" on the kernel, cat "cpu_to_cuda", same id).
// Maps: ops to CPU-op ranges ("ProfilerStep#N" to user-annotation ranges
// with step N, other names without "::" to user annotations), kernels to
// kernel rows with correlation_id = the flow id and external_id shared with
// the launching op's range. Clock "torch_profiler_start".

// LooksLikeTorchLegacy: `prefix` is a top-level array whose events name the
// pid "CPU functions" or "CUDA functions".
bool LooksLikeTorchLegacy(std::string_view prefix);
// ReadTorchLegacyStream: import `in` as a legacy trace into `trace` (empty);
// `options` (tests): how the events array is cut for the parallel mapping,
// which gives the same trace as one thread (as for the other dialects).
Status ReadTorchLegacyStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options = {});

class TorchLegacyImporter final : public Importer {
 public:
  std::string_view name() const override { return "torch-legacy-json"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeTorchLegacy(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

// ---- JAX / XLA trace viewer JSON ("jax-trace-json") ----
//
// jax.profiler (create_perfetto_trace=True: perfetto_trace.json.gz) and
// TensorBoard/xprof `*.trace.json.gz`: an object with traceEvents whose
// process_name metadata names devices "/device:GPU:N" / "/device:TPU:N" and
// hosts "/host:CPU"; thread_name metadata names the lines: "Stream #N(...)"
// (GPU streams), "XLA Ops", "XLA Modules", "Steps", host threads. Maps:
// events on a GPU stream line to kernels (memcpy/memset rows when named so)
// on device N, stream N; on a device with no stream lines (TPU), "XLA Ops"
// events are the device's work (kernel rows, stream = the line's tid);
// otherwise "XLA Ops"/"XLA Modules" are GPU-annotation ranges; host events
// are ranges, step annotations (args step_num, "StepMarker", "train_step"
// style names, a device's "Steps" line) get their step number. ts/dur are
// read as µs (the Trace Event Format's unit; displayTimeUnit is a display
// hint) unless the data can only be ns (epoch-ns magnitudes); the unit used
// is stated in TraceInfo::import_notes. Clock "jax_profiler".

// LooksLikeJaxTrace: `prefix` is a trace object naming "/device:GPU:",
// "/device:TPU:" or "/host:CPU" processes.
bool LooksLikeJaxTrace(std::string_view prefix);
Status ReadJaxTraceStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options = {});

class JaxTraceImporter final : public Importer {
 public:
  std::string_view name() const override { return "jax-trace-json"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeJaxTrace(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

// ---- rocprof v1 results.json and RPD's rpd2tracing JSON ("rocprof-json") ----
//
// rocprof v1 (--hip-trace / --sys-trace): an object with traceEvents (first
// event "{}"), process_name "CPU HIP API" / "COPY" / "GPU<N>", X events with
// string pid/tid/ts/dur (µs) and args.BeginNs/EndNs (ns on the HSA clock,
// used when present), flows "s" -> "t" linking a HIP call to its copy or
// dispatch. RPD (rocmProfileData rpd2tracing.py): a top-level array starting
// with "{}", GPU ops on process "GPU<N>" with args.desc KernelExecution /
// CopyHostToDevice / CopyDeviceToHost / FillBuffer, HIP calls on threads
// named "Hip <tid>", flows "s" -> "f" (cat "api_op"), counters "sclk" and
// "Allocated Memory". Maps: ops to kernel / memcpy / memset rows on device N
// (stream = the tid), HIP calls to API rows; the flow id is the correlation
// id of both ends. Grid sizes in work-items (rocprof's grid-size) become
// workgroups. Clock "hsa_system" (rocprof v1) or "rpd" (RPD).

// LooksLikeRocprofJson: rocprof v1 or RPD JSON by their process/thread names
// and arg keys.
bool LooksLikeRocprofJson(std::string_view prefix);
Status ReadRocprofJsonStream(InputStream& in, model::Trace& trace, const ChromeReadOptions& options = {});

class RocprofJsonImporter final : public Importer {
 public:
  std::string_view name() const override { return "rocprof-json"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeRocprofJson(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
