#include "base/ascii.h"

#include <gtest/gtest.h>

#include <clocale>

namespace gpuwhy {
namespace {

TEST(Ascii, FoldsLettersOnly) {
  EXPECT_EQ(AsciiLower("cudaMemcpyHtoD_v2 [AZ@[`{]"), "cudamemcpyhtod_v2 [az@[`{]");
  EXPECT_EQ(AsciiUpper("select * from Kernels where x='az'"), "SELECT * FROM KERNELS WHERE X='AZ'");
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(Ascii, LeavesUtf8BytesAloneInAnyLocale) {
  // "Ä" and "É" in UTF-8; a Latin-1 locale's tolower would rewrite 0xC3/0x89.
  const std::string utf8 = "K\xC3\x84rnel \xC3\x89";
  std::setlocale(LC_ALL, "C.UTF-8");
  EXPECT_EQ(AsciiLower(utf8), "k\xC3\x84rnel \xC3\x89");
  EXPECT_EQ(AsciiUpper(utf8), "K\xC3\x84RNEL \xC3\x89");
  std::setlocale(LC_ALL, "C");
}

}  // namespace
}  // namespace gpuwhy
