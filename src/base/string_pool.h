// StringPool: interns strings into dense 32-bit ids.
//
// Contract: Intern() returns the same id for equal strings for the pool's
// lifetime; id 0 is always the empty string (kEmptyString). Views returned by
// Get() stay valid until the pool is destroyed (storage is chunked, never moved).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace gpuwhy {

using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) noexcept;
  StringPool& operator=(StringPool&&) noexcept;
  ~StringPool();

  // Intern: id of `s`, adding it when new. Amortised O(len).
  StringId Intern(std::string_view s);
  // Find: id of `s` if already interned, otherwise kNotInterned.
  static constexpr StringId kNotInterned = 0xffffffffu;
  StringId Find(std::string_view s) const;
  // InternAll: intern every string of `other` in its id order, setting
  // (*remap)[i] to this pool's id of other's string i (resized to
  // other.size()). Merging pools of later stretches of one source this way
  // gives the ids one pool reading the whole source would.
  void InternAll(const StringPool& other, std::vector<StringId>* remap);
  // Get: the text of `id`; id must come from this pool.
  std::string_view Get(StringId id) const { return views_[id]; }
  // size: number of distinct strings, including the empty string.
  size_t size() const { return views_.size(); }
  // memory_bytes: approximate heap use, for benchmarks.
  size_t memory_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string_view> views_;
};

}  // namespace gpuwhy
