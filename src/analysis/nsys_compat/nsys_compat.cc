#include "analysis/nsys_compat/nsys_compat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gpuwhy::analysis::nsys_compat {

using model::ApiKind;
using model::CopyKind;
using model::MemoryKind;

namespace {

// The nsys importer stores PROFILER_OVERHEAD rows as ranges in this domain
// (analysis never includes import/, so the name is repeated here).
constexpr std::string_view kOverheadDomain = "nsys:PROFILER_OVERHEAD";

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// SQL LIKE is case-insensitive for ASCII; these mirror 'x%' and '%x%'.
bool StartsWithI(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (Lower(s[i]) != Lower(p[i])) return false;
  return true;
}
bool ContainsI(std::string_view s, std::string_view p) {
  for (size_t i = 0; i + p.size() <= s.size(); ++i)
    if (StartsWithI(s.substr(i), p)) return true;
  return false;
}

std::vector<StatRow> Finish(std::map<std::string, std::vector<int64_t>>& groups) {
  std::vector<StatRow> rows;
  double sum = 0;
  for (auto& [name, d] : groups) {
    StatRow r;
    r.name = name;
    r.stats = Summarize(std::move(d));
    sum += static_cast<double>(r.stats.total_ns);
    rows.push_back(std::move(r));
  }
  for (StatRow& r : rows) r.time_pct = sum > 0 ? 100.0 * static_cast<double>(r.stats.total_ns) / sum : 0;
  std::stable_sort(rows.begin(), rows.end(), [](const StatRow& a, const StatRow& b) {
    return a.stats.total_ns > b.stats.total_ns;
  });
  return rows;
}

std::string_view CopyLabel(CopyKind k) {
  switch (k) {
    case CopyKind::kHtoD: return "Host-to-Device";
    case CopyKind::kDtoH: return "Device-to-Host";
    case CopyKind::kHtoA: return "Host-to-Array";
    case CopyKind::kAtoH: return "Array-to-Host";
    case CopyKind::kAtoA: return "Array-to-Array";
    case CopyKind::kAtoD: return "Array-to-Device";
    case CopyKind::kDtoA: return "Device-to-Array";
    case CopyKind::kDtoD: return "Device-to-Device";
    case CopyKind::kHtoH: return "Host-to-Host";
    case CopyKind::kPtoP: return "Peer-to-Peer";
    case CopyKind::kUvmHtoD: return "Unified Host-to-Device";
    case CopyKind::kUvmDtoH: return "Unified Device-to-Host";
    case CopyKind::kUvmDtoD: return "Unified Device-to-Device";
    case CopyKind::kUnknown: break;
  }
  return "Unknown";
}

// ApiIndex: (pid, correlation id) -> api_calls row, for the GPU-to-API joins.
struct ApiIndex {
  explicit ApiIndex(const model::Trace& t) {
    const model::ApiTable& a = t.api_calls;
    map.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (a.kind[i] == ApiKind::kOsRuntime || !IsValid(a.correlation_id[i])) continue;
      map.emplace(Key(a.pid[i], a.correlation_id[i]), i);
    }
  }
  static uint64_t Key(int32_t pid, int64_t corr) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 40) ^ static_cast<uint64_t>(corr);
  }
  const size_t* Find(int32_t pid, int64_t corr) const {
    if (!IsValid(corr)) return nullptr;
    auto it = map.find(Key(pid, corr));
    return it == map.end() ? nullptr : &it->second;
  }
  std::unordered_map<uint64_t, size_t> map;
};

