// ImportStats: every event an importer skipped or repaired, counted by reason.
//
// Contract: importers bump a named counter and continue; they never abort on
// one bad event. Reports print every non-zero counter with its description.
// Add a reason by adding one X() line; names are stable (they appear in JSON).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gpuwhy::model {

// X(name, severity, description). Severity: kInfo (harmless), kDataLoss (an
// event or field was dropped), kRepaired (a value was fixed up).
#define GPUWHY_IMPORT_STATS(X)                                                                  \
  X(unknown_category, kInfo, "events with a category gpuwhy does not model (kept out)")         \
  X(unknown_phase, kInfo, "events with a phase other than X/i/I/C/M/s/f/b/e (ignored)")         \
  X(unknown_field, kInfo, "top-level keys gpuwhy does not use (ignored)")                       \
  X(flow_event, kInfo, "flow (s/f) events; the link is taken from args.correlation instead")    \
  X(metadata_event, kInfo, "metadata (M) events read for process/thread names")                 \
  X(missing_ts, kDataLoss, "events without a usable ts (dropped)")                              \
  X(missing_dur, kDataLoss, "complete events without a usable dur (dropped)")                   \
  X(negative_dur, kRepaired, "events with a negative duration (clamped to 0)")                  \
  X(bad_field_type, kDataLoss, "events with a field of the wrong JSON type (dropped)")          \
  X(bad_arg_type, kRepaired, "event args of the wrong type (that arg treated as missing)")      \
  X(malformed_event, kDataLoss, "trace events that are not JSON objects (dropped)")             \
  X(missing_device, kRepaired, "GPU events without a device (taken from pid)")                  \
  X(missing_stream, kRepaired, "GPU events without a stream (taken from tid)")                  \
  X(missing_correlation, kInfo, "GPU or API events without a correlation id")                   \
  X(inf_occupancy_arg, kRepaired, "kernels whose blocks/warps per SM were 'inf' (marked missing)") \
  X(unknown_memcpy_kind, kInfo, "memcpy events whose copy or memory kind could not be parsed")  \
  X(counter_event, kInfo, "counter (C) events read as counter series")                          \
  X(garbage_row, kDataLoss, "text rows that could not be parsed (skipped)")                     \
  X(non_numeric_value, kDataLoss, "numeric fields holding text (that value marked missing)")    \
  X(negative_value, kRepaired, "metric values below zero or 32-bit wrapped (marked missing)")   \
  X(repeated_header, kInfo, "repeated header lines in appended logs (skipped)")                 \
  X(truncated_tail, kDataLoss, "a truncated last record (skipped)")                             \
  X(invalid_utf8, kRepaired, "strings with invalid UTF-8 (bytes replaced)")                     \
  X(out_of_order_gpu_cpu, kInfo, "GPU events that start before their launching API call")      \
  X(duplicate_event, kInfo, "events repeated exactly (kept once)")                           \
  X(no_timestamps, kInfo, "sampled logs without timestamps (sample indexes used, period unknown)") \
  X(coarse_sample_period, kInfo, "counter series sampled every >= 1 s (jumps and wobble cannot be told apart)") \
  X(malformed_table_row, kDataLoss, "nvidia-smi table / -q rows (GPU, process, MIG) that could not be parsed (skipped)") \
  X(untimed_snapshot, kDataLoss, "nvidia-smi snapshots without a timestamp in a timed log (dropped)") \
  X(trace_records_dropped, kDataLoss, "CUPTI records dropped while tracing: the trace buffers were full (gpuwhy record --trace)") \
  X(unknown_metadata_id, kDataLoss, "XSpace events or stats naming metadata their plane does not define (name or value missing)") \
  X(aggregated_event, kInfo, "XSpace events that are aggregates (a count, no time; skipped)")  \
  X(unmapped_plane, kInfo, "XSpace planes or lines with events gpuwhy does not model (SparseCore, custom devices, counters; skipped)") \
  X(time_out_of_range, kDataLoss, "events or samples with a time more than 2^62 ns (146 years) from the clock's zero (dropped, or that time marked missing)")

enum class StatSeverity : uint8_t { kInfo, kRepaired, kDataLoss };

enum class ImportStat : uint16_t {
#define GPUWHY_X(name, sev, desc) name,
  GPUWHY_IMPORT_STATS(GPUWHY_X)
#undef GPUWHY_X
      kCount
};

inline constexpr size_t kImportStatCount = static_cast<size_t>(ImportStat::kCount);

// ImportStatInfo: static name/severity/description of a reason.
struct ImportStatInfo {
  std::string_view name;
  StatSeverity severity;
  std::string_view description;
};

inline constexpr std::array<ImportStatInfo, kImportStatCount> kImportStatInfo = {{
#define GPUWHY_X(name, sev, desc) {#name, StatSeverity::sev, desc},
    GPUWHY_IMPORT_STATS(GPUWHY_X)
#undef GPUWHY_X
}};

// ImportStats: the counters for one imported source.
class ImportStats {
 public:
  void Bump(ImportStat s, uint64_t n = 1) { counts_[static_cast<size_t>(s)] += n; }
  uint64_t Get(ImportStat s) const { return counts_[static_cast<size_t>(s)]; }
  uint64_t Get(size_t i) const { return counts_[i]; }
  // Merge: add another source's counters (multi-file sessions).
  void Merge(const ImportStats& o) {
    for (size_t i = 0; i < kImportStatCount; ++i) counts_[i] += o.counts_[i];
  }

 private:
  std::array<uint64_t, kImportStatCount> counts_{};
};

}  // namespace gpuwhy::model
