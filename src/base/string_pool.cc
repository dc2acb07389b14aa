#include "base/string_pool.h"

#include <cstring>
#include <string>

namespace gpuwhy {

namespace {
constexpr size_t kChunkBytes = 1 << 16;
}

struct StringPool::Impl {
  // Chunks keep string bytes at fixed addresses, so views never dangle.
  std::vector<std::unique_ptr<char[]>> chunks;
  size_t chunk_used = kChunkBytes;
  size_t bytes = 0;
  // The index: open addressing with linear probing, at most half full. A
  // slot holds id + 1 (0: empty) and the string's 32-bit hash, so a probe
  // compares one word before any text. std::unordered_map cost a division,
  // a node allocation and a pointer chase per lookup: 4-5% of the CPU of
  // importing a Kineto trace, which interns every event's name.
  std::vector<uint32_t> slot_id;
  std::vector<uint32_t> slot_hash;
  size_t mask = 0;

  std::string_view Store(std::string_view s) {
    if (s.size() > kChunkBytes / 4) {  // large strings get their own block
      chunks.emplace_back(new char[s.size()]);
      std::memcpy(chunks.back().get(), s.data(), s.size());
      bytes += s.size();
      char* big = chunks.back().get();
      // Keep the current small-string chunk at the end of the list usable.
      if (chunks.size() >= 2) std::swap(chunks[chunks.size() - 1], chunks[chunks.size() - 2]);
      return {big, s.size()};
    }
    if (chunk_used + s.size() > kChunkBytes) {
      chunks.emplace_back(new char[kChunkBytes]);
      chunk_used = 0;
      bytes += kChunkBytes;
    }
    char* dst = chunks.back().get() + chunk_used;
    if (!s.empty()) std::memcpy(dst, s.data(), s.size());
    chunk_used += s.size();
    return {dst, s.size()};
  }

  // Hash: 8 bytes at a time, multiply-xorshift mixed; the low bits index
  // the table. Two lanes take 16 bytes a round: each word's multiply waits
  // for the one before it in its lane only (kernel names run to hundreds of
  // bytes, and every event's name is interned).
  static uint32_t Hash(std::string_view s) {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15u;
    constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4Fu;
    uint64_t h = s.size() * kMul;
    const char* p = s.data();
    size_t n = s.size();
    if (n >= 16) {
      uint64_t h2 = s.size() * kMul2;
      for (; n >= 16; p += 16, n -= 16) {
        uint64_t w, w2;
        std::memcpy(&w, p, 8);
        std::memcpy(&w2, p + 8, 8);
        h = (h ^ w) * kMul;
        h2 = (h2 ^ w2) * kMul2;
        h ^= h >> 29;
        h2 ^= h2 >> 31;
      }
      h ^= h2 * kMul;
    }
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * kMul;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93u;
    h ^= h >> 32;
    return static_cast<uint32_t>(h);
  }

  // Slot: the slot holding `s` (hash h) or the empty one where it belongs.
  size_t Slot(std::string_view s, uint32_t h, const std::vector<std::string_view>& views) const {
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint32_t id1 = slot_id[i];
      if (id1 == 0) return i;
      if (slot_hash[i] == h) {
        const std::string_view v = views[id1 - 1];
        if (v.size() == s.size() && (s.empty() || std::memcmp(v.data(), s.data(), s.size()) == 0))
          return i;
      }
    }
  }

  void Place(uint32_t h, StringId id) {
    size_t i = h & mask;
    while (slot_id[i] != 0) i = (i + 1) & mask;
    slot_id[i] = id + 1;
    slot_hash[i] = h;
  }

  // Grow: double the table (rehashing from the stored hashes).
  void Grow() {
    std::vector<uint32_t> ids = std::move(slot_id), hashes = std::move(slot_hash);
    const size_t n = ids.empty() ? 64 : 2 * ids.size();
    slot_id.assign(n, 0);
    slot_hash.assign(n, 0);
    mask = n - 1;
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != 0) Place(hashes[i], ids[i] - 1);
  }
};

StringPool::StringPool() : impl_(std::make_unique<Impl>()) {
  impl_->Grow();
  views_.push_back(std::string_view());
  impl_->Place(Impl::Hash(std::string_view()), kEmptyString);
}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::Intern(std::string_view s) {
  const uint32_t h = Impl::Hash(s);
  size_t i = impl_->Slot(s, h, views_);
  if (impl_->slot_id[i] != 0) return impl_->slot_id[i] - 1;
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(impl_->Store(s));
  if (2 * views_.size() > impl_->slot_id.size()) {
    impl_->Grow();  // keeps the table at most half full
    impl_->Place(h, id);
  } else {
    impl_->slot_id[i] = id + 1;
    impl_->slot_hash[i] = h;
  }
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  const uint32_t h = Impl::Hash(s);
  const size_t i = impl_->Slot(s, h, views_);
  return impl_->slot_id[i] == 0 ? kNotInterned : impl_->slot_id[i] - 1;
}

void StringPool::InternAll(const StringPool& other, std::vector<StringId>* remap) {
  remap->resize(other.size());
  for (StringId i = 0; i < remap->size(); ++i) (*remap)[i] = Intern(other.Get(i));
}

size_t StringPool::memory_bytes() const {
  return impl_->bytes + views_.capacity() * sizeof(std::string_view) +
         impl_->slot_id.capacity() * 2 * sizeof(uint32_t);
}

}  // namespace gpuwhy
