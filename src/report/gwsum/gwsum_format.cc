#include "report/gwsum/gwsum_format.h"

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/gzip_writer.h"
#include "base/input_stream.h"
#include "report/gwsum/gwsum_dictionary.h"

namespace gpuwhy::report {

namespace {

using analysis::RankSummary;
namespace an = analysis;
namespace dt = analysis::detectors;

// EnumMax: the highest valid value of each enum the format carries; the
// reader refuses anything above it (a corrupt file must not reach a switch).
template <class E> constexpr uint64_t EnumMax();
template <> constexpr uint64_t EnumMax<an::KernelClass>() { return 5; }
template <> constexpr uint64_t EnumMax<model::CopyKind>() { return 13; }
template <> constexpr uint64_t EnumMax<model::MemoryKind>() { return 7; }
template <> constexpr uint64_t EnumMax<model::MigrationCause>() { return 5; }
template <> constexpr uint64_t EnumMax<an::SyncApiClass>() { return 2; }
template <> constexpr uint64_t EnumMax<model::SyncKind>() { return 4; }
template <> constexpr uint64_t EnumMax<model::CounterKind>() { return 24; }
template <> constexpr uint64_t EnumMax<model::CounterUnit>() { return 9; }
template <> constexpr uint64_t EnumMax<model::Vendor>() { return 4; }
template <> constexpr uint64_t EnumMax<model::StatSeverity>() { return 2; }
template <> constexpr uint64_t EnumMax<an::StepSource>() { return 3; }
template <> constexpr uint64_t EnumMax<an::CurveClass>() { return 5; }
template <> constexpr uint64_t EnumMax<an::Precision>() { return 7; }
template <> constexpr uint64_t EnumMax<an::OpClass>() { return 8; }
template <> constexpr uint64_t EnumMax<dt::Category>() { return 9; }
template <> constexpr uint64_t EnumMax<dt::Severity>() { return 4; }
template <> constexpr uint64_t EnumMax<dt::FixKind>() { return 16; }
template <> constexpr uint64_t EnumMax<an::SolBound>() { return 3; }

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }
uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t z) { return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1)); }

// FloatTag (version 2): a double is a varint tag. Most figures are missing,
// 0, 1 or whole counts; those take a byte or two instead of eight.
constexpr uint64_t kTagMissing = 0;  // kMissingF64, bit for bit
constexpr uint64_t kTagRaw = 1;      // 8 raw bytes follow (any other double)
constexpr uint64_t kTagInteger = 2;  // 2 + zigzag(i): the integer i as a double
// Utilization samples (IoSamples) use the same first two tags, then
// kTagSample + n / unit for the rational sample n / period_ns.
constexpr uint64_t kTagSample = 2;
constexpr uint64_t kMaxExactInteger = uint64_t{1} << 53;

bool IsMissingNan(double v) {
  const double missing = kMissingF64;
  return std::memcmp(&v, &missing, 8) == 0;
}
// IntegralValue: v is a whole number that a double holds exactly (and not -0).
bool IntegralValue(double v, int64_t* i) {
  if (!(std::fabs(v) <= static_cast<double>(kMaxExactInteger)) || std::trunc(v) != v) return false;
  if (v == 0 && std::signbit(v)) return false;
  *i = static_cast<int64_t>(v);
  return true;
}

// Enc: appends fields to a payload.
class Enc {
 public:
  static constexpr bool kReading = false;
  explicit Enc(uint16_t major_version) : major(major_version) {}
  void U(uint64_t& v) { PutU(v); }
  void S(int64_t& v) { PutU(ZigZag(v)); }
  // F: version 1 writes 8 raw bytes; version 2 a tagged varint (FloatTag).
  void F(double& v) {
    if (major >= 2) {
      int64_t i = 0;
      if (IsMissingNan(v)) return PutU(kTagMissing);
      if (IntegralValue(v, &i)) return PutU(kTagInteger + ZigZag(i));
      PutU(kTagRaw);
    }
    Raw(v);
  }
  void Raw(double v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out.append(b, 8);
  }
  void Str(std::string& s) {
    uint64_t n = s.size();
    PutU(n);
    out.append(s);
    if (strings != nullptr) strings->push_back(s);
  }
  bool Count(uint64_t& n) {
    PutU(n);
    return true;
  }
  const uint16_t major;
  std::string out;
  std::vector<std::string>* strings = nullptr;  // SummaryStrings: every string written

