#include "analysis/detectors/fragmentation_detector.h"

#include <algorithm>
#include <string>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/gpu_arch/name_memo.h"
#include "base/select.h"

namespace gpuwhy::analysis::detectors {

std::vector<Finding> DetectFragmentation(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  const model::KernelTable& k = t.kernels;
  const model::ApiTable& api = t.api_calls;
  for (const DeviceTimeline& d : in.timeline.devices) {
    // The device's kernels that start inside its step windows. Their
    // durations are counted, not copied (millions in a long trace): the
    // median comes from a histogram and, at most, a second read.
    auto for_each_duration = [&](auto&& visit) {
      for (size_t i = 0; i < k.size(); ++i) {
        if (k.device_id[i] != d.device_id || !IsValid(k.start_ns[i]) || !IsValid(k.end_ns[i]))
          continue;
        if (Timeline::StepIndexAt(d, k.start_ns[i]) < 0) continue;
        visit(i, k.end_ns[i] - k.start_ns[i]);
      }
    };
    Int64Histogram durations;
    int64_t graph_kernels = 0, triton_kernels = 0, under_10us = 0, under_20us = 0, under_50us = 0;
    NameMemo is_triton(t, IsTritonKernel);
    for_each_duration([&](size_t i, int64_t dur) {
      durations.Add(dur);
      under_10us += dur < 10 * kNsPerUs;
      under_20us += dur < 20 * kNsPerUs;
      under_50us += dur < 50 * kNsPerUs;
      if (IsValid(k.graph_id[i]) && k.graph_id[i] != 0) ++graph_kernels;
      if (is_triton.Get(k.name[i])) ++triton_kernels;
    });
    if (durations.count() == 0) continue;
    int64_t graph_launches = 0;
    ApiPredicateMemo graph_launch(t, IsGraphLaunchApi);
    for (size_t i = 0; i < api.size(); ++i)
      if (graph_launch(i) && Timeline::StepIndexAt(d, api.start_ns[i]) >= 0) ++graph_launches;
    const uint64_t kernels = durations.count();
    double n = static_cast<double>(kernels);
    double u10 = static_cast<double>(under_10us) / n, u20 = static_cast<double>(under_20us) / n,
           u50 = static_cast<double>(under_50us) / n;
    int64_t host = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kHostLaunch)];
    int64_t kwait = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kKernelWait)];
    Finding f;
    f.id = "launch_bound.fragmented";
    f.category = Category::kLaunchBound;
    f.rank = in.rank;
    f.title = "Launch-bound: many small kernels, GPU waits for launches";
    SetLoss(f, d, host + kwait);
    bool fragmented = u10 >= 0.5;
    if (!(IsValid(f.lost_step_ratio) && f.lost_step_ratio > 0.01) && !fragmented) continue;
    if (fragmented && f.severity < Severity::kLow) f.severity = Severity::kLow;
    const int64_t median = SelectNth(durations, kernels / 2, [&](auto&& visit) {
      for_each_duration([&](size_t, int64_t dur) { visit(dur); });
    });
    double steps = static_cast<double>(d.steps.size());
    double step_s = NsToS(MeanStepNs(d));
    double launch_ratio = d.kernel_ns > 0 ? static_cast<double>(d.launch_api_ns) /
                                                static_cast<double>(d.kernel_ns)
                                          : kMissingF64;
    f.summary = FormatPct(u10) + " of " + std::to_string(kernels) +
                " kernels run under 10 µs (median " + FormatMs(median) +
                (d.steps_from_markers
                     ? ", " + std::to_string(static_cast<int64_t>(n / steps)) + " kernels per step"
                     : std::string()) +
                "); the GPU waits for the host to launch work " + FormatPct(f.lost_step_ratio) +
                (d.steps_from_markers ? " of the step." : " of the span.");
    AddMetric(f, "kernels_per_step", n / steps, "count", "kernels per step");
    AddMetric(f, "kernel_under_10us_ratio", u10, "ratio", "kernels under 10 µs");
    AddMetric(f, "kernel_under_20us_ratio", u20, "ratio", "kernels under 20 µs");
    AddMetric(f, "kernel_under_50us_ratio", u50, "ratio", "kernels under 50 µs");
    AddMetric(f, "kernel_median_ns", static_cast<double>(median), "ns", "median kernel duration");
    AddMetric(f, "launch_rate_per_s", step_s > 0 ? n / steps / step_s : kMissingF64, "per_s",
              "kernel launches per second");
    AddMetric(f, "launch_api_to_kernel_time_ratio", launch_ratio, "ratio",
              "launch API time / kernel time");
    AddMetric(f, "host_wait_step_ratio",
              static_cast<double>(host) / static_cast<double>(d.steps_total_ns), "ratio",
              "GPU idle waiting for launches (launch-cadence part of HTA host_wait)");
    AddMetric(f, "kernel_wait_step_ratio",
              static_cast<double>(kwait) / static_cast<double>(d.steps_total_ns), "ratio",
              "gaps under 30 µs between kernels (HTA kernel_wait)");
    AddMetric(f, "graph_kernel_ratio", static_cast<double>(graph_kernels) / n, "ratio",
              "kernels replayed from CUDA graphs");
    AddMetric(f, "triton_kernel_ratio", static_cast<double>(triton_kernels) / n, "ratio",
              "Triton (torch.compile) kernels");
    // Worst host-launch gaps.
    constexpr size_t kExamples = 3;
    const std::vector<const IdleGap*> worst = RecurringGaps(d, IdleCause::kHostLaunch, kExamples);
    for (size_t i = 0; i < worst.size() && i < kExamples; ++i) {
      Example ex;
      ex.what = "GPU idle waiting for a launch";
      ex.start_ns = worst[i]->start_ns;
      ex.dur_ns = worst[i]->attributed_ns;
      if (d.steps_from_markers) ex.step = d.steps[static_cast<size_t>(worst[i]->step_index)].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      f.examples.push_back(std::move(ex));
    }
    bool graphs = graph_kernels > 0 && (graph_launches == 0 ||
                                        static_cast<double>(graph_kernels) /
                                                static_cast<double>(graph_launches) > 4.0);
    bool triton = static_cast<double>(triton_kernels) / n > 0.2;
    if (graphs)
      f.notes.push_back("CUDA graphs already in use: " +
                        FormatPct(static_cast<double>(graph_kernels) / n) +
                        " of kernels carry a graph id" +
                        (graph_launches > 0 ? ", " + std::to_string(graph_kernels / graph_launches) +
                                                  " kernels per cudaGraphLaunch"
                                            : std::string()) + ".");
    if (triton)
      f.notes.push_back("torch.compile/Triton already in use: " +
                        FormatPct(static_cast<double>(triton_kernels) / n) + " of kernels are triton_*.");
    if (!triton)
      f.recommendations.push_back(
          {FixKind::kFusion,
           "Fuse small kernels: torch.compile(model) merges elementwise/normalization chains "
           "into a few Triton kernels."});
    if (!graphs)
      f.recommendations.push_back(
          {FixKind::kCudaGraphs,
           "Replay the step as a CUDA graph (torch.compile(mode='reduce-overhead') or "
           "torch.cuda.CUDAGraph): one launch instead of one per kernel."});
    f.recommendations.push_back(
        {FixKind::kBiggerBatch,
         "Give each kernel more work: a larger batch (or micro-batch) amortizes the 5-20 us a "
         "launch costs on the host."});
    f.recommendations.push_back(
        {FixKind::kHostSpeed,
         "Cut per-op host overhead: fewer Python-level ops per step, no per-op .to()/.item()."});
    f.caveats.push_back(
        "Time lost is an upper bound: GPU idle while the host had not yet launched the next kernel "
        "plus sub-30 us gaps; removing launch overhead cannot save more.");
    f.caveats.push_back("A larger batch raises the memory peak; CUDA graphs need static shapes.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
