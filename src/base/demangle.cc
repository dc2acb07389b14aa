#include "base/demangle.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

namespace gpuwhy {

namespace {

constexpr std::string_view kVoid = "void ";
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // "…"

bool IsOpen(char c) { return c == '<' || c == '(' || c == '[' || c == '{'; }
bool IsClose(char c) { return c == '>' || c == ')' || c == ']' || c == '}'; }

// ParameterListStart: index of the '(' opening the trailing top-level
// parameter list ("f<T>(int, float) const"), or npos. Brackets of every kind
// nest; an unbalanced name has none.
size_t ParameterListStart(std::string_view s) {
  int depth = 0;
  size_t last_open = std::string_view::npos, last_close = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsOpen(s[i])) {
      if (depth == 0 && s[i] == '(') last_open = i;
      ++depth;
    } else if (IsClose(s[i])) {
      if (--depth < 0) return std::string_view::npos;
      if (depth == 0 && s[i] == ')') last_close = i;
    }
  }
  if (depth != 0 || last_open == std::string_view::npos || last_close == std::string_view::npos)
    return std::string_view::npos;
  // Only qualifiers may follow the list ("const", "volatile", "&").
  std::string_view tail = s.substr(last_close + 1);
  for (char c : tail)
    if (!(c == ' ' || c == '&' || (c >= 'a' && c <= 'z'))) return std::string_view::npos;
  // "(anonymous namespace)" is a scope, not a parameter list.
  if (s.substr(last_open).starts_with("(anonymous namespace)")) return std::string_view::npos;
  return last_open;
}

// ElideTemplates: template argument lists at angle depth > keep_depth become "<…>".
std::string ElideTemplates(std::string_view s, int keep_depth) {
  std::string out;
  out.reserve(s.size());
  int depth = 0;
  for (char c : s) {
    if (c == '<') {
      ++depth;
      if (depth == keep_depth + 1) {
        out += '<';
        out += kEllipsis;
      }
      if (depth <= keep_depth) out += c;
      continue;
    }
    if (c == '>' && depth > 0) {
      if (depth <= keep_depth || depth == keep_depth + 1) out += '>';
      --depth;
      continue;
    }
    if (depth <= keep_depth) out += c;
  }
  return out;
}

// TopLevelScope: index of the first "::" outside any brackets, or npos.
size_t TopLevelScope(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (IsOpen(s[i])) ++depth;
    if (IsClose(s[i])) --depth;
    if (depth == 0 && s[i] == ':' && s[i + 1] == ':') return i;
  }
  return std::string::npos;
}

// FirstTemplateArgOnly: the outermost template argument lists cut after
// their first argument: "f<4, A<…>, B<…> >" -> "f<4, …>".
std::string FirstTemplateArgOnly(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  int angle = 0, paren = 0;
  bool skipping = false;
  for (char c : s) {
    if (c == '<') ++angle;
    if (c == '>') {
      if (angle == 1 && skipping) {
        skipping = false;
        out += kEllipsis;
      }
      --angle;
    }
    if (c == '(' || c == '[' || c == '{') ++paren;
    if (c == ')' || c == ']' || c == '}') --paren;
    if (skipping) continue;
    out += c;
    if (c == ',' && angle == 1 && paren == 0) {
      out += ' ';
      skipping = true;
    }
  }
  return out;
}

// DropNamespaces: when `s` does not fit, all its leading scopes removed
// ("at::native::(anonymous namespace)::f<…>" -> "f<…>"); half a scope chain
// reads worse than none.
std::string DropNamespaces(std::string s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  for (size_t p = TopLevelScope(s); p != std::string::npos; p = TopLevelScope(s)) s.erase(0, p + 2);
  return s;
}

// HardCut: `s` cut to max_chars bytes on a UTF-8 code point boundary, ending in "…".
std::string HardCut(std::string s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars > kEllipsis.size() ? max_chars - kEllipsis.size() : 0;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  s += kEllipsis;
  return s;
}

// IsGenericLauncher: `s` (no leading scopes) is a kernel template that only
// launches its argument: Kernel<...>, Kernel2<...>, device_kernel<...>, kentry<...>.
bool IsGenericLauncher(std::string_view s) {
  for (std::string_view l : {"Kernel<", "Kernel2<", "device_kernel<", "kentry<"})
    if (s.starts_with(l)) return true;
  return false;
}

// Balanced: every angle bracket closes (so eliding templates is safe).
bool AnglesBalanced(std::string_view s) {
  int depth = 0;
  for (char c : s) {
    if (c == '<') ++depth;
    if (c == '>' && --depth < 0) return false;
  }
  return depth == 0;
}

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

// ReadSourceName: at `i`, an Itanium <source-name> (<length><identifier>);
// on success advances `i` and returns the identifier, else returns "".
std::string_view ReadSourceName(std::string_view m, size_t& i) {
  size_t j = i, len = 0;
  while (j < m.size() && IsDigitChar(m[j]) && len < 100000)
    len = len * 10 + static_cast<size_t>(m[j++] - '0');
  if (j == i || len == 0 || j + len > m.size() || !IsIdentStart(m[j])) return {};
  for (size_t k = j; k < j + len; ++k)
    if (!IsIdentChar(m[k])) return {};
  i = j + len;
  return m.substr(j, len);
}

std::string ReadableIdent(std::string_view id) {
  return id.starts_with("_GLOBAL__N") ? std::string("(anonymous namespace)") : std::string(id);
}

