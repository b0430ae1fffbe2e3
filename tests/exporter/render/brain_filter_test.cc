// The state filter and the limit of GET /api/v1/brains and the landing page.
#include "exporter/render/brain_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scx {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  report.mutable_brain()->name = name;
  report.state = state;
  return report;
}

TEST(BrainFilterTest, NoParametersIsTheWholeFleet) {
  BrainFilter filter;
  std::string error;
  ASSERT_TRUE(ParseBrainFilter({{"other", "x"}}, &filter, &error)) << error;
  EXPECT_TRUE(filter.empty());
  EXPECT_TRUE(filter.Matches(Report("a", BrainState::kAbsent)));
}

TEST(BrainFilterTest, StatesAreCommaSeparatedAndExact) {
  BrainFilter filter;
  std::string error;
  ASSERT_TRUE(ParseBrainFilter({{"state", "mismatch,identity_unknown,mismatch"}}, &filter, &error))
      << error;
  EXPECT_EQ(filter.states,
            (std::vector<BrainState>{BrainState::kMismatch, BrainState::kIdentityUnknown}));
  EXPECT_FALSE(filter.empty());
  EXPECT_FALSE(filter.has_limit);
  EXPECT_TRUE(filter.Matches(Report("a", BrainState::kMismatch)));
  EXPECT_FALSE(filter.Matches(Report("a", BrainState::kOk)));
}

TEST(BrainFilterTest, AnUnknownStateNamesTheValidOnes) {
  for (const char* bad : {"Mismatch", "", "ok,", "stale", "ok mismatch"}) {
    BrainFilter filter;
    filter.limit = 7;
    std::string error;
    EXPECT_FALSE(ParseBrainFilter({{"state", bad}}, &filter, &error)) << bad;
    EXPECT_EQ(filter.limit, 7u);  // untouched
    EXPECT_NE(error.find("unknown state"), std::string::npos) << error;
    EXPECT_NE(error.find("ok, mismatch, absent, unreadable or identity_unknown"), std::string::npos)
        << error;
  }
}

TEST(BrainFilterTest, LimitIsAnIntegerZeroOrMore) {
  BrainFilter filter;
  std::string error;
  ASSERT_TRUE(ParseBrainFilter({{"limit", "0"}}, &filter, &error)) << error;
  EXPECT_TRUE(filter.has_limit);
  EXPECT_EQ(filter.limit, 0u);
  EXPECT_FALSE(filter.empty());
  ASSERT_TRUE(ParseBrainFilter({{"limit", "25"}}, &filter, &error)) << error;
  EXPECT_EQ(filter.limit, 25u);
  for (const char* bad : {"", "-1", "+3", "1.5", "ten", "3 ", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseBrainFilter({{"limit", bad}}, &filter, &error)) << bad;
    EXPECT_NE(error.find("bad limit"), std::string::npos) << error;
  }
}

TEST(BrainFilterTest, AParameterGivenTwiceIsRefused) {
  BrainFilter filter;
  std::string error;
  EXPECT_FALSE(ParseBrainFilter({{"state", "ok"}, {"state", "absent"}}, &filter, &error));
  EXPECT_EQ(error, "state given twice");
  EXPECT_FALSE(ParseBrainFilter({{"limit", "1"}, {"limit", "1"}}, &filter, &error));
  EXPECT_EQ(error, "limit given twice");
}

TEST(BrainFilterTest, SelectionKeepsOrderCapsAndCountsTheRest) {
  std::vector<BrainReport> brains;
  brains.reserve(10);
  for (int i = 0; i < 10; ++i) {
    brains.push_back(
        Report("b" + std::to_string(i), i % 2 == 0 ? BrainState::kOk : BrainState::kMismatch));
  }
  BrainFilter filter;
  filter.states = {BrainState::kMismatch};
  filter.has_limit = true;
  filter.limit = 3;
  const BrainSelection some = SelectBrains(brains, filter);
  ASSERT_EQ(some.brains.size(), 3u);
  EXPECT_EQ(some.brains[0]->brain().name, "b1");
  EXPECT_EQ(some.brains[2]->brain().name, "b5");
  EXPECT_EQ(some.omitted, 2u);
  filter.limit = 0;  // no limit
  const BrainSelection all = SelectBrains(brains, filter);
  EXPECT_EQ(all.brains.size(), 5u);
  EXPECT_EQ(all.omitted, 0u);
  filter.states.clear();
  filter.limit = 4;
  EXPECT_EQ(SelectBrains(brains, filter).omitted, 6u);
}

}  // namespace
}  // namespace scx
