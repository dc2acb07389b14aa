// Text formatting helpers shared by terminal sections: units, n/a for missing
// values, and an aligned table that fits a width.
//
// Contract: every function is deterministic (no locale). A missing value
// (kMissing* sentinel or NaN) formats as "n/a", never "0".
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy::report {

inline constexpr std::string_view kNa = "n/a";

// FormatDuration: "850 ns", "12.3 µs", "4.56 ms", "7.890 s" (unit chosen by size).
std::string FormatDuration(int64_t ns);
// FormatDurationF: as FormatDuration for a fractional ns value (means, stddevs).
std::string FormatDurationF(double ns);
// FormatBytes: decimal units: "512 B", "1.50 KB", "3.20 MB", "1.07 GB".
std::string FormatBytes(int64_t bytes);
// FormatBytesBinary: binary units for memory sizes: "79.6 GiB".
std::string FormatBytesBinary(int64_t bytes);
// FormatPct: a 0..1 ratio as "12.3%".
std::string FormatPct(double ratio);
// FormatGbps: "512.3 GB/s", "3.20 GB/s", "0.0020 GB/s" (precision by size).
std::string FormatGbps(double gbps);
// Sparkline: ratios (0..1, NaN = no sample) averaged into at most `max_cols`
// columns of block characters (or "_.-:=+*#" with `ascii`); "·"/"?" where a
// column has no valid sample.
std::string Sparkline(const std::vector<double>& v, bool ascii, size_t max_cols);

// FormatCount: an integer with thousands separators: "12,345".
std::string FormatCount(int64_t n);
// FormatInt: a plain integer, "n/a" for kMissingI32.
std::string FormatInt(int32_t n);

// DisplayWidth: columns `s` takes: UTF-8 code points.
size_t DisplayWidth(std::string_view s);
// FitWidth: `s` cut to at most `width` columns, ending in "..." when cut.
std::string FitWidth(std::string_view s, size_t width);
// LastColumns: the last `width` columns of `s` (whole code points).
std::string LastColumns(std::string_view s, size_t width);

// TextTable: a table with a header row, columns right-aligned except those
// marked left. Render() pads every column to its widest cell and shrinks the
// `shrink_column` (when set) so each line fits `max_width` columns.
class TextTable {
 public:
  struct Column {
    std::string header;
    bool left = false;
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // AddRow: one row; missing trailing cells are empty.
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // ShrinkWith: how cells of the shrink column are shortened to its width
  // (text, columns) -> text of at most that many columns; FitWidth when unset.
  void ShrinkWith(std::function<std::string(std::string_view, size_t)> fn) {
    shrink_fn_ = std::move(fn);
  }
  bool empty() const { return rows_.empty(); }
  // Render: write header and rows, each line prefixed by `indent` spaces.
  void Render(std::ostream& out, size_t indent, size_t max_width, int shrink_column = -1) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::function<std::string(std::string_view, size_t)> shrink_fn_;
};

}  // namespace gpuwhy::report
