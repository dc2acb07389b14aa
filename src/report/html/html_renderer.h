// HTML report: one self-contained page (`gpuwhy analyze ... --html FILE`).
//
// Contract: RenderHtml() writes a complete HTML5 document that makes no
// network request: the vendored uPlot (third_party/uplot) and the page's own
// script and style (src/report/html/assets) are embedded in the binary at
// build time and inlined. The data is one JSON object in a
// <script type="application/json"> element, escaped by EscapeJsonForHtml(),
// and the page script builds the DOM with textContent only, so trace strings
// (kernel names, paths, ...) are never parsed as markup. The renderer only
// formats: every number comes from the Analysis or the HtmlView
// (src/analysis/views/html_view.h). Layout and charts: docs/html_report.md.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/diff/run_diff.h"
#include "analysis/views/html_view.h"

namespace gpuwhy::report {

// HtmlOptions: page options.
struct HtmlOptions {
  // title: the page title; empty: "gpuwhy: <first input's file name>[ +N more]".
  std::string title;
};

// RenderHtml: write the page for `analysis` and its derived `view`.
void RenderHtml(const analysis::Analysis& analysis, const analysis::views::HtmlView& view,
                std::ostream& out, const HtmlOptions& options = {});

// RenderDiffHtml: the `gpuwhy diff --html` page: the same shell, assets and
// escaping as RenderHtml(), with the `diff --json` document as its data.
void RenderDiffHtml(const analysis::RunDiff& diff, const std::vector<std::string>& violations,
                    std::ostream& out);

// HtmlDataJson: the page's data object (compact JSON, not yet HTML-escaped).
std::string HtmlDataJson(const analysis::Analysis& analysis, const analysis::views::HtmlView& view);

// EscapeJsonForHtml: `json` with '<', '>', '&', U+2028 and U+2029 written as
// \u003c, \u003e, \u0026, \u2028, \u2029, so it can sit inside a <script>
// element (no "</script>", "<!--" or line terminators that break JS). Valid only
// for JSON text, where these characters can occur inside strings only.
std::string EscapeJsonForHtml(std::string_view json);

}  // namespace gpuwhy::report
