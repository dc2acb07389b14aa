#include "report/json/json_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "base/units.h"

namespace gpuwhy::report {

namespace {

// Utf8SequenceLength: length of the valid UTF-8 sequence at s[i], or 0.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t cp = 0;
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) { len = 2; cp = b & 0x1F; }
  else if ((b & 0xF0) == 0xE0) { len = 3; cp = b & 0x0F; }
  else if ((b & 0xF8) == 0xF0) { len = 4; cp = b & 0x07; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Reject overlong forms, surrogates and out-of-range code points.
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return len;
}

}  // namespace

void JsonWriter::AppendEscaped(std::string& o, std::string_view s) {
  o.push_back('"');
  for (size_t i = 0; i < s.size();) {
    // Runs of printable ASCII without quote or backslash go in one append.
    size_t run = i;
    while (run < s.size()) {
      auto r = static_cast<unsigned char>(s[run]);
      if (r < 0x20 || r >= 0x80 || r == '"' || r == '\\') break;
      ++run;
    }
    if (run > i) {
      o.append(s.data() + i, run - i);
      i = run;
      continue;
    }
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': o += "\\\""; ++i; continue;
      case '\\': o += "\\\\"; ++i; continue;
      case '\b': o += "\\b"; ++i; continue;
      case '\f': o += "\\f"; ++i; continue;
      case '\n': o += "\\n"; ++i; continue;
      case '\r': o += "\\r"; ++i; continue;
      case '\t': o += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20) {
      fmt::format_to(std::back_inserter(o), "\\u{:04x}", c);
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      o += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
      ++i;
      continue;
    }
    o.append(s.substr(i, len));
    i += len;
  }
  o.push_back('"');
}

std::string JsonWriter::EscapeString(std::string_view s) {
  std::string o;
  AppendEscaped(o, s);
  return o;
}

JsonWriter::~JsonWriter() { Flush(); }

void JsonWriter::Flush() {
  if (buf_.empty()) return;
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void JsonWriter::Done() {
  // Whole documents reach the stream at once; long ones in 64 KiB pieces.
  if (stack_.empty() || buf_.size() >= (size_t{1} << 16)) Flush();
}

void JsonWriter::Newline() {
  if (compact_) return;
  buf_.push_back('\n');
  buf_.append(2 * stack_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (!stack_.back().empty) buf_.push_back(',');
    stack_.back().empty = false;
    Newline();
  }
}

void JsonWriter::BeginObject() {
  BeforeValue();
  buf_.push_back('{');
  stack_.push_back({true, true});
}

void JsonWriter::EndObject() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  buf_.push_back('}');
  if (stack_.empty() && !compact_) buf_.push_back('\n');
  Done();
}

void JsonWriter::BeginArray() {
  BeforeValue();
  buf_.push_back('[');
  stack_.push_back({false, true});
}

void JsonWriter::EndArray() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  buf_.push_back(']');
  if (stack_.empty() && !compact_) buf_.push_back('\n');
  Done();
}

void JsonWriter::Key(std::string_view key) {
  if (!stack_.back().empty) buf_.push_back(',');
  stack_.back().empty = false;
  Newline();
  AppendEscaped(buf_, key);
  buf_.append(compact_ ? ":" : ": ");
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendEscaped(buf_, s);
  Done();
}

void JsonWriter::StringOrNull(std::string_view s) {
  if (s.empty()) {
    Null();
  } else {
    String(s);
  }
}

void JsonWriter::Int(int64_t v) {
  if (!IsValid(v)) return Null();
  BeforeValue();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
  Done();
}

void JsonWriter::Int32(int32_t v) {
  if (!IsValid(v)) return Null();
  BeforeValue();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
  Done();
}

void JsonWriter::Uint(uint64_t v) {
  BeforeValue();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
  Done();
}

void JsonWriter::Double(double v, int decimals) {
  if (!std::isfinite(v)) return Null();
  BeforeValue();
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s == "-0" || s.find_first_not_of("-0.") == std::string::npos) s = s[0] == '-' ? s.substr(1) : s;
  buf_.append(s);
  Done();
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  buf_.append(v ? "true" : "false");
  Done();
}

void JsonWriter::Scaled(int64_t v, int decimals) {
  if (!IsValid(v)) return Null();
  BeforeValue();
  if (decimals <= 0) {
    fmt::format_to(std::back_inserter(buf_), "{}", v);
    Done();
    return;
  }
  decimals = decimals > 9 ? 9 : decimals;
  int64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // Magnitude as unsigned so INT64_MIN+1 (the smallest valid value) cannot overflow.
  const bool negative = v < 0;
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const auto uscale = static_cast<uint64_t>(scale);
  fmt::format_to(std::back_inserter(buf_), "{}{}.{:0{}}", negative ? "-" : "", mag / uscale,
                 mag % uscale, decimals);
  Done();
}

void JsonWriter::Null() {
  BeforeValue();
  buf_.append("null");
  Done();
}

}  // namespace gpuwhy::report
