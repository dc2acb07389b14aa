// The JSON lexer under the Chrome Trace Event tokenizer
// (chrome_stream_tokenizer.h): SWAR digit and whitespace helpers, a token
// layer over one buffer window that says when a token runs past it, a mini
// DOM for small top-level values, and the memos that replay what repeats from
// event to event (separators, the gap between events, repeated integers).
// Internal to the tokenizer and its dialects (import/chrome, import/kineto).
//
// Contract: every Lexer step over [p, end) completes (kOk, p past the
// token), needs more bytes (kMore, p unchanged: refill and retry from the
// token's start) or records an error (kError, err_at / err_what). Buffers
// carry kPad readable bytes after `end` (word loads look past it).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/units.h"
#include "import/chrome/chrome_trace_tokenizer.h"  // FastDecimal, MicrosTextToNs

namespace gpuwhy::import::chrome_lex {

// Padding after the data in the chunk buffer, so small look-aheads stay in bounds.
inline constexpr size_t kPad = 64;
inline constexpr int kMaxDepth = 256;

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
[[gnu::noinline]] inline bool SkipWsRun(const char*& p, const char* end) {
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
inline bool ParseI64Text(std::string_view t, int64_t* out) {
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


inline bool ParseF64Text(std::string_view t, double* out) {
  if (t.empty()) return false;
  if (FastDecimal(t, out)) return true;
  // from_chars rejects a leading '+', which JSON never has anyway.
  auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

inline void AppendUtf8(std::string* s, uint32_t cp) {
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

inline int Hex4(const char* p) {
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

}  // namespace gpuwhy::import::chrome_lex
