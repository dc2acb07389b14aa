// libFuzzer entry for the recording reader (`.gwrec`, docs/recording-format.md)
// and its translation into the model (`gpuwhy analyze X.gwrec`). Each input is read
// twice: as a file, and resealed (a sound header, each frame's length cut to
// the bytes left and its CRC recomputed), so that mutations reach the payload
// decoding behind the CRC check.
// Invariants: an error says what and where; a recording that reads becomes a
// trace (RecordingToTrace, and per rank SplitRecordingByRank) whose tables are
// sorted and whose kernels end no earlier than they start. The analysis of
// such traces is left out: crafted durations near the int64 range still
// overflow sums in the detectors (docs/recording-format.md, "Fuzzing and bad
// input").
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/input_stream.h"
#include "base/recording_wire.h"
#include "import/recording/recording_importer.h"
#include "import/recording/recording_reader.h"

namespace {

namespace wire = gpuwhy::wire;

// Invariants: Finalize sorted every table and series; kernels are well formed.
void Invariants(const gpuwhy::model::Trace& t) {
  for (const gpuwhy::model::CounterSeries& s : t.counters)
    for (size_t i = 1; i < s.ts_ns.size(); ++i)
      if (s.ts_ns[i] < s.ts_ns[i - 1]) std::abort();
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (i > 0 && k.start_ns[i] < k.start_ns[i - 1]) std::abort();
    if (gpuwhy::IsValid(k.start_ns[i]) && gpuwhy::IsValid(k.end_ns[i]) &&
        k.end_ns[i] < k.start_ns[i])
      std::abort();
  }
}

void Check(std::string_view bytes) {
  auto in = gpuwhy::OpenMemoryStream(bytes, "fuzz.gwrec");
  gpuwhy::Result<gpuwhy::import::Recording> rec = gpuwhy::import::ReadRecording(*in);
  if (!rec.ok()) {
    if (rec.status().message().empty()) std::abort();  // every error must say what and where
    return;
  }
  gpuwhy::model::Trace trace;
  gpuwhy::import::RecordingToTrace(*rec, trace);
  Invariants(trace);
  for (const gpuwhy::import::Recording& part : gpuwhy::import::SplitRecordingByRank(*rec)) {
    gpuwhy::model::Trace t;
    gpuwhy::import::RecordingToTrace(part, t);
    Invariants(t);
  }
}

// Resealed: `data` with a sound header and every frame's length cut to the
// bytes left and its CRC recomputed; the frames' types and payloads are the
// input's. Seeds are real recordings, so their mutations reach each frame
// type's decoding instead of stopping at the first CRC.
std::string Resealed(std::string_view data) {
  std::string out(wire::kRecordingMagic, sizeof wire::kRecordingMagic);
  auto put = [&out](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  const uint16_t major = wire::kRecordingVersionMajor, minor = wire::kRecordingVersionMinor;
  const uint32_t reserved = 0;
  put(&major, 2), put(&minor, 2), put(&reserved, 4);
  size_t i = data.size() >= wire::kRecordingHeaderBytes ? wire::kRecordingHeaderBytes : data.size();
  while (i + wire::kFrameHeaderBytes <= data.size()) {
    uint32_t len = 0;
    uint16_t type = 0, flags = 0;
    std::memcpy(&len, data.data() + i, 4);
    std::memcpy(&type, data.data() + i + 4, 2);
    std::memcpy(&flags, data.data() + i + 6, 2);
    i += wire::kFrameHeaderBytes;
    const std::string_view payload = data.substr(i, len);
    i += payload.size();
    len = static_cast<uint32_t>(payload.size());
    uLong c = crc32(0L, reinterpret_cast<const Bytef*>(&type), 2);
    c = crc32(c, reinterpret_cast<const Bytef*>(&flags), 2);
    c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(len));
    const uint32_t crc = static_cast<uint32_t>(c);
    put(&len, 4), put(&type, 2), put(&flags, 2), put(&crc, 4);
    out.append(payload);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes);
  Check(Resealed(bytes));
  return 0;
}
