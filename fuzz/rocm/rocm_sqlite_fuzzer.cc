// libFuzzer entry: the input bytes are a SQLite database image, classified
// by its tables (import/sqlite_kind.h) and read by the rocpd, RPD or rocprof
// v1 reader (ReadRocmSqliteImage, the same readers as the file path). A
// failure must be one line naming the image; a success must keep the model
// invariants (rocm_fuzz_check.h).
#include <string>
#include <string_view>

#include "import/rocm/rocm_sqlite_importer.h"
#include "rocm_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static const std::string kName = "fuzz.db";
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadRocmSqliteImage(bytes, kName, trace);
  if (!st.ok()) {
    const std::string& m = st.message();
    if (m.empty() || m.find(kName) == std::string::npos || m.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  gpuwhy::fuzz::RocmCheckTrace(trace);
  return 0;
}
