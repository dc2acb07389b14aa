// ShellWord: a string quoted as one POSIX shell word, for the commands the
// report importers print (`nsys export ...`, `ncu --import ...`) so that they
// can be pasted.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace gpuwhy::import {

// ShellWord: `s` unchanged when it holds only characters no shell treats
// specially (letters, digits, / . _ - + : @ ,), else single-quoted with any
// ' written as '\''.
inline std::string ShellWord(std::string_view s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '@' ||
           c == ',';
  });
  if (plain) return std::string(s);
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace gpuwhy::import