// PartialDemangle: for a symbol the demangler rejects (each demangler
// misses some real kernel manglings: libstdc++ 12 has no DF16b, binutils
// 2.40 trips on some CUTLASS names), the qualified function name followed by
// the identifiers of its template arguments in order, e.g.
// "ck_tile::kentry<Rmsnorm2dFwd, Rmsnorm2dFwdPipelineOnePass, ...>". Readable
// and keeps every word the kernel taxonomy matches on; "" when even the
// function name cannot be read.
std::string PartialDemangle(std::string_view m) {
  size_t i = 2;  // after "_Z"
  std::vector<std::string_view> qual;
  if (i < m.size() && m[i] == 'N') {
    ++i;
    while (i < m.size() &&
           (m[i] == 'r' || m[i] == 'V' || m[i] == 'K' || m[i] == 'R' || m[i] == 'O'))
      ++i;
    while (i < m.size()) {
      if (IsDigitChar(m[i])) {
        std::string_view id = ReadSourceName(m, i);
        if (id.empty()) break;
        qual.push_back(id);
      } else if (m.substr(i).starts_with("St")) {
        qual.push_back("std");
        i += 2;
      } else if (m[i] == 'S') {  // a substitution: its text is not at hand
        const size_t end = m.find('_', i);
        if (end == std::string_view::npos) break;
        i = end + 1;
      } else {
        break;
      }
    }
  } else {
    std::string_view id = ReadSourceName(m, i);
    if (!id.empty()) qual.push_back(id);
  }
  if (qual.empty()) return {};
  std::string out;
  for (std::string_view q : qual) out += (out.empty() ? "" : "::") + ReadableIdent(q);
  // The identifiers of the rest, skipping literals (Li128E), substitutions
  // and template parameters (S0_, T1_), vector/float types (Dv4_, DF16_) and
  // arrays (A10_), whose digits are not name lengths.
  std::vector<std::string_view> args;
  while (i < m.size()) {
    const char c = m[i];
    if (c == 'L' && i + 1 < m.size() && m[i + 1] >= 'a' && m[i + 1] <= 'z') {
      size_t j = i + 2;
      if (j < m.size() && m[j] == 'n') ++j;
      while (j < m.size() && IsDigitChar(m[j])) ++j;
      if (j < m.size() && m[j] == 'E') {
        i = j + 1;
        continue;
      }
    }
    if (IsDigitChar(c)) {
      const char prev = i > 0 ? m[i - 1] : '\0';
      const bool not_a_length =
          prev == 'S' || prev == 'T' || prev == 'A' || prev == 'v' || prev == 'F' || prev == 't';
      if (!not_a_length) {
        std::string_view id = ReadSourceName(m, i);
        if (!id.empty()) {
          if (std::find(qual.begin(), qual.end(), id) == qual.end() &&
              std::find(args.begin(), args.end(), id) == args.end())
            args.push_back(id);
          continue;
        }
      }
      while (i < m.size() && IsDigitChar(m[i])) ++i;
      continue;
    }
    ++i;
  }
  if (!args.empty()) {
    out += '<';
    for (size_t k = 0; k < args.size(); ++k) out += (k ? ", " : "") + ReadableIdent(args[k]);
    out += '>';
  }
  return out;
}

}  // namespace

bool IsMangledName(std::string_view name) {
  if (name.starts_with(kVoid)) name.remove_prefix(kVoid.size());
  return name.size() > 2 && name[0] == '_' && name[1] == 'Z';
}

std::string Demangle(std::string_view name) {
  if (!IsMangledName(name) || name.size() > kMaxDemangleInput) return std::string(name);
  std::string_view symbol = name;
  const bool had_void = symbol.starts_with(kVoid);
  if (had_void) symbol.remove_prefix(kVoid.size());
  const std::string input(symbol);  // __cxa_demangle needs a NUL-terminated string
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), &std::free);
  std::string text;
  if (status == 0 && out != nullptr) {
    text = out.get();
  } else {
    text = PartialDemangle(input);
    if (text.empty()) return std::string(name);
  }
  if (had_void && !std::string_view(text).starts_with(kVoid)) text.insert(0, kVoid);
  return text;
}

std::string AbbreviateSymbol(std::string_view demangled, size_t max_chars) {
  std::string s(demangled);
  if (s.size() <= max_chars) return s;
  if (std::string_view(s).starts_with(kVoid)) s.erase(0, kVoid.size());
  if (s.size() <= max_chars) return s;
  if (size_t p = ParameterListStart(s); p != std::string::npos) {
    s.erase(p);
    s += "(";
    s += kEllipsis;
    s += ")";
    if (s.size() <= max_chars) return s;
  }
  if (AnglesBalanced(s)) {
    s = ElideTemplates(s, 1);
    if (s.size() <= max_chars) return s;
    // The first template argument usually names the work (kentry<Rmsnorm2dFwd, …>).
    std::string first = DropNamespaces(FirstTemplateArgOnly(s), max_chars);
    if (first.size() <= max_chars) return first;
    // A generic launcher (cutlass::Kernel<X>, device_kernel<X>) is named by
    // its argument: cut that rather than hide it.
    if (IsGenericLauncher(first)) return HardCut(std::move(first), max_chars);
    s = DropNamespaces(ElideTemplates(s, 0), max_chars);
    if (s.size() <= max_chars) return s;
  }
  return HardCut(std::move(s), max_chars);
}

std::string_view DemangleMemo::Get(std::string_view name) {
  if (!IsMangledName(name)) return name;
  auto it = cache_.find(name);
  if (it == cache_.end()) it = cache_.emplace(std::string(name), Demangle(name)).first;
  return it->second;
}

}  // namespace gpuwhy
