// The TensorBoard profiler plugin's device-adjusted steps (compat mode).
//
// Contract: TbPluginSteps() reproduces tb_plugin's StepParser
// (torch_tb_profiler/profiler/event_parser.py, commit 041e7ce9): host
// ProfilerStep#N ranges (or one step spanning all CPU ops when there are
// none), then the device adjustment
//   start = max(prev_step.end, host.start),
//   end   = max(host.end, last end of device ops launched by runtime calls
//               lying entirely inside the host step),
// then tail-step removal (trailing steps with no device ops are dropped; the
// last remaining one too if it has < 0.8x the device ops of the one before).
// Pure; used only by anchor_compat and `--compat tbplugin`.
#pragma once

#include <vector>

#include "analysis/steps/step_detector.h"
#include "model/trace.h"

namespace gpuwhy::analysis {

// TbPluginStepResult: the adjusted steps and the device ops matched to each.
struct TbPluginStepResult {
  std::vector<Step> steps;
  std::vector<int64_t> device_ops_per_step;  // same length as steps
  int32_t host_step_count = 0;               // before tail removal
  bool has_profiler_steps = false;
};

// TbPluginSteps: see the file comment.
TbPluginStepResult TbPluginSteps(const model::Trace& trace);

}  // namespace gpuwhy::analysis
