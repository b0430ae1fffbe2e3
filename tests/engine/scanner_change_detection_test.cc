// Tests for the scanner's change detection: stamps, settling, rereads, new options, a stop.
#include "engine/scanner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"
#include "tests/engine/scanner_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::kKeyvaultBlocks;
using testing::kM1ndBlocks;
using testing::ReplaceFileAtomically;
using testing::ScannerTest;
using testing::StoreJson;
using testing::TempDir;

TEST_F(ScannerTest, UnchangedStoreIsNotReadAgain) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  EXPECT_EQ(scanner_.Scan(config_).stores_parsed, 1);
  ScanResult second = scanner_.Scan(config_);
  EXPECT_EQ(second.stores_parsed, 0);
  EXPECT_EQ(second.stores_unchanged, 1);
  EXPECT_EQ(second.brains[0].state, BrainState::kOk);
  EXPECT_TRUE(second.changes.empty());
}

// The stamp of the file at `path` now.
FileStamp StampOf(const std::string& path) {
  struct stat info;
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return StampOfStat(info);
}

// A store changed in the same timestamp tick as a read keeps the stamp the read saw
// (coarse timestamps): its stamp is trusted only once read kStampSettleNs after its
// last change.
TEST(ScannerSettleTest, RecentStoreIsReadAgainUntilItsStampSettles) {
  TempDir dir;
  DiscoveryConfig config;
  config.static_brains.push_back(StaticBrain{"m1nd", "/home/u/m1nd", "", dir.path()});
  const std::string store = dir.Join("system_blocks.json");
  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  const FileStamp stamp = StampOf(store);
  std::int64_t now_ns = std::max(stamp.mtime_ns, stamp.ctime_ns) + kStampSettleNs;  // not yet
  Scanner scanner(StoreReaderOptions(), [&now_ns] { return now_ns; });

  EXPECT_EQ(scanner.Scan(config).stores_parsed, 1);
  const ScanResult again = scanner.Scan(config);  // the stamp alone cannot tell
  EXPECT_EQ(again.stores_parsed, 1);
  EXPECT_EQ(again.stores_unchanged, 0);
  EXPECT_EQ(again.brains[0].state, BrainState::kOk);
  EXPECT_TRUE(again.changes.empty());
  EXPECT_TRUE(again.notices.empty());

  now_ns += 1;  // settled: this read stands for the file while its stamp does
  EXPECT_EQ(scanner.Scan(config).stores_parsed, 1);
  const ScanResult settled = scanner.Scan(config);
  EXPECT_EQ(settled.stores_parsed, 0);
  EXPECT_EQ(settled.stores_unchanged, 1);
}

// The same for a store that failed for its content: a torn write caught in the tick
// of the read is not a failure kept for ever.
TEST(ScannerSettleTest, RecentContentFailureIsReadAgainUntilItsStampSettles) {
  TempDir dir;
  DiscoveryConfig config;
  config.static_brains.push_back(StaticBrain{"m1nd", "/home/u/m1nd", "", dir.path()});
  const std::string store = dir.Join("system_blocks.json");
  const std::string whole = StoreJson("sk_m1nd_candidate", kM1ndBlocks);
  ReplaceFileAtomically(store, whole.substr(0, whole.size() / 2));
  const FileStamp stamp = StampOf(store);
  std::int64_t now_ns = std::max(stamp.mtime_ns, stamp.ctime_ns) + kStampSettleNs;
  Scanner scanner(StoreReaderOptions(), [&now_ns] { return now_ns; });

  EXPECT_EQ(scanner.Scan(config).brains[0].read_error, StoreError::kParse);
  const ScanResult again = scanner.Scan(config);
  EXPECT_EQ(again.stores_unchanged, 0);  // read again
  EXPECT_EQ(again.brains[0].read_error, StoreError::kParse);
  now_ns += 1;
  scanner.Scan(config);
  EXPECT_EQ(scanner.Scan(config).stores_unchanged, 1);
}

// A store stamped in the future (the clock stepped back, a restored backup) is never
// known by its stamp: it is read at every scan, and a notice says so.
TEST(ScannerSettleTest, StoreStampedInTheFutureIsReadEveryScanWithANotice) {
  TempDir dir;
  DiscoveryConfig config;
  config.static_brains.push_back(StaticBrain{"m1nd", "/home/u/m1nd", "", dir.path()});
  const std::string store = dir.Join("system_blocks.json");
  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  const FileStamp stamp = StampOf(store);
  const std::int64_t behind_ns = stamp.mtime_ns - 3600 * std::int64_t{1000000000};
  Scanner scanner(StoreReaderOptions(), [behind_ns] { return behind_ns; });

  for (int scan = 0; scan < 3; ++scan) {
    const ScanResult result = scanner.Scan(config);
    EXPECT_EQ(result.stores_parsed, 1) << scan;
    EXPECT_EQ(result.stores_unchanged, 0) << scan;
    EXPECT_EQ(result.brains[0].state, BrainState::kOk) << scan;
    ASSERT_EQ(result.notices.size(), 1u) << scan;
    EXPECT_EQ(result.notices[0].path, store);
    EXPECT_NE(result.notices[0].message.find("in the future"), std::string::npos);
  }
}

