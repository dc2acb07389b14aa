#include "base/string_pool.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace gpuwhy {

namespace {
constexpr size_t kChunkBytes = 1 << 16;
}

struct StringPool::Impl {
  // Chunks keep string bytes at fixed addresses, so views never dangle.
  std::vector<std::unique_ptr<char[]>> chunks;
  size_t chunk_used = kChunkBytes;
  size_t bytes = 0;
  std::unordered_map<std::string_view, StringId> index;

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
};

StringPool::StringPool() : impl_(std::make_unique<Impl>()) {
  views_.push_back(std::string_view());
  impl_->index.emplace(std::string_view(), kEmptyString);
}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::Intern(std::string_view s) {
  auto it = impl_->index.find(s);
  if (it != impl_->index.end()) return it->second;
  std::string_view stored = impl_->Store(s);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  impl_->index.emplace(stored, id);
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  auto it = impl_->index.find(s);
  return it == impl_->index.end() ? kNotInterned : it->second;
}

size_t StringPool::memory_bytes() const {
  return impl_->bytes + views_.capacity() * sizeof(std::string_view) +
         impl_->index.size() * (sizeof(std::string_view) + sizeof(StringId) + 16);
}

}  // namespace gpuwhy
