// Tests for mismatch_since: when a foreign verdict was first read, kept from scan to scan.
#include "engine/scanner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/engine/scanner_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::kKeyvaultBlocks;
using testing::kM1ndBlocks;
using testing::ReplaceFileAtomically;
using testing::ReplaceWithMtime;
using testing::ScannerTest;
using testing::StoreJson;

TEST_F(ScannerTest, MismatchSinceIsTheStoreMtimeAtTheFirstReadOfThisForeignVerdict) {
  const std::string store = AddBrain("m1nd");
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 1), 1700000000);
  ScanResult first = scanner_.Scan(config_);
  ASSERT_TRUE(first.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*first.brains[0].mismatch_since, 1700000000.0);

  // m1nd writes the same foreign skeleton again: still "at least since" the first read.
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 2), 1700000100);
  ScanResult rewritten = scanner_.Scan(config_);
  EXPECT_EQ(rewritten.stores_parsed, 1);
  ASSERT_TRUE(rewritten.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*rewritten.brains[0].mismatch_since, 1700000000.0);

  // Unreadable now: the stale mismatch keeps its time.
  std::string torn = StoreJson("sk_m1nd_candidate", kM1ndBlocks);
  ReplaceWithMtime(store, torn.substr(0, torn.size() / 2), 1700000150);
  ScanResult stale = scanner_.Scan(config_);
  ASSERT_TRUE(stale.brains[0].verdict_stale);
  ASSERT_TRUE(stale.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*stale.brains[0].mismatch_since, 1700000000.0);

  // Another foreign skeleton: the clock starts again at that read.
  ReplaceWithMtime(store, StoreJson("sk_other_candidate", {"sb_other_core_1"}, 3), 1700000200);
  ScanResult other = scanner_.Scan(config_);
  ASSERT_EQ(other.brains[0].coherence->found_slug, "other");
  ASSERT_TRUE(other.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*other.brains[0].mismatch_since, 1700000200.0);

  // Fixed: no time. A later mismatch of the first slug starts from its own read.
  ReplaceWithMtime(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks, 4), 1700000300);
  EXPECT_FALSE(scanner_.Scan(config_).brains[0].mismatch_since.has_value());
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 5), 1700000400);
  ScanResult again = scanner_.Scan(config_);
  ASSERT_TRUE(again.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*again.brains[0].mismatch_since, 1700000400.0);

  // The store goes away: no verdict, no time.
  std::remove(store.c_str());
  EXPECT_FALSE(scanner_.Scan(config_).brains[0].mismatch_since.has_value());
}

TEST_F(ScannerTest, MismatchSinceSurvivesARestartWithoutWritingState) {
  const std::string store = AddBrain("m1nd");
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1600000000);
  scanner_.Scan(config_);
  Scanner restarted;  // a new process: nothing remembered
  ScanResult scan = restarted.Scan(config_);
  ASSERT_TRUE(scan.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*scan.brains[0].mismatch_since, 1600000000.0);
}

TEST_F(ScannerTest, OkAndAbsentBrainsHaveNoMismatchSince) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  AddBrain("notes");
  ScanResult scan = scanner_.Scan(config_);
  EXPECT_FALSE(Find(scan, "m1nd").mismatch_since.has_value());
  EXPECT_FALSE(Find(scan, "notes").mismatch_since.has_value());
}

TEST_F(ScannerTest, MismatchSinceKeepsItsTimeAcrossNewOptions) {
  const std::string store = AddBrain("m1nd");
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000000);
  scanner_.Scan(config_);
  StoreReaderOptions tiny;
  tiny.max_bytes = 10;
  scanner_.SetOptions(tiny);
  ScanResult refused = scanner_.Scan(config_);
  ASSERT_TRUE(refused.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*refused.brains[0].mismatch_since, 1700000000.0);
}

TEST_F(ScannerTest, NewIdentityWithTheSameForeignVerdictKeepsMismatchSince) {
  const std::string store = AddBrain("m1nd");
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 1), 1700000000);
  scanner_.Scan(config_);
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 2), 1700000100);
  scanner_.Scan(config_);
  config_.static_brains[0].project_root = "/srv/m1nd";  // the same slug
  const ScanResult moved = scanner_.Scan(config_);
  EXPECT_EQ(moved.verdicts_computed, 1);
  EXPECT_TRUE(moved.changes.empty());
  EXPECT_EQ(*moved.brains[0].mismatch_since, 1700000000.0);

  config_.static_brains[0].display_name = "other";  // another slug, the same store
  const ScanResult renamed = scanner_.Scan(config_);
  EXPECT_EQ(renamed.verdicts_computed, 1);
  ASSERT_EQ(renamed.changes.size(), 1u);
  EXPECT_EQ(renamed.changes[0].from, BrainState::kMismatch);
  EXPECT_EQ(renamed.changes[0].to, BrainState::kMismatch);
  ASSERT_NE(renamed.changes[0].coherence, nullptr);
  EXPECT_EQ(renamed.changes[0].coherence->expected_slug, "other");
}

}  // namespace
}  // namespace scx
