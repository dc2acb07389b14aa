// make_big_trace IN OUT.json.gz N [GAP_US]
//
// Writes a Kineto trace whose traceEvents are the events of IN repeated N
// times. Copy k is shifted in time by k * (span + GAP_US) µs, and its
// correlation / External id / flow ids are offset by k * (max id + 1) so they
// stay unique. The other top-level keys are copied once, as they are. The
// output is gzip (zlib level 6). Used by bench/import/run.sh; never write the
// result into the repository.
#include <zlib.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/input_stream.h"

namespace {

struct Span {
  size_t begin, end;  // byte range of one event object in the text
};

// SkipString: i at '"'; returns the index after the closing quote.
size_t SkipString(const std::string& s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// SkipValue: i at the start of a value; returns the index after it.
size_t SkipValue(const std::string& s, size_t i) {
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      i = SkipString(s, i) - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return s.size();
}

size_t SkipWs(const std::string& s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return i;
}

bool IsShiftedTime(std::string_view k) { return k == "ts"; }
bool IsId(std::string_view k) {
  return k == "correlation" || k == "External id" || k == "external id" || k == "id" ||
         k == "wait_on_cuda_event_record_corr_id";
}

// NumberSpan: numeric values of the keys we rewrite, with their text ranges.
struct NumberRef {
  size_t begin, end;
  bool is_time;
};

// Scan: every `"key": number` inside [b, e) whose key we rewrite.
void Scan(const std::string& s, size_t b, size_t e, std::vector<NumberRef>* out) {
  for (size_t i = b; i < e;) {
    if (s[i] != '"') {
      ++i;
      continue;
    }
    size_t kend = SkipString(s, i);
    std::string_view key(s.data() + i + 1, kend - i - 2);
    size_t j = SkipWs(s, kend);
    if (j < e && s[j] == ':') {
      j = SkipWs(s, j + 1);
      if (j < e && (s[j] == '-' || (s[j] >= '0' && s[j] <= '9'))) {
        size_t v = j;
        while (v < e && (s[v] == '-' || s[v] == '.' || s[v] == 'e' || s[v] == 'E' || s[v] == '+' ||
                         (s[v] >= '0' && s[v] <= '9')))
          ++v;
        if (IsShiftedTime(key)) out->push_back({j, v, true});
        else if (IsId(key)) out->push_back({j, v, false});
        i = v;
        continue;
      }
    }
    i = kend;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: make_big_trace IN OUT.json.gz N [GAP_US]\n");
    return 2;
  }
  const int copies = std::atoi(argv[3]);
  const double gap_us = argc > 4 ? std::atof(argv[4]) : 1000.0;
  auto in = gpuwhy::OpenInputStream(argv[1]);
  if (!in.ok()) {
    std::fprintf(stderr, "%s\n", in.status().message().c_str());
    return 2;
  }
  std::string text;
  std::vector<char> buf(1 << 20);
  for (;;) {
    auto got = (*in)->Read(buf.data(), buf.size());
    if (!got.ok()) {
      std::fprintf(stderr, "%s\n", got.status().message().c_str());
      return 2;
    }
    if (*got == 0) break;
    text.append(buf.data(), *got);
  }
  // Find "traceEvents": [ at the top level.
  size_t i = SkipWs(text, 0);
  if (i >= text.size() || text[i] != '{') {
    std::fprintf(stderr, "%s: not a JSON object\n", argv[1]);
    return 2;
  }
  size_t arr_begin = 0, arr_end = 0;
  ++i;
  while (i < text.size()) {
    i = SkipWs(text, i);
    if (text[i] == '}') break;
    if (text[i] == ',') {
      ++i;
      continue;
    }
    size_t kend = SkipString(text, i);
    std::string_view key(text.data() + i + 1, kend - i - 2);
    i = SkipWs(text, kend) + 1;  // past ':'
    i = SkipWs(text, i);
    size_t vend = SkipValue(text, i);
    if (key == "traceEvents") {
      arr_begin = i;
      arr_end = vend;
    }
    i = vend;
  }
  if (arr_end == 0) {
    std::fprintf(stderr, "%s: no traceEvents array\n", argv[1]);
    return 2;
  }
  // Split the array into events and find the span and the largest id.
  std::vector<Span> events;
  for (size_t p = arr_begin + 1; p < arr_end - 1;) {
    p = SkipWs(text, p);
    if (text[p] == ',') {
      ++p;
      continue;
    }
    if (text[p] == ']') break;
    size_t e = SkipValue(text, p);
    events.push_back({p, e});
    p = e;
  }
  double min_ts = 1e300, max_end = -1e300;
  int64_t max_id = 0;
  std::vector<NumberRef> refs;
  for (const Span& ev : events) {
    refs.clear();
    Scan(text, ev.begin, ev.end, &refs);
    double ts = -1, dur = 0;
    for (const NumberRef& r : refs) {
      std::string_view t(text.data() + r.begin, r.end - r.begin);
      if (r.is_time) {
        ts = std::strtod(std::string(t).c_str(), nullptr);
      } else {
        int64_t v = 0;
        std::from_chars(t.data(), t.data() + t.size(), v);
        if (v > max_id) max_id = v;
      }
    }
    const char* d = std::strstr(text.c_str() + ev.begin, "\"dur\"");
    if (d != nullptr && static_cast<size_t>(d - text.c_str()) < ev.end) {
      const char* colon = std::strchr(d, ':');
      dur = std::strtod(colon + 1, nullptr);
    }
    if (ts >= 0 && ts < min_ts) min_ts = ts;
    if (ts >= 0 && ts + dur > max_end) max_end = ts + dur;
  }
  const int64_t shift_us = static_cast<int64_t>(max_end - min_ts + gap_us + 1);
  const int64_t id_step = max_id + 1;

  gzFile out = gzopen(argv[2], "wb6");
  if (out == nullptr) {
    std::perror(argv[2]);
    return 2;
  }
  gzbuffer(out, 1 << 20);
  gzwrite(out, text.data(), static_cast<unsigned>(arr_begin + 1));
  std::string piece;
  uint64_t written_events = 0;
  for (int k = 0; k < copies; ++k) {
    for (size_t n = 0; n < events.size(); ++n) {
      const Span& ev = events[n];
      piece.clear();
      piece += (k == 0 && n == 0) ? "\n" : ",\n";
      refs.clear();
      Scan(text, ev.begin, ev.end, &refs);
      size_t at = ev.begin;
      for (const NumberRef& r : refs) {
        piece.append(text, at, r.begin - at);
        std::string t = text.substr(r.begin, r.end - r.begin);
        if (k == 0) {
          piece += t;
        } else if (r.is_time) {
          // Shift the integer part; keep the fraction text exactly.
          size_t dot = t.find('.');
          int64_t ip = std::strtoll(t.substr(0, dot).c_str(), nullptr, 10);
          piece += std::to_string(ip + shift_us * k);
          if (dot != std::string::npos) piece += t.substr(dot);
        } else {
          int64_t v = std::strtoll(t.c_str(), nullptr, 10);
          piece += std::to_string(v + id_step * k);
        }
        at = r.end;
      }
      piece.append(text, at, ev.end - at);
      gzwrite(out, piece.data(), static_cast<unsigned>(piece.size()));
      ++written_events;
    }
  }
  gzwrite(out, "\n", 1);
  gzwrite(out, text.data() + arr_end - 1, static_cast<unsigned>(text.size() - arr_end + 1));
  if (gzclose(out) != Z_OK) {
    std::fprintf(stderr, "%s: write failed\n", argv[2]);
    return 2;
  }
  std::printf("%s: %llu events (%zu x %d), shift %lld us per copy, id step %lld\n", argv[2],
              static_cast<unsigned long long>(written_events), events.size(), copies,
              static_cast<long long>(shift_us), static_cast<long long>(id_step));
  return 0;
}
