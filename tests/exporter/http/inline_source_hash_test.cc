// The hash source of an inline element, against the example of the CSP Level 2
// specification (section 7.15, "hash-source").
#include "exporter/http/inline_source_hash.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(InlineSourceHashTest, MatchesTheSpecificationsExample) {
  EXPECT_EQ(InlineSourceHash("alert('Hello, world.');"),
            "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='");
}

TEST(InlineSourceHashTest, HashesTheBytesAsTheyAre) {
  EXPECT_EQ(InlineSourceHash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
  EXPECT_NE(InlineSourceHash("a "), InlineSourceHash("a"));  // no trimming
}

}  // namespace
}  // namespace scx