// GpuOps: per (pid, device) the [start, end) intervals nsys's GPUOperation
// set holds: kernels, memcpys, memsets with start > 0, plus (with_overhead)
// the process's profiler-overhead ranges on each of its devices.
std::map<std::pair<int32_t, int32_t>, std::vector<std::pair<int64_t, int64_t>>> GpuOps(
    const model::Trace& t, bool with_overhead) {
  std::map<std::pair<int32_t, int32_t>, std::vector<std::pair<int64_t, int64_t>>> ops;
  auto add = [&](const std::vector<int32_t>& dev, const auto& pid,  // stored or lazy
                 const std::vector<int64_t>& s, const std::vector<int64_t>& e) {
    for (size_t i = 0; i < dev.size(); ++i)
      if (s[i] > 0) ops[{pid[i], dev[i]}].emplace_back(s[i], e[i]);
  };
  add(t.kernels.device_id, t.kernels.pid, t.kernels.start_ns, t.kernels.end_ns);
  add(t.memcpys.device_id, t.memcpys.pid, t.memcpys.start_ns, t.memcpys.end_ns);
  add(t.memsets.device_id, t.memsets.pid, t.memsets.start_ns, t.memsets.end_ns);
  StringId dom = t.strings.Find(kOverheadDomain);
  if (with_overhead && dom != StringPool::kNotInterned && !ops.empty()) {
    const model::RangeTable& r = t.ranges;
    for (size_t i = 0; i < r.size(); ++i) {
      if (r.domain[i] != dom) continue;
      std::string_view n = t.Str(r.name[i]);
      if (n != "CUDA profiling data flush overhead" && n != "CUDA profiling stop overhead" &&
          n != "CUDA profiling overhead")
        continue;
      if (r.start_ns[i] <= 0) continue;
      for (auto& [key, v] : ops)
        if (key.first == r.pid[i]) v.emplace_back(r.start_ns[i], r.end_ns[i]);
    }
  }
  return ops;
}

}  // namespace

std::string StripApiVersion(std::string_view name) {
  // Only 4-digit version tags ("_v3020", "_v7000"), as nsys 2024.2 does:
  // it keeps "cuMemAlloc_v2" and "cudaGetDeviceProperties_v12000".
  size_t p = name.rfind("_v");
  if (p != std::string_view::npos && p + 6 == name.size() &&
      std::all_of(name.begin() + static_cast<ptrdiff_t>(p) + 2, name.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    return std::string(name.substr(0, p));
  return std::string(name);
}

DurationStats Summarize(std::vector<int64_t> d) {
  DurationStats s;
  s.count = static_cast<int64_t>(d.size());
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  double sum = 0;
  for (int64_t v : d) {
    s.total_ns += v;
    sum += static_cast<double>(v);
  }
  size_t n = d.size();
  s.avg_ns = sum / static_cast<double>(n);
  s.med_ns = n % 2 ? static_cast<double>(d[n / 2])
                   : (static_cast<double>(d[n / 2 - 1]) + static_cast<double>(d[n / 2])) / 2.0;
  s.min_ns = d.front();
  s.max_ns = d.back();
  if (n > 1) {
    double ss = 0;
    for (int64_t v : d) ss += (static_cast<double>(v) - s.avg_ns) * (static_cast<double>(v) - s.avg_ns);
    s.stddev_ns = std::sqrt(ss / static_cast<double>(n - 1));
  }
  return s;
}

std::vector<StatRow> CudaGpuKernSum(const model::Trace& t) {
  std::map<std::string, std::vector<int64_t>> g;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    g[std::string(t.Str(t.kernels.name[i]))].push_back(t.kernels.end_ns[i] - t.kernels.start_ns[i]);
  return Finish(g);
}

std::vector<StatRow> CudaApiSum(const model::Trace& t) {
  std::map<std::string, std::vector<int64_t>> g;
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.kind[i] != ApiKind::kRuntime && a.kind[i] != ApiKind::kDriver) continue;
    g[StripApiVersion(t.Str(a.name[i]))].push_back(a.end_ns[i] - a.start_ns[i]);
  }
  return Finish(g);
}

