// Real throughput from the trace: FLOPs and bytes per op, achieved TFLOP/s
// and GB/s, roofline placement, and MFU (docs/throughput.md).
//
// Contract: AnalyzeThroughput() is pure (trace in, plain structs out).
// - Op instances: each GPU op (kernel, memcpy, memset) is attributed through
//   its External id to the CPU op that launched it, then up the CPU-op tree to
//   the top-most op with a model (a composite op such as aten::linear only
//   when nothing below it has one). The op's GPU time is the union of its GPU
//   ops' intervals across streams; its FLOPs and bytes come from ModelOpWork().
// - Per device: aggregates per op class and per unique (op, Input Dims, Input
//   type), roofline placement against the device's datasheet peaks, MFU =
//   matrix FLOPs in the window / (window x peak of the dominant matrix dtype)
//   and busy-time MFU = the same FLOPs / (kernel busy time x peak).
// - Missing inputs are stated, never guessed: no shapes, or a GPU with no row
//   in the peak table, leave the ratios NaN with a note saying why.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_arch/gpu_peaks.h"
#include "analysis/steps/step_detector.h"
#include "analysis/throughput/op_model.h"
#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// OpInstance: one attributed op call (for tests and the anchor comparison).
struct OpInstance {
  uint32_t range_row = 0;         // row in trace.ranges
  int32_t device_id = kMissingI32;
  uint32_t work = 0;              // index into ThroughputResult::works
  int64_t gpu_time_ns = 0;        // union of its GPU ops' intervals
  int64_t gpu_start_ns = kMissingI64;  // first GPU op start
  int32_t gpu_ops = 0;
  // tensor_core_kernel: a kernel of the op runs on tensor/matrix cores (by
  // its name); an fp32 matrix op with one runs as TF32 (work.precision says so).
  bool tensor_core_kernel = false;
  // kernel_precision: the precision its kernels' names state (first one
  // known); the dtype of an op whose shapes carry none (nsys emit_nvtx).
  Precision kernel_precision = Precision::kUnknown;
};

// Roofline: placement of achieved figures against the device's roofs.
struct Roofline {
  double achieved_tflops = kMissingF64;
  double achieved_gbps = kMissingF64;
  double intensity = kMissingF64;        // FLOPs / byte
  double compute_roof_ratio = kMissingF64;    // achieved / peak of its dtype
  double bandwidth_roof_ratio = kMissingF64;  // achieved / DRAM bandwidth
  double ridge = kMissingF64;            // FLOPs / byte where the roofs meet
  std::string bound;                     // "compute" | "memory" | "" (unknown)
};

// OpAggregate: one unique (op, shapes, dtype), or one op class.
struct OpAggregate {
  std::string name;        // op name, or class name for class rows
  std::string input_dims;  // verbatim; empty for class rows
  std::string input_types;
  std::string params;
  OpClass op_class = OpClass::kNone;
  Precision precision = Precision::kUnknown;
  int64_t count = 0;
  double flops = 0;        // summed over instances with FLOPs
  double bytes = 0;        // summed over instances with bytes
  int64_t gpu_time_ns = 0;
  Roofline roof;
};

// DeviceThroughput: the throughput figures of one device.
struct DeviceThroughput {
  int32_t device_id = kMissingI32;
  std::string device_name;
  std::string gpu_model;    // peak-table row; empty when unknown
  std::string peak_source;  // datasheet
  std::string note;         // why ratios are missing (unknown GPU, no shapes, ...)
  Precision dominant_precision = Precision::kUnknown;
  double peak_tflops = kMissingF64;  // of the dominant precision
  double mem_bw_gbps = kMissingF64;
  int64_t modelled_ops = 0;          // instances with FLOPs
  int64_t op_gpu_time_ns = 0;        // GPU time of all attributed instances
  int64_t modelled_gpu_time_ns = 0;  // of instances with FLOPs
  double matrix_flops = 0;           // GEMM + conv + attention in the window
  std::string window;                // "marked steps" | "GPU-op span"
  int64_t window_ns = kMissingI64;
  int64_t busy_ns = kMissingI64;     // kernel busy time inside the window
  double mfu_ratio = kMissingF64;
  double busy_mfu_ratio = kMissingF64;
  double matrix_share = kMissingF64;  // matrix ops' share of attributed GPU time
  double achieved_tflops = kMissingF64;  // all modelled FLOPs / busy time
  // Roofline split of modelled op GPU time (each instance placed against the
  // roofs of its own precision; needs a peak-table row): below the ridge
  // point (memory-bound) or at/above it (compute-bound), and the bytes the
  // memory-bound ones moved.
  int64_t memory_bound_time_ns = 0;
  int64_t compute_bound_time_ns = 0;
  double memory_bound_bytes = 0;
  int64_t matrix_time_ns = 0;       // GPU time of GEMM/conv/attention instances
  int64_t fp32_matrix_time_ns = 0;  // of those, fp32 on the SIMT units (no TF32)
  int64_t tf32_matrix_time_ns = 0;  // of those, fp32 run as TF32 on tensor cores
  std::vector<OpAggregate> classes;   // by GPU time, descending
  std::vector<OpAggregate> top_ops;   // unique ops by GPU time, at most kTopOps
  static constexpr size_t kTopOps = 10;
};

// ThroughputResult: per-device figures plus the instances behind them.
struct ThroughputResult {
  int64_t ops_with_shapes = 0;  // CPU ops that carry Input Dims
  std::string note;             // trace-level: "no op shapes (record_shapes=False)", ...
  std::vector<DeviceThroughput> devices;
  std::vector<OpInstance> instances;
  std::vector<OpWork> works;  // distinct works; OpInstance::work indexes it
};

// AnalyzeThroughput: see the file comment. `steps` sets the MFU window.
ThroughputResult AnalyzeThroughput(const model::Trace& trace, const StepResult& steps);

// Place: roofline placement of `flops`/`bytes` done in `time_ns` against peaks.
Roofline Place(double flops, double bytes, int64_t time_ns, const GpuPeaks* peaks,
               Precision precision);

}  // namespace gpuwhy::analysis
