#include "import/registry.h"

namespace gpuwhy::import {

std::vector<std::unique_ptr<Importer>> BuiltinImporters() { return {}; }

Result<model::Trace> ImportFile(const std::string& path) {
  return Unsupported(path + ": no importer available yet");
}

Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& args) {
  return args;
}

}  // namespace gpuwhy::import
