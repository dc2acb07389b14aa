#include "import/chrome/chrome_trace_tokenizer.h"

#include <charconv>
#include <utility>
#include <string>

#include <fmt/format.h>
#include <simdjson.h>

#include "import/kineto/kineto_importer.h"  // MicrosTextToNs

namespace gpuwhy::import {

namespace {

namespace od = simdjson::ondemand;

bool ChromeIsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string_view ChromeTrimWs(std::string_view t) {
  while (!t.empty() && ChromeIsWs(t.back())) t.remove_suffix(1);
  while (!t.empty() && ChromeIsWs(t.front())) t.remove_prefix(1);
  return t;
}

// ChromeParseInt: the whole of `t` as an integer (optional '-').
bool ChromeParseInt(std::string_view t, int64_t* out) {
  t = ChromeTrimWs(t);
  if (t.empty()) return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

// ChromeReadAll: the whole decompressed stream, with simdjson's padding
// reserved after it.
Status ChromeReadAll(InputStream& in, std::string* out) {
  // A plain file is read in one buffer sized for it and the padding (no
  // reallocation, no copy); gzip grows by doubling.
  size_t cap = in.compressed() ? size_t{1} << 20
                               : static_cast<size_t>(in.raw_size()) + 1 + simdjson::SIMDJSON_PADDING;
  out->resize(std::max<size_t>(cap, 4096));
  size_t len = 0;
  for (;;) {
    if (len == out->size()) out->resize(out->size() * 2);
    ASSIGN_OR_RETURN(size_t got, in.Read(out->data() + len, out->size() - len));
    if (got == 0) break;
    len += got;
  }
  out->resize(len);  // keeps the capacity
  if (out->capacity() < len + simdjson::SIMDJSON_PADDING) out->reserve(len + simdjson::SIMDJSON_PADDING);
  return Status::Ok();
}

// ChromeScanString: i at an opening quote; past the closing one. False at a
// bad byte (*i there) or at the end (*i == size).
bool ChromeScanString(std::string_view s, size_t* i) {
  size_t j = *i + 1;
  while (j < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[j]);
    if (c == '"') {
      *i = j + 1;
      return true;
    }
    if (c < 0x20) {
      *i = j;
      return false;
    }
    j += c == '\\' ? 2 : 1;
  }
  *i = s.size();
  return false;
}

bool ChromeIsDigit(char c) { return c >= '0' && c <= '9'; }

// ChromeScanNumber: a JSON number at *i; false (and *i at the bad byte) when
// malformed.
bool ChromeScanNumber(std::string_view s, size_t* i) {
  size_t j = *i;
  auto digits = [&]() {
    size_t k = j;
    while (j < s.size() && ChromeIsDigit(s[j])) ++j;
    return j > k;
  };
  if (j < s.size() && s[j] == '-') ++j;
  if (!digits()) {
    *i = j;
    return false;
  }
  if (j < s.size() && s[j] == '.') {
    ++j;
    if (!digits()) {
      *i = j;
      return false;
    }
  }
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    ++j;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (!digits()) {
      *i = j;
      return false;
    }
  }
  *i = j;
  return true;
}

// ChromeIdOf: pid/tid/id from a number or a string.
void ChromeIdOf(od::value& v, od::json_type t, ChromeId* id) {
  id->present = true;
  if (t == od::json_type::number) {
    int64_t n = 0;
    if (v.get_int64().get(n) == simdjson::SUCCESS) {
      id->num = n;
    } else {
      id->str = ChromeTrimWs(v.raw_json_token());
    }
    return;
  }
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return;
    id->str = s;
    int64_t n = 0;
    if (ChromeParseInt(s, &n)) id->num = n;
  }
}

// ChromeTimeOf: ts/dur as µs text (a number, or a string holding one) to ns.
void ChromeTimeOf(od::value& v, od::json_type t, int64_t* ns, bool* bad,
                  std::string_view* text_out) {
  std::string_view text;
  if (t == od::json_type::number) {
    text = ChromeTrimWs(v.raw_json_token());
  } else if (t == od::json_type::string) {
    if (v.get_string().get(text) != simdjson::SUCCESS) text = {};
    text = ChromeTrimWs(text);
  }
  *text_out = text;
  if (text.empty() || !MicrosTextToNs(text, ns)) {
    *ns = kMissingI64;
    *bad = true;
  }
}

