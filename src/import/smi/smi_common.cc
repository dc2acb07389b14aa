#include "import/smi/smi_common.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>

#include "base/input_stream.h"

namespace gpuwhy::import::smi {

using model::ImportStat;

std::string_view Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return s.substr(a, b - a);
}

std::vector<std::string_view> Lines(std::string_view text, bool* last_complete) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back(text.substr(pos));
      if (last_complete) *last_complete = false;
      return out;
    }
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    pos = nl + 1;
  }
  if (last_complete) *last_complete = true;
  return out;
}

std::vector<std::string_view> SplitCells(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t c = line.find(sep, pos);
    out.push_back(Trim(line.substr(pos, c == std::string_view::npos ? c : c - pos)));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

std::vector<std::string_view> SplitWhitespace(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool IsMissingText(std::string_view s) {
  s = Trim(s);
  return s.empty() || s == "[N/A]" || s == "N/A" || s == "[Not Supported]" ||
         s == "Not Supported" || s == "-" || s == "[Unknown Error]" || s == "[Insufficient Permissions]" ||
         s == "ERR!" || s == "[GPU is lost]";
}

bool ParseNumber(std::string_view s, double* v, std::string_view* unit) {
  s = Trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t x = 0;
    auto r = std::from_chars(s.data() + 2, s.data() + s.size(), x, 16);
    if (r.ec != std::errc() || r.ptr == s.data() + 2) return false;
    *v = static_cast<double>(x);
    if (unit) *unit = Trim(std::string_view(r.ptr, static_cast<size_t>(s.data() + s.size() - r.ptr)));
    return true;
  }
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  if (r.ec != std::errc()) return false;
  if (unit) *unit = Trim(std::string_view(r.ptr, static_cast<size_t>(s.data() + s.size() - r.ptr)));
  return true;
}

namespace {

bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

bool ScaledTimeNs(int64_t v, int64_t ns_per_unit, int64_t* ns) {
  int64_t t = 0;
  if (__builtin_mul_overflow(v, ns_per_unit, &t) || !PlausibleTimeNs(t)) return false;
  *ns = t;
  return true;
}

int32_t IndexOf(double v) {
  return v >= 0 && v <= 2147483647.0 ? static_cast<int32_t>(v) : kMissingI32;
}

int32_t EntityDevice(std::string_view kind, std::string_view id, bool* mig) {
  kind = Trim(kind);
  id = Trim(id);
  if (id.empty()) {  // one cell: split "GPU-I 3" / "gpu0" into kind and number
    size_t d = kind.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(kind[d - 1]))) --d;
    id = kind.substr(d);
    kind = Trim(kind.substr(0, d));
  }
  if (id.empty() || id.size() > 9) return kMissingI32;
  int32_t n = 0;
  for (char c : id) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return kMissingI32;
    n = n * 10 + (c - '0');
  }
  std::string k;
  for (char c : kind) k += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (mig != nullptr) *mig = false;
  if (k.empty() || k == "GPU") return n;
  if (mig != nullptr) *mig = true;
  if ((k == "GPU-I" || k == "GPU_I" || k == "GI") && n < 1000) return kMigInstanceDeviceBase + n;
  if ((k == "GPU-CI" || k == "GPU_CI" || k == "CI") && n < 1000) return kMigComputeDeviceBase + n;
  return kMissingI32;
}

bool ParseTimestamp(std::string_view s, int64_t* ns) {
  s = Trim(s);
  int y, mo, d, h, mi, se;
  // "2024/01/31 12:34:56.789" (nvidia-smi) or "2024-01-31T12:34:56+08:00" (ISO-8601).
  if (s.size() >= 19 && Digits(s, 0, 4, &y) && (s[4] == '/' || s[4] == '-') &&
      Digits(s, 5, 2, &mo) && Digits(s, 8, 2, &d) && (s[10] == ' ' || s[10] == 'T') &&
      Digits(s, 11, 2, &h) && Digits(s, 14, 2, &mi) && Digits(s, 17, 2, &se)) {
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    // Dates past kMaxAbsTimeNs (after 2116) are not times; year 9999's ns
    // would also leave int64.
    int64_t t = 0;
    if (!ScaledTimeNs(static_cast<int64_t>(timegm(&tm)), kNsPerS, &t)) return false;
    size_t i = 19;
    if (i < s.size() && s[i] == '.') {
      int64_t scale = kNsPerS / 10;
      for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
        t += (s[i] - '0') * scale;
        scale /= 10;
      }
    }
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      int zh = 0, zm = 0;
      if (Digits(s, i + 1, 2, &zh)) {
        size_t m = i + 3;
        if (m < s.size() && s[m] == ':') ++m;
        Digits(s, m, 2, &zm);
        int64_t off = (zh * 3600 + zm * 60) * kNsPerS;
        t += s[i] == '+' ? -off : off;
      }
    }
    if (!PlausibleTimeNs(t)) return false;  // the fraction or the zone crossed the bound
    *ns = t;
    return true;
  }
  // Integers are read exactly (DCGM µs stamps do not fit a double's mantissa).
  int64_t iv = 0;
  auto ir = std::from_chars(s.data(), s.data() + s.size(), iv);
  if (ir.ec == std::errc() && ir.ptr == s.data() + s.size() && iv > 0) {
    const int64_t scale = iv < 100000000000LL         ? kNsPerS
                          : iv < 100000000000000LL    ? kNsPerMs
                          : iv < 100000000000000000LL ? kNsPerUs
                                                      : 1;
    return ScaledTimeNs(iv, scale, ns);
  }
  double v;
  std::string_view unit;
  if (!ParseNumber(s, &v, &unit) || !unit.empty() || v <= 0) return false;
  // Epoch seconds (~1.7e9), ms (~1.7e12), us (~1.7e15) or ns (~1.7e18).
  const double x = v < 1e11 ? v * 1e9 : v < 1e14 ? v * 1e6 : v < 1e17 ? v * 1e3 : v;
  // Range first: converting a double past int64 is undefined.
  if (!(x <= static_cast<double>(kMaxAbsTimeNs))) return false;
  *ns = static_cast<int64_t>(std::llround(x));
  return true;
}

