#include "model/trace.h"

#include <algorithm>
#include <future>
#include <new>
#include <numeric>

namespace gpuwhy::model {

// A natural merge sort:
// importers append rows in a few sorted runs (Kineto: two per table in the
// shared traces), so merging adjacent runs costs O(n log runs), where a
// stable_sort paid O(n log n) for every table of every trace.
std::vector<uint32_t> SortOrder(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                bool* already_sorted) {
  auto less = [&](uint32_t a, uint32_t b) {
    return start[a] != start[b] ? start[a] < start[b] : end[a] < end[b];
  };
  const size_t n = start.size();
  std::vector<size_t> runs = {0};  // run i is [runs[i], runs[i + 1])
  for (size_t i = 1; i < n; ++i)
    if (less(static_cast<uint32_t>(i), static_cast<uint32_t>(i - 1))) runs.push_back(i);
  runs.push_back(n);
  *already_sorted = runs.size() <= 2;
  std::vector<uint32_t> order;
  if (*already_sorted) return order;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<uint32_t> buf(n);
  while (runs.size() > 2) {
    // Merge runs pairwise (std::merge keeps equal rows in run order: stable).
    std::vector<size_t> merged = {0};
    size_t j = 0;
    for (; j + 2 < runs.size(); j += 2) {
      std::merge(order.begin() + static_cast<std::ptrdiff_t>(runs[j]),
                 order.begin() + static_cast<std::ptrdiff_t>(runs[j + 1]),
                 order.begin() + static_cast<std::ptrdiff_t>(runs[j + 1]),
                 order.begin() + static_cast<std::ptrdiff_t>(runs[j + 2]),
                 buf.begin() + static_cast<std::ptrdiff_t>(runs[j]), less);
      merged.push_back(runs[j + 2]);
    }
    if (j + 1 < runs.size()) {  // an odd run out: copied as it is
      std::copy(order.begin() + static_cast<std::ptrdiff_t>(runs[j]),
                order.begin() + static_cast<std::ptrdiff_t>(runs[j + 1]),
                buf.begin() + static_cast<std::ptrdiff_t>(runs[j]));
      merged.push_back(runs[j + 1]);
    }
    order.swap(buf);
    runs.swap(merged);
  }
  return order;
}

namespace {

template <typename Table>
std::vector<uint32_t> SortTable(Table& t) {
  bool sorted = false;
  std::vector<uint32_t> order = SortOrder(t.start_ns, t.end_ns, &sorted);
  if (!sorted) t.Permute(order);
  return order;
}

}  // namespace

const Device* Trace::FindDevice(int32_t device_id) const {
  for (const Device& d : devices)
    if (d.device_id == device_id) return &d;
  return nullptr;
}

Device& Trace::GetOrAddDevice(int32_t device_id) {
  for (Device& d : devices)
    if (d.device_id == device_id) return d;
  Device d;
  d.device_id = device_id;
  devices.push_back(d);
  return devices.back();
}

void Trace::ReserveForGrowth(double factor) {
  if (!(factor > 1.0)) return;
  ForEachEventTable([factor](auto& table) {
    if (table.empty()) return;
    table.Reserve(static_cast<size_t>(static_cast<double>(table.size()) * factor));
  });
}

void Trace::Finalize() {
  // The ranges and markers (the largest tables of a Kineto trace) are sorted
  // on a second thread while this one sorts the rest: the tables share no
  // column, and an import ends here with its parser threads idle. Small
  // traces stay on one thread.
  constexpr size_t kParallelRows = size_t{1} << 16;
  auto sort_ranges_and_markers = [this] {
    SortTable(ranges);
    bool sorted = false;
    std::vector<uint32_t> order = SortOrder(markers.ts_ns, markers.ts_ns, &sorted);
    if (!sorted) markers.Permute(order);
  };
  std::future<void> side;
  if (ranges.size() + markers.size() >= kParallelRows)
    side = std::async(std::launch::async, sort_ranges_and_markers);
  else
    sort_ranges_and_markers();
  std::vector<uint32_t> korder = SortTable(kernels);
  if (!korder.empty() && (!collectives.empty() || !kernel_rules.empty())) {
    std::vector<uint32_t> inverse(korder.size());
    for (uint32_t i = 0; i < korder.size(); ++i) inverse[korder[i]] = i;
    for (uint32_t& r : collectives.kernel_row) r = inverse[r];
    for (uint32_t& r : kernel_rules.kernel_row) r = inverse[r];
  }
  SortTable(memcpys);
  SortTable(memsets);
  SortTable(api_calls);
  SortTable(syncs);
  for (CounterSeries& s : counters) {
    if (std::is_sorted(s.ts_ns.begin(), s.ts_ns.end())) continue;
    std::vector<uint32_t> order(s.ts_ns.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return s.ts_ns[a] < s.ts_ns[b]; });
    ApplyPermutation(s.ts_ns, order);
    ApplyPermutation(s.value, order);
  }
  auto note_device = [&](int32_t id) {
    if (IsValid(id) && FindDevice(id) == nullptr) GetOrAddDevice(id);
  };
  // Devices referenced only by events still need an entry; scan cheaply.
  for (const auto* col : {&kernels.device_id, &memcpys.device_id, &memsets.device_id}) {
    int32_t last = kMissingI32;
    for (int32_t id : *col) {
      if (id == last) continue;
      last = id;
      note_device(id);
    }
  }
  std::sort(devices.begin(), devices.end(),
            [](const Device& a, const Device& b) { return a.device_id < b.device_id; });
  if (side.valid()) side.get();
}