  void PutU(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
};

// Dec: reads fields from a payload; on the first error it records the offset
// and every later read yields zeros (the caller checks `failed`).
class Dec {
 public:
  static constexpr bool kReading = true;
  Dec(std::string_view in, size_t pos, uint16_t major_version)
      : major(major_version), in_(in), pos_(pos) {}
  void U(uint64_t& v) { v = GetU(); }
  void S(int64_t& v) { v = UnZigZag(GetU()); }
  void F(double& v) {
    v = 0;
    if (major >= 2) {
      const uint64_t tag = GetU();
      if (failed) return;
      if (tag == kTagMissing) {
        v = kMissingF64;
        return;
      }
      if (tag >= kTagInteger) {
        const int64_t i = UnZigZag(tag - kTagInteger);
        if (Magnitude(i) > kMaxExactInteger) return Fail("float integer out of range");
        v = static_cast<double>(i);
        return;
      }
    }
    Raw(v);
  }
  void Raw(double& v) {
    v = 0;
    if (!Need(8)) return;
    std::memcpy(&v, in_.data() + pos_, 8);
    pos_ += 8;
  }
  uint64_t GetU() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!Need(1)) return 0;
      const auto b = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Fail("varint too long");
    return 0;
  }
  void Str(std::string& s) {
    const uint64_t n = GetU();
    s.clear();
    if (!Need(n)) return;
    s.assign(in_.data() + pos_, n);
    pos_ += n;
  }
  // Count: a list length; every item takes at least one byte, so a length
  // above the bytes left is corrupt (bounds memory on hostile input).
  bool Count(uint64_t& n) {
    n = GetU();
    if (failed) return false;
    if (n > in_.size() - pos_) {
      Fail("list length " + std::to_string(n) + " exceeds the bytes left");
      return false;
    }
    return true;
  }
  void Fail(std::string why) {
    if (failed) return;
    failed = true;
    fail_at = pos_;
    reason = std::move(why);
  }
  size_t pos() const { return pos_; }
  size_t left() const { return in_.size() - pos_; }
  const uint16_t major;
  bool failed = false;
  size_t fail_at = 0;
  std::string reason;

 private:
  bool Need(uint64_t n) {
    if (failed) return false;
    if (n > in_.size() - pos_) {
      Fail("truncated");
      return false;
    }
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

// Wrapping arithmetic for decoding deltas: a corrupt file may overflow, and
// that must give garbage values (caught by nothing worse), not undefined behaviour.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
// Scalars.
template <class A> void Io(A& a, int64_t& v) { a.S(v); }
template <class A> void Io(A& a, int32_t& v) {
  int64_t x = v;
  a.S(x);
  if constexpr (A::kReading) {
    if (x < INT32_MIN || x > INT32_MAX) a.Fail("int32 out of range");
    v = static_cast<int32_t>(x);
  }
}
template <class A> void Io(A& a, uint64_t& v) { a.U(v); }
template <class A> void Io(A& a, uint32_t& v) {
  uint64_t x = v;
  a.U(x);
  if constexpr (A::kReading) {
    if (x > UINT32_MAX) a.Fail("uint32 out of range");
    v = static_cast<uint32_t>(x);
  }
}
template <class A> void Io(A& a, double& v) { a.F(v); }
template <class A> void Io(A& a, bool& v) {
  uint64_t x = v ? 1 : 0;
  a.U(x);
  if constexpr (A::kReading) {
    if (x > 1) a.Fail("bad bool");
    v = x == 1;
  }
}
template <class A> void Io(A& a, std::string& v) { a.Str(v); }
template <class A, class E>
  requires std::is_enum_v<E>
void Io(A& a, E& v) {
  uint64_t x = static_cast<uint64_t>(v);
  a.U(x);
  if constexpr (A::kReading) {
    if (x > EnumMax<E>()) a.Fail("enum value " + std::to_string(x) + " out of range");
    else v = static_cast<E>(x);
  }
}

// Structs: declared first so that the container templates below find them.
#define GWSUM_DECL(T) template <class A> void Io(A& a, T& v);
GWSUM_DECL(an::InputInfo)
GWSUM_DECL(an::DurationStats)
GWSUM_DECL(an::StepSummary)
GWSUM_DECL(an::BusySummary)
GWSUM_DECL(an::ShortKernelBucket)
GWSUM_DECL(an::KernelNameStats)
GWSUM_DECL(an::KernelSummary)
GWSUM_DECL(an::TransferStats)
GWSUM_DECL(an::MemcpyGroup)
GWSUM_DECL(an::UvmCauseGroup)
GWSUM_DECL(an::UvmSummary)
GWSUM_DECL(an::MemsetGroup)
GWSUM_DECL(an::SyncApiStats)
GWSUM_DECL(an::SyncEventStats)
GWSUM_DECL(an::CounterSummary)
GWSUM_DECL(an::DeviceSummary)
GWSUM_DECL(an::ImportStatLine)
GWSUM_DECL(an::TraceSummary)
GWSUM_DECL(an::Step)
GWSUM_DECL(an::StepStats)
GWSUM_DECL(an::StepResult)
GWSUM_DECL(an::UtilSeries)
GWSUM_DECL(an::Figure)
GWSUM_DECL(an::GapStats)
GWSUM_DECL(an::CurveFeatures)
GWSUM_DECL(an::CurveVerdict)
GWSUM_DECL(an::DeviceUtilization)
GWSUM_DECL(an::Roofline)
GWSUM_DECL(an::OpAggregate)
GWSUM_DECL(an::DeviceThroughput)
GWSUM_DECL(an::ThroughputResult)
GWSUM_DECL(an::UtilizationResult)
GWSUM_DECL(an::TraceAnalysis)
GWSUM_DECL(an::MeasuredRule)
GWSUM_DECL(an::MeasuredKernel)
GWSUM_DECL(an::MeasuredKernels)
GWSUM_DECL(dt::Metric)
GWSUM_DECL(dt::Example)
GWSUM_DECL(dt::Recommendation)
GWSUM_DECL(dt::Finding)
GWSUM_DECL(dt::StepWindow)
GWSUM_DECL(dt::IntervalList)
GWSUM_DECL(dt::PrimaryDigest)
GWSUM_DECL(dt::SampledDeviceStats)
GWSUM_DECL(dt::NodeCurve)
GWSUM_DECL(dt::RankDigest)
#undef GWSUM_DECL

template <class A, class T> void Io(A& a, std::vector<T>& v) {
  uint64_t n = v.size();
  if (!a.Count(n)) return;
  if constexpr (A::kReading) v.resize(n);
  for (T& x : v) Io(a, x);
}
template <class A, class T, size_t N> void Io(A& a, std::array<T, N>& v) {
  for (T& x : v) Io(a, x);
}
template <class A, class T> void Io(A& a, std::optional<T>& v) {
  bool has = v.has_value();
  Io(a, has);
  if constexpr (A::kReading) {
    if (has) v.emplace();
    else v.reset();
  }
  if (has) Io(a, *v);
}
template <class A, class... T> void All(A& a, T&... v) { (Io(a, v), ...); }

template <class A> void Io(A& a, an::InputInfo& v) {
  All(a, v.path, v.format, v.format_version, v.size_bytes, v.clock, v.rank, v.world_size,
      v.backend, v.hostname, v.merged_inputs);
}
template <class A> void Io(A& a, an::DurationStats& v) {
  All(a, v.count, v.total_ns, v.min_ns, v.p50_ns, v.p90_ns, v.p95_ns, v.p99_ns, v.max_ns,
      v.mean_ns, v.stddev_ns);
}
template <class A> void Io(A& a, an::StepSummary& v) {
  All(a, v.has_steps, v.first_step, v.last_step, v.window_start_ns, v.window_end_ns, v.step_time);
}
template <class A> void Io(A& a, an::BusySummary& v) {
  All(a, v.kernel_busy_ns, v.gpu_busy_ns, v.idle_ns, v.kernel_busy_ratio, v.gpu_busy_ratio,
      v.idle_ratio);
}
template <class A> void Io(A& a, an::ShortKernelBucket& v) {
  All(a, v.threshold_ns, v.count, v.count_ratio, v.time_ns, v.time_ratio);
}
template <class A> void Io(A& a, an::KernelNameStats& v) {
  All(a, v.name, v.raw_name, v.kernel_class, v.family, v.tensor_core, v.count, v.total_ns,
      v.mean_ns, v.max_ns, v.time_ratio);
}
template <class A> void Io(A& a, an::KernelSummary& v) {
  All(a, v.duration, v.short_kernels, v.distinct_names, v.top, v.other_count, v.other_total_ns,
      v.other_time_ratio, v.class_time_ns, v.class_time_ratio, v.tensor_core_time_ns,
      v.tensor_core_time_ratio);
}
template <class A> void Io(A& a, an::TransferStats& v) {
  All(a, v.count, v.bytes, v.count_missing_bytes, v.total_ns, v.bandwidth_gbps);
}
template <class A> void Io(A& a, an::MemcpyGroup& v) {
  All(a, v.copy_kind, v.src_kind, v.dst_kind, v.stats);
}
template <class A> void Io(A& a, an::UvmCauseGroup& v) { All(a, v.cause, v.stats); }
template <class A> void Io(A& a, an::UvmSummary& v) {
  All(a, v.total, v.union_ns, v.beside_kernels_ns, v.in_gaps_ns, v.by_cause);
}
template <class A> void Io(A& a, an::MemsetGroup& v) { All(a, v.dst_kind, v.stats); }
template <class A> void Io(A& a, an::SyncApiStats& v) {
  All(a, v.name, v.api_class, v.host_blocking, v.count, v.total_ns, v.max_ns);
}
template <class A> void Io(A& a, an::SyncEventStats& v) { All(a, v.kind, v.count, v.total_ns); }
template <class A> void Io(A& a, an::CounterSummary& v) {
  All(a, v.kind, v.unit, v.name, v.source, v.period_ns, v.samples, v.valid_samples, v.untimed,
      v.first_ns, v.last_ns, v.mean, v.min, v.max);
}
template <class A> void Io(A& a, an::DeviceSummary& v) {
  All(a, v.device_id, v.name, v.vendor, v.sm_count, v.cc_major, v.cc_minor, v.total_memory_bytes,
      v.stream_count, v.span_start_ns, v.span_end_ns, v.span_ns, v.steps, v.busy, v.kernels,
      v.memcpy_by_direction, v.memcpy_by_kind_pair, v.memcpy_total, v.uvm, v.memset_by_kind,
      v.memset_total, v.sync_apis, v.sync_events, v.has_events, v.counters);
}
template <class A> void Io(A& a, an::ImportStatLine& v) {
  All(a, v.name, v.severity, v.description, v.count);
}
template <class A> void Io(A& a, an::TraceSummary& v) {
  All(a, v.extent_start_ns, v.extent_end_ns, v.extent_ns, v.devices, v.devices_without_events,
      v.extent_from_counters, v.host_api_attributed_to_all, v.import_stats);
}
template <class A> void Io(A& a, an::Step& v) { All(a, v.number, v.start_ns, v.end_ns); }
template <class A> void Io(A& a, an::StepStats& v) {
  All(a, v.count, v.mean_ns, v.p50_ns, v.p95_ns, v.stddev_ns, v.jitter_ratio, v.p95_over_p50);
}
// Step lists, version 2: each step as deltas from the one before (number,
// start from the previous end, then its length).
template <class A> void IoStepList(A& a, std::vector<an::Step>& v) {
  if (a.major < 2) return Io(a, v);
  uint64_t n = v.size();
  if (!a.Count(n)) return;
  if constexpr (A::kReading) v.resize(n);
  int64_t prev_number = 0, prev_end = 0;
  for (an::Step& st : v) {
    int64_t d[3] = {WrapSub(st.number, prev_number), WrapSub(st.start_ns, prev_end),
                    WrapSub(st.end_ns, st.start_ns)};
    All(a, d[0], d[1], d[2]);
    if constexpr (A::kReading) {
      st.number = WrapAdd(prev_number, d[0]);
      st.start_ns = WrapAdd(prev_end, d[1]);
      st.end_ns = WrapAdd(st.start_ns, d[2]);
    }
    prev_number = st.number;
    prev_end = st.end_ns;
  }
}
template <class A> void Io(A& a, an::StepResult& v) {
  All(a, v.source, v.marker_name, v.period_kernels);
  IoStepList(a, v.steps);
  Io(a, v.stats);
}

// RationalSample (version 2): `value` is exactly n / period_ns for a whole
// n >= 0 (a bin's busy nanoseconds over its length), so n is stored instead
// of the double. The reader recomputes the same double.
bool RationalSample(double value, int64_t period_ns, int64_t* n) {
  if (period_ns <= 0 || !(value >= 0) || std::signbit(value) ||
      value > static_cast<double>(kMaxExactInteger) / static_cast<double>(period_ns))
    return false;
  const double x = std::nearbyint(value * static_cast<double>(period_ns));
  if (x > static_cast<double>(kMaxExactInteger)) return false;
  const double back = x / static_cast<double>(period_ns);
  if (std::memcmp(&back, &value, 8) != 0) return false;
  *n = static_cast<int64_t>(x);
  return true;
}

// Utilization samples, version 2: the count; `unit` (the greatest common
// divisor of the rational samples' numerators, >= 1); then per sample a
// varint: kTagMissing, kTagRaw then eight raw bytes, or kTagSample + n / unit
// for the rational sample n / period_ns.
template <class A> void IoSamples(A& a, std::vector<double>& v, int64_t period_ns) {
  if (a.major < 2) return Io(a, v);
  uint64_t count = v.size();
  if (!a.Count(count)) return;
  int64_t unit = 1;
  std::vector<int64_t> numerator;  // writing: each sample's n, or -1 (missing or raw)
  if constexpr (!A::kReading) {
    numerator.assign(v.size(), -1);
    uint64_t g = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t n = 0;
      if (IsMissingNan(v[i]) || !RationalSample(v[i], period_ns, &n)) continue;
      numerator[i] = n;
      g = std::gcd(g, static_cast<uint64_t>(n));
    }
    unit = g == 0 ? 1 : static_cast<int64_t>(g);
  }
  Io(a, unit);
  if constexpr (A::kReading) {
    if (unit <= 0) return a.Fail("sample unit " + std::to_string(unit) + " is not positive");
    v.resize(count);
  }
  for (size_t i = 0; i < v.size(); ++i) {
    double& x = v[i];
    if constexpr (!A::kReading) {
      if (IsMissingNan(x)) a.PutU(kTagMissing);
      else if (numerator[i] >= 0) a.PutU(kTagSample + static_cast<uint64_t>(numerator[i] / unit));
      else {
        a.PutU(kTagRaw);
        a.Raw(x);
      }
    } else {
      const uint64_t tag = a.GetU();
      if (a.failed) return;
      if (tag == kTagMissing) x = kMissingF64;
      else if (tag == kTagRaw) a.Raw(x);
      else {
        const uint64_t q = tag - kTagSample;
        if (period_ns <= 0) return a.Fail("rational sample without a period");
        if (q > kMaxExactInteger / static_cast<uint64_t>(unit)) return a.Fail("sample out of range");
        x = static_cast<double>(q * static_cast<uint64_t>(unit)) / static_cast<double>(period_ns);
      }
    }
  }
}
template <class A> void Io(A& a, an::UtilSeries& v) {
  All(a, v.label, v.source, v.period_ns, v.start_ns);
  IoSamples(a, v.util_ratio, v.period_ns);
  Io(a, v.mean_ratio);
}
template <class A> void Io(A& a, an::Figure& v) { All(a, v.value, v.source); }
template <class A> void Io(A& a, an::GapStats& v) {
  All(a, v.count, v.p50_ns, v.p95_ns, v.max_ns, v.idle_ratio, v.long_gap_idle_share,
      v.long_gaps_per_step, v.long_gap_ns_per_step);
}
template <class A> void Io(A& a, an::CurveFeatures& v) {
  All(a, v.sample_count, v.period_ns, v.histogram, v.share_below_10, v.share_above_90,
      v.mean_ratio, v.stddev_ratio, v.real_util_ratio, v.step_period_ns, v.long_gap_idle_share,
      v.gap_p95_ns);
}
template <class A> void Io(A& a, an::CurveVerdict& v) {
  All(a, v.curve_class, v.confidence, v.features, v.aliased, v.reason, v.aliasing_note);
}
template <class A> void Io(A& a, an::DeviceUtilization& v) {
  All(a, v.device_id, v.window_start_ns, v.window_end_ns, v.kernel_count, v.kernel_time_ns,
      v.surface_ratio, v.series, v.sm_fill_ratio, v.sm_fill_verdict_ratio, v.sm_fill_active_ratio,
      v.active_window_start_ns, v.active_window_end_ns, v.sm_fill_coverage, v.occupancy_ratio,
      v.occupancy_coverage, v.tensor_core_share, v.class_share, v.triton_share, v.graph_share,
      v.counter_sm_active, v.counter_sm_occupancy, v.counter_tensor_active, v.counter_dram_active,
      v.counter_power_ratio, v.counter_sm_clock_mhz, v.real_ratio, v.gap_pp, v.gaps, v.verdict,
      v.verdict_window, v.verdict_window_ns, v.has_active_verdict, v.active_verdict,
      v.window_note, v.nvml_verdict, v.aliasing_note);
}
template <class A> void Io(A& a, an::Roofline& v) {
  All(a, v.achieved_tflops, v.achieved_gbps, v.intensity, v.compute_roof_ratio,
      v.bandwidth_roof_ratio, v.ridge, v.bound);
}
template <class A> void Io(A& a, an::OpAggregate& v) {
  All(a, v.name, v.input_dims, v.input_types, v.params, v.op_class, v.precision, v.count, v.flops,
      v.bytes, v.gpu_time_ns, v.roof);
}
template <class A> void Io(A& a, an::DeviceThroughput& v) {
  All(a, v.device_id, v.device_name, v.gpu_model, v.peak_source, v.note, v.dominant_precision,
      v.peak_tflops, v.mem_bw_gbps, v.modelled_ops, v.op_gpu_time_ns, v.modelled_gpu_time_ns,
      v.matrix_flops, v.window, v.window_ns, v.busy_ns, v.mfu_ratio, v.busy_mfu_ratio,
      v.matrix_share, v.achieved_tflops, v.memory_bound_time_ns, v.compute_bound_time_ns,
      v.memory_bound_bytes, v.matrix_time_ns, v.fp32_matrix_time_ns, v.tf32_matrix_time_ns,
      v.classes, v.top_ops);
}
// The per-op instance and work tables stay behind: no report section reads them.
template <class A> void Io(A& a, an::ThroughputResult& v) {
  All(a, v.ops_with_shapes, v.note, v.devices);
}
template <class A> void Io(A& a, an::UtilizationResult& v) {
  All(a, v.steps, v.devices, v.throughput);
}
// The --compat sections are not carried (summarize computes none).
template <class A> void Io(A& a, an::TraceAnalysis& v) {
  All(a, v.input, v.summary, v.utilization);
}
template <class A> void Io(A& a, an::MeasuredRule& v) {
  All(a, v.rule, v.type, v.message, v.speedup_kind, v.est_speedup_pct);
}
template <class A> void Io(A& a, an::MeasuredKernel& v) {
  All(a, v.name, v.device_id, v.grid[0], v.grid[1], v.grid[2], v.block[0], v.block[1], v.block[2],
      v.registers_per_thread, v.shared_mem_bytes, v.launches, v.measured_launches, v.time_ns,
      v.time_share_ratio, v.sm_active_pct, v.sm_throughput_pct, v.memory_throughput_pct,
      v.dram_throughput_pct, v.achieved_occupancy_pct, v.theoretical_occupancy_pct,
      v.est_occupancy_pct, v.tensor_pipe_pct, v.bound, v.rules);
}
template <class A> void Io(A& a, an::MeasuredKernels& v) {
  All(a, v.untimed, v.kernels, v.measured_kernels, v.kernel_time_ns, v.source, v.groups);
}
template <class A> void Io(A& a, dt::Metric& v) { All(a, v.name, v.value, v.unit, v.label); }
template <class A> void Io(A& a, dt::Example& v) {
  All(a, v.what, v.start_ns, v.dur_ns, v.step, v.device_id, v.rank, v.detail);
}
template <class A> void Io(A& a, dt::Recommendation& v) { All(a, v.kind, v.text); }
template <class A> void Io(A& a, dt::Finding& v) {
  All(a, v.id, v.category, v.severity, v.title, v.summary, v.device_id, v.rank, v.evidence,
      v.examples, v.lost_per_step_ns, v.lost_step_ratio, v.lost_is_upper_bound, v.per_step_basis,
      v.predicted_step_ns, v.prediction_assumption, v.step_count, v.recommendations, v.caveats,
      v.notes);
}
// Step windows: each time as a delta from the previous window's start.
template <class A> void Io(A& a, dt::StepWindow& v) {
  All(a, v.step, v.start_ns, v.end_ns, v.host_start_ns, v.host_end_ns);
}
template <class A> void IoSteps(A& a, std::vector<dt::StepWindow>& v) {
  uint64_t n = v.size();
  if (!a.Count(n)) return;
  if constexpr (A::kReading) v.resize(n);
  int64_t base = 0;
  for (dt::StepWindow& w : v) {
    int64_t d[4] = {WrapSub(w.start_ns, base), WrapSub(w.end_ns, w.start_ns),
                    WrapSub(w.host_start_ns, w.start_ns), WrapSub(w.host_end_ns, w.start_ns)};
    All(a, w.step, d[0], d[1], d[2], d[3]);
    if constexpr (A::kReading) {
      w.start_ns = WrapAdd(base, d[0]);
      w.end_ns = WrapAdd(w.start_ns, d[1]);
      w.host_start_ns = WrapAdd(w.start_ns, d[2]);
      w.host_end_ns = WrapAdd(w.start_ns, d[3]);
    }
    base = w.start_ns;
  }
}
// Intervals (sorted, disjoint), columnar and scaled: the greatest common
// divisor `unit_ns` of every length and gap (1000 for a µs-resolution Kineto
// trace), then every length / unit_ns, then every gap from the previous end /
// unit_ns. Exact; gzip finds a step's repeating pattern in each column, and
// the scaled values take a byte or two.
template <class A> void Io(A& a, dt::IntervalList& v) {
  uint64_t n = v.size();
  if (!a.Count(n)) return;
  int64_t unit_ns = 0;
  if constexpr (!A::kReading) {
    uint64_t g = 0;
    int64_t prev_end = 0;
    for (const dt::Interval& iv : v) {
      g = std::gcd(g, std::gcd(Magnitude(WrapSub(iv.end_ns, iv.start_ns)),
                               Magnitude(WrapSub(iv.start_ns, prev_end))));
      prev_end = iv.end_ns;
    }
    unit_ns = g == 0 || g > static_cast<uint64_t>(INT64_MAX) ? 1 : static_cast<int64_t>(g);
  }
  Io(a, unit_ns);
  if constexpr (A::kReading) {
    if (unit_ns <= 0) {
      a.Fail("interval unit " + std::to_string(unit_ns) + " is not positive");
      return;
    }
    v.resize(n);
  }
  for (dt::Interval& iv : v) {
    int64_t len = WrapSub(iv.end_ns, iv.start_ns) / unit_ns;
    Io(a, len);
    if constexpr (A::kReading) iv.end_ns = WrapMul(len, unit_ns);  // the length, until the gaps are read
  }
  int64_t prev_end = 0;
  for (dt::Interval& iv : v) {
    int64_t gap = WrapSub(iv.start_ns, prev_end) / unit_ns;
    Io(a, gap);
    if constexpr (A::kReading) {
      const int64_t len = iv.end_ns;
      iv.start_ns = WrapAdd(prev_end, WrapMul(gap, unit_ns));
      iv.end_ns = WrapAdd(iv.start_ns, len);
    }
    prev_end = iv.end_ns;
  }
}
template <class A> void Io(A& a, dt::PrimaryDigest& v) {
  Io(a, v.device_id);
  IoSteps(a, v.steps);
  All(a, v.steps_from_markers, v.steps_total_ns, v.idle_ns, v.idle_by_cause_ns,
      v.kernel_in_steps_ns, v.compute_in_steps_ns, v.comm_in_steps_ns, v.busy_in_span_ns, v.idle);
}
template <class A> void Io(A& a, dt::SampledDeviceStats& v) {
  All(a, v.device_id, v.span_ns, v.period_ns, v.util_samples, v.gpu_util_ratio, v.under_10_ratio,
      v.over_90_ratio, v.sm_active_ratio, v.dram_active_ratio, v.tensor_active_ratio,
      v.power_limit_ratio, v.mem_util_ratio, v.reason_samples, v.reason_idle_ratio,
      v.throttle_ratio, v.util_source, v.max_util_ratio, v.mem_used_mean_bytes,
      v.mem_used_max_bytes, v.process_count, v.name);
}
template <class A> void Io(A& a, dt::NodeCurve& v) { All(a, v.device_id, v.curve_class, v.reason); }
template <class A> void Io(A& a, dt::RankDigest& v) {
  All(a, v.trace_rank, v.world_size, v.clock, v.extent_start_ns, v.extent_end_ns,
      v.first_comm_end_ns, v.has_gpu_events, v.has_counters, v.longest_marked_step_ns, v.findings,
      v.primary, v.curve_shape, v.curve_reason, v.curve_note, v.mfu_ratio, v.busy_mfu_ratio,
      v.real_throughput, v.node, v.node_curves);
}

