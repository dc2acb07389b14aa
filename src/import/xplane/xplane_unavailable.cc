// Built without libprotobuf (cmake/deps.cmake): XSpace files are still
// recognised (xplane_sniff.cc) and refused with one line saying how to enable
// the importer.
#include <string>

#include "import/xplane/xplane_importer.h"

namespace gpuwhy::import {

namespace {

Status XplaneNotBuilt(const std::string& path) {
  return Unsupported(
      path +
      ": JAX/XLA XSpace protobuf (*.xplane.pb), but this gpuwhy was built without protobuf; "
      "install libprotobuf-dev and protobuf-compiler, then reconfigure with -DGPUWHY_XPLANE=ON "
      "and rebuild");
}

}  // namespace

bool XSpaceReaderBuilt() { return false; }

Status ReadXSpaceBytes(std::string_view, const std::string& path, model::Trace&) {
  return XplaneNotBuilt(path);
}

Status ReadXSpaceFile(const std::string& path, model::Trace&) { return XplaneNotBuilt(path); }

}  // namespace gpuwhy::import
