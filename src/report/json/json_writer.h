// JsonWriter: a small streaming JSON writer with deterministic output.
//
// Contract: produces valid JSON when calls are balanced (Begin/End pairs, Key
// before each value inside objects). Strings are escaped per RFC 8259
// (control characters as \u00XX; invalid UTF-8 bytes become U+FFFD).
// Non-finite doubles and kMissing* integers are written as null. Output is
// pretty-printed with 2-space indentation and "\n" line ends, or, with
// Style::kCompact (large files such as the Perfetto trace), one line with no
// spaces.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy::report {

class JsonWriter {
 public:
  enum class Style : uint8_t { kPretty, kCompact };
  explicit JsonWriter(std::ostream& out, Style style = Style::kPretty)
      : out_(out), compact_(style == Style::kCompact) {}
  // Output is buffered: a value at the top level reaches `out` when it is
  // complete, a long document every 64 KiB, the rest on Flush() or destruction.
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  void Flush();

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // Key: the name of the next value (inside an object only).
  void Key(std::string_view key);

  void String(std::string_view s);
  // StringOrNull: null when `s` is empty (for "unknown" text fields).
  void StringOrNull(std::string_view s);
  void Int(int64_t v);            // null for kMissingI64
  void Int32(int32_t v);          // null for kMissingI32
  void Uint(uint64_t v);
  // Double: fixed `decimals` places; null when not finite.
  void Double(double v, int decimals);
  void Bool(bool v);
  void Null();
  // Scaled: v / 10^decimals written exactly from the integer (no rounding
  // through a double: epoch ns / 1000 has 19 significant digits); null for
  // kMissingI64. decimals is 0..9.
  void Scaled(int64_t v, int decimals);

  // Field helpers: Key() then the value.
  void Field(std::string_view key, std::string_view v) { Key(key); String(v); }
  void FieldInt(std::string_view key, int64_t v) { Key(key); Int(v); }
  void FieldInt32(std::string_view key, int32_t v) { Key(key); Int32(v); }
  void FieldDouble(std::string_view key, double v, int decimals) { Key(key); Double(v, decimals); }
  void FieldBool(std::string_view key, bool v) { Key(key); Bool(v); }
  void FieldScaled(std::string_view key, int64_t v, int decimals) { Key(key); Scaled(v, decimals); }

  // EscapeString: `s` as a quoted JSON string literal.
  static std::string EscapeString(std::string_view s);

 private:
  void BeforeValue();
  void Newline();
  void Done();  // after each value: flush a finished document or a full buffer
  static void AppendEscaped(std::string& o, std::string_view s);

  std::ostream& out_;
  std::string buf_;
  struct Level {
    bool object = false;
    bool empty = true;
  };
  std::vector<Level> stack_;
  bool compact_ = false;
  bool after_key_ = false;
};

}  // namespace gpuwhy::report
