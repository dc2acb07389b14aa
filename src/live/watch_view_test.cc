// Watch view, JSON and Prometheus rendering from hand-built Snapshots.
#include "live/watch_view.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "live/prometheus_exporter.h"

namespace gpuwhy::live {
namespace {

using record::Metric;

record::Snapshot MakeSnapshot(int64_t ts_ns, double util, bool lost_second) {
  auto sys = std::make_shared<record::SystemInfo>();
  sys->hostname = "node1";
  for (int i = 0; i < 2; ++i) {
    record::DeviceInfo d;
    d.index = i;
    d.name = i == 0 ? "GPU Zero" : "GPU One";
    d.uuid = "GPU-" + std::to_string(i);
    d.gpm_supported = i == 0;
    sys->devices.push_back(d);
  }
  record::Snapshot s;
  s.ts_ns = ts_ns;
  s.system = sys;
  for (int i = 0; i < 2; ++i) {
    record::DeviceSnapshot d;
    d.index = i;
    d.at(Metric::kGpuUtil) = {util, 0, record::Source::kNvmlSamples, ts_ns};
    d.at(Metric::kPowerMw) = {300000, 0, record::Source::kNvmlPoll, ts_ns};
    if (i == 0) d.at(Metric::kSmActive) = {0.25, 0, record::Source::kGpm, ts_ns};
    else d.at(Metric::kSmActive) = {kMissingF64, 3, record::Source::kNone, kMissingI64};
    if (i == 1 && lost_second) {
      d.lost = true;
      d.lost_reason = "GPU is lost";
    }
    record::ProcessInfo p;
    p.pid = 100 + i;
    p.name = "python";
    p.used_memory_bytes = 1 << 30;
    d.processes.push_back(p);
    s.devices.push_back(d);
  }
  return s;
}

size_t VisibleCells(const std::string& line) {
  size_t cells = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b) {
      i = line.find('m', i);
      continue;
    }
    if ((c & 0xC0) != 0x80) ++cells;
  }
  return cells;
}

TEST(WatchView, MissingIsNaAndLinesFitTheWidth) {
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.9, false);
  h.Add(s);
  ViewState v;
  for (int width : {60, 100, 140}) {
    std::string frame = Draw(s, h, v, width, 200);
    std::istringstream in(frame);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
      EXPECT_EQ(VisibleCells(line), static_cast<size_t>(width)) << line;
      ++lines;
    }
    EXPECT_GT(lines, 10);
  }
  std::string frame = Draw(s, h, v, 140, 200);
  EXPECT_NE(frame.find("GPU One"), std::string::npos);
  // GPU 1's SM active is unsupported: n/a, and no " 0%" for it.
  size_t one = frame.find("GPU One");
  size_t real = frame.find("SM active", one);
  ASSERT_NE(real, std::string::npos);
  std::string real_line = frame.substr(real, frame.find('\n', real) - real);
  EXPECT_NE(real_line.find("n/a"), std::string::npos) << real_line;
  EXPECT_EQ(real_line.find(" 0%"), std::string::npos) << real_line;
}

TEST(WatchView, HeightLimitsLinesAndLostDeviceSaysSo) {
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.5, true);
  h.Add(s);
  ViewState v;
  v.color = false;
  std::string frame = Draw(s, h, v, 100, 6);
  EXPECT_EQ(std::count(frame.begin(), frame.end(), '\n'), 5);
  std::string full = Draw(s, h, v, 100, 100);
  EXPECT_NE(full.find("lost: GPU is lost"), std::string::npos) << full;
}

TEST(WatchView, HistoryKeepsTheWindowAndFeedsTheVerdict) {
  History h(10 * kNsPerS);
  for (int i = 0; i < 40; ++i) h.Add(MakeSnapshot(int64_t{i} * kNsPerS / 2, i % 2 ? 1.0 : 0.0, false));
  const auto& pts = h.Points(0, Metric::kGpuUtil);
  ASSERT_FALSE(pts.empty());
  EXPECT_GE(pts.front().ts_ns, 39 * kNsPerS / 2 - 10 * kNsPerS);
  LiveVerdict v = ClassifyLive(h, 0, kNsPerS / 2);
  EXPECT_EQ(v.curve_class, "JUMPS") << v.reason;
}

