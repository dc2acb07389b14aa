#include "synth_trace.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace gpuwhy::synth {

namespace {

constexpr int32_t kComputeStream = 7;
constexpr int32_t kNcclStream = 13;
constexpr int32_t kSmCount = 132;
constexpr int32_t kMaxThreadsPerSm = 2048;

// SplitMix64: a tiny PRNG with the same sequence on every platform
// (std::uniform_int_distribution is implementation-defined).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

enum class Role {
  kStep, kGpuStep, kDataLoader, kCpuOp, kRuntime, kKernel, kMemcpy, kMemset, kAnnotation,
  kPython,  // python_function (with_stack=True)
};

// Event: one complete (X) event before formatting; times relative to base.
struct Event {
  Role role;
  std::string name;
  int64_t start_ns;
  int64_t end_ns;
  int64_t correlation = -1;  // runtime and GPU events
  int64_t external_id = -1;
  int32_t stream = kComputeStream;
  int32_t cbid = 0;
  int64_t bytes = -1;
  int32_t grid_x = 0, block_x = 0, registers = 0, shared_mem = 0;
  int32_t step = 0;
  bool nccl = false;
  std::string input_dims{}, input_types{};  // cpu_op recorded shapes (verbatim JSON)
  bool comm_label = false;    // kernel_mix answers (GroundTruth)
  bool matrix_label = false;
};

std::string Escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o.push_back('\\');
    o.push_back(c);
  }
  return o;
}

class Builder {
 public:
  explicit Builder(const ScenarioParams& p) : p_(p), rng_(p.seed * 7919 + 17) {}

  std::vector<Event> Run() {
    int64_t host = p_.start_offset_ns;
    gpu_free_ = host;
    if (p_.setup_copies > 0) {
      // Set-up: weight uploads spread over setup_ns, no kernel among them.
      const int64_t t0 = host, every = p_.setup_ns / p_.setup_copies;
      for (int i = 0; i < p_.setup_copies; ++i) {
        host = std::max(host, t0 + i * every);
        host = Copy(host, /*h2d=*/true, p_.setup_copy_bytes, /*sync=*/false);
      }
      host = std::max(host, t0 + p_.setup_ns);
    }
    for (int s = 1; s <= p_.steps; ++s) {
      int64_t step_start = host;
      // Back-pressure: the step waits (untraced Python time) while the GPU is
      // more than max_queue_ahead_ns behind, so host steps track GPU steps.
      host = std::max(host, gpu_free_ - p_.max_queue_ahead_ns);
      size_t first_gpu = events_.size();
      host += 5000;
      if (p_.dataloader_ns > 0) {
        Add({Role::kDataLoader, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", host,
             host + p_.dataloader_ns});
        host += p_.dataloader_ns + 2000;
      }
      if (p_.host_work_ns > 0 && (p_.host_work_step == 0 || p_.host_work_step == s))
        host = HostWork(host);
      if (p_.h2d_bytes > 0) host = Copy(host, /*h2d=*/true, p_.h2d_bytes, p_.h2d_pageable);
      if (p_.host_hold_ns > 0) host = Hold(host, s);
      for (int k = 0; k < p_.kernels_per_step; ++k) {
        int64_t dur = rng_.Uniform(p_.kernel_min_ns, p_.kernel_max_ns);
        if (p_.kernel_mix.empty()) {
          host = Launch(host, "aten::mm", p_.kernel_name, dur, kComputeStream, false);
          continue;
        }
        const SynthKernel& mk = p_.kernel_mix[static_cast<size_t>(k) % p_.kernel_mix.size()];
        if (mk.dur_ns > 0) dur = mk.dur_ns;
        std::string op = !mk.op.empty() ? mk.op
                         : mk.communication ? "record_param_comms" : "aten::mm";
        host = Launch(host, std::move(op), mk.name, dur,
                      mk.communication ? kNcclStream : kComputeStream, false, mk.input_dims,
                      mk.input_types);
        events_.back().comm_label = mk.communication;
        events_.back().matrix_label = mk.matrix_core;
      }
      if (p_.memset_bytes > 0) host = Memset(host, p_.memset_bytes);
      if (p_.nccl_ns > 0)
        host = Launch(host, "record_param_comms",
                      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                      p_.nccl_ns, kNcclStream, true);
      if (p_.item_sync) host = Copy(host, /*h2d=*/false, 4, /*sync=*/true);
      Event step{Role::kStep, fmt::format("ProfilerStep#{}", s), step_start, host};
      step.step = s;
      if (!p_.step_markers) {
        host += p_.step_gap_ns;
        continue;
      }
      Add(step);
      // GPU-side projection of the step (Kineto gpu_user_annotation).
      int64_t g0 = -1, g1 = -1;
      for (size_t i = first_gpu; i < events_.size(); ++i) {
        const Event& e = events_[i];
        if (e.role != Role::kKernel && e.role != Role::kMemcpy && e.role != Role::kMemset) continue;
        g0 = g0 < 0 ? e.start_ns : std::min(g0, e.start_ns);
        g1 = std::max(g1, e.end_ns);
      }
      if (g0 >= 0) Add({Role::kGpuStep, step.name, g0 - 1, g1 + 1});
      host += p_.step_gap_ns;
    }
    return std::move(events_);
  }

