// Process memory figures the benches print: /proc/self/status lines and the
// peak-RSS reset, shared by every bench that measures a section's own peak.
#pragma once

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace gpuwhy::bench {

// StatusKiB: a "Vm...:" line of /proc/self/status (e.g. "VmRSS:"), in KiB;
// -1 when absent.
inline long StatusKiB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n);
  return -1;
}

// ResetPeakRss: VmHWM back to the current RSS (writes 5 to
// /proc/self/clear_refs); false where the kernel refuses it.
inline bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace gpuwhy::bench
