// Terminal renderer: the human-readable report of `gpuwhy analyze`.
//
// Contract: formats an analysis::Analysis, computes nothing. Output is
// deterministic (no clock, no locale), plain ASCII except the unit "µs" and
// the separator "·", and no line is wider than TerminalOptions::width columns
// (code points). Missing values print as "n/a", never 0.
// Layout: per trace a header, then one block per device, then a footer; each
// part is drawn by the sections registered in sections.cc (see sections.h).
#pragma once

#include <iosfwd>

#include "analysis/analysis.h"

namespace gpuwhy::report {

// TerminalOptions: presentation knobs.
struct TerminalOptions {
  int width = 100;  // maximum columns per line (the report is laid out for 100)
  bool ascii = false;  // ASCII fallback for sparklines (no block characters)
};

// RenderTerminal: write the report of `analysis` to `out`.
void RenderTerminal(const analysis::Analysis& analysis, std::ostream& out,
                    const TerminalOptions& options);

}  // namespace gpuwhy::report