void PutU16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

uint16_t GetU16(std::string_view s, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[at]) | (static_cast<uint8_t>(s[at + 1]) << 8));
}

constexpr size_t kHeaderBytes = 8 + 2 + 2;

// PutHeader: the magic and the version, the first kHeaderBytes of every file.
void PutHeader(std::string& out, uint16_t major, uint16_t minor) {
  out.append(kGwsumMagic);
  PutU16(out, major);
  PutU16(out, minor);
}

// Fields: every field of `summary` that versions 1 and 2.0 carry, through
// the encoder (Enc only reads).
void Fields(Enc& e, const RankSummary& summary) {
  RankSummary& s = const_cast<RankSummary&>(summary);
  All(e, s.analysis, s.digest);
}

// Fields21: what version 2.1 appends after them: how the importer read the
// source (InputInfo::import_notes), that it profiled the host only (the
// input's flag, and the digest's with the host's step count and mean), and a
// kernel profiler's measured per-kernel section (the ncu bound table), so
// that a rank set of summaries reports what its traces would.
template <class A> void Fields21(A& a, RankSummary& s) {
  All(a, s.analysis.input.import_notes, s.analysis.input.host_only_profile,
      s.digest.host_only_profile, s.digest.host_steps, s.digest.host_step_mean_ns,
      s.analysis.measured_kernels);
}