std::vector<StatRow> CudaGpuMemTimeSum(const model::Trace& t) {
  std::map<std::string, std::vector<int64_t>> g;
  for (size_t i = 0; i < t.memcpys.size(); ++i)
    g["[CUDA memcpy " + std::string(CopyLabel(t.memcpys.copy_kind[i])) + "]"].push_back(
        t.memcpys.end_ns[i] - t.memcpys.start_ns[i]);
  for (size_t i = 0; i < t.memsets.size(); ++i)
    g["[CUDA memset]"].push_back(t.memsets.end_ns[i] - t.memsets.start_ns[i]);
  return Finish(g);
}

std::vector<KernExecRow> CudaKernExecSum(const model::Trace& t) {
  ApiIndex apis(t);
  struct Acc {
    std::vector<int64_t> total, api, queue, kernel;
  };
  std::map<std::tuple<int32_t, int64_t, int32_t, std::string, std::string>, Acc> g;
  const model::KernelTable& k = t.kernels;
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < k.size(); ++i) {
    const size_t* j = apis.Find(k.pid[i], k.correlation_id[i]);
    if (j == nullptr) continue;
    Acc& acc = g[{k.pid[i], a.tid[*j], k.device_id[i], StripApiVersion(t.Str(a.name[*j])),
                  std::string(t.Str(k.name[i]))}];
    int64_t api_ns = a.end_ns[*j] - a.start_ns[*j];
    int64_t q = k.start_ns[i] - a.end_ns[*j];
    int64_t kern_ns = k.end_ns[i] - k.start_ns[i];
    // Measured against nsys 2024.2.3: T runs from the launch call to whichever
    // ends last, the kernel or the call (a kernel can finish before it returns).
    acc.total.push_back(std::max(k.end_ns[i], a.end_ns[*j]) - a.start_ns[*j]);
    acc.api.push_back(api_ns);
    if (q >= 0) acc.queue.push_back(q);
    acc.kernel.push_back(kern_ns);
  }
  std::vector<KernExecRow> rows;
  for (auto& [key, acc] : g) {
    KernExecRow r;
    std::tie(r.pid, r.tid, r.device_id, r.api_name, r.kernel_name) = key;
    r.q_count = static_cast<int64_t>(acc.queue.size());
    r.total = Summarize(std::move(acc.total));
    r.api = Summarize(std::move(acc.api));
    r.queue = Summarize(std::move(acc.queue));
    r.kernel = Summarize(std::move(acc.kernel));
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const KernExecRow& x, const KernExecRow& y) {
    return x.total.avg_ns > y.total.avg_ns;
  });
  return rows;
}

std::vector<ApiSyncRow> CudaApiSync(const model::Trace& t) {
  std::vector<ApiSyncRow> rows;
  const model::ApiTable& a = t.api_calls;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.kind[i] == ApiKind::kOsRuntime) continue;
    std::string_view n = t.Str(a.name[i]);
    if (!StartsWithI(n, "cudaDeviceSynchronize") && !StartsWithI(n, "cudaStreamSynchronize"))
      continue;
    rows.push_back({a.end_ns[i] - a.start_ns[i], a.start_ns[i], a.pid[i], a.tid[i], std::string(n)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ApiSyncRow& x, const ApiSyncRow& y) {
    return x.dur_ns != y.dur_ns ? x.dur_ns > y.dur_ns : x.start_ns < y.start_ns;
  });
  return rows;
}

