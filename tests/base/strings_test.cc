// The shared string helpers.
#include "base/strings.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(StringsTest, StartsWith) {
  EXPECT_TRUE(StartsWith("sk_m1nd_candidate", "sk_"));
  EXPECT_TRUE(StartsWith("sk_", "sk_"));
  EXPECT_TRUE(StartsWith("anything", ""));
  EXPECT_TRUE(StartsWith("", ""));
  EXPECT_FALSE(StartsWith("sk", "sk_"));
  EXPECT_FALSE(StartsWith("sb_m1nd", "sk_"));
  EXPECT_FALSE(StartsWith("", "a"));
}

TEST(StringsTest, EndsWith) {
  EXPECT_TRUE(EndsWith("notes.light.md", ".light.md"));
  EXPECT_TRUE(EndsWith(".light.md", ".light.md"));
  EXPECT_TRUE(EndsWith("anything", ""));
  EXPECT_TRUE(EndsWith("", ""));
  EXPECT_FALSE(EndsWith("light.md", ".light.md"));
  EXPECT_FALSE(EndsWith("notes.light.mdx", ".light.md"));
  EXPECT_FALSE(EndsWith("", "a"));
}

TEST(StringsTest, PrefixAndSuffixMayHoldNulBytes) {
  const std::string text("a\0b", 3);
  EXPECT_TRUE(StartsWith(text, std::string_view("a\0", 2)));
  EXPECT_TRUE(EndsWith(text, std::string_view("\0b", 2)));
  EXPECT_FALSE(StartsWith(text, "ab"));
}

TEST(StringsTest, ParentFolder) {
  EXPECT_EQ(ParentFolder("/a/b"), "/a");
  EXPECT_EQ(ParentFolder("/a/b/"), "/a");
  EXPECT_EQ(ParentFolder("/a"), "/");
  EXPECT_EQ(ParentFolder("/"), "/");
  EXPECT_EQ(ParentFolder("a/b"), "a");
  EXPECT_EQ(ParentFolder("a"), "");
  EXPECT_EQ(ParentFolder(""), "");
}

TEST(StringsTest, Join) {
  EXPECT_EQ(Join({}, ","), "");
  EXPECT_EQ(Join({"a"}, ","), "a");
  EXPECT_EQ(Join({"a", "b", "c"}, ","), "a,b,c");
  EXPECT_EQ(Join({"a", "b"}, ", "), "a, b");
  EXPECT_EQ(Join({"a", "b"}, ""), "ab");
  // Every item keeps its place, an empty one too.
  EXPECT_EQ(Join({"", "b"}, ","), ",b");
  EXPECT_EQ(Join({"a", "", "c"}, ","), "a,,c");
}

TEST(StringsTest, ParseWholeNumber) {
  std::uint64_t value = 7;
  EXPECT_TRUE(ParseWholeNumber("0", &value));
  EXPECT_EQ(value, 0u);
  EXPECT_TRUE(ParseWholeNumber("0042", &value));
  EXPECT_EQ(value, 42u);
  EXPECT_TRUE(ParseWholeNumber("18446744073709551615", &value));
  EXPECT_EQ(value, UINT64_MAX);
  value = 7;
  for (const char* bad :
       {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.5", "-0", "18446744073709551616"}) {
    EXPECT_FALSE(ParseWholeNumber(bad, &value)) << bad;
    EXPECT_EQ(value, 7u) << bad;
  }
}

}  // namespace
}  // namespace scx
