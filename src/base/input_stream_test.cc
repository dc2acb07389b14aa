#include "base/input_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace gpuwhy {
namespace {

// Gzip: one gzip member of `data`, written with zlib.
std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Text: a deterministic, somewhat compressible payload of n bytes.
std::string Text(size_t n) {
  std::mt19937 rng(42);
  std::string s;
  s.reserve(n);
  while (s.size() < n) s += "{\"ts\": " + std::to_string(rng() % 100000) + "},\n";
  s.resize(n);
  return s;
}

Result<std::string> ReadAll(InputStream& s, size_t step) {
  std::string out;
  std::string buf(step, '\0');
  for (;;) {
    ASSIGN_OR_RETURN(size_t got, s.Read(buf.data(), buf.size()));
    if (got == 0) break;
    out.append(buf.data(), got);
  }
  return out;
}

std::vector<InputStreamOptions> AllOptions() {
  std::vector<InputStreamOptions> v;
  for (GzipBackend b : {GzipBackend::kZlib, GzipBackend::kIsal}) {
    if (b == GzipBackend::kIsal && !IsalAvailable()) continue;
    for (bool ahead : {false, true}) {
      InputStreamOptions o;
      o.gzip = b;
      o.read_ahead = ahead;
      o.read_ahead_chunk_bytes = 4096;
      v.push_back(o);
    }
  }
  return v;
}

TEST(InputStream, PlainAndGzipGiveTheSameBytes) {
  std::string text = Text(300000);
  std::string gz = Gzip(text);
  for (const InputStreamOptions& o : AllOptions()) {
    for (size_t step : {size_t{1} << 16, size_t{777}}) {
      auto plain = OpenMemoryStream(text, "plain.json", o);
      EXPECT_FALSE(plain->compressed());
      Result<std::string> a = ReadAll(*plain, step);
      ASSERT_TRUE(a.ok()) << a.status().message();
      EXPECT_EQ(*a, text);
      auto z = OpenMemoryStream(gz, "x.json.gz", o);
      EXPECT_TRUE(z->compressed());
      Result<std::string> b = ReadAll(*z, step);
      ASSERT_TRUE(b.ok()) << b.status().message();
      EXPECT_EQ(*b, text);
      EXPECT_EQ(z->offset(), text.size());
    }
  }
}

// ReadMixed: the whole stream, alternating Read and ReadBlock (one Read of
// 100 bytes, then `blocks` blocks, and so on). Each block must leave `front`
// bytes before it and `pad` after it inside the buffer, and both are written
// to, so ASan sees any room that is not there. A buffer given back holds
// stale bytes, never ones the caller still reads.
Result<std::string> ReadMixed(InputStream& s, int blocks, size_t front, size_t pad,
                              size_t* handed_over) {
  std::string out;
  StreamBlock block;
  char small[100];
  for (int turn = 0;; ++turn) {
    if (turn % (blocks + 1) == 0) {
      ASSIGN_OR_RETURN(size_t got, s.Read(small, sizeof small));
      if (got == 0) break;
      out.append(small, got);
      continue;
    }
    const char* before = block.buf.data();
    RETURN_IF_ERROR(s.ReadBlock(&block, front, 4096, pad));
    EXPECT_GE(block.begin, front);
    EXPECT_GE(block.buf.size(), block.end + pad);
    if (block.begin == block.end) break;
    *handed_over += block.buf.data() != before;
    out.append(block.buf.data() + block.begin, block.end - block.begin);
    std::memset(block.buf.data() + block.begin - front, 'F', front);
    std::memset(block.buf.data() + block.end, 'P', pad);
  }
  return out;
}

TEST(InputStream, BlocksAndReadsGiveTheSameBytes) {
  std::string text = Text(300000);
  std::string gz = Gzip(text);
  for (const InputStreamOptions& o : AllOptions()) {
    for (const std::string* data : {&text, &gz}) {
      for (int blocks : {1, 5}) {
        for (size_t front : {size_t{0}, size_t{300}, kStreamBlockFront, kStreamBlockFront + 1}) {
          SCOPED_TRACE(testing::Message() << "ahead " << o.read_ahead << " gzip "
                                          << (data == &gz) << " blocks " << blocks
                                          << " front " << front);
          auto s = OpenMemoryStream(*data, "x.json", o);
          size_t handed_over = 0;
          Result<std::string> got = ReadMixed(*s, blocks, front, 64, &handed_over);
          ASSERT_TRUE(got.ok()) << got.status().message();
          EXPECT_EQ(*got, text);
          EXPECT_EQ(s->offset(), text.size());
          // A read-ahead stream hands its own buffers over when the room
          // asked for fits and no Read() left part of a chunk (so with
          // blocks 5, four blocks in five); the others read into the
          // caller's.
          if (o.read_ahead && front <= kStreamBlockFront && blocks == 5) {
            EXPECT_GT(handed_over, 10u);
          }
        }
      }
    }
  }
}

TEST(InputStream, BlockReadsReportGzipErrors) {
  std::string gz = Gzip(Text(200000));
  std::string cut = gz.substr(0, gz.size() / 2);
  for (const InputStreamOptions& o : AllOptions()) {
    auto s = OpenMemoryStream(cut, "cut.gz", o);
    size_t handed_over = 0;
    Result<std::string> got = ReadMixed(*s, 3, 64, 64, &handed_over);
    ASSERT_FALSE(got.ok());
    EXPECT_NE(got.status().message().find("truncated gzip stream at compressed byte " +
                                          std::to_string(cut.size())),
              std::string::npos)
        << got.status().message();
  }
}

TEST(InputStream, MultiMemberGzipIsOneStream) {
  std::string a = Text(100000), b = "second member\n", c = Text(5000);
  std::string gz = Gzip(a) + Gzip(b) + Gzip(c);
  for (const InputStreamOptions& o : AllOptions()) {
    auto s = OpenMemoryStream(gz, "multi.gz", o);
    Result<std::string> got = ReadAll(*s, 4096);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, a + b + c);
  }
}

