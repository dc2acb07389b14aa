#include "analysis/steps/correlation_index.h"

#include <algorithm>

#include "base/units.h"

namespace gpuwhy::analysis {

void CorrelationIndex::Build(const model::ApiTable& api) {
  const std::vector<int64_t>& corr = api.correlation_id;
  bool rising = true;
  for (size_t i = 0; i < corr.size() && rising; ++i)
    rising = IsValid(corr[i]) && (i == 0 || corr[i] > corr[i - 1]);
  if (rising) {
    std::vector<int64_t>().swap(own_keys_);
    std::vector<uint32_t>().swap(rows_);
    keys_ = corr;
    views_table_ = true;
  } else {
    // Rows ordered by (id, row): 4 bytes a row where (id, row) pairs took 16
    // (68 MB at 100x). Ids mostly rise with the row already, so the sort is
    // skipped when they do.
    std::vector<uint32_t> rows;
    rows.reserve(api.size());
    for (size_t i = 0; i < api.size(); ++i)
      if (IsValid(corr[i])) rows.push_back(static_cast<uint32_t>(i));
    auto before = [&](uint32_t x, uint32_t y) {
      return corr[x] != corr[y] ? corr[x] < corr[y] : x < y;
    };
    if (!std::is_sorted(rows.begin(), rows.end(), before))
      std::sort(rows.begin(), rows.end(), before);
    std::vector<int64_t> keys;
    std::vector<uint32_t> first_rows;
    keys.reserve(rows.size());
    first_rows.reserve(rows.size());
    for (uint32_t row : rows) {
      if (!keys.empty() && keys.back() == corr[row]) continue;  // the first row wins
      keys.push_back(corr[row]);
      first_rows.push_back(row);
    }
    Assign(std::move(keys), std::move(first_rows));
  }
  Index();
}

void CorrelationIndex::Assign(std::vector<int64_t> keys, std::vector<uint32_t> rows) {
  own_keys_ = std::move(keys);
  keys_ = own_keys_;
  views_table_ = false;
  rows_ = std::move(rows);
  bucket_.clear();
  shift_ = 0;
}

void CorrelationIndex::Index() {
  bucket_.clear();
  shift_ = 0;
  const size_t n = keys_.size();
  if (n == 0) return;
  // Bucket width: the smallest power of two that spreads the id span over
  // fewer than n / 4 buckets: a byte a key (4 MB at 100x, where a bucket a
  // key took 17 MB), and a search over a handful of keys.
  const uint64_t span = static_cast<uint64_t>(keys_.back()) - static_cast<uint64_t>(keys_.front());
  const uint64_t most = std::max<uint64_t>(1, n / 4);
  while (shift_ < 63 && (span >> shift_) >= most) ++shift_;
  const size_t buckets = static_cast<size_t>(span >> shift_) + 1;
  bucket_.assign(buckets + 1, 0);
  size_t i = 0;
  for (size_t b = 0; b <= buckets; ++b) {
    // First key in bucket b or later.
    while (i < n &&
           ((static_cast<uint64_t>(keys_[i]) - static_cast<uint64_t>(keys_.front())) >> shift_) < b)
      ++i;
    bucket_[b] = static_cast<uint32_t>(i);
  }
}

size_t CorrelationIndex::Find(int64_t correlation_id) const {
  const size_t n = keys_.size();
  if (n == 0 || correlation_id < keys_.front() || correlation_id > keys_.back()) return SIZE_MAX;
  auto first = keys_.begin(), last = keys_.end();
  if (!bucket_.empty()) {
    const size_t b = static_cast<size_t>(
        (static_cast<uint64_t>(correlation_id) - static_cast<uint64_t>(keys_.front())) >> shift_);
    first = keys_.begin() + bucket_[b];
    last = keys_.begin() + bucket_[b + 1];
  }
  auto it = std::lower_bound(first, last, correlation_id);
  if (it == last || *it != correlation_id) return SIZE_MAX;
  return static_cast<size_t>(it - keys_.begin());
}

}  // namespace gpuwhy::analysis
