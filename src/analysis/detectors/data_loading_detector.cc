#include "analysis/detectors/data_loading_detector.h"

#include <algorithm>
#include <set>
#include <string>

namespace gpuwhy::analysis::detectors {

namespace {

Finding DataLoaderFinding(const DetectorInput& in, const DeviceTimeline& d) {
  const model::Trace& t = in.trace;
  const Timeline& tl = in.timeline;
  Finding f;
  f.id = "data_loading.dataloader";
  f.category = Category::kDataLoading;
  f.rank = in.rank;
  f.title = "GPU waits for the DataLoader";
  int64_t dl_ns = 0;
  std::vector<int64_t> idle_per_step(d.steps.size(), 0);
  int64_t steps_idle_at_start = 0;
  for (const StepWindow& w : d.steps) dl_ns += OverlapLength(tl.dataloader, w.start_ns, w.end_ns);
  for (const IdleGap& g : d.gaps)
    if (g.cause == IdleCause::kDataLoader && !g.one_off) idle_per_step[static_cast<size_t>(g.step_index)] += g.attributed_ns;
  // "Idle at step start": the step's first gap starts at the window start and is DataLoader time.
  for (size_t i = 0; i < d.steps.size(); ++i) {
    for (const IdleGap& g : d.gaps) {
      if (static_cast<size_t>(g.step_index) != i) continue;
      if (g.start_ns == d.steps[i].start_ns && g.cause == IdleCause::kDataLoader) ++steps_idle_at_start;
      if (g.start_ns >= d.steps[i].start_ns) break;
    }
  }
  int64_t idle_dl = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kDataLoader)];
  SetLoss(f, d, idle_dl);
  double total = static_cast<double>(d.steps_total_ns);
  double steps = static_cast<double>(d.steps.size());
  double dl_ratio = total > 0 ? static_cast<double>(dl_ns) / total : kMissingF64;
  double idle_ratio = total > 0 ? static_cast<double>(d.idle_ns) / total : kMissingF64;
  f.summary = "DataLoader takes " + FormatPct(dl_ratio) + " of the step (" +
              FormatMs(static_cast<int64_t>(static_cast<double>(dl_ns) / steps)) +
              "); the GPU is idle " + FormatPct(f.lost_step_ratio) +
              " of the step while it runs.";
  AddMetric(f, "dataloader_ns_per_step", static_cast<double>(dl_ns) / steps, "ns",
            "DataLoader time per step");
  AddMetric(f, "dataloader_step_ratio", dl_ratio, "ratio", "DataLoader share of step");
  AddMetric(f, "gpu_idle_during_dataloader_step_ratio", f.lost_step_ratio, "ratio",
            "GPU idle during DataLoader, share of step");
  AddMetric(f, "gpu_idle_step_ratio", idle_ratio, "ratio", "GPU idle share of step (all causes)");
  AddMetric(f, "steps_idle_at_start", static_cast<double>(steps_idle_at_start), "count",
            "steps starting with GPU idle in DataLoader");
  std::vector<size_t> order(d.steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return idle_per_step[a] > idle_per_step[b]; });
  for (size_t k = 0; k < order.size() && k < 3; ++k) {
    size_t i = order[k];
    if (idle_per_step[i] <= 0) break;
    Example ex;
    ex.what = "DataLoader __next__";
    ex.start_ns = d.steps[i].start_ns;
    ex.dur_ns = OverlapLength(tl.dataloader, d.steps[i].start_ns, d.steps[i].end_ns);
    ex.step = d.steps[i].step;
    ex.device_id = d.device_id;
    ex.rank = in.rank;
    ex.detail = "GPU idle " + FormatMs(idle_per_step[i]) + " of a " +
                FormatMs(d.steps[i].end_ns - d.steps[i].start_ns) + " step";
    f.examples.push_back(std::move(ex));
  }
  (void)t;
  if (IsValid(dl_ratio) && dl_ratio > 0.05 && f.severity < Severity::kMedium) f.severity = Severity::kMedium;
  f.recommendations.push_back(
      {FixKind::kDataLoaderWorkers,
       "Load batches in worker processes: DataLoader(num_workers=N>0, persistent_workers=True, "
       "prefetch_factor=2..4); start with N = CPU cores per GPU."});
  f.recommendations.push_back(
      {FixKind::kPinMemory,
       "Set pin_memory=True and copy with .to(device, non_blocking=True) so the copy overlaps "
       "compute."});
  f.recommendations.push_back(
      {FixKind::kPrefetch,
       "If workers are CPU-bound (decode/augment), move augmentation to the GPU (e.g. DALI) or "
       "pre-process the data set offline."});
  f.caveats.push_back(
      "Time lost is an upper bound: GPU idle while the DataLoader ran; faster loading cannot save "
      "more than that.");
  f.caveats.push_back("More workers and pinned buffers use more host RAM.");
  return f;
}