TEST(WatchView, JsonNullAndPrometheusOmitsMissing) {
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.9, false);
  h.Add(s);
  std::string j = SnapshotJson(s, h);
  EXPECT_NE(j.find("\"sm_active\":{\"value\":null,\"unit\":\"ratio\",\"source\":null,\"status\":3}"),
            std::string::npos) << j;
  std::string p = PrometheusText(s, h);
  EXPECT_NE(p.find("gpuwhy_sm_active_ratio{gpu=\"0\",UUID=\"GPU-0\",modelName=\"GPU Zero\","
                   "Hostname=\"node1\"} 0.25"), std::string::npos) << p;
  EXPECT_EQ(p.find("gpuwhy_sm_active_ratio{gpu=\"1\""), std::string::npos) << p;
  EXPECT_NE(p.find("gpuwhy_power_watts{gpu=\"1\",UUID=\"GPU-1\",modelName=\"GPU One\","
                   "Hostname=\"node1\"} 300"), std::string::npos) << p;
}

TEST(WatchView, NvlinkLinksRealSourceAndMigInPrometheus) {
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.9, false);
  auto sys = std::make_shared<record::SystemInfo>(*s.system);
  sys->devices[1].real_source = record::Source::kDcgm;
  sys->devices[1].mig_mode = 1;
  s.system = sys;
  record::LinkReading l;
  l.link = 3;
  l.tx = {2048, 0, record::Source::kNvmlFields, 1};
  l.rx = {kMissingF64, 3, record::Source::kNvmlFields, 1};  // unsupported: left out
  s.devices[0].nvlinks.push_back(l);
  record::MigReading m;
  m.gpu_instance_id = 2;
  m.compute_instance_id = 0;
  m.mem_used = {5e9, 0, record::Source::kNvmlPoll, 1};
  s.devices[1].mig.push_back(m);
  h.Add(s);
  std::string p = PrometheusText(s, h);
  EXPECT_NE(p.find("gpuwhy_nvlink_link_tx_bytes_per_second{gpu=\"0\",UUID=\"GPU-0\",modelName=\"GPU Zero\","
                   "Hostname=\"node1\",link=\"3\"} 2048"), std::string::npos) << p;
  EXPECT_EQ(p.find("gpuwhy_nvlink_link_rx_bytes_per_second"), std::string::npos) << p;
  EXPECT_NE(p.find("gpuwhy_real_util_source_info{gpu=\"0\",UUID=\"GPU-0\",modelName=\"GPU Zero\","
                   "Hostname=\"node1\",source=\"nvml gpm\"} 1"), std::string::npos) << p;
  EXPECT_NE(p.find("source=\"dcgm\"} 1"), std::string::npos) << p;
  EXPECT_NE(p.find("gpuwhy_mig_memory_used_bytes{gpu=\"1\",UUID=\"GPU-1\",modelName=\"GPU One\","
                   "Hostname=\"node1\",GPU_I_ID=\"2\",GPU_CI_ID=\"0\"} 5000000000"), std::string::npos) << p;
  EXPECT_EQ(p.find("gpuwhy_mig_sm_active_ratio"), std::string::npos) << p;  // missing: absent
  ViewState v;
  v.color = false;
  std::string frame = Draw(s, h, v, 140, 200);
  EXPECT_NE(frame.find("(real: NVML GPM)"), std::string::npos) << frame;
  EXPECT_NE(frame.find("(real: DCGM)  MIG on: GPU-Util n/a per instance"), std::string::npos) << frame;
  EXPECT_NE(frame.find("MIG GI 2 CI 0"), std::string::npos) << frame;
  std::string j = SnapshotJson(s, h);
  EXPECT_NE(j.find("\"nvlinks\":[{\"link\":3,\"tx_bytes_per_second\":2048,\"rx_bytes_per_second\":null,"
                   "\"tx_status\":0,\"rx_status\":3}]"), std::string::npos) << j;
}

TEST(WatchView, ClockEventReasonsAreOneSeriesEach) {
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.9, false);
  s.devices[0].at(Metric::kClockEventReasons) = {0x4 | 0x40, 0, record::Source::kNvmlPoll, 1};
  h.Add(s);
  std::string p = PrometheusText(s, h);
  const std::string l0 = "{gpu=\"0\",UUID=\"GPU-0\",modelName=\"GPU Zero\",Hostname=\"node1\",";
  EXPECT_NE(p.find("gpuwhy_clock_event_active" + l0 + "reason=\"sw_power_cap\"} 1"), std::string::npos) << p;
  EXPECT_NE(p.find("gpuwhy_clock_event_active" + l0 + "reason=\"hw_thermal\"} 1"), std::string::npos) << p;
  EXPECT_NE(p.find("gpuwhy_clock_event_active" + l0 + "reason=\"sw_thermal\"} 0"), std::string::npos) << p;
  // The second GPU has no bitmask: no reason series (missing is not 0).
  EXPECT_EQ(p.find("gpuwhy_clock_event_active{gpu=\"1\""), std::string::npos) << p;
}