 private:
  void Add(Event e) { events_.push_back(std::move(e)); }

  bool Hip() const { return p_.runtime == "hip"; }

  // HostWork: an annotation of host_work_ns filled by CPU ops that launch
  // nothing (preprocessing on CPU tensors).
  int64_t HostWork(int64_t host) {
    const int64_t end = host + p_.host_work_ns;
    Add({Role::kAnnotation, p_.host_work_name, host, end});
    const int64_t n = static_cast<int64_t>(std::max<size_t>(1, p_.host_work_ops.size())) * 4;
    const int64_t slice = p_.host_work_ns / n;
    for (int64_t i = 0; i < n && !p_.host_work_ops.empty(); ++i) {
      Event cpu{Role::kCpuOp, p_.host_work_ops[static_cast<size_t>(i) % p_.host_work_ops.size()],
                host + i * slice + 500, host + (i + 1) * slice - 500};
      cpu.external_id = ++external_;
      Add(cpu);
    }
    return end + 2000;
  }

  // Hold: the host phase of the gap-holder scenarios in step `s`
  // (ScenarioParams::host_hold_step; other steps get their short form).
  int64_t Hold(int64_t host, int s) {
    const bool here = p_.host_hold_step == 0 || p_.host_hold_step == s;
    const int64_t hold = p_.host_hold_ns;
    auto add = [&](Role role, std::string name, int64_t a, int64_t b) {
      Event e{role, std::move(name), a, b};
      if (role == Role::kCpuOp) e.external_id = ++external_;
      Add(std::move(e));
    };
    auto sync_until_drained = [&](int64_t h) {
      // A cudaStreamSynchronize that returns 2 µs after the GPU drains.
      const int64_t s1 = std::max(h + 3000, gpu_free_ + 2000);
      Event st{Role::kRuntime, "cudaStreamSynchronize", h, s1, ++correlation_, -1};
      st.cbid = 131;
      Add(st);
      return s1 + 1000;
    };
    switch (p_.scenario) {
      case Scenario::kBlockingCopyInOp: {
        if (!here) return host;
        // The GPU drains first; then, inside an op, a kernel is launched and a
        // blocking copy holds the host for `hold`: the queued kernel starts
        // only after the copy (the legacy default stream serializes them).
        host = std::max(host, gpu_free_ + 20000);
        const int64_t end = host + hold + 60000;
        add(Role::kPython, "sglang/srt/model_executor/forward_batch_info.py(443): init_new", host,
            end);
        add(Role::kCpuOp, "aten::to", host + 2000, end - 2000);
        add(Role::kCpuOp, "aten::_to_copy", host + 3000, end - 3000);
        add(Role::kCpuOp, "aten::copy_", host + 4000, end - 4000);
        const int64_t ext = external_;
        const int64_t corr_k = ++correlation_;
        Event rt{Role::kRuntime, "cudaLaunchKernel", host + 6000, host + 10000, corr_k, ext};
        rt.cbid = 211;
        Add(rt);
        const int64_t c0 = host + 12000, c1 = c0 + hold;
        const int64_t corr_c = ++correlation_;
        Event mc_rt{Role::kRuntime, "cudaMemcpy", c0, c1 + 3000, corr_c, ext};
        mc_rt.cbid = 31;
        Add(mc_rt);
        Event mc{Role::kMemcpy, "Memcpy HtoD (Pageable -> Device)", c1 - 10000, c1, corr_c, ext};
        mc.bytes = 1 << 20;
        Add(mc);
        // The step's own kernel: no name first seen after warm-up.
        Event k{Role::kKernel, p_.kernel_name, c1, c1 + 50000, corr_k, ext, kComputeStream};
        k.grid_x = p_.grid_x;
        k.block_x = p_.block_x;
        k.registers = p_.registers;
        k.shared_mem = p_.shared_mem_bytes;
        Add(k);
        gpu_free_ = c1 + 50000;
        return end + 2000;
      }
      case Scenario::kFirstCallOp: {
        // The first aten::cudnn_convolution spends `hold` on the CPU (cuDNN
        // benchmarking its algorithms) before it launches; later ones are quick.
        const int64_t len = here ? hold : p_.launch_cost_ns;
        const int64_t end = host + len;
        add(Role::kCpuOp, "aten::conv2d", host, end + 1000);
        add(Role::kCpuOp, "aten::cudnn_convolution", host + 500, end);
        const int64_t corr = ++correlation_;
        Event rt{Role::kRuntime, "cudaLaunchKernel", end - 5000, end - 1000, corr, external_};
        rt.cbid = 211;
        Add(rt);
        const int64_t k0 = std::max(gpu_free_, end - 1000 + p_.launch_latency_ns);
        Event k{Role::kKernel, "void cudnn::cnn::conv2d_grouped_direct_kernel<float>(float*)", k0,
                k0 + 200000, corr, external_, kComputeStream};
        k.grid_x = p_.grid_x;
        k.block_x = p_.block_x;
        k.registers = 64;
        Add(k);
        gpu_free_ = k0 + 200000;
        return end + 2000;
      }
      case Scenario::kCompileWarmup: {
        if (!here) return host;
        // The sync returns microseconds after the GPU drained; torch.compile
        // then compiles for `hold` before the step launches anything.
        host = sync_until_drained(host);
        const int64_t end = host + hold;
        add(Role::kAnnotation, "compile_fx.<locals>.fw_compiler_base (dynamo_timed)", host, end);
        add(Role::kPython, "torch/_inductor/codecache.py(2110): load_by_key_path", host + 1000,
            host + hold / 2);
        add(Role::kCpuOp, "aten::empty_strided", host + hold / 2 + 1000, host + hold / 2 + 9000);
        add(Role::kPython, "torch/_inductor/select_algorithm.py(1500): autotune_select_algorithm",
            host + hold / 2 + 10000, end - 1000);
        return end + 2000;
      }
      case Scenario::kSyncThenHostWork: {
        if (!here) return host;
        // Each step: the sync waits for the GPU, then a Python function that
        // launches nothing runs for `hold` (logging, metrics on the CPU).
        host = sync_until_drained(host);
        add(Role::kPython, "train.py(88): log_metrics", host, host + hold);
        return host + hold + 2000;
      }
      default:
        break;
    }
    return host;
  }

