// ASCII case folding for names, keywords and SQL: bytes outside A-Z / a-z
// pass through unchanged, whatever the process locale (the watch TUI sets
// one), so that UTF-8 kernel names are never altered byte by byte.
#pragma once

#include <string>
#include <string_view>

namespace gpuwhy {

// AsciiLower: `s` with A-Z mapped to a-z; every other byte unchanged.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// AsciiUpper: `s` with a-z mapped to A-Z; every other byte unchanged.
inline std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

}  // namespace gpuwhy
