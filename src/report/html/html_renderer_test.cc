// Unit tests of the HTML report: HTML-safe JSON escaping, a page with no
// network reference and no raw trace string outside the escaped data, and a
// data object that parses.
#include "report/html/html_renderer.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/html/html_assets.h"

namespace gpuwhy::report {
namespace {

TEST(HtmlRenderer, EscapeJsonForHtmlCoversScriptBreakers) {
  EXPECT_EQ(EscapeJsonForHtml(R"({"k":"</script><!--&"})"),
            R"({"k":"\u003c/script\u003e\u003c!--\u0026"})");
  EXPECT_EQ(EscapeJsonForHtml("\"a\xe2\x80\xa8"
                              "b\xe2\x80\xa9\""),
            R"("a\u2028b\u2029")");
  EXPECT_EQ(EscapeJsonForHtml("\"\xe2\x80\x94\""), "\"\xe2\x80\x94\"");  // other U+20xx kept
  EXPECT_EQ(EscapeJsonForHtml("\"\xe2\""), "\"\xe2\"");                  // truncated sequence kept
}

TEST(HtmlRenderer, AssetsAreEmbedded) {
  EXPECT_GT(html_assets::UplotJs().size(), 10'000u);
  EXPECT_NE(html_assets::UplotJs().find("uPlot"), std::string_view::npos);
  EXPECT_NE(html_assets::UplotLicense().find("MIT"), std::string_view::npos);
  EXPECT_FALSE(html_assets::ReportJs().empty());
  EXPECT_FALSE(html_assets::ReportCss().empty());
  // Embedded scripts must not close their own element or open a comment.
  for (std::string_view s : {html_assets::UplotJs(), html_assets::ReportJs()}) {
    EXPECT_EQ(s.find("</script"), std::string_view::npos);
    EXPECT_EQ(s.find("<!--"), std::string_view::npos);
  }
}

analysis::Analysis HostileAnalysis() {
  analysis::Analysis a;
  a.tool_version = "0.1.0";
  analysis::TraceAnalysis t;
  t.input.path = "/tmp/<b>trace&\"x.json";
  analysis::DeviceSummary d;
  d.device_id = 0;
  analysis::KernelNameStats k;
  k.name = "<script>alert(1)</script>";
  k.count = 1;
  d.kernels.top.push_back(k);
  t.summary.devices.push_back(d);
  a.traces.push_back(t);
  analysis::detectors::Diagnosis dg;
  dg.top_line = "\"><img src=x onerror=alert(1)>";
  a.diagnosis = dg;
  return a;
}

TEST(HtmlRenderer, PageKeepsTraceStringsInsideTheEscapedData) {
  analysis::Analysis a = HostileAnalysis();
  analysis::views::HtmlView v;
  v.traces.resize(1);
  analysis::views::DeviceView dv;
  dv.device_id = 0;
  v.traces[0].devices.push_back(dv);
  std::ostringstream out;
  RenderHtml(a, v, out);
  std::string page = out.str();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>trace"), std::string::npos);
  EXPECT_NE(page.find("<title>gpuwhy: &lt;b&gt;trace&amp;&quot;x.json</title>"), std::string::npos);
  EXPECT_NE(page.find(R"(\u003cscript\u003ealert(1)\u003c/script\u003e)"), std::string::npos);
  // Nothing that loads from elsewhere.
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find(" src=\""), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url(http"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  // Exactly the three scripts: data, uPlot, report.
  size_t scripts = 0;
  for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);
}

TEST(HtmlRenderer, DataJsonIsCompactAndComplete) {
  analysis::Analysis a = HostileAnalysis();
  analysis::views::HtmlView v;
  v.traces.resize(1);
  analysis::views::DeviceView dv;
  dv.device_id = 0;
  dv.utilization.push_back(analysis::views::ReduceRegular(0, 1000, {0.5, 0.25, 0.0}, 10));
  dv.utilization.back().unit = "ratio";
  v.traces[0].devices.push_back(dv);
  std::string j = HtmlDataJson(a, v);
  EXPECT_EQ(j.find('\n'), std::string::npos);
  EXPECT_NE(j.find("\"mean\":[0.5,0.25,0]"), std::string::npos);
  EXPECT_NE(j.find("\"causes\":[\"data loader\""), std::string::npos);
  EXPECT_NE(j.find("\"diagnosis\":{"), std::string::npos);
  EXPECT_NE(j.find("\"noun\":\"GPU\""), std::string::npos);  // no summary: a GPU
}

TEST(HtmlRenderer, TpuDevicesAreCalledSo) {
  analysis::Analysis a = HostileAnalysis();
  analysis::DeviceSummary s;
  s.device_id = 2;
  s.vendor = model::Vendor::kGoogle;
  a.traces[0].summary.devices.push_back(s);
  analysis::views::HtmlView v;
  v.traces.resize(1);
  analysis::views::DeviceView dv;
  dv.device_id = 2;
  v.traces[0].devices.push_back(dv);
  const std::string j = HtmlDataJson(a, v);
  EXPECT_NE(j.find("\"noun\":\"TPU\""), std::string::npos) << j;
  EXPECT_EQ(j.find("\"noun\":\"GPU\""), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy::report
