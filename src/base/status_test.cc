#include "base/status.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace {

Result<int> Half(int x) {
  if (x % 2) return InvalidInput("odd value " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Status, ResultPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(r.status().message(), "odd value 3");
}

}  // namespace
}  // namespace gpuwhy