TEST(WatchView, MetricNamesListEveryFamilyTheExporterWrites) {
  // Every optional family present at once; the TYPE lines must be exactly the list.
  History h;
  record::Snapshot s = MakeSnapshot(1'000'000'000, 0.9, false);
  for (size_t m = 0; m < static_cast<size_t>(Metric::kCount); ++m)
    if (!s.devices[0].at(static_cast<Metric>(m)).valid())
      s.devices[0].at(static_cast<Metric>(m)) = {1, 0, record::Source::kNvmlPoll, 1};
  record::LinkReading l;
  l.link = 0;
  l.tx = {1, 0, record::Source::kNvmlFields, 1};
  l.rx = {1, 0, record::Source::kNvmlFields, 1};
  s.devices[0].nvlinks.push_back(l);
  record::MigReading mig;
  mig.mem_used = {1, 0, record::Source::kNvmlPoll, 1};
  mig.sm_active = {1, 0, record::Source::kGpm, 1};
  s.devices[0].mig.push_back(mig);
  record::ProcessInfo proc;
  proc.pid = 7;
  proc.name = "py";
  proc.used_memory_bytes = 1;
  proc.sm_util_ratio = 0.5;
  s.devices[0].processes.push_back(proc);
  h.Add(s);
  record::Owners owners;
  owners.pod_resources = record::PodResourcesState::kUp;
  record::GpuOwner g;
  g.gpu_index = s.system->devices[0].index;
  g.pod = "p";
  owners.gpus.push_back(g);
  owners.by_pid[7].pod = "p";
  std::string p = PrometheusText(s, h, &owners);
  EXPECT_NE(p.find(",pid=\"7\",process_name=\"py\",pod=\"p\"} 0.5"), std::string::npos) << p;
  std::set<std::string> typed;
  std::istringstream in(p);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# TYPE ", 0) == 0) typed.insert(line.substr(7, line.find(' ', 7) - 7));
  std::vector<std::string> listed = PrometheusMetricNames();
  EXPECT_EQ(typed, std::set<std::string>(listed.begin(), listed.end())) << p;
}

TEST(PrometheusServer, ParsesRequestHeads) {
  HttpRequestHead a = ParseRequestHead("GET /metrics?x=1 HTTP/1.1\r\nHost: h\r\n");
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(a.method, "GET");
  EXPECT_EQ(a.target, "/metrics");
  EXPECT_TRUE(a.keep_alive);
  EXPECT_FALSE(ParseRequestHead("GET /metrics HTTP/1.1\r\nconnection: Close\r\n").keep_alive);
  EXPECT_FALSE(ParseRequestHead("GET /metrics HTTP/1.0\r\n").keep_alive);
  EXPECT_TRUE(ParseRequestHead("GET / HTTP/1.0\r\nConnection: keep-alive\r\n").keep_alive);
  // A header value in the request line is not a header.
  EXPECT_TRUE(ParseRequestHead("GET /connection:close HTTP/1.1\r\n").keep_alive);
  EXPECT_FALSE(ParseRequestHead("GET /metrics\r\n").valid);
  EXPECT_FALSE(ParseRequestHead("GET  HTTP/1.1\r\n").valid);
  EXPECT_FALSE(ParseRequestHead("GET /metrics FTP/1.1\r\n").valid);
  EXPECT_FALSE(ParseRequestHead("").valid);
  // A query without a path (the fuzzer's first find) is not a target.
  EXPECT_FALSE(ParseRequestHead("GET ? HTTP/1.0\r\nConnection: kee\0\0p\nahive\r\n").valid);
}

TEST(PrometheusServer, ServesOnLoopbackAndStops) {
  PrometheusServer server;
  ASSERT_TRUE(server.Start("127.0.0.1", 0).ok());
  EXPECT_GT(server.port(), 0);
  server.Update("x 1\n");
  server.Stop();
  server.Stop();  // idempotent
  std::string host;
  int port = 0;
  EXPECT_TRUE(ParseHostPort("127.0.0.1:9400", &host, &port).ok());
  EXPECT_EQ(port, 9400);
  EXPECT_FALSE(ParseHostPort("127.0.0.1", &host, &port).ok());
  EXPECT_FALSE(ParseHostPort("h:99999", &host, &port).ok());
}

}  // namespace
}  // namespace gpuwhy::live
