#include "report/terminal/terminal_renderer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/terminal/text_format.h"

namespace gpuwhy::report {
namespace {

analysis::Analysis MakeAnalysis() {
  model::Trace t;
  t.info.source_path = "some/dir/with/a/rather/long/path/name/that/keeps/going/and/going/"
                       "further/than/one/hundred/columns/trace.pt.trace.json.gz";
  t.info.format = "kineto-json";
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = 0;
  k.end_ns = 5000;
  k.name = t.strings.Intern(std::string(300, 'x') + "_kernel");
  t.kernels.Append(k);
  model::MemcpyRow m;  // no byte count: bytes and bandwidth must read n/a
  m.device_id = 0;
  m.start_ns = 6000;
  m.end_ns = 7000;
  m.copy_kind = model::CopyKind::kHtoD;
  t.memcpys.Append(m);
  t.stats.Bump(model::ImportStat::missing_ts, 3);
  t.Finalize();
  analysis::Analysis a;
  a.tool_version = "test";
  a.traces.push_back(analysis::AnalyzeTrace(t, {}));
  return a;
}

std::string Render(const analysis::Analysis& a) {
  std::ostringstream os;
  RenderTerminal(a, os, TerminalOptions{});
  return os.str();
}

TEST(TerminalRenderer, DeviceTitleNamesATpuSo) {
  // A TPU (vendor google: JAX/XLA traces and XSpace planes) is not titled
  // "GPU"; a device of unknown vendor still is.
  model::Trace t;
  t.info.format = "jax-trace-json";
  model::KernelRow k;
  k.device_id = 2;
  k.stream_id = 1;
  k.start_ns = 0;
  k.end_ns = 5000;
  k.name = t.strings.Intern("convolution.1");
  t.kernels.Append(k);
  k.device_id = 3;
  t.kernels.Append(k);
  t.Finalize();
  for (model::Device& d : t.devices)
    if (d.device_id == 2) d.vendor = model::Vendor::kGoogle;
  analysis::Analysis a;
  a.tool_version = "test";
  a.traces.push_back(analysis::AnalyzeTrace(t, {}));
  const std::string out = Render(a);
  EXPECT_NE(out.find("TPU 2 ·"), std::string::npos) << out;
  EXPECT_EQ(out.find("GPU 2 ·"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU 3 ·"), std::string::npos) << out;
}

TEST(TerminalRenderer, NoLineWiderThan100Columns) {
  std::string text = Render(MakeAnalysis());
  std::istringstream in(text);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_LE(DisplayWidth(line), 100u) << line;
  }
  EXPECT_GT(lines, 10);
  // A long path keeps its file name and the format.
  EXPECT_NE(text.find("trace.pt.trace.json.gz · kineto-json"), std::string::npos) << text;
}

TEST(TerminalRenderer, MissingValuesPrintNa) {
  std::string text = Render(MakeAnalysis());
  // The memcpy row has neither bytes nor bandwidth.
  size_t row = text.find("Memcpy HtoD");
  ASSERT_NE(row, std::string::npos);
  std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_NE(line.find("n/a"), std::string::npos) << line;
  EXPECT_EQ(line.find("0 B"), std::string::npos) << line;
  EXPECT_EQ(line.find("GB/s"), std::string::npos) << line;
  EXPECT_NE(text.find("rank n/a"), std::string::npos);
  EXPECT_NE(text.find("none found (no ProfilerStep#N"), std::string::npos);
  EXPECT_NE(text.find("missing_ts"), std::string::npos);
}

TEST(TerminalRenderer, NoGpuActivitySaysSo) {
  model::Trace t;
  t.Finalize();
  analysis::Analysis a;
  a.traces.push_back(analysis::AnalyzeTrace(t, {}));
  std::string text = Render(a);
  EXPECT_NE(text.find("no GPU activity"), std::string::npos);
  EXPECT_NE(text.find("extent      n/a"), std::string::npos) << text;
}

TEST(TextFormat, UnitsAndMissing) {
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(12345), "12.3 µs");
  EXPECT_EQ(FormatDuration(4560000), "4.56 ms");
  EXPECT_EQ(FormatDuration(7890000000), "7.890 s");
  EXPECT_EQ(FormatDuration(kMissingI64), "n/a");
  EXPECT_EQ(FormatDurationF(kMissingF64), "n/a");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(3200000), "3.20 MB");
  EXPECT_EQ(FormatBytes(kMissingI64), "n/a");
  EXPECT_EQ(FormatPct(0.1234), "12.3%");
  EXPECT_EQ(FormatPct(kMissingF64), "n/a");
  EXPECT_EQ(FormatGbps(12.345), "12.3 GB/s");
  EXPECT_EQ(FormatGbps(3.2), "3.20 GB/s");
  EXPECT_EQ(FormatGbps(0.002), "0.0020 GB/s");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(12), "12");
  EXPECT_EQ(FormatInt(kMissingI32), "n/a");
}

TEST(TextFormat, FitWidthCountsCodePoints) {
  EXPECT_EQ(DisplayWidth("12.3 µs"), 7u);
  EXPECT_EQ(FitWidth("abcdefghij", 6), "abc...");
  EXPECT_EQ(FitWidth("µµµµµµµµ", 5), "µµ...");
  EXPECT_EQ(FitWidth("short", 10), "short");
  EXPECT_EQ(LastColumns("abcdef", 3), "def");
  EXPECT_EQ(LastColumns("aµµ", 2), "µµ");
  EXPECT_EQ(LastColumns("ab", 5), "ab");
}

TEST(TextTable, AlignsAndShrinks) {
  TextTable t({{"name", true}, {"count"}});
  t.AddRow({std::string(50, 'n'), "1"});
  t.AddRow({"b", "12345"});
  std::ostringstream os;
  t.Render(os, 2, 30, 0);
  std::istringstream in(os.str());
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(DisplayWidth(line), 30u) << line;
  EXPECT_NE(os.str().find("..."), std::string::npos);
  EXPECT_NE(os.str().find("  b"), std::string::npos);
}

}  // namespace
}  // namespace gpuwhy::report
