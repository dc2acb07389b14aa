#include <string>

#include <gtest/gtest.h>

#include "import/xplane/xplane_importer.h"
#include "model/trace.h"

namespace gpuwhy::import::xplane_sniff_test {

// Plane: the bytes of an XSpace whose first plane has `id` (0 = omitted, as
// proto3 writes it) and `name`, written by hand (this test needs no protobuf).
std::string Plane(uint8_t id, const std::string& name) {
  std::string plane;
  if (id != 0) plane += {'\x08', static_cast<char>(id)};
  plane += '\x12';
  plane += static_cast<char>(name.size());
  plane += name;
  std::string out = "\x0A";
  out += static_cast<char>(plane.size());
  return out + plane;
}

TEST(XplaneSniff, KnownPlaneNames) {
  EXPECT_TRUE(LooksLikeXSpace(Plane(0, "/device:TPU:0")));
  EXPECT_TRUE(LooksLikeXSpace(Plane(3, "/device:GPU:0")));
  EXPECT_TRUE(LooksLikeXSpace(Plane(1, "/host:CPU")));
  EXPECT_TRUE(LooksLikeXSpace(Plane(2, "Task Environment")));
}

TEST(XplaneSniff, NameRunningPastThePrefixIsEnough) {
  std::string s = Plane(1, "/device:GPU:0 with a long tail");
  EXPECT_TRUE(LooksLikeXSpace(s.substr(0, 14)));
  EXPECT_FALSE(LooksLikeXSpace(s.substr(0, 6)));
}

TEST(XplaneSniff, OtherContentIsNot) {
  EXPECT_FALSE(LooksLikeXSpace(""));
  EXPECT_FALSE(LooksLikeXSpace(Plane(1, "/other:thing")));
  EXPECT_FALSE(LooksLikeXSpace(Plane(1, "/dev")));
  EXPECT_FALSE(LooksLikeXSpace("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeXSpace("[{\"ph\":\"X\"}]"));
  EXPECT_FALSE(LooksLikeXSpace(std::string("SQLite format 3\0", 16)));
  EXPECT_FALSE(LooksLikeXSpace("\x1f\x8b\x08\x00"));
  EXPECT_FALSE(LooksLikeXSpace("\n\n# gpu   sm  mem\n"));
  // A plane length shorter than the name it declares is not a plane.
  std::string s = Plane(0, "/device:GPU:0");
  s[1] = 4;
  EXPECT_FALSE(LooksLikeXSpace(s));
  // Field 1 with another wire type.
  s = Plane(0, "/device:GPU:0");
  s[0] = 0x08;
  EXPECT_FALSE(LooksLikeXSpace(s));
}

TEST(XplaneSniff, ReaderOrTheLineSayingHowToEnableIt) {
  model::Trace t;
  Status s = ReadXSpaceBytes(Plane(0, "/host:metadata"), "x.xplane.pb", t);
  ASSERT_FALSE(s.ok());
  if (XSpaceReaderBuilt()) {
    // Built: a plane that is not a timeline holds nothing gpuwhy maps.
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput) << s.message();
    EXPECT_NE(s.message().find("/host:metadata"), std::string::npos) << s.message();
  } else {
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.message();
    EXPECT_NE(s.message().find("libprotobuf-dev"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
  }
}

}  // namespace gpuwhy::import::xplane_sniff_test
