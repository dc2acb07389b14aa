#include "import/kineto/kineto_importer.h"

#include "import/chrome/chrome_dialects.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <fmt/format.h>

#include "base/thread_priority.h"

namespace gpuwhy::import {

namespace {

using model::ApiKind;
using model::CopyKind;
using model::ImportStat;
using model::MemoryKind;
using model::RangeKind;
using model::SyncKind;

// Padding after the data in the chunk buffer, so small look-aheads stay in bounds.
constexpr size_t kPad = 64;
constexpr int kMaxDepth = 256;

// Lex: outcome of one lexer step. kMore means the buffer ended inside the token;
// the driver refills and retries from the token's start.
enum class Lex : uint8_t { kOk, kMore, kError };

inline bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// kNumChar: the bytes a JSON number's text can hold (one load per byte
// instead of six compares; Number() scans every skipped number with it).
constexpr std::array<bool, 256> kNumChar = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view("0123456789-+.eE")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();
inline bool IsNumChar(char c) { return kNumChar[static_cast<unsigned char>(c)]; }

// SWAR digit helpers (8 bytes at a time: a handful of operations instead of
// a multiply-add and three tests per digit; callers load 8 bytes only where
// p + 8 <= end). Byte i of a little-endian load is text byte i.

// LeadingDigitCount: how many of the 8 bytes, from the first, are ASCII
// digits (0-8). A digit has high nibble 3 before and after adding 6; a carry
// out of a byte >= 0xFA only disturbs the bytes after that non-digit.
inline int LeadingDigitCount(uint64_t w) {
  const uint64_t hi = 0xF0F0F0F0F0F0F0F0u, three = 0x3030303030303030u;
  const uint64_t other = ((w & hi) ^ three) | (((w + 0x0606060606060606u) & hi) ^ three);
  return other == 0 ? 8 : __builtin_ctzll(other) / 8;
}

// DigitsValue: the value of the first n (0-8) bytes of w, all digits.
inline uint64_t DigitsValue(uint64_t w, int n) {
  if (n == 0) return 0;
  // Right-align the n digits behind leading '0's: "123" -> "00000123".
  if (n < 8) w = (w << (8 * (8 - n))) | (0x3030303030303030u >> (8 * n));
  w -= 0x3030303030303030u;
  w = (w * 10) + (w >> 8);  // pairs of digits
  return (((w & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
          (((w >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >>
         32;
}

// EightDigits: whether the 8 bytes at p are all digits, and their value.
inline bool EightDigits(const char* p, uint64_t* value) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if (LeadingDigitCount(w) != 8) return false;
  *value = DigitsValue(w, 8);
  return true;
}

// LeadingDigits: accumulate up to two 8-digit blocks from q into *v (for
// timestamps, which have 16 digits).
inline void LeadingDigits(const char*& q, const char* end, int64_t* v) {
  uint64_t block = 0;
  if (q + 8 <= end && EightDigits(q, &block)) {
    *v = static_cast<int64_t>(block);
    q += 8;
    if (q + 8 <= end && EightDigits(q, &block)) {
      *v = *v * 100000000 + static_cast<int64_t>(block);
      q += 8;
    }
  }
}

// FindQuoteOrBackslash: the first '"' or '\\' in [q, end), or a pointer >= end.
// With SSE2 it tests 16 bytes at a time: the chunk buffer's padding (kPad)
// makes reads up to 15 bytes past `end` safe, and hits past it are ignored.
inline const char* FindQuoteOrBackslash(const char* q, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; q < end; q += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (m != 0) return q + __builtin_ctz(static_cast<unsigned>(m));
  }
  return q;
#else
  while (q < end && *q != '"' && *q != '\\') ++q;
  return q;
#endif
}

// SkipWsRun: SkipWs past at least one byte. Kineto indents each event line
// ("\n    "), so runs are often longer than a byte: with SSE2 it tests 16
// bytes at a time (reads past `end` stay inside the buffers' kPad padding;
// hits past `end` are ignored).
[[gnu::noinline]] bool SkipWsRun(const char*& p, const char* end) {
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
  for (; p < end; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                              _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
    unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xffffu;
    if (other != 0) {
      p += __builtin_ctz(other);
      break;
    }
  }
  if (p > end) p = end;
#else
  while (p < end && IsWs(*p)) ++p;
#endif
  return p < end;
}

// SkipWs: advance past whitespace; false when the buffer ended. Inlined for
// the common cases, no whitespace or the one space after ':' and ','
// (every byte above ' ' is no whitespace; the rest go to SkipWsRun).
[[gnu::always_inline]] inline bool SkipWs(const char*& p, const char* end) {
  if (p < end && static_cast<unsigned char>(*p) > ' ') return true;
  if (p + 1 < end && *p == ' ' && static_cast<unsigned char>(p[1]) > ' ') {
    ++p;
    return true;
  }
  return SkipWsRun(p, end);
}

// Eq: compare with a literal; the length is a compile-time constant (no
// strlen). Word loads, not memcmp: GCC turns a memcmp of 3, 5, 6 or 7 bytes into a
// libc call, and a byte loop costs a compare per byte; keys are compared for
// every event. Two overlapping loads cover 4-8 and 9-16 bytes (the literal's
// words fold to constants).
template <typename W>
inline W LoadWord(const char* p) {
  W w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
template <size_t N>
inline bool Eq(std::string_view a, const char (&lit)[N]) {
  constexpr size_t n = N - 1;
  if (a.size() != n) return false;
  const char* p = a.data();
  if constexpr (n == 0) {
    return true;
  } else if constexpr (n < 4) {
    for (size_t i = 0; i < n; ++i)
      if (p[i] != lit[i]) return false;
    return true;
  } else if constexpr (n <= 8) {
    return LoadWord<uint32_t>(p) == LoadWord<uint32_t>(lit) &&
           LoadWord<uint32_t>(p + n - 4) == LoadWord<uint32_t>(lit + n - 4);
  } else if constexpr (n <= 16) {
    return LoadWord<uint64_t>(p) == LoadWord<uint64_t>(lit) &&
           LoadWord<uint64_t>(p + n - 8) == LoadWord<uint64_t>(lit + n - 8);
  } else {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (LoadWord<uint64_t>(p + i) != LoadWord<uint64_t>(lit + i)) return false;
    return LoadWord<uint64_t>(p + n - 8) == LoadWord<uint64_t>(lit + n - 8);
  }
}

// ParseI64Text: integer value of a JSON number's text; fractional or exponent
// forms are accepted when they are integral after rounding.
bool ParseI64Text(std::string_view t, int64_t* out) {
  if (t.empty()) return false;
  // Fast path: up to 18 plain digits (ids, sizes), optionally negative.
  {
    size_t i = t[0] == '-' ? 1 : 0;
    if (t.size() > i && t.size() - i <= 18) {
      int64_t v = 0;
      size_t j = i;
      for (; j < t.size() && IsDigit(t[j]); ++j) v = v * 10 + (t[j] - '0');
      if (j == t.size()) {
        *out = i ? -v : v;
        return true;
      }
    }
  }
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  if (ec == std::errc() && ptr == t.data() + t.size()) return true;
  double d = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), d);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) return false;
  if (d < -9.2e18 || d > 9.2e18) return false;
  *out = static_cast<int64_t>(std::llround(d));
  return true;
}

}  // namespace

// Why: occupancy args ("0.3", "1.2", "2") are read per kernel, and
// from_chars cost ~1% of an import. m and 10^k (k <= 15) are exact doubles and
// IEEE division rounds correctly (Clinger's fast path).
bool FastDecimal(std::string_view t, double* out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  const bool neg = i == 1;
  uint64_t m = 0;
  int digits = 0, frac = 0;
  const size_t int_begin = i;
  for (; i < t.size() && IsDigit(t[i]); ++i, ++digits) m = m * 10 + static_cast<uint64_t>(t[i] - '0');
  if (i == int_begin) return false;
  if (i < t.size() && t[i] == '.') {
    const size_t frac_begin = ++i;
    for (; i < t.size() && IsDigit(t[i]); ++i, ++digits) m = m * 10 + static_cast<uint64_t>(t[i] - '0');
    frac = static_cast<int>(i - frac_begin);
    if (frac == 0) return false;
  }
  if (i != t.size() || digits > 15) return false;
  const double v = static_cast<double>(m) / kPow10[frac];
  *out = neg ? -v : v;
  return true;
}

namespace {

bool ParseF64Text(std::string_view t, double* out) {
  if (t.empty()) return false;
  if (FastDecimal(t, out)) return true;
  // from_chars rejects a leading '+', which JSON never has anyway.
  auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

void AppendUtf8(std::string* s, uint32_t cp) {
  if (cp < 0x80) {
    s->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int Hex4(const char* p) {
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p[i];
    int d = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// ---- Mini DOM for the small top-level values (deviceProperties, ...) ----

struct JVal {
  enum Type : uint8_t { kNull, kBool, kNum, kStr, kArr, kObj } type = kNull;
  std::string text;  // number text, string contents, or "true"/"false"
  std::vector<std::string> keys;
  std::vector<JVal> items;

  const JVal* Get(std::string_view k) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == k) return &items[i];
    return nullptr;
  }
};

// Lexer: the JSON token layer over one buffer window [p, end). Every function
// either completes (kOk), needs more data (kMore) or records an error.
class Lexer {
 public:
  const char* err_at = nullptr;
  const char* err_what = nullptr;

  Lex Error(const char* at, const char* what) {
    err_at = at;
    err_what = what;
    return Lex::kError;
  }

  // String: p at '"'. *out is the decoded text: a view into the buffer when
  // there are no escapes, otherwise into *scratch.
  // The escape-free fast path is inlined into every caller; escapes take
  // the out-of-line StringSlow().
  __attribute__((always_inline)) Lex String(const char*& p, const char* end,
                                            std::string_view* out,
                                            std::string* scratch = nullptr) {
    const char* s = p + 1;
    if (s > end) return Lex::kMore;
    const char* q0 = FindQuoteOrBackslash(s, end);
    if (q0 >= end) return Lex::kMore;
    if (*q0 == '"') {
      *out = std::string_view(s, static_cast<size_t>(q0 - s));
      p = q0 + 1;
      return Lex::kOk;
    }
    return StringSlow(p, end, out, scratch, q0);
  }

  // StringSlow: decode a string with escapes; bs is its first backslash.
  __attribute__((noinline)) Lex StringSlow(const char*& p, const char* end,
                                           std::string_view* out, std::string* scratch,
                                           const char* bs) {
    const char* s = p + 1;
    if (scratch == nullptr) scratch = NextScratch();
    scratch->assign(s, static_cast<size_t>(bs - s));
    const char* q = bs;
    while (q < end) {
      char c = *q;
      if (c == '"') {
        *out = *scratch;
        p = q + 1;
        return Lex::kOk;
      }
      if (c != '\\') {
        const char* r = q;
        while (r < end && *r != '"' && *r != '\\') ++r;
        scratch->append(q, static_cast<size_t>(r - q));
        q = r;
        continue;
      }
      if (end - q < 2) return Lex::kMore;
      switch (q[1]) {
        case '"': scratch->push_back('"'); q += 2; break;
        case '\\': scratch->push_back('\\'); q += 2; break;
        case '/': scratch->push_back('/'); q += 2; break;
        case 'b': scratch->push_back('\b'); q += 2; break;
        case 'f': scratch->push_back('\f'); q += 2; break;
        case 'n': scratch->push_back('\n'); q += 2; break;
        case 'r': scratch->push_back('\r'); q += 2; break;
        case 't': scratch->push_back('\t'); q += 2; break;
        case 'u': {
          if (end - q < 6) return Lex::kMore;
          int cp = Hex4(q + 2);
          if (cp < 0) return Error(q, "invalid \\u escape in string");
          q += 6;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate wants a following \uDC00-\uDFFF.
            if (end - q < 6) return Lex::kMore;
            int lo = (q[0] == '\\' && q[1] == 'u') ? Hex4(q + 2) : -1;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              q += 6;
            } else {
              cp = 0xFFFD;
              ++bad_utf8;
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
            ++bad_utf8;
          }
          AppendUtf8(scratch, static_cast<uint32_t>(cp));
          break;
        }
        default:
          return Error(q, "invalid escape in string");
      }
    }
    return Lex::kMore;
  }

  // SkipString: p at '"'; move past the closing quote without decoding.
  static Lex SkipString(const char*& p, const char* end) {
    const char* q = p + 1;
    for (;;) {
      q = FindQuoteOrBackslash(q, end);
      if (q >= end) return Lex::kMore;
      if (*q == '"') {
        p = q + 1;
        return Lex::kOk;
      }
      q += 2;  // a backslash escapes the next byte, whatever it is
    }
  }

  // Number: the text of a JSON number at p.
  Lex Number(const char*& p, const char* end, std::string_view* text) {
    const char* q = p;
    while (q < end && IsNumChar(*q)) ++q;
    if (q == end) return Lex::kMore;  // the number may continue in the next chunk
    if (q == p) return Error(p, "invalid JSON value");
    *text = std::string_view(p, static_cast<size_t>(q - p));
    p = q;
    return Lex::kOk;
  }

  // Int: a JSON number as int64 (fast path for plain digits); *ok is false when
  // the number is not an integer that fits.
  [[gnu::always_inline]] Lex Int(const char*& p, const char* end, int64_t* out, bool* ok) {
    const char* q = p;
    bool neg = *q == '-';
    if (neg) ++q;
    const char* d0 = q;
    int64_t v = 0;
    if (end - q >= 2 && IsDigit(q[0]) && !IsDigit(q[1])) {
      // One digit (a device, a stream, a grid or block dimension): no SWAR.
      v = q[0] - '0';
      ++q;
    } else if (end - q >= 8) {
      uint64_t w;
      std::memcpy(&w, q, 8);
      const int n = LeadingDigitCount(w);
      v = static_cast<int64_t>(DigitsValue(w, n));
      q += n;
      // A ninth digit and on: the loop (up to 18). Fewer than 8 digits end
      // at a byte that is no digit.
      if (n == 8)
        while (q < end && IsDigit(*q) && q - d0 < 18) v = v * 10 + (*q++ - '0');
    } else {
      while (q < end && IsDigit(*q) && q - d0 < 18) v = v * 10 + (*q++ - '0');
    }
    if (q == end) return Lex::kMore;
    if (q > d0 && !IsNumChar(*q)) {
      *out = neg ? -v : v;
      *ok = true;
      p = q;
      return Lex::kOk;
    }
    std::string_view t;
    Lex r = Number(p, end, &t);
    if (r != Lex::kOk) return r;
    *ok = ParseI64Text(t, out);
    return Lex::kOk;
  }

  Lex Literal(const char*& p, const char* end) {
    const char* lit = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t n = std::strlen(lit);
    size_t have = static_cast<size_t>(end - p);
    if (std::memcmp(p, lit, std::min(n, have)) != 0) return Error(p, "invalid JSON value");
    if (have < n) return Lex::kMore;
    p += n;
    return Lex::kOk;
  }

  // SkipValue: Skip for a value at p (no whitespace before it). Plain
  // numbers of up to 15 digits (the args the importer does not read: ids,
  // addresses, sizes) are passed by word loads; Number's byte loop would stop
  // at the same byte, which is no number character and before end.
  [[gnu::always_inline]] Lex SkipValue(const char*& p, const char* end, int depth) {
    if (IsDigit(*p) && end - p > 16) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      int n = LeadingDigitCount(w);
      if (n == 8) {
        std::memcpy(&w, p + 8, 8);
        n += LeadingDigitCount(w);
      }
      if (n < 16 && !IsNumChar(p[n])) {
        p += n;
        return Lex::kOk;
      }
    }
    if (*p == '"') return SkipString(p, end);
    return Skip(p, end, depth);
  }

  // Skip: any JSON value.
  Lex Skip(const char*& p, const char* end, int depth) {
    if (!SkipWs(p, end)) return Lex::kMore;
    char c = *p;
    if (c == '"') return SkipString(p, end);
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) return Error(p, "JSON nested too deeply");
      char close = c == '{' ? '}' : ']';
      ++p;
      if (!SkipWs(p, end)) return Lex::kMore;
      if (*p == close) {
        ++p;
        return Lex::kOk;
      }
      for (;;) {
        if (c == '{') {
          if (!SkipWs(p, end)) return Lex::kMore;
          if (*p != '"') return Error(p, "expected a string key");
          Lex r = SkipString(p, end);
          if (r != Lex::kOk) return r;
          if (!SkipWs(p, end)) return Lex::kMore;
          if (*p != ':') return Error(p, "expected ':'");
          ++p;
        }
        Lex r = Skip(p, end, depth + 1);
        if (r != Lex::kOk) return r;
        if (!SkipWs(p, end)) return Lex::kMore;
        if (*p == ',') {
          ++p;
          continue;
        }
        if (*p == close) {
          ++p;
          return Lex::kOk;
        }
        return Error(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
    if (c == '-' || IsDigit(c)) {
      std::string_view t;
      return Number(p, end, &t);
    }
    if (c == 't' || c == 'f' || c == 'n') return Literal(p, end);
    return Error(p, "invalid JSON value");
  }

  // Dom: parse any value into a JVal (only for small top-level values).
  Lex Dom(const char*& p, const char* end, JVal* v, int depth) {
    if (!SkipWs(p, end)) return Lex::kMore;
    char c = *p;
    std::string_view sv;
    if (c == '"') {
      Lex r = String(p, end, &sv, &scratch_);
      if (r != Lex::kOk) return r;
      v->type = JVal::kStr;
      v->text.assign(sv);
      return Lex::kOk;
    }
    if (c == '-' || IsDigit(c)) {
      Lex r = Number(p, end, &sv);
      if (r != Lex::kOk) return r;
      v->type = JVal::kNum;
      v->text.assign(sv);
      return Lex::kOk;
    }
    if (c == 't' || c == 'f' || c == 'n') {
      const char* s = p;
      Lex r = Literal(p, end);
      if (r != Lex::kOk) return r;
      v->type = c == 'n' ? JVal::kNull : JVal::kBool;
      v->text.assign(s, static_cast<size_t>(p - s));
      return Lex::kOk;
    }
    if (c != '{' && c != '[') return Error(p, "invalid JSON value");
    if (depth >= kMaxDepth) return Error(p, "JSON nested too deeply");
    bool obj = c == '{';
    char close = obj ? '}' : ']';
    v->type = obj ? JVal::kObj : JVal::kArr;
    ++p;
    if (!SkipWs(p, end)) return Lex::kMore;
    if (*p == close) {
      ++p;
      return Lex::kOk;
    }
    for (;;) {
      if (obj) {
        if (!SkipWs(p, end)) return Lex::kMore;
        if (*p != '"') return Error(p, "expected a string key");
        Lex r = String(p, end, &sv, &scratch_);
        if (r != Lex::kOk) return r;
        v->keys.emplace_back(sv);
        if (!SkipWs(p, end)) return Lex::kMore;
        if (*p != ':') return Error(p, "expected ':'");
        ++p;
      }
      v->items.emplace_back();
      Lex r = Dom(p, end, &v->items.back(), depth + 1);
      if (r != Lex::kOk) return r;
      if (!SkipWs(p, end)) return Lex::kMore;
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == close) {
        ++p;
        return Lex::kOk;
      }
      return Error(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }

  // ResetScratch: the decoded strings of the previous event are no longer used.
  void ResetScratch() { pool_used_ = 0; }

  uint64_t bad_utf8 = 0;

 private:
  std::string* NextScratch() {
    if (pool_used_ == pool_.size()) pool_.emplace_back();
    return &pool_[pool_used_++];
  }
  std::string scratch_;
  std::deque<std::string> pool_;  // deque: growing never moves earlier strings
  size_t pool_used_ = 0;
};

// ---- Learned separators ----

// SeparatorMemo: the exact bytes that came, in earlier events, between one
// value of an object and the next value (the ',', whitespace, the key with its
// quotes, the ':' and more whitespace) or the object's '}', and the key they
// name. Kineto writes every event of a kind with one layout, so the bytes
// after a value are nearly always the ones that followed the same key in the
// last event of that kind: one compare of them replaces the whitespace skips,
// the punctuation checks and the key match (a fifth of the import's
// instructions). A compare that fails falls back to the general path, which
// teaches the memo what it saw.
//
// Exact: a slot is replayed only where its bytes are at p, followed (for a
// key) by a byte that is no whitespace, which is where the general path's
// last skip would stop; the general path reads nothing but those bytes, so it
// would find the same key and stop at the same place. Separators holding a
// backslash (an escaped key) are never learned, so replaying one never skips
// an escape's side effects.
//
// Slots are found by context: `prev`, the slot matched before in this object
// (-1 at its start), and `ctx`, a small class of the event (its "ph" for the
// event's keys, its "cat" for args), with the two most recent successors kept
// per pair, as flow and complete events share keys but not their order.
class SeparatorMemo {
 public:
  static constexpr int kSlots = 64;
  static constexpr size_t kMaxLen = 48;  // compares read 48 bytes: within the buffers' kPad (64)
  static constexpr int kContexts = 16;
  static constexpr uint8_t kEndKey = 0xff;  // the slot ends the object ('}' is its last byte)

  struct Slot;
  // Start: the pseudo-slot before an object's first key.
  const Slot* Start() const { return &start_; }

  // Find: the slot that followed `prev` (a slot, or Start()) in `ctx` whose
  // bytes are at p and, for a key, are followed by a value's first byte; null
  // if none. Needs end - p > kMaxLen (the caller takes the general path
  // nearer the end). The two most recent successors are tried.
  [[gnu::always_inline]] const Slot* Find(const Slot* prev, int ctx, const char* p) const {
    const Slot* const* nx = prev->next[ctx];
    const Slot* m = nx[0];
    if (m == nullptr) return nullptr;
    if (Matches(*m, p)) return m;
    m = nx[1];
    if (m != nullptr && Matches(*m, p)) return m;
    return nullptr;
  }

  // Learn: the general path read [s, p) after `prev` in `ctx` and found `key`
  // (kEndKey: the object ended). Returns the slot, or null when the bytes
  // cannot be kept (too long, an escape, the table full).
  const Slot* Learn(const Slot* prev, int ctx, const char* s, const char* p, uint8_t key) {
    const size_t n = static_cast<size_t>(p - s);
    if (n == 0 || n > kMaxLen || std::memchr(s, '\\', n) != nullptr) return nullptr;
    Slot* slot = nullptr;
    for (int i = 0; i < count_; ++i) {
      if (slots_[i].len == n && std::memcmp(slots_[i].bytes, s, n) == 0) {
        slot = &slots_[i];
        break;
      }
    }
    if (slot == nullptr) {
      if (count_ == kSlots) return nullptr;
      slot = &slots_[count_++];
      std::memcpy(slot->bytes, s, n);
      slot->len = static_cast<uint8_t>(n);
      slot->key = key;
      slot->want = n >= 16 ? 0xffffu : (1u << n) - 1;
    }
    // prev is one of this memo's slots or start_; the const came from Find.
    const Slot** nx = const_cast<Slot*>(prev)->next[ctx];
    if (nx[0] != slot) {
      nx[1] = nx[0];
      nx[0] = slot;
    }
    return slot;
  }

  struct alignas(16) Slot {
    char bytes[kMaxLen] = {};
    uint32_t want = 0;  // the first 16 bytes' compare mask
    uint8_t len = 0;
    uint8_t key = 0;
    const Slot* next[kContexts][2] = {};  // successors by context, most recent first
  };

 private:
  [[gnu::always_inline]] static bool Matches(const Slot& m, const char* p) {
    const size_t n = m.len;
#if defined(__SSE2__)
    const auto* b = reinterpret_cast<const __m128i*>(m.bytes);
    unsigned eq = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), _mm_load_si128(b))));
    if ((eq & m.want) != m.want) return false;
    if (n > 16) [[unlikely]] {
      for (size_t i = 16; i < n; i += 16) {
        eq = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), _mm_load_si128(b + i / 16))));
        const unsigned want = n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1;
        if ((eq & want) != want) return false;
      }
    }