  // Launch: a cpu_op with a cudaLaunchKernel inside and its kernel.
  int64_t Launch(int64_t host, std::string op, const std::string& kernel, int64_t dur,
                 int32_t stream, bool nccl, const std::string& input_dims = {},
                 const std::string& input_types = {}) {
    int64_t ext = ++external_;
    int64_t corr = ++correlation_;
    Event cpu{Role::kCpuOp, std::move(op), host, host + p_.launch_cost_ns - 500};
    cpu.external_id = ext;
    cpu.input_dims = input_dims;
    cpu.input_types = input_types;
    Add(cpu);
    int64_t a0 = host + 1000, a1 = a0 + p_.launch_api_ns;
    Event rt{Role::kRuntime, Hip() ? "hipLaunchKernel" : "cudaLaunchKernel", a0, a1, corr, ext};
    rt.cbid = Hip() ? -1 : 211;
    Add(rt);
    int64_t k0 = std::max(gpu_free_, a1 + p_.launch_latency_ns);
    Event k{Role::kKernel, kernel, k0, k0 + dur, corr, ext, stream};
    k.grid_x = nccl ? 2 : p_.grid_x;
    k.block_x = nccl ? 640 : p_.block_x;
    k.registers = nccl ? 96 : p_.registers;
    k.shared_mem = nccl ? 4096 : p_.shared_mem_bytes;
    k.nccl = nccl;
    Add(k);
    gpu_free_ = k0 + dur;
    return host + p_.launch_cost_ns;
  }

  // Copy: aten::copy_ with cudaMemcpyAsync. `sync` makes the call wait for the
  // copy (pageable H2D is host-synchronous) and adds a cudaStreamSynchronize.
  int64_t Copy(int64_t host, bool h2d, int64_t bytes, bool sync) {
    int64_t ext = ++external_;
    int64_t corr = ++correlation_;
    int64_t a0 = host + 1000;
    int64_t dur = h2d ? static_cast<int64_t>(static_cast<double>(bytes) / p_.h2d_gbps) : 2000;
    dur = std::max<int64_t>(dur, 1000);
    int64_t c0 = std::max(gpu_free_, a0 + p_.launch_latency_ns);
    int64_t c1 = c0 + dur;
    gpu_free_ = c1;
    // A pageable H2D call returns after the copy; the others return at once.
    int64_t a1 = (h2d && sync) ? c1 + 2000 : a0 + p_.launch_api_ns;
    std::string name;
    if (h2d)
      name = sync ? "Memcpy HtoD (Pageable -> Device)" : "Memcpy HtoD (Pinned -> Device)";
    else
      name = "Memcpy DtoH (Device -> Pinned)";
    Event mc{Role::kMemcpy, name, c0, c1, corr, ext};
    mc.bytes = bytes;
    Event rt{Role::kRuntime, "cudaMemcpyAsync", a0, a1, corr, ext};
    rt.cbid = 41;
    if (Hip()) {
      // hipMemcpyWithStream blocks the host itself; no separate sync call.
      rt.name = sync ? "hipMemcpyWithStream" : "hipMemcpyAsync";
      rt.cbid = -1;
    }
    int64_t end = a1 + 1000;
    if (sync && !Hip()) {
      int64_t s0 = a1 + 1000;
      int64_t s1 = std::max(s0 + 3000, c1 + 2000);
      Event st{Role::kRuntime, "cudaStreamSynchronize", s0, s1, ++correlation_, ext};
      st.cbid = 131;
      Add(st);
      end = s1 + 1000;
    }
    Event cpu{Role::kCpuOp, h2d ? "aten::copy_" : "aten::_local_scalar_dense", host, end - 500};
    cpu.external_id = ext;
    Add(cpu);
    Add(rt);
    Add(mc);
    return end;
  }

