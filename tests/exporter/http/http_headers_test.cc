// Tests for the request header value parsers.
#include "exporter/http/http_headers.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(ContentLengthsDifferTest, OneOrEqualValuesAreOneLength) {
  EXPECT_FALSE(ContentLengthsDiffer({}));
  EXPECT_FALSE(ContentLengthsDiffer({"10"}));
  EXPECT_FALSE(ContentLengthsDiffer({"6 ", "6", "\t6"}));  // as net/http: trimmed
}

TEST(ContentLengthsDifferTest, DifferingValuesDiffer) {
  EXPECT_TRUE(ContentLengthsDiffer({"10", "0"}));
  EXPECT_TRUE(ContentLengthsDiffer({"", "3"}));
  EXPECT_TRUE(ContentLengthsDiffer({"6", "6", "06"}));  // compared as written, as net/http
}

TEST(AcceptEncodingAllowsGzipTest, FollowsTheQValue) {
  EXPECT_TRUE(AcceptEncodingAllowsGzip("gzip"));
  EXPECT_TRUE(AcceptEncodingAllowsGzip("br, GZIP;q=0.5"));
  EXPECT_FALSE(AcceptEncodingAllowsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptEncodingAllowsGzip("identity"));
}

}  // namespace
}  // namespace scx
