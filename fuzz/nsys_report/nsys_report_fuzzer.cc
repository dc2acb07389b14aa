// libFuzzer entry: the input bytes are a file that may be an Nsight Systems
// report. The version scanner must return "" or a YYYY.N.N.N string; a file
// with the report header must import (with no `nsys` on PATH: PATH is emptied
// at start) to one non-OK Status of one line that starts with the file's path,
// names the export command, and agrees with NsysReportVersion() on the file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "import/nsys/nsys_report_importer.h"
#include "model/trace.h"

namespace {

bool IsVersion(const std::string& v) {
  if (v.size() < 10 || v.size() > 255) return false;
  int dots = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '.') {
      ++dots;
    } else if (v[i] < '0' || v[i] > '9') {
      return false;
    }
  }
  return dots == 3 && v[4] == '.';
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("PATH", "/nonexistent-gpuwhy-fuzz", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string v = gpuwhy::import::NsysReportVersionIn(bytes);
  if (!v.empty() && !IsVersion(v)) std::abort();
  if (!gpuwhy::import::LooksLikeNsysReport(bytes)) return 0;
  // ScratchFile: one file per fuzzer process, removed at exit.
  struct ScratchFile {
    std::string path = "/tmp/gpuwhy_nsys_report_fuzz_" + std::to_string(::getpid()) + ".bin";
    ~ScratchFile() { ::unlink(path.c_str()); }
  };
  static const ScratchFile scratch;
  const std::string& path = scratch.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // The whole input is within the 64 KiB tail the file reader scans when small.
  if (size <= (size_t{64} << 10) && gpuwhy::import::NsysReportVersion(path) != v) std::abort();
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadNsysReport(path, trace);
  const std::string& m = st.message();
  if (st.ok() || m.find('\n') != std::string::npos || m.rfind(path + ": ", 0) != 0 ||
      m.find("nsys export --type sqlite") == std::string::npos)
    std::abort();
  if (!v.empty() && m.find("written by Nsight Systems " + v + ")") == std::string::npos)
    std::abort();
  return 0;
}