  int64_t Memset(int64_t host, int64_t bytes) {
    int64_t ext = ++external_;
    int64_t corr = ++correlation_;
    Event cpu{Role::kCpuOp, "aten::zero_", host, host + p_.launch_cost_ns - 500};
    cpu.external_id = ext;
    Add(cpu);
    int64_t a0 = host + 1000, a1 = a0 + p_.launch_api_ns;
    Event rt{Role::kRuntime, "cudaMemsetAsync", a0, a1, corr, ext};
    rt.cbid = 51;
    Add(rt);
    int64_t m0 = std::max(gpu_free_, a1 + p_.launch_latency_ns);
    int64_t dur = std::max<int64_t>(1000, bytes / 500);  // ~500 GB/s
    Event ms{Role::kMemset, "Memset (Device)", m0, m0 + dur, corr, ext};
    ms.bytes = bytes;
    Add(ms);
    gpu_free_ = m0 + dur;
    return host + p_.launch_cost_ns;
  }

  const ScenarioParams& p_;
  Rng rng_;
  std::vector<Event> events_;
  int64_t gpu_free_ = 0;
  int64_t external_ = 0;
  int64_t correlation_ = 0;
};

GroundTruth Truth(const ScenarioParams& p, const std::vector<Event>& ev) {
  GroundTruth t;
  bool any_gpu = false;
  for (const Event& e : ev) {
    int64_t d = e.end_ns - e.start_ns;
    int64_t abs_start = p.base_time_ns + e.start_ns, abs_end = p.base_time_ns + e.end_ns;
    bool gpu = e.role == Role::kKernel || e.role == Role::kMemcpy || e.role == Role::kMemset;
    if (gpu) {
      t.gpu_busy_ns += d;
      t.gpu_span_start_ns = any_gpu ? std::min(t.gpu_span_start_ns, abs_start) : abs_start;
      t.gpu_span_end_ns = any_gpu ? std::max(t.gpu_span_end_ns, abs_end) : abs_end;
      any_gpu = true;
    }
    switch (e.role) {
      case Role::kStep:
        ++t.steps;
        t.step_ns.push_back(d);
        break;
      case Role::kKernel:
        if (e.comm_label || e.nccl) t.comm_kernel_ns += d;
        if (e.matrix_label) t.matrix_core_kernel_ns += d;
        t.min_kernel_ns = t.kernel_count == 0 ? d : std::min(t.min_kernel_ns, d);
        t.max_kernel_ns = std::max(t.max_kernel_ns, d);
        ++t.kernel_count;
        t.kernel_time_ns += d;
        break;
      case Role::kMemcpy:
        if (e.name.starts_with("Memcpy HtoD")) {
          ++t.memcpy_h2d_count;
          t.memcpy_h2d_bytes += e.bytes;
          t.memcpy_h2d_ns += d;
        } else {
          ++t.memcpy_d2h_count;
          t.memcpy_d2h_bytes += e.bytes;
          t.memcpy_d2h_ns += d;
        }
        break;
      case Role::kMemset:
        ++t.memset_count;
        t.memset_bytes += e.bytes;
        break;
      case Role::kRuntime:
        if (e.name == "cudaStreamSynchronize") {
          ++t.stream_sync_calls;
          t.stream_sync_ns += d;
        }
        break;
      case Role::kDataLoader:
        t.dataloader_ns += d;
        break;
      case Role::kAnnotation:
        t.host_work_ns += d;
        break;
      default:
        break;
    }
  }
  return t;
}

// Formatter: writes events in the modern or legacy shape.
class Formatter {
 public:
  explicit Formatter(const ScenarioParams& p) : p_(p) {}

  std::string Ts(int64_t rel_ns) const {
    if (p_.legacy) return fmt::format("{}", (p_.base_time_ns + rel_ns) / 1000);
    return fmt::format("{}.{:03}", rel_ns / 1000, rel_ns % 1000);
  }
  std::string Dur(int64_t ns) const {
    if (p_.legacy) return fmt::format("{}", ns / 1000);
    return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
  }
  std::string Tid(int32_t stream) const {
    return p_.legacy ? fmt::format("\"stream {}\"", stream) : fmt::format("{}", stream);
  }
  std::string HostTid() const {
    return p_.legacy ? fmt::format("\"{}\"", p_.tid) : fmt::format("{}", p_.tid);
  }
  const char* Ext() const { return p_.legacy ? "external id" : "External id"; }