uint32_t GetU32(std::string_view s, size_t at) {
  return static_cast<uint32_t>(GetU16(s, at)) | (static_cast<uint32_t>(GetU16(s, at + 2)) << 16);
}

void PutU32(std::string& out, uint32_t v) {
  PutU16(out, static_cast<uint16_t>(v & 0xffff));
  PutU16(out, static_cast<uint16_t>(v >> 16));
}

// Version 2 adds to the 12 header bytes the body's length and CRC-32 (uint32
// little-endian each); the deflated body follows.
constexpr size_t kV2HeaderBytes = kHeaderBytes + 4 + 4;
// kMaxBodyBytes: the largest body a reader inflates. A summary is kilobytes
// plus about 1-2 bytes per GPU idle gap; 1 GiB is far beyond any real one.
constexpr uint32_t kMaxBodyBytes = uint32_t{1} << 30;

Result<RankSummary> DecodePayload(std::string_view p, const std::string& name) {
  if (p.size() < kHeaderBytes || p.substr(0, 8) != kGwsumMagic)
    return InvalidInput(name + ": not a gpuwhy summary (.gwsum): bad magic at byte 0");
  const uint16_t major = GetU16(p, 8), minor = GetU16(p, 10);
  if (major != 1 && major != kGwsumMajorVersion)
    return Unsupported(name + ": .gwsum format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " is not supported (this gpuwhy reads versions 1.x and " +
                       std::to_string(kGwsumMajorVersion) + ".x); summarize the trace again");
  // The payload the fields are read from: version 1's as it is; version 2's
  // header bytes then its inflated body, so that offsets count the same way.
  std::string inflated;
  std::string_view payload = p;
  if (major >= 2) {
    if (p.size() < kV2HeaderBytes)
      return InvalidInput(name + ": corrupt .gwsum (truncated header) at byte " + std::to_string(p.size()));
    const uint32_t body_bytes = GetU32(p, kHeaderBytes), crc = GetU32(p, kHeaderBytes + 4);
    // Deflate expands at most ~1032:1; a larger claim is corrupt before anything is allocated.
    const uint64_t compressed = p.size() - kV2HeaderBytes;
    if (body_bytes > kMaxBodyBytes || body_bytes > 1040 * compressed + 64)
      return InvalidInput(name + ": corrupt .gwsum (body length " + std::to_string(body_bytes) +
                          " impossible for " + std::to_string(compressed) + " compressed bytes) at byte " +
                          std::to_string(kHeaderBytes));
    Result<std::string> body = InflateWithDictionary(p.substr(kV2HeaderBytes), GwsumDictionaryV2(),
                                                     body_bytes, name + ": corrupt .gwsum",
                                                     kV2HeaderBytes);
    if (!body.ok()) return body.status();
    if (Crc32(*body) != crc)
      return InvalidInput(name + ": corrupt .gwsum (CRC-32 mismatch) at byte " +
                          std::to_string(kHeaderBytes + 4));
    inflated.reserve(kHeaderBytes + body->size());
    inflated.append(p.substr(0, kHeaderBytes));
    inflated.append(*body);
    payload = inflated;
  }
  RankSummary r;
  Dec d(payload, kHeaderBytes, major);
  All(d, r.analysis, r.digest);
  if (major == kGwsumMajorVersion && minor >= 1) Fields21(d, r);
  // Trailing bytes: allowed only from a newer minor version of the same major.
  const uint16_t own_minor = major == kGwsumMajorVersion ? kGwsumMinorVersion : 0;
  if (!d.failed && d.left() != 0 && minor <= own_minor)
    d.Fail(std::to_string(d.left()) + " trailing bytes");
  if (d.failed)
    return InvalidInput(name + ": corrupt .gwsum (" + d.reason + ") at payload byte " +
                        std::to_string(d.fail_at));
  return r;
}

}  // namespace

