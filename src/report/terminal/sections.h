// Terminal report sections: each part of the report is one function in its
// own file, listed once in sections.cc (explicit registration, no static
// constructors).
//
// Adding a section:
//   1. write `report/terminal/<name>_section.cc` with a function matching
//      TraceSectionFn or DeviceSectionFn (use text_format.h helpers; do not
//      compute, only format what analysis::TraceAnalysis holds);
//   2. declare it below and add one line to TerminalSections() in sections.cc;
//   3. add the .cc to report/terminal/CMakeLists.txt.
// A device-scoped section finds its data by device.device_id in its own
// member of TraceAnalysis. Sections print nothing when they have nothing.
#pragma once

#include <cstddef>
#include <ostream>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "report/terminal/terminal_renderer.h"

namespace gpuwhy::report {

// TerminalContext: what a section may look at while drawing one trace.
struct TerminalContext {
  const analysis::Analysis& analysis;
  const analysis::TraceAnalysis& trace;
  const TerminalOptions& options;
};

// Where a section is drawn within one trace's part of the report.
enum class SectionPlacement {
  kTraceHeader,  // after the trace title line, before the device blocks
  kDevice,       // inside each device block, after the device title line
  kTraceFooter,  // after all device blocks
};

using TraceSectionFn = void (*)(const TerminalContext& ctx, std::ostream& out);
using DeviceSectionFn = void (*)(const TerminalContext& ctx,
                                 const analysis::DeviceSummary& device, std::ostream& out);

// TerminalSection: one registered section; exactly one of the functions is
// set, matching `placement` (device_fn for kDevice).
struct TerminalSection {
  std::string_view name;
  SectionPlacement placement;
  TraceSectionFn trace_fn = nullptr;
  DeviceSectionFn device_fn = nullptr;
};

// TerminalSections: every section in drawing order.
const std::vector<TerminalSection>& TerminalSections();

// kSectionIndent: columns every section line is indented by.
inline constexpr size_t kSectionIndent = 2;
// SectionLine: `s` indented by kSectionIndent and cut to the report width,
// then a newline.
void SectionLine(const TerminalContext& ctx, std::ostream& out, std::string_view s);

// ---- Sections (one file each) ----
// summary_section.cc
void RenderTraceOverview(const TerminalContext& ctx, std::ostream& out);
void RenderDeviceSummary(const TerminalContext& ctx, const analysis::DeviceSummary& device,
                         std::ostream& out);
void RenderImportStats(const TerminalContext& ctx, std::ostream& out);
// utilization_section.cc: surface vs real, sparklines, curve class (per device).
void RenderDeviceUtilization(const TerminalContext& ctx, const analysis::DeviceSummary& device,
                             std::ostream& out);
// compat_section.cc: `--compat tbplugin|hta` tables (trace footer).
void RenderCompat(const TerminalContext& ctx, std::ostream& out);
// nsys_compat_section.cc: `--compat nsys` tables (trace footer).
void RenderNsysCompat(const TerminalContext& ctx, std::ostream& out);
// measured_kernels_section.cc: the measured (ncu) per-kernel bound table.
void RenderMeasuredKernels(const TerminalContext& ctx, std::ostream& out);
// findings_section.cc: the diagnosis, once, in the first trace's header.
void RenderFindings(const TerminalContext& ctx, std::ostream& out);

}  // namespace gpuwhy::report
