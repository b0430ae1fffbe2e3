// Durations as Go's time.ParseDuration reads them (exporter-toolkit's rate_limit).
#include "exporter/http/go_duration.h"

#include <gtest/gtest.h>

#include <chrono>

namespace scx {
namespace {

using std::chrono::nanoseconds;

nanoseconds Parsed(const char* text) {
  nanoseconds out{-1};
  EXPECT_TRUE(ParseGoDuration(text, &out)) << text;
  return out;
}

TEST(GoDurationTest, ReadsWhatGoReads) {
  using namespace std::chrono_literals;
  EXPECT_EQ(Parsed("0"), 0ns);
  EXPECT_EQ(Parsed("0s"), 0ns);
  EXPECT_EQ(Parsed("1s"), 1s);
  EXPECT_EQ(Parsed("300ms"), 300ms);
  EXPECT_EQ(Parsed("1.5s"), 1500ms);
  EXPECT_EQ(Parsed(".5s"), 500ms);
  EXPECT_EQ(Parsed("1.s"), 1s);
  EXPECT_EQ(Parsed("1h30m"), 90min);
  EXPECT_EQ(Parsed("30m1h"), 90min);  // Go takes any order and repeats
  EXPECT_EQ(Parsed("1s1s"), 2s);
  EXPECT_EQ(Parsed("2h45m30.5s"), 2h + 45min + 30500ms);
  EXPECT_EQ(Parsed("10us"), 10us);
  EXPECT_EQ(Parsed("10\xC2\xB5s"), 10us);  // micro sign
  EXPECT_EQ(Parsed("10\xCE\xBCs"), 10us);  // Greek mu
  EXPECT_EQ(Parsed("7ns"), 7ns);
  EXPECT_EQ(Parsed("0.1234567891s"), 123456789ns);  // Go drops what a ns cannot hold
  EXPECT_EQ(Parsed("2562047h"), 2562047h);          // about Go's largest
}

TEST(GoDurationTest, RefusesWhatGoRefusesAndSigns) {
  nanoseconds out{};
  for (const char* bad :
       {"", "1", "s", ".", ".s", "1d", "1w", "1y", "1S", "1 s", " 1s", "1s ", "1.5", "-1s", "+1s",
        "1e3s", "1h-1m", "9223372036854775808ns", "2562048h"}) {
    EXPECT_FALSE(ParseGoDuration(bad, &out)) << bad;
  }
}

}  // namespace
}  // namespace scx