#else
    if (std::memcmp(p, m.bytes, n) != 0) return false;
#endif
    return m.key == kEndKey || static_cast<unsigned char>(p[n]) > ' ';
  }

  Slot start_;
  Slot slots_[kSlots];
  int count_ = 0;
};

// GapMemo: the bytes between two array elements, up to and including the
// next element's '{' (at most 16, no backslash: whitespace, ',' and '{').
struct GapMemo {
  char bytes[16] = {};
  size_t len = 0;  // 0: nothing learned
  [[gnu::always_inline]] bool Matches(const char* p, const char* end) const {
    if (len == 0 || end - p <= 16) return false;
#if defined(__SSE2__)
    const unsigned eq = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)))));
    const unsigned want = len >= 16 ? 0xffffu : (1u << len) - 1;
    return (eq & want) == want;
#else
    return std::memcmp(p, bytes, len) == 0;
#endif
  }
  void Learn(const char* s, const char* p) {
    const size_t n = static_cast<size_t>(p - s);
    if (n > sizeof bytes) return;
    std::memset(bytes, 0, sizeof bytes);
    std::memcpy(bytes, s, n);
    len = n;
  }
};

// IntMemo: the text and value of the last plain integer (1-7 digits) read
// for one field. Kineto repeats some fields' values from event to event (the
// pid and tid of a thread, a kernel's device and stream, a call's cbid): one
// masked compare of the bytes at p replaces the digit parse. Exact:
// Lexer::Int would read the same digits and stop at the same byte, which is
// no number character and before end.
struct IntMemo {
  uint64_t word = 0, mask = 0;
  int64_t value = 0;
  size_t len = 0;  // 0: nothing learned
  [[gnu::always_inline]] bool Take(const char*& p, const char* end, int64_t* out) const {
    if (len == 0 || end - p <= 8) return false;
    uint64_t w;
    std::memcpy(&w, p, 8);  // p + 8 < end
    if (((w ^ word) & mask) != 0 || IsNumChar(p[len])) return false;
    *out = value;
    p += len;
    return true;
  }
  // Learn: [s, p) was read as `v`; kept when it is 1-7 digits.
  void Learn(const char* s, const char* p, int64_t v) {
    const size_t n = static_cast<size_t>(p - s);
    if (n == 0 || n > 7) return;
    for (size_t i = 0; i < n; ++i)
      if (!IsDigit(s[i])) return;
    word = 0;
    std::memcpy(&word, s, n);
    mask = (uint64_t{1} << (8 * n)) - 1;
    value = v;
    len = n;
  }
};

// PhContext, CatContext: the memo contexts of an event's keys (by its "ph",
// known after the first key) and of its args (by its "cat"). Collisions only
// cost compares that fail.
inline int PhContext(std::string_view ph) {
  return ph.empty() ? 0 : static_cast<unsigned char>(ph[0]) % SeparatorMemo::kContexts;
}
inline int CatContext(std::string_view cat) {
  return cat.empty() ? 0
                     : static_cast<int>((cat.size() + static_cast<unsigned char>(cat.back())) %
                                        SeparatorMemo::kContexts);
}

// ---- One trace event, as parsed (views valid until the next refill) ----

struct Args {
  int64_t device = kMissingI64, stream = kMissingI64, correlation = kMissingI64;
  int64_t external_id = kMissingI64, cbid = kMissingI64, regs = kMissingI64, smem = kMissingI64;
  int64_t graph_id = kMissingI64, bytes = kMissingI64, from_device = kMissingI64;
  int64_t to_device = kMissingI64, wait_on_stream = kMissingI64, event_id = kMissingI64;
  int64_t in_nelems = kMissingI64, out_nelems = kMissingI64, group_size = kMissingI64;
  int64_t seq = kMissingI64;
  int32_t grid[3] = {kMissingI32, kMissingI32, kMissingI32};
  int32_t block[3] = {kMissingI32, kMissingI32, kMissingI32};
  float blocks_per_sm = kMissingF32, warps_per_sm = kMissingF32, occupancy = kMissingF32;
  bool inf_occupancy = false;
  bool has_collective = false;
  uint32_t bad_type = 0;
  std::string_view sync_kind, coll_name, dtype, pg_name, pg_desc, pg_ranks, meta_name, labels;
  // Raw JSON text of the recorded-shape args (record_shapes=True), kept verbatim.
  std::string_view input_dims, input_types, input_strides, concrete_inputs;
};

struct RawEvent {
  std::string_view ph, cat, name;
  int64_t pid = kMissingI64, tid = kMissingI64;
  int64_t id = kMissingI64;  // flow events
  std::string_view tid_str;
  int64_t ts_ns = kMissingI64, dur_ns = kMissingI64;
  bool ts_bad = false, dur_bad = false, has_args = false;
  const char* args_begin = nullptr;
  const char* args_end = nullptr;
  Args args;
};

static_assert(std::is_trivially_copyable_v<RawEvent>);
const RawEvent kEmptyEvent{};

// ResetEvent: *ev = RawEvent(), as one block copy of kEmptyEvent in 16-byte
// moves. Assigning a fresh RawEvent() stored its ~60 fields one by one (about
// 160 instructions an event); memcpy became `rep movsq`, whose start-up took
// a quarter of ParseEvents' cycles.
// The moves are written out (no loop), as GCC turns a copy loop back into
// `rep movsq`.
template <size_t... I>
[[gnu::always_inline]] inline void CopyBlocks(char* dst, const char* src, std::index_sequence<I...>) {
#if defined(__SSE2__)
  (_mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16 * I),
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16 * I))),
   ...);
#else
  std::memcpy(dst, src, 16 * sizeof...(I));
#endif
}
[[gnu::always_inline]] inline void ResetEvent(RawEvent* ev) {
  constexpr size_t kBlocks = sizeof(RawEvent) / 16;
  auto* dst = reinterpret_cast<char*>(ev);
  const auto* src = reinterpret_cast<const char*>(&kEmptyEvent);
  CopyBlocks(dst, src, std::make_index_sequence<kBlocks>());
  if constexpr (sizeof(RawEvent) % 16 != 0)
    std::memcpy(dst + kBlocks * 16, src + kBlocks * 16, sizeof(RawEvent) % 16);
}

enum class Cat : uint8_t {
  kKernel, kMemcpy, kMemset, kRuntime, kDriver, kOtherApi, kSync, kCpuOp, kUserAnnotation,
  kGpuUserAnnotation, kPython, kUnknown,
};

Cat ClassifyCat(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (Eq(c, "kernel") || Eq(c, "Kernel")) return Cat::kKernel;
      if (Eq(c, "Memcpy")) return Cat::kMemcpy;
      if (Eq(c, "Memset")) return Cat::kMemset;
      if (Eq(c, "cpu_op")) return Cat::kCpuOp;
      break;
    case 7:
      if (Eq(c, "Runtime")) return Cat::kRuntime;
      break;
    case 8:
      if (Eq(c, "Operator")) return Cat::kCpuOp;
      break;
    case 9:
      if (Eq(c, "cuda_sync")) return Cat::kSync;
      break;
    case 10:
      if (Eq(c, "gpu_memcpy")) return Cat::kMemcpy;
      if (Eq(c, "gpu_memset")) return Cat::kMemset;
      break;
    case 11:
      if (Eq(c, "cuda_driver")) return Cat::kDriver;
      if (Eq(c, "xpu_runtime")) return Cat::kOtherApi;
      break;
    case 12:
      if (Eq(c, "cuda_runtime")) return Cat::kRuntime;
      break;
    case 15:
      if (Eq(c, "user_annotation")) return Cat::kUserAnnotation;
      if (Eq(c, "python_function")) return Cat::kPython;
      break;
    case 19:
      if (Eq(c, "gpu_user_annotation")) return Cat::kGpuUserAnnotation;
      if (Eq(c, "privateuse1_runtime")) return Cat::kOtherApi;
      break;
    default:
      break;
  }
  return Cat::kUnknown;
}

