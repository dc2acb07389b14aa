#include "model/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>
#include <vector>
#include <cstring>

#include "model/trace_compare.h"

namespace gpuwhy::model {
namespace {

TEST(Trace, MissingIsNotZero) {
  KernelRow k;
  EXPECT_FALSE(IsValid(k.start_ns));
  EXPECT_FALSE(IsValid(k.registers_per_thread));
  EXPECT_FALSE(IsValid(k.est_occupancy_pct));
}

TEST(Trace, FinalizeSortsAndRemapsCollectives) {
  Trace t;
  KernelRow a;
  a.device_id = 1;
  a.start_ns = 300;
  a.end_ns = 400;
  a.name = t.strings.Intern("ncclKernel_AllReduce");
  KernelRow b = a;
  b.start_ns = 100;
  b.end_ns = 200;
  b.name = t.strings.Intern("sgemm");
  uint32_t row_a = t.kernels.Append(a);
  t.kernels.Append(b);
  CollectiveRow c;
  c.kernel_row = row_a;
  c.collective_name = t.strings.Intern("allreduce");
  t.collectives.Append(c);
  t.Finalize();
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.start_ns[0], 100);
  EXPECT_EQ(t.Str(t.kernels.name[t.collectives.kernel_row[0]]), "ncclKernel_AllReduce");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].device_id, 1);
  EXPECT_FALSE(IsValid(t.devices[0].sm_count));
  auto [lo, hi] = t.TimeExtent();
  EXPECT_EQ(lo, 100);
  EXPECT_EQ(hi, 400);
}

TEST(Trace, FinalizeOrdersRowsAsAStableSortWouldForEveryRunShape) {
  // Rows in one run, two, a few, many (random), and reversed, with equal
  // starts and equal (start, end) pairs: Finalize's natural merge sort puts
  // them exactly where a stable sort by (start, end) does, ties in row order.
  std::mt19937_64 rng(11);
  for (int shape = 0; shape < 5; ++shape) {
    // 70,000 rows: past the size at which ranges are sorted on a second thread.
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{1000}, size_t{70000}}) {
      std::vector<std::pair<int64_t, int64_t>> rows;
      for (size_t i = 0; i < n; ++i) {
        int64_t s = static_cast<int64_t>(rng() % 50);
        rows.push_back({s, s + static_cast<int64_t>(rng() % 3)});
      }
      auto by_time = [](const auto& a, const auto& b) { return a < b; };
      if (shape == 0) std::sort(rows.begin(), rows.end(), by_time);
      if (shape == 1 || shape == 2) {
        // Sorted runs of n/2 or n/5 rows.
        const size_t run = std::max<size_t>(1, n / (shape == 1 ? 2 : 5));
        for (size_t b = 0; b < n; b += run)
          std::sort(rows.begin() + static_cast<std::ptrdiff_t>(b),
                    rows.begin() + static_cast<std::ptrdiff_t>(std::min(n, b + run)), by_time);
      }
      if (shape == 4) std::sort(rows.rbegin(), rows.rend(), by_time);
      Trace t;
      for (size_t i = 0; i < n; ++i) {
        RangeRow r;
        r.start_ns = rows[i].first;
        r.end_ns = rows[i].second;
        r.external_id = static_cast<int64_t>(i);  // the row's place before sorting
        t.ranges.Append(r);
      }
      std::vector<size_t> expect(n);
      std::iota(expect.begin(), expect.end(), size_t{0});
      std::stable_sort(expect.begin(), expect.end(),
                       [&](size_t a, size_t b) { return rows[a] < rows[b]; });
      t.Finalize();
      ASSERT_EQ(t.ranges.size(), n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(t.ranges.external_id[i], static_cast<int64_t>(expect[i]))
            << "shape " << shape << " n " << n << " row " << i;
    }
  }
}