TEST(InputStream, CorruptGzipNamesPathAndCompressedOffset) {
  std::string gz = Gzip(Text(200000));
  gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x5a);
  gz[gz.size() / 2 + 1] = static_cast<char>(gz[gz.size() / 2 + 1] ^ 0x33);
  for (const InputStreamOptions& o : AllOptions()) {
    auto s = OpenMemoryStream(gz, "bad.json.gz", o);
    Result<std::string> got = ReadAll(*s, 4096);
    ASSERT_FALSE(got.ok());
    const std::string m = got.status().message();
    EXPECT_NE(m.find("bad.json.gz"), std::string::npos) << m;
    // Either the deflate data or the CRC check catches the flip.
    EXPECT_NE(m.find("corrupt gzip data at compressed byte"), std::string::npos) << m;
  }
}

TEST(InputStream, TruncatedGzipIsAnError) {
  std::string gz = Gzip(Text(200000));
  for (size_t cut : {gz.size() - 3, gz.size() / 2, size_t{12}}) {
    std::string part = gz.substr(0, cut);
    for (const InputStreamOptions& o : AllOptions()) {
      auto s = OpenMemoryStream(part, "cut.gz", o);
      Result<std::string> got = ReadAll(*s, 4096);
      ASSERT_FALSE(got.ok()) << "cut at " << cut;
      EXPECT_NE(got.status().message().find("truncated gzip stream at compressed byte " +
                                            std::to_string(cut)),
                std::string::npos)
          << got.status().message();
    }
  }
}

TEST(InputStream, OpenErrorsNameThePath) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gpuwhy_is_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Result<std::unique_ptr<InputStream>> missing = OpenInputStream((dir / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope.json"), std::string::npos);
  Result<std::unique_ptr<InputStream>> isdir = OpenInputStream(dir.string());
  ASSERT_FALSE(isdir.ok());
  EXPECT_NE(isdir.status().message().find("directory"), std::string::npos);
  // An empty file opens and reads as end of stream.
  std::string empty = (dir / "empty.json").string();
  { std::ofstream(empty).flush(); }
  Result<std::unique_ptr<InputStream>> e = OpenInputStream(empty);
  ASSERT_TRUE(e.ok());
  Result<std::string> all = ReadAll(**e, 100);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
  // ReadPrefix of a real gzip file decodes.
  std::string gzpath = (dir / "t.bin").string();
  std::string text = Text(100000);
  { std::ofstream(gzpath, std::ios::binary) << Gzip(text); }
  Result<std::string> pre = ReadPrefix(gzpath, 1000);
  ASSERT_TRUE(pre.ok()) << pre.status().message();
  EXPECT_EQ(*pre, text.substr(0, 1000));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy
