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

}  // namespace
}  // namespace gpuwhy::record