TEST(Table, PermuteMovesEveryColumnOfARow) {
  // Every column type (int32, int64, float, StringId, an enum, bool), tables
  // from 0 to past the prefetch distance: row i after Permute(order) is the
  // row order[i] was, in every column.
  std::mt19937_64 rng(5);
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{17}, size_t{5000}}) {
    KernelTable k;
    MemcpyTable m;
    GpuProcessTable g;
    for (size_t i = 0; i < n; ++i) {
      KernelRow r;
      r.device_id = static_cast<int32_t>(i);
      r.start_ns = static_cast<int64_t>(i) * 3;
      r.name = static_cast<StringId>(i + 7);
      r.warps_per_sm = static_cast<float>(i) / 4;
      k.Append(r);
      MemcpyRow c;
      c.copy_kind = i % 2 == 0 ? CopyKind::kHtoD : CopyKind::kDtoH;
      c.bytes = static_cast<int64_t>(i);
      m.Append(c);
      GpuProcessRow p;
      p.pid = static_cast<int32_t>(i);
      p.is_profiled = i % 3 == 0;
      g.Append(p);
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    k.Permute(order);
    m.Permute(order);
    g.Permute(order);
    ASSERT_EQ(k.size(), n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t was = order[i];
      ASSERT_EQ(k.device_id[i], static_cast<int32_t>(was));
      ASSERT_EQ(k.start_ns[i], static_cast<int64_t>(was) * 3);
      ASSERT_EQ(k.name[i], static_cast<StringId>(was + 7));
      ASSERT_EQ(k.warps_per_sm[i], static_cast<float>(was) / 4);
      ASSERT_EQ(m.copy_kind[i], was % 2 == 0 ? CopyKind::kHtoD : CopyKind::kDtoH);
      ASSERT_EQ(m.bytes[i], static_cast<int64_t>(was));
      ASSERT_FALSE(IsValid(k.end_ns[i]));  // missing stays missing
      ASSERT_EQ(g.pid[i], static_cast<int32_t>(was));
      ASSERT_EQ(g.is_profiled[i], was % 3 == 0);
    }
  }
}

TEST(Table, ReleaseSpareCapacityKeepsRowsAndRoomToGrow) {
  // Spare capacity whose pages went back to the system: the rows are intact,
  // capacity is unchanged, and rows appended into it read back as written.
  KernelTable k;
  k.Reserve(200000);  // several pages of spare capacity in every column
  for (int64_t i = 0; i < 1000; ++i) {
    KernelRow r;
    r.start_ns = i;
    r.name = static_cast<StringId>(i);
    k.Append(r);
  }
  const size_t cap = k.capacity();
  k.ReleaseSpareCapacity();
  EXPECT_EQ(k.capacity(), cap);
  ASSERT_EQ(k.size(), 1000u);
  for (int64_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(k.start_ns[static_cast<size_t>(i)], i);
    ASSERT_EQ(k.name[static_cast<size_t>(i)], static_cast<StringId>(i));
  }
  for (int64_t i = 1000; i < 150000; ++i) {
    KernelRow r;
    r.start_ns = i;
    k.Append(r);
  }
  EXPECT_EQ(k.capacity(), cap);
  for (int64_t i = 0; i < 150000; ++i) ASSERT_EQ(k.start_ns[static_cast<size_t>(i)], i);
  KernelTable one;
  one.Append(KernelRow{});
  EXPECT_EQ(k.memory_bytes(), k.size() * one.memory_bytes());  // spare capacity is not counted
}

// TwoKernels: a small finalized trace for the comparison tests.
Trace TwoKernels() {
  Trace t;
  for (int i = 0; i < 2; ++i) {
    KernelRow k;
    k.device_id = 0;
    k.start_ns = 100 * i;
    k.end_ns = 100 * i + 50;
    k.name = t.strings.Intern(i == 0 ? "gemm" : "relu");
    t.kernels.Append(k);
  }
  t.Finalize();
  return t;
}

TEST(TraceCompare, IdenticalTracesHaveNoDifference) {
  EXPECT_EQ(DescribeDifference(TwoKernels(), TwoKernels()), "");
}