  void Write(std::string& o, const synth::Event& e) const {
    std::string head;
    auto x = [&](std::string_view cat, std::string_view pid, std::string_view tid) {
      o += fmt::format(
          "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, "
          "\"ts\": {}, \"dur\": {}, \"args\": {{",
          cat, Escape(e.name), pid, tid, Ts(e.start_ns), Dur(e.end_ns - e.start_ns));
    };
    const std::string host_pid = fmt::format("{}", p_.pid);
    const int64_t dur = e.end_ns - e.start_ns;
    switch (e.role) {
      case Role::kStep:
        x(p_.legacy ? "Operator" : "user_annotation", host_pid, HostTid());
        o += fmt::format("\"{}\": {}", Ext(), 1000000 + e.step);
        break;
      case Role::kGpuStep:
        x("gpu_user_annotation", "0", Tid(kComputeStream));
        o += fmt::format("\"External id\": {}", 1000000 + e.step);
        break;
      case Role::kDataLoader:
      case Role::kAnnotation:
        x(p_.legacy ? "Operator" : "user_annotation", host_pid, HostTid());
        o += fmt::format("\"{}\": {}", Ext(), 2000000 + e.start_ns % 1000000);
        break;
      case Role::kPython:
        x(p_.legacy ? "Operator" : "python_function", host_pid, HostTid());
        o += fmt::format("\"Python id\": {}", e.start_ns % 1000000);
        break;
      case Role::kCpuOp:
        x(p_.legacy ? "Operator" : "cpu_op", host_pid, HostTid());
        o += fmt::format("\"{}\": {}", Ext(), e.external_id);
        if (!e.input_dims.empty() && !p_.legacy)
          o += fmt::format(", \"Input Dims\": {}, \"Input type\": {}", e.input_dims,
                           e.input_types.empty() ? "[]" : e.input_types);
        break;
      case Role::kRuntime:
        x(p_.legacy ? "Runtime" : "cuda_runtime", host_pid, HostTid());
        if (e.cbid >= 0) o += fmt::format("\"cbid\": {}, ", e.cbid);
        o += fmt::format("\"correlation\": {}, \"{}\": {}", e.correlation, Ext(), e.external_id);
        break;
      case Role::kKernel: {
        x(p_.legacy ? "Kernel" : "kernel", "0", Tid(e.stream));
        double bps = static_cast<double>(e.grid_x) / kSmCount;
        double wps = bps * e.block_x / 32.0;
        double occ = std::min(1.0, std::min<double>(p_.occupancy_blocks_limit, bps) * e.block_x /
                                       kMaxThreadsPerSm);
        o += fmt::format(
            "\"{}\": {}, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": {}, "
            "\"correlation\": {}, \"registers per thread\": {}, \"shared memory\": {}, "
            "\"blocks per SM\": {:.6f}, \"warps per SM\": {:.6f}, \"grid\": [{}, 1, 1], "
            "\"block\": [{}, 1, 1], \"est. achieved occupancy %\": {}",
            Ext(), e.external_id, e.stream, e.correlation, e.registers, e.shared_mem, bps, wps,
            e.grid_x, e.block_x, static_cast<int>(occ * 100 + 0.5));
        if (e.nccl && !p_.legacy)
          o += fmt::format(
              ", \"Collective name\": \"allreduce\", \"In msg nelems\": 4194304, "
              "\"Out msg nelems\": 4194304, \"Group size\": {}, \"dtype\": \"Float\"",
              p_.world_size);
        break;
      }
      case Role::kMemcpy:
      case Role::kMemset: {
        x(p_.legacy ? (e.role == Role::kMemcpy ? "Memcpy" : "Memset")
                    : (e.role == Role::kMemcpy ? "gpu_memcpy" : "gpu_memset"),
          "0", Tid(e.stream));
        o += fmt::format("\"device\": 0, \"context\": 1, \"stream\": {}, \"correlation\": {}, "
                         "\"{}\": {}, \"bytes\": {}",
                         e.stream, e.correlation, Ext(), e.external_id, e.bytes);
        if (dur > 0)
          o += fmt::format(", \"memory bandwidth (GB/s)\": {:.6f}",
                           static_cast<double>(e.bytes) / static_cast<double>(dur));
        break;
      }
    }
    o += "}},\n";
    // Flows from the launch to the GPU event (ac2g; legacy: "async").
    if (e.role == Role::kRuntime && e.name != "cudaStreamSynchronize") {
      o += fmt::format(
          "  {{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", "
          "\"name\": \"{}\"}},\n",
          e.correlation, p_.pid, p_.tid, Ts(e.start_ns), p_.legacy ? "async" : "ac2g",
          p_.legacy ? "launch" : "ac2g");
    }
    if (e.role == Role::kKernel || e.role == Role::kMemcpy || e.role == Role::kMemset) {
      o += fmt::format(
          "  {{\"ph\": \"f\", \"id\": {}, \"pid\": 0, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", "
          "\"name\": \"{}\", \"bp\": \"e\"}},\n",
          e.correlation, Tid(e.stream), Ts(e.start_ns), p_.legacy ? "async" : "ac2g",
          p_.legacy ? "launch" : "ac2g");
    }
  }

 private:
  const ScenarioParams& p_;
};

}  // namespace

std::string_view ScenarioName(Scenario s) {
  switch (s) {
    case Scenario::kHealthy: return "healthy";
    case Scenario::kDataloaderStall: return "dataloader_stall";
    case Scenario::kSyncEveryStep: return "sync_every_step";
    case Scenario::kFragmented: return "fragmented";
    case Scenario::kPageableH2d: return "pageable_h2d";
    case Scenario::kMemoryBound: return "memory_bound";
    case Scenario::kMultiRank: return "multi_rank";
    case Scenario::kHostBusy: return "host_busy";
    case Scenario::kLaunchCadence: return "launch_cadence";
    case Scenario::kOneOffGap: return "one_off_gap";
    case Scenario::kHipBlockingCopy: return "hip_blocking_copy";
    case Scenario::kVendorKernels: return "vendor_kernels";
    case Scenario::kGemmShapes: return "gemm_shapes";
    case Scenario::kOneBlockKernel: return "one_block_kernel";
    case Scenario::kTinyBlocks: return "tiny_blocks";
    case Scenario::kBlockingCopyInOp: return "blocking_copy_in_op";
    case Scenario::kFirstCallOp: return "first_call_op";
    case Scenario::kCompileWarmup: return "compile_warmup";
    case Scenario::kSyncThenHostWork: return "sync_then_host_work";
    case Scenario::kSetupThenMemoryBound: return "setup_then_memory_bound";
  }
  return "unknown";
}

