// Tests for brains renamed, moved, gone and back: scans compared by name, runtime dirs kept.
#include "engine/scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
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
using testing::SeriesWith;
using testing::StoreJson;

TEST_F(ScannerTest, BrainThatDisappearsIsReportedGone) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  AddBrain("notes");
  scanner_.Scan(config_);
  config_.static_brains.pop_back();
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(scan.brains.size(), 1u);
  ASSERT_EQ(scan.changes.size(), 1u);
  EXPECT_EQ(scan.changes[0].brain, "notes");
  EXPECT_EQ(scan.changes[0].from, BrainState::kAbsent);
  EXPECT_FALSE(scan.changes[0].to.has_value());
}

TEST_F(ScannerTest, ForgottenBrainIsReadAgainWhenItComesBack) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ReplaceFileAtomically(AddBrain("keyvault"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  scanner_.Scan(config_);
  const StaticBrain keyvault = config_.static_brains.back();
  config_.static_brains.pop_back();
  EXPECT_EQ(scanner_.Scan(config_).changes.size(), 1u);  // keyvault gone
  config_.static_brains.push_back(keyvault);
  const ScanResult back = scanner_.Scan(config_);
  EXPECT_EQ(back.stores_parsed, 1);
  ASSERT_EQ(back.changes.size(), 1u);
  EXPECT_EQ(back.changes[0].brain, "keyvault");
  EXPECT_FALSE(back.changes[0].from.has_value());
  EXPECT_EQ(back.changes[0].to, BrainState::kOk);
}

TEST_F(ScannerTest, RenamedBrainKeepsWhatItsRuntimeDirKnew) {
  const std::string store = AddBrain("m1nd");
  ReplaceWithMtime(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000000);
  scanner_.Scan(config_);
  config_.static_brains[0].name = "renamed";  // same runtime dir, same identity
  const ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(scan.stores_parsed, 0);
  EXPECT_EQ(scan.verdicts_computed, 0);
  ASSERT_TRUE(scan.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*scan.brains[0].mismatch_since, 1700000000.0);
  // By name: a new brain first, then the one gone.
  ASSERT_EQ(scan.changes.size(), 2u);
  EXPECT_EQ(scan.changes[0].brain, "renamed");
  EXPECT_FALSE(scan.changes[0].from.has_value());
  EXPECT_EQ(scan.changes[0].to, BrainState::kMismatch);
  ASSERT_NE(scan.changes[0].coherence, nullptr);
  EXPECT_EQ(scan.changes[0].coherence->found_slug, "keyvault");
  EXPECT_EQ(scan.changes[1].brain, "m1nd");
  EXPECT_EQ(scan.changes[1].from, BrainState::kMismatch);
  EXPECT_FALSE(scan.changes[1].to.has_value());
}

TEST_F(ScannerTest, NameMovedToAnotherRuntimeDirIsComparedByName) {
  const std::string old_store = AddBrain("m1nd");
  ReplaceWithMtime(old_store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000000);
  scanner_.Scan(config_);
  const std::string new_dir = dir_.Join("moved");
  testing::MakeDirs(new_dir);
  ReplaceWithMtime(new_dir + "/system_blocks.json",
                   StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000500);
  config_.static_brains[0].runtime_dir = new_dir;
  const ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(scan.stores_parsed, 1);   // another runtime dir: nothing known of it
  EXPECT_TRUE(scan.changes.empty());  // the same name in the same state and verdict
  ASSERT_TRUE(scan.brains[0].mismatch_since.has_value());
  EXPECT_EQ(*scan.brains[0].mismatch_since, 1700000500.0);
}

TEST_F(ScannerTest, BrainsThatSwapNamesAreComparedByNameAndKeepTheirRuntimeDirs) {
  // Two mismatches of the same slugs, then an ok brain and a mismatch.
  const std::string first_store = AddBrain("a");
  const std::string second_store = AddBrain("b");
  config_.static_brains[0].project_root = "/home/u/m1nd";
  config_.static_brains[1].project_root = "/srv/m1nd";
  ReplaceWithMtime(first_store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000000);
  ReplaceWithMtime(second_store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks), 1700000500);
  scanner_.Scan(config_);
  std::swap(config_.static_brains[0].name, config_.static_brains[1].name);
  ScanResult swapped = scanner_.Scan(config_);
  EXPECT_EQ(swapped.stores_parsed, 0);
  EXPECT_EQ(swapped.verdicts_computed, 0);
  EXPECT_TRUE(swapped.changes.empty());  // each name: the same state and verdict as before
  EXPECT_EQ(Find(swapped, "a").brain().runtime_dir + "/system_blocks.json", second_store);
  EXPECT_EQ(*Find(swapped, "a").mismatch_since, 1700000500.0);
  EXPECT_EQ(*Find(swapped, "b").mismatch_since, 1700000000.0);

  ReplaceFileAtomically(first_store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  scanner_.Scan(config_);  // b (first_store) ok, a (second_store) mismatch
  std::swap(config_.static_brains[0].name, config_.static_brains[1].name);
  swapped = scanner_.Scan(config_);
  ASSERT_EQ(swapped.changes.size(), 2u);
  EXPECT_EQ(swapped.changes[0].brain, "a");
  EXPECT_EQ(swapped.changes[0].from, BrainState::kMismatch);
  EXPECT_EQ(swapped.changes[0].to, BrainState::kOk);
  EXPECT_EQ(swapped.changes[1].brain, "b");
  EXPECT_EQ(swapped.changes[1].from, BrainState::kOk);
  EXPECT_EQ(swapped.changes[1].to, BrainState::kMismatch);
  EXPECT_EQ(*Find(swapped, "b").mismatch_since, 1700000500.0);
}

TEST_F(ScannerTest, NewcomerWithTheSameNameNeverRenamesTheIncumbent) {
  // The incumbent's runtime dir sorts after the newcomer's: at start-up the newcomer
  // would win the name. While the incumbent exists, its series never change.
  const std::string incumbent_dir = dir_.Join("z-incumbent");
  const std::string newcomer_dir = dir_.Join("a-newcomer");
  testing::MakeDirs(incumbent_dir);
  testing::MakeDirs(newcomer_dir);
  ReplaceFileAtomically(incumbent_dir + "/system_blocks.json",
                        StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 7));
  ReplaceFileAtomically(newcomer_dir + "/system_blocks.json",
                        StoreJson("sk_m1nd_candidate", kM1ndBlocks, 2));
  config_.static_brains.push_back(StaticBrain{"", "/home/u/m1nd", "", incumbent_dir});
  const ScanResult before = scanner_.Scan(config_);
  const std::vector<std::string> incumbent_series = SeriesWith(before, "brain=\"m1nd\"");
  ASSERT_EQ(incumbent_series.size(), 17u);  // verdict, since, 5 states, info, 2 facts, 7 errors

  config_.static_brains.push_back(StaticBrain{"", "/srv/m1nd", "", newcomer_dir});
  for (int scan = 0; scan < 3; ++scan) {
    const ScanResult after = scanner_.Scan(config_);
    ASSERT_EQ(after.brains.size(), 2u);
    EXPECT_EQ(SeriesWith(after, "brain=\"m1nd\""), incumbent_series);
    EXPECT_EQ(Find(after, "m1nd").brain().runtime_dir, incumbent_dir);
    const BrainReport& newcomer = after.brains[1];
    EXPECT_EQ(newcomer.brain().runtime_dir, newcomer_dir);
    EXPECT_EQ(newcomer.brain().name.rfind("m1nd_", 0), 0u) << newcomer.brain().name;
    EXPECT_EQ(newcomer.state, BrainState::kOk);
    EXPECT_EQ(after.name_collisions.size(), 1u);
  }
  // Only the newcomer's arrival is a change.
  EXPECT_TRUE(scanner_.Scan(config_).changes.empty());

  // A restart applies the start-up rule, deterministically: the smaller runtime dir wins.
  Scanner restarted;
  EXPECT_EQ(Find(restarted.Scan(config_), "m1nd").brain().runtime_dir, newcomer_dir);
}

}  // namespace
}  // namespace scx