TEST(TraceCompare, NamesTheFirstDifferingColumnStringOrCounter) {
  Trace a = TwoKernels();
  Trace b = TwoKernels();
  b.kernels.end_ns[1] += 1;
  EXPECT_EQ(DescribeDifference(a, b), "kernels.end_ns differs");
  b = TwoKernels();
  b.kernels.name[0] = b.kernels.name[1];
  EXPECT_EQ(DescribeDifference(a, b), "kernels.name differs");
  b = TwoKernels();
  b.strings.Intern("extra");
  EXPECT_EQ(DescribeDifference(a, b), "strings: 3 against 4");
  b = TwoKernels();
  b.stats.Bump(ImportStat::missing_ts);
  EXPECT_EQ(DescribeDifference(a, b), "import counter missing_ts: 0 against 1");
  b = TwoKernels();
  KernelRow extra;
  b.kernels.Append(extra);
  EXPECT_EQ(DescribeDifference(a, b), "kernels: 2 rows against 3");
}

TEST(TraceCompare, ComparesBitsNotValues) {
  // Two NaNs with different payloads are different bits; the same NaN is equal.
  Trace a = TwoKernels();
  Trace b = TwoKernels();
  float q = std::nanf("1"), r = std::nanf("2");
  ASSERT_NE(std::memcmp(&q, &r, sizeof q), 0);
  a.kernels.warps_per_sm[0] = q;
  b.kernels.warps_per_sm[0] = q;
  EXPECT_EQ(DescribeDifference(a, b), "");
  b.kernels.warps_per_sm[0] = r;
  EXPECT_EQ(DescribeDifference(a, b), "kernels.warps_per_sm differs");
}

TEST(Trace, ReserveForGrowthKeepsRowsAndOnlyAddsCapacity) {
  Trace t = TwoKernels();
  Trace before = TwoKernels();
  RangeRow r;
  r.start_ns = 1;
  r.end_ns = 2;
  t.ranges.Append(r);
  before.ranges.Append(r);
  t.ReserveForGrowth(1000.0);
  EXPECT_GE(t.kernels.start_ns.capacity(), 2000u);
  EXPECT_GE(t.ranges.name.capacity(), 1000u);
  EXPECT_EQ(t.memcpys.start_ns.capacity(), 0u);  // empty tables stay empty
  EXPECT_EQ(DescribeDifference(before, t), "");
  const size_t cap = t.kernels.start_ns.capacity();
  t.ReserveForGrowth(0.5);  // never shrinks
  t.ReserveForGrowth(std::nan(""));
  EXPECT_EQ(t.kernels.start_ns.capacity(), cap);
}

TEST(Trace, AppendEventsFromGrowsAnOutgrownTableByTheGivenFactor) {
  // Three appends of a two-kernel part: with growth 10 the first sizes the
  // kernel table for 20 rows and the next two fit in it; the rows are those
  // of plain appends, and a table with room (ranges, empty here) is left
  // alone.
  Trace part = TwoKernels();
  std::vector<StringId> remap(part.strings.size());
  Trace grown, plain;
  for (Trace* t : {&grown, &plain})
    for (StringId i = 0; i < remap.size(); ++i) remap[i] = t->strings.Intern(part.strings.Get(i));
  grown.AppendEventsFrom(part, remap, 10.0);
  EXPECT_EQ(grown.kernels.capacity(), 20u);
  EXPECT_EQ(grown.kernels.start_ns.capacity(), 20u);
  const int64_t* first = grown.kernels.start_ns.data();
  grown.AppendEventsFrom(part, remap, 10.0);
  grown.AppendEventsFrom(part, remap, 10.0);
  EXPECT_EQ(grown.kernels.start_ns.data(), first);  // no reallocation
  for (int i = 0; i < 3; ++i) plain.AppendEventsFrom(part, remap);
  EXPECT_EQ(grown.kernels.size(), 6u);
  EXPECT_EQ(DescribeDifference(plain, grown), "");
  EXPECT_EQ(grown.ranges.capacity(), 0u);
  // growth <= 1: as std::vector grows.
  Trace doubled;
  for (StringId i = 0; i < remap.size(); ++i) doubled.strings.Intern(part.strings.Get(i));
  doubled.AppendEventsFrom(part, remap, 1.0);
  EXPECT_EQ(doubled.kernels.capacity(), 2u);
}

