// JSON string escaping (base/json_string.h), as the JSON log lines and the HTTP error
// bodies use it.
#include "base/json_string.h"

#include <string>

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(JsonStringTest, QuotesBackslashesAndControlsAreEscaped) {
  EXPECT_EQ(EscapeJsonString("plain"), "plain");
  EXPECT_EQ(EscapeJsonString("q\"b\\n\n\x01"), "q\\\"b\\\\n\\n\\u0001");
  EXPECT_EQ(EscapeJsonString("tab\there\r"), "tab\\there\\r");
  EXPECT_EQ(EscapeJsonString(std::string("nul\0x", 5)), "nul\\u0000x");
}

TEST(JsonStringTest, InvalidUtf8IsReplaced) {
  EXPECT_EQ(EscapeJsonString("bad\xff"), "bad\xEF\xBF\xBD");
  EXPECT_EQ(EscapeJsonString("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(JsonStringTest, ControlEscapesAreShortWhereJsonHasThem) {
  std::string out;
  AppendControlEscape('\n', &out);
  AppendControlEscape('\x1f', &out);
  AppendControlEscape('\x7f', &out);
  EXPECT_EQ(out, "\\n\\u001f\\u007f");
}

}  // namespace
}  // namespace scx
