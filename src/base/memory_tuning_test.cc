#include "base/memory_tuning.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

std::string RunProbe(const std::string& env) {
  std::string cmd = env + " " GPUWHY_PROBE_PATH " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "popen failed";
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  pclose(p);
  return out;
}

bool Sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

TEST(MemoryTuning, ReexecsWithTunablesAndHidesThemFromChildren) {
  std::string out = RunProbe("env -u GLIBC_TUNABLES -u GPUWHY_MEMORY_TUNING");
  if (Sanitized()) {
    EXPECT_EQ(out, "- | - | -\n");  // the sanitizer's allocator is left alone
    return;
  }
  // Exec'ed with the tunables, which are gone from the environment afterwards.
  EXPECT_NE(out.find("glibc.malloc.mmap_threshold=16777216"), std::string::npos) << out;
  EXPECT_NE(out.find(" | - | -\n"), std::string::npos) << out;
}

TEST(MemoryTuning, UserTunablesWin) {
  std::string out = RunProbe("env GLIBC_TUNABLES=glibc.malloc.check=0");
  EXPECT_EQ(out, "glibc.malloc.check=0 | glibc.malloc.check=0 | -\n");
}

TEST(MemoryTuning, CanBeTurnedOff) {
  std::string out = RunProbe("env -u GLIBC_TUNABLES GPUWHY_MEMORY_TUNING=0");
  EXPECT_EQ(out, "- | - | -\n");
}

}  // namespace
