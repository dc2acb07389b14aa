#include "analysis/detectors/host_detector.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "analysis/summary/sync_api_table.h"
#include "base/ascii.h"

namespace gpuwhy::analysis::detectors {

namespace {

// LooksLikeInputWork: names of preprocessing / decoding / batching work, the
// kind that belongs in DataLoader workers or on the GPU.
bool LooksLikeInputWork(std::string_view name) {
  static constexpr std::string_view kWords[] = {
      "preprocess", "transform", "normaliz", "resize", "rescale", "decode", "augment",
      "collate",    "tokeniz",   "to_tensor", "totensor", "crop",  "image",  "video",
      "audio",      "frame",     "pil",      "cv2",      "numpy", "read",   "load",
      "dataset",    "sampler",   "pad",      "feature_extract", "processor"};
  const std::string s = AsciiLower(name.substr(0, 200));  // names can be whole stacks
  for (std::string_view w : kWords)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

// Short: a name cut for a sentence.
std::string Short(std::string_view s, size_t n = 60) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n - 3)) + "...";
}

// GapWhat: what held gap `g` on the host, for sentences: the blocking call
// or the item that held most of it (host_activity.h DescribeHold), with its
// ops and Python frame ("host blocked in hipMemcpyWithStream (a blocking
// copy) in aten::copy_ < aten::_to_copy < aten::to, from ...", "host in the
// first aten::cudnn_convolution (cuDNN algorithm search ...)").
// `first_rows`: FirstRangeRowsByName() of the trace.
std::string GapWhat(const model::Trace& t, const IdleGap& g, const std::vector<uint32_t>& first_rows) {
  if ((g.cause == IdleCause::kSync || g.cause == IdleCause::kH2dSync) &&
      g.sync_api_row() != UINT32_MAX) {
    return "host blocked in " +
           DescribeHold(t, {g.sync_api_row(), true}, HoldKind::kBlockingCall,
                        g.cause == IdleCause::kH2dSync ? "waiting on a host-to-device copy" : "");
  }
  switch (g.cause) {
    case IdleCause::kDataLoader: return "host in the DataLoader (data loading)";
    case IdleCause::kSync: return "host in a cuda_sync wait";
    case IdleCause::kHostBusy:
      if (!g.host_what().valid()) return "host work the trace does not show";
      if (g.host_what_held())
        return "host in " +
               DescribeHold(t, g.host_what(), ClassifyHold(t, g.host_what(), first_rows));
      return "host in " + Short(ReadableRangeName(t.Str(ItemName(t, g.host_what())))) + " (" +
             std::string(ItemKindLabel(t, g.host_what())) +
             ") for part of it; no one item held most of it";
    case IdleCause::kHostLaunch: return "host launching work";
    default: break;
  }
  return "no host work traced (the GPU waited on other streams or events)";
}

}  // namespace

