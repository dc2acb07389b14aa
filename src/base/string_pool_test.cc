#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace gpuwhy
