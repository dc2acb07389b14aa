// Shared pieces of the nvidia-smi / DCGM text importers: line splitting,
// value and timestamp parsing, and a builder that turns (device, metric,
// time, value) samples into model CounterSeries.
//
// Contract: values are parsed into canonical units (ratios 0..1, mW, MHz,
// bytes). "[N/A]", "N/A", "[Not Supported]", "Not Supported" and empty cells
// are missing (NaN), never 0. Text that is not a number bumps
// non_numeric_value; negative (or 32-bit wrapped) values bump negative_value;
// both become missing. Timestamps: nvidia-smi's "2024/01/31 12:34:56.789" is
// read as UTC (nvidia-smi prints local time without a zone; gpuwhy assumes the
// logging host ran in UTC), ISO-8601 honours its zone, bare numbers are epoch
// seconds (or ms/us/ns by magnitude).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy::import::smi {

// Lines: `text` split on '\n' ('\r' dropped); `last_complete` is false when
// the text does not end with a newline (a possibly truncated last line).
std::vector<std::string_view> Lines(std::string_view text, bool* last_complete);
// SplitCells: comma-separated cells, each trimmed of spaces.
std::vector<std::string_view> SplitCells(std::string_view line, char sep = ',');
// SplitWhitespace: cells separated by runs of spaces/tabs.
std::vector<std::string_view> SplitWhitespace(std::string_view line);
std::string_view Trim(std::string_view s);

// IsMissingText: "[N/A]", "N/A", "[Not Supported]", "-", "" and friends.
bool IsMissingText(std::string_view s);
// ParseNumber: leading number of `s` ("83 %", "1129 MiB", "33.09 W", "0x0004");
// false when `s` does not start with one. `unit` receives the trailing text.
bool ParseNumber(std::string_view s, double* v, std::string_view* unit);

// ScaledTimeNs: `v` units of `ns_per_unit` ns into *ns; false when the product
// leaves int64 or lies past kMaxAbsTimeNs (base/units.h).
bool ScaledTimeNs(int64_t v, int64_t ns_per_unit, int64_t* ns);

// IndexOf: a parsed GPU index or pid `v` as int32 (truncated), or kMissingI32
// when it is negative, not finite or past int32. Why: a cast past the range is
// undefined, and fuzzed logs held indexes of 7e14 and 7e124.
int32_t IndexOf(double v);
// kMigInstanceDeviceBase / kMigComputeDeviceBase: device ids given to DCGM's
// MIG entities (GPU instance N -> 1000 + N, compute instance N -> 2000 + N):
// a MIG slice is not a whole GPU, and its ids never clash with a GPU index.
inline constexpr int32_t kMigInstanceDeviceBase = 1000;
inline constexpr int32_t kMigComputeDeviceBase = 2000;
// EntityDevice: the model device id of a DCGM entity given as kind and id
// ("GPU" "0", "GPU-I" "3", "GPU-CI" "1"), or as one cell ("0", "GPU 0",
// "gpu0", "GPU-I 3"; `id` empty). kMissingI32 when it is none of these.
// `mig` (optional) is set when the entity is a MIG instance.
int32_t EntityDevice(std::string_view kind, std::string_view id, bool* mig = nullptr);

// TickPositions: for rows without a device column whose timestamps come in
// ticks of N rows (one per GPU, a few ms apart, then a sample period), each
// row's position within its tick; empty when the rows are not N >= 2 per tick.
// A tick boundary is a step above the largest within-tick step: the biggest
// ratio between consecutive distinct steps (>= 5x, the lower one <= 200 ms).
// N is the most common tick size (2..16), held by >= 75% of >= 3 ticks.
std::vector<int32_t> TickPositions(const std::vector<int64_t>& ts);

// ParseTimestamp: wall-clock ns since the Unix epoch, or false.
bool ParseTimestamp(std::string_view s, int64_t* ns);

// MetricSpec: how one column/field maps into the model.
struct MetricSpec {
  model::CounterKind kind = model::CounterKind::kOther;
  model::CounterUnit unit = model::CounterUnit::kUnknown;
  double scale = 1.0;      // value in the source's default unit * scale = canonical
  bool known = false;
};

// SeriesBuilder: collects samples and emits CounterSeries into a Trace.
class SeriesBuilder {
 public:
  SeriesBuilder(model::Trace& trace, std::string_view source) : t_(trace), source_(source) {}
  // Add: one sample. `ts_ns` may be missing: samples then get per-series
  // indexes (0, 1, 2, ...) and the series has no period.
  void Add(int32_t device, std::string_view name, const MetricSpec& spec, int64_t ts_ns,
           double value);
  // Finish: move the series into the trace; period_ns = median sample step;
  // bumps no_timestamps / coarse_sample_period once per affected series.
  void Finish();

 private:
  struct Pending {
    model::CounterSeries s;
    bool untimed = false;
  };
  model::Trace& t_;
  std::string source_;
  // KeyLess: (device, name) order that also takes a string_view name, so a
  // lookup builds no string (one per sample before: the logs' hot path).
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return a.first != b.first ? a.first < b.first
                                : std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::map<std::pair<int32_t, std::string>, size_t, KeyLess> index_;
  std::vector<Pending> series_;
};

// ReadWholeFile: the whole (gunzipped) text of `path`; logs are small (MBs).
Result<std::string> ReadWholeFile(const std::string& path);

// ReadTextLog: every text-log importer's Read(): the whole file through
// `parse(text, trace)`, an error prefixed with `path: `, and the source path set.
Status ReadTextLog(const std::string& path, model::Trace& trace,
                   Status (*parse)(std::string_view, model::Trace&));

// CheckedValue: NaN for negative / non-finite values (bumping negative_value).
double CheckedValue(model::Trace& t, double v);

}  // namespace gpuwhy::import::smi