std::vector<int32_t> TickPositions(const std::vector<int64_t>& ts) {
  const size_t n = ts.size();
  if (n < 6) return {};
  std::vector<int64_t> d;
  for (size_t i = 1; i < n; ++i)
    if (IsValid(ts[i]) && IsValid(ts[i - 1]) && ts[i] >= ts[i - 1]) d.push_back(ts[i] - ts[i - 1]);
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  if (d.size() < 2) return {};          // one step size: one GPU, or stamps that cannot tell
  constexpr int64_t kFloor = kNsPerMs;  // steps under 1 ms count as 1 ms
  int64_t within = kMissingI64;
  double best = 0;
  for (size_t k = 0; k + 1 < d.size(); ++k) {
    const double ratio = static_cast<double>(std::max(d[k + 1], kFloor)) /
                         static_cast<double>(std::max(d[k], kFloor));
    if (ratio > best) {
      best = ratio;
      within = d[k];
    }
  }
  if (!IsValid(within) || best < 5.0 || within > 200 * kNsPerMs) return {};
  std::vector<int32_t> pos(n, 0);
  std::map<int32_t, int64_t> sizes;
  int32_t cur = 0;
  int64_t ticks = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool same = i > 0 && IsValid(ts[i]) && IsValid(ts[i - 1]) && ts[i] >= ts[i - 1] &&
                      ts[i] - ts[i - 1] <= within;
    if (!same) {
      if (i > 0) ++sizes[cur + 1];
      ++ticks;
      cur = 0;
    } else {
      ++cur;
    }
    pos[i] = cur;
  }
  ++sizes[cur + 1];
  int32_t mode = 0;
  int64_t mode_count = 0;
  for (const auto& [size, count] : sizes)
    if (count > mode_count) {
      mode = size;
      mode_count = count;
    }
  // A node has at most 16 GPUs; more rows per "tick" are bursts of one GPU's samples.
  if (mode < 2 || mode > 16 || ticks < 3 ||
      static_cast<double>(mode_count) < 0.75 * static_cast<double>(ticks))
    return {};
  return pos;
}


Status ReadTextLog(const std::string& path, model::Trace& trace,
                   Status (*parse)(std::string_view, model::Trace&)) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  Status s = parse(text, trace);
  if (!s.ok()) return InvalidInput(path + ": " + s.message());
  trace.info.source_path = path;
  return s;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(path));
  std::string text;
  char buf[1 << 16];
  while (true) {
    ASSIGN_OR_RETURN(size_t got, in->Read(buf, sizeof buf));
    if (got == 0) break;
    text.append(buf, got);
  }
  return text;
}

double CheckedValue(model::Trace& t, double v) {
  if (!std::isfinite(v)) return kMissingF64;
  if (v < 0) {
    t.stats.Bump(ImportStat::negative_value);
    return kMissingF64;
  }
  return v;
}

void SeriesBuilder::Add(int32_t device, std::string_view name, const MetricSpec& spec,
                        int64_t ts_ns, double value) {
  auto it = index_.find(std::make_pair(device, name));
  if (it == index_.end()) {
    Pending p;
    p.s.name = t_.strings.Intern(name);
    p.s.kind = spec.kind;
    p.s.unit = spec.unit;
    p.s.device_id = device;
    p.s.source = t_.strings.Intern(source_);
    series_.push_back(std::move(p));
    it = index_.emplace(std::make_pair(device, std::string(name)), series_.size() - 1).first;
  }
  Pending& p = series_[it->second];
  if (!IsValid(ts_ns)) {
    p.untimed = true;
    ts_ns = static_cast<int64_t>(p.s.ts_ns.size());
  }
  p.s.ts_ns.push_back(ts_ns);
  p.s.value.push_back(value);
}

void SeriesBuilder::Finish() {
  for (Pending& p : series_) {
    if (p.untimed) {
      t_.stats.Bump(ImportStat::no_timestamps);
      p.s.period_ns = kMissingI64;
      p.s.ts_are_indexes = true;
    } else {
      std::vector<int64_t> d;
      for (size_t i = 1; i < p.s.ts_ns.size(); ++i)
        if (p.s.ts_ns[i] > p.s.ts_ns[i - 1]) d.push_back(p.s.ts_ns[i] - p.s.ts_ns[i - 1]);
      if (!d.empty()) {
        std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 2), d.end());
        p.s.period_ns = d[d.size() / 2];
        // At >= 1 s a dip and a real stall look the same; the analysis warns.
        if (p.s.period_ns >= 999 * kNsPerMs) t_.stats.Bump(ImportStat::coarse_sample_period);
      }
    }
    t_.counters.push_back(std::move(p.s));
  }
  series_.clear();
  index_.clear();
}

}  // namespace gpuwhy::import::smi
