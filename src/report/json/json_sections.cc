#include "report/json/json_sections.h"

namespace gpuwhy::report {

const std::vector<JsonSection>& JsonSections() {
  // Key order within each object is the order of this list.
  static const std::vector<JsonSection> kSections = {
      {"summary", JsonPlacement::kTrace, WriteTraceSummaryJson, nullptr},
      {"device_summary", JsonPlacement::kDevice, nullptr, WriteDeviceSummaryJson},
      {"utilization", JsonPlacement::kDevice, nullptr, WriteDeviceUtilizationJson},
      {"step_detection", JsonPlacement::kTrace, WriteStepsJson, nullptr},
      {"compat", JsonPlacement::kTrace, WriteCompatJson, nullptr},
      {"nsys_compat", JsonPlacement::kTrace, WriteNsysCompatJson, nullptr},
      {"measured_kernels", JsonPlacement::kTrace, WriteMeasuredKernelsJson, nullptr},
      {"diagnosis", JsonPlacement::kTrace, WriteDiagnosisJson, nullptr},
      // New sections go here.
      {"import_stats", JsonPlacement::kTrace, WriteImportStatsJson, nullptr},
  };
  return kSections;
}

}  // namespace gpuwhy::report
