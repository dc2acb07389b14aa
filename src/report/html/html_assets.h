// Embedded page assets of the HTML report: the vendored uPlot and the page's
// own script and style, compiled into the binary by cmake/embed_assets.cmake
// (nothing is read or downloaded at run time).
#pragma once

#include <string_view>

namespace gpuwhy::report::html_assets {

// Each returns the whole file's bytes; the views point at static storage.
std::string_view UplotJs();       // third_party/uplot/uPlot.iife.min.js
std::string_view UplotCss();      // third_party/uplot/uPlot.min.css
std::string_view UplotLicense();  // third_party/uplot/LICENSE
std::string_view UplotVersion();  // third_party/uplot/VERSION
std::string_view ReportJs();      // src/report/html/assets/report.js
std::string_view ReportCss();     // src/report/html/assets/report.css

}  // namespace gpuwhy::report::html_assets
