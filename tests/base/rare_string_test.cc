// RareString: a value like std::string that holds nothing while empty.
#include "base/rare_string.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

namespace scx {
namespace {

static_assert(sizeof(RareString) == sizeof(void*), "one pointer, whatever it holds");

TEST(RareStringTest, EmptyByDefaultAndWhenGivenAnEmptyString) {
  const RareString none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.str(), "");
  EXPECT_EQ(none.size(), 0u);
  EXPECT_STREQ(none.c_str(), "");
  const RareString given_empty = std::string();
  EXPECT_TRUE(given_empty.empty());
  EXPECT_EQ(none, given_empty);
}

TEST(RareStringTest, ReadsAsTheStringItWasGiven) {
  RareString note;
  note = std::string("repo hidden from this process");
  EXPECT_FALSE(note.empty());
  EXPECT_EQ(note.str(), "repo hidden from this process");
  const std::string& as_string = note;
  EXPECT_EQ(as_string, "repo hidden from this process");
  const std::string_view as_view = note;
  EXPECT_EQ(as_view, "repo hidden from this process");
  EXPECT_EQ(note.size(), as_string.size());
  note = "";
  EXPECT_TRUE(note.empty());
}

TEST(RareStringTest, CopiesAreIndependentValues) {
  RareString a = "alpha";
  RareString b = a;
  EXPECT_EQ(a, b);
  b = "beta";
  EXPECT_EQ(a.str(), "alpha");
  EXPECT_EQ(b.str(), "beta");
  EXPECT_NE(a, b);
  EXPECT_LT(a, b);
  a = b;
  EXPECT_EQ(a.str(), "beta");
  const RareString& same = a;
  a = same;  // self-assignment keeps the value
  EXPECT_EQ(a.str(), "beta");
}

TEST(RareStringTest, MovedFromIsEmpty) {
  RareString a = "alpha";
  RareString b = std::move(a);
  EXPECT_EQ(b.str(), "alpha");
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): what a move leaves is specified
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(RareStringTest, OrdersAndComparesAsItsString) {
  EXPECT_LT(RareString(), RareString("a"));
  EXPECT_FALSE(RareString("a") < RareString());
  EXPECT_EQ(RareString("x"), RareString(std::string("x")));
}

}  // namespace
}  // namespace scx
