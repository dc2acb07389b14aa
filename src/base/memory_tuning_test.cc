#include "base/memory_tuning.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/sanitizer.h"

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

TEST(MemoryTuning, ReexecsWithTunablesAndHidesThemFromChildren) {
  std::string out = RunProbe("env -u GLIBC_TUNABLES -u GPUWHY_MEMORY_TUNING");
  if (gpuwhy::kSanitized) {
    // The sanitizer's allocator is left alone (and its mallinfo2 says nothing).
    EXPECT_EQ(out.rfind("- | - | - | ", 0), 0u) << out;
    return;
  }
  // Exec'ed with the tunables (glibc cuts the string in the process's own
  // copy of its environment after parsing it: only the first shows), which
  // are gone from the environment afterwards, and in effect: a 64 MiB block
  // comes from the heap, not from mmap.
  EXPECT_EQ(out.rfind("glibc.malloc.mmap_max=0", 0), 0u) << out;
  EXPECT_NE(out.find(" | - | - | heap\n"), std::string::npos) << out;
}

TEST(MemoryTuning, UserTunablesWin) {
  std::string out = RunProbe("env GLIBC_TUNABLES=glibc.malloc.check=0");
  if (gpuwhy::kSanitized) {
    EXPECT_EQ(out.rfind("glibc.malloc.check=0 | glibc.malloc.check=0 | - | ", 0), 0u) << out;
    return;
  }
  EXPECT_EQ(out, "glibc.malloc.check=0 | glibc.malloc.check=0 | - | mmap\n");
}

TEST(MemoryTuning, CanBeTurnedOff) {
  std::string out = RunProbe("env -u GLIBC_TUNABLES GPUWHY_MEMORY_TUNING=0");
  if (gpuwhy::kSanitized) {
    EXPECT_EQ(out.rfind("- | - | - | ", 0), 0u) << out;
    return;
  }
  EXPECT_EQ(out, "- | - | - | mmap\n");  // glibc's defaults map a block this large
}

TEST(MemoryTuning, ReleaseUnusedPagesZeroesWholePagesOnly) {
  // The whole pages inside the range read as zero afterwards; the bytes
  // before and after it, and the partial pages at its edges, keep their data.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = 16 * page;
  auto* buf = static_cast<unsigned char*>(std::aligned_alloc(page, size));
  ASSERT_NE(buf, nullptr);
  std::memset(buf, 0xAB, size);
  const size_t from = 100, to = size - 100;  // [from, to): pages 1..14 whole
  gpuwhy::ReleaseUnusedPages(buf + from, to - from);
  for (size_t i = 0; i < size; ++i) {
    const bool released = i >= page && i < 15 * page;
    ASSERT_EQ(buf[i], released ? 0 : 0xAB) << "byte " << i;
  }
  gpuwhy::ReleaseUnusedPages(buf + 10, page - 20);  // no whole page: untouched
  EXPECT_EQ(buf[10], 0xAB);
  EXPECT_EQ(buf[page - 11], 0xAB);
  std::free(buf);
}

}  // namespace
