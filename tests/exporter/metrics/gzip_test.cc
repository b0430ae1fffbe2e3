// Tests of exporter/metrics/gzip: a member written in pieces, a member left open and
// the bytes that close it (read by our gunzip, Python's zlib and gzip(1) as one
// member), and the streaming gunzip's refusals.
#include "exporter/metrics/gzip.h"

#include <cstddef>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "tests/test_process.h"

namespace scx {
namespace {

TEST(GzipTest, WriterInPiecesMakesOneMemberOfTheWholeText) {
  std::string text;
  for (int i = 0; text.size() < 500000; ++i) text += "line " + std::to_string(i * 7919) + "\n";
  GzipWriter writer;
  for (std::size_t at = 0; at < text.size(); at += 3001) {
    ASSERT_TRUE(writer.Add(std::string_view(text).substr(at, 3001)));
  }
  std::string zipped = "stale";
  ASSERT_TRUE(writer.Finish(&zipped));
  EXPECT_EQ(zipped.capacity(), zipped.size());
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(zipped, &unzipped));
  EXPECT_EQ(unzipped, text);
  // No piece at all is an empty text, still a valid member.
  GzipWriter empty;
  ASSERT_TRUE(empty.Finish(&zipped));
  ASSERT_TRUE(GzipDecompress(zipped, &unzipped));
  EXPECT_EQ(unzipped, "");
}

// A text of several deflate pieces.
std::string LongText() {
  std::string text;
  for (int i = 0; text.size() < 300000; ++i) text += "line " + std::to_string(i * 7919) + "\n";
  return text;
}

TEST(GzipTest, AnOpenMemberClosedWithATailIsOneMemberOfBoth) {
  const std::string text = LongText();
  GzipWriter writer;
  ASSERT_TRUE(writer.Add(text.substr(0, 100000)));
  ASSERT_TRUE(writer.Add(text.substr(100000)));
  OpenGzipMember open;
  ASSERT_TRUE(writer.FinishOpen(&open));
  EXPECT_EQ(open.text_bytes, text.size());
  for (const std::string& tail : {std::string(), std::string("# HELP x y\nx 1\n"), LongText()}) {
    std::string closing;
    ASSERT_TRUE(GzipCloseMember(open, tail, &closing));
    // Our gunzip reads exactly one member, trailer checked (CRC-32 and length).
    std::string unzipped;
    ASSERT_TRUE(GzipDecompress(open.bytes + closing, &unzipped)) << tail.size();
    EXPECT_EQ(unzipped, text + tail);
    // A damaged trailer is refused.
    std::string damaged = open.bytes + closing;
    damaged[damaged.size() - 6] ^= 1;
    EXPECT_FALSE(GzipDecompress(damaged, &unzipped));
  }
  // The open member alone is the text, checked against its length and CRC-32.
  std::string alone;
  EXPECT_TRUE(GzipDecompressOpenTo(open, [&](std::string_view piece) {
    alone.append(piece);
    return true;
  }));
  EXPECT_EQ(alone, text);
  OpenGzipMember wrong = open;
  ++wrong.text_crc32;
  EXPECT_FALSE(GzipDecompressOpenTo(wrong, [](std::string_view) { return true; }));
  wrong = open;
  wrong.bytes.resize(wrong.bytes.size() / 2);
  EXPECT_FALSE(GzipDecompressOpenTo(wrong, [](std::string_view) { return true; }));
}

// Other readers: Python's gzip module and zlib (one member, nothing after it) and
// gzip(1), which is what curl --compressed and Prometheus' Go client decode alike.
TEST(GzipTest, OtherGunzipsReadAClosedMemberAsOne) {
  if (!testing::ToolAvailable("python3")) GTEST_SKIP() << "python3 not installed";
  const std::string text = LongText();
  const std::string tail = "# TYPE tail_total counter\ntail_total 7\n";
  GzipWriter writer;
  ASSERT_TRUE(writer.Add(text));
  OpenGzipMember open;
  ASSERT_TRUE(writer.FinishOpen(&open));
  std::string closing;
  ASSERT_TRUE(GzipCloseMember(open, tail, &closing));
  int status = -1;
  const std::string python =
      "import gzip, hashlib, sys, zlib\n"
      "data = sys.stdin.buffer.read()\n"
      "d = zlib.decompressobj(16 + zlib.MAX_WBITS)\n"
      "one = d.decompress(data)\n"
      "assert d.eof and not d.unused_data, \"not exactly one member\"\n"
      "assert gzip.decompress(data) == one\n"
      "print(len(one), hashlib.sha256(one).hexdigest())\n";
  const std::string output =
      testing::RunShellCommand("python3 -c '" + python + "'", open.bytes + closing, &status);
  EXPECT_EQ(status, 0) << output;
  const std::string expected_python =
      "import hashlib, sys\n"
      "data = sys.stdin.buffer.read()\n"
      "print(len(data), hashlib.sha256(data).hexdigest())\n";
  EXPECT_EQ(output,
            testing::RunShellCommand("python3 -c '" + expected_python + "'", text + tail, &status));
  if (testing::ToolAvailable("gzip")) {
    EXPECT_EQ(testing::RunShellCommand("gzip -dc", open.bytes + closing, &status), text + tail);
    EXPECT_EQ(status, 0);
  }
}

TEST(GzipTest, StreamingGunzipRefusesTruncatedAndForeignInput) {
  std::string text(300000, 'a');
  for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  std::string zipped;
  ASSERT_TRUE(GzipCompress(text, &zipped));
  auto discard = [](std::string_view) { return true; };
  EXPECT_TRUE(GzipDecompressTo(zipped, discard));
  EXPECT_FALSE(GzipDecompressTo(zipped.substr(0, zipped.size() - 9), discard));
  EXPECT_FALSE(GzipDecompressTo(zipped.substr(0, zipped.size() / 2), discard));
  EXPECT_FALSE(GzipDecompressTo("not gzip at all", discard));
  EXPECT_FALSE(GzipDecompressTo("", discard));
  std::string out = "stale";
  EXPECT_FALSE(GzipDecompress(zipped.substr(0, zipped.size() / 2), &out));
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace scx
