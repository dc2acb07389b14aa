#include "diagnosis_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "import/registry.h"

namespace gpuwhy::testing {

using analysis::detectors::Diagnosis;
using analysis::detectors::Finding;

std::vector<model::Trace> ImportAll(const std::vector<std::string>& paths) {
  std::vector<model::Trace> out;
  for (const std::string& p : paths) {
    Result<model::Trace> r = import::ImportFile(p);
    EXPECT_TRUE(r.ok()) << p << ": " << r.status().message();
    if (!r.ok()) return {};
    out.push_back(std::move(r).value());
  }
  return out;
}

Diagnosis DiagnoseAll(const std::vector<model::Trace>& traces,
                      const analysis::detectors::DiagnosisOptions& o) {
  std::vector<const model::Trace*> ptrs;
  for (const model::Trace& t : traces) ptrs.push_back(&t);
  return analysis::detectors::Diagnose(ptrs, o);
}

void Print(const std::string& label, const Diagnosis& d) {
  std::printf("== %s\n  %s\n  scenario=%s (%s) bottleneck=%s\n", label.c_str(), d.top_line.c_str(),
              std::string(ToString(d.scenario)).c_str(), d.scenario_reason.c_str(),
              d.bottleneck.c_str());
  for (const Finding& f : d.findings) {
    std::printf("  - %-36s %-8s lost/step %8.2f ms %6.1f%%  %s\n", f.id.c_str(),
                std::string(ToString(f.severity)).c_str(),
                IsValid(f.lost_per_step_ns) ? NsToMs(f.lost_per_step_ns) : -1.0,
                IsValid(f.lost_step_ratio) ? f.lost_step_ratio * 100 : -1.0, f.summary.c_str());
  }
  for (size_t i = 0; i < d.fixes.size() && i < 3; ++i)
    std::printf("  fix %zu: [%s] %s\n", i + 1, std::string(ToString(d.fixes[i].kind)).c_str(),
                d.fixes[i].text.c_str());
}

const Finding* FindFinding(const Diagnosis& d, const std::string& id) {
  for (const Finding& f : d.findings)
    if (f.id == id) return &f;
  return nullptr;
}

double Metric(const Finding& f, const std::string& name) {
  for (const auto& m : f.evidence)
    if (m.name == name) return m.value;
  return kMissingF64;
}

int RankOf(const Diagnosis& d, const std::string& id) {
  for (size_t i = 0; i < d.findings.size(); ++i)
    if (d.findings[i].id == id) return static_cast<int>(i);
  return -1;
}

std::string SharedPath(const std::string& rel) {
  return std::string(GPUWHY_SOURCE_DIR) + "/../shared/" + rel;
}

}  // namespace gpuwhy::testing