// ChromeStringOf: a string field; other types leave it empty.
void ChromeStringOf(od::value& v, od::json_type t, std::string_view* out) {
  if (t != od::json_type::string) return;
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) *out = s;
}

class ChromeTokenizer {
 public:
  ChromeTokenizer(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                  const ChromeEventFn& fn)
      : in_(in), stats_(stats), doc_(doc), fn_(fn) {}

  Status Run();

 private:
  Status JsonError(simdjson::error_code e, const char* at) const;
  Status Events(od::array& arr);
  simdjson::error_code Event(od::object& obj, ChromeEvent* ev);

  InputStream& in_;
  model::ImportStats& stats_;
  ChromeDocument* doc_;
  const ChromeEventFn& fn_;
  std::string text_;
  std::string_view json_;  // text_ after a byte-order mark
  std::vector<ChromeArg> args_;
};

Status ChromeTokenizer::JsonError(simdjson::error_code e, const char* at) const {
  std::string what;
  size_t off = ChromeJsonErrorOffset(json_, &what);
  const size_t bom = static_cast<size_t>(json_.data() - text_.data());
  if (off != std::string_view::npos) {
    if (what == "truncated")
      return InvalidInput(fmt::format("{}: truncated JSON at byte {} (the events end early)",
                                      in_.path(), off + bom));
    return InvalidInput(fmt::format("{}: invalid JSON at byte {}: {}", in_.path(), off + bom, what));
  }
  // The scanner found no syntax error: simdjson's own (UTF-8, depth, ...).
  size_t at_off = at != nullptr && at >= json_.data() && at <= json_.data() + json_.size()
                      ? static_cast<size_t>(at - json_.data())
                      : json_.size();
  return InvalidInput(fmt::format("{}: invalid JSON at byte {}: {}", in_.path(), at_off + bom,
                                  simdjson::error_message(e)));
}

simdjson::error_code ChromeTokenizer::Event(od::object& obj, ChromeEvent* ev) {
  args_.clear();
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return e;
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    od::value v = field.value();
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (key.size() == 4 && key == "args") {
      {
        ev->has_args = true;
        if (t != od::json_type::object) {
          ev->args_bad = true;
          continue;
        }
        od::object a;
        if (auto e = v.get_object().get(a)) return e;
        for (auto arg_result : a) {
          od::field af;
          if (auto e = std::move(arg_result).get(af)) return e;
          ChromeArg arg;
          if (auto e = af.unescaped_key().get(arg.key)) return e;
          od::value av = af.value();
          od::json_type at;
          if (auto e = av.type().get(at)) return e;
          if (at == od::json_type::string) {
            if (auto e = av.get_string().get(arg.text)) return e;
            arg.is_string = true;
          } else if (at == od::json_type::object) {
            od::object o;
            if (auto e = av.get_object().get(o)) return e;
            if (auto e = o.raw_json().get(arg.text)) return e;
          } else if (at == od::json_type::array) {
            od::array arr;
            if (auto e = av.get_array().get(arr)) return e;
            if (auto e = arr.raw_json().get(arg.text)) return e;
          } else {
            arg.text = ChromeTrimWs(av.raw_json_token());
          }
          args_.push_back(arg);
        }
      }
      continue;
    }
    switch (key.size()) {
      case 2:
        if (key == "ph") ChromeStringOf(v, t, &ev->ph);
        else if (key == "ts") ChromeTimeOf(v, t, &ev->ts_ns, &ev->ts_bad, &ev->ts_text);
        else if (key == "id") ChromeIdOf(v, t, &ev->id);
        else if (key == "bp") ChromeStringOf(v, t, &ev->bp);
        break;
      case 3:
        if (key == "cat") ChromeStringOf(v, t, &ev->cat);
        else if (key == "dur") ChromeTimeOf(v, t, &ev->dur_ns, &ev->dur_bad, &ev->dur_text);
        else if (key == "pid") ChromeIdOf(v, t, &ev->pid);
        else if (key == "tid") ChromeIdOf(v, t, &ev->tid);
        break;
      case 4:
        if (key == "name") ChromeStringOf(v, t, &ev->name);
        break;
      default:
        break;
    }
  }
  ev->args = args_;
  return simdjson::SUCCESS;
}