std::vector<Scenario> AllScenarios() {
  return {Scenario::kHealthy,    Scenario::kDataloaderStall, Scenario::kSyncEveryStep,
          Scenario::kFragmented, Scenario::kPageableH2d,     Scenario::kMemoryBound,
          Scenario::kMultiRank,  Scenario::kHostBusy,        Scenario::kLaunchCadence,
          Scenario::kOneOffGap,  Scenario::kHipBlockingCopy, Scenario::kVendorKernels,
          Scenario::kGemmShapes, Scenario::kOneBlockKernel, Scenario::kTinyBlocks,
          Scenario::kBlockingCopyInOp, Scenario::kFirstCallOp, Scenario::kCompileWarmup,
          Scenario::kSyncThenHostWork, Scenario::kSetupThenMemoryBound};
}

Result<Scenario> ParseScenario(std::string_view name) {
  for (Scenario s : AllScenarios())
    if (ScenarioName(s) == name) return s;
  return InvalidInput(fmt::format("unknown scenario '{}'", name));
}

ScenarioParams DefaultParams(Scenario s) {
  ScenarioParams p;
  p.scenario = s;
  p.h2d_bytes = 4 << 20;  // a pinned 4 MiB batch copy per step
  p.memset_bytes = 1 << 20;
  switch (s) {
    case Scenario::kHealthy:
      break;
    case Scenario::kDataloaderStall:
      p.dataloader_ns = 30 * kNsPerMs;
      break;
    case Scenario::kSyncEveryStep:
      p.item_sync = true;
      p.kernels_per_step = 40;
      p.kernel_min_ns = 100000;
      p.kernel_max_ns = 200000;
      p.launch_cost_ns = 10000;
      p.step_gap_ns = 3 * kNsPerMs;  // Python work while the GPU sits drained
      break;
    case Scenario::kFragmented:
      p.steps = 2;
      p.kernels_per_step = 1000;
      p.kernel_min_ns = 5000;
      p.kernel_max_ns = 20000;
      p.launch_cost_ns = 25000;
      p.launch_api_ns = 6000;
      p.kernel_name = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor>";
      p.grid_x = 64;
      p.block_x = 128;
      p.registers = 32;
      p.shared_mem_bytes = 0;
      break;
    case Scenario::kPageableH2d:
      p.h2d_bytes = 64 << 20;
      p.h2d_pageable = true;
      p.h2d_gbps = 3.0;
      break;
    case Scenario::kSetupThenMemoryBound:
      // A whole-program capture: model loading, then the memory-bound loop.
      p.step_markers = false;
      p.steps = 20;
      p.h2d_bytes = 0;
      p.setup_copies = 500;
      p.setup_ns = 1500 * kNsPerMs;
      [[fallthrough]];
    case Scenario::kMemoryBound:
      p.kernels_per_step = 8;
      p.kernel_min_ns = 2000000;
      p.kernel_max_ns = 3000000;
      p.kernel_name =
          "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float>>";
      p.grid_x = 65536;
      p.block_x = 128;
      p.registers = 24;
      p.shared_mem_bytes = 0;
      break;
    case Scenario::kMultiRank:
      p.world_size = 2;
      p.nccl_ns = 2 * kNsPerMs;
      break;
    case Scenario::kHostBusy:
      // ~10 ms of GEMMs per step behind 20 ms of CPU preprocessing.
      p.host_work_ns = 20 * kNsPerMs;
      break;
    case Scenario::kLaunchCadence:
      p.steps = 3;
      p.kernels_per_step = 400;
      p.kernel_min_ns = 10000;
      p.kernel_max_ns = 20000;
      p.launch_cost_ns = 40000;
      p.launch_api_ns = 8000;
      p.kernel_name = "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor>";
      p.grid_x = 64;
      p.block_x = 128;
      p.registers = 32;
      p.shared_mem_bytes = 0;
      break;
    case Scenario::kOneOffGap:
      p.steps = 6;
      p.host_work_ns = 300 * kNsPerMs;
      p.host_work_step = 4;
      p.host_work_name = "evaluate";
      p.host_work_ops = {"aten::argmax", "aten::eq", "aten::sum"};
      break;
    case Scenario::kHipBlockingCopy:
      p.runtime = "hip";
      p.h2d_bytes = 64 << 20;
      p.h2d_pageable = true;
      p.h2d_gbps = 3.0;
      p.kernel_name = "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_1LDSB0_GRVW8";
      break;
    case Scenario::kVendorKernels:
      p.kernel_mix = VendorKernelMix();
      p.kernels_per_step = 2 * static_cast<int>(p.kernel_mix.size());
      break;
    case Scenario::kGemmShapes:
      // Only the GEMMs: no batch copy or memset, so op time = kernel time.
      p.kernel_mix = GemmShapesMix();
      p.kernels_per_step = static_cast<int>(p.kernel_mix.size());
      p.h2d_bytes = 0;
      p.memset_bytes = 0;
      break;
    case Scenario::kOneBlockKernel:
      // A serial loop written as one block of one warp: the GPU reads busy,
      // 1 of 132 SMs has work (SM fill 0.76%).
      p.kernel_name = "void serial_update_kernel(float*, float const*, int)";
      p.grid_x = 1;
      p.block_x = 32;
      p.registers = 32;
      p.shared_mem_bytes = 0;
      p.occupancy_blocks_limit = 32;  // sm_90: 32 resident blocks per SM
      break;
    case Scenario::kBlockingCopyInOp:
      p.steps = 6;
      p.host_hold_step = 3;
      p.host_hold_ns = 300 * kNsPerMs;
      break;
    case Scenario::kFirstCallOp:
      p.steps = 6;
      p.host_hold_step = 1;
      p.host_hold_ns = 400 * kNsPerMs;
      break;
    case Scenario::kCompileWarmup:
      p.steps = 6;
      p.host_hold_step = 2;
      p.host_hold_ns = 800 * kNsPerMs;
      break;
    case Scenario::kSyncThenHostWork:
      p.host_hold_step = 0;
      p.host_hold_ns = 15 * kNsPerMs;
      break;
    case Scenario::kTinyBlocks:
      // 64 blocks per SM, 16 threads each: at most 32 blocks reside (sm_90),
      // 512 of 2048 thread slots: est. occupancy 25%, half of each warp idle.
      p.kernel_name = "void scale_rows_kernel(float*, float const*, int)";
      p.grid_x = 132 * 64;
      p.block_x = 16;
      p.registers = 32;
      p.shared_mem_bytes = 0;
      p.occupancy_blocks_limit = 32;
      break;
  }
  return p;
}

