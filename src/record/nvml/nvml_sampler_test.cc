// NvmlSampler in-process against the fake NVML: probing, GPM, the R535
// process-record stride, a GPU lost mid-run, and error texts.
#include "record/nvml/nvml_sampler.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuwhy::record {
namespace {

TEST(ParseVisibleDevices, IndicesUuidsAndStops) {
  std::vector<std::string> uuids = {"GPU-aaaa-1", "GPU-bbbb-2", "GPU-cccc-3"};
  EXPECT_EQ(ParseVisibleDevices("", uuids), std::vector<int32_t>{});
  EXPECT_EQ(ParseVisibleDevices("2,0", uuids), (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(ParseVisibleDevices("GPU-bbbb", uuids), (std::vector<int32_t>{1}));
  EXPECT_EQ(ParseVisibleDevices("0,7,1", uuids), (std::vector<int32_t>{0}));  // stops at 7
}

TEST(NvmlErrors, EveryCodeHasText) {
  for (int code : {1, 2, 3, 4, 6, 9, 12, 13, 15, 17, 18, 28, 999}) {
    EXPECT_NE(nvml::NvmlErrorName(code), "unrecognised NVML error") << code;
  }
  EXPECT_EQ(nvml::NvmlErrorName(12345), "unrecognised NVML error");
}

TEST(NvmlSampler, AgainstFakeNvml) {
  std::string scen = "/tmp/gpuwhy_sampler_test_" + std::to_string(getpid()) + ".txt";
  std::ofstream(scen) << "devices 2\n"
                         "process_stride 32\n"
                         "metric 0 gpu_util constant 80\n"
                         "metric 0 sm_active constant 20\n"
                         "metric 0 power constant 250000\n"
                         "process 0 pid 4242 name a mem 111 util 30\n"
                         "process 0 pid 4343 name b mem 222\n"
                         "gpm 1 0\n"
                         "unsupported 1 power\n"
                         "lost 1 400 15\n";
  setenv("GPUWHY_NVML_LIBRARY", GPUWHY_FAKE_NVML, 1);
  setenv("GPUWHY_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  setenv("GPUWHY_DCGM_LIBRARY", "/nonexistent/libdcgm.so.4", 1);
  auto lib = nvml::NvmlLibrary::Load();
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  EXPECT_EQ(lib.value()->process_api(), nvml::ProcessApi::kV3);
  EXPECT_NE(lib.value()->ErrorMessage(15).find("GPU is lost"), std::string::npos);
  auto s = NvmlSampler::Open(std::move(lib).value(), SamplerOptions{});
  ASSERT_TRUE(s.ok()) << s.status().message();
  NvmlSampler& sampler = *s.value();
  ASSERT_EQ(sampler.system()->devices.size(), 2u);
  const DeviceInfo& d0 = sampler.system()->devices[0];
  const DeviceInfo& d1 = sampler.system()->devices[1];
  EXPECT_TRUE(d0.gpm_supported);
  EXPECT_FALSE(d1.gpm_supported);
  EXPECT_EQ(d0.sm_count, 132);  // 16896 cores / 128
  EXPECT_EQ(d0.util_sample_period_ns, 166666000);
  EXPECT_FALSE(d1.supported[static_cast<size_t>(Metric::kPowerMw)]);
  // GPU 1 has no GPM and libdcgm is absent: said once, and sampling goes on.
  EXPECT_FALSE(sampler.system()->dcgm_connected);
  EXPECT_NE(sampler.system()->dcgm_status.find("DCGM not used"), std::string::npos);
  EXPECT_NE(sampler.system()->dcgm_status.find("libdcgm not found"), std::string::npos);
  EXPECT_EQ(d1.real_source, Source::kNone);
  EXPECT_EQ(d0.real_source, Source::kGpm);

  Snapshot a = sampler.Sample();
  usleep(150 * 1000);
  Snapshot b = sampler.Sample();
  const DeviceSnapshot& g0 = b.devices[0];
  EXPECT_DOUBLE_EQ(g0.at(Metric::kGpuUtil).value, 0.8);
  EXPECT_EQ(g0.at(Metric::kGpuUtil).source, Source::kNvmlSamples);
  EXPECT_DOUBLE_EQ(g0.at(Metric::kSmActive).value, 0.2);
  EXPECT_EQ(g0.at(Metric::kSmActive).source, Source::kGpm);
  EXPECT_DOUBLE_EQ(g0.at(Metric::kPowerMw).value, 250000);
  ASSERT_EQ(g0.processes.size(), 2u);  // the 32-byte stride was detected
  EXPECT_EQ(g0.processes[1].pid, 4343);
  EXPECT_EQ(g0.processes[1].used_memory_bytes, 222);
  EXPECT_DOUBLE_EQ(g0.processes[0].sm_util_ratio, 0.3);
  EXPECT_DOUBLE_EQ(g0.processes[1].sm_util_ratio, 0.0);  // unlisted = idle
  const DeviceSnapshot& g1 = b.devices[1];
  EXPECT_FALSE(g1.at(Metric::kPowerMw).valid());
  EXPECT_EQ(g1.at(Metric::kPowerMw).status, 3);  // NOT_SUPPORTED, never 0
  EXPECT_FALSE(g1.at(Metric::kSmActive).valid());
  EXPECT_FALSE(g1.lost);

  usleep(400 * 1000);
  Snapshot c = sampler.Sample();
  EXPECT_TRUE(c.devices[1].lost);
  EXPECT_TRUE(c.devices[1].lost_now);
  EXPECT_NE(c.devices[1].lost_reason.find("GPU is lost"), std::string::npos);
  EXPECT_TRUE(c.devices[0].at(Metric::kGpuUtil).valid());  // the others keep going
  Snapshot d = sampler.Sample();
  EXPECT_TRUE(d.devices[1].lost);
  EXPECT_FALSE(d.devices[1].lost_now);
  std::remove(scen.c_str());
}

// NVLink through field values, DCGM as the real source without GPM, and MIG.
TEST(NvmlSampler, NvlinkFieldValuesDcgmAndMig) {
  std::string scen = "/tmp/gpuwhy_sampler_test_nv_" + std::to_string(getpid()) + ".txt";
  std::string dscen = "/tmp/gpuwhy_sampler_test_dcgm_" + std::to_string(getpid()) + ".txt";
  std::ofstream(scen) << "devices 4\n"
                         "gpm 0 0\n"                       // A100-like: NVLink from field values
                         "nvlinks 0 12\n"
                         "metric 0 nvlink_tx_kibps constant 100000\n"   // per link
                         "metric 0 nvlink_rx_kibps constant 50000\n"
                         "gpm 1 0\n"
                         "nvlinks 1 4\n"
                         "unsupported 1 nvlink_totals\n"   // per-entry NOT_SUPPORTED
                         "metric 1 nvlink_tx_kibps constant 1000\n"
                         "mig 2 1\n"                         // H100 in MIG mode, 2 instances
                         "mig_instance 2 1 0 20000000000 5000000000 40\n"
                         "mig_instance 2 2 0 40000000000 1000000000 7\n"
                         "gpm 3 0\n";                        // no NVLink, no DCGM values
  std::ofstream(dscen) << "gpus 4\n"
                          "value 0 1002 0.42\n"
                          "value 0 1003 0.21\n"
                          "value 0 1004 0.05\n"
                          "blank 0 1005\n"
                          "value 1 1002 0.9\n";
  setenv("GPUWHY_NVML_LIBRARY", GPUWHY_FAKE_NVML, 1);
  setenv("GPUWHY_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  setenv("GPUWHY_DCGM_LIBRARY", GPUWHY_FAKE_DCGM, 1);
  setenv("GPUWHY_FAKE_DCGM_SCENARIO", dscen.c_str(), 1);
  auto lib = nvml::NvmlLibrary::Load();
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  SamplerOptions so;
  so.dcgm_host = "10.1.2.3:5555";
  so.dcgm_period_ns = 100 * kNsPerMs;
  auto s = NvmlSampler::Open(std::move(lib).value(), so);
  ASSERT_TRUE(s.ok()) << s.status().message();
  NvmlSampler& sampler = *s.value();
  const SystemInfo& sys = *sampler.system();
  ASSERT_EQ(sys.devices.size(), 4u);
  EXPECT_TRUE(sys.dcgm_connected) << sys.dcgm_status;
  EXPECT_NE(sys.dcgm_status.find("10.1.2.3:5555"), std::string::npos) << sys.dcgm_status;
  EXPECT_EQ(sys.devices[0].real_source, Source::kDcgm);
  EXPECT_EQ(sys.devices[2].real_source, Source::kGpm);
  EXPECT_EQ(sys.devices[0].nvlink_count, 12);
  EXPECT_FALSE(IsValid(sys.devices[3].nvlink_count));
  EXPECT_TRUE(sys.devices[0].supported[static_cast<size_t>(Metric::kNvlinkTxBytesPerS)]);
  EXPECT_FALSE(sys.devices[1].supported[static_cast<size_t>(Metric::kNvlinkTxBytesPerS)]);
  EXPECT_EQ(sys.devices[1].probe_status[static_cast<size_t>(Metric::kNvlinkTxBytesPerS)], 3);
  EXPECT_EQ(sys.devices[2].mig_mode, 1);

  sampler.Sample();
  usleep(250 * 1000);
  Snapshot b = sampler.Sample();
  // GPU 0: totals = 12 links x 100000 KiB/s, as bytes/s (1% for timing jitter).
  const DeviceSnapshot& g0 = b.devices[0];
  const Reading& tx = g0.at(Metric::kNvlinkTxBytesPerS);
  ASSERT_TRUE(tx.valid()) << tx.status;
  EXPECT_EQ(tx.source, Source::kNvmlFields);
  EXPECT_NEAR(tx.value, 12 * 100000 * 1024.0, 12 * 100000 * 1024.0 * 0.01);
  ASSERT_TRUE(g0.at(Metric::kNvlinkRxBytesPerS).valid());
  EXPECT_NEAR(g0.at(Metric::kNvlinkRxBytesPerS).value, 12 * 50000 * 1024.0, 12 * 50000 * 1024.0 * 0.01);
  ASSERT_EQ(g0.nvlinks.size(), 12u);
  EXPECT_EQ(g0.nvlinks[11].link, 11);
  ASSERT_TRUE(g0.nvlinks[3].tx.valid());
  EXPECT_NEAR(g0.nvlinks[3].tx.value, 100000 * 1024.0, 100000 * 1024.0 * 0.01);
  // GPU 0's real figures come from DCGM; a blank is n/a, never 0.
  EXPECT_DOUBLE_EQ(g0.at(Metric::kSmActive).value, 0.42);
  EXPECT_EQ(g0.at(Metric::kSmActive).source, Source::kDcgm);
  EXPECT_DOUBLE_EQ(g0.at(Metric::kSmOccupancy).value, 0.21);
  EXPECT_FALSE(g0.at(Metric::kDramActive).valid());
  EXPECT_EQ(g0.at(Metric::kDramActive).status, kStatusDcgmBlank);
  // GPU 1: totals unsupported per entry -> n/a with NOT_SUPPORTED; the links still answer.
  const DeviceSnapshot& g1 = b.devices[1];
  EXPECT_FALSE(g1.at(Metric::kNvlinkTxBytesPerS).valid());
  EXPECT_EQ(g1.at(Metric::kNvlinkTxBytesPerS).status, 3);
  ASSERT_EQ(g1.nvlinks.size(), 4u);
  EXPECT_NEAR(g1.nvlinks[0].tx.value, 1000 * 1024.0, 1000 * 1024.0 * 0.01);
  EXPECT_DOUBLE_EQ(g1.at(Metric::kSmActive).value, 0.9);
  // GPU 2: MIG mode. No GPU-Util; two instances with memory and GPM SM activity.
  const DeviceSnapshot& g2 = b.devices[2];
  EXPECT_FALSE(g2.at(Metric::kGpuUtil).valid());
  ASSERT_EQ(g2.mig.size(), 2u);
  EXPECT_EQ(g2.mig[0].gpu_instance_id, 1);
  EXPECT_EQ(g2.mig[1].gpu_instance_id, 2);
  EXPECT_EQ(g2.mig[1].compute_instance_id, 0);
  EXPECT_DOUBLE_EQ(g2.mig[0].mem_used.value, 5e9);
  EXPECT_DOUBLE_EQ(g2.mig[1].mem_total.value, 4e10);
  EXPECT_DOUBLE_EQ(g2.mig[0].sm_active.value, 0.40);
  EXPECT_DOUBLE_EQ(g2.mig[1].sm_active.value, 0.07);
  EXPECT_FALSE(g2.mig[0].tensor_active.valid());  // per-metric NOT_SUPPORTED
  EXPECT_NE(g2.mig[0].uuid.find("MIG-"), std::string::npos);
  // GPU 3: no NVLink, no DCGM value: n/a everywhere, never 0.
  const DeviceSnapshot& g3 = b.devices[3];
  EXPECT_FALSE(g3.at(Metric::kNvlinkTxBytesPerS).valid());
  EXPECT_TRUE(g3.nvlinks.empty());
  EXPECT_FALSE(g3.at(Metric::kSmActive).valid());
  EXPECT_EQ(g3.at(Metric::kSmActive).source, Source::kDcgm);
  std::remove(scen.c_str());
  std::remove(dscen.c_str());
}

TEST(NvmlSampler, Nvlink5PerLinkBytesGiveTheTotals) {
  std::string scen = "/tmp/gpuwhy_sampler_test_nv5_" + std::to_string(getpid()) + ".txt";
  std::ofstream(scen) << "devices 1\ngpm 0 0\nnvlinks 0 18\nnvlink5 0 1\n"
                         "metric 0 nvlink_tx_kibps constant 1000\nmetric 0 nvlink_rx_kibps constant 3000\n";
  setenv("GPUWHY_NVML_LIBRARY", GPUWHY_FAKE_NVML, 1);
  setenv("GPUWHY_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  setenv("GPUWHY_DCGM_LIBRARY", "/nonexistent/libdcgm.so.4", 1);
  auto lib = nvml::NvmlLibrary::Load();
  ASSERT_TRUE(lib.ok());
  auto s = NvmlSampler::Open(std::move(lib).value(), SamplerOptions{});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s.value()->system()->devices[0].supported[static_cast<size_t>(Metric::kNvlinkRxBytesPerS)]);
  s.value()->Sample();
  usleep(200 * 1000);
  Snapshot b = s.value()->Sample();
  const DeviceSnapshot& g = b.devices[0];
  ASSERT_EQ(g.nvlinks.size(), 18u);
  EXPECT_NEAR(g.nvlinks[17].rx.value, 3000 * 1024.0, 3000 * 1024.0 * 0.01);
  const Reading& rx = g.at(Metric::kNvlinkRxBytesPerS);
  ASSERT_TRUE(rx.valid()) << rx.status;
  EXPECT_NEAR(rx.value, 18 * 3000 * 1024.0, 18 * 3000 * 1024.0 * 0.01);
  EXPECT_NEAR(g.at(Metric::kNvlinkTxBytesPerS).value, 18 * 1000 * 1024.0, 18 * 1000 * 1024.0 * 0.01);
  std::remove(scen.c_str());
}

TEST(NvmlSampler, DcgmHostEngineAbsentIsSaidAndSamplingGoesOn) {
  std::string scen = "/tmp/gpuwhy_sampler_test_nohe_" + std::to_string(getpid()) + ".txt";
  std::string dscen = "/tmp/gpuwhy_sampler_test_nohe_dcgm_" + std::to_string(getpid()) + ".txt";
  std::ofstream(scen) << "devices 1\ngpm 0 0\nmetric 0 gpu_util constant 60\n";
  std::ofstream(dscen) << "connect_error -21\n";
  setenv("GPUWHY_NVML_LIBRARY", GPUWHY_FAKE_NVML, 1);
  setenv("GPUWHY_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  setenv("GPUWHY_DCGM_LIBRARY", GPUWHY_FAKE_DCGM, 1);
  setenv("GPUWHY_FAKE_DCGM_SCENARIO", dscen.c_str(), 1);
  auto lib = nvml::NvmlLibrary::Load();
  ASSERT_TRUE(lib.ok());
  auto s = NvmlSampler::Open(std::move(lib).value(), SamplerOptions{});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const SystemInfo& sys = *s.value()->system();
  EXPECT_FALSE(sys.dcgm_connected);
  EXPECT_NE(sys.dcgm_status.find("no DCGM host engine at 127.0.0.1"), std::string::npos) << sys.dcgm_status;
  EXPECT_NE(sys.dcgm_status.find("connection invalid"), std::string::npos) << sys.dcgm_status;
  Snapshot a = s.value()->Sample();
  EXPECT_DOUBLE_EQ(a.devices[0].at(Metric::kGpuUtil).value, 0.6);
  EXPECT_FALSE(a.devices[0].at(Metric::kSmActive).valid());
  EXPECT_NE(a.devices[0].at(Metric::kSmActive).status, kStatusOk);
  std::remove(scen.c_str());
  std::remove(dscen.c_str());
}

}  // namespace
}  // namespace gpuwhy::record
