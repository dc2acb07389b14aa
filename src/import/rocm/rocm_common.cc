#include "import/rocm/rocm_common.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "base/ascii.h"
#include "base/units.h"

namespace gpuwhy::import::rocm {

using model::ApiKind;
using model::CopyKind;

bool RocmCsv::Next(std::vector<std::string>* cells, int64_t* line, bool* complete) {
  cells->clear();
  if (pos_ >= text_.size()) return false;
  *line = line_;
  *complete = true;
  std::string cell;
  bool quoted = false, was_quoted = false;
  size_t i = pos_;
  const size_t n = text_.size();
  while (true) {
    if (i >= n) {
      // End of text: a record without its newline, or cut inside quotes.
      *complete = false;
      cells->push_back(std::move(cell));
      break;
    }
    char c = text_[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < n && text_[i + 1] == '"') {
          cell += '"';
          i += 2;
        } else {
          quoted = false;
          ++i;
        }
        continue;
      }
      // Copy the run up to the next quote at once (long kernel names).
      size_t q = text_.find('"', i);
      if (q == std::string_view::npos) q = n;
      for (size_t k = i; k < q; ++k)
        if (text_[k] == '\n') ++line_;
      cell.append(text_.substr(i, q - i));
      i = q;
      continue;
    }
    if (c == '"' && !was_quoted && cell.empty()) {
      quoted = was_quoted = true;
      ++i;
      continue;
    }
    if (c == ',') {
      cells->push_back(std::move(cell));
      cell.clear();
      was_quoted = false;
      ++i;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < n && text_[i + 1] == '\n') ++i;
      ++i;
      ++line_;
      cells->push_back(std::move(cell));
      break;
    }
    // Unquoted run up to the next separator.
    size_t k = i;
    while (k < n && text_[k] != ',' && text_[k] != '\n' && text_[k] != '\r' && text_[k] != '"') ++k;
    if (k == i) {  // a stray quote inside an unquoted cell: keep it
      cell += c;
      ++i;
    } else {
      cell.append(text_.substr(i, k - i));
      i = k;
    }
  }
  pos_ = i;
  return true;
}

int RocmColumns::Find(std::initializer_list<std::string_view> names) const {
  for (std::string_view want : names)
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == want) return static_cast<int>(i);
  for (std::string_view want : names) {
    std::string lw = AsciiLower(want);
    for (size_t i = 0; i < names_.size(); ++i)
      if (AsciiLower(names_[i]) == lw) return static_cast<int>(i);
  }
  return -1;
}

namespace {

std::string_view RocmTrim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

int64_t ParseI64(std::string_view s) {
  s = RocmTrim(s);
  if (s.empty()) return kMissingI64;
  int64_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), u, 16);
    if (ec != std::errc() || p != s.data() + s.size() || u > static_cast<uint64_t>(INT64_MAX))
      return kMissingI64;
    return static_cast<int64_t>(u);
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size()) return v == kMissingI64 ? kMissingI64 : v;
  double d = ParseF64(s);
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
  return kMissingI64;
}

double ParseF64(std::string_view s) {
  s = RocmTrim(s);
  if (s.empty()) return kMissingF64;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return kMissingF64;
  return v;
}

int32_t AgentNumber(std::string_view s) {
  s = RocmTrim(s);
  if (s.size() > 6 && AsciiLower(s.substr(0, 6)) == "agent ") s.remove_prefix(6);
  return ClampI32(ParseI64(s));
}

bool TimeOk(int64_t ns) { return IsValid(ns) && ns <= kMaxAbsTimeNs && ns >= -kMaxAbsTimeNs; }

int32_t ClampI32(int64_t v) {
  if (!IsValid(v) || v <= INT32_MIN || v > INT32_MAX) return kMissingI32;
  return static_cast<int32_t>(v);
}

int32_t Workgroups(int64_t grid_items, int64_t wg_items) {
  if (!IsValid(grid_items) || !IsValid(wg_items) || grid_items <= 0 || wg_items <= 0)
    return kMissingI32;
  return ClampI32(grid_items / wg_items + (grid_items % wg_items != 0 ? 1 : 0));
}

CopyKind CopyKindOfDirection(std::string_view direction) {
  std::string d = AsciiLower(direction);
  auto has = [&](std::string_view x) { return d.find(x) != std::string::npos; };
  bool h2d = has("host_to_device") || has("hosttodevice") || has("htod");
  bool d2h = has("device_to_host") || has("devicetohost") || has("dtoh");
  bool d2d = has("device_to_device") || has("devicetodevice") || has("dtod") || has("peer");
  bool h2h = has("host_to_host") || has("hosttohost") || has("htoh");
  if (h2d) return CopyKind::kHtoD;
  if (d2h) return CopyKind::kDtoH;
  if (d2d) return CopyKind::kDtoD;
  if (h2h) return CopyKind::kHtoH;
  return CopyKind::kUnknown;
}

ApiKind ApiKindOfDomain(std::string_view domain) {
  std::string d = AsciiLower(domain);
  if (d.rfind("hip", 0) == 0) return ApiKind::kRuntime;
  if (d.rfind("hsa", 0) == 0) return ApiKind::kDriver;
  return ApiKind::kOther;
}

bool IsMarkerDomain(std::string_view domain) {
  std::string d = AsciiLower(domain);
  return d.rfind("marker", 0) == 0 || d.rfind("roctx", 0) == 0;
}

void AddAmdDevice(model::Trace& t, const AmdAgent& a) {
  if (!IsValid(a.id)) return;
  model::Device& d = t.GetOrAddDevice(a.id);
  d.vendor = model::Vendor::kAmd;
  std::string name = a.product_name;
  if (!a.arch_name.empty() && a.arch_name != name)
    name = name.empty() ? a.arch_name : fmt::format("{} ({})", name, a.arch_name);
  if (!name.empty()) d.name = t.strings.Intern(name);
  if (IsValid(a.cu_count) && a.cu_count > 0) d.sm_count = a.cu_count;
  if (IsValid(a.wave_size) && a.wave_size > 0) d.warp_size = a.wave_size;
  if (IsValid(a.max_workgroup_size) && a.max_workgroup_size > 0)
    d.max_threads_per_block = a.max_workgroup_size;
  if (IsValid(a.max_waves_per_cu) && a.max_waves_per_cu > 0 && IsValid(d.warp_size))
    d.max_threads_per_sm = a.max_waves_per_cu * d.warp_size;
  if (IsValid(a.lds_bytes) && a.lds_bytes > 0) d.smem_per_block_bytes = a.lds_bytes;
}

std::string_view StemOf(std::string_view name) {
  for (std::string_view suffix : {" [clone .kd]", ".kd"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
      return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

}  // namespace gpuwhy::import::rocm
