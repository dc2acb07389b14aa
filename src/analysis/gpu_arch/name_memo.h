// NameMemo: caches a per-name predicate by interned StringId.
//
// Contract: Get(id) returns fn(trace.Str(id)), evaluating fn at most once per
// distinct id. Why: kernel-name rules are substring searches; per-kernel loops
// over millions of rows must run them once per distinct name (hundreds).
//
// ApiPredicateMemo: the same for a predicate of an API row's (name, kind,
// cbid).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuwhy::analysis {

template <typename Fn>
class NameMemo {
 public:
  NameMemo(const model::Trace& trace, Fn fn)
      : trace_(trace), fn_(fn), state_(trace.strings.size(), kUnknown) {}

  // Get: the cached predicate for `id`.
  bool Get(StringId id) {
    if (id >= state_.size()) return fn_(trace_.Str(id));
    if (state_[id] == kUnknown) state_[id] = fn_(trace_.Str(id)) ? kTrue : kFalse;
    return state_[id] == kTrue;
  }

 private:
  static constexpr uint8_t kUnknown = 0, kFalse = 1, kTrue = 2;
  const model::Trace& trace_;
  Fn fn_;
  std::vector<uint8_t> state_;
};

// ApiPredicateMemo: fn(name, kind, cbid) of an api row, matched once per name
// for as long as the name's rows keep the kind and cbid of the last one
// matched (a name almost always does), so the string tables run per
// distinct call rather than per call: 420 k calls at 10x, a few dozen names.
class ApiPredicateMemo {
 public:
  using Fn = bool (*)(std::string_view, model::ApiKind, int32_t);
  ApiPredicateMemo(const model::Trace& trace, Fn fn)
      : trace_(trace), fn_(fn), memo_(trace.strings.size()) {}
  // operator(): the predicate of api row `row`.
  bool operator()(size_t row) {
    const model::ApiTable& api = trace_.api_calls;
    const StringId name = api.name[row];
    if (name >= memo_.size()) return fn_(trace_.Str(name), api.kind[row], api.cbid[row]);
    Entry& e = memo_[name];
    if (!e.set || e.kind != api.kind[row] || e.cbid != api.cbid[row])
      e = {true, api.kind[row], api.cbid[row], fn_(trace_.Str(name), api.kind[row], api.cbid[row])};
    return e.value;
  }

 private:
  struct Entry {
    bool set = false;
    model::ApiKind kind{};
    int32_t cbid = 0;
    bool value = false;
  };
  const model::Trace& trace_;
  Fn fn_;
  std::vector<Entry> memo_;
};

}  // namespace gpuwhy::analysis