std::vector<Finding> DetectHostBusy(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  for (const DeviceTimeline& d : in.timeline.devices) {
    const int64_t lost = d.recurring_idle_by_cause[static_cast<size_t>(IdleCause::kHostBusy)];
    if (lost <= 0 || d.steps_total_ns <= 0 || 100 * lost < d.steps_total_ns) continue;
    Finding f;
    f.id = "host.busy_elsewhere";
    f.category = Category::kHostBound;
    f.rank = in.rank;
    f.title = "GPU waits while the host runs work that launches nothing";
    SetLoss(f, d, lost);

    constexpr size_t kExamples = 3;
    const std::vector<const IdleGap*> gaps = RecurringGaps(d, IdleCause::kHostBusy, kExamples);
    const double window = static_cast<double>(std::max<int64_t>(1, d.host_busy_window_ns));
    // What ran, by share of the host time in these gaps.
    std::string ran;
    int64_t input_ns = 0, python_ns = 0, cpu_op_ns = 0, api_ns = 0;
    for (size_t i = 0; i < d.host_busy_names.size(); ++i) {
      const HostTally& h = d.host_busy_names[i];
      const std::string_view name = t.Str(h.name);
      const std::string_view kind = ItemKindLabel(t, h.example);
      if (i < 5 && 100 * h.ns >= d.host_busy_window_ns) {
        if (!ran.empty()) ran += ", ";
        ran += Short(ReadableRangeName(name), 48) + " " + FormatPct(static_cast<double>(h.ns) / window);
      }
      if (LooksLikeInputWork(name)) input_ns = std::max(input_ns, h.ns);
      if (h.example.is_api) api_ns += h.ns;
      else if (kind == "Python") python_ns = std::max(python_ns, h.ns);
      else if (kind == "CPU op") cpu_op_ns = std::max(cpu_op_ns, h.ns);
    }
    const double untraced = static_cast<double>(d.host_busy_untraced_ns) / window;
    const IdleGap& worst = *gaps.front();
    const std::vector<uint32_t> first_rows = FirstRangeRowsByName(t);
    const std::string per = d.steps_from_markers ? "of the step" : "of the span";
    f.summary = "The GPU waits " + FormatPct(f.lost_step_ratio) + " " + per +
                " while the launching thread runs work that launches nothing (" +
                std::to_string(gaps.size()) + " gaps, " + FormatMs(lost) + " in all, worst " +
                FormatMs(worst.attributed_ns) + ")" +
                (ran.empty() ? std::string(": the trace does not show what it ran.")
                             : ": " + ran + (untraced >= 0.05 ? ", untraced " + FormatPct(untraced)
                                                                : std::string()) + ".");
    AddMetric(f, "host_busy_gaps", static_cast<double>(gaps.size()), "count",
              "GPU gaps while the host ran other work");
    AddMetric(f, "host_busy_gaps_per_step",
              static_cast<double>(gaps.size()) / static_cast<double>(d.steps.size()), "count",
              "such gaps per step");
    AddMetric(f, "host_busy_idle_ns", static_cast<double>(lost), "ns", "GPU idle in them");
    AddMetric(f, "worst_gap_ns", static_cast<double>(worst.attributed_ns), "ns", "longest gap");
    AddMetric(f, "input_work_ratio", static_cast<double>(input_ns) / window, "ratio",
              "host time in preprocessing-like work");
    AddMetric(f, "python_ratio", static_cast<double>(python_ns) / window, "ratio",
              "host time in the top Python function");
    AddMetric(f, "cpu_op_ratio", static_cast<double>(cpu_op_ns) / window, "ratio",
              "host time in the top CPU op that launched nothing");
    AddMetric(f, "runtime_call_ratio", static_cast<double>(api_ns) / window, "ratio",
              "host time in non-launch runtime calls");
    AddMetric(f, "untraced_ratio", untraced, "ratio", "host time the trace does not show");
    if (!ran.empty())
      f.notes.push_back("What the launching thread ran in these gaps, by share of their host time "
                        "(a name and the ops inside it both count): " + ran + ".");
    for (size_t i = 0; i < gaps.size() && i < kExamples; ++i) {
      const IdleGap& g = *gaps[i];
      Example ex;
      ex.what = "GPU idle while the host ran other work";
      ex.start_ns = g.start_ns;
      ex.dur_ns = g.attributed_ns;
      if (d.steps_from_markers && g.step_index >= 0)
        ex.step = d.steps[static_cast<size_t>(g.step_index)].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      ex.detail = GapWhat(t, g, first_rows);
      f.examples.push_back(std::move(ex));
    }

    // Fixes follow what ran.
    const double input = static_cast<double>(input_ns) / window;
    const double python = static_cast<double>(python_ns) / window;
    const double cpu_ops = static_cast<double>(cpu_op_ns) / window;
    const double runtime = static_cast<double>(api_ns) / window;
    if (input >= 0.2 || cpu_ops >= 0.2)
      f.recommendations.push_back(
          {FixKind::kDataLoaderWorkers,
           "Move the preprocessing off the training/serving thread: into DataLoader workers "
           "(num_workers > 0, persistent_workers=True), or onto the GPU (transforms on CUDA "
           "tensors, GPU video/image decoding such as DALI or torchvision.io.decode_jpeg on "
           "device)."});
    f.recommendations.push_back(
        {FixKind::kPrefetch,
         "Overlap the next batch's CPU work with this batch's GPU work: prepare it in a "
         "background thread or worker while the GPU computes (the GPU runs ahead as long as "
         "nothing synchronizes), and copy it with non_blocking=True from pinned memory."});
    if (python >= 0.2 || untraced >= 0.3)
      f.recommendations.push_back(
          {FixKind::kHostSpeed,
           "Cut Python overhead on the critical path: vectorize per-sample loops, move "
           "bookkeeping out of the step, torch.compile the host-side code; profile it with "
           "with_stack=True or py-spy to see the lines."});
    if (runtime >= 0.2)
      f.recommendations.push_back(
          {FixKind::kHostSpeed,
           "Allocation and other runtime calls sit between the launches: let the caching "
           "allocator warm up (no torch.cuda.empty_cache() in the loop), preallocate buffers."});
    f.caveats.push_back(
        "Time lost is an upper bound: the GPU idle while the launching thread did other work; "
        "overlapping that work saves at most this much, and prefetching raises the memory peak.");
    if (untraced >= 0.3)
      f.caveats.push_back("Much of this host time is untraced: record with_stack=True (Python "
                          "functions) or NVTX ranges to name it.");
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> DetectOneOffGaps(const DetectorInput& in) {
  std::vector<Finding> out;
  const model::Trace& t = in.trace;
  for (const DeviceTimeline& d : in.timeline.devices) {
    if (d.one_off_idle_ns <= 0 || d.steps_total_ns <= 0) continue;
    // Whole one-off gaps, each with its largest piece (the cause holding most
    // of it); set-up/teardown (edge) gaps apart from isolated ones.
    std::vector<const IdleGap*> isolated, head, tail;
    int64_t head_ns = 0, tail_ns = 0;
    const int64_t k0 = d.kernel_busy.empty() ? kMissingI64 : d.kernel_busy.front().start_ns;
    for (const IdleGap& g : d.gaps) {
      if (!g.one_off) continue;
      const bool before = g.edge && IsValid(k0) && g.end_ns <= k0;
      std::vector<const IdleGap*>& v = !g.edge ? isolated : before ? head : tail;
      if (g.edge) (before ? head_ns : tail_ns) += g.attributed_ns;
      if (!v.empty() && v.back()->start_ns == g.start_ns && v.back()->end_ns == g.end_ns) {
        if (g.attributed_ns > v.back()->attributed_ns) v.back() = &g;
      } else {
        v.push_back(&g);
      }
    }
    auto longest_first = [](const IdleGap* a, const IdleGap* b) {
      return a->end_ns - a->start_ns > b->end_ns - b->start_ns;
    };
    std::sort(isolated.begin(), isolated.end(), longest_first);
    std::sort(head.begin(), head.end(), longest_first);
    std::sort(tail.begin(), tail.end(), longest_first);

    const std::vector<uint32_t> first_rows = FirstRangeRowsByName(t);
    Finding f;
    f.id = "idle.one_off_gap";
    f.category = Category::kIdle;
    f.rank = in.rank;
    f.title = "One-off idle, not a per-step pattern";
    f.device_id = d.device_id;
    f.per_step_basis = false;
    f.step_count = static_cast<int32_t>(d.steps.size());
    f.lost_per_step_ns = d.one_off_idle_ns;
    // Of the whole capture: set-up and teardown phases lie outside the loop's
    // window, and a part never exceeds its whole.
    const int64_t capture_ns = AddSat(d.steps_total_ns, AddSat(d.setup_ns, d.teardown_ns));
    f.lost_step_ratio =
        static_cast<double>(d.one_off_idle_ns) / static_cast<double>(capture_ns);
    f.severity = SeverityFromLoss(f.lost_step_ratio);
    // All the capture's idle: the loop's (idle_ns) and the set-up and
    // teardown phases' (gaps with step index -1, outside idle_ns).
    int64_t phase_idle = 0;
    for (const IdleGap& g : d.gaps)
      if (g.step_index < 0) phase_idle = AddSat(phase_idle, g.attributed_ns);
    const double idle = static_cast<double>(std::max<int64_t>(1, AddSat(d.idle_ns, phase_idle)));
    const double idle_share = static_cast<double>(d.one_off_idle_ns) / idle;
    std::vector<std::string> parts;
    if (!isolated.empty()) {
      const IdleGap& g0 = *isolated.front();
      std::string where;
      if (d.steps_from_markers && g0.step_index >= 0)
        where = " in step " + std::to_string(d.steps[static_cast<size_t>(g0.step_index)].step);
      int64_t iso_ns = 0;
      for (const IdleGap* g : isolated) iso_ns += g->end_ns - g->start_ns;
      parts.push_back(
          (isolated.size() == 1
               ? "one " + FormatMs(g0.end_ns - g0.start_ns) + " gap" + where + " holds "
               : (isolated.size() == 2 ? std::string("two") : std::to_string(isolated.size())) +
                     " gaps (" + FormatMs(g0.end_ns - g0.start_ns) + where + ", " +
                     FormatMs(isolated[1]->end_ns - isolated[1]->start_ns) +
                     (isolated.size() > 2 ? ", ..." : "") + ") hold ") +
          FormatPct(static_cast<double>(iso_ns) / idle) +
          " of the GPU idle; not a per-step pattern (" + GapWhat(t, g0, first_rows) + ")");
    }
    auto phase = [&](const std::vector<const IdleGap*>& v, int64_t ns, const char* when) {
      // A sliver beside an isolated gap is not worth a clause.
      if (v.empty() || (!isolated.empty() && 20 * ns < d.one_off_idle_ns)) return;
      parts.push_back(std::string(when) + " the GPU idles " + FormatMs(ns) + " (" +
                      FormatPct(static_cast<double>(ns) / idle) + " of the idle, " +
                      std::to_string(v.size()) + (v.size() == 1 ? " gap" : " gaps") +
                      "; longest: " + GapWhat(t, *v.front(), first_rows) +
                      "): set-up or teardown, not the loop");
    };
    phase(head, head_ns, "before the first kernel");
    phase(tail, tail_ns, "after the last kernel");
    std::string sum;
    for (const std::string& p : parts) sum += (sum.empty() ? "" : "; ") + p;
    sum[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sum[0])));
    f.summary = sum + ".";
    AddMetric(f, "one_off_idle_ns", static_cast<double>(d.one_off_idle_ns), "ns",
              "GPU idle in one-off gaps");
    AddMetric(f, "one_off_idle_share", idle_share, "ratio", "share of all GPU idle");
    AddMetric(f, "one_off_gaps", static_cast<double>(isolated.size()), "count",
              "isolated one-off gaps");
    AddMetric(f, "setup_idle_ns", static_cast<double>(head_ns), "ns",
              "GPU idle before the first kernel");
    AddMetric(f, "teardown_idle_ns", static_cast<double>(tail_ns), "ns",
              "GPU idle after the last kernel");
    // loop_phases: 1 when the set-up and teardown lie outside a loop the
    // other findings describe (the diagnosis ranks them after its causes).
    AddMetric(f, "loop_phases", d.has_loop_phases ? 1.0 : 0.0, "count",
              "set-up/teardown outside the loop");
    auto example = [&](const IdleGap& g, const char* what) {
      Example ex;
      ex.what = what;
      ex.start_ns = g.start_ns;
      ex.dur_ns = g.end_ns - g.start_ns;
      if (d.steps_from_markers && g.step_index >= 0)
        ex.step = d.steps[static_cast<size_t>(g.step_index)].step;
      ex.device_id = d.device_id;
      ex.rank = in.rank;
      ex.detail = GapWhat(t, g, first_rows) + " (" + std::string(ToString(g.cause)) + ")";
      f.examples.push_back(std::move(ex));
    };
    for (const IdleGap* g : isolated) example(*g, "one-off GPU idle gap");
    if (!head.empty()) example(*head.front(), "longest gap before the first kernel");
    if (!tail.empty()) example(*tail.front(), "longest gap after the last kernel");
    f.notes.push_back(
        "Typical one-off phases: warm-up (cuDNN autotuning, torch.compile, allocator growth), "
        "a prefill-to-decode switch, evaluation, checkpointing, or program set-up before the "
        "first kernel. The per-step findings leave this idle out.");
    f.recommendations.push_back(
        {FixKind::kSteadyState,
         "If this is a warm-up or set-up phase, profile steady-state steps instead "
         "(torch.profiler.schedule(wait=1, warmup=2, active=N), or nsys --capture-range with "
         "cudaProfilerStart/Stop) so the capture shows the loop you pay for; if it recurs in "
         "production (every request, every epoch), fix it as its cause says."});
    const IdleGap* main = !isolated.empty() ? isolated.front()
                          : (!head.empty() && head_ns >= tail_ns) ? head.front()
                          : !tail.empty() ? tail.front() : nullptr;
    if (main != nullptr && (main->cause == IdleCause::kH2dSync || main->cause == IdleCause::kSync))
      f.recommendations.push_back(
          {FixKind::kAsyncCopies,
           "If it recurs: build tensors from pinned host memory and copy with non_blocking=True "
           "(torch.tensor(...) on host data copies synchronously), or keep the data on the GPU."});
    else if (main != nullptr && main->cause == IdleCause::kHostBusy) {
      // Warm-up held it: say how to keep that cost out of the loop.
      const HoldKind kind = main->host_what_held()
                                ? ClassifyHold(t, main->host_what(), first_rows)
                                : HoldKind::kNone;
      const std::string what = main->host_what_held()
                                   ? DescribeHold(t, main->host_what(), kind)
                                   : std::string();
      if (kind == HoldKind::kCudnnFirstUse || what.find("cuDNN") != std::string::npos)
        f.recommendations.push_back(
            {FixKind::kSteadyState,
             "cuDNN's first use: with torch.backends.cudnn.benchmark=True every new input shape "
             "runs the algorithm search again; keep shapes fixed (pad or bucket them), or set it "
             "False when shapes vary, and run a warm-up batch before timing or serving."});
      else if (kind == HoldKind::kCompile)
        f.recommendations.push_back(
            {FixKind::kSteadyState,
             "Compilation: warm the compiled model up before timing or serving, keep shapes "
             "stable (torch._dynamo.mark_dynamic for a dimension that varies), and reuse the "
             "Inductor/Triton caches across runs (TORCHINDUCTOR_CACHE_DIR, FX graph cache)."});
      else if (kind == HoldKind::kSlowLaunch || kind == HoldKind::kModuleLoad ||
               kind == HoldKind::kContext)
        f.recommendations.push_back(
            {FixKind::kSteadyState,
             "Start-up cost of the CUDA context and kernel modules (lazy loading on first "
             "launch): run a warm-up step before timing, or set CUDA_MODULE_LOADING=EAGER to pay "
             "it once at start-up."});
      else
        f.recommendations.push_back(
            {FixKind::kPrefetch,
             "If it recurs: overlap that host work with GPU work (a background thread or worker), "
             "or move it onto the GPU."});
    }
    f.caveats.push_back("Not extrapolated per step: the lost time is the one-off idle itself, as a "
                        "share of the captured window.");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuwhy::analysis::detectors
