#include "report/terminal/sections.h"

#include <string>

#include "report/terminal/text_format.h"

namespace gpuwhy::report {

const std::vector<TerminalSection>& TerminalSections() {
  // Drawing order within each placement is the order of this list.
  static const std::vector<TerminalSection> kSections = {
      {"findings", SectionPlacement::kTraceHeader, RenderFindings, nullptr},
      {"measured_kernels", SectionPlacement::kTraceHeader, RenderMeasuredKernels, nullptr},
      {"overview", SectionPlacement::kTraceHeader, RenderTraceOverview, nullptr},
      {"device_summary", SectionPlacement::kDevice, nullptr, RenderDeviceSummary},
      {"utilization", SectionPlacement::kDevice, nullptr, RenderDeviceUtilization},
      {"compat", SectionPlacement::kTraceFooter, RenderCompat, nullptr},
      {"nsys_compat", SectionPlacement::kTraceFooter, RenderNsysCompat, nullptr},
      // New sections go here.
      {"import_stats", SectionPlacement::kTraceFooter, RenderImportStats, nullptr},
  };
  return kSections;
}

void SectionLine(const TerminalContext& ctx, std::ostream& out, std::string_view s) {
  std::string line(kSectionIndent, ' ');
  line += s;
  out << FitWidth(line, static_cast<size_t>(ctx.options.width)) << '\n';
}

}  // namespace gpuwhy::report