namespace {

template <typename Pred>
std::vector<MemopRuleRow> MemcpyRule(const model::Trace& t, Pred keep) {
  ApiIndex apis(t);
  std::vector<MemopRuleRow> rows;
  const model::MemcpyTable& m = t.memcpys;
  for (size_t i = 0; i < m.size(); ++i) {
    const size_t* j = apis.Find(m.pid[i], m.correlation_id[i]);
    if (j == nullptr) continue;
    std::string_view api = t.Str(t.api_calls.name[*j]);
    if (!keep(i, api)) continue;
    rows.push_back({m.end_ns[i] - m.start_ns[i], m.start_ns[i], m.src_kind[i], m.dst_kind[i],
                    m.bytes[i], m.pid[i], m.device_id[i], m.stream_id[i], std::string(api)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const MemopRuleRow& x, const MemopRuleRow& y) {
    return x.dur_ns != y.dur_ns ? x.dur_ns > y.dur_ns : x.start_ns < y.start_ns;
  });
  return rows;
}

}  // namespace

std::vector<MemopRuleRow> CudaMemcpyAsync(const model::Trace& t) {
  const model::MemcpyTable& m = t.memcpys;
  return MemcpyRule(t, [&](size_t i, std::string_view api) {
    bool pageable = m.src_kind[i] == MemoryKind::kPageable || m.dst_kind[i] == MemoryKind::kPageable;
    return pageable && StartsWithI(api, "cudaMemcpy") && ContainsI(api.substr(10), "Async");
  });
}

std::vector<MemopRuleRow> CudaMemcpySync(const model::Trace& t) {
  const model::MemcpyTable& m = t.memcpys;
  return MemcpyRule(t, [&](size_t i, std::string_view api) {
    if (!StartsWithI(api, "cudaMemcpy") || ContainsI(api, "Async")) return false;
    if (m.copy_kind[i] == CopyKind::kHtoD && IsValid(m.bytes[i]) && m.bytes[i] <= 64000) return false;
    if (IsValid(m.src_device_id[i]) && IsValid(m.dst_device_id[i]) &&
        m.src_device_id[i] == m.dst_device_id[i])
      return false;
    return true;
  });
}

std::vector<MemopRuleRow> CudaMemsetSync(const model::Trace& t) {
  ApiIndex apis(t);
  std::vector<MemopRuleRow> rows;
  const model::MemsetTable& m = t.memsets;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.dst_kind[i] != MemoryKind::kPinned && m.dst_kind[i] != MemoryKind::kManaged) continue;
    const size_t* j = apis.Find(m.pid[i], m.correlation_id[i]);
    if (j == nullptr) continue;
    std::string_view api = t.Str(t.api_calls.name[*j]);
    if (!StartsWithI(api, "cudaMemset") || ContainsI(api, "async")) continue;
    rows.push_back({m.end_ns[i] - m.start_ns[i], m.start_ns[i], MemoryKind::kUnknown, m.dst_kind[i],
                    m.bytes[i], m.pid[i], m.device_id[i], m.stream_id[i], std::string(api)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const MemopRuleRow& x, const MemopRuleRow& y) {
    return x.dur_ns != y.dur_ns ? x.dur_ns > y.dur_ns : x.start_ns < y.start_ns;
  });
  return rows;
}

std::vector<GapRow> GpuGaps(const model::Trace& t, int64_t min_gap_ns) {
  std::vector<GapRow> rows;
  for (auto& [key, ops] : GpuOps(t, /*with_overhead=*/true)) {
    // Sorting starts and ends separately and pairing end_i with start_{i+1}
    // yields exactly the holes of the union, even when ops overlap.
    std::vector<int64_t> s, e;
    for (auto [a, b] : ops) {
      s.push_back(a);
      e.push_back(b);
    }
    std::sort(s.begin(), s.end());
    std::sort(e.begin(), e.end());
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      int64_t gap = s[i + 1] - e[i];
      if (gap > min_gap_ns) rows.push_back({gap, e[i], key.first, key.second});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const GapRow& x, const GapRow& y) {
    return x.dur_ns > y.dur_ns;
  });
  return rows;
}