// ParseStepNumber: N of "ProfilerStep#N", or kMissingI32.
int32_t ParseStepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix)
    return kMissingI32;
  int32_t n = 0;
  auto [ptr, ec] = std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), n);
  if (ec != std::errc() || ptr != name.data() + name.size()) return kMissingI32;
  return n;
}

CopyKind ParseCopyKind(std::string_view k) {
  static constexpr std::pair<std::string_view, CopyKind> kKinds[] = {
      {"HtoD", CopyKind::kHtoD}, {"DtoH", CopyKind::kDtoH}, {"DtoD", CopyKind::kDtoD},
      {"HtoH", CopyKind::kHtoH}, {"PtoP", CopyKind::kPtoP}, {"HtoA", CopyKind::kHtoA},
      {"AtoH", CopyKind::kAtoH}, {"AtoA", CopyKind::kAtoA}, {"AtoD", CopyKind::kAtoD},
      {"DtoA", CopyKind::kDtoA}, {"HostToDevice", CopyKind::kHtoD},
      {"DeviceToHost", CopyKind::kDtoH}, {"DeviceToDevice", CopyKind::kDtoD},
      {"HostToHost", CopyKind::kHtoH}, {"PeerToPeer", CopyKind::kPtoP},
  };
  for (const auto& [text, kind] : kKinds)
    if (k == text) return kind;
  return CopyKind::kUnknown;
}

MemoryKind ParseMemoryKind(std::string_view k) {
  while (!k.empty() && k.front() == ' ') k.remove_prefix(1);
  while (!k.empty() && k.back() == ' ') k.remove_suffix(1);
  static constexpr std::pair<std::string_view, MemoryKind> kKinds[] = {
      {"Pageable", MemoryKind::kPageable},      {"Pinned", MemoryKind::kPinned},
      {"Device", MemoryKind::kDevice},          {"Array", MemoryKind::kArray},
      {"Managed", MemoryKind::kManaged},        {"Device Static", MemoryKind::kDeviceStatic},
      {"Managed Static", MemoryKind::kManagedStatic},
  };
  for (const auto& [text, kind] : kKinds)
    if (k == text) return kind;
  return MemoryKind::kUnknown;
}

// ParseMemcpyName: "Memcpy HtoD (Pageable -> Device)" into kinds; false when
// the name does not follow that pattern.
bool ParseMemcpyName(std::string_view name, CopyKind* kind, MemoryKind* src, MemoryKind* dst) {
  constexpr std::string_view kPrefix = "Memcpy ";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view rest = name.substr(kPrefix.size());
  size_t sp = rest.find(' ');
  *kind = ParseCopyKind(rest.substr(0, sp));
  if (sp != std::string_view::npos) {
    std::string_view paren = rest.substr(sp + 1);
    if (paren.size() >= 2 && paren.front() == '(' && paren.back() == ')') {
      paren = paren.substr(1, paren.size() - 2);
      size_t arrow = paren.find("->");
      if (arrow != std::string_view::npos) {
        *src = ParseMemoryKind(paren.substr(0, arrow));
        *dst = ParseMemoryKind(paren.substr(arrow + 2));
      }
    }
  }
  return *kind != CopyKind::kUnknown;
}

SyncKind ParseSyncKind(std::string_view k) {
  if (Eq(k, "Event Sync")) return SyncKind::kEventSynchronize;
  if (Eq(k, "Stream Wait Event")) return SyncKind::kStreamWaitEvent;
  if (Eq(k, "Stream Sync")) return SyncKind::kStreamSynchronize;
  if (Eq(k, "Context Sync")) return SyncKind::kContextSynchronize;
  return SyncKind::kUnknown;
}

// StreamFromTid: N of a legacy GPU tid string "stream N".
int64_t StreamFromTid(std::string_view t) {
  constexpr std::string_view kPrefix = "stream ";
  if (t.substr(0, kPrefix.size()) != kPrefix) return kMissingI64;
  t.remove_prefix(kPrefix.size());
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return kMissingI64;
  return v;
}

int32_t ToI32(int64_t v) {
  if (!IsValid(v) || v < std::numeric_limits<int32_t>::min() + 1 ||
      v > std::numeric_limits<int32_t>::max())
    return kMissingI32;
  return static_cast<int32_t>(v);
}

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() &&
           std::tolower(static_cast<unsigned char>(hay[i + j])) ==
               std::tolower(static_cast<unsigned char>(needle[j])))
      ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// ---- The streaming document parser ----

// ArrayState: where the traceEvents loop stands. kElemOrEnd and kElem parse
// alike ("[]" and a trailing comma are both accepted); kCommaOrEnd follows an
// element.
enum class ArrayState : uint8_t { kElemOrEnd, kElem, kCommaOrEnd };

// SegmentEnd: how a segment parse stopped. kBoundary: at the segment's end,
// between elements (so the next segment starts at an element). kArrayEnd: at
// the ']' closing traceEvents. kUnverified: elsewhere (an element ran past the
// cut, which was then no boundary). kTruncated: the stream's last segment
// ended inside the array.
enum class SegmentEnd : uint8_t { kBoundary, kArrayEnd, kUnverified, kTruncated };

// SegmentJob: one stretch of traceEvents, parsed by a worker into `part`.
struct SegmentJob {
  // JSON in bytes[begin, len), then kPad zero bytes. Bytes before begin are
  // no part of it (room a stream block left for the previous segment's tail).
  std::vector<char> bytes;
  size_t begin = 0;
  size_t len = 0;
  // Decompressed offset of bytes[0], modulo 2^64 (below the stream's start
  // when begin is): offsets are base + index.
  uint64_t base = 0;
  bool final = false;  // ends where the stream ends
  // Written by the worker.
  model::Trace part;
  Status status;
  SegmentEnd end = SegmentEnd::kUnverified;
  ArrayState end_state = ArrayState::kElem;
  size_t end_pos = 0;  // where the parse stopped, in bytes
  uint64_t events = 0, bad_utf8 = 0;
  int64_t min_ts_ns = std::numeric_limits<int64_t>::max();
  bool saw_hip = false, saw_cuda = false;
  std::vector<std::string> counter_keys;  // key of each part.counters series
  bool done = false;                      // guarded by the pool's mutex
};

// AutoParseThreads: KinetoOptions::threads = 0. One thread per core, at most
// 4: measured on a 16-core machine (docs/performance.md), the 10x import
// stopped gaining past 4-6 parsers (the reader, the merge and inflate are one
// thread each) while each parser's segments in flight add memory (8 parsers
// peaked at 204 MB at 10x, 4 at 174-178 MB).
int AutoParseThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores >= 4 ? 4 : (cores >= 2 ? static_cast<int>(cores) : 1);
}

enum class EventKey : uint8_t;
enum class ArgKey : uint8_t;

// ObjectText: what the general path says when an object's punctuation is wrong.
struct ObjectText {
  const char* comma_or_end;
  const char* key;
  const char* colon;
};
constexpr ObjectText kEventText{"expected ',' or '}' in a trace event",
                                "expected a string key in a trace event",
                                "expected ':' in a trace event"};
constexpr ObjectText kArgsText{"expected ',' or '}' in args", "expected a string key in args",
                               "expected ':' in args"};

class KinetoParser {
 public:
  KinetoParser(InputStream& in, const KinetoOptions& options, model::Trace& trace)
      : in_(in),
        chunk_(std::max<size_t>(options.chunk_bytes, 1)),
        reserve_after_(options.reserve_after_bytes),
        trace_(trace),
        threads_(options.threads != 0 ? options.threads : AutoParseThreads()),
        segment_bytes_(std::max<size_t>(options.segment_bytes, 1)),
        learn_(options.learn_repeats) {}

  Status Run();
  uint64_t events() const { return event_index_; }
  double reserve_factor() const { return reserve_factor_; }
  uint64_t bytes() const { return base_off_ + len_; }
  uint64_t segments() const { return segments_; }
  bool serial_fallback() const { return serial_fallback_; }
  bool jax_layout() const { return jax_layout_; }

 private:
  // Segment mode: a worker's parser over one SegmentJob (no stream reads).
  KinetoParser(InputStream& in, model::Trace& part)
      : in_(in), chunk_(1), reserve_after_(0), trace_(part), segment_mode_(true) {}

  // Buffer management.
  Status Refill(const char* context);
  const char* Buf() const { return buf_.data(); }
  uint64_t OffsetOf(const char* p) const { return base_off_ + static_cast<uint64_t>(p - Buf()); }
  Status SyntaxError() const {
    return InvalidInput(fmt::format("{}: invalid JSON at byte {}: {}", in_.path(),
                                    OffsetOf(lex_.err_at), lex_.err_what));
  }
  Status ContainerError(uint64_t at, std::string_view what) const {
    return InvalidInput(fmt::format("{}: {} (at byte {})", in_.path(), what, at));
  }
  // Peek: make at least one non-whitespace byte available at pos_.
  Status Peek(const char* context, char* c);

  Status TopLevelValue(const std::string& key);
  Status ParseEvents(ArrayState st);
  // ParseEventsParallel: traceEvents from pos_ (just after '[') on threads_
  // workers; leaves the parser after the array as ParseEvents does.
  Status ParseEventsParallel();
  // ParseSegment: run in a worker; parses job.bytes into job.part.
  void ParseSegment(SegmentJob& job);
  // MergePart: append a parsed segment to trace_ as if it had been parsed
  // here: string ids remapped in first-use order, side tables merged by the
  // rules CommitMetadata/CommitCounter apply event by event.
  void MergePart(SegmentJob& job);
  Status SkipLargeValue();
  Status ParseDom(JVal* v, const char* context);

  // Events.
  Lex ParseEvent(const char*& p, const char* end, RawEvent* ev);
  // ParseArgs: the args object at p; ctx: CatContext() of the event.
  Lex ParseArgs(const char*& p, const char* end, Args* a, int ctx);
  // NextKey: the separator from p (just after '{' when `first`, else just
  // after a value) to the next value's first byte, naming its key in *k; or
  // past the object's '}', with *k = Key::kEnd. Replayed from `memo` after
  // `prev` in `ctx` when its bytes are at p, else read (Separator) and
  // learned; `prev` becomes the slot, null when the bytes were not kept (and
  // stays null: the memo is off for the rest of the object).
  template <typename Key, typename ReadKey>
  Lex NextKey(SeparatorMemo& memo, const SeparatorMemo::Slot*& prev, int ctx, bool first,
              const char*& p, const char* end, const ObjectText& text, ReadKey read_key, Key* k);
  // Separator: NextKey's general path; read_key(p, end, k) reads the key at
  // its opening quote.
  template <typename Key, typename ReadKey>
  Lex Separator(const char*& p, const char* end, bool first, const ObjectText& text,
                ReadKey read_key, Key* k);
  Lex ArgValue(ArgKey k, const char*& p, const char* end, Args* a);
  Lex ArgInt(const char*& p, const char* end, int64_t* out, Args* a);
  Lex ArgIntRepeat(IntMemo& memo, const char*& p, const char* end, int64_t* out, Args* a);
  Lex ArgFloat(const char*& p, const char* end, float* out, bool* inf, Args* a);
  Lex ArgStr(const char*& p, const char* end, std::string_view* out, Args* a);
  // ArgRaw: skip one JSON value and keep its raw text (views the buffer).
  Lex ArgRaw(const char*& p, const char* end, std::string_view* out) {
    const char* s = p;
    Lex r = lex_.Skip(p, end, 2);
    if (r == Lex::kOk) *out = std::string_view(s, static_cast<size_t>(p - s));
    return r;
  }
  Lex ArgTriple(const char*& p, const char* end, int32_t* out, Args* a);
  Lex IdValue(const char*& p, const char* end, int64_t* num, std::string_view* str);
  Lex TimeValue(const char*& p, const char* end, int64_t* ns, bool* bad);

  // MaybeReserve: once, after options.reserve_after_bytes of JSON, size the
  // event tables for the whole input from the share of it read so far.
  void MaybeReserve(uint64_t parsed_bytes);
  // ProjectedGrowth: the input's JSON bytes in all / parsed_bytes, projected
  // from the stream's compressed and decompressed offsets; 0 when unknown.
  double ProjectedGrowth(uint64_t parsed_bytes) const;
  // FitsHalfMemory: the model grown `growth` times stays within half the
  // machine's memory.
  bool FitsHalfMemory(double growth) const;
  // MergeGrowth: once the tables are sized, the growth that a table a merged
  // segment outgrows gets (the sizing point saw too few of its rows: a
  // trace's kernels and runtime calls often come after its CPU ops), so that
  // it is copied about once more instead of doubling, whose outgrown buffers
  // stay in the heap until the import ends; 0: plain doubling.
  double MergeGrowth(uint64_t parsed_bytes) const;

  void Commit(RawEvent& ev);
  void CommitComplete(RawEvent& ev);
  void CommitMetadata(const RawEvent& ev);
  void CommitCounter(const RawEvent& ev);
  void AddRange(const RawEvent& ev, RangeKind kind, int32_t step);
  void Finish();
  // UnmappedLayout: an error naming the layout when the trace holds no GPU
  // event gpuwhy maps but looks like a known layout that has them (JAX/XLA).
  Status UnmappedLayout() const;
  void ApplyDevices(const JVal& arr);
  void ApplyDistributed(const JVal& obj);

  InputStream& in_;
  size_t chunk_;
  uint64_t reserve_after_;
  model::Trace& trace_;
  Lexer lex_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t base_off_ = 0;
  bool eof_ = false;
  uint64_t event_index_ = 0;
  bool reserved_ = false;
  double reserve_factor_ = 0;

  uint64_t bad_utf8_total_ = 0;
  bool saw_events_ = false;
  int64_t base_time_ns_ = kMissingI64;
  bool saw_hip_ = false, saw_cuda_ = false;
  int64_t min_ts_ns_ = std::numeric_limits<int64_t>::max();
  std::map<std::string, size_t, std::less<>> counter_index_;
  std::string counter_key_;

  int threads_ = 1;
  size_t segment_bytes_ = 0;
  StreamBlock block_;  // the parallel reader's spare buffer, swapped with each block read
  bool segment_mode_ = false;
  bool segment_final_ = false;
  SegmentEnd segment_end_ = SegmentEnd::kUnverified;
  ArrayState segment_state_ = ArrayState::kElem;
  uint64_t segments_ = 0;
  bool serial_fallback_ = false;
  mutable bool jax_layout_ = false;  // UnmappedLayout found JAX/XLA device processes
  std::vector<StringId> remap_;
  // Learned separators of events' keys and of their args' keys.
  bool learn_ = true;  // KinetoOptions::learn_repeats
  SeparatorMemo event_memo_, args_memo_;
  GapMemo gap_memo_;
  IntMemo pid_memo_, tid_memo_, device_memo_, stream_memo_, cbid_memo_;
};