Result<std::string> WrapRankSummaryBody(std::string_view body) {
  if (body.size() > kMaxBodyBytes)
    return Internal("summary body of " + std::to_string(body.size()) + " bytes exceeds the format's limit");
  Result<std::string> deflated = DeflateWithDictionary(body, GwsumDictionaryV2());
  if (!deflated.ok()) return deflated.status();
  std::string out;
  out.reserve(kV2HeaderBytes + deflated->size());
  PutHeader(out, kGwsumMajorVersion, kGwsumMinorVersion);
  PutU32(out, static_cast<uint32_t>(body.size()));
  PutU32(out, Crc32(body));
  out.append(*deflated);
  return out;
}

Result<std::string> EncodeRankSummary(const RankSummary& summary) {
  Enc e(kGwsumMajorVersion);
  Fields(e, summary);
  Fields21(e, const_cast<RankSummary&>(summary));  // Enc only reads
  return WrapRankSummaryBody(e.out);
}

Result<std::string> EncodeRankSummaryVersion1(const RankSummary& summary) {
  Enc e(1);
  PutHeader(e.out, 1, 0);
  Fields(e, summary);
  return GzipCompress(e.out);
}

std::vector<std::string> SummaryStrings(const RankSummary& summary) {
  std::vector<std::string> strings;
  Enc e(kGwsumMajorVersion);
  e.strings = &strings;
  Fields(e, summary);
  Fields21(e, const_cast<RankSummary&>(summary));
  return strings;
}