Status ChromeTokenizer::Events(od::array& arr) {
  uint64_t index = 0;
  for (auto elem_result : arr) {
    od::value v;
    if (auto e = std::move(elem_result).get(v)) return JsonError(e, nullptr);
    od::json_type t;
    if (auto e = v.type().get(t)) return JsonError(e, nullptr);
    ++doc_->events;
    if (t != od::json_type::object) {
      stats_.Bump(model::ImportStat::malformed_event);
      ++index;
      continue;
    }
    od::object obj;
    if (auto e = v.get_object().get(obj)) return JsonError(e, nullptr);
    ChromeEvent ev;
    ev.index = index++;
    if (auto e = Event(obj, &ev)) return JsonError(e, nullptr);
    fn_(ev);
  }
  return Status::Ok();
}

Status ChromeTokenizer::Run() {
  RETURN_IF_ERROR(ChromeReadAll(in_, &text_));
  doc_->json_bytes = text_.size();
  json_ = text_;
  if (json_.substr(0, 3) == "\xEF\xBB\xBF") json_.remove_prefix(3);
  size_t first = 0;
  while (first < json_.size() && ChromeIsWs(json_[first])) ++first;
  if (first == json_.size())
    return InvalidInput(in_.path() + (json_.empty() ? ": empty input (no JSON value)"
                                                    : ": no JSON value (only whitespace)"));
  const size_t bom = static_cast<size_t>(json_.data() - text_.data());
  if (json_[first] != '{' && json_[first] != '[')
    return InvalidInput(fmt::format(
        "{}: not a Chrome trace (the top-level JSON value is neither an object nor an array, at "
        "byte {})",
        in_.path(), first + bom));
  od::parser parser;
  od::document doc;
  simdjson::padded_string_view padded(json_.data(), json_.size(),
                                      text_.capacity() - bom);
  if (auto e = parser.iterate(padded).get(doc)) return JsonError(e, nullptr);
  if (json_[first] == '[') {
    doc_->array_form = true;
    od::array arr;
    if (auto e = doc.get_array().get(arr)) return JsonError(e, nullptr);
    RETURN_IF_ERROR(Events(arr));
  } else {
    od::object top;
    if (auto e = doc.get_object().get(top)) return JsonError(e, nullptr);
    bool saw_events = false;
    for (auto field_result : top) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return JsonError(e, nullptr);
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return JsonError(e, nullptr);
      doc_->top_keys.emplace_back(key);
      od::value v = field.value();
      od::json_type t;
      if (auto e = v.type().get(t)) return JsonError(e, nullptr);
      if (key == "traceEvents") {
        const char* at = nullptr;
        if (v.current_location().get(at) != simdjson::SUCCESS) at = nullptr;
        if (t != od::json_type::array) {
          size_t off = at != nullptr ? static_cast<size_t>(at - json_.data()) + bom : 0;
          return InvalidInput(
              fmt::format("{}: traceEvents is not an array (at byte {})", in_.path(), off));
        }
        od::array arr;
        if (auto e = v.get_array().get(arr)) return JsonError(e, nullptr);
        RETURN_IF_ERROR(Events(arr));
        saw_events = true;
      } else if (key == "displayTimeUnit" && t == od::json_type::string) {
        std::string_view u;
        if (v.get_string().get(u) == simdjson::SUCCESS) doc_->display_time_unit = std::string(u);
      }
    }
    if (!saw_events)
      return InvalidInput(in_.path() + ": JSON object has no traceEvents array (not a Chrome trace)");
  }
  // simdjson stops at the end of the top value; only whitespace may follow.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) {
    std::string what;
    size_t off = ChromeJsonErrorOffset(json_, &what);
    if (off == std::string_view::npos) off = json_.size();
    return InvalidInput(fmt::format("{}: invalid JSON at byte {}: {}", in_.path(), off + bom,
                                    what.empty() ? "unexpected data after the top-level value"
                                                 : what));
  }
  return Status::Ok();
}

}  // namespace

