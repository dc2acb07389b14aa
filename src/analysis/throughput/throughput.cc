#include "analysis/throughput/throughput.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/gpu_arch/kernel_taxonomy.h"
#include "analysis/gpu_arch/name_memo.h"
#include "analysis/utilization/intervals.h"

namespace gpuwhy::analysis {

namespace {

constexpr uint32_t kNoOwner = UINT32_MAX;

struct WorkKey {
  StringId name, dims, types, concrete;
  uint8_t precision = 0;  // dtype from kernel names (0: the recorded types)
  bool tf32 = false;      // fp32 run on tensor cores
  bool operator==(const WorkKey& o) const {
    return name == o.name && dims == o.dims && types == o.types && concrete == o.concrete &&
           precision == o.precision && tf32 == o.tf32;
  }
};
struct WorkKeyHash {
  size_t operator()(const WorkKey& k) const {
    uint64_t h = k.name;
    h = h * 1000003u ^ k.dims;
    h = h * 1000003u ^ k.types;
    h = h * 1000003u ^ k.concrete;
    h = h * 1000003u ^ (k.precision * 2u + (k.tf32 ? 1u : 0u));
    return static_cast<size_t>(h);
  }
};

struct GpuSpan {
  uint32_t inst;
  int32_t device;
  int64_t start, end;
};

// RidgeFlopsPerByte: the intensity where the compute roof (TFLOP/s) meets the
// bandwidth roof (GB/s).
double RidgeFlopsPerByte(double peak_tflops, double mem_bw_gbps) {
  return peak_tflops * 1e12 / (mem_bw_gbps * 1e9);
}

// DtypeNameOf: the profiler's dtype name for a precision ("" for none).
std::string DtypeNameOf(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32: return "float";
    case Precision::kFp16: return "c10::Half";
    case Precision::kBf16: return "c10::BFloat16";
    case Precision::kFp8: return "c10::Float8_e4m3fn";
    case Precision::kInt8: return "signed char";
    case Precision::kFp64: return "double";
    case Precision::kUnknown: break;
  }
  return "";
}

}  // namespace

Roofline Place(double flops, double bytes, int64_t time_ns, const GpuPeaks* peaks,
               Precision precision) {
  Roofline r;
  if (time_ns <= 0) return r;
  double s = static_cast<double>(time_ns) / 1e9;
  if (std::isfinite(flops)) r.achieved_tflops = flops / s / 1e12;
  if (std::isfinite(bytes)) r.achieved_gbps = bytes / s / 1e9;
  if (std::isfinite(flops) && std::isfinite(bytes) && bytes > 0) r.intensity = flops / bytes;
  if (peaks == nullptr) return r;
  double peak = PeakTflops(*peaks, precision);
  if (IsValid(peak) && peak > 0 && IsValid(r.achieved_tflops))
    r.compute_roof_ratio = r.achieved_tflops / peak;
  if (peaks->mem_bw_gbps > 0 && IsValid(r.achieved_gbps))
    r.bandwidth_roof_ratio = r.achieved_gbps / peaks->mem_bw_gbps;
  if (IsValid(peak) && peak > 0 && peaks->mem_bw_gbps > 0) {
    r.ridge = RidgeFlopsPerByte(peak, peaks->mem_bw_gbps);
    if (IsValid(r.intensity)) r.bound = r.intensity >= r.ridge ? "compute" : "memory";
  }
  return r;
}