TEST(Trace, AppendEventsFromTranslatesEveryStringColumn) {
  Trace into;
  into.strings.Intern("already here");
  KernelRow k0;
  k0.name = into.strings.Intern("k0");
  into.kernels.Append(k0);
  // The part's pool orders its strings differently.
  Trace part;
  auto id = [&](const char* s) { return part.strings.Intern(s); };
  KernelRow k;
  k.name = id("gemm");
  k.start_ns = 5;
  part.kernels.Append(k);
  part.kernels.Append(k);
  CollectiveRow c;
  c.kernel_row = 1;
  c.collective_name = id("allreduce");
  c.dtype = id("Float");
  c.process_group_name = id("0");
  c.process_group_desc = id("default_pg");
  c.process_group_ranks = id("[0, 1]");
  part.collectives.Append(c);
  RangeRow r;
  r.name = id("aten::mm");
  r.input_dims = id("[[2, 3]]");
  r.input_types = id("float");
  r.input_strides = id("[[3, 1]]");
  r.concrete_inputs = id("['', '']");
  part.ranges.Append(r);
  MarkerRow m;
  m.name = id("already here");
  m.domain = id("mark");
  part.markers.Append(m);
  ApiRow a;
  a.name = id("cudaLaunchKernel");
  part.api_calls.Append(a);
  std::vector<StringId> remap(part.strings.size());
  for (StringId i = 0; i < remap.size(); ++i) remap[i] = into.strings.Intern(part.strings.Get(i));
  into.AppendEventsFrom(part, remap);

  ASSERT_EQ(into.kernels.size(), 3u);
  EXPECT_EQ(into.Str(into.kernels.name[0]), "k0");
  EXPECT_EQ(into.Str(into.kernels.name[2]), "gemm");
  EXPECT_EQ(into.kernels.start_ns[2], 5);
  ASSERT_EQ(into.collectives.size(), 1u);
  EXPECT_EQ(into.collectives.kernel_row[0], 2u);  // row 1 of the part follows k0
  EXPECT_EQ(into.Str(into.collectives.collective_name[0]), "allreduce");
  EXPECT_EQ(into.Str(into.collectives.dtype[0]), "Float");
  EXPECT_EQ(into.Str(into.collectives.process_group_name[0]), "0");
  EXPECT_EQ(into.Str(into.collectives.process_group_desc[0]), "default_pg");
  EXPECT_EQ(into.Str(into.collectives.process_group_ranks[0]), "[0, 1]");
  EXPECT_EQ(into.Str(into.ranges.name[0]), "aten::mm");
  EXPECT_EQ(into.Str(into.ranges.input_dims[0]), "[[2, 3]]");
  EXPECT_EQ(into.Str(into.ranges.input_types[0]), "float");
  EXPECT_EQ(into.Str(into.ranges.input_strides[0]), "[[3, 1]]");
  EXPECT_EQ(into.Str(into.ranges.concrete_inputs[0]), "['', '']");
  EXPECT_EQ(into.Str(into.markers.name[0]), "already here");
  EXPECT_EQ(into.Str(into.markers.domain[0]), "mark");
  EXPECT_EQ(into.Str(into.api_calls.name[0]), "cudaLaunchKernel");
  // Clear empties a table and keeps its capacity for the next part.
  const size_t cap = part.ranges.name.capacity();
  part.ranges.Clear();
  EXPECT_TRUE(part.ranges.empty());
  EXPECT_TRUE(part.ranges.input_dims.empty());
  EXPECT_EQ(part.ranges.name.capacity(), cap);
}

static_assert(IsStringIdToken("StringId") && IsStringIdToken("Lazy<StringId>") &&
              !IsStringIdToken("uint32_t") && !IsStringIdToken("StringIds") &&
              !IsStringIdToken("String") && !IsStringIdToken("Lazy<uint32_t>"));