Status KinetoParser::Refill(const char* context) {
  if (eof_) {
    return InvalidInput(fmt::format("{}: truncated JSON at byte {} ({})", in_.path(),
                                    base_off_ + len_, context));
  }
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    base_off_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  if (buf_.size() < len_ + chunk_ + kPad) buf_.resize(std::max(buf_.size() * 2, len_ + chunk_ + kPad));
  size_t got_total = 0;
  // Read until the request is met or the stream ends, so tiny test chunks still progress.
  while (got_total == 0) {
    Result<size_t> got = in_.Read(buf_.data() + len_, chunk_);
    if (!got.ok()) return got.status();
    if (*got == 0) {
      eof_ = true;
      break;
    }
    len_ += *got;
    got_total += *got;
  }
  std::memset(buf_.data() + len_, 0, kPad);
  return Status::Ok();
}

Status KinetoParser::Peek(const char* context, char* c) {
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    if (SkipWs(p, end)) {
      pos_ = static_cast<size_t>(p - Buf());
      *c = *p;
      return Status::Ok();
    }
    pos_ = len_;
    RETURN_IF_ERROR(Refill(context));
  }
}

Status KinetoParser::ParseDom(JVal* v, const char* context) {
  for (;;) {
    const char* p = Buf() + pos_;
    *v = JVal();
    Lex r = lex_.Dom(p, Buf() + len_, v, 0);
    if (r == Lex::kOk) {
      pos_ = static_cast<size_t>(p - Buf());
      return Status::Ok();
    }
    if (r == Lex::kError) return SyntaxError();
    RETURN_IF_ERROR(Refill(context));
  }
}

// SkipLargeValue: skip an unknown top-level value of any size with a byte
// state machine, so a huge unused array does not have to fit in the buffer.
Status KinetoParser::SkipLargeValue() {
  char c = 0;
  RETURN_IF_ERROR(Peek("inside a top-level value", &c));
  if (c != '{' && c != '[' && c != '"') {
    for (;;) {
      const char* p = Buf() + pos_;
      Lex r = lex_.Skip(p, Buf() + len_, 0);
      if (r == Lex::kOk) {
        pos_ = static_cast<size_t>(p - Buf());
        return Status::Ok();
      }
      if (r == Lex::kError) return SyntaxError();
      RETURN_IF_ERROR(Refill("inside a top-level value"));
    }
  }
  int depth = 0;
  bool in_str = false, escape = false;
  std::vector<char> stack;
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    for (; p < end; ++p) {
      char ch = *p;
      if (in_str) {
        if (escape) {
          escape = false;
        } else if (ch == '\\') {
          escape = true;
        } else if (ch == '"') {
          in_str = false;
          if (depth == 0) {
            pos_ = static_cast<size_t>(p + 1 - Buf());
            return Status::Ok();
          }
        }
        continue;
      }
      if (ch == '"') {
        in_str = true;
      } else if (ch == '{' || ch == '[') {
        if (++depth > kMaxDepth) return ContainerError(OffsetOf(p), "JSON nested too deeply");
        stack.push_back(ch == '{' ? '}' : ']');
      } else if (ch == '}' || ch == ']') {
        if (stack.empty() || stack.back() != ch)
          return InvalidInput(fmt::format("{}: invalid JSON at byte {}: mismatched '{}'",
                                          in_.path(), OffsetOf(p), ch));
        stack.pop_back();
        if (--depth == 0) {
          pos_ = static_cast<size_t>(p + 1 - Buf());
          return Status::Ok();
        }
      }
    }
    pos_ = len_;
    RETURN_IF_ERROR(Refill("inside a top-level value"));
  }
}

Status KinetoParser::Run() {
  buf_.resize(chunk_ + kPad);
  char c = 0;
  {
    Status st = Peek("expected a JSON object", &c);
    if (!st.ok()) {
      if (!eof_) return st;  // a read or gzip error, not an empty document
      if (base_off_ + len_ == 0)
        return InvalidInput(in_.path() + ": empty input (no JSON object)");
      // Only whitespace.
      return InvalidInput(in_.path() + ": no JSON object (only whitespace)");
    }
  }
  if (c != '{') {
    if (c == '[') {
      // PyTorch's legacy autograd profiler (no Kineto) writes a bare array
      // whose events name their pid "CPU functions" / "CUDA functions".
      constexpr size_t kHead = 64 * 1024;
      while (!eof_ && len_ - pos_ < kHead) RETURN_IF_ERROR(Refill("the first events"));
      const std::string_view head(Buf() + pos_, std::min<size_t>(len_ - pos_, kHead));
      if (head.find("\"CPU functions\"") != std::string_view::npos ||
          head.find("\"CUDA functions\"") != std::string_view::npos)
        return ContainerError(OffsetOf(Buf() + pos_),
                              "a PyTorch legacy autograd-profiler trace (a top-level array, pid "
                              "\"CPU functions\"), not Kineto: the torch-legacy-json importer "
                              "reads it");
      return ContainerError(OffsetOf(Buf() + pos_),
                            "the top-level JSON value is an array (a Chrome trace in array form), "
                            "not a Kineto trace object");
    }
    return ContainerError(OffsetOf(Buf() + pos_), "not a JSON object (a Kineto trace starts with '{')");
  }
  ++pos_;
  bool first = true;
  for (;;) {
    RETURN_IF_ERROR(Peek("inside the top-level object", &c));
    if (c == '}') {
      if (!first) {
        // A trailing comma before '}' is tolerated.
      }
      ++pos_;
      break;
    }
    if (c != '"') {
      lex_.Error(Buf() + pos_, "expected a string key in the top-level object");
      return SyntaxError();
    }
    std::string key;
    for (;;) {
      const char* p = Buf() + pos_;
      std::string_view sv;
      std::string tmp;
      Lex r = lex_.String(p, Buf() + len_, &sv, &tmp);
      if (r == Lex::kOk) {
        key.assign(sv);
        pos_ = static_cast<size_t>(p - Buf());
        break;
      }
      if (r == Lex::kError) return SyntaxError();
      RETURN_IF_ERROR(Refill("inside a top-level key"));
    }
    RETURN_IF_ERROR(Peek("after a top-level key", &c));
    if (c != ':') {
      lex_.Error(Buf() + pos_, "expected ':' after a top-level key");
      return SyntaxError();
    }
    ++pos_;
    RETURN_IF_ERROR(TopLevelValue(key));
    first = false;
    RETURN_IF_ERROR(Peek("inside the top-level object", &c));
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '}') {
      ++pos_;
      break;
    }
    lex_.Error(Buf() + pos_, "expected ',' or '}' in the top-level object");
    return SyntaxError();
  }
  // Only whitespace may follow the top-level object.
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    if (SkipWs(p, end))
      return ContainerError(OffsetOf(p), "unexpected data after the top-level JSON object");
    pos_ = len_;
    if (eof_) break;
    Status st = Refill("after the top-level object");
    if (!st.ok()) return st;
  }
  if (!saw_events_)
    return InvalidInput(in_.path() + ": JSON object has no traceEvents array (not a Kineto trace)");
  Finish();
  return UnmappedLayout();
}

Status KinetoParser::UnmappedLayout() const {
  // Unsupported is not empty: a Chrome trace whose GPU rows gpuwhy does not
  // map would read as "no GPU activity". JAX/XLA names its processes after
  // devices ("/device:GPU:0", "/device:TPU:0") and puts ops on their threads.
  if (trace_.kernels.size() + trace_.memcpys.size() + trace_.memsets.size() > 0) return Status::Ok();
  std::string devices;
  int count = 0;
  for (const model::Process& pr : trace_.processes) {
    const std::string_view name = trace_.Str(pr.name);
    if (name.find("/device:") == std::string_view::npos) continue;
    if (count++ < 2) devices += (devices.empty() ? "" : ", ") + std::string(name);
  }
  if (count == 0) return Status::Ok();
  jax_layout_ = true;
  return InvalidInput(in_.path() + ": a JAX/XLA profile (" + std::to_string(count) +
                      " device process" + (count == 1 ? "" : "es") + ": " + devices +
                      (count > 2 ? ", ..." : "") +
                      "), not Kineto: the jax-trace-json importer reads it");
}

Status KinetoParser::TopLevelValue(const std::string& key) {
  char c = 0;
  RETURN_IF_ERROR(Peek("after a top-level key", &c));
  uint64_t at = OffsetOf(Buf() + pos_);
  if (key == "traceEvents") {
    if (c != '[') return ContainerError(at, "traceEvents is not an array");
    ++pos_;
    saw_events_ = true;
    return threads_ > 1 ? ParseEventsParallel() : ParseEvents(ArrayState::kElemOrEnd);
  }
  if (key == "deviceProperties" || key == "computeProperties") {
    if (c != '[') return ContainerError(at, key + " is not an array");
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside deviceProperties"));
    ApplyDevices(v);
    return Status::Ok();
  }
  if (key == "distributedInfo") {
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside distributedInfo"));
    if (v.type != JVal::kObj) return ContainerError(at, "distributedInfo is not an object");
    ApplyDistributed(v);
    return Status::Ok();
  }
  if (key == "baseTimeNanoseconds" || key == "schemaVersion" || key == "cupti_version" ||
      key == "cuda_runtime_version" || key == "cuda_driver_version" || key == "hostname") {
    if (c == '{' || c == '[') {
      trace_.stats.Bump(ImportStat::bad_field_type);
      return SkipLargeValue();
    }
    JVal v;
    RETURN_IF_ERROR(ParseDom(&v, "inside a top-level value"));
    if (key == "baseTimeNanoseconds") {
      int64_t b = 0;
      if (v.type == JVal::kNum && ParseI64Text(v.text, &b)) {
        base_time_ns_ = b;
      } else {
        trace_.stats.Bump(ImportStat::bad_field_type);
      }
    } else if (key == "schemaVersion") {
      trace_.info.format_version = v.text;
    } else if (key == "cupti_version") {
      trace_.info.cupti_version = v.text;
    } else if (key == "cuda_runtime_version") {
      trace_.info.cuda_runtime_version = v.text;
    } else if (key == "cuda_driver_version") {
      trace_.info.cuda_driver_version = v.text;
    } else if (key == "hostname" && v.type == JVal::kStr) {
      trace_.rank.hostname = trace_.strings.Intern(v.text);
    }
    return Status::Ok();
  }
  // displayTimeUnit (a viewer hint), traceName, flags, logger buckets, ...
  if (key != "displayTimeUnit" && key != "traceName") trace_.stats.Bump(ImportStat::unknown_field);
  return SkipLargeValue();
}

Status KinetoParser::ParseEvents(ArrayState st) {
  using enum ArrayState;
  RawEvent ev;
  for (;;) {
    const char* p = Buf() + pos_;
    const char* end = Buf() + len_;
    // The bytes between two events (",", newlines and indents, "{") are
    // replayed as the last ones seen, like the separators in an event.
    const char* gap = nullptr;  // where the bytes after the last event began
    for (;;) {
      if (st == kCommaOrEnd) {
        if (gap_memo_.Matches(p, end)) {
          p += gap_memo_.len - 1;  // at '{'
          st = kElem;
        } else {
          gap = p;
        }
      }
      if (!SkipWs(p, end)) break;
      if (st == kCommaOrEnd) {
        if (*p == ',') {
          ++p;
          st = kElem;
          continue;
        }
        if (*p == ']') {
          pos_ = static_cast<size_t>(p + 1 - Buf());
          segment_end_ = SegmentEnd::kArrayEnd;
          return Status::Ok();
        }
        lex_.Error(p, "expected ',' or ']' in traceEvents");
        return SyntaxError();
      }
      if (*p == ']') {
        // "[]" ends here; "[..., ]" (a trailing comma) is tolerated.
        pos_ = static_cast<size_t>(p + 1 - Buf());
        segment_end_ = SegmentEnd::kArrayEnd;
        return Status::Ok();
      }
      const char* start = p;
      if (*p == '{') {
        if (gap != nullptr && learn_) {
          gap_memo_.Learn(gap, p + 1);
          gap = nullptr;
        }
        ResetEvent(&ev);
        lex_.ResetScratch();
        lex_.bad_utf8 = 0;  // counted per successful parse, not per retry
        Lex r = ParseEvent(p, end, &ev);
        if (r == Lex::kMore) {
          p = start;
          break;
        }
        if (r == Lex::kError) return SyntaxError();
        bad_utf8_total_ += lex_.bad_utf8;
        Commit(ev);
      } else {
        Lex r = lex_.Skip(p, end, 0);
        if (r == Lex::kMore) {
          p = start;
          break;
        }
        if (r == Lex::kError) return SyntaxError();
        trace_.stats.Bump(ImportStat::malformed_event);
      }
      ++event_index_;
      st = kCommaOrEnd;
    }
    pos_ = static_cast<size_t>(p - Buf());
    if (segment_mode_) {
      // The coordinator decides what the stop means (it knows the event
      // count before this segment, for the truncation message).
      segment_state_ = st;
      segment_end_ = segment_final_ ? SegmentEnd::kTruncated
                     : (st == kElem && pos_ == len_) ? SegmentEnd::kBoundary
                                                     : SegmentEnd::kUnverified;
      return Status::Ok();
    }
    if (eof_) {
      return InvalidInput(fmt::format("{}: truncated JSON at byte {} (inside traceEvents, after event {})",
                                      in_.path(), base_off_ + len_, event_index_));
    }
    MaybeReserve(OffsetOf(Buf() + pos_));
    RETURN_IF_ERROR(Refill("inside traceEvents"));
  }
}

double KinetoParser::ProjectedGrowth(uint64_t parsed_bytes) const {
  const double parsed = static_cast<double>(parsed_bytes);
  const double raw_total = static_cast<double>(in_.raw_size());
  const double raw_done = static_cast<double>(in_.raw_offset());
  const double out_done = static_cast<double>(in_.offset());
  if (parsed <= 0 || raw_total <= 0 || raw_done <= 0 || out_done <= 0) return 0;
  // The stream's own ratio of JSON to file bytes so far (1 for plain files).
  return out_done * raw_total / raw_done / parsed;
}

// HalfMemoryBytes: half the machine's physical memory, 0 when unknown. Read
// once: MergeGrowth asks for every merged segment, and sysconf(_SC_PHYS_PAGES)
// is a system call.
double HalfMemoryBytes() {
  static const double half = [] {
    const double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES));
    const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
    return pages > 0 && page_bytes > 0 ? pages * page_bytes / 2 : 0.0;
  }();
  return half;
}

bool KinetoParser::FitsHalfMemory(double growth) const {
  // A guess past half the machine's memory is left to doubling: an input that
  // large fails either way, and a wrong guess must not fail one that fits.
  const double half = HalfMemoryBytes();
  return half <= 0 || static_cast<double>(trace_.memory_bytes()) * growth <= half;
}

double KinetoParser::MergeGrowth(uint64_t parsed_bytes) const {
  if (reserve_factor_ <= 0) return 0;  // not sized: plain doubling
  // Near the end (or where the projection runs short) a table still grows
  // by a quarter at a time, not by doubling.
  const double g = std::max(1.25, ProjectedGrowth(parsed_bytes) * 1.05);
  return FitsHalfMemory(g) ? g : 0;
}

void KinetoParser::MaybeReserve(uint64_t parsed_bytes) {
  if (reserved_ || reserve_after_ == 0 || parsed_bytes < reserve_after_) return;
  reserved_ = true;
  const double factor = ProjectedGrowth(parsed_bytes);
  // Near the end doubling costs little; past it, the file grew or lied.
  if (factor < 1.25) return;
  if (!FitsHalfMemory(factor * 1.05)) return;
  try {
    trace_.ReserveForGrowth(factor * 1.05);
    reserve_factor_ = factor * 1.05;
  } catch (const std::bad_alloc&) {
    // Address space refused: the tables keep growing by doubling.
  }
}

// ---- Parallel traceEvents: segments cut at event boundaries ----

