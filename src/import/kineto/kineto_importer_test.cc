#include "import/kineto/kineto_importer.h"

#include <gtest/gtest.h>

namespace gpuwhy::import {
namespace {

TEST(MicrosTextToNs, Exact) {
  int64_t ns = 0;
  ASSERT_TRUE(MicrosTextToNs("1713738903328187", &ns));
  EXPECT_EQ(ns, 1713738903328187000);
}

}  // namespace
}  // namespace gpuwhy::import
