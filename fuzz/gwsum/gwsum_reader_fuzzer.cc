// libFuzzer entry: feeds arbitrary bytes to the .gwsum reader twice: as a
// file (version 2, version 1 gzip or its bare payload), and as the body of a
// version 2 file, wrapped in a sound header, CRC and deflate stream, so that
// mutations reach the body's field decoding rather than stopping at the CRC.
// Invariants: an error says what and where; a summary that decodes encodes
// again and decodes to the same bytes (round trip), and its merge (the
// cross-rank diagnosis of two copies, the second on another clock) renders
// as `gpuwhy analyze *.gwsum` prints it: the terminal report and the JSON
// document. A summary that decodes may hold any value where a time or a
// ratio should be, and the renderers must format it, not crash on it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "report/gwsum/gwsum_format.h"
#include "report/json/json_renderer.h"
#include "report/terminal/terminal_renderer.h"

namespace {

void Check(std::string_view bytes) {
  gpuwhy::Result<gpuwhy::analysis::RankSummary> r =
      gpuwhy::report::DecodeRankSummary(bytes, "fuzz.gwsum");
  if (!r.ok()) {
    if (r.status().message().empty()) std::abort();  // every error must say what and where
    return;
  }
  gpuwhy::Result<std::string> again = gpuwhy::report::EncodeRankSummary(*r);
  if (!again.ok()) std::abort();
  gpuwhy::Result<gpuwhy::analysis::RankSummary> r2 =
      gpuwhy::report::DecodeRankSummary(*again, "again.gwsum");
  if (!r2.ok()) std::abort();
  gpuwhy::Result<std::string> third = gpuwhy::report::EncodeRankSummary(*r2);
  if (!third.ok() || *third != *again) std::abort();
  // The copy's digest on another clock: the merge aligns the two by their
  // anchors (AlignRanks), with whatever values they hold.
  r2->digest.clock += "'";
  std::vector<gpuwhy::analysis::RankSummary> two = {*r, *r2};
  const gpuwhy::analysis::Analysis merged =
      gpuwhy::analysis::MergeRankSummaries(std::move(two), {});
  std::ostringstream sink;
  gpuwhy::report::RenderTerminal(merged, sink, {});
  gpuwhy::report::RenderTerminal(merged, sink, {.width = 60, .ascii = true});
  gpuwhy::report::RenderJson(merged, sink, {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes);
  gpuwhy::Result<std::string> wrapped = gpuwhy::report::WrapRankSummaryBody(bytes);
  if (!wrapped.ok()) std::abort();
  Check(*wrapped);
  return 0;
}
