// Shared helpers of the anchor tests: locate and import a shared trace.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "import/registry.h"
#include "model/trace.h"

namespace gpuwhy::anchors {

// SharedPath: absolute path of a file under ../shared/traces/.
inline std::string SharedPath(const std::string& rel) {
  return std::string(GPUWHY_SOURCE_DIR) + "/../shared/traces/" + rel;
}

// LoadShared: the imported trace, or nullptr after GTEST_SKIP-style message
// (the caller returns when it gets nullptr).
inline std::unique_ptr<model::Trace> LoadShared(const std::string& rel, bool* skipped) {
  const std::string path = SharedPath(rel);
  *skipped = false;
  if (!std::filesystem::exists(path)) {
    *skipped = true;
    return nullptr;
  }
  Result<model::Trace> r = import::ImportFile(path);
  EXPECT_TRUE(r.ok()) << path << ": " << r.status().message();
  if (!r.ok()) return nullptr;
  return std::make_unique<model::Trace>(std::move(r).value());
}

}  // namespace gpuwhy::anchors

// GPUWHY_LOAD_SHARED(var, rel): import ../shared/traces/<rel> or skip.
#define GPUWHY_LOAD_SHARED(var, rel)                                                        \
  bool var##_skipped = false;                                                               \
  std::unique_ptr<model::Trace> var = anchors::LoadShared(rel, &var##_skipped);             \
  if (var##_skipped) GTEST_SKIP() << "SKIPPED: ../shared/traces/" << rel << " not present"; \
  if (!var) return