ThroughputResult AnalyzeThroughput(const model::Trace& t, const StepResult& steps) {
  ThroughputResult out;
  const model::RangeTable& R = t.ranges;
  // Cheap exit: without recorded shapes there is nothing to model.
  std::vector<uint32_t> ops;
  for (size_t i = 0; i < R.size(); ++i) {
    if (R.kind[i] != model::RangeKind::kCpuOp) continue;
    ops.push_back(static_cast<uint32_t>(i));
    if (R.input_dims[i] != kEmptyString) ++out.ops_with_shapes;
  }
  if (out.ops_with_shapes == 0) {
    out.note = ops.empty()
                   ? "no op shapes: the trace has no framework ops (PyTorch profiler with "
                     "record_shapes=True, or nsys with torch.autograd.profiler."
                     "emit_nvtx(record_shapes=True))"
                   : "no op shapes in the trace; profile with record_shapes=True";
    return out;
  }

  // Role per op name, once per distinct name.
  std::unordered_map<StringId, OpRole> roles;
  auto role = [&](uint32_t row) {
    auto [it, fresh] = roles.try_emplace(R.name[row], OpRole::kNone);
    if (fresh) it->second = RoleOf(t.Str(R.name[row]));
    return it->second;
  };

  // CPU-op tree per thread: sort by (pid, tid, start, -end), nest with a stack.
  std::sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(R.pid[a], R.tid[a], R.start_ns[a], R.end_ns[b]) <
           std::tie(R.pid[b], R.tid[b], R.start_ns[b], R.end_ns[a]);
  });
  // owner: top-most primary op at or above; comp: top-most composite op.
  std::vector<std::pair<uint32_t, uint32_t>> owner_of(R.size(), {kNoOwner, kNoOwner});  // (owner, comp)
  std::vector<uint32_t> parent(R.size(), kNoOwner);
  std::vector<uint32_t> stack;
  std::unordered_map<int64_t, uint32_t> by_ext;
  by_ext.reserve(ops.size());
  for (uint32_t row : ops) {
    while (!stack.empty()) {
      uint32_t top = stack.back();
      if (R.pid[top] == R.pid[row] && R.tid[top] == R.tid[row] && R.end_ns[top] >= R.end_ns[row] &&
          R.start_ns[top] <= R.start_ns[row])
        break;
      stack.pop_back();
    }
    uint32_t owner = kNoOwner, comp = kNoOwner;
    if (!stack.empty()) {
      std::tie(owner, comp) = owner_of[stack.back()];
      parent[row] = stack.back();
    }
    OpRole r = role(row);
    if (owner == kNoOwner && r == OpRole::kPrimary) owner = row;
    if (comp == kNoOwner && r == OpRole::kComposite) comp = row;
    owner_of[row] = {owner, comp};
    stack.push_back(row);
    if (IsValid(R.external_id[row])) by_ext.try_emplace(R.external_id[row], row);
  }

  // Fallback link for traces whose GPU ops carry the correlation id as their
  // External id (older PyTorch): the launch call's thread and start time name
  // the innermost CPU op around it. Built on first need.
  std::unordered_map<int64_t, uint32_t> api_by_corr;
  bool api_built = false;
  auto op_around = [&](int64_t corr) -> uint32_t {
    if (!api_built) {
      api_built = true;
      for (size_t i = 0; i < t.api_calls.size(); ++i)
        if (IsValid(t.api_calls.correlation_id[i]))
          api_by_corr.try_emplace(t.api_calls.correlation_id[i], static_cast<uint32_t>(i));
    }
    auto it = api_by_corr.find(corr);
    if (it == api_by_corr.end()) return kNoOwner;
    const uint32_t a = it->second;
    const int32_t pid = t.api_calls.pid[a];
    const int64_t tid = t.api_calls.tid[a], ts = t.api_calls.start_ns[a];
    // Last op of that thread starting at or before the call, then up its parents.
    auto pos = std::upper_bound(ops.begin(), ops.end(), std::make_tuple(pid, tid, ts),
                                [&](const std::tuple<int32_t, int64_t, int64_t>& k, uint32_t r) {
                                  return k < std::make_tuple(R.pid[r], R.tid[r], R.start_ns[r]);
                                });
    if (pos == ops.begin()) return kNoOwner;
    uint32_t r = *(pos - 1);
    if (R.pid[r] != pid || R.tid[r] != tid) return kNoOwner;
    while (r != kNoOwner && R.end_ns[r] < ts) r = parent[r];
    return r;
  };

  // GPU ops -> owning instance.
  std::unordered_map<uint32_t, uint32_t> inst_of;  // owner row -> instance index
  std::vector<GpuSpan> spans;
  NameMemo tensor_core(t, [](std::string_view n) { return UsesTensorCores(n); });
  // Kernel-name precision per distinct name, only for ops without dtypes.
  std::unordered_map<StringId, Precision> name_precision;
  auto precision_of_kernel = [&](StringId id) {
    auto [it, fresh] = name_precision.try_emplace(id, Precision::kUnknown);
    if (fresh) {
      switch (ClassifyKernelName(t.Str(id)).precision) {
        case KernelPrecision::kFp32: it->second = Precision::kFp32; break;
        case KernelPrecision::kTf32: it->second = Precision::kTf32; break;
        case KernelPrecision::kFp16: it->second = Precision::kFp16; break;
        case KernelPrecision::kBf16: it->second = Precision::kBf16; break;
        case KernelPrecision::kFp8: it->second = Precision::kFp8; break;
        case KernelPrecision::kInt8: it->second = Precision::kInt8; break;
        case KernelPrecision::kFp64: it->second = Precision::kFp64; break;
        case KernelPrecision::kUnknown: break;
      }
    }
    return it->second;
  };
  auto attribute = [&](int64_t ext, int64_t corr, int32_t device, int64_t s, int64_t e,
                       StringId kernel_name) {
    if (!IsValid(s) || !IsValid(e) || e < s) return;
    uint32_t op = kNoOwner;
    if (IsValid(ext)) {
      auto it = by_ext.find(ext);
      if (it != by_ext.end()) op = it->second;
    }
    if (op == kNoOwner && IsValid(corr)) op = op_around(corr);
    if (op == kNoOwner) return;
    auto [owner, comp] = owner_of[op];
    uint32_t row = owner != kNoOwner ? owner : comp;
    if (row == kNoOwner) return;
    auto [jt, fresh] = inst_of.try_emplace(row, static_cast<uint32_t>(out.instances.size()));
    if (fresh) {
      OpInstance oi;
      oi.range_row = row;
      oi.device_id = device;
      out.instances.push_back(oi);
    }
    spans.push_back({jt->second, device, s, e});
    if (kernel_name != kEmptyString) {
      OpInstance& oi = out.instances[jt->second];
      if (tensor_core.Get(kernel_name)) oi.tensor_core_kernel = true;
      if (oi.kernel_precision == Precision::kUnknown && R.input_types[row] == kEmptyString)
        oi.kernel_precision = precision_of_kernel(kernel_name);
    }
  };
  for (size_t i = 0; i < t.kernels.size(); ++i)
    attribute(t.kernels.external_id[i], t.kernels.correlation_id[i], t.kernels.device_id[i],
              t.kernels.start_ns[i], t.kernels.end_ns[i], t.kernels.name[i]);
  for (size_t i = 0; i < t.memcpys.size(); ++i)
    attribute(t.memcpys.external_id[i], t.memcpys.correlation_id[i], t.memcpys.device_id[i],
              t.memcpys.start_ns[i], t.memcpys.end_ns[i], kEmptyString);
  for (size_t i = 0; i < t.memsets.size(); ++i)
    attribute(t.memsets.external_id[i], t.memsets.correlation_id[i], t.memsets.device_id[i],
              t.memsets.start_ns[i], t.memsets.end_ns[i], kEmptyString);

  // Union of each instance's spans (sorted by instance, then start).
  std::sort(spans.begin(), spans.end(), [](const GpuSpan& a, const GpuSpan& b) {
    return std::tie(a.inst, a.start) < std::tie(b.inst, b.start);
  });
  for (size_t i = 0; i < spans.size();) {
    uint32_t inst = spans[i].inst;
    int64_t cs = spans[i].start, ce = spans[i].end, total = 0;
    int32_t n = 0;
    for (; i < spans.size() && spans[i].inst == inst; ++i, ++n) {
      if (spans[i].start > ce) {
        total += ce - cs;
        cs = spans[i].start;
        ce = spans[i].end;
      } else {
        ce = std::max(ce, spans[i].end);
      }
    }
    total += ce - cs;
    out.instances[inst].gpu_time_ns = total;
    out.instances[inst].gpu_start_ns = spans[i - static_cast<size_t>(n)].start;
    out.instances[inst].gpu_ops = n;
  }

  // Model each instance (memoized per distinct name + shapes).
  std::unordered_map<WorkKey, uint32_t, WorkKeyHash> memo;
  ShapeArgs args;
  // Works are memoized per (op, shapes, dtype source, TF32): instances keep an
  // index, so a million calls of a few hundred shapes copy no strings.
  auto work_for = [&](const WorkKey& key, auto&& make) -> uint32_t {
    auto [it, fresh] = memo.try_emplace(key, 0u);
    if (fresh) {
      it->second = static_cast<uint32_t>(out.works.size());
      out.works.push_back(make());
    }
    return it->second;
  };
  for (OpInstance& oi : out.instances) {
    uint32_t r = oi.range_row;
    WorkKey k{R.name[r], R.input_dims[r], R.input_types[r], R.concrete_inputs[r], 0, false};
    uint32_t id = work_for(k, [&] {
      OpWork w;
      if (ParseShapeArgs(t.Str(k.dims), t.Str(k.types), t.Str(k.concrete), &args)) {
        w = ModelOpWork(t.Str(k.name), args);
      } else {
        w.op_class = ModelOpWork(t.Str(k.name), ShapeArgs{}).op_class;
        w.note = "no shapes recorded";
      }
      return w;
    });
    if (R.input_types[r] == kEmptyString && oi.kernel_precision != Precision::kUnknown &&
        out.works[id].op_class != OpClass::kNone) {
      // Shapes without dtypes (nsys emit_nvtx): every tensor operand takes
      // the precision its kernels' names state; said in the params.
      k.precision = static_cast<uint8_t>(oi.kernel_precision);
      const uint32_t base = id;
      id = work_for(k, [&] {
        OpWork w = out.works[base];
        std::string dtype = DtypeNameOf(oi.kernel_precision);
        if (!dtype.empty() && ParseShapeArgs(t.Str(k.dims), "", t.Str(k.concrete), &args)) {
          args.types.assign(args.dims.size(), dtype);
          for (size_t j = 0; j < args.dims.size(); ++j)
            if (args.dims[j].empty()) args.types[j] = "Scalar";
          w = ModelOpWork(t.Str(k.name), args);
          w.params += " dtype from kernel names";
        }
        return w;
      });
    }
    // fp32 matrix ops whose kernels run on tensor cores are TF32 (allow_tf32 /
    // set_float32_matmul_precision): their roof is the TF32 peak.
    if (oi.tensor_core_kernel && out.works[id].precision == Precision::kFp32 &&
        IsMatrixClass(out.works[id].op_class)) {
      k.tf32 = true;
      const uint32_t base = id;
      id = work_for(k, [&] {
        OpWork w = out.works[base];
        w.precision = Precision::kTf32;
        w.params += " tf32";
        return w;
      });
    }
    oi.work = id;
  }

  // Window for MFU: the marked steps' span, else the device's GPU-op span.
  int64_t step_lo = kMissingI64, step_hi = kMissingI64;
  if (!steps.steps.empty() && steps.source != StepSource::kKernelPeriod) {
    step_lo = steps.steps.front().start_ns;
    step_hi = steps.steps.back().end_ns;
  }

  std::map<int32_t, std::vector<const OpInstance*>> per_device;
  for (const OpInstance& oi : out.instances) per_device[oi.device_id].push_back(&oi);
  for (const auto& [device, list] : per_device) {
    DeviceThroughput d;
    d.device_id = device;
    const model::Device* dev = t.FindDevice(device);
    if (dev != nullptr) d.device_name = std::string(t.Str(dev->name));
    std::string name_note;
    if (d.device_name.empty()) {
      // A device the trace does not describe takes the model of the named
      // devices when they all agree (a ROCm rank listing one GPU), said below.
      std::string common;
      bool agree = true;
      for (const model::Device& o : t.devices) {
        std::string_view n = t.Str(o.name);
        if (n.empty()) continue;
        if (common.empty()) common = std::string(n);
        else if (common != n) agree = false;
      }
      if (agree && !common.empty()) {
        d.device_name = common;
        name_note = "GPU model from the trace's other device properties (all \"" + common + "\")";
      }
    }
    const GpuPeaks* peaks = FindGpuPeaks(d.device_name);
    if (peaks != nullptr) {
      d.gpu_model = peaks->model;
      d.peak_source = peaks->source;
      d.mem_bw_gbps = peaks->mem_bw_gbps;
    } else {
      d.note = d.device_name.empty()
                   ? "the trace names no GPU model; no peak, so no MFU or roofline ratios"
                   : "GPU \"" + d.device_name +
                         "\" is not in the peak table; no MFU or roofline ratios";
    }
    // Kernel busy time and window.
    std::vector<Interval> busy;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      if (t.kernels.device_id[i] != device) continue;
      int64_t s = t.kernels.start_ns[i], e = t.kernels.end_ns[i];
      if (!IsValid(s) || !IsValid(e) || e < s) continue;
      busy.push_back({s, e});
      lo = std::min(lo, s);
      hi = std::max(hi, e);
    }
    std::vector<Interval> merged = MergeIntervals(std::move(busy));
    bool use_steps = IsValid(step_lo) && IsValid(step_hi) && step_hi > step_lo;
    if (use_steps) {
      d.window = "marked steps";
      d.window_ns = step_hi - step_lo;
      d.busy_ns = IntersectLength(merged, step_lo, step_hi);
    } else if (lo < hi) {
      d.window = "GPU-op span";
      d.window_ns = hi - lo;
      d.busy_ns = TotalLength(merged);
    }
    std::array<double, kPrecisionCount> matrix_by_prec{};
    std::array<OpAggregate, kOpClassCount> cls{};
    std::map<std::tuple<StringId, StringId, StringId>, OpAggregate> uniq;
    double all_flops = 0;
    int64_t matrix_time = 0;
    for (const OpInstance* oi : list) {
      const OpWork& w = out.works[oi->work];
      uint32_t r = oi->range_row;
      d.op_gpu_time_ns += oi->gpu_time_ns;
      if (IsMatrixClass(w.op_class)) {
        matrix_time += oi->gpu_time_ns;
        if (w.precision == Precision::kFp32) d.fp32_matrix_time_ns += oi->gpu_time_ns;
        if (w.precision == Precision::kTf32) d.tf32_matrix_time_ns += oi->gpu_time_ns;
      }
      // Roofline side of this instance: against its own precision's ridge
      // (an op with no peak of its own, e.g. int64 indices, uses fp32's).
      if (peaks != nullptr && peaks->mem_bw_gbps > 0 && std::isfinite(w.bytes) && w.bytes > 0 &&
          std::isfinite(w.flops) && oi->gpu_time_ns > 0) {
        double peak = PeakTflops(*peaks, w.precision);
        if (!IsValid(peak) || peak <= 0) peak = PeakTflops(*peaks, Precision::kFp32);
        if (IsValid(peak) && peak > 0) {
          if (w.flops / w.bytes >= RidgeFlopsPerByte(peak, peaks->mem_bw_gbps)) {
            d.compute_bound_time_ns += oi->gpu_time_ns;
          } else {
            d.memory_bound_time_ns += oi->gpu_time_ns;
            d.memory_bound_bytes += w.bytes;
          }
        }
      }
      bool has_flops = std::isfinite(w.flops);
      if (has_flops) {
        ++d.modelled_ops;
        d.modelled_gpu_time_ns += oi->gpu_time_ns;
        all_flops += w.flops;
        bool in_window = !use_steps || (R.start_ns[r] >= step_lo && R.start_ns[r] < step_hi);
        if (IsMatrixClass(w.op_class) && in_window) {
          d.matrix_flops += w.flops;
          matrix_by_prec[static_cast<size_t>(w.precision)] += w.flops;
        }
      }
      auto add = [&](OpAggregate& a) {
        ++a.count;
        a.gpu_time_ns += oi->gpu_time_ns;
        if (has_flops) a.flops += w.flops;
        if (std::isfinite(w.bytes)) a.bytes += w.bytes;
      };
      OpAggregate& c = cls[static_cast<size_t>(w.op_class)];
      c.op_class = w.op_class;
      c.name = std::string(ToString(w.op_class));
      add(c);
      if (w.op_class == OpClass::kNone) continue;
      OpAggregate& u = uniq[{R.name[r], R.input_dims[r], R.input_types[r]}];
      if (u.count == 0) {
        u.name = std::string(t.Str(R.name[r]));
        u.input_dims = std::string(t.Str(R.input_dims[r]));
        u.input_types = std::string(t.Str(R.input_types[r]));
        u.params = w.params;
        u.op_class = w.op_class;
        u.precision = w.precision;
      }
      add(u);
    }
    // Dominant matrix precision: the one with the most matrix FLOPs.
    size_t best = 0;
    for (size_t p = 1; p < matrix_by_prec.size(); ++p)
      if (matrix_by_prec[p] > matrix_by_prec[best]) best = p;
    if (matrix_by_prec[best] > 0) d.dominant_precision = static_cast<Precision>(best);
    if (peaks != nullptr && d.dominant_precision != Precision::kUnknown) {
      d.peak_tflops = PeakTflops(*peaks, d.dominant_precision);
      if (!IsValid(d.peak_tflops))
        d.note = std::string("no ") + std::string(ToString(d.dominant_precision)) +
                 " peak for " + d.gpu_model + " in the peak table";
    }
    if (d.matrix_flops == 0 && d.note.empty())
      d.note = "no matrix op (GEMM, convolution, attention) with shapes";
    if (!name_note.empty()) d.note = d.note.empty() ? name_note : d.note + "; " + name_note;
    if (IsValid(d.peak_tflops) && d.peak_tflops > 0 && d.matrix_flops > 0) {
      double peak = d.peak_tflops * 1e12;
      if (IsValid(d.window_ns) && d.window_ns > 0)
        d.mfu_ratio = d.matrix_flops / (static_cast<double>(d.window_ns) / 1e9 * peak);
      if (IsValid(d.busy_ns) && d.busy_ns > 0)
        d.busy_mfu_ratio = d.matrix_flops / (static_cast<double>(d.busy_ns) / 1e9 * peak);
    }
    d.matrix_time_ns = matrix_time;
    if (d.op_gpu_time_ns > 0)
      d.matrix_share = static_cast<double>(matrix_time) / static_cast<double>(d.op_gpu_time_ns);
    if (IsValid(d.busy_ns) && d.busy_ns > 0)
      d.achieved_tflops = all_flops / (static_cast<double>(d.busy_ns) / 1e9) / 1e12;
    for (OpAggregate& c : cls) {
      if (c.count == 0) continue;
      c.roof = Place(c.flops, c.bytes, c.gpu_time_ns, peaks,
                     c.op_class == OpClass::kNone ? Precision::kUnknown : d.dominant_precision);
      d.classes.push_back(std::move(c));
    }
    std::sort(d.classes.begin(), d.classes.end(), [](const OpAggregate& a, const OpAggregate& b) {
      return a.gpu_time_ns != b.gpu_time_ns ? a.gpu_time_ns > b.gpu_time_ns : a.name < b.name;
    });
    std::vector<OpAggregate> all;
    for (auto& [k, u] : uniq) {
      u.roof = Place(u.flops, u.bytes, u.gpu_time_ns, peaks, u.precision);
      all.push_back(std::move(u));
    }
    std::sort(all.begin(), all.end(), [](const OpAggregate& a, const OpAggregate& b) {
      if (a.gpu_time_ns != b.gpu_time_ns) return a.gpu_time_ns > b.gpu_time_ns;
      return std::tie(a.name, a.input_dims) < std::tie(b.name, b.input_dims);
    });
    if (all.size() > DeviceThroughput::kTopOps) all.resize(DeviceThroughput::kTopOps);
    d.top_ops = std::move(all);
    out.devices.push_back(std::move(d));
  }
  if (out.devices.empty()) out.note = "op shapes present, but no GPU op is linked to a CPU op";
  return out;
}

}  // namespace gpuwhy::analysis
