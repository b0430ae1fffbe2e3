// Table tests for the one sanitizer, basename_of and identity resolution.
#include "engine/slug.h"

#include <gtest/gtest.h>

#include <string>

namespace scx {
namespace {

struct SlugCase {
  std::string input;
  std::string expected;
};

class SanitizeSlugTest : public ::testing::TestWithParam<SlugCase> {};

TEST_P(SanitizeSlugTest, MatchesMintRule) {
  EXPECT_EQ(SanitizeSlug(GetParam().input), GetParam().expected)
      << "input: \"" << GetParam().input << "\"";
}

INSTANTIATE_TEST_SUITE_P(
    Table, SanitizeSlugTest,
    ::testing::Values(
        // Case.
        SlugCase{"m1nd", "m1nd"}, SlugCase{"M1ND", "m1nd"}, SlugCase{"My-Repo", "my_repo"},
        SlugCase{"KeyVault", "keyvault"},
        // Runs of punctuation collapse into one '_'.
        SlugCase{"a--b", "a_b"}, SlugCase{"a - . b", "a_b"}, SlugCase{"a_b", "a_b"},
        SlugCase{"a__b", "a_b"}, SlugCase{"a_-_b", "a_b"}, SlugCase{"a.b.c", "a_b_c"},
        // Leading and trailing junk is trimmed.
        SlugCase{"--repo--", "repo"}, SlugCase{"  spaced out  ", "spaced_out"},
        SlugCase{"_x_", "x"}, SlugCase{"(my) repo!", "my_repo"},
        // Empty results become "repo".
        SlugCase{"", "repo"}, SlugCase{"___", "repo"}, SlugCase{"/", "repo"},
        SlugCase{"!!!", "repo"},
        // Digits are kept.
        SlugCase{"2026-07", "2026_07"}, SlugCase{"v1.2.3", "v1_2_3"},
        // Non-ASCII letters are "other" characters...
        SlugCase{"caf\xC3\xA9", "caf"}, SlugCase{"\xC3\x89t\xC3\xA9", "t"},
        SlugCase{"na\xC3\xAFve repo", "na_ve_repo"}, SlugCase{"\xE6\x97\xA5\xE6\x9C\xAC", "repo"},
        // ...except U+0130 (-> "i" + U+0307) and U+212A KELVIN SIGN (-> "k").
        SlugCase{"\xC4\xB0x", "i_x"}, SlugCase{"\xC4\xB0", "i"},
        SlugCase{"\xE2\x84\xAA"
                 "elvin",
                 "kelvin"},
        SlugCase{"a\xE2\x84\xAA", "ak"},
        // U+212B ANGSTROM SIGN lowercases to U+00E5, not ASCII.
        SlugCase{"a\xE2\x84\xAB"
                 "b",
                 "a_b"},
        // Bytes that are not valid UTF-8 are "other" characters.
        SlugCase{"a\xFF"
                 "b",
                 "a_b"},
        SlugCase{"a\xC4", "a"}, SlugCase{"\x80\x80repo\xFE", "repo"},
        SlugCase{"a\xE2\x84"
                 "b",
                 "a_b"},
        // A truncated sequence before a special character still finds it.
        SlugCase{"x\xE2\xC4\xB0y", "x_i_y"}, SlugCase{"x\xF0\xE2\x84\xAAy", "x_ky"}));

// m1nd's sanitize_slug applies no Unicode normalisation: one visible name spelled
// precomposed (U+00E9, as most Linux tools write it) and decomposed ("e" + U+0301
// COMBINING ACUTE ACCENT, as macOS tools write it) gives two slugs. The exporter must
// not normalise either, or it would disagree with the ids m1nd minted.
TEST(SanitizeSlugTest, NoUnicodeNormalisation) {
  const std::string precomposed = "Caf\xC3\xA9";
  const std::string decomposed = "Cafe\xCC\x81";
  EXPECT_EQ(SanitizeSlug(precomposed), "caf");
  EXPECT_EQ(SanitizeSlug(decomposed), "cafe");
  EXPECT_EQ(SanitizeSlug(BasenameOf("/home/u/" + decomposed)), "cafe");
  EXPECT_EQ(SanitizeSlug("Caf\xC3\xA9 Bar"), "caf_bar");
  EXPECT_EQ(SanitizeSlug("Cafe\xCC\x81 Bar"), "cafe_bar");
  // Upper case too: U+00C9 and "E" + U+0301.
  EXPECT_EQ(SanitizeSlug("\xC3\x89"
                         "cole"),
            "cole");
  EXPECT_EQ(SanitizeSlug("E\xCC\x81"
                         "cole"),
            "e_cole");
}

TEST(BasenameOfTest, TakesLastComponent) {
  EXPECT_EQ(BasenameOf("/home/u/m1nd"), "m1nd");
  EXPECT_EQ(BasenameOf("~/m1nd"), "m1nd");
  EXPECT_EQ(BasenameOf("m1nd"), "m1nd");
}

TEST(BasenameOfTest, StripsTrailingSlashes) {
  EXPECT_EQ(BasenameOf("/home/u/m1nd/"), "m1nd");
  EXPECT_EQ(BasenameOf("/home/u/m1nd///"), "m1nd");
  EXPECT_EQ(BasenameOf("C:\\work\\My-Repo\\"), "My-Repo");
}

TEST(BasenameOfTest, HandlesBackslashesAndMixedSeparators) {
  EXPECT_EQ(BasenameOf("C:\\work\\keyvault"), "keyvault");
  EXPECT_EQ(BasenameOf("C:\\work/mixed\\repo"), "repo");
}

TEST(BasenameOfTest, TrimsWhiteSpaceIncludingUnicode) {
  EXPECT_EQ(BasenameOf("  /home/u/m1nd  "), "m1nd");
  EXPECT_EQ(BasenameOf("\t/home/u/m1nd/\n"), "m1nd");
  // U+00A0 NO-BREAK SPACE and U+3000 IDEOGRAPHIC SPACE are white space.
  EXPECT_EQ(BasenameOf("/home/u/m1nd/\xC2\xA0"), "m1nd");
  EXPECT_EQ(BasenameOf("\xE3\x80\x80/srv/x/"), "x");
}

TEST(BasenameOfTest, EmptyBaseFallsBackToTrimmedRoot) {
  EXPECT_EQ(BasenameOf("/"), "/");
  EXPECT_EQ(BasenameOf(" // "), "//");
  EXPECT_EQ(BasenameOf(""), "");
  EXPECT_EQ(SanitizeSlug(BasenameOf("/")), "repo");
}

TEST(ResolveIdentityTest, DisplayNameWinsWhenNonEmpty) {
  EXPECT_EQ(ResolveIdentity("/home/u/m1nd", "Key Vault"), "Key Vault");
  EXPECT_EQ(ResolveIdentity("/home/u/m1nd", ""), "m1nd");
  EXPECT_EQ(ResolveIdentity("", ""), "");
}

}  // namespace
}  // namespace scx
