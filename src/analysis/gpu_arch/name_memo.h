// NameMemo: caches a per-name predicate by interned StringId.
//
// Contract: Get(id) returns fn(trace.Str(id)), evaluating fn at most once per
// distinct id. Why: kernel-name rules are substring searches; per-kernel loops
// over millions of rows must run them once per distinct name (hundreds).
#pragma once

#include <cstdint>
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

}  // namespace gpuwhy::analysis