std::vector<UtilRow> GpuTimeUtil(const model::Trace& t, int chunks, double threshold_pct) {
  std::vector<UtilRow> rows;
  if (chunks < 1) return rows;
  // Measured against nsys 2024.2.3: the chunk span runs from the first to the
  // last GPU op (not to a later profiler flush), while profiler overhead still
  // counts as busy time inside it.
  auto real = GpuOps(t, /*with_overhead=*/false);
  for (auto& [key_binding, ops] : GpuOps(t, /*with_overhead=*/true)) {
    // A copy: lambdas below use it, and clang < 16 cannot capture a structured binding.
    const auto key = key_binding;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (auto [a, b] : real[key]) {
      lo = std::min(lo, a);
      hi = std::max(hi, b);
    }
    int64_t span = hi - lo;
    if (span <= 0) continue;
    int64_t len = (span + chunks - 1) / chunks;
    std::vector<double> busy(static_cast<size_t>(chunks), 0.0);
    for (auto [a, b] : ops) {
      a = std::max(a, lo);
      b = std::min(b, hi);
      if (b <= a) continue;
      // Sum, not union: concurrent ops add up (nsys's definition).
      int64_t c0 = (a - lo) / len, c1 = std::min<int64_t>((b - lo) / len, chunks - 1);
      for (int64_t c = c0; c <= c1; ++c) {
        int64_t cs = lo + c * len, ce = std::min(hi, cs + len);
        int64_t ov = std::min(b, ce) - std::max(a, cs);
        if (ov > 0) busy[static_cast<size_t>(c)] += static_cast<double>(ov);
      }
    }
    int run_start = -1;
    double run_busy = 0;
    int64_t run_len = 0;
    auto flush = [&](int end_chunk) {
      if (run_start < 0) return;
      UtilRow r;
      r.start_ns = lo + run_start * len;
      r.dur_ns = run_len;
      r.in_use_pct = std::round(1000.0 * run_busy / static_cast<double>(run_len)) / 10.0;
      r.pid = key.first;
      r.device_id = key.second;
      rows.push_back(r);
      run_start = -1;
      (void)end_chunk;
    };
    for (int c = 0; c < chunks; ++c) {
      int64_t cs = lo + c * len, ce = std::min(hi, cs + len);
      if (ce <= cs) break;
      double pct = 100.0 * busy[static_cast<size_t>(c)] / static_cast<double>(ce - cs);
      if (pct < threshold_pct) {
        if (run_start < 0) {
          run_start = c;
          run_busy = 0;
          run_len = 0;
        }
        run_busy += busy[static_cast<size_t>(c)];
        run_len += ce - cs;
      } else {
        flush(c);
      }
    }
    flush(chunks);
  }
  // nsys lists the low regions longest first.
  std::stable_sort(rows.begin(), rows.end(), [](const UtilRow& x, const UtilRow& y) {
    return x.dur_ns != y.dur_ns ? x.dur_ns > y.dur_ns : x.start_ns < y.start_ns;
  });
  return rows;
}

NsysCompatReport ComputeNsysCompat(const model::Trace& t) {
  NsysCompatReport r;
  r.kern_sum = CudaGpuKernSum(t);
  r.api_sum = CudaApiSum(t);
  r.mem_time_sum = CudaGpuMemTimeSum(t);
  r.kern_exec_sum = CudaKernExecSum(t);
  r.api_sync = CudaApiSync(t);
  r.memcpy_async = CudaMemcpyAsync(t);
  r.memcpy_sync = CudaMemcpySync(t);
  r.memset_sync = CudaMemsetSync(t);
  r.gaps = GpuGaps(t);
  r.time_util = GpuTimeUtil(t);
  if (t.kernels.empty()) r.notes.push_back("cuda_gpu_kern_sum: no CUDA kernel data");
  if (t.memcpys.empty() && t.memsets.empty())
    r.notes.push_back("cuda_gpu_mem_time_sum: no GPU memory data");
  if (t.kernels.empty() && t.memcpys.empty() && t.memsets.empty()) {
    r.notes.push_back(
        "gpu_gaps / gpu_time_util: no GPU operations were traced (not evidence of an idle GPU)");
    size_t rt = 0;
    for (size_t i = 0; i < t.api_calls.size(); ++i)
      rt += t.api_calls.kind[i] != ApiKind::kOsRuntime;
    if (rt > 0)
      r.notes.push_back(std::to_string(rt) + " CUDA API calls and " +
                        std::to_string(t.syncs.size()) +
                        " synchronization rows were traced, but no GPU activity rows");
  }
  return r;
}

}  // namespace gpuwhy::analysis::nsys_compat
