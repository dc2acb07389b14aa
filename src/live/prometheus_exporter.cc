#include "live/prometheus_exporter.h"

#include <chrono>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

// cpp-httplib is header-only and noisy under our warning set.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#include <httplib.h>

#include "record/nvml/nvml_api.h"
#pragma GCC diagnostic pop

namespace gpuwhy::live {

using record::Metric;

namespace {

struct Exposed {
  Metric metric;
  const char* name;
  double scale;  // to base units
  const char* help;
};
constexpr Exposed kExposed[] = {
    {Metric::kGpuUtil, "gpuwhy_gpu_busy_ratio", 1,
     "NVML GPU-Util (surface): share of the sample period with >= 1 kernel running"},
    {Metric::kMemUtil, "gpuwhy_memory_busy_ratio", 1, "NVML memory-controller busy share"},
    {Metric::kSmActive, "gpuwhy_sm_active_ratio", 1,
     "SM utilization (real): share of SMs busy (GPM or DCGM, see gpuwhy_real_util_source_info)"},
    {Metric::kSmOccupancy, "gpuwhy_sm_occupancy_ratio", 1, "SM occupancy: resident warps / max (GPM or DCGM)"},
    {Metric::kTensorActive, "gpuwhy_tensor_active_ratio", 1, "tensor pipe utilization (GPM or DCGM)"},
    {Metric::kDramActive, "gpuwhy_dram_active_ratio", 1, "DRAM bandwidth utilization (GPM or DCGM)"},
    {Metric::kFp16Active, "gpuwhy_fp16_active_ratio", 1, "GPM FP16 pipe utilization (non-tensor)"},
    {Metric::kFp32Active, "gpuwhy_fp32_active_ratio", 1, "GPM FP32 pipe utilization (non-tensor)"},
    {Metric::kFp64Active, "gpuwhy_fp64_active_ratio", 1, "GPM FP64 pipe utilization (non-tensor)"},
    {Metric::kGrEngineActive, "gpuwhy_graphics_engine_active_ratio", 1, "GPM graphics/compute engine active"},
    {Metric::kPowerMw, "gpuwhy_power_watts", 1e-3, "power draw"},
    {Metric::kPowerLimitMw, "gpuwhy_power_limit_watts", 1e-3, "enforced power limit"},
    {Metric::kSmClockMhz, "gpuwhy_sm_clock_hertz", 1e6, "SM clock"},
    {Metric::kMemClockMhz, "gpuwhy_memory_clock_hertz", 1e6, "memory clock"},
    {Metric::kClockEventReasons, "gpuwhy_clock_event_reasons", 1,
     "NVML clock-event (throttle) reason bitmask"},
    {Metric::kPcieTxBytesPerS, "gpuwhy_pcie_tx_bytes_per_second", 1, "PCIe transmit throughput"},
    {Metric::kPcieRxBytesPerS, "gpuwhy_pcie_rx_bytes_per_second", 1, "PCIe receive throughput"},
    {Metric::kNvlinkTxBytesPerS, "gpuwhy_nvlink_tx_bytes_per_second", 1,
     "NVLink transmit throughput, all links (GPM, else NVML field values)"},
    {Metric::kNvlinkRxBytesPerS, "gpuwhy_nvlink_rx_bytes_per_second", 1,
     "NVLink receive throughput, all links (GPM, else NVML field values)"},
    {Metric::kMemUsedBytes, "gpuwhy_memory_used_bytes", 1, "device memory used"},
    {Metric::kMemTotalBytes, "gpuwhy_memory_total_bytes", 1, "device memory total"},
    {Metric::kTemperatureC, "gpuwhy_temperature_celsius", 1, "GPU temperature"},
};

// Clock-event reasons that slow a busy GPU down, one series each: PromQL has
// no bitwise operators, so alert rules cannot test the NVML bitmask itself.
struct ClockReason {
  unsigned long long bit;
  const char* name;
};
constexpr ClockReason kClockReasons[] = {
    {record::nvml::kClockEventSwPowerCap, "sw_power_cap"},
    {record::nvml::kClockEventHwSlowdown, "hw_slowdown"},
    {record::nvml::kClockEventSwThermal, "sw_thermal"},
    {record::nvml::kClockEventHwThermal, "hw_thermal"},
    {record::nvml::kClockEventHwPowerBrake, "hw_power_brake"},
    {record::nvml::kClockEventSyncBoost, "sync_boost"},
    {record::nvml::kClockEventGpuIdle, "gpu_idle"},
};

std::string LabelEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

}  // namespace

std::string PrometheusText(const record::Snapshot& snap, const History& history) {
  const auto& sys = *snap.system;
  std::vector<std::string> labels;
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    const auto& info = sys.devices[i];
    labels.push_back(fmt::format("gpu=\"{}\",UUID=\"{}\",modelName=\"{}\",Hostname=\"{}\"",
                                 info.index, LabelEscape(info.uuid), LabelEscape(info.name),
                                 LabelEscape(sys.hostname)));
  }
  std::string o;
  for (const Exposed& e : kExposed) {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const record::Reading& r = snap.devices[i].at(e.metric);
      if (!r.valid() || snap.devices[i].lost) continue;
      body += fmt::format("{}{{{}}} {}\n", e.name, labels[i], r.value * e.scale);
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", e.name, e.help, e.name);
    o += body;
  }
  // Clock-event reasons, one 0/1 series per reason, when the bitmask is known.
  {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const record::Reading& r = snap.devices[i].at(Metric::kClockEventReasons);
      if (!r.valid() || snap.devices[i].lost) continue;
      const auto mask = static_cast<unsigned long long>(r.value);
      for (const ClockReason& c : kClockReasons)
        body += fmt::format("gpuwhy_clock_event_active{{{},reason=\"{}\"}} {}\n", labels[i], c.name,
                            (mask & c.bit) != 0 ? 1 : 0);
    }
    if (!body.empty()) {
      o += "# HELP gpuwhy_clock_event_active 1 while NVML reports this clock-event (throttle) "
           "reason\n# TYPE gpuwhy_clock_event_active gauge\n";
      o += body;
    }
  }
  // Per-link NVLink throughput (field values); the device totals are above.
  for (int dir = 0; dir < 2; ++dir) {
    const char* name = dir == 0 ? "gpuwhy_nvlink_link_tx_bytes_per_second"
                                : "gpuwhy_nvlink_link_rx_bytes_per_second";
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      if (snap.devices[i].lost) continue;
      for (const record::LinkReading& l : snap.devices[i].nvlinks) {
        const record::Reading& r = dir == 0 ? l.tx : l.rx;
        if (!r.valid()) continue;
        body += fmt::format("{}{{{},link=\"{}\"}} {}\n", name, labels[i], l.link, r.value);
      }
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} NVLink {} throughput of one link (NVML field values)\n# TYPE {} gauge\n",
                     name, dir == 0 ? "transmit" : "receive", name);
    o += body;
  }
  // Where the real-utilization figures come from (GPM or DCGM), per device.
  {
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      const auto& info = sys.devices[i];
      record::Source rs = info.real_source != record::Source::kNone
                              ? info.real_source
                              : (info.gpm_supported ? record::Source::kGpm : record::Source::kNone);
      if (rs == record::Source::kNone) continue;
      body += fmt::format("gpuwhy_real_util_source_info{{{},source=\"{}\"}} 1\n", labels[i],
                          record::SourceName(rs));
    }
    if (!body.empty()) {
      o += "# HELP gpuwhy_real_util_source_info source of the sm_active/occupancy/tensor/DRAM "
           "ratios (value always 1)\n# TYPE gpuwhy_real_util_source_info gauge\n";
      o += body;
    }
  }
  // MIG devices: memory per instance (GPU-Util does not exist per instance).
  for (int which = 0; which < 2; ++which) {
    const char* name = which == 0 ? "gpuwhy_mig_memory_used_bytes" : "gpuwhy_mig_sm_active_ratio";
    std::string body;
    for (size_t i = 0; i < snap.devices.size(); ++i) {
      if (snap.devices[i].lost) continue;
      for (const record::MigReading& m : snap.devices[i].mig) {
        const record::Reading& r = which == 0 ? m.mem_used : m.sm_active;
        if (!r.valid()) continue;
        body += fmt::format("{}{{{},GPU_I_ID=\"{}\",GPU_CI_ID=\"{}\"}} {}\n", name, labels[i],
                            m.gpu_instance_id, m.compute_instance_id, r.value);
      }
    }
    if (body.empty()) continue;
    o += fmt::format("# HELP {} {} of one MIG instance\n# TYPE {} gauge\n", name,
                     which == 0 ? "device memory used" : "GPM SM utilization", name);
    o += body;
  }
  o += "# HELP gpuwhy_device_lost 1 when NVML reported the GPU lost or gone\n"
       "# TYPE gpuwhy_device_lost gauge\n";
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    o += fmt::format("gpuwhy_device_lost{{{}}} {}\n", labels[i], snap.devices[i].lost ? 1 : 0);
  }
  o += "# HELP gpuwhy_curve_info live curve-shape class of GPU-Util (value always 1)\n"
       "# TYPE gpuwhy_curve_info gauge\n";
  for (size_t i = 0; i < snap.devices.size(); ++i) {
    LiveVerdict v = ClassifyLive(history, i, sys.devices[i].util_sample_period_ns);
    o += fmt::format("gpuwhy_curve_info{{{},pattern=\"{}\"}} 1\n", labels[i], v.curve_class);
  }
  return o;
}

