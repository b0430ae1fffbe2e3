// UTF-8 decoding and repair.
#include "base/utf8.h"

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

TEST(Utf8Test, CapTextKeepsShortTextAndCutsLongTextAtACharacterBoundary) {
  EXPECT_EQ(CapText("sk_m1nd_candidate", 17), "sk_m1nd_candidate");
  EXPECT_EQ(CapText("abcdef", 4), "abcd\xE2\x80\xA6[2 bytes cut]");
  // "é" is two bytes: a cut inside it moves before it.
  EXPECT_EQ(CapText("ab\xC3\xA9z", 3), "ab\xE2\x80\xA6[3 bytes cut]");
  // A four-byte character is never split either.
  EXPECT_EQ(CapText("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 6),
            "\xF0\x9F\x98\x80\xE2\x80\xA6[4 bytes cut]");
  const std::string huge(10 << 20, 'x');
  const std::string capped = CapText(huge, 4096);
  EXPECT_EQ(capped.size(), 4096u + std::string("\xE2\x80\xA6[10481664 bytes cut]").size());
  EXPECT_EQ(ToValidUtf8(capped), capped);
}

}  // namespace
}  // namespace scx
