// LooksLikeXSpace without protobuf: the sniff must work (and say how to enable
// the importer) in builds configured without libprotobuf, so it reads the few
// varints it needs itself.
#include <cstdint>
#include <string_view>

#include "import/xplane/xplane_importer.h"

namespace gpuwhy::import {

namespace {

// XplaneSniffVarint: a base-128 varint at `*pos` (at most 10 bytes); false when
// it runs past the prefix or is over-long.
bool XplaneSniffVarint(std::string_view s, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    auto b = static_cast<uint8_t>(s[(*pos)++]);
    v |= uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool XplaneSniffStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

}  // namespace

bool LooksLikeXSpace(std::string_view prefix) {
  // XSpace field 1 (planes, length-delimited) comes first: protobuf writes
  // fields in number order.
  size_t pos = 0;
  uint64_t tag = 0, plane_len = 0;
  if (!XplaneSniffVarint(prefix, &pos, &tag) || tag != 0x0A) return false;
  if (!XplaneSniffVarint(prefix, &pos, &plane_len) || plane_len < 2) return false;
  // Inside the plane: an optional id (field 1, varint), then the name (field 2).
  if (!XplaneSniffVarint(prefix, &pos, &tag)) return false;
  if (tag == 0x08) {
    uint64_t id = 0;
    if (!XplaneSniffVarint(prefix, &pos, &id) || !XplaneSniffVarint(prefix, &pos, &tag))
      return false;
  }
  uint64_t name_len = 0;
  if (tag != 0x12 || !XplaneSniffVarint(prefix, &pos, &name_len) || name_len == 0 ||
      name_len > 1024 || name_len > plane_len)
    return false;
  // The name may run past a short prefix; its start is enough to tell.
  std::string_view name = prefix.substr(pos, static_cast<size_t>(name_len));
  if (name.size() < 6) return false;  // shortest known prefix: "/host:"
  return XplaneSniffStartsWith(name, "/device:") || XplaneSniffStartsWith(name, "/host:") ||
         XplaneSniffStartsWith(name, "/virtualdevice:") ||
         XplaneSniffStartsWith(name, "Task Environment");
}

}  // namespace gpuwhy::import