// SegmentPool: worker threads taking SegmentJobs in order of submission.
class SegmentPool {
 public:
  // Workers run a few nice steps below the calling thread. Why: the import is
  // a pipeline paced by inflate (its own thread) and the reader, which share
  // two cores with the parsers; at equal priority the parsers took the cores
  // while inflate waited, then idled for want of segments (10x: parsers idle
  // ~290 ms, the reader waiting for inflate ~190 ms of a 450 ms import).
  // Lower, they take what the feeding stages leave: 10x wall 0.564 -> 0.540 s
  // (5 interleaved runs; docs/performance.md).
  static constexpr int kWorkerNiceSteps = 5;
  template <typename Fn>
  SegmentPool(int workers, Fn fn) {
    for (int i = 0; i < workers; ++i)
      threads_.emplace_back([this, fn] {
        LowerCurrentThreadPriority(kWorkerNiceSteps);
        Loop(fn);
      });
  }
  ~SegmentPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void Submit(SegmentJob* job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job->done = false;
      todo_.push_back(job);
    }
    work_.notify_one();
  }
  // Done: whether `job` has been parsed (without waiting).
  bool Done(const SegmentJob* job) {
    std::lock_guard<std::mutex> lock(mu_);
    return job->done;
  }
  void Wait(const SegmentJob* job) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [job] { return job->done; });
  }

 private:
  template <typename Fn>
  void Loop(Fn fn) {
    for (;;) {
      SegmentJob* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_.wait(lock, [this] { return stop_ || !todo_.empty(); });
        if (stop_) return;  // jobs still queued are abandoned: the parse failed
        job = todo_.front();
        todo_.pop_front();
      }
      fn(*job);
      {
        std::lock_guard<std::mutex> lock(mu_);
        job->done = true;
      }
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<SegmentJob*> todo_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// FindCut: the last position b in [lo, len) that looks like the start of a
// traceEvents element after another: '{' then whitespace and '"', preceded by
// whitespace, ',' and whitespace after '}', all at or after `floor` (<= lo;
// the bytes before it are none of the text). A string may hold that text too,
// so the cut is checked later (SegmentEnd::kBoundary). 0 when none.
size_t FindCut(const char* s, size_t floor, size_t lo, size_t len) {
  size_t hi = len;
  while (hi > lo) {
    const void* hit = memrchr(s + lo, '{', hi - lo);
    if (hit == nullptr) return 0;
    size_t b = static_cast<size_t>(static_cast<const char*>(hit) - s);
    hi = b;
    size_t a = b + 1;
    while (a < len && IsWs(s[a])) ++a;
    if (a >= len || s[a] != '"') continue;
    size_t k = b;
    while (k > floor && IsWs(s[k - 1])) --k;
    if (k == floor || s[k - 1] != ',') continue;
    --k;
    while (k > floor && IsWs(s[k - 1])) --k;
    if (k == floor || s[k - 1] != '}') continue;
    return b;
  }
  return 0;
}

// ResetPart: empty a segment's trace for the next segment, keeping the event
// tables' capacity (a fresh string pool: its ids must start over).
void ResetPart(model::Trace& t) {
  t.strings = StringPool();
  t.info = model::TraceInfo();
  t.processes.clear();
  t.threads.clear();
  t.streams.clear();
  t.counters.clear();
  t.stats = model::ImportStats();
  t.ForEachEventTable([](auto& table) { table.Clear(); });  // capacity kept for the next segment
}

void KinetoParser::ParseSegment(SegmentJob& job) {
  ResetPart(job.part);
  KinetoParser sub(in_, job.part);
  sub.learn_ = learn_;
  sub.buf_.swap(job.bytes);
  sub.pos_ = job.begin;
  sub.len_ = job.len;
  sub.base_off_ = job.base;
  sub.eof_ = true;
  sub.segment_final_ = job.final;
  try {
    job.status = sub.ParseEvents(ArrayState::kElem);
  } catch (const std::bad_alloc&) {
    job.status = InvalidInput(fmt::format("{}: out of memory parsing traceEvents at byte {}",
                                          in_.path(), job.base + job.begin));
  }
  sub.buf_.swap(job.bytes);
  job.end = sub.segment_end_;
  job.end_state = sub.segment_state_;
  job.end_pos = sub.pos_;
  job.events = sub.event_index_;
  job.bad_utf8 = sub.bad_utf8_total_;
  job.min_ts_ns = sub.min_ts_ns_;
  job.saw_hip = sub.saw_hip_;
  job.saw_cuda = sub.saw_cuda_;
  job.counter_keys.assign(job.part.counters.size(), std::string());
  for (const auto& [key, idx] : sub.counter_index_) job.counter_keys[idx] = key;
}

void KinetoParser::MergePart(SegmentJob& job) {
  const model::Trace& part = job.part;
  // Interning the part's strings in its first-use order reproduces the
  // one-thread pool: the strings new here are exactly those first used in
  // this segment, in that order.
  remap_.resize(part.strings.size());
  for (StringId i = 0; i < remap_.size(); ++i) remap_[i] = trace_.strings.Intern(part.strings.Get(i));
  trace_.AppendEventsFrom(part, remap_, MergeGrowth(job.base + job.len));
  trace_.stats.Merge(part.stats);
  // processes and threads: first appearance sets the order, the last name
  // wins; streams: the first name wins (as CommitMetadata does).
  for (const model::Process& p : part.processes) {
    auto it = std::find_if(trace_.processes.begin(), trace_.processes.end(),
                           [&](const model::Process& q) { return q.pid == p.pid; });
    if (it != trace_.processes.end()) it->name = remap_[p.name];
    else trace_.processes.push_back({p.pid, remap_[p.name]});
  }
  for (const model::Thread& t : part.threads) {
    auto it = std::find_if(trace_.threads.begin(), trace_.threads.end(), [&](const model::Thread& q) {
      return q.pid == t.pid && q.tid == t.tid;
    });
    if (it != trace_.threads.end()) it->name = remap_[t.name];
    else trace_.threads.push_back({t.pid, t.tid, remap_[t.name]});
  }
  for (const model::Stream& s : part.streams) {
    bool known = std::any_of(trace_.streams.begin(), trace_.streams.end(), [&](const model::Stream& q) {
      return q.device_id == s.device_id && q.stream_id == s.stream_id;
    });
    if (known) continue;
    model::Stream m = s;
    m.name = remap_[s.name];
    trace_.streams.push_back(m);
  }
  for (size_t i = 0; i < part.counters.size(); ++i) {
    const model::CounterSeries& s = part.counters[i];
    auto it = counter_index_.find(job.counter_keys[i]);
    size_t idx;
    if (it == counter_index_.end()) {
      idx = trace_.counters.size();
      model::CounterSeries m;
      m.name = remap_[s.name];
      m.device_id = s.device_id;
      m.source = remap_[s.source];
      trace_.counters.push_back(std::move(m));
      counter_index_.emplace(job.counter_keys[i], idx);
    } else {
      idx = it->second;
    }
    model::CounterSeries& g = trace_.counters[idx];
    g.ts_ns.insert(g.ts_ns.end(), s.ts_ns.begin(), s.ts_ns.end());
    g.value.insert(g.value.end(), s.value.begin(), s.value.end());
  }
  model::TraceInfo& info = trace_.info;
  const model::TraceInfo& pi = part.info;
  info.ac2g_flow_ids.insert(info.ac2g_flow_ids.end(), pi.ac2g_flow_ids.begin(),
                            pi.ac2g_flow_ids.end());
  if (IsValid(pi.capture_start_ns))
    info.capture_start_ns = IsValid(info.capture_start_ns)
                                ? std::min(info.capture_start_ns, pi.capture_start_ns)
                                : pi.capture_start_ns;
  if (IsValid(pi.capture_end_ns))
    info.capture_end_ns = IsValid(info.capture_end_ns)
                              ? std::max(info.capture_end_ns, pi.capture_end_ns)
                              : pi.capture_end_ns;
  min_ts_ns_ = std::min(min_ts_ns_, job.min_ts_ns);
  saw_hip_ = saw_hip_ || job.saw_hip;
  saw_cuda_ = saw_cuda_ || job.saw_cuda;
  bad_utf8_total_ += job.bad_utf8;
  event_index_ += job.events;
  ++segments_;
}

Status KinetoParser::ParseEventsParallel() {
  // The reader (this thread) cuts the decompressed stream into segments of
  // about segment_bytes_ that start at an element, workers parse them into
  // segment-local tables, and this thread merges them in file order. A
  // segment counts only when the one before it stopped exactly at its cut
  // (kBoundary); otherwise the rest is parsed here, on one thread.
  std::vector<std::unique_ptr<SegmentJob>> spare;
  auto take_job = [&]() -> std::unique_ptr<SegmentJob> {
    if (spare.empty()) return std::make_unique<SegmentJob>();
    std::unique_ptr<SegmentJob> j = std::move(spare.back());
    spare.pop_back();
    j->begin = 0;
    j->len = 0;
    j->final = false;
    return j;
  };
  auto room = [&](SegmentJob& j, size_t want) {
    // Sized once for a segment plus a read; only an element longer than a
    // segment grows it further (by doubling).
    if (j.bytes.size() < j.len + want + kPad)
      j.bytes.resize(std::max(j.len + want + kPad, j.len >= segment_bytes_ ? 2 * j.len : 0));
  };
  std::unique_ptr<SegmentJob> cur = take_job();
  cur->len = len_ - pos_;
  cur->base = OffsetOf(Buf() + pos_);
  room(*cur, segment_bytes_ + chunk_);
  std::memcpy(cur->bytes.data(), Buf() + pos_, cur->len);
  size_t searched = 0;  // cur bytes before this hold no cut
  bool reader_eof = eof_;
  Status read_error;

  // Hand everything not yet merged back to the one-thread parser: buf_ gets
  // `from`'s bytes from `at` on, then the later segments' and cur's.
  std::deque<std::unique_ptr<SegmentJob>> in_flight;
  std::unique_ptr<SegmentPool> pool;
  auto take_over = [&](SegmentJob& from, size_t at) {
    pool.reset();  // joins the workers; later segments are dropped
    size_t total = from.len - at + cur->len - cur->begin;
    for (const auto& j : in_flight) total += (j.get() == &from) ? 0 : j->len - j->begin;
    std::vector<char> b(total + chunk_ + kPad);
    size_t n = 0;
    auto put = [&](const SegmentJob& j, size_t off) {
      std::memcpy(b.data() + n, j.bytes.data() + off, j.len - off);
      n += j.len - off;
    };
    put(from, at);
    for (const auto& j : in_flight)
      if (j.get() != &from) put(*j, j->begin);
    put(*cur, cur->begin);
    std::memset(b.data() + n, 0, kPad);
    buf_.swap(b);
    base_off_ = from.base + at;
    pos_ = 0;
    len_ = n;
    eof_ = reader_eof;
  };

  for (;;) {
    // Merge finished segments in order; wait for the oldest when enough are
    // queued (memory stays bounded) or when nothing is left to read.
    while (!in_flight.empty()) {
      SegmentJob& head = *in_flight.front();
      const bool must = in_flight.size() >= static_cast<size_t>(2 * threads_) || reader_eof ||
                        !read_error.ok();
      if (!must && !pool->Done(&head)) break;
      pool->Wait(&head);
      if (!head.status.ok()) return head.status;
      MergePart(head);
      switch (head.end) {
        case SegmentEnd::kBoundary:
          MaybeReserve(head.base + head.len);
          spare.push_back(std::move(in_flight.front()));
          in_flight.pop_front();
          continue;
        case SegmentEnd::kTruncated:
          return InvalidInput(fmt::format("{}: truncated JSON at byte {} (inside traceEvents, after event {})",
                                          in_.path(), head.base + head.len, event_index_));
        case SegmentEnd::kArrayEnd:
          take_over(head, head.end_pos);
          return Status::Ok();
        case SegmentEnd::kUnverified: {
          serial_fallback_ = true;
          ArrayState st = head.end_state;
          take_over(head, head.end_pos);
          return ParseEvents(st);
        }
      }
    }
    if (!read_error.ok()) return read_error;
    if (reader_eof) {
      if (pool == nullptr) {
        // The whole array fit in one segment: parse it here.
        buf_.swap(cur->bytes);
        base_off_ = cur->base;
        pos_ = cur->begin;
        len_ = cur->len;
        eof_ = true;
        return ParseEvents(ArrayState::kElem);
      }
      // The last segment; merging it ends the loop (a final segment stops at
      // ']', truncation or an error, never at a boundary).
      cur->final = true;
      in_flight.push_back(std::move(cur));
      pool->Submit(in_flight.back().get());
      cur = take_job();  // empty: take_over appends nothing from it
      continue;
    }
    // Read one chunk into cur. When cur holds only the last segment's tail,
    // the stream's next block becomes cur's buffer with the tail put in
    // front of it: a read-ahead stream hands over the buffer it inflated
    // into, so the bytes are not copied.
    size_t got = 0;
    const size_t tail = cur->len - cur->begin;
    if (tail <= kStreamBlockFront) {
      Status st = in_.ReadBlock(&block_, kStreamBlockFront, chunk_, kPad);
      if (!st.ok()) {
        read_error = st;
        if (pool == nullptr) return read_error;
        continue;
      }
      got = block_.end - block_.begin;
      if (got > 0) {
        const size_t at = block_.begin - tail;
        std::memcpy(block_.buf.data() + at, cur->bytes.data() + cur->begin, tail);
        cur->base = cur->base + cur->begin - at;
        cur->bytes.swap(block_.buf);  // the old buffer goes back with the next block
        cur->begin = at;
        cur->len = block_.end;
        searched = at;
      }
    } else {
      room(*cur, chunk_);
      Result<size_t> r = in_.Read(cur->bytes.data() + cur->len, chunk_);
      if (!r.ok()) {
        read_error = r.status();
        if (pool == nullptr) return read_error;
        continue;
      }
      got = *r;
      cur->len += got;
    }
    if (got == 0) {
      reader_eof = true;
      room(*cur, 0);
      std::memset(cur->bytes.data() + cur->len, 0, kPad);
      continue;
    }
    if (cur->len - cur->begin < segment_bytes_) continue;
    size_t cut = FindCut(cur->bytes.data(), cur->begin, searched, cur->len);
    if (cut == 0) {
      // One element longer than a segment: keep reading (a pattern may
      // straddle the end, so look at the last bytes again next time).
      searched = std::max(cur->begin, cur->len > 64 ? cur->len - 64 : 0);
      continue;
    }
    std::unique_ptr<SegmentJob> next = take_job();
    next->len = cur->len - cut;
    next->base = cur->base + cut;
    next->final = false;
    room(*next, 0);
    std::memcpy(next->bytes.data(), cur->bytes.data() + cut, next->len);
    cur->len = cut;
    cur->final = false;
    std::memset(cur->bytes.data() + cur->len, 0, kPad);
    searched = 0;
    if (pool == nullptr)
      pool = std::make_unique<SegmentPool>(threads_, [this](SegmentJob& j) { ParseSegment(j); });
    in_flight.push_back(std::move(cur));
    pool->Submit(in_flight.back().get());
    cur = std::move(next);
  }
}

Lex KinetoParser::IdValue(const char*& p, const char* end, int64_t* num, std::string_view* str) {
  if (*p == '"') return lex_.String(p, end, str);
  if (*p == '-' || IsDigit(*p)) {
    bool ok = false;
    Lex r = lex_.Int(p, end, num, &ok);
    if (r == Lex::kOk && !ok) *num = kMissingI64;
    return r;
  }
  return lex_.Skip(p, end, 1);
}

Lex KinetoParser::TimeValue(const char*& p, const char* end, int64_t* ns, bool* bad) {
  if (IsDigit(*p)) {
    // Fast path for "123" and "123.456": integer µs * 1000 + up to 3 fraction
    // digits; anything longer or stranger goes through MicrosTextToNs.
    const char* q = p;
    int64_t ip = 0;
    // Up to 16 digits: epoch µs (1.7e15) fit; the bound check keeps *1000 in int64.
    LeadingDigits(q, end, &ip);
    while (q < end && IsDigit(*q) && q - p < 16) ip = ip * 10 + (*q++ - '0');
    if (q == end) return Lex::kMore;
    int64_t frac = 0;
    bool simple = !IsNumChar(*q) && ip <= std::numeric_limits<int64_t>::max() / 1000 - 1;
    if (*q == '.') {
      const char* f = q + 1;
      int n = 0;
      while (f < end && IsDigit(*f) && n < 3) frac = frac * 10 + (*f++ - '0'), ++n;
      if (f == end) return Lex::kMore;
      if (n > 0 && !IsNumChar(*f) && ip <= std::numeric_limits<int64_t>::max() / 1000 - 1) {
        for (; n < 3; ++n) frac *= 10;
        simple = true;
        q = f;
      }
    }
    if (simple) {
      *ns = ip * 1000 + frac;
      p = q;
      return Lex::kOk;
    }
  }
  if (*p == '-' || IsDigit(*p)) {
    std::string_view t;
    Lex r = lex_.Number(p, end, &t);
    if (r != Lex::kOk) return r;
    if (!MicrosTextToNs(t, ns)) {
      *ns = kMissingI64;
      *bad = true;
    }
    return Lex::kOk;
  }
  // A string or other value where a number belongs: drop the event later.
  *bad = true;
  return lex_.Skip(p, end, 1);
}

// EventKey: the trace-event keys the importer reads.
// kEnd: no key, the event's '}' (the memo's SeparatorMemo::kEndKey).
enum class EventKey : uint8_t { kPh, kId, kTs, kCat, kDur, kPid, kTid, kName, kArgs, kOther, kEnd = 0xff };

// KeyWord: the bytes of `text` (at most 8, its NUL left out) as a
// little-endian word.
template <size_t N>
constexpr uint64_t KeyWord(const char (&text)[N]) {
  static_assert(N - 1 <= 8);
  uint64_t w = 0;
  for (size_t i = 0; i + 1 < N; ++i) w |= static_cast<uint64_t>(static_cast<unsigned char>(text[i])) << (8 * i);
  return w;
}

// MatchEventKey: p at a key's opening quote. When the key is one the
// importer reads, written plainly (no escapes), moves p past its closing
// quote and returns it: one 8-byte load and a masked compare (the key with
// its closing quote is at most 5 bytes), where the general path searched
// for the quote, then compared the text. kOther leaves p alone.
inline EventKey MatchEventKey(const char*& p, const char* end) {
  if (end - p < 7) return EventKey::kOther;  // the longest match reads p[1..5]
  uint64_t w;
  std::memcpy(&w, p + 1, 8);  // within the buffers' kPad padding
  EventKey k = EventKey::kOther;
  // take: whether the bytes after the quote are `key` (its closing quote
  // included); if so, k is `as` and p moves past them.
  auto take = [&]<size_t N>(const char (&key)[N], EventKey as) {
    constexpr uint64_t kMask = (uint64_t{1} << (8 * (N - 1))) - 1;
    if ((w & kMask) != KeyWord(key)) return false;
    k = as;
    p += N;  // the opening quote and the key's N - 1 bytes
    return true;
  };
  switch (static_cast<char>(w & 0xff)) {
    case 'p': take("ph\"", EventKey::kPh) || take("pid\"", EventKey::kPid); break;
    case 't': take("ts\"", EventKey::kTs) || take("tid\"", EventKey::kTid); break;
    case 'i': take("id\"", EventKey::kId); break;
    case 'c': take("cat\"", EventKey::kCat); break;
    case 'd': take("dur\"", EventKey::kDur); break;
    case 'n': take("name\"", EventKey::kName); break;
    case 'a': take("args\"", EventKey::kArgs); break;
    default: break;
  }
  return k;
}

// ClassifyEventKey: the same for a key's decoded text (escapes, or a key the
// fast match does not know).
EventKey ClassifyEventKey(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (Eq(key, "ph")) return EventKey::kPh;
      if (Eq(key, "id")) return EventKey::kId;
      if (Eq(key, "ts")) return EventKey::kTs;
      break;
    case 3:
      if (Eq(key, "cat")) return EventKey::kCat;
      if (Eq(key, "dur")) return EventKey::kDur;
      if (Eq(key, "pid")) return EventKey::kPid;
      if (Eq(key, "tid")) return EventKey::kTid;
      break;
    case 4:
      if (Eq(key, "name")) return EventKey::kName;
      if (Eq(key, "args")) return EventKey::kArgs;
      break;
    default:
      break;
  }
  return EventKey::kOther;
}