TEST_F(ScannerTest, StoppedScanReadsNothingAndLeavesThePreviousScanAsItWas) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ReplaceFileAtomically(AddBrain("keyvault"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  std::atomic<bool> stop{true};
  ScanResult stopped = scanner_.Scan(config_, &stop);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_TRUE(stopped.brains.empty());
  EXPECT_EQ(stopped.stores_parsed, 0);

  stop = false;
  ScanResult full = scanner_.Scan(config_, &stop);
  EXPECT_FALSE(full.stopped);
  EXPECT_EQ(full.stores_parsed, 2);
  ASSERT_EQ(full.changes.size(), 2u);  // both still new: the stopped scan left no trace
  EXPECT_FALSE(full.changes[0].from.has_value());
  EXPECT_EQ(Find(full, "m1nd").state, BrainState::kMismatch);
}

TEST_F(ScannerTest, AtomicReplacementIsSeenAndFlipsTheVerdict) {
  std::string store = AddBrain("m1nd");
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  EXPECT_EQ(scanner_.Scan(config_).brains[0].state, BrainState::kMismatch);

  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(scan.stores_parsed, 1);
  EXPECT_EQ(scan.brains[0].state, BrainState::kOk);
  ASSERT_EQ(scan.changes.size(), 1u);
  EXPECT_EQ(scan.changes[0].from, BrainState::kMismatch);
  EXPECT_EQ(scan.changes[0].to, BrainState::kOk);
}

TEST_F(ScannerTest, IdentityChangeIsAppliedWithoutReread) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  EXPECT_EQ(scanner_.Scan(config_).brains[0].state, BrainState::kMismatch);
  config_.static_brains[0].display_name = "keyvault";
  ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(scan.stores_parsed, 0);
  EXPECT_EQ(scan.verdicts_computed, 1);  // the identity is new: its verdict too
  EXPECT_EQ(scan.brains[0].state, BrainState::kOk);
}

TEST_F(ScannerTest, UnchangedStoreReusesItsVerdict) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ReplaceFileAtomically(AddBrain("keyvault"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ScanResult first = scanner_.Scan(config_);
  EXPECT_EQ(first.verdicts_computed, 2);
  for (int i = 0; i < 3; ++i) {
    ScanResult again = scanner_.Scan(config_);
    EXPECT_EQ(again.stores_parsed, 0);
    EXPECT_EQ(again.verdicts_computed, 0);  // a stat per store, no block re-checked
    EXPECT_EQ(Find(again, "m1nd").state, BrainState::kMismatch);
    ASSERT_NE(Find(again, "m1nd").coherence, nullptr);
    EXPECT_EQ(Find(again, "m1nd").coherence->found_slug, "keyvault");
    EXPECT_EQ(Find(again, "keyvault").state, BrainState::kOk);
  }
  // A new file is a new verdict.
  ReplaceFileAtomically(dir_.Join("rt-m1nd/system_blocks.json"),
                        StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  ScanResult changed = scanner_.Scan(config_);
  EXPECT_EQ(changed.verdicts_computed, 1);
  EXPECT_EQ(Find(changed, "m1nd").state, BrainState::kOk);
}

TEST_F(ScannerTest, NewOptionsRereadEveryStoreAndKeepTheLastVerdict) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  EXPECT_EQ(scanner_.Scan(config_).brains[0].state, BrainState::kMismatch);

  StoreReaderOptions tiny;
  tiny.max_bytes = 10;
  scanner_.SetOptions(tiny);
  ScanResult refused = scanner_.Scan(config_);
  EXPECT_EQ(refused.brains[0].state, BrainState::kUnreadable);
  EXPECT_EQ(refused.brains[0].read_error, StoreError::kTooLarge);
  ASSERT_NE(refused.brains[0].coherence, nullptr);
  EXPECT_EQ(refused.brains[0].coherence->found_slug, "keyvault");
  EXPECT_TRUE(refused.brains[0].verdict_stale);

  // The file is unchanged, but the larger cap must be applied: read again.
  scanner_.SetOptions(StoreReaderOptions());
  ScanResult again = scanner_.Scan(config_);
  EXPECT_EQ(again.stores_parsed, 1);
  EXPECT_EQ(again.brains[0].state, BrainState::kMismatch);
  EXPECT_FALSE(again.brains[0].verdict_stale);
}

}  // namespace
}  // namespace scx
