#include "report/terminal/text_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/units.h"

namespace gpuwhy::report {

std::string FormatDurationF(double ns) {
  if (!std::isfinite(ns)) return std::string(kNa);
  double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string FormatDuration(int64_t ns) {
  if (!IsValid(ns)) return std::string(kNa);
  return FormatDurationF(static_cast<double>(ns));
}

std::string FormatBytes(int64_t bytes) {
  if (!IsValid(bytes)) return std::string(kNa);
  auto b = static_cast<double>(bytes);
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (b < 1e6) return fmt::format("{:.2f} KB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.2f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

std::string FormatBytesBinary(int64_t bytes) {
  if (!IsValid(bytes)) return std::string(kNa);
  auto b = static_cast<double>(bytes);
  if (b < 1024.0 * 1024) return fmt::format("{:.1f} KiB", b / 1024);
  if (b < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024));
}

std::string FormatPct(double ratio) {
  if (!std::isfinite(ratio)) return std::string(kNa);
  return fmt::format("{:.1f}%", ratio * 100.0);
}

std::string FormatGbps(double gbps) {
  if (!std::isfinite(gbps)) return std::string(kNa);
  // Tiny copies (a 4-byte loss.item()) still show a non-zero figure.
  if (gbps >= 10) return fmt::format("{:.1f} GB/s", gbps);
  if (gbps >= 0.1) return fmt::format("{:.2f} GB/s", gbps);
  return fmt::format("{:.4f} GB/s", gbps);
}

std::string FormatCount(int64_t n) {
  if (!IsValid(n)) return std::string(kNa);
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

std::string FormatInt(int32_t n) {
  if (!IsValid(n)) return std::string(kNa);
  return std::to_string(n);
}

size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++w;
  return w;
}

std::string FitWidth(std::string_view s, size_t width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  if (width <= 3) return std::string(width, '.');
  // Keep whole code points: walk until width-3 columns are used.
  size_t cols = 0, i = 0;
  while (i < s.size()) {
    size_t len = 1;
    while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80) ++len;
    if (cols + 1 > width - 3) break;
    ++cols;
    i += len;
  }
  return std::string(s.substr(0, i)) + "...";
}

std::string LastColumns(std::string_view s, size_t width) {
  size_t cols = 0, i = s.size();
  while (i > 0) {
    size_t j = i - 1;
    while (j > 0 && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) --j;
    if (cols + 1 > width) break;
    ++cols;
    i = j;
  }
  return std::string(s.substr(i));
}

void TextTable::Render(std::ostream& out, size_t indent, size_t max_width,
                       int shrink_column) const {
  const size_t n = columns_.size();
  std::vector<size_t> width(n, 0);
  for (size_t c = 0; c < n; ++c) width[c] = DisplayWidth(columns_[c].header);
  for (const auto& row : rows_)
    for (size_t c = 0; c < n && c < row.size(); ++c)
      width[c] = std::max(width[c], DisplayWidth(row[c]));
  size_t total = indent + (n > 0 ? 2 * (n - 1) : 0);
  for (size_t w : width) total += w;
  if (shrink_column >= 0 && static_cast<size_t>(shrink_column) < n && total > max_width) {
    size_t over = total - max_width;
    size_t& w = width[static_cast<size_t>(shrink_column)];
    w = w > over + 8 ? w - over : std::min<size_t>(w, 8);
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string s(indent, ' ');
    for (size_t c = 0; c < n; ++c) {
      std::string cell = c < cells.size() ? cells[c] : std::string();
      if (!header && shrink_fn_ && static_cast<int>(c) == shrink_column &&
          DisplayWidth(cell) > width[c])
        cell = shrink_fn_(cell, width[c]);
      cell = FitWidth(cell, width[c]);
      size_t pad = width[c] - DisplayWidth(cell);
      bool left = columns_[c].left || header;
      if (header && !columns_[c].left) left = false;
      if (c > 0) s += "  ";
      if (left) {
        s += cell;
        if (c + 1 < n) s.append(pad, ' ');
      } else {
        s.append(pad, ' ');
        s += cell;
      }
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(c.header);
  line(header, true);
  for (const auto& row : rows_) line(row, false);
}

std::string Sparkline(const std::vector<double>& v, bool ascii, size_t max_cols) {
  static const char* kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static const char kAscii[] = "_.-:=+*#";
  std::string out;
  if (v.empty()) return out;
  const size_t cols = std::min(max_cols, v.size());
  for (size_t c = 0; c < cols; ++c) {
    const size_t lo = c * v.size() / cols, hi = std::max(lo + 1, (c + 1) * v.size() / cols);
    double sum = 0;
    int n = 0;
    for (size_t i = lo; i < hi; ++i) {
      if (IsValid(v[i])) {
        sum += v[i];
        ++n;
      }
    }
    if (n == 0) {
      out += ascii ? "?" : "·";
      continue;
    }
    const int level = std::clamp(static_cast<int>(std::lround(sum / n * 7.0)), 0, 7);
    if (ascii) {
      out += kAscii[level];
    } else {
      out += kBlocks[level];
    }
  }
  return out;
}

}  // namespace gpuwhy::report
