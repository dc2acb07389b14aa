// Synthetic Kineto traces with known ground truth, for tests and examples.
//
// Contract: Generate() is deterministic for a given ScenarioParams (seed
// included) and independent of the machine. The modern format follows
// Kineto HEAD (baseTimeNanoseconds, ts/dur as relative fractional µs with ns
// precision, deviceProperties, cpu_op/user_annotation/cuda_runtime/kernel/
// gpu_memcpy/gpu_memset events, ac2g flows); the legacy format follows the
// 2021 tb_plugin samples (absolute integer µs, "Kernel"/"Runtime"/"Memcpy"/
// "Memset"/"Operator" categories, "stream 7" tids, "async" flows), and all its
// times are whole µs. GroundTruth holds the figures a correct analysis must
// reproduce, computed from the events as generated (after µs rounding).
//
// Timeline: one host thread launches everything on one compute stream (7);
// NCCL kernels (multi_rank) and the communication kernels of a kernel_mix use
// stream 13 and never overlap compute kernels,
// so every busy union equals the summed durations. Each step is:
//   [DataLoader __next__ of dataloader_ns] [H2D batch copy] [kernels_per_step
//   launches, each op costs launch_cost_ns on the host] [NCCL allreduce]
//   [loss.item(): DtoH + cudaStreamSynchronize] and steps follow step_gap_ns
//   after the previous step's host end; at a step's start the host waits
//   until the GPU is at most max_queue_ahead_ns behind.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/units.h"

namespace gpuwhy::synth {

enum class Scenario {
  kHealthy,          // big GEMM kernels back to back
  kDataloaderStall,  // GPU idle while the DataLoader runs at each step start
  kSyncEveryStep,    // loss.item(): small DtoH memcpy + cudaStreamSynchronize
  kFragmented,       // thousands of 5-20 µs kernels with launch gaps
  kPageableH2d,      // per-step pageable HtoD copies + stream sync
  kMemoryBound,      // long elementwise kernels, GPU-Util pinned near 100%
  kMultiRank,        // NCCL allreduce per step; distributedInfo
  kHostBusy,         // each step: 20 ms "preprocess" CPU work that launches nothing
  kLaunchCadence,    // 10-20 µs kernels, launched back to back by ops every 40 µs
  kOneOffGap,        // healthy steps, one 300 ms "evaluate" host phase in step 4
  kHipBlockingCopy,  // ROCm names: hipLaunchKernel, a blocking hipMemcpyWithStream per step
  kVendorKernels,    // kernel_mix: DeepEP / custom all-reduce + Tensile / CK names
  kGemmShapes,       // recorded shapes: 4 bf16 GEMMs at 60% of the H100 roof, 1 (K=1020) at 10%
  kOneBlockKernel,   // a 1-block, 32-thread kernel back to back: GPU-Util ~100%, SM fill 1/132
  kTinyBlocks,       // full grids of 16-thread blocks: every SM has work, est. occupancy 25%
  // What held a GPU gap (issue 39 §2); host_hold_step says where:
  kBlockingCopyInOp,  // step 3: an op launches a kernel, then blocks 300 ms in cudaMemcpy
  kFirstCallOp,       // step 1: the first aten::cudnn_convolution runs 400 ms on the CPU
  kCompileWarmup,     // step 2: a µs cudaStreamSynchronize, then 800 ms of torch.compile
  kSyncThenHostWork,  // every step: a sync, then 15 ms of a Python frame that launches nothing
  kSetupThenMemoryBound,  // no step markers: 1.5 s of weight uploads, then a memory-bound loop
};

// ScenarioName / ParseScenario: "healthy", "dataloader_stall", ...
std::string_view ScenarioName(Scenario s);
Result<Scenario> ParseScenario(std::string_view name);
// AllScenarios: every scenario in declaration order.
std::vector<Scenario> AllScenarios();

// SynthKernel: one kernel name of a mix, with the answer a correct kernel
// taxonomy must give (set by hand from the name, not by the analysis).
struct SynthKernel {
  std::string name;            // as written to the trace (may be mangled)
  bool communication = false;  // a collective / expert-parallel kernel: runs on the comm stream
  bool matrix_core = false;    // runs on tensor cores / AMD matrix cores
  // The launching cpu_op and its recorded shapes (record_shapes=True); empty:
  // "aten::mm" without shapes. dur_ns > 0 fixes the kernel's duration.
  std::string op{};
  std::string input_dims{};   // verbatim JSON, e.g. "[[64, 128], [128, 256]]"
  std::string input_types{};  // verbatim JSON, e.g. R"(["c10::BFloat16", "c10::BFloat16"])"
  int64_t dur_ns = 0;
};

// GemmShapesMix: the kGemmShapes mix. Durations are set from the H100 SXM
// bf16 dense peak (989.4 TFLOP/s): four 4096^3 GEMMs at 60% of it and one
// 4096x4096x1020 GEMM (K not a multiple of 8) at 10%.
std::vector<SynthKernel> GemmShapesMix();

// VendorKernelMix: the kVendorKernels mix: DeepEP dispatch/combine (mangled
// and not), vLLM and TRT-LLM custom all-reduce, Tensile GEMMs with and without
// an MFMA tile, CK tile FMHA (mangled), and a PyTorch elementwise kernel.
std::vector<SynthKernel> VendorKernelMix();

// ScenarioParams: every knob of the generator, all times in ns.
struct ScenarioParams {
  Scenario scenario = Scenario::kHealthy;
  int steps = 5;
  uint64_t seed = 1;
  bool legacy = false;        // 2021 format
  int rank = 0;               // multi_rank: this file's rank
  int world_size = 1;         // multi_rank: > 1 writes distributedInfo

