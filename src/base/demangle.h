// Kernel/function symbol names: Itanium C++ demangling and readable abbreviation.
//
// Contract: pure functions of the text; nothing throws (allocation failure
// aside) and nothing keeps global state. ROCm Kineto traces and some nsys
// exports carry mangled names (`_ZN7ck_tile6kentry...`); CUDA Kineto traces
// already carry demangled ones. Demangle() leaves anything that is not a
// mangled symbol unchanged, so it is safe on every name.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gpuwhy {

// IsMangledName: `name` is an Itanium-mangled symbol (`_Z...`), optionally
// after a leading "void " (how some tools print kernel names).
bool IsMangledName(std::string_view name);

// Demangle: the demangled text of a mangled `name` (abi::__cxa_demangle); a
// leading "void " is kept once. When the demangler rejects a real symbol
// (libstdc++ lags new manglings such as DF16b), a partial form: the qualified
// function name and the identifiers of its template arguments,
// "ck_tile::kentry<Rmsnorm2dFwd, ...>". `name` unchanged when it is not
// mangled, when not even the function name can be read, or when it is longer
// than kMaxDemangleInput.
std::string Demangle(std::string_view name);

// Why a cap: the demangler recurses on nested templates; a hostile name of
// megabytes must not exhaust the stack. Real kernel symbols are < 8 KiB.
inline constexpr size_t kMaxDemangleInput = 64 * 1024;

// AbbreviateSymbol: `demangled` shortened to about `max_chars` for a terminal,
// keeping the qualified function name readable. Steps, each only while the
// text is still too long: drop a leading "void ", replace the parameter list
// with "(…)", elide template arguments nested deeper than one level as "<…>",
// keep only the first template argument ("f<4, …>"), then elide all of them,
// dropping leading namespaces in both, then cut with "…".
// Returns `demangled` as is
// when it already fits. Lengths count bytes; the "…" marker is UTF-8.
std::string AbbreviateSymbol(std::string_view demangled, size_t max_chars);

// DemangleMemo: Demangle() once per distinct string.
//
// Contract: Get(name) returns the demangled text of `name`. For a name that
// is not mangled it returns `name` itself (no copy), so the view stays valid
// as long as the caller's storage; for a mangled one it points into the memo
// and stays valid for the memo's lifetime. Not thread-safe: one memo per
// thread or per analysis pass.
class DemangleMemo {
 public:
  std::string_view Get(std::string_view name);
  // size: number of mangled names demangled so far.
  size_t size() const { return cache_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> cache_;
};

}  // namespace gpuwhy
