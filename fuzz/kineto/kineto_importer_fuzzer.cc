// libFuzzer entry: feeds arbitrary bytes (plain or gzip, detected by magic)
// through the same streaming parser the importer uses. The chunk size is
// derived from the input length so event-splitting paths are exercised too.
// Invariants checked on success: every event table is sorted and no kernel
// ends before it starts. Every input is also parsed in segments on two
// threads (KinetoOptions::threads), half of them through a read-ahead stream,
// which must give the same error line or a bit-identical model. The first
// parse lexes everything; the second replays what it learned
// (KinetoOptions::learn_repeats: separators and repeated values), so the
// fuzzer checks that replay too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/input_stream.h"
#include "import/kineto/kineto_importer.h"
#include "model/trace_compare.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  gpuwhy::import::KinetoOptions options;
  static constexpr size_t kChunks[] = {1, 2, 3, 7, 64, 4096};
  options.chunk_bytes = kChunks[size % (sizeof(kChunks) / sizeof(kChunks[0]))];
  options.threads = 1;
  options.learn_repeats = false;
  // Table sizing (Trace::ReserveForGrowth) after 512 bytes on every other input.
  options.reserve_after_bytes = (size / 7) % 2 == 0 ? 0 : 512;
  auto in = gpuwhy::OpenMemoryStream(bytes, "fuzz.json");
  gpuwhy::model::Trace trace;
  gpuwhy::Status st = gpuwhy::import::ReadKinetoStream(*in, options, trace);
  if (st.ok()) {
    const auto& k = trace.kernels;
    for (size_t i = 0; i < k.size(); ++i) {
      if (i > 0 && k.start_ns[i] < k.start_ns[i - 1]) std::abort();
      if (gpuwhy::IsValid(k.end_ns[i]) && k.end_ns[i] < k.start_ns[i]) std::abort();
    }
    for (uint32_t row : trace.collectives.kernel_row)
      if (row >= k.size()) std::abort();
  } else if (st.message().empty()) {
    std::abort();  // every error must say what and where
  }
  gpuwhy::import::KinetoOptions seg = options;
  static constexpr size_t kSegments[] = {1, 16, 256};
  seg.threads = 2;
  seg.learn_repeats = true;
  seg.segment_bytes = kSegments[(size / 3) % 3];
  // Every other input reads through a read-ahead stream whose blocks the
  // segmenting reader takes over whole (InputStream::ReadBlock).
  gpuwhy::InputStreamOptions so;
  so.read_ahead = (size / 5) % 2 == 1;
  so.read_ahead_chunk_bytes = kChunks[(size / 11) % (sizeof(kChunks) / sizeof(kChunks[0]))];
  auto in2 = gpuwhy::OpenMemoryStream(bytes, "fuzz.json", so);
  gpuwhy::model::Trace trace2;
  gpuwhy::Status st2 = gpuwhy::import::ReadKinetoStream(*in2, seg, trace2);
  if (st2.message() != st.message()) std::abort();
  if (st.ok() && !gpuwhy::model::DescribeDifference(trace, trace2).empty()) std::abort();
  return 0;
}