  int64_t base_time_ns = 1700000000000000000;  // baseTimeNanoseconds
  int64_t start_offset_ns = 1000000;           // first event after base
  int32_t pid = 4242;
  int32_t tid = 4242;

  // Host side.
  int64_t step_gap_ns = 20000;        // host gap between steps
  int64_t dataloader_ns = 0;          // DataLoader __next__ per step (0: none)
  int64_t launch_cost_ns = 8000;      // host time of one op (cpu_op incl. launch)
  int64_t launch_api_ns = 4000;       // cudaLaunchKernel duration inside the op
  int64_t launch_latency_ns = 3000;   // launch API end -> earliest kernel start
  // Inside each step the host waits until the GPU is at most this far behind
  // (launch-queue back-pressure), so host step times track GPU step times.
  int64_t max_queue_ahead_ns = 2000000;

  // GPU kernels.
  int kernels_per_step = 20;
  int64_t kernel_min_ns = 400000;     // uniform in [min, max]
  int64_t kernel_max_ns = 600000;
  std::string kernel_name = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64";
  int32_t grid_x = 264, block_x = 256, registers = 168, shared_mem_bytes = 98304;
  // The written "est. achieved occupancy %" is min(this, blocks/SM) x
  // threads/block / 2048 (Kineto's rule with this many resident blocks per SM).
  int32_t occupancy_blocks_limit = 1;
  // kernel_mix: when not empty, launch k of a step runs kernel_mix[k % size]
  // instead of kernel_name; communication kernels go to the comm stream (13).
  std::vector<SynthKernel> kernel_mix;

  // Transfers.
  int64_t h2d_bytes = 0;              // per-step batch copy (0: none)
  bool h2d_pageable = false;          // Pageable -> Device plus a stream sync
  double h2d_gbps = 20.0;             // copy speed: dur = bytes / gbps
  bool item_sync = false;             // loss.item() at step end
  int64_t memset_bytes = 0;           // per-step memset (0: none)
  int64_t nccl_ns = 0;                // multi_rank allreduce duration per step