template <typename Key, typename ReadKey>
Lex KinetoParser::Separator(const char*& p, const char* end, bool first, const ObjectText& text,
                            ReadKey read_key, Key* k) {
  if (!SkipWs(p, end)) return Lex::kMore;
  if (*p == '}') {
    ++p;
    *k = Key::kEnd;
    return Lex::kOk;
  }
  if (!first) {
    if (*p != ',') return lex_.Error(p, text.comma_or_end);
    ++p;
    if (!SkipWs(p, end)) return Lex::kMore;
  }
  if (*p != '"') return lex_.Error(p, text.key);
  Lex r = read_key(p, end, k);
  if (r != Lex::kOk) return r;
  if (!SkipWs(p, end)) return Lex::kMore;
  if (*p != ':') return lex_.Error(p, text.colon);
  ++p;
  if (!SkipWs(p, end)) return Lex::kMore;
  return Lex::kOk;
}

template <typename Key, typename ReadKey>
[[gnu::always_inline]] inline Lex KinetoParser::NextKey(SeparatorMemo& memo,
                                                        const SeparatorMemo::Slot*& prev, int ctx,
                                                        bool first, const char*& p, const char* end,
                                                        const ObjectText& text, ReadKey read_key,
                                                        Key* k) {
  const SeparatorMemo::Slot* slot =
      prev != nullptr && end - p > static_cast<ptrdiff_t>(SeparatorMemo::kMaxLen)
          ? memo.Find(prev, ctx, p)
          : nullptr;
  if (slot != nullptr) {
    p += slot->len;
    *k = static_cast<Key>(slot->key);
  } else {
    const char* s = p;
    Lex r = Separator(p, end, first, text, read_key, k);
    if (r != Lex::kOk) return r;
    if (prev != nullptr) slot = memo.Learn(prev, ctx, s, p, static_cast<uint8_t>(*k));
  }
  prev = slot;
  return Lex::kOk;
}

Lex KinetoParser::ParseEvent(const char*& p, const char* end, RawEvent* ev) {
  ++p;  // '{'
  bool first = true;
  // prev: the memo slot of the last separator (Start() at the start). Past a
  // separator the memo could not keep (null), it stays off for the rest of the event.
  const SeparatorMemo::Slot* prev = learn_ ? event_memo_.Start() : nullptr;
  int ctx = PhContext(ev->ph);
  const auto read_key = [this](const char*& q, const char* e, EventKey* key) {
    *key = MatchEventKey(q, e);
    if (*key != EventKey::kOther) return Lex::kOk;
    std::string_view text;
    Lex r = lex_.String(q, e, &text);
    if (r == Lex::kOk) *key = ClassifyEventKey(text);
    return r;
  };
  for (;;) {
    EventKey k;
    Lex r = NextKey(event_memo_, prev, ctx, first, p, end, kEventText, read_key, &k);
    if (r != Lex::kOk) return r;
    if (k == EventKey::kEnd) return Lex::kOk;
    first = false;
    switch (k) {
      case EventKey::kPh:
        r = *p == '"' ? lex_.String(p, end, &ev->ph) : lex_.Skip(p, end, 1);
        ctx = PhContext(ev->ph);
        break;
      case EventKey::kId: {  // flow id (ac2g: the correlation id)
        std::string_view str;
        r = IdValue(p, end, &ev->id, &str);
        break;
      }
      case EventKey::kTs:
        r = TimeValue(p, end, &ev->ts_ns, &ev->ts_bad);
        break;
      case EventKey::kCat:
        r = *p == '"' ? lex_.String(p, end, &ev->cat) : lex_.Skip(p, end, 1);
        break;
      case EventKey::kDur:
        r = TimeValue(p, end, &ev->dur_ns, &ev->dur_bad);
        break;
      case EventKey::kPid: {
        if (learn_ && pid_memo_.Take(p, end, &ev->pid)) break;
        const char* s = p;
        std::string_view str;
        r = IdValue(p, end, &ev->pid, &str);
        if (r == Lex::kOk && IsValid(ev->pid)) pid_memo_.Learn(s, p, ev->pid);
        break;
      }
      case EventKey::kTid: {
        if (learn_ && tid_memo_.Take(p, end, &ev->tid)) break;
        const char* s = p;
        r = IdValue(p, end, &ev->tid, &ev->tid_str);
        if (r == Lex::kOk && IsValid(ev->tid)) tid_memo_.Learn(s, p, ev->tid);
        break;
      }
      case EventKey::kName:
        r = *p == '"' ? lex_.String(p, end, &ev->name) : lex_.Skip(p, end, 1);
        break;
      case EventKey::kArgs:
        if (*p == '{') {
          ev->has_args = true;
          ev->args_begin = p;
          r = ParseArgs(p, end, &ev->args, CatContext(ev->cat));
          ev->args_end = p;
        } else {
          ++ev->args.bad_type;
          r = lex_.Skip(p, end, 1);
        }
        break;
      case EventKey::kOther:
      case EventKey::kEnd:
        r = lex_.SkipValue(p, end, 1);
        break;
    }
    if (r != Lex::kOk) return r;
  }
}

