// Reproduction of the PyTorch TensorBoard profiler plugin's overview figures
// (`gpuwhy analyze --compat tbplugin`).
//
// Contract: ReproduceTbPlugin() is pure and follows tb_plugin (commit
// 041e7ce9, docs/utilization.md §compat): device-adjusted steps
// (steps/tb_plugin_steps.h); per device GPU Utilization = |∪ kernels ∩
// [first step start, last step end]| / that span; Est. SM Efficiency = ∫
// min(1, Σ blocks-per-SM arg) over the span / span; Est. Achieved Occupancy
// = kernel-duration-weighted mean of the occupancy arg within the span; and
// the step-time breakdown with roles in priority order Kernel > Memcpy >
// Memset > Communication > Runtime > DataLoader > CPU Exec > Other. Values
// are unrounded percentages (the plugin shows round(x, 2)).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// TbRole: the step-time breakdown roles, in the plugin's priority order.
enum class TbRole : uint8_t {
  kKernel = 0,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther,
};
inline constexpr int kTbRoleCount = 8;

// ToString: the plugin's column names ("Kernel", ..., "CPU Exec", "Other").
std::string_view ToString(TbRole r);

// TbPluginDevice: GPU metrics of one device.
struct TbPluginDevice {
  int32_t device_id = kMissingI32;
  double gpu_util_pct = kMissingF64;
  double sm_efficiency_pct = kMissingF64;
  double occupancy_pct = kMissingF64;
  double tensor_core_kernel_pct = kMissingF64;  // plugin allowlist, share of kernel time
  // The plugin's "GPU Utilization" counter track: the capture window
  // (TraceInfo::capture_*, else the trace extent) cut into int(range / B)
  // buckets of B = 1 µs × 10^k, the smallest with range / B <= 100; the last
  // bucket runs to the window's end. Each value is |∪ kernels ∩ bucket| /
  // bucket length (kernels of the whole trace, not clipped to steps), as a
  // ratio; the plugin emits the same value × 100.
  int64_t util_timeline_start_ns = kMissingI64;
  int64_t util_timeline_bucket_ns = kMissingI64;
  std::vector<double> util_timeline;
};

// TbPluginResult: the overview page of one worker trace.
struct TbPluginResult {
  int32_t step_count = 0;
  int64_t steps_start_ns = kMissingI64;
  int64_t steps_end_ns = kMissingI64;
  double avg_step_us = kMissingF64;
  std::array<double, kTbRoleCount> avg_role_us{};  // per-step average
  std::array<double, kTbRoleCount> role_pct{};     // of the average step
  std::vector<TbPluginDevice> devices;
};

// ReproduceTbPlugin: see the file comment. With no steps the result has
// step_count 0 and missing figures.
TbPluginResult ReproduceTbPlugin(const model::Trace& trace);

}  // namespace gpuwhy::analysis
