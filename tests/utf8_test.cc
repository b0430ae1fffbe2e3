// UTF-8 decoding and repair.
#include "engine/utf8.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(Utf8Test, SequenceLengths) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x84\xAA", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80", 0), 4u);
}

TEST(Utf8Test, RejectsMalformedSequences) {
  for (const char* bad : {"\x80", "\xC0\xAF", "\xC3", "\xE0\x80\xAF", "\xED\xA0\x80",
                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF"}) {
    EXPECT_EQ(Utf8SequenceLength(bad, 0), 0u) << bad;
  }
  EXPECT_EQ(Utf8SequenceLength("", 0), 0u);
}

TEST(Utf8Test, DecodesCodePoints) {
  std::uint32_t code_point = 0;
  EXPECT_EQ(DecodeUtf8At("x\xC4\xB0", 1, &code_point), 2u);
  EXPECT_EQ(code_point, 0x130u);
  EXPECT_EQ(DecodeUtf8At("\xE3\x80\x80", 0, &code_point), 3u);
  EXPECT_EQ(code_point, 0x3000u);
  EXPECT_EQ(DecodeUtf8At("\xF0\x9F\x98\x80", 0, &code_point), 4u);
  EXPECT_EQ(code_point, 0x1F600u);
  code_point = 7;
  EXPECT_EQ(DecodeUtf8At("\xFF", 0, &code_point), 0u);
  EXPECT_EQ(code_point, 7u);
}

TEST(Utf8Test, RepairReplacesOnlyInvalidBytes) {
  EXPECT_EQ(ToValidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(ToValidUtf8("a\xFF"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ToValidUtf8("\xC3"), "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace scx