Lex KinetoParser::ArgInt(const char*& p, const char* end, int64_t* out, Args* a) {
  if (*p == '-' || IsDigit(*p)) {
    bool ok = false;
    Lex r = lex_.Int(p, end, out, &ok);
    if (r == Lex::kOk && !ok) {
      *out = kMissingI64;
      ++a->bad_type;
    }
    return r;
  }
  if (*p == '"') {
    // ROCm traces write some numbers as strings ("bytes": "1024"): accept those.
    std::string_view t;
    Lex r = lex_.String(p, end, &t);
    if (r != Lex::kOk) return r;
    if (!ParseI64Text(t, out)) {
      *out = kMissingI64;
      ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p != 'n') ++a->bad_type;  // null is "missing", not a type error
  return lex_.Skip(p, end, 2);
}

Lex KinetoParser::ArgFloat(const char*& p, const char* end, float* out, bool* inf, Args* a) {
  if (*p == '-' || IsDigit(*p)) {
    std::string_view t;
    Lex r = lex_.Number(p, end, &t);
    if (r != Lex::kOk) return r;
    double d = 0;
    if (ParseF64Text(t, &d) && std::fabs(d) <= 3.0e38) {
      *out = static_cast<float>(d);
    } else {
      ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p == '"') {
    std::string_view s;
    Lex r = lex_.String(p, end, &s);
    if (r != Lex::kOk) return r;
    if (Eq(s, "inf") || Eq(s, "-inf") || Eq(s, "nan")) {
      *inf = true;
    } else {
      double d = 0;
      if (ParseF64Text(s, &d) && std::fabs(d) <= 3.0e38)
        *out = static_cast<float>(d);
      else
        ++a->bad_type;
    }
    return Lex::kOk;
  }
  if (*p != 'n') ++a->bad_type;
  return lex_.Skip(p, end, 2);
}

Lex KinetoParser::ArgStr(const char*& p, const char* end, std::string_view* out, Args* a) {
  if (*p == '"') return lex_.String(p, end, out);
  // Keep a non-string value (e.g. a ranks array) as its JSON text.
  const char* s = p;
  Lex r = lex_.Skip(p, end, 2);
  if (r != Lex::kOk) return r;
  if (*s == '[' || *s == '{' || *s == '-' || IsDigit(*s))
    *out = std::string_view(s, static_cast<size_t>(p - s));
  else if (*s != 'n')
    ++a->bad_type;
  return Lex::kOk;
}

Lex KinetoParser::ArgTriple(const char*& p, const char* end, int32_t* out, Args* a) {
  if (*p != '[') {
    if (*p != 'n') ++a->bad_type;
    return lex_.Skip(p, end, 2);
  }
  ++p;
  for (int i = 0;; ++i) {
    if (!SkipWs(p, end)) return Lex::kMore;
    if (*p == ']') {
      ++p;
      return Lex::kOk;
    }
    if (*p == '-' || IsDigit(*p)) {
      int64_t v = 0;
      bool ok = false;
      Lex r = lex_.Int(p, end, &v, &ok);  // Number + ParseI64Text past its digit fast path
      if (r != Lex::kOk) return r;
      if (i < 3) out[i] = ok ? ToI32(v) : kMissingI32;
    } else {
      Lex r = lex_.Skip(p, end, 3);
      if (r != Lex::kOk) return r;
      ++a->bad_type;
    }
    if (!SkipWs(p, end)) return Lex::kMore;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == ']') {
      ++p;
      return Lex::kOk;
    }
    return lex_.Error(p, "expected ',' or ']'");
  }
}

// ArgKey: the args keys the importer reads; kEnd: the args' '}' (the memo's
// SeparatorMemo::kEndKey).
enum class ArgKey : uint8_t {
  kOther, kSeq, kCbid, kGrid, kName, kBlock, kBytes, kDtype, kDevice, kStream, kLabels,
  kGraphId, kToDevice, kInputDims, kInputType, kFromDevice, kGroupSize, kCorrelation,
  kExternalId, kWarpsPerSm, kSharedMemory, kBlocksPerSm, kInputStrides, kInMsgNelems,
  kSyncKind, kWaitOnStream, kOutMsgNelems, kConcreteInputs, kCollectiveName, kPgName,
  kPgRanks, kRegs, kWaitOnEventId, kOccupancy, kPgDesc, kEnd = 0xff,
};

ArgKey ClassifyArgKey(std::string_view k) {
  using enum ArgKey;
  switch (k.size()) {
    case 3:
      if (Eq(k, "Seq")) return kSeq;
      break;
    case 4:
      if (Eq(k, "cbid")) return kCbid;
      if (Eq(k, "grid")) return kGrid;
      if (Eq(k, "name")) return kName;
      break;
    case 5:
      if (Eq(k, "block")) return kBlock;
      if (Eq(k, "bytes")) return kBytes;
      if (Eq(k, "dtype")) return kDtype;
      break;
    case 6:
      if (Eq(k, "device")) return kDevice;
      if (Eq(k, "stream")) return kStream;
      if (Eq(k, "labels")) return kLabels;
      break;
    case 8:
      if (Eq(k, "graph id")) return kGraphId;
      if (Eq(k, "toDevice")) return kToDevice;
      break;
    case 10:
      if (Eq(k, "Input Dims")) return kInputDims;
      if (Eq(k, "Input type")) return kInputType;
      if (Eq(k, "fromDevice")) return kFromDevice;
      if (Eq(k, "Group size")) return kGroupSize;
      break;
    case 11:
      if (Eq(k, "correlation")) return kCorrelation;
      if (Eq(k, "External id") || Eq(k, "external id")) return kExternalId;
      break;
    case 12:
      if (Eq(k, "warps per SM")) return kWarpsPerSm;
      break;
    case 13:
      if (Eq(k, "shared memory")) return kSharedMemory;
      if (Eq(k, "blocks per SM")) return kBlocksPerSm;
      if (Eq(k, "Input Strides")) return kInputStrides;
      if (Eq(k, "In msg nelems")) return kInMsgNelems;
      break;
    case 14:
      if (Eq(k, "cuda_sync_kind")) return kSyncKind;
      if (Eq(k, "wait_on_stream")) return kWaitOnStream;
      if (Eq(k, "Out msg nelems")) return kOutMsgNelems;
      break;
    case 15:
      if (Eq(k, "Concrete Inputs")) return kConcreteInputs;
      if (Eq(k, "Collective name")) return kCollectiveName;
      break;
    case 18:
      if (Eq(k, "Process Group Name")) return kPgName;
      break;
    case 19:
      if (Eq(k, "Process Group Ranks")) return kPgRanks;
      break;
    case 20:
      if (Eq(k, "registers per thread")) return kRegs;
      break;
    case 21:
      if (Eq(k, "wait_on_cuda_event_id")) return kWaitOnEventId;
      break;
    case 25:
      if (Eq(k, "est. achieved occupancy %")) return kOccupancy;
      if (Eq(k, "Process Group Description")) return kPgDesc;
      break;
    default:
      break;
  }
  return kOther;
}

// ArgIntRepeat: ArgInt, replaying the field's last value when its digits
// are at p again (IntMemo).
Lex KinetoParser::ArgIntRepeat(IntMemo& memo, const char*& p, const char* end, int64_t* out, Args* a) {
  if (learn_ && memo.Take(p, end, out)) return Lex::kOk;
  const char* s = p;
  Lex r = ArgInt(p, end, out, a);
  if (r == Lex::kOk && IsValid(*out)) memo.Learn(s, p, *out);
  return r;
}

// ArgValue: the value of args key `k` at p.
Lex KinetoParser::ArgValue(ArgKey k, const char*& p, const char* end, Args* a) {
  using enum ArgKey;
  switch (k) {
    case kSeq: return ArgInt(p, end, &a->seq, a);
    case kCbid: return ArgIntRepeat(cbid_memo_, p, end, &a->cbid, a);
    case kGrid: return ArgTriple(p, end, a->grid, a);
    case kName: return ArgStr(p, end, &a->meta_name, a);
    case kBlock: return ArgTriple(p, end, a->block, a);
    case kBytes: return ArgInt(p, end, &a->bytes, a);
    case kDtype: return ArgStr(p, end, &a->dtype, a);
    case kDevice: return ArgIntRepeat(device_memo_, p, end, &a->device, a);
    case kStream: return ArgIntRepeat(stream_memo_, p, end, &a->stream, a);
    case kLabels: return ArgStr(p, end, &a->labels, a);
    case kGraphId: return ArgInt(p, end, &a->graph_id, a);
    case kToDevice: return ArgInt(p, end, &a->to_device, a);
    case kInputDims: return ArgRaw(p, end, &a->input_dims);
    case kInputType: return ArgRaw(p, end, &a->input_types);
    case kFromDevice: return ArgInt(p, end, &a->from_device, a);
    case kGroupSize:
      a->has_collective = true;
      return ArgInt(p, end, &a->group_size, a);
    case kCorrelation: return ArgInt(p, end, &a->correlation, a);
    case kExternalId: return ArgInt(p, end, &a->external_id, a);
    case kWarpsPerSm: return ArgFloat(p, end, &a->warps_per_sm, &a->inf_occupancy, a);
    case kSharedMemory: return ArgInt(p, end, &a->smem, a);
    case kBlocksPerSm: return ArgFloat(p, end, &a->blocks_per_sm, &a->inf_occupancy, a);
    case kInputStrides: return ArgRaw(p, end, &a->input_strides);
    case kInMsgNelems:
      a->has_collective = true;
      return ArgInt(p, end, &a->in_nelems, a);
    case kSyncKind: return ArgStr(p, end, &a->sync_kind, a);
    case kWaitOnStream: return ArgInt(p, end, &a->wait_on_stream, a);
    case kOutMsgNelems:
      a->has_collective = true;
      return ArgInt(p, end, &a->out_nelems, a);
    case kConcreteInputs: return ArgRaw(p, end, &a->concrete_inputs);
    case kCollectiveName:
      a->has_collective = true;
      return ArgStr(p, end, &a->coll_name, a);
    case kPgName: return ArgStr(p, end, &a->pg_name, a);
    case kPgRanks: return ArgStr(p, end, &a->pg_ranks, a);
    case kRegs: return ArgInt(p, end, &a->regs, a);
    case kWaitOnEventId: return ArgInt(p, end, &a->event_id, a);
    case kOccupancy: {
      bool dummy = false;
      return ArgFloat(p, end, &a->occupancy, &dummy, a);
    }
    case kPgDesc: return ArgStr(p, end, &a->pg_desc, a);
    case kOther:
    case kEnd:
      break;
  }
  return lex_.SkipValue(p, end, 2);
}

Lex KinetoParser::ParseArgs(const char*& p, const char* end, Args* a, int ctx) {
  ++p;  // '{'
  bool first = true;
  const SeparatorMemo::Slot* prev = learn_ ? args_memo_.Start() : nullptr;  // as in ParseEvent
  const auto read_key = [this](const char*& q, const char* e, ArgKey* key) {
    std::string_view text;
    Lex r = lex_.String(q, e, &text);
    if (r == Lex::kOk) *key = ClassifyArgKey(text);
    return r;
  };
  for (;;) {
    ArgKey k;
    Lex r = NextKey(args_memo_, prev, ctx, first, p, end, kArgsText, read_key, &k);
    if (r != Lex::kOk) return r;
    if (k == ArgKey::kEnd) return Lex::kOk;
    first = false;
    r = ArgValue(k, p, end, a);
    if (r != Lex::kOk) return r;
  }
}

// ---- Mapping parsed events into the model ----

void KinetoParser::Commit(RawEvent& ev) {
  if (ev.ph.size() != 1) {
    trace_.stats.Bump(ImportStat::unknown_phase);
    return;
  }
  switch (ev.ph[0]) {
    case 'X':
      CommitComplete(ev);
      return;
    case 'i':
    case 'I': {
      if (!IsValid(ev.ts_ns)) {
        trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
        return;
      }
      if (!PlausibleTimeNs(ev.ts_ns)) {
        trace_.stats.Bump(ImportStat::time_out_of_range);
        return;
      }
      model::MarkerRow m;
      m.pid = ToI32(ev.pid);
      m.tid = ev.tid;
      m.ts_ns = ev.ts_ns;
      m.name = trace_.strings.Intern(ev.name);
      m.domain = trace_.strings.Intern(ev.cat);
      trace_.markers.Append(m);
      min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
      return;
    }
    case 'C':
      CommitCounter(ev);
      return;
    case 'M':
      CommitMetadata(ev);
      return;
    case 's':
      if (Eq(ev.cat, "ac2g") && IsValid(ev.id)) trace_.info.ac2g_flow_ids.push_back(ev.id);
      trace_.stats.Bump(ImportStat::flow_event);
      return;
    case 'f':
    case 't':
      trace_.stats.Bump(ImportStat::flow_event);
      return;
    case 'b':
    case 'e':
    case 'n':
      return;  // async events: nothing in Kineto output needs them
    default:
      trace_.stats.Bump(ImportStat::unknown_phase);
      return;
  }
}

void KinetoParser::AddRange(const RawEvent& ev, RangeKind kind, int32_t step) {
  model::RangeRow r;
  r.pid = ToI32(ev.pid);
  r.tid = ev.tid;
  r.start_ns = ev.ts_ns;
  r.end_ns = ev.ts_ns + ev.dur_ns;
  r.name = trace_.strings.Intern(ev.name);
  r.kind = kind;
  r.external_id = ev.args.external_id;
  r.step = step;
  if (kind == RangeKind::kCpuOp) {
    // Shapes are copied verbatim; the analysis parses them (FLOPs, bytes).
    const Args& a = ev.args;
    if (!a.input_dims.empty()) r.input_dims = trace_.strings.Intern(a.input_dims);
    if (!a.input_types.empty()) r.input_types = trace_.strings.Intern(a.input_types);
    if (!a.input_strides.empty()) r.input_strides = trace_.strings.Intern(a.input_strides);
    if (!a.concrete_inputs.empty()) r.concrete_inputs = trace_.strings.Intern(a.concrete_inputs);
  }
  if (kind == RangeKind::kGpuUserAnnotation) {
    r.device_id = ToI32(IsValid(ev.args.device) ? ev.args.device : ev.pid);
    r.stream_id = IsValid(ev.args.stream) ? ev.args.stream
                  : IsValid(ev.tid)       ? ev.tid
                                          : StreamFromTid(ev.tid_str);
    r.pid = kMissingI32;
    r.tid = kMissingI64;
  }
  trace_.ranges.Append(r);
}

void KinetoParser::CommitComplete(RawEvent& ev) {
  if (!IsValid(ev.ts_ns)) {
    trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  if (!IsValid(ev.dur_ns)) {
    trace_.stats.Bump(ev.dur_bad ? ImportStat::bad_field_type : ImportStat::missing_dur);
    return;
  }
  if (ev.dur_ns < 0) {
    trace_.stats.Bump(ImportStat::negative_dur);
    ev.dur_ns = 0;
  }
  int64_t end_check = 0;
  if (__builtin_add_overflow(ev.ts_ns, ev.dur_ns, &end_check)) {
    trace_.stats.Bump(ImportStat::bad_field_type);  // absurd ts+dur past int64 ns
    return;
  }
  if (!PlausibleTimeNs(ev.ts_ns) || !PlausibleTimeNs(end_check)) {
    trace_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  const Args& a = ev.args;
  if (a.bad_type) trace_.stats.Bump(ImportStat::bad_arg_type);
  Cat cat = ClassifyCat(ev.cat);
  int32_t step = ParseStepNumber(ev.name);
  min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
  int64_t end_ns = ev.ts_ns + ev.dur_ns;

  auto device_of = [&]() -> int32_t {
    if (IsValid(a.device)) return ToI32(a.device);
    trace_.stats.Bump(ImportStat::missing_device);
    return ToI32(ev.pid);
  };
  auto stream_of = [&]() -> int64_t {
    if (IsValid(a.stream)) return a.stream;
    trace_.stats.Bump(ImportStat::missing_stream);
    return IsValid(ev.tid) ? ev.tid : StreamFromTid(ev.tid_str);
  };
  auto note_corr = [&]() {
    if (!IsValid(a.correlation)) trace_.stats.Bump(ImportStat::missing_correlation);
  };

  switch (cat) {
    case Cat::kKernel: {
      model::KernelRow k;
      k.device_id = device_of();
      k.stream_id = stream_of();
      k.start_ns = ev.ts_ns;
      k.end_ns = end_ns;
      k.correlation_id = a.correlation;
      note_corr();
      k.external_id = a.external_id;
      k.name = trace_.strings.Intern(ev.name);
      k.grid_x = a.grid[0];
      k.grid_y = a.grid[1];
      k.grid_z = a.grid[2];
      k.block_x = a.block[0];
      k.block_y = a.block[1];
      k.block_z = a.block[2];
      k.registers_per_thread = ToI32(a.regs);
      k.shared_mem_bytes = ToI32(a.smem);
      k.blocks_per_sm = a.blocks_per_sm;
      k.warps_per_sm = a.warps_per_sm;
      if (a.inf_occupancy) trace_.stats.Bump(ImportStat::inf_occupancy_arg);
      k.est_occupancy_pct = a.occupancy;
      k.graph_id = a.graph_id;
      uint32_t row = trace_.kernels.Append(k);
      if (a.has_collective) {
        model::CollectiveRow c;
        c.kernel_row = row;
        c.collective_name = trace_.strings.Intern(a.coll_name);
        c.in_msg_nelems = a.in_nelems;
        c.out_msg_nelems = a.out_nelems;
        c.group_size = ToI32(a.group_size);
        c.dtype = trace_.strings.Intern(a.dtype);
        c.process_group_name = trace_.strings.Intern(a.pg_name);
        c.process_group_desc = trace_.strings.Intern(a.pg_desc);
        c.process_group_ranks = trace_.strings.Intern(a.pg_ranks);
        c.seq = a.seq;
        trace_.collectives.Append(c);
      }
      return;
    }
    case Cat::kMemcpy: {
      model::MemcpyRow m;
      m.device_id = device_of();
      m.stream_id = stream_of();
      m.start_ns = ev.ts_ns;
      m.end_ns = end_ns;
      m.correlation_id = a.correlation;
      note_corr();
      m.external_id = a.external_id;
      m.bytes = a.bytes;
      if (!ParseMemcpyName(ev.name, &m.copy_kind, &m.src_kind, &m.dst_kind) ||
          m.src_kind == MemoryKind::kUnknown || m.dst_kind == MemoryKind::kUnknown)
        trace_.stats.Bump(ImportStat::unknown_memcpy_kind);
      if (IsValid(a.from_device) || IsValid(a.to_device)) {
        m.src_device_id = ToI32(a.from_device);
        m.dst_device_id = ToI32(a.to_device);
        if (m.copy_kind == CopyKind::kUnknown) m.copy_kind = CopyKind::kPtoP;
      }
      m.graph_id = a.graph_id;
      trace_.memcpys.Append(m);
      return;
    }
    case Cat::kMemset: {
      model::MemsetRow m;
      m.device_id = device_of();
      m.stream_id = stream_of();
      m.start_ns = ev.ts_ns;
      m.end_ns = end_ns;
      m.correlation_id = a.correlation;
      note_corr();
      m.external_id = a.external_id;
      m.bytes = a.bytes;
      size_t open = ev.name.find('(');
      size_t close = ev.name.rfind(')');
      if (open != std::string_view::npos && close != std::string_view::npos && close > open)
        m.dst_kind = ParseMemoryKind(ev.name.substr(open + 1, close - open - 1));
      m.graph_id = a.graph_id;
      trace_.memsets.Append(m);
      return;
    }
    case Cat::kRuntime:
    case Cat::kDriver:
    case Cat::kOtherApi: {
      model::ApiRow r;
      r.pid = ToI32(ev.pid);
      r.tid = ev.tid;
      r.start_ns = ev.ts_ns;
      r.end_ns = end_ns;
      r.correlation_id = a.correlation;
      note_corr();
      r.external_id = a.external_id;
      r.name = trace_.strings.Intern(ev.name);
      r.cbid = ToI32(a.cbid);
      r.kind = cat == Cat::kRuntime  ? ApiKind::kRuntime
               : cat == Cat::kDriver ? ApiKind::kDriver
                                     : ApiKind::kOther;
      if (ev.name.size() >= 3 && ev.name.substr(0, 3) == "hip") saw_hip_ = true;
      else if (ev.name.size() >= 2 && ev.name.substr(0, 2) == "cu") saw_cuda_ = true;
      trace_.api_calls.Append(r);
      return;
    }
    case Cat::kSync: {
      model::SyncRow s;
      s.device_id = device_of();
      s.stream_id = IsValid(a.stream) && a.stream >= 0 ? a.stream : kMissingI64;
      s.start_ns = ev.ts_ns;
      s.end_ns = end_ns;
      s.correlation_id = a.correlation;
      s.kind = ParseSyncKind(a.sync_kind.empty() ? ev.name : a.sync_kind);
      s.event_id = a.event_id;
      s.wait_on_stream_id = IsValid(a.wait_on_stream) && a.wait_on_stream >= 0 ? a.wait_on_stream
                                                                                : kMissingI64;
      trace_.syncs.Append(s);
      return;
    }
    case Cat::kCpuOp:
      AddRange(ev, RangeKind::kCpuOp, step);
      return;
    case Cat::kUserAnnotation:
      AddRange(ev, RangeKind::kUserAnnotation, step);
      return;
    case Cat::kGpuUserAnnotation:
      AddRange(ev, RangeKind::kGpuUserAnnotation, step);
      return;
    case Cat::kPython:
      AddRange(ev, RangeKind::kPythonFunction, step);
      return;
    case Cat::kUnknown:
      if (IsValid(step)) {
        AddRange(ev, RangeKind::kUserAnnotation, step);
        return;
      }
      // The profiler's capture span (TB plugin draws its utilization timeline over it).
      if (Eq(ev.cat, "Trace") && ev.name.starts_with("PyTorch Profiler") && IsValid(end_ns)) {
        model::TraceInfo& info = trace_.info;
        info.capture_start_ns = IsValid(info.capture_start_ns)
                                    ? std::min(info.capture_start_ns, ev.ts_ns) : ev.ts_ns;
        info.capture_end_ns = IsValid(info.capture_end_ns)
                                  ? std::max(info.capture_end_ns, end_ns) : end_ns;
        return;
      }
      trace_.stats.Bump(ImportStat::unknown_category);
      return;
  }
}

void KinetoParser::CommitMetadata(const RawEvent& ev) {
  trace_.stats.Bump(ImportStat::metadata_event);
  std::string_view value = ev.args.meta_name;
  if (Eq(ev.name, "process_name")) {
    int32_t pid = ToI32(ev.pid);
    if (!IsValid(pid)) return;
    StringId name = trace_.strings.Intern(value);
    for (model::Process& pr : trace_.processes) {
      if (pr.pid == pid) {
        pr.name = name;
        return;
      }
    }
    trace_.processes.push_back({pid, name});
  } else if (Eq(ev.name, "thread_name")) {
    int32_t pid = ToI32(ev.pid);
    int64_t stream = StreamFromTid(value);
    if (IsValid(stream) && IsValid(pid) && IsValid(ev.tid)) {
      // GPU rows are named "stream N" (pid = device); Kineto's sync rows
      // ("stream N (sync)") have no number-only suffix and stay threads.
      // The name is interned even for a repeated stream, so that which
      // strings an event interns depends on the event alone (MergePart).
      StringId name = trace_.strings.Intern(value);
      for (const model::Stream& s : trace_.streams)
        if (s.device_id == pid && s.stream_id == stream) return;
      model::Stream s;
      s.device_id = pid;
      s.stream_id = stream;
      s.name = name;
      trace_.streams.push_back(s);
      return;
    }
    if (!IsValid(ev.tid)) return;
    StringId name = trace_.strings.Intern(value);
    for (model::Thread& t : trace_.threads) {
      if (t.pid == pid && t.tid == ev.tid) {
        t.name = name;
        return;
      }
    }
    trace_.threads.push_back({pid, ev.tid, name});
  }
}

void KinetoParser::CommitCounter(const RawEvent& ev) {
  if (!IsValid(ev.ts_ns)) {
    trace_.stats.Bump(ev.ts_bad ? ImportStat::bad_field_type : ImportStat::missing_ts);
    return;
  }
  if (!PlausibleTimeNs(ev.ts_ns)) {
    trace_.stats.Bump(ImportStat::time_out_of_range);
    return;
  }
  if (!ev.has_args) return;
  trace_.stats.Bump(ImportStat::counter_event);
  min_ts_ns_ = std::min(min_ts_ns_, ev.ts_ns);
  // Re-read the args: every numeric member is one series "name/key" (the
  // args object is still in the buffer, so this costs one small pass).
  const char* p = ev.args_begin + 1;
  const char* end = ev.args_end;
  std::string key_buf;
  while (SkipWs(p, end) && *p != '}') {
    if (*p == ',') {
      ++p;
      continue;
    }
    std::string_view key;
    if (lex_.String(p, end, &key, &key_buf) != Lex::kOk) return;
    std::string key_copy(key);
    if (!SkipWs(p, end) || *p != ':') return;
    ++p;
    if (!SkipWs(p, end)) return;
    double value = kMissingF64;
    if (*p == '-' || IsDigit(*p)) {
      std::string_view t;
      if (lex_.Number(p, end, &t) != Lex::kOk) return;
      if (!ParseF64Text(t, &value)) value = kMissingF64;
    } else {
      if (lex_.Skip(p, end, 2) != Lex::kOk) return;
      trace_.stats.Bump(ImportStat::non_numeric_value);
    }
    counter_key_.assign(ev.name);
    counter_key_ += '\x1f';
    counter_key_ += key_copy;
    counter_key_ += '\x1f';
    counter_key_ += std::to_string(ev.pid);
    auto it = counter_index_.find(counter_key_);
    size_t idx;
    if (it == counter_index_.end()) {
      idx = trace_.counters.size();
      model::CounterSeries s;
      std::string series_name(ev.name);
      if (key_copy != ev.name) series_name += "/" + key_copy;
      s.name = trace_.strings.Intern(series_name);
      // Kineto puts GPU rows at pid = device index.
      if (IsValid(ev.pid) && ev.pid >= 0 && ev.pid < 64) s.device_id = static_cast<int32_t>(ev.pid);
      s.source = trace_.strings.Intern("kineto counter");
      trace_.counters.push_back(std::move(s));
      counter_index_.emplace(counter_key_, idx);
    } else {
      idx = it->second;
    }
    trace_.counters[idx].ts_ns.push_back(ev.ts_ns);
    trace_.counters[idx].value.push_back(value);
  }
}

void KinetoParser::ApplyDevices(const JVal& arr) {
  for (const JVal& d : arr.items) {
    if (d.type != JVal::kObj) {
      trace_.stats.Bump(ImportStat::bad_field_type);
      continue;
    }
    auto num = [&](std::initializer_list<const char*> names) -> int64_t {
      for (const char* n : names) {
        const JVal* v = d.Get(n);
        int64_t x = 0;
        if (v != nullptr && v->type == JVal::kNum && ParseI64Text(v->text, &x)) return x;
      }
      return kMissingI64;
    };
    int32_t id = ToI32(num({"id"}));
    if (!IsValid(id)) {
      trace_.stats.Bump(ImportStat::bad_field_type);
      continue;
    }
    model::Device& dev = trace_.GetOrAddDevice(id);
    if (const JVal* n = d.Get("name"); n != nullptr && n->type == JVal::kStr)
      dev.name = trace_.strings.Intern(n->text);
    dev.sm_count = ToI32(num({"numSms", "multiProcessorCount"}));
    dev.cc_major = ToI32(num({"computeMajor", "major"}));
    dev.cc_minor = ToI32(num({"computeMinor", "minor"}));
    dev.total_memory_bytes = num({"totalGlobalMem"});
    dev.max_threads_per_sm = ToI32(num({"maxThreadsPerMultiprocessor", "maxThreadsPerMultiProcessor"}));
    dev.max_threads_per_block = ToI32(num({"maxThreadsPerBlock"}));
    dev.max_blocks_per_sm = ToI32(num({"maxBlocksPerMultiprocessor", "maxBlocksPerMultiProcessor"}));
    dev.regs_per_sm = ToI32(num({"regsPerMultiprocessor", "regsPerMultiProcessor"}));
    dev.regs_per_block = ToI32(num({"regsPerBlock"}));
    dev.smem_per_sm_bytes = num({"sharedMemPerMultiprocessor", "sharedMemPerMultiProcessor"});
    dev.smem_per_block_bytes = num({"sharedMemPerBlock"});
    dev.smem_per_block_optin_bytes = num({"sharedMemPerBlockOptin"});
    dev.warp_size = ToI32(num({"warpSize"}));
    std::string_view name = trace_.Str(dev.name);
    if (ContainsNoCase(name, "AMD") || ContainsNoCase(name, "Radeon") ||
        ContainsNoCase(name, "Instinct"))
      dev.vendor = model::Vendor::kAmd;
    else if (!name.empty())
      dev.vendor = model::Vendor::kNvidia;
  }
}

void KinetoParser::ApplyDistributed(const JVal& obj) {
  auto num = [&](const char* k) -> int32_t {
    const JVal* v = obj.Get(k);
    int64_t x = 0;
    if (v != nullptr && v->type == JVal::kNum && ParseI64Text(v->text, &x)) return ToI32(x);
    return kMissingI32;
  };
  trace_.rank.rank = num("rank");
  trace_.rank.world_size = num("world_size");
  trace_.rank.pg_count = num("pg_count");
  if (const JVal* b = obj.Get("backend"); b != nullptr && b->type == JVal::kStr)
    trace_.rank.backend = trace_.strings.Intern(b->text);
}

void KinetoParser::Finish() {
  if (bad_utf8_total_) trace_.stats.Bump(ImportStat::invalid_utf8, bad_utf8_total_);
  trace_.info.format = "kineto-json";
  trace_.info.base_time_ns = base_time_ns_;
  // Relative timestamps (Kineto since 2024) are small; absolute epoch µs are
  // past 1973 in ns. Only shift the former, so a file with both is not doubled.
  constexpr int64_t kEpochFloorNs = int64_t{100'000'000} * kNsPerS;
  bool shift = IsValid(base_time_ns_) && base_time_ns_ != 0 &&
               (min_ts_ns_ == std::numeric_limits<int64_t>::max() || min_ts_ns_ < kEpochFloorNs);
  if (shift) {
    const int64_t b = base_time_ns_;
    uint64_t out_of_range = 0;
    auto add = [b, &out_of_range](std::vector<int64_t>& col) {
      for (int64_t& v : col)
        // A time the base moves past int64 or kMaxAbsTimeNs (absurd, fuzzed
        // values) becomes missing, not wrapped.
        if (IsValid(v) && (__builtin_add_overflow(v, b, &v) || !PlausibleTimeNs(v))) {
          v = kMissingI64;
          ++out_of_range;
        }
    };
    add(trace_.kernels.start_ns), add(trace_.kernels.end_ns);
    add(trace_.memcpys.start_ns), add(trace_.memcpys.end_ns);
    add(trace_.memsets.start_ns), add(trace_.memsets.end_ns);
    add(trace_.api_calls.start_ns), add(trace_.api_calls.end_ns);
    add(trace_.syncs.start_ns), add(trace_.syncs.end_ns);
    add(trace_.ranges.start_ns), add(trace_.ranges.end_ns);
    add(trace_.markers.ts_ns);
    for (model::CounterSeries& s : trace_.counters) add(s.ts_ns);
    for (int64_t* v : {&trace_.info.capture_start_ns, &trace_.info.capture_end_ns})
      if (IsValid(*v) && (__builtin_add_overflow(*v, b, v) || !PlausibleTimeNs(*v)))
        *v = kMissingI64;
    if (out_of_range > 0) trace_.stats.Bump(ImportStat::time_out_of_range, out_of_range);
  }
  trace_.Finalize();
  // Vendor for devices known only from events (or unnamed): HIP calls mean AMD.
  for (model::Device& d : trace_.devices) {
    if (d.vendor != model::Vendor::kUnknown) continue;
    if (saw_hip_) d.vendor = model::Vendor::kAmd;
    else if (saw_cuda_) d.vendor = model::Vendor::kNvidia;
  }
  // The tables' growth left spare capacity. A small model copies its tables
  // to exact size: the old blocks go back to the heap, which the analysis
  // reuses. A large one gives the spare pages back without copying (the copy
  // was the import's peak). Measured on the bench traces, 16 and 4 interleaved
  // warm runs: 10x (a 97 MB model) copying 0.365 s median, releasing 0.40 s;
  // 100x (971 MB) the same time either way, releasing 1.31-1.33 M KiB peak
  // against 1.36-1.39 M KiB.
  if (trace_.memory_bytes() <= model::kLargeModelBytes)
    trace_.ForEachEventTable([](auto& table) { table.ShrinkToFit(); });
  else
    trace_.ForEachEventTable([](auto& table) { table.ReleaseSpareCapacity(); });
}

}  // namespace

bool MicrosTextToNs(std::string_view t, int64_t* ns) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
    neg = t[i] == '-';
    ++i;
  }
  uint64_t ip = 0;
  size_t int_digits = 0;
  while (i < t.size() && IsDigit(t[i])) {
    if (ip > 922'337'203'685'477ull) return false;  // ip*1000 would overflow int64
    ip = ip * 10 + static_cast<uint64_t>(t[i] - '0');
    ++i;
    ++int_digits;
  }
  uint64_t frac = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && IsDigit(t[i])) {
      if (frac_digits < 3) frac = frac * 10 + static_cast<uint64_t>(t[i] - '0');
      else if (frac_digits == 3) round_up = t[i] >= '5';
      ++frac_digits;
      ++i;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    // Rare exponent form: a double is as exact as the text allows here.
    std::string copy(t);
    char* endp = nullptr;
    long double v = std::strtold(copy.c_str(), &endp);
    if (endp != copy.c_str() + copy.size() || !std::isfinite(v)) return false;
    long double x = v * 1000.0L;
    if (x > 9.2e18L || x < -9.2e18L) return false;
    *ns = static_cast<int64_t>(std::llroundl(x));
    return true;
  }
  if (i != t.size()) return false;
  for (size_t k = frac_digits; k < 3; ++k) frac *= 10;
  uint64_t v = ip * 1000 + frac + (round_up ? 1 : 0);
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  *ns = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool LooksLikeKineto(std::string_view prefix) {
  size_t i = 0;
  if (prefix.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  while (i < prefix.size() && IsWs(prefix[i])) ++i;
  if (i >= prefix.size()) return false;
  if (prefix[i] == '[') {
    // Chrome's bare-array form: claimed so the importer can say why it refuses it.
    size_t j = prefix.find_first_not_of(" \t\r\n", i + 1);
    return j != std::string_view::npos && prefix[j] == '{' &&
           prefix.find("\"ph\"") != std::string_view::npos;
  }
  if (prefix[i] != '{') return false;
  for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                               "\"computeProperties\"", "\"baseTimeNanoseconds\""}) {
    if (prefix.find(key) != std::string_view::npos) return true;
  }
  return false;
}