std::vector<std::string> PrometheusMetricNames() {
  std::vector<std::string> names;
  for (const Exposed& e : kExposed) names.emplace_back(e.name);
  for (const char* n : {"gpuwhy_clock_event_active", "gpuwhy_nvlink_link_tx_bytes_per_second",
                        "gpuwhy_nvlink_link_rx_bytes_per_second", "gpuwhy_real_util_source_info",
                        "gpuwhy_mig_memory_used_bytes", "gpuwhy_mig_sm_active_ratio",
                        "gpuwhy_device_lost", "gpuwhy_curve_info"})
    names.emplace_back(n);
  return names;
}

PrometheusServer::PrometheusServer() = default;

PrometheusServer::~PrometheusServer() { Stop(); }

Status ParseHostPort(const std::string& spec, std::string* host, int* port) {
  auto colon = spec.rfind(':');
  if (colon == std::string::npos) return InvalidInput("--prometheus: expected HOST:PORT, got '" + spec + "'");
  *host = colon == 0 ? "127.0.0.1" : spec.substr(0, colon);
  char* end = nullptr;
  long p = std::strtol(spec.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || p < 0 || p > 65535 || colon + 1 == spec.size()) {
    return InvalidInput("--prometheus: bad port in '" + spec + "'");
  }
  *port = static_cast<int>(p);
  return Status::Ok();
}

Status PrometheusServer::Start(const std::string& host, int port) {
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::string body;
    {
      std::lock_guard<std::mutex> lock(mu_);
      body = text_;
      ++scrapes_;
    }
    res.set_content(body, "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("gpuwhy watch: metrics at /metrics\n", "text/plain");
  });
  if (port == 0) {
    port_ = server_->bind_to_any_port(host);
    if (port_ <= 0) return IoError(fmt::format("--prometheus: cannot listen on {}:0", host));
  } else {
    if (!server_->bind_to_port(host, port)) {
      return IoError(fmt::format("--prometheus: cannot listen on {}:{} (in use or not permitted)", host, port));
    }
    port_ = port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // Why: httplib's stop() is a no-op until the listen loop runs, so a Stop()
  // right after Start() would leave the thread listening forever. Wait (at most
  // 5 s) until the loop is up.
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

void PrometheusServer::Update(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  text_ = std::move(text);
}

uint64_t PrometheusServer::scrapes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return scrapes_;
}

void PrometheusServer::Stop() {
  if (server_ && thread_.joinable()) {
    // Why: stop() before the listen loop started is lost and listen would
    // then run forever; wait (bounded, 5 s) for it to run first.
    for (int i = 0; i < 5000 && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace gpuwhy::live
