// memory_tuning_probe: calls TuneMemoryForBatch and reports what the process
// ended up with, for memory_tuning_test. Prints one line:
//   "<tunables in the exec environment> | <GLIBC_TUNABLES now> | <marker now>
//    | <where a 64 MiB block came from: heap, mmap or ->"
// where "-" stands for absent (or, last, for an allocator without mallinfo2).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "base/memory_tuning.h"

int main(int, char** argv) {
  gpuwhy::TuneMemoryForBatch(argv);
  // /proc/self/environ keeps the environment the process was exec'ed with.
  std::ifstream f("/proc/self/environ", std::ios::binary);
  std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string exec_tunables = "-";
  for (size_t pos = 0; pos < env.size();) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    std::string kv = env.substr(pos, end - pos);
    if (kv.rfind("GLIBC_TUNABLES=", 0) == 0) exec_tunables = kv.substr(15);
    pos = end + 1;
  }
  const char* now = std::getenv("GLIBC_TUNABLES");
  const char* marker = std::getenv("GPUWHY_MEMORY_TUNED");
  // Whether the settings took effect: glibc maps a block this large by
  // default, and takes it from the heap under mmap_max=0.
  const char* large = "-";
#if defined(__GLIBC__)
  void* volatile block = std::malloc(size_t{64} << 20);
  if (block != nullptr) large = mallinfo2().hblkhd > 0 ? "mmap" : "heap";
  std::free(block);
#endif
  std::printf("%s | %s | %s | %s\n", exec_tunables.c_str(), now ? now : "-", marker ? marker : "-",
              large);
  return 0;
}