const ChromeArg* ChromeEvent::Arg(std::string_view key) const {
  for (const ChromeArg& a : args)
    if (a.key == key) return &a;
  return nullptr;
}

std::string_view ChromeEvent::ArgText(std::string_view key) const {
  const ChromeArg* a = Arg(key);
  return a != nullptr ? a->text : std::string_view();
}

int64_t ChromeEvent::ArgInt(std::string_view key) const {
  const ChromeArg* a = Arg(key);
  int64_t v = 0;
  if (a == nullptr || !ChromeParseInt(a->text, &v)) return kMissingI64;
  return v;
}

size_t ChromeJsonErrorOffset(std::string_view s, std::string* what) {
  enum class St : uint8_t { kValue, kValueOrEnd, kAfter, kKey, kKeyOrEnd, kColon };
  std::vector<char> stack;
  St st = St::kValue;
  size_t i = 0;
  const size_t n = s.size();
  auto fail = [&](const char* w) {
    *what = w;
    return i;
  };
  auto truncated = [&]() {
    *what = "truncated";
    return n;
  };
  for (;;) {
    while (i < n && ChromeIsWs(s[i])) ++i;
    if (i >= n) {
      if (stack.empty() && st == St::kAfter) {
        what->clear();
        return std::string_view::npos;
      }
      return truncated();
    }
    const char c = s[i];
    switch (st) {
      case St::kValueOrEnd:
        if (c == ']') {
          ++i;
          stack.pop_back();
          st = St::kAfter;
          continue;
        }
        [[fallthrough]];
      case St::kValue:
        if (c == '{') {
          stack.push_back('{');
          ++i;
          st = St::kKeyOrEnd;
        } else if (c == '[') {
          stack.push_back('[');
          ++i;
          st = St::kValueOrEnd;
        } else if (c == '"') {
          if (!ChromeScanString(s, &i))
            return i == n ? truncated() : fail("control character in a string");
          st = St::kAfter;
        } else if (c == '-' || ChromeIsDigit(c)) {
          if (!ChromeScanNumber(s, &i)) return i == n ? truncated() : fail("malformed number");
          st = St::kAfter;
        } else if (c == 't' || c == 'f' || c == 'n') {
          std::string_view lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
          std::string_view have = s.substr(i, lit.size());
          if (have != lit) {
            if (lit.substr(0, have.size()) == have && i + have.size() == n) return truncated();
            return fail("expected a value");
          }
          i += lit.size();
          st = St::kAfter;
        } else {
          return fail("expected a value");
        }
        continue;
      case St::kAfter:
        if (stack.empty()) return fail("unexpected data after the top-level value");
        if (c == ',') {
          ++i;
          st = stack.back() == '{' ? St::kKey : St::kValue;
        } else if (c == (stack.back() == '{' ? '}' : ']')) {
          ++i;
          stack.pop_back();
        } else {
          return fail(stack.back() == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        continue;
      case St::kKeyOrEnd:
        if (c == '}') {
          ++i;
          stack.pop_back();
          st = St::kAfter;
          continue;
        }
        [[fallthrough]];
      case St::kKey:
        if (c != '"') return fail("expected a string key");
        if (!ChromeScanString(s, &i))
          return i == n ? truncated() : fail("control character in a string");
        st = St::kColon;
        continue;
      case St::kColon:
        if (c != ':') return fail("expected ':' after a key");
        ++i;
        st = St::kValue;
        continue;
    }
  }
}

char ChromeTraceHead(std::string_view prefix) {
  size_t i = prefix.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < prefix.size() && ChromeIsWs(prefix[i])) ++i;
  if (i >= prefix.size()) return 0;
  return prefix[i] == '{' || prefix[i] == '[' ? prefix[i] : 0;
}

Status ReadChromeTrace(InputStream& in, model::ImportStats& stats, ChromeDocument* doc,
                       const ChromeEventFn& fn) {
  ChromeTokenizer t(in, stats, doc, fn);
  return t.Run();
}

}  // namespace gpuwhy::import