Status ReadKinetoStream(InputStream& in, const KinetoOptions& options, model::Trace& trace,
                        KinetoScanStats* scan) {
  KinetoParser parser(in, options, trace);
  Status st = parser.Run();
  if (!st.ok() && in.compressed() && st.message().find("gzip") == std::string::npos) {
    // Corrupt deflate data often still decodes to garbage bytes, and the
    // parser trips on them before the CRC check at the member's end. The
    // gzip error is the true cause, so drain the stream to look for it.
    std::vector<char> sink(size_t{1} << 20);
    for (;;) {
      Result<size_t> got = in.Read(sink.data(), sink.size());
      if (!got.ok()) {
        st = got.status();
        break;
      }
      if (*got == 0) break;
    }
  }
  if (scan != nullptr) {
    scan->trace_events = parser.events();
    scan->json_bytes = parser.bytes();
    scan->reserve_factor = parser.reserve_factor();
    scan->segments = parser.segments();
    scan->serial_fallback = parser.serial_fallback();
    scan->jax_layout = parser.jax_layout();
  }
  return st;
}

Status KinetoImporter::Read(const SourceInfo& src, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(src.path, options_.stream));
  KinetoScanStats scan;
  Status st = ReadKinetoStream(*in, options_, trace, &scan);
  if (!st.ok() && scan.jax_layout) {
    // A JAX/XLA profile whose device names came after the sniffed prefix:
    // its dialect reads it from the start.
    trace = model::Trace();
    in.reset();
    ASSIGN_OR_RETURN(std::unique_ptr<InputStream> again, OpenInputStream(src.path));
    st = ReadJaxTraceStream(*again, trace);
  }
  RETURN_IF_ERROR(st);
  trace.info.source_path = src.path;
  return Status::Ok();
}

}  // namespace gpuwhy::import