Finding H2dFinding(const DetectorInput& in, const DeviceTimeline& d, bool* any) {
  const model::Trace& t = in.trace;
  const model::MemcpyTable& m = t.memcpys;
  Finding f;
  f.id = "data_loading.h2d_copies";
  f.category = Category::kDataLoading;
  f.rank = in.rank;
  f.title = "Host-to-device copies on the critical path";
  std::set<int64_t> kernel_streams;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (t.kernels.device_id[i] == d.device_id) kernel_streams.insert(t.kernels.stream_id[i]);
  int64_t count = 0, bytes = 0, ns = 0, pageable = 0, pageable_ns = 0, same_stream = 0;
  int64_t pageable_bytes = 0, pinned_bytes = 0, pinned_ns = 0, outside = 0;
  std::vector<Interval> h2d;
  std::vector<uint32_t> rows;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.device_id[i] != d.device_id || m.copy_kind[i] != model::CopyKind::kHtoD) continue;
    if (!IsValid(m.start_ns[i]) || !IsValid(m.end_ns[i])) continue;
    // Without step markers, copies outside the kernel-active window (weights
    // uploaded at start-up, results copied back) count as evidence, not loss.
    bool inside = d.steps_from_markers
                      ? Timeline::StepIndexAt(d, m.start_ns[i]) >= 0
                      : !d.kernel_busy.empty() && m.start_ns[i] >= d.kernel_busy.front().start_ns &&
                            m.start_ns[i] < d.kernel_busy.back().end_ns;
    if (!inside && d.steps_from_markers) continue;
    if (!inside) ++outside;
    int64_t dur = m.end_ns[i] - m.start_ns[i];
    ++count;
    // Saturating: a damaged trace's copy may claim 9e18 bytes or 146 years.
    ns = AddSat(ns, dur);
    if (IsValid(m.bytes[i])) bytes = AddSat(bytes, m.bytes[i]);
    if (m.src_kind[i] == model::MemoryKind::kPageable) {
      ++pageable;
      pageable_ns = AddSat(pageable_ns, dur);
      if (IsValid(m.bytes[i])) pageable_bytes = AddSat(pageable_bytes, m.bytes[i]);
    } else if (m.src_kind[i] == model::MemoryKind::kPinned) {
      pinned_ns = AddSat(pinned_ns, dur);
      if (IsValid(m.bytes[i])) pinned_bytes = AddSat(pinned_bytes, m.bytes[i]);
    }
    if (kernel_streams.count(m.stream_id[i]) > 0) ++same_stream;
    h2d.push_back({m.start_ns[i], m.end_ns[i]});
    rows.push_back(static_cast<uint32_t>(i));
  }
  if (count == 0) return f;
  IntervalList windows;
  if (d.steps_from_markers || d.kernel_busy.empty()) {
    for (const StepWindow& w : d.steps) windows.push_back({w.start_ns, w.end_ns});
  } else {
    windows.push_back({d.kernel_busy.front().start_ns, d.kernel_busy.back().end_ns});
  }
  IntervalList h2d_union = Intersect(UnionOf(std::move(h2d)), windows);
  int64_t exposed = TotalLength(Subtract(h2d_union, d.kernel_busy));
  // Copy-then-sync (non_blocking=False, or pageable): the GPU drains while the
  // host waits in the copy, then idles until the host relaunches.
  int64_t h2d_sync_idle = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kH2dSync)];
  SetLoss(f, d, exposed + h2d_sync_idle);
  double total = static_cast<double>(d.steps_total_ns);
  double steps = static_cast<double>(d.steps.size());
  double exposed_ratio = total > 0 ? static_cast<double>(exposed) / total : kMissingF64;
  double sync_ratio = total > 0 ? static_cast<double>(h2d_sync_idle) / total : kMissingF64;
  *any = pageable > 0 || (IsValid(f.lost_step_ratio) && f.lost_step_ratio > 0.01);
  if (!*any) return f;
  if (pageable > 0 && f.severity < Severity::kLow) f.severity = Severity::kLow;
  auto gbps = [](int64_t b, int64_t dur) {
    return dur > 0 && b > 0 ? static_cast<double>(b) / static_cast<double>(dur) : kMissingF64;
  };
  f.summary = std::to_string(count) + " HtoD copies (" +
              std::to_string(static_cast<int64_t>(static_cast<double>(bytes) / steps / 1e6)) +
              " MB, " + FormatMs(static_cast<int64_t>(static_cast<double>(ns) / steps)) +
              (d.steps_from_markers ? " per step), " : " in all), ") + std::to_string(pageable) +
              " from pageable memory; exposed copy time " + FormatPct(exposed_ratio) +
               " and GPU idle while the host waits on them " + FormatPct(sync_ratio) +
              (d.steps_from_markers ? " of the step." : " of the span.");
  AddMetric(f, "h2d_copies_per_step", static_cast<double>(count) / steps, "count", "HtoD copies per step");
  AddMetric(f, "h2d_bytes_per_step", static_cast<double>(bytes) / steps, "bytes", "HtoD bytes per step");
  AddMetric(f, "h2d_ns_per_step", static_cast<double>(ns) / steps, "ns", "HtoD copy time per step");
  AddMetric(f, "h2d_pageable_count", static_cast<double>(pageable), "count", "copies from pageable memory");
  AddMetric(f, "h2d_pageable_ratio", static_cast<double>(pageable) / static_cast<double>(count),
            "ratio", "share of copies from pageable memory");
  AddMetric(f, "h2d_on_kernel_stream_ratio",
            static_cast<double>(same_stream) / static_cast<double>(count), "ratio",
            "share on a stream that also runs kernels");
  if (outside > 0) {
    AddMetric(f, "h2d_outside_kernel_span", static_cast<double>(outside), "count",
              "copies before/after the kernel span (set-up)");
    f.notes.push_back(std::to_string(outside) + " of the copies happen outside the kernel span "
                      "(set-up, e.g. weights); they count as evidence, not as time lost.");
  }
  AddMetric(f, "h2d_exposed_step_ratio", exposed_ratio, "ratio", "copy time not overlapped by kernels");
  AddMetric(f, "gpu_idle_after_h2d_sync_step_ratio", sync_ratio, "ratio",
            "GPU idle while the host waits on the copies");
  AddMetric(f, "h2d_pageable_gbps", gbps(pageable_bytes, pageable_ns), "GB/s", "pageable HtoD bandwidth");
  AddMetric(f, "h2d_pinned_gbps", gbps(pinned_bytes, pinned_ns), "GB/s", "pinned HtoD bandwidth");
  (void)total;
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return m.end_ns[a] - m.start_ns[a] > m.end_ns[b] - m.start_ns[b];
  });
  for (size_t k = 0; k < rows.size() && k < 3; ++k) {
    uint32_t i = rows[k];
    Example ex;
    ex.what = std::string("Memcpy HtoD (") + std::string(model::ToString(m.src_kind[i])) + " -> " +
              std::string(model::ToString(m.dst_kind[i])) + ")";
    ex.start_ns = m.start_ns[i];
    ex.dur_ns = m.end_ns[i] - m.start_ns[i];
    int32_t si = Timeline::StepIndexAt(d, m.start_ns[i]);
    if (si >= 0 && d.steps_from_markers) ex.step = d.steps[static_cast<size_t>(si)].step;
    ex.device_id = d.device_id;
    ex.rank = in.rank;
    if (IsValid(m.bytes[i])) ex.detail = std::to_string(m.bytes[i]) + " bytes";
    f.examples.push_back(std::move(ex));
  }
  if (pageable > 0) {
    f.recommendations.push_back(
        {FixKind::kPinMemory,
         "Copy from pinned memory: DataLoader(pin_memory=True) or tensor.pin_memory(); a "
         "cudaMemcpyAsync from pageable memory is synchronous and stages through a bounce buffer."});
    f.caveats.push_back("Pinned memory is page-locked host RAM; pinning too much can starve the host.");
  }
  f.recommendations.push_back(
      {FixKind::kAsyncCopies, "Use .to(device, non_blocking=True) so the host does not wait for the copy."});
  if (same_stream > 0)
    f.recommendations.push_back(
        {FixKind::kPrefetch,
         "Prefetch the next batch on a side stream (torch.cuda.Stream + wait_stream) so the copy "
         "overlaps the current step's kernels."});
  f.caveats.push_back(
      "Time lost is an upper bound: HtoD copy time with no kernel beside it plus GPU idle while the "
      "host waited on the copies.");
  return f;
}

}  // namespace

std::vector<Finding> DetectDataLoading(const DetectorInput& in) {
  std::vector<Finding> out;
  for (const DeviceTimeline& d : in.timeline.devices) {
    if (!in.timeline.dataloader.empty()) {
      Finding f = DataLoaderFinding(in, d);
      bool dl_big = false;
      for (const Metric& mt : f.evidence)
        if (mt.name == "dataloader_step_ratio" && IsValid(mt.value) && mt.value > 0.05) dl_big = true;
      if (dl_big || (IsValid(f.lost_step_ratio) && f.lost_step_ratio > 0.01)) out.push_back(std::move(f));
    }
    bool any = false;
    Finding h = H2dFinding(in, d, &any);
    if (any) out.push_back(std::move(h));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