  // Host work that launches nothing, before the step's kernels: an annotation
  // `host_work_name` filled by CPU ops `host_work_ops` in turn (0: none).
  int64_t host_work_ns = 0;
  int host_work_step = 0;             // 0: every step; N: only step N (one-off)
  std::string host_work_name = "preprocess";
  std::vector<std::string> host_work_ops = {"aten::div", "aten::sub", "aten::resize_"};
  // step_markers: false writes no ProfilerStep#N ranges (a whole-program
  // capture, as nsys takes); the steps still run as above.
  bool step_markers = true;
  // Set-up before the first step: `setup_copies` pinned HtoD uploads of
  // `setup_copy_bytes` each, spread over `setup_ns` (model loading), with no
  // kernel among them (0: none).
  int setup_copies = 0;
  int64_t setup_ns = 0;
  int64_t setup_copy_bytes = 1 << 20;
  // Runtime naming: "cuda" (cudaLaunchKernel/cudaMemcpyAsync, cbids) or "hip"
  // (hipLaunchKernel, hipMemcpyWithStream for blocking copies, no cbids, an
  // AMD device), as ROCm Kineto traces label HIP calls.
  std::string runtime = "cuda";

  // The host phase of the kBlockingCopyInOp .. kSyncThenHostWork scenarios:
  // the step it runs in (0: every step) and its length.
  int host_hold_step = 0;
  int64_t host_hold_ns = 0;
};

// DefaultParams: the documented parameters of a scenario.
ScenarioParams DefaultParams(Scenario s);

// GroundTruth: what the generated events add up to.
struct GroundTruth {
  int steps = 0;
  std::vector<int64_t> step_ns;       // host duration of each ProfilerStep
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;         // summed = union (no overlap by construction)
  int64_t min_kernel_ns = 0, max_kernel_ns = 0;
  int64_t gpu_busy_ns = 0;            // kernels + memcpy + memset (union = sum)
  int64_t gpu_span_start_ns = 0;      // absolute ns, first GPU event start
  int64_t gpu_span_end_ns = 0;        // absolute ns, last GPU event end
  int64_t memcpy_h2d_count = 0, memcpy_h2d_bytes = 0, memcpy_h2d_ns = 0;
  int64_t memcpy_d2h_count = 0, memcpy_d2h_bytes = 0, memcpy_d2h_ns = 0;
  int64_t memset_count = 0, memset_bytes = 0;
  int64_t stream_sync_calls = 0, stream_sync_ns = 0;  // cudaStreamSynchronize
  int64_t dataloader_ns = 0;          // summed DataLoader time
  int64_t host_work_ns = 0;           // summed host-work annotation time
  // kernel_mix answers: summed time of kernels marked communication /
  // matrix_core (NCCL allreduce of multi_rank counts as communication).
  int64_t comm_kernel_ns = 0;
  int64_t matrix_core_kernel_ns = 0;
};

// SynthTrace: the JSON text and its ground truth.
struct SynthTrace {
  std::string json;
  GroundTruth truth;
  // kernel_intervals_ns: [start, end) of every kernel, absolute ns, by start.
  std::vector<std::pair<int64_t, int64_t>> kernel_intervals_ns;
};

// SmiLogParams: how SmiLog() samples the trace.
struct SmiLogParams {
  int64_t period_ns = 100 * kNsPerMs;  // nvidia-smi -lms 100
  int tz_offset_hours = 0;             // local time = UTC + this (nvidia-smi writes local time)
  int64_t lead_ns = 1 * kNsPerS;       // sampling starts this long before the first kernel
  int64_t tail_ns = 1 * kNsPerS;       // and ends this long after the last one
};

// SmiLog: an `nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,
// utilization.memory,power.draw,power.limit --format=csv -lms P` log of the
// trace's GPU 0. utilization.gpu of each sample is NVML's definition over the
// period before it: the share of that period in which a kernel ran, rounded
// to a whole percent. Power follows utilization (70 W idle to 600 W busy, of a
// 700 W limit); memory utilization is half the GPU-Util. Timestamps are
// "YYYY/MM/DD HH:MM:SS.mmm" local time with no zone, as nvidia-smi prints them.
std::string SmiLog(const SynthTrace& trace, const SmiLogParams& params);

// Generate: build the trace for `params`.
SynthTrace Generate(const ScenarioParams& params);

// WriteTrace: write `json` to `path`, gzip-compressed when it ends in ".gz"
// (fixed header, no timestamp, so output bytes are reproducible).
Status WriteTrace(const std::string& json, const std::string& path);

}  // namespace gpuwhy::synth
