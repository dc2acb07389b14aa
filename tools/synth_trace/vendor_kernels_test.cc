// vendor_kernels: the generator's hand-labelled kernel mix (expert-parallel
// dispatch/combine, custom all-reduce, Tensile with and without an MFMA tile,
// CK FMHA) goes through the importer and every analysis that classifies
// kernels; each must recover the communication and matrix-core shares the
// generator wrote down.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/detectors/timeline.h"
#include "analysis/summary/device_summary.h"
#include "analysis/utilization/utilization.h"
#include "import/registry.h"
#include "synth_trace.h"

namespace gpuwhy::synth {
namespace {

model::Trace ImportGenerated(const SynthTrace& st, const std::string& tag) {
  const std::string path = std::string(GPUWHY_BINARY_DIR) + "/synth_vendor_" + tag + ".json.gz";
  EXPECT_TRUE(WriteTrace(st.json, path).ok());
  Result<model::Trace> trace = import::ImportFile(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  return trace.ok() ? std::move(trace).value() : model::Trace();
}

TEST(VendorKernels, MixHasBothAnswers) {
  const GroundTruth g = Generate(DefaultParams(Scenario::kVendorKernels)).truth;
  EXPECT_GT(g.comm_kernel_ns, 0);
  EXPECT_GT(g.matrix_core_kernel_ns, 0);
  EXPECT_LT(g.comm_kernel_ns + g.matrix_core_kernel_ns, g.kernel_time_ns);
  EXPECT_EQ(ScenarioName(Scenario::kVendorKernels), "vendor_kernels");
  EXPECT_EQ(*ParseScenario("vendor_kernels"), Scenario::kVendorKernels);
}

TEST(VendorKernels, AnalysesRecoverCommunicationAndMatrixCoreShares) {
  const SynthTrace st = Generate(DefaultParams(Scenario::kVendorKernels));
  const GroundTruth& g = st.truth;
  model::Trace t = ImportGenerated(st, "all");
  const double total = static_cast<double>(g.kernel_time_ns);
  const double comm = static_cast<double>(g.comm_kernel_ns) / total;
  const double matrix = static_cast<double>(g.matrix_core_kernel_ns) / total;
  std::printf("vendor_kernels: communication %.4f, matrix cores %.4f of kernel time\n", comm,
              matrix);

  // Summary: class shares of all kernel time, nothing left unrecognised.
  analysis::TraceSummary s = analysis::SummarizeDevices(t, {});
  ASSERT_EQ(s.devices.size(), 1u);
  const analysis::KernelSummary& ks = s.devices[0].kernels;
  EXPECT_EQ(ks.duration.total_ns, g.kernel_time_ns);
  using analysis::KernelClass;
  EXPECT_EQ(ks.class_time_ns[static_cast<size_t>(KernelClass::kCommunication)], g.comm_kernel_ns);
  EXPECT_EQ(ks.tensor_core_time_ns, g.matrix_core_kernel_ns);
  EXPECT_DOUBLE_EQ(ks.class_time_ratio[static_cast<size_t>(KernelClass::kOther)], 0.0);
  // Names are reported demangled, the raw spelling kept beside.
  bool saw_mangled = false;
  for (const analysis::KernelNameStats& n : ks.top) {
    EXPECT_FALSE(n.name.starts_with("_Z")) << n.name;
    saw_mangled = saw_mangled || n.raw_name.starts_with("_Z");
  }
  EXPECT_TRUE(saw_mangled);

  // Utilization: the same shares over its window (the whole run here).
  analysis::UtilizationResult u = analysis::AnalyzeUtilization(t);
  ASSERT_EQ(u.devices.size(), 1u);
  const analysis::DeviceUtilization& du = u.devices[0];
  EXPECT_NEAR(du.class_share[static_cast<size_t>(KernelClass::kCommunication)], comm, 1e-9);
  EXPECT_NEAR(du.tensor_core_share.value, matrix, 1e-9);

  // Detectors' timeline: the communication union is exactly the comm kernels
  // (they never overlap by construction).
  analysis::detectors::Timeline tl = analysis::detectors::BuildTimeline(t);
  ASSERT_EQ(tl.devices.size(), 1u);
  EXPECT_EQ(analysis::detectors::TotalLength(tl.devices[0].comm_busy), g.comm_kernel_ns);
}

TEST(VendorKernels, AmdOnlyMixHasNoCommunication) {
  ScenarioParams p = DefaultParams(Scenario::kVendorKernels);
  p.kernel_mix.clear();
  for (const SynthKernel& k : VendorKernelMix())
    if (!k.communication) p.kernel_mix.push_back(k);
  p.kernels_per_step = static_cast<int>(p.kernel_mix.size());
  const SynthTrace st = Generate(p);
  EXPECT_EQ(st.truth.comm_kernel_ns, 0);
  model::Trace t = ImportGenerated(st, "amd");
  analysis::TraceSummary s = analysis::SummarizeDevices(t, {});
  ASSERT_EQ(s.devices.size(), 1u);
  const analysis::KernelSummary& ks = s.devices[0].kernels;
  EXPECT_EQ(ks.class_time_ns[static_cast<size_t>(analysis::KernelClass::kCommunication)], 0);
  EXPECT_EQ(ks.tensor_core_time_ns, st.truth.matrix_core_kernel_ns);
  EXPECT_EQ(ks.class_time_ns[static_cast<size_t>(analysis::KernelClass::kGemmConv)] +
                ks.class_time_ns[static_cast<size_t>(analysis::KernelClass::kElementwise)],
            st.truth.kernel_time_ns);
}

}  // namespace
}  // namespace gpuwhy::synth