std::vector<SynthKernel> GemmShapesMix() {
  constexpr double kPeak = 989.4e12;  // H100 SXM bf16 dense
  const std::string types = R"(["c10::BFloat16", "c10::BFloat16"])";
  const std::string kernel = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64";
  auto at = [&](double flops, double ratio) {
    return static_cast<int64_t>(flops / (ratio * kPeak) * 1e9 + 0.5);
  };
  SynthKernel good{kernel, false, true, "aten::mm", "[[4096, 4096], [4096, 4096]]", types,
                   at(2.0 * 4096 * 4096 * 4096, 0.6)};
  SynthKernel bad{kernel, false, true, "aten::mm", "[[4096, 1020], [1020, 4096]]", types,
                  at(2.0 * 4096 * 4096 * 1020, 0.1)};
  return {good, good, good, good, bad};
}

std::vector<SynthKernel> VendorKernelMix() {
  return {
      // Expert-parallel dispatch/combine (DeepEP), mangled as ROCm/nsys may show them.
      {"_ZN7deep_ep9intranode8dispatchILi8ELi768ELi8192EEEvPv", true, false},
      {"void deep_ep::internode::combine<8>(void*, int)", true, false},
      // Custom all-reduce: vLLM and TRT-LLM.
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, "
       "vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
       true, false},
      {"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>("
       "tensorrt_llm::kernels::AllReduceParams)",
       true, false},
      // hipBLASLt/Tensile: MFMA tile (matrix cores) and a SIMT one.
      {"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_LDSB1_AFC1_AFEM1_ISA942", false, true},
      {"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_AMAS3_BL1_GRVW4_MIAV0_MIWT1_1", false, false},
      // Composable Kernel tile FMHA, mangled (void ck_tile::kentry<1, FmhaFwdKernel<int>>).
      {"_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelIiEEEEvT0_", false, true},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
       false, false},
  };
}