void Trace::AppendEventsFrom(const Trace& part, const std::vector<StringId>& remap, double growth) {
  const StringId* r = remap.data();
  const auto kernel_base = static_cast<uint32_t>(kernels.size());
  const size_t first_collective = collectives.size();
  const size_t first_rule = kernel_rules.size();
  auto append = [r, growth](auto& to, const auto& from) {
    const size_t rows = to.size() + from.size();
    if (growth > 1.0 && rows > to.capacity()) {
      try {
        to.Reserve(static_cast<size_t>(static_cast<double>(rows) * growth));
      } catch (const std::bad_alloc&) {
        // Address space refused: the append below doubles instead.
      }
    }
    to.AppendFrom(from, r);
  };
  append(kernels, part.kernels);
  append(memcpys, part.memcpys);
  append(memsets, part.memsets);
  append(api_calls, part.api_calls);
  append(syncs, part.syncs);
  append(ranges, part.ranges);
  append(markers, part.markers);
  append(collectives, part.collectives);
  append(kernel_rules, part.kernel_rules);
  append(gpu_processes, part.gpu_processes);
  for (size_t i = first_collective; i < collectives.size(); ++i)
    collectives.kernel_row[i] += kernel_base;
  for (size_t i = first_rule; i < kernel_rules.size(); ++i)
    kernel_rules.kernel_row[i] += kernel_base;
}

size_t Trace::event_count() const {
  return kernels.size() + memcpys.size() + memsets.size() + api_calls.size() + syncs.size() +
         ranges.size() + markers.size();
}

size_t Trace::memory_bytes() const {
  size_t b = strings.memory_bytes();
  ForEachEventTable([&b](const auto& table) { b += table.memory_bytes(); });
  for (const CounterSeries& s : counters) b += s.ts_ns.capacity() * 8 + s.value.capacity() * 8;
  return b;
}

std::pair<int64_t, int64_t> Trace::TimeExtent() const {
  int64_t lo = kMissingI64, hi = kMissingI64;
  auto take = [&](const std::vector<int64_t>& start, const std::vector<int64_t>& end) {
    for (size_t i = 0; i < start.size(); ++i) {
      if (!IsValid(start[i])) continue;
      if (!IsValid(lo) || start[i] < lo) lo = start[i];
      int64_t e = IsValid(end[i]) ? end[i] : start[i];
      if (!IsValid(hi) || e > hi) hi = e;
    }
  };
  take(kernels.start_ns, kernels.end_ns);
  take(memcpys.start_ns, memcpys.end_ns);
  take(memsets.start_ns, memsets.end_ns);
  take(api_calls.start_ns, api_calls.end_ns);
  take(syncs.start_ns, syncs.end_ns);
  take(ranges.start_ns, ranges.end_ns);
  return {lo, hi};
}

}  // namespace gpuwhy::model
