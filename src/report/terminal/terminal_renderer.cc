#include "report/terminal/terminal_renderer.h"

#include <fmt/format.h>

#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "report/terminal/sections.h"
#include "report/terminal/text_format.h"

namespace gpuwhy::report {

namespace {

std::string DeviceTitle(const analysis::DeviceSummary& d) {
  std::string s = fmt::format("{} {}", model::DeviceNoun(d.vendor), FormatInt(d.device_id));
  s += " · " + (d.name.empty() ? std::string("name n/a") : d.name);
  if (IsValid(d.sm_count)) s += fmt::format(" · {} SMs", d.sm_count);
  if (IsValid(d.cc_major) && IsValid(d.cc_minor))
    s += fmt::format(" · cc {}.{}", d.cc_major, d.cc_minor);
  if (IsValid(d.total_memory_bytes)) s += " · " + FormatBytesBinary(d.total_memory_bytes);
  if (!d.has_events) return s + " · sampled counters only";
  s += fmt::format(" · {} stream{}", d.stream_count, d.stream_count == 1 ? "" : "s");
  return s;
}

}  // namespace

void RenderTerminal(const analysis::Analysis& analysis, std::ostream& out,
                    const TerminalOptions& options) {
  const auto width = static_cast<size_t>(options.width);
  const auto& sections = TerminalSections();
  bool first = true;
  for (const analysis::TraceAnalysis& trace : analysis.traces) {
    if (!first) out << '\n';
    first = false;
    TerminalContext ctx{analysis, trace, options};
    const analysis::InputInfo& in = trace.input;
    std::string tail;
    if (!in.format.empty()) tail += " · " + in.format;
    if (!in.format_version.empty()) tail += " " + in.format_version;
    if (IsValid(in.size_bytes)) tail += " · " + FormatBytes(in.size_bytes);
    std::string path = in.path.empty() ? std::string("(unnamed trace)") : in.path;
    // Long paths lose their start, so the file name and format stay visible.
    size_t room = width > DisplayWidth(tail) + 3 ? width - DisplayWidth(tail) - 3 : 0;
    if (DisplayWidth(path) > room && room > 3) path = "..." + LastColumns(path, room - 3);
    out << FitWidth("== " + path + tail, width) << '\n';
    // Word-wrapped: a merge note carries the time shift, an import note how a
    // column was read; both must stay visible.
    std::vector<std::pair<std::string, std::string>> head_notes;
    for (const std::string& m : in.merged_inputs) head_notes.emplace_back("   + merged", m);
    for (const std::string& m : in.import_notes) head_notes.emplace_back("   read:", m);
    for (const auto& [lead, m] : head_notes) {
      std::string line = lead;
      size_t pos = 0;
      while (pos < m.size()) {
        size_t next = m.find(' ', pos);
        if (next == std::string::npos) next = m.size();
        std::string word = m.substr(pos, next - pos);
        if (DisplayWidth(line) + 1 + DisplayWidth(word) > width && DisplayWidth(line) > 7) {
          out << line << '\n';
          line = "      ";
        } else {
          line += ' ';
        }
        line += word;
        pos = next + 1;
      }
      out << FitWidth(line, width) << '\n';
    }
    for (const TerminalSection& s : sections)
      if (s.placement == SectionPlacement::kTraceHeader && s.trace_fn) s.trace_fn(ctx, out);
    for (const analysis::DeviceSummary& d : trace.summary.devices) {
      out << '\n' << FitWidth(DeviceTitle(d), width) << '\n';
      for (const TerminalSection& s : sections)
        if (s.placement == SectionPlacement::kDevice && s.device_fn) s.device_fn(ctx, d, out);
    }
    for (const TerminalSection& s : sections)
      if (s.placement == SectionPlacement::kTraceFooter && s.trace_fn) s.trace_fn(ctx, out);
  }
}

}  // namespace gpuwhy::report
