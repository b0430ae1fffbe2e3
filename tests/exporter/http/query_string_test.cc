// A query string as the handlers read it: pairs in order, each part percent-decoded.
#include "exporter/http/query_string.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(QueryStringTest, PairsInOrderDecoded) {
  const QueryParams expected = {{"state", "mismatch,ok"}, {"limit", "10"}, {"a b", "c&d=e"}};
  EXPECT_EQ(ParseQuery("state=mismatch%2Cok&limit=10&a+b=c%26d%3de"), expected);
}

TEST(QueryStringTest, EmptyPairsAndMissingValues) {
  EXPECT_TRUE(ParseQuery("").empty());
  const QueryParams expected = {{"flag", ""}, {"x", ""}, {"y", "="}};
  EXPECT_EQ(ParseQuery("&flag&&x=&y=%3D&"), expected);
}

TEST(QueryStringTest, ABrokenEscapeIsKeptAsItIs) {
  const QueryParams expected = {{"v", "100%"}, {"w", "%zz"}, {"u", "\xc3\xa9"}};
  EXPECT_EQ(ParseQuery("v=100%&w=%zz&u=%C3%A9"), expected);
}

}  // namespace
}  // namespace scx