Result<RankSummary> DecodeRankSummary(std::string_view bytes, const std::string& name) {
  std::unique_ptr<InputStream> in = OpenMemoryStream(bytes, name);
  std::string payload;
  char buf[1 << 16];
  for (;;) {
    Result<size_t> n = in->Read(buf, sizeof buf);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    payload.append(buf, *n);
  }
  return DecodePayload(payload, name);
}

Status WriteRankSummaryFile(const RankSummary& summary, const std::string& path) {
  Result<std::string> bytes = EncodeRankSummary(summary);
  if (!bytes.ok()) return bytes.status();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  f.close();
  if (!f) return IoError(path + ": cannot write the summary");
  return Status::Ok();
}

Result<RankSummary> ReadRankSummaryFile(const std::string& path) {
  Result<std::unique_ptr<InputStream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  std::string payload;
  std::vector<char> buf(1 << 16);
  for (;;) {
    Result<size_t> n = (*in)->Read(buf.data(), buf.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    payload.append(buf.data(), *n);
  }
  return DecodePayload(payload, path);
}

bool IsGwsumPath(std::string_view path) {
  constexpr std::string_view kExt = ".gwsum";
  return path.size() > kExt.size() && path.substr(path.size() - kExt.size()) == kExt;
}

}  // namespace gpuwhy::report
