#include "analysis/detectors/prediction.h"

#include <algorithm>
#include <string>

#include "analysis/detectors/detector.h"

namespace gpuwhy::analysis::detectors {

void PredictStepAfterFix(Finding& f, const Timeline& tl) {
  if (!IsValid(f.lost_per_step_ns) || f.lost_per_step_ns <= 0) return;
  const DeviceTimeline* d = nullptr;
  for (const DeviceTimeline& x : tl.devices)
    if (x.device_id == f.device_id) d = &x;
  if (d == nullptr) d = tl.Primary();
  if (d == nullptr || d->steps.empty() || d->steps_total_ns <= 0) return;
  PredictStepAfterFix(f, d->steps, d->steps_total_ns,
                      OverlapLength(d->busy, d->steps.front().start_ns, d->steps.back().end_ns));
}

void PredictStepAfterFix(Finding& f, const std::vector<StepWindow>& steps, int64_t steps_total_ns,
                         int64_t busy_in_span_ns) {
  if (!IsValid(f.lost_per_step_ns) || f.lost_per_step_ns <= 0) return;
  if (steps.empty() || steps_total_ns <= 0) return;
  const int64_t n = static_cast<int64_t>(steps.size());
  const int64_t step = steps_total_ns / n;  // MeanStepNs
  const int64_t busy = busy_in_span_ns / n;
  const int64_t lost = f.lost_per_step_ns;
  int64_t predicted = step - lost;
  std::string why;
  switch (f.category) {
    case Category::kKernelEfficiency:
      // Faster kernels: the saving is kernel time, at most all of it.
      predicted = step - std::min(lost, busy);
      why = "the kernels run as fast as the finding estimates; idle time unchanged";
      if (f.id == "kernel_efficiency.busy_not_work")
        why = "the kernels speed up in proportion to the SMs they leave idle (the most a fuller "
              "launch could give); idle time unchanged";
      break;
    case Category::kCommunication:
      why = "the exposed communication is fully overlapped with compute";
      break;
    case Category::kImbalance:
      why = "every rank finishes as early as the fastest";
      break;
    default: {
      // An idle cause: its gaps leave the critical path; the GPU still needs
      // its busy time.
      predicted = std::max(predicted, busy);
      why = "the GPU no longer idles for this cause; its other gaps and its busy time stay";
      if (f.id == "data_loading.dataloader") {
        // The host still launches the step's work after the batch arrives.
        double dl = MetricOf(f, "dataloader_ns_per_step");
        int64_t host = 0;
        for (const StepWindow& w : steps) host += w.host_end_ns - w.host_start_ns;
        host /= n;
        if (IsValid(dl) && host > 0) {
          const int64_t host_floor = host - static_cast<int64_t>(dl);
          if (host_floor > predicted) predicted = host_floor;
        }
        why = "workers keep the batch ready, so the GPU no longer waits for the DataLoader; "
              "the host still launches the step's work at today's speed";
      }
      break;
    }
  }
  f.predicted_step_ns = std::max<int64_t>(0, predicted);
  f.prediction_assumption = why;
}

}  // namespace gpuwhy::analysis::detectors