TEST(LazyColumn, ReadsAsAPlainColumnThroughEveryOperation) {
  // Random appends (mostly missing), writes, whole-column appends of stored
  // and unstored parts, and permutations, against a std::vector doing the
  // same; a float column whose missing value is a NaN compares by bits.
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    const float missing = kMissingF32;
    LazyColumn<float> lazy(missing);
    std::vector<float> plain;
    const int other_per_mille = round % 4 == 0 ? 0 : static_cast<int>(rng() % 30);
    auto value = [&]() {
      return static_cast<int>(rng() % 1000) < other_per_mille ? static_cast<float>(rng() % 7)
                                                              : missing;
    };
    if (round % 3 == 0) lazy.reserve(64);
    const size_t n = rng() % 300;
    for (size_t i = 0; i < n; ++i) {
      const float v = value();
      lazy.push_back(v);
      plain.push_back(v);
      if (rng() % 50 == 0) {
        const size_t at = rng() % plain.size();
        const float w = value();
        lazy.Set(at, w);
        plain[at] = w;
      }
      if (rng() % 80 == 0) {  // a part appended whole, stored or not
        LazyColumn<float> part(missing);
        std::vector<float> part_plain;
        for (size_t j = rng() % 20; j > 0; --j) {
          const float w = value();
          part.push_back(w);
          part_plain.push_back(w);
        }
        AppendColumn(lazy, part, nullptr);
        plain.insert(plain.end(), part_plain.begin(), part_plain.end());
      }
    }
    std::vector<uint32_t> order(plain.size());
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::byte> scratch;
    ApplyPermutation(lazy, order, scratch);
    ApplyPermutation(plain, order, scratch);
    ASSERT_EQ(lazy.size(), plain.size());
    bool all_missing = true;
    for (size_t i = 0; i < plain.size(); ++i) {
      ASSERT_TRUE(SameValueBits(lazy[i], plain[i])) << "round " << round << " row " << i;
      all_missing = all_missing && SameValueBits(plain[i], missing);
    }
    EXPECT_EQ(lazy.all_missing(), all_missing);
    if (other_per_mille == 0) {
      EXPECT_FALSE(lazy.materialized());  // nothing but missing: nothing stored
      EXPECT_EQ(ColumnBytes(lazy), 0u);
    }
    // The same rows are the same column, stored or not.
    LazyColumn<float> copy(missing);
    for (size_t i = 0; i < plain.size(); ++i) copy.push_back(plain[i]);
    copy.Materialize();
    EXPECT_TRUE(SameBits(lazy, copy));
    EXPECT_TRUE(SameBits(copy, lazy));
    if (!plain.empty()) {
      copy.Set(0, 1234.5f);
      EXPECT_FALSE(SameBits(lazy, copy));
    }
  }
}

TEST(LazyColumn, TablesStoreOnlyWhatSomeRowHolds) {
  RangeTable r;
  for (int i = 0; i < 1000; ++i) {
    RangeRow row;
    row.start_ns = i;
    r.Append(row);
  }
  EXPECT_FALSE(r.input_dims.materialized());
  EXPECT_FALSE(r.stream_id.materialized());
  const size_t lean = r.memory_bytes();
  RangeTable shaped = r;
  RangeRow row;
  row.input_dims = 7;
  shaped.Append(row);
  EXPECT_TRUE(shaped.input_dims.materialized());
  EXPECT_EQ(shaped.input_dims[0], kEmptyString);
  EXPECT_EQ(shaped.input_dims[1000], 7u);
  EXPECT_EQ(shaped.memory_bytes() - lean,
            sizeof(RangeRow::start_ns) + sizeof(RangeRow::pid) + sizeof(RangeRow::tid) +
                sizeof(RangeRow::end_ns) + sizeof(RangeRow::name) + sizeof(RangeRow::kind) +
                sizeof(RangeRow::external_id) + sizeof(RangeRow::step) + 1001 * sizeof(StringId));
  // A stored column of missing values equals an unstored one.
  RangeTable stored = r;
  stored.input_dims.Set(3, 9);
  stored.input_dims.Set(3, kEmptyString);
  EXPECT_TRUE(stored.input_dims.materialized());
  EXPECT_EQ(stored.FirstDifferentColumn(r), nullptr);
  stored.input_dims.Set(4, 9);
  EXPECT_STREQ(stored.FirstDifferentColumn(r), "input_dims");
}

TEST(ImportStats, NamesAreStable) {
  EXPECT_EQ(kImportStatInfo[static_cast<size_t>(ImportStat::unknown_category)].name,
            "unknown_category");
  ImportStats s;
  s.Bump(ImportStat::missing_ts, 3);
  EXPECT_EQ(s.Get(ImportStat::missing_ts), 3u);
}

}  // namespace
}  // namespace gpuwhy::model