SynthTrace Generate(const ScenarioParams& p) {
  std::vector<Event> events = Builder(p).Run();
  if (p.legacy) {
    // 2021 traces carry whole µs; rounding both ends keeps order and adjacency.
    auto us = [](int64_t ns) { return (ns + 500) / 1000 * 1000; };
    for (Event& e : events) {
      e.start_ns = us(e.start_ns);
      e.end_ns = us(e.end_ns);
    }
  }
  SynthTrace out;
  out.truth = Truth(p, events);
  for (const Event& e : events)
    if (e.role == Role::kKernel)
      out.kernel_intervals_ns.emplace_back(p.base_time_ns + e.start_ns, p.base_time_ns + e.end_ns);
  std::sort(out.kernel_intervals_ns.begin(), out.kernel_intervals_ns.end());

  Formatter f(p);
  std::string& o = out.json;
  o.reserve(events.size() * 300 + 4096);
  o += "{\n  \"schemaVersion\": 1,\n";
  o += "  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
       "\"totalGlobalMem\": 85029158912, \"computeMajor\": 9, \"computeMinor\": 0, "
       "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, "
       "\"regsPerBlock\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
       "\"numSms\": 132, \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
       "\"sharedMemPerMultiprocessor\": 233472}\n  ],\n";
  if (!p.legacy) {
    o += "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12060,\n"
         "  \"cuda_driver_version\": 12040,\n";
    o += fmt::format("  \"trace_id\": \"gpuwhy-synth-{}-{}\",\n", ScenarioName(p.scenario), p.seed);
    if (p.world_size > 1) {
      std::string ranks;
      for (int r = 0; r < p.world_size; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
      o += fmt::format(
          "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, \"world_size\": {}, "
          "\"pg_count\": 1, \"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
          "\"backend_config\": \"cuda:nccl\", \"pg_size\": {}, \"ranks\": [{}]}}], "
          "\"nccl_version\": \"2.21.5\"}},\n",
          p.rank, p.world_size, p.world_size, ranks);
    }
    o += "  \"displayTimeUnit\": \"ms\",\n";
    o += fmt::format("  \"baseTimeNanoseconds\": {},\n", p.base_time_ns);
  }
  o += "  \"traceEvents\": [\n";
  int64_t t0 = events.empty() ? 0 : events.front().start_ns;
  int64_t t1 = t0;
  for (const Event& e : events) {
    t0 = std::min(t0, e.start_ns);
    t1 = std::max(t1, e.end_ns);
  }
  o += fmt::format(
      "  {{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": {}, \"pid\": {}, \"tid\": 0, "
      "\"args\": {{\"name\": \"python\"}}}},\n",
      f.Ts(t0), p.pid);
  o += fmt::format(
      "  {{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": {}, \"pid\": 0, \"tid\": 0, "
      "\"args\": {{\"name\": \"GPU 0\"}}}},\n",
      f.Ts(t0));
  o += fmt::format(
      "  {{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": {}, \"pid\": 0, \"tid\": {}, "
      "\"args\": {{\"name\": \"stream {} \"}}}},\n",
      f.Ts(t0), f.Tid(kComputeStream), kComputeStream);
  for (const Event& e : events) f.Write(o, e);
  o += fmt::format(
      "  {{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": {}, \"dur\": {}, \"pid\": \"Spans\", "
      "\"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", "
      "\"args\": {{\"Op count\": 0}}}},\n",
      f.Ts(t0), f.Dur(t1 - t0));
  o += fmt::format(
      "  {{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", "
      "\"tid\": \"\", \"ts\": {}}}\n  ]",
      f.Ts(t1 + 1000));
  if (!p.legacy)
    o += fmt::format(",\n  \"traceName\": \"synth_{}.pt.trace.json\"", ScenarioName(p.scenario));
  o += "\n}\n";
  return out;
}

namespace {

// CivilFromDays: (year, month, day) of days since 1970-01-01 (H. Hinnant's algorithm).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2 ? 1 : 0);
}

std::string SmiTimestamp(int64_t unix_ns) {
  const int64_t ms = unix_ns / kNsPerMs;
  const int64_t secs = ms / 1000;
  const int64_t days = secs / 86400;
  const int64_t sod = secs % 86400;
  int64_t y = 0;
  unsigned mo = 0, d = 0;
  CivilFromDays(days, &y, &mo, &d);
  return fmt::format("{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}", y, mo, d, sod / 3600,
                     sod / 60 % 60, sod % 60, ms % 1000);
}

}  // namespace

std::string SmiLog(const SynthTrace& trace, const SmiLogParams& sp) {
  std::string o =
      "timestamp, index, name, utilization.gpu [%], utilization.memory [%], power.draw [W], "
      "power.limit [W]\n";
  const auto& k = trace.kernel_intervals_ns;
  if (k.empty() || sp.period_ns <= 0) return o;
  int64_t last_end = 0;
  for (const auto& iv : k) last_end = std::max(last_end, iv.second);
  const int64_t t0 = k.front().first - sp.lead_ns;
  const int64_t t1 = last_end + sp.tail_ns;
  const int64_t tz_ns = static_cast<int64_t>(sp.tz_offset_hours) * 3600 * kNsPerS;
  size_t first = 0;  // first kernel that may overlap the current period
  for (int64_t end = t0 + sp.period_ns; end <= t1; end += sp.period_ns) {
    const int64_t start = end - sp.period_ns;
    int64_t busy = 0, covered = start;  // union of kernel time inside [start, end)
    while (first < k.size() && k[first].second <= start) ++first;
    for (size_t i = first; i < k.size() && k[i].first < end; ++i) {
      const int64_t s = std::max({k[i].first, start, covered}), e = std::min(k[i].second, end);
      if (e > s) busy += e - s;
      covered = std::max(covered, e);
    }
    const int util = static_cast<int>((busy * 100 + sp.period_ns / 2) / sp.period_ns);
    const double power_w = 70.0 + 5.3 * util;
    o += fmt::format("{}, 0, NVIDIA H100 80GB HBM3, {} %, {} %, {:.2f} W, 700.00 W\n",
                     SmiTimestamp(end + tz_ns), util, util / 2, power_w);
  }
  return o;
}

Status WriteTrace(const std::string& json, const std::string& path) {
  std::string bytes;
  if (path.ends_with(".gz")) {
    z_stream zs{};
    // windowBits 15+16: gzip wrapper; zlib writes mtime 0 and no name.
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return Internal(path + ": deflateInit2 failed");
    bytes.resize(deflateBound(&zs, json.size()) + 64);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(json.data()));
    zs.avail_in = static_cast<uInt>(json.size());
    zs.next_out = reinterpret_cast<Bytef*>(bytes.data());
    zs.avail_out = static_cast<uInt>(bytes.size());
    int rc = deflate(&zs, Z_FINISH);
    bytes.resize(zs.total_out);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) return Internal(path + ": gzip compression failed");
  } else {
    bytes = json;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return IoError(path + ": cannot open for writing");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return IoError(path + ": write failed");
  return Status::Ok();
}

}  // namespace gpuwhy::synth
