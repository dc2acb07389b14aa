#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace gpuwhy {
namespace {

TEST(StringPool, EmptyIsZero) {
  StringPool pool;
  EXPECT_EQ(pool.Intern(""), kEmptyString);
  EXPECT_EQ(pool.Get(kEmptyString), "");
}

TEST(StringPool, InternIsStableAndDeduplicates) {
  StringPool pool;
  StringId a = pool.Intern("volta_sgemm_128x64_nn");
  StringId b = pool.Intern("Memcpy HtoD (Pageable -> Device)");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Intern(std::string("volta_sgemm_128x64_nn")), a);
  EXPECT_EQ(pool.Get(a), "volta_sgemm_128x64_nn");
  EXPECT_EQ(pool.Find("nope"), StringPool::kNotInterned);
}

TEST(StringPool, ViewsSurviveGrowth) {
  StringPool pool;
  StringId first = pool.Intern("first");
  std::string_view v = pool.Get(first);
  std::string big(100000, 'x');
  pool.Intern(big);
  for (int i = 0; i < 20000; ++i) pool.Intern("s" + std::to_string(i));
  EXPECT_EQ(v, "first");
  EXPECT_EQ(pool.Get(first).data(), v.data());
  EXPECT_EQ(pool.Get(pool.Find(big)), big);
  EXPECT_EQ(pool.Get(pool.Find("s19999")), "s19999");
}

TEST(StringPool, IdsAreFirstUseOrderOverManyLookAlikeStrings) {
  // Strings that share prefixes, differ only in their last byte or length,
  // hold NUL bytes, and cross 8-byte word edges; interned in a shuffled
  // order, twice: ids are dense in first-use order (a reference map says
  // which), every later Intern and Find returns the first id, and Get gives
  // the text back through every table growth.
  std::vector<std::string> words;
  for (size_t len = 0; len <= 20; ++len)
    for (char last : {'a', 'b', '\0'}) words.push_back(std::string(len, 'x') + last);
  for (int i = 0; i < 5000; ++i) words.push_back("aten::op_" + std::to_string(i));
  for (int i = 0; i < 300; ++i) words.push_back(std::string(static_cast<size_t>(i), '\0'));
  std::mt19937 rng(3);
  std::vector<std::string> order = words;
  order.insert(order.end(), words.begin(), words.end());
  std::shuffle(order.begin(), order.end(), rng);
  StringPool pool;
  std::map<std::string, StringId> expect;
  expect[""] = kEmptyString;
  for (const std::string& w : order) {
    auto [it, fresh] = expect.try_emplace(w, static_cast<StringId>(expect.size()));
    ASSERT_EQ(pool.Intern(w), it->second) << "fresh " << fresh;
  }
  EXPECT_EQ(pool.size(), expect.size());
  for (const auto& [w, id] : expect) {
    ASSERT_EQ(pool.Find(w), id);
    ASSERT_EQ(pool.Get(id), w);
  }
  EXPECT_EQ(pool.Find(std::string(21, 'x')), StringPool::kNotInterned);
  EXPECT_EQ(pool.Find(std::string(300, '\0')), StringPool::kNotInterned);
  StringPool moved = std::move(pool);
  EXPECT_EQ(moved.Find("aten::op_4999"), expect["aten::op_4999"]);
}

TEST(StringPool, InternAllMapsAPartPoolAsOnePoolWould) {
  // Two stretches of one source interned separately, then merged: the ids
  // are those of one pool that read both in order.
  const std::vector<std::string> first = {"a", "b", "a"}, second = {"c", "b", "", "d"};
  StringPool whole, into, part;
  for (const auto* words : {&first, &second})
    for (const std::string& w : *words) whole.Intern(w);
  for (const std::string& w : first) into.Intern(w);
  for (const std::string& w : second) part.Intern(w);
  std::vector<StringId> remap = {99};
  into.InternAll(part, &remap);
  ASSERT_EQ(remap.size(), part.size());
  for (StringId i = 0; i < part.size(); ++i) EXPECT_EQ(into.Get(remap[i]), part.Get(i));
  EXPECT_EQ(remap[kEmptyString], kEmptyString);
  ASSERT_EQ(into.size(), whole.size());
  for (StringId i = 0; i < whole.size(); ++i) EXPECT_EQ(into.Get(i), whole.Get(i));
}

}  // namespace
}  // namespace gpuwhy
