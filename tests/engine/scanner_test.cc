// The scanner over real files: verdicts, change detection, last good verdict kept
// (and marked stale) while a store is unreadable, state changes.
#include "engine/scanner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <thread>

#include "base/stamp_cache.h"
#include "exporter/render/metrics_renderer.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

const std::vector<std::string> kKeyvaultBlocks = {"sb_keyvault_core_1a2b3c4d",
                                                  "sb_keyvault_cli_5e6f7a8b"};
const std::vector<std::string> kM1ndBlocks = {"sb_m1nd_core_1a2b3c4d", "sb_m1nd_mcp_9f8e7d6c",
                                              "sb_m1nd_ui_00ff00ff"};

// Replaces `path` as m1nd does, with its mtime set to `mtime_seconds` (Unix time).
void ReplaceWithMtime(const std::string& path, const std::string& contents,
                      std::int64_t mtime_seconds) {
  const std::string tmp = path + ".tmp";
  testing::WriteFile(tmp, contents);
  const struct timespec times[2] = {{mtime_seconds, 0}, {mtime_seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, tmp.c_str(), times, 0), 0);
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

// Now by CLOCK_REALTIME, in nanoseconds.
std::int64_t RealtimeNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return std::int64_t{now.tv_sec} * 1000 * 1000 * 1000 + now.tv_nsec;
}

// A clock well ahead of the real one: every file a test writes is settled when first
// read, as one written long before the scan is.
std::int64_t SettledNowNs() { return RealtimeNs() + 10 * kStampSettleNs; }

class ScannerTest : public ::testing::Test {
 protected:
  // Adds a static brain bound to /home/u/<slug> with its runtime dir in the temp dir.
  std::string AddBrain(const std::string& name) {
    std::string runtime_dir = dir_.Join("rt-" + name);
    testing::MakeDirs(runtime_dir);
    // m1nd's runtime dir holds more than the store: one it emptied is out of view.
    testing::WriteFile(runtime_dir + "/graph_snapshot.json", "{}");
    config_.static_brains.push_back(StaticBrain{name, "/home/u/" + name, "", runtime_dir});
    return runtime_dir + "/system_blocks.json";
  }

  const BrainReport& Find(const ScanResult& scan, const std::string& name) {
    for (const BrainReport& brain : scan.brains) {
      if (brain.brain().name == name) return brain;
    }
    ADD_FAILURE() << "no brain " << name;
    return scan.brains.front();
  }

  TempDir dir_;
  DiscoveryConfig config_;
  Scanner scanner_{StoreReaderOptions(), SettledNowNs};
};

// A report shares its brain with the scanner instead of holding a copy: it must stay
// whole after the next scans and after the scanner itself is gone (ASan checks it).
TEST(ScannerBrainsTest, ReportsKeepTheirBrainsAfterTheScanner) {
  TempDir dir;
  DiscoveryConfig config;
  for (const std::string name : {"m1nd", "keyvault"}) {
    const std::string runtime_dir = dir.Join("rt-" + name);
    testing::MakeDirs(runtime_dir);
    config.static_brains.push_back(StaticBrain{name, "/home/u/" + name, "", runtime_dir});
  }
  auto scanner = std::make_unique<Scanner>();
  const ScanResult first = scanner->Scan(config);
  config.static_brains.pop_back();  // "keyvault" is gone from the second scan
  const ScanResult second = scanner->Scan(config);
  scanner.reset();
  ASSERT_EQ(first.brains.size(), 2u);
  EXPECT_EQ(first.brains[0].brain().name, "keyvault");
  EXPECT_EQ(first.brains[1].brain().name, "m1nd");
  EXPECT_EQ(first.brains[1].brain().project_root, "/home/u/m1nd");
  ASSERT_EQ(second.brains.size(), 1u);
  EXPECT_EQ(second.brains[0].brain().name, "m1nd");
  // One list per scan: the first scan's reports point into one, not into copies.
  EXPECT_EQ(&first.brains[1].brain(), &first.brains[0].brain() + 1);

  // A report built by hand: an empty brain until it is given one of its own.
  BrainReport report;
  EXPECT_EQ(report.brain().name, "");
  report.mutable_brain()->name = "notes";
  report.mutable_brain()->project_root = "/home/u/notes";
  EXPECT_EQ(report.brain().name, "notes");
  EXPECT_EQ(report.brain().project_root, "/home/u/notes");
  BrainReport copy = report;
  copy.mutable_brain()->name = "other";
  EXPECT_EQ(report.brain().name, "notes");  // the copy changed its own
}

TEST_F(ScannerTest, IncidentHealthyAndEmptyBrains) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 7));
  ReplaceFileAtomically(AddBrain("keyvault"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  AddBrain("notes");

  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(scan.brains.size(), 3u);

  const BrainReport& m1nd = Find(scan, "m1nd");
  EXPECT_EQ(m1nd.state, BrainState::kMismatch);
  EXPECT_STREQ(StorePresenceName(m1nd.store), "present");
  ASSERT_NE(m1nd.coherence, nullptr);
  EXPECT_EQ(m1nd.coherence->expected_slug, "m1nd");
  EXPECT_EQ(m1nd.coherence->found_slug, "keyvault");
  EXPECT_FALSE(m1nd.verdict_stale);
  EXPECT_TRUE(m1nd.has_store_facts);
  EXPECT_EQ(m1nd.store_version, 7);
  EXPECT_EQ(m1nd.block_count, 2);

  EXPECT_EQ(Find(scan, "keyvault").state, BrainState::kOk);

  const BrainReport& notes = Find(scan, "notes");
  EXPECT_EQ(notes.state, BrainState::kAbsent);
  EXPECT_STREQ(StorePresenceName(notes.store), "absent");
  EXPECT_EQ(notes.coherence, nullptr);
  EXPECT_FALSE(notes.has_store_facts);

  EXPECT_EQ(scan.stores_parsed, 2);
  EXPECT_EQ(scan.changes.size(), 3u);  // all first seen
}

// m1nd cannot load a store whose skeleton is null: it is broken, not empty, and a
// known mismatch must stay exported (stale) rather than fall silent.
TEST_F(ScannerTest, StoreWithNullSkeletonIsUnreadableAndKeepsTheLastVerdict) {
  const std::string store = AddBrain("m1nd");
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", {"sb_keyvault_a"}));
  ASSERT_EQ(scanner_.Scan(config_).brains[0].state, BrainState::kMismatch);

  ReplaceFileAtomically(store, R"({"schema": "m1nd-system-block-store-v0", "store_version": 1,
                                   "skeleton": null, "blocks": []})");
  ScanResult scan = scanner_.Scan(config_);
  const BrainReport& m1nd = scan.brains[0];
  EXPECT_EQ(m1nd.state, BrainState::kUnreadable);
  EXPECT_STREQ(StorePresenceName(m1nd.store), "unreadable");
  EXPECT_EQ(m1nd.read_error, StoreError::kSchema);
  ASSERT_NE(m1nd.coherence, nullptr);
  EXPECT_EQ(m1nd.coherence->status, CoherenceStatus::kMismatch);
  EXPECT_TRUE(m1nd.verdict_stale);
}

TEST_F(ScannerTest, StoreWithoutSkeletonIsUnreadableNotEmpty) {
  WriteFile(AddBrain("m1nd"), R"({"schema": "m1nd-system-block-store-v0", "blocks": []})");
  ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(scan.brains[0].state, BrainState::kUnreadable);
  EXPECT_EQ(scan.brains[0].read_error, StoreError::kSchema);
  EXPECT_EQ(scan.brains[0].coherence, nullptr);
}

// Whose skeleton: a signal beside the verdict that never changes it.
TEST_F(ScannerTest, TheIncidentNamesTheOwnerWithoutChangingAnyVerdict) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_keyvault_candidate", {"sb_keyvault_a"}));
  ReplaceFileAtomically(AddBrain("keyvault"),
                        StoreJson("sk_keyvault_candidate", {"sb_keyvault_a"}));
  ReplaceFileAtomically(AddBrain("lib"), StoreJson("sk_lib_core_candidate", {"sb_lib_a"}));
  ScanResult scan = scanner_.Scan(config_);
  const BrainReport& m1nd = Find(scan, "m1nd");
  EXPECT_EQ(m1nd.provenance().owner_brain, "keyvault");
  EXPECT_EQ(m1nd.provenance().shared_with, std::vector<std::string>{"keyvault"});
  ASSERT_NE(m1nd.coherence, nullptr);
  EXPECT_EQ(m1nd.coherence->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(m1nd.coherence->found_slug, "keyvault");
  const BrainReport& lib = Find(scan, "lib");
  EXPECT_TRUE(lib.provenance().prefix_ambiguous);
  EXPECT_EQ(lib.provenance().ambiguous_slug, "lib_core");
  ASSERT_NE(lib.coherence, nullptr);
  EXPECT_EQ(lib.coherence->status, CoherenceStatus::kOk);
  EXPECT_EQ(lib.coherence->found_slug, "lib");
  EXPECT_EQ(Find(scan, "keyvault").provenance().owner_brain, "");
}

TEST_F(ScannerTest, BrainsWithNothingToSayOfTheirSkeletonCarryNoProvenance) {
  ReplaceFileAtomically(AddBrain("m1nd"), StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  ReplaceFileAtomically(AddBrain("keyvault"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ReplaceFileAtomically(AddBrain("copy"), StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  AddBrain("notes");
  const ScanResult scan = scanner_.Scan(config_);
  for (const char* name : {"m1nd", "notes"}) {
    const BrainReport& report = Find(scan, name);
    EXPECT_EQ(report.skeleton_provenance, nullptr) << name;
    EXPECT_TRUE(report.provenance().owner_brain.empty());
    EXPECT_EQ(report.provenance().shared_count, 0u);
    EXPECT_FALSE(report.provenance().prefix_ambiguous);
  }
  const BrainReport& keyvault = Find(scan, "keyvault");
  ASSERT_NE(keyvault.skeleton_provenance, nullptr);
  EXPECT_EQ(keyvault.provenance().shared_with, std::vector<std::string>{"copy"});
  EXPECT_EQ(Find(scan, "copy").provenance().owner_brain, "keyvault");
}

// An owner whose identity comes from an ingest root: visible, then hidden from the
// exporter (its parent gone from view, as in a sandbox), then visible again. While
// hidden the brain has no verdict, is never a mismatch, and keeps its name.
TEST_F(ScannerTest, HiddenIngestRootGivesNoVerdictAndKeepsTheName) {
  const std::string registry = dir_.Join("registry");
  const std::string runtime = dir_.Join("m1nd-rt");
  const std::string repo = dir_.Join("home/u/m1nd");
  testing::MakeDirs(repo);
  testing::WriteFile(registry + "/instances/owner.json",
                     testing::InstanceJson("owner", runtime, runtime, "\"medulla\""));
  testing::WriteFile(runtime + "/ingest_roots.json", "[\"" + repo + "\"]");
  testing::WriteFile(runtime + "/system_blocks.json",
                     StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d"}));
  config_.registries = {registry};
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(1u, scan.brains.size());
  EXPECT_EQ("m1nd", scan.brains[0].brain().name);
  EXPECT_EQ(BrainState::kOk, scan.brains[0].state);

  const std::string away = dir_.Join("away");
  ASSERT_EQ(0, std::rename(dir_.Join("home").c_str(), away.c_str()));
  scan = scanner_.Scan(config_);
  ASSERT_EQ(1u, scan.brains.size());
  const BrainReport& hidden = scan.brains[0];
  EXPECT_EQ("m1nd", hidden.brain().name);
  EXPECT_EQ(BrainState::kIdentityUnknown, hidden.state);
  EXPECT_EQ(nullptr, hidden.coherence);
  EXPECT_EQ(StorePresence::kPresent, hidden.store);
  EXPECT_TRUE(hidden.has_store_facts);
  ASSERT_EQ(1u, scan.changes.size());
  EXPECT_EQ(BrainState::kIdentityUnknown, *scan.changes[0].to);
  EXPECT_EQ(runtime, scan.changes[0].runtime_dir);
  EXPECT_NE(std::string::npos, scan.changes[0].identity_note.find(repo));

  ASSERT_EQ(0, std::rename(away.c_str(), dir_.Join("home").c_str()));
  scan = scanner_.Scan(config_);
  EXPECT_EQ(BrainState::kOk, scan.brains[0].state);
  ASSERT_NE(nullptr, scan.brains[0].coherence);
}

// A brain carried over from the previous scan (its registry could not be listed)
// keeps being read, and its verdict is marked stale.
TEST_F(ScannerTest, CarriedOverBrainsVerdictIsStale) {
  const std::string registry = dir_.Join("registry");
  const std::string runtime = dir_.Join("m1nd-rt");
  testing::WriteFile(registry + "/instances/owner.json",
                     testing::InstanceJson("owner", "/home/u/m1nd", runtime, "\"medulla\""));
  testing::WriteFile(runtime + "/system_blocks.json",
                     StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  config_.registries = {registry};
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(1u, scan.brains.size());
  EXPECT_FALSE(scan.brains[0].verdict_stale);
  ASSERT_EQ(0, std::rename((registry + "/instances").c_str(), (registry + "/away").c_str()));
  testing::WriteFile(registry + "/instances", "a file: the listing fails\n");
  scan = scanner_.Scan(config_);
  ASSERT_EQ(1u, scan.brains.size());
  EXPECT_EQ(BrainState::kMismatch, scan.brains[0].state);
  EXPECT_TRUE(scan.brains[0].verdict_stale);
  EXPECT_EQ(1u, scan.problems.size());
}

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

TEST_F(ScannerTest, UnreadableStoreKeepsTheLastGoodVerdictMarkedStale) {
  std::string store = AddBrain("m1nd");
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks, 3));
  scanner_.Scan(config_);

  std::string torn = StoreJson("sk_m1nd_candidate", kM1ndBlocks);
  ReplaceFileAtomically(store, torn.substr(0, torn.size() / 2));
  ScanResult scan = scanner_.Scan(config_);
  const BrainReport& brain = scan.brains[0];
  EXPECT_EQ(brain.state, BrainState::kUnreadable);
  EXPECT_STREQ(StorePresenceName(brain.store), "unreadable");
  EXPECT_EQ(brain.read_error, StoreError::kParse);
  ASSERT_NE(brain.coherence, nullptr);
  EXPECT_EQ(brain.coherence->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(brain.coherence->found_slug, "keyvault");
  EXPECT_TRUE(brain.verdict_stale);
  EXPECT_EQ(brain.store_version, 3);
  EXPECT_EQ(brain.read_errors_total[StoreError::kParse], 1u);
  ASSERT_EQ(scan.changes.size(), 1u);
  EXPECT_EQ(scan.changes[0].to, BrainState::kUnreadable);
  EXPECT_EQ(scan.changes[0].read_error, StoreError::kParse);

  // Still torn and unchanged: not parsed again, but still unreadable and counted.
  ScanResult again = scanner_.Scan(config_);
  EXPECT_EQ(again.stores_parsed, 0);
  EXPECT_EQ(again.brains[0].state, BrainState::kUnreadable);
  EXPECT_EQ(again.brains[0].read_errors_total[StoreError::kParse], 2u);
  EXPECT_TRUE(again.changes.empty());

  // A good write replaces the stale verdict.
  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks, 4));
  ScanResult fixed = scanner_.Scan(config_);
  EXPECT_EQ(fixed.brains[0].state, BrainState::kOk);
  EXPECT_FALSE(fixed.brains[0].verdict_stale);
  EXPECT_EQ(fixed.brains[0].store_version, 4);
  EXPECT_EQ(fixed.brains[0].read_errors_total[StoreError::kParse], 2u);
}

TEST_F(ScannerTest, UnreadableWithoutAnyGoodReadHasNoVerdict) {
  std::string store = AddBrain("m1nd");
  WriteFile(store, "{\"schema\": \"something-else\"}");
  const BrainReport brain = scanner_.Scan(config_).brains[0];
  EXPECT_EQ(brain.state, BrainState::kUnreadable);
  EXPECT_EQ(brain.read_error, StoreError::kSchema);
  EXPECT_EQ(brain.coherence, nullptr);
  EXPECT_FALSE(brain.has_store_facts);
}

TEST_F(ScannerTest, StoreThatGoesAwayDropsTheVerdict) {
  std::string store = AddBrain("m1nd");
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  scanner_.Scan(config_);
  std::remove(store.c_str());
  const BrainReport brain = scanner_.Scan(config_).brains[0];
  EXPECT_EQ(brain.state, BrainState::kAbsent);
  EXPECT_EQ(brain.coherence, nullptr);
  EXPECT_FALSE(brain.has_store_facts);
}

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

TEST_F(ScannerTest, FifoStoreIsUnreadableNotAHang) {
  std::string store = AddBrain("m1nd");
  ASSERT_EQ(mkfifo(store.c_str(), 0600), 0);
  const BrainReport brain = scanner_.Scan(config_).brains[0];
  EXPECT_EQ(brain.state, BrainState::kUnreadable);
  EXPECT_EQ(brain.read_error, StoreError::kNotRegular);
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

// Sample lines of the rendered metrics that carry `label`.
std::vector<std::string> SeriesWith(const ScanResult& scan, const std::string& label) {
  BrainMetricsOptions every_series;
  every_series.store_details = true;
  std::istringstream text(RenderMetrics(scan, nullptr, every_series));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) {
    if (line[0] != '#' && line.find(label) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

TEST_F(ScannerTest, ReadErrorsAreCountedByReasonOverScans) {
  const std::string store = AddBrain("m1nd");
  std::string torn = StoreJson("sk_m1nd_candidate", kM1ndBlocks);
  ReplaceFileAtomically(store, torn.substr(0, torn.size() / 2));
  const ScanResult first = scanner_.Scan(config_);
  EXPECT_EQ(first.brains[0].read_errors_total[StoreError::kParse], 1u);
  // The same torn file is not read again, but the scan still counts, with the same message.
  const ScanResult same = scanner_.Scan(config_);
  EXPECT_EQ(same.stores_parsed, 0);
  EXPECT_EQ(same.stores_unchanged, 1);
  EXPECT_EQ(same.brains[0].read_error, StoreError::kParse);
  EXPECT_FALSE(same.brains[0].read_error_message.empty());
  EXPECT_EQ(same.brains[0].read_error_message, first.brains[0].read_error_message);
  EXPECT_EQ(same.brains[0].read_errors_total[StoreError::kParse], 2u);

  std::remove(store.c_str());
  testing::MakeDirs(store);  // a folder: not_regular
  scanner_.Scan(config_);
  std::filesystem::remove_all(store);
  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  scanner_.Scan(config_);  // a good read counts nothing and resets nothing
  ReplaceFileAtomically(store, R"({"schema": "something-else", "blocks": []})");
  scanner_.Scan(config_);
  std::remove(store.c_str());
  scanner_.Scan(config_);  // no store is not a read error
  ASSERT_EQ(mkfifo(store.c_str(), 0600), 0);
  const ScanResult last = scanner_.Scan(config_);

  const ReadErrorCounts& counts = last.brains[0].read_errors_total;
  EXPECT_EQ(counts[StoreError::kParse], 2u);
  EXPECT_EQ(counts[StoreError::kNotRegular], 2u);  // the folder and the FIFO
  EXPECT_EQ(counts[StoreError::kSchema], 1u);
  EXPECT_EQ(counts[StoreError::kIo], 0u);
  EXPECT_EQ(counts[StoreError::kTooLarge], 0u);
  EXPECT_EQ(counts[StoreError::kAbsent], 0u);
  EXPECT_EQ(counts[StoreError::kNone], 0u);
  const std::string series =
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"not_regular\"} 2";
  EXPECT_EQ(SeriesWith(last, "reason=\"not_regular\""), std::vector<std::string>{series});
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
  ASSERT_EQ(incumbent_series.size(), 16u);  // verdict, since, 5 states, info, 2 facts, 6 errors

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

// A fleet of static brains in every state a store can be in, for comparing a
// parallel scan with a serial one.
class MixedFleet {
 public:
  static constexpr int kBrains = 240;
  static constexpr std::int64_t kMaxBytes = 4096;

  explicit MixedFleet(const TempDir& dir) : dir_(dir) {
    for (int i = 0; i < kBrains; ++i) {
      const std::string name = "b" + std::to_string(1000 + i);
      const std::string runtime_dir = dir_.Join("rt-" + name);
      testing::MakeDirs(runtime_dir);
      config_.static_brains.push_back(StaticBrain{name, "/home/u/" + name, "", runtime_dir});
      Write(i, i % 8);
    }
  }

  // Puts brain `i`'s store in state `kind`: 0 ok, 1 mismatch, 2 absent, 3 torn (parse),
  // 4 FIFO, 5 a folder, 6 too large, 7 wrong schema.
  void Write(int i, int kind) {
    const std::string name = config_.static_brains[static_cast<std::size_t>(i)].name;
    const std::string store =
        config_.static_brains[static_cast<std::size_t>(i)].runtime_dir + "/system_blocks.json";
    std::filesystem::remove_all(store);
    const std::vector<std::string> blocks = {"sb_" + name + "_a", "sb_" + name + "_b"};
    switch (kind) {
      case 0:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x", blocks, i));
        break;
      case 1:
        ReplaceFileAtomically(store, StoreJson("sk_keyvault_x", {"sb_keyvault_a"}, i));
        break;
      case 2:
        break;
      case 3:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x", blocks).substr(0, 30));
        break;
      case 4:
        ASSERT_EQ(mkfifo(store.c_str(), 0600), 0);
        break;
      case 5:
        testing::MakeDirs(store);
        break;
      case 6:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x",
                                               std::vector<std::string>(200, "sb_" + name + "_z")));
        break;
      default:
        ReplaceFileAtomically(store, R"({"schema": "something-else", "blocks": []})");
        break;
    }
  }

  const DiscoveryConfig& config() const { return config_; }

 private:
  const TempDir& dir_;
  DiscoveryConfig config_;
};

// Two scans agree on every brain, in the same order, and on what they counted.
void ExpectSameScan(const ScanResult& serial, const ScanResult& parallel) {
  ASSERT_FALSE(serial.stopped);
  ASSERT_FALSE(parallel.stopped);
  ASSERT_EQ(serial.brains.size(), parallel.brains.size());
  for (std::size_t i = 0; i < serial.brains.size(); ++i) {
    const BrainReport& a = serial.brains[i];
    const BrainReport& b = parallel.brains[i];
    SCOPED_TRACE(a.brain().name);
    EXPECT_EQ(a.brain().name, b.brain().name);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.store, b.store);
    EXPECT_EQ(a.read_error, b.read_error);
    EXPECT_EQ(a.read_error_message, b.read_error_message);
    EXPECT_EQ(a.coherence == nullptr, b.coherence == nullptr);
    EXPECT_EQ(a.verdict_stale, b.verdict_stale);
    EXPECT_EQ(a.block_count, b.block_count);
    EXPECT_EQ(a.read_errors_total, b.read_errors_total);
  }
  EXPECT_EQ(serial.stores_parsed, parallel.stores_parsed);
  EXPECT_EQ(serial.stores_unchanged, parallel.stores_unchanged);
  EXPECT_EQ(serial.verdicts_computed, parallel.verdicts_computed);
  ASSERT_EQ(serial.changes.size(), parallel.changes.size());
  for (std::size_t i = 0; i < serial.changes.size(); ++i) {
    EXPECT_EQ(serial.changes[i].brain, parallel.changes[i].brain);
    EXPECT_EQ(serial.changes[i].from, parallel.changes[i].from);
    EXPECT_EQ(serial.changes[i].to, parallel.changes[i].to);
  }
  // Everything else a scan exports, verdicts and provenance included.
  EXPECT_EQ(RenderMetrics(serial, nullptr), RenderMetrics(parallel, nullptr));
}

class ParallelScanTest : public ::testing::Test {
 protected:
  ParallelScanTest() : fleet_(dir_) {
    StoreReaderOptions options;
    options.max_bytes = MixedFleet::kMaxBytes;
    serial_.SetOptions(options);
    parallel_.SetOptions(options);
    serial_.SetParallelism(Parallelism{1, 1});
    parallel_.SetParallelism(Parallelism{4, 1});  // four threads, whatever the machine
  }

  TempDir dir_;
  MixedFleet fleet_;
  Scanner serial_{StoreReaderOptions(), SettledNowNs};
  Scanner parallel_{StoreReaderOptions(), SettledNowNs};
};

TEST_F(ParallelScanTest, GivesTheSerialResultsInTheSameOrder) {
  const ScanResult cold = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), cold);
  ASSERT_EQ(cold.brains.size(), static_cast<std::size_t>(MixedFleet::kBrains));
  EXPECT_EQ(cold.stores_parsed, MixedFleet::kBrains / 4);  // ok and mismatch
  for (std::size_t i = 1; i < cold.brains.size(); ++i) {
    EXPECT_LT(cold.brains[i - 1].brain().name, cold.brains[i].brain().name);
  }
  const BrainState expected[] = {BrainState::kOk,         BrainState::kMismatch,
                                 BrainState::kAbsent,     BrainState::kUnreadable,
                                 BrainState::kUnreadable, BrainState::kUnreadable,
                                 BrainState::kUnreadable, BrainState::kUnreadable};
  for (std::size_t i = 0; i < cold.brains.size(); ++i) {
    EXPECT_EQ(cold.brains[i].state, expected[i % 8]) << cold.brains[i].brain().name;
  }

  // Warm: nothing changed, nothing read.
  const ScanResult warm = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), warm);
  EXPECT_EQ(warm.stores_parsed, 0);
  EXPECT_TRUE(warm.changes.empty());

  // Every brain moves on to another state: stale verdicts, new verdicts, gone stores.
  for (int i = 0; i < MixedFleet::kBrains; ++i) fleet_.Write(i, (i % 8 + 1 + i / 8) % 8);
  const ScanResult moved = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), moved);
  EXPECT_FALSE(moved.changes.empty());
}

TEST_F(ParallelScanTest, AStopWhileReadingLeavesNoTrace) {
  // A stop set at some moment of a parallel scan: either the scan ended first, or it
  // is marked stopped, publishes nothing and the next scan is as if it never ran.
  for (int attempt = 0; attempt < 20; ++attempt) {
    Scanner scanner;
    StoreReaderOptions options;
    options.max_bytes = MixedFleet::kMaxBytes;
    scanner.SetOptions(options);
    scanner.SetParallelism(Parallelism{4, 1});
    std::atomic<bool> stop{false};
    std::thread stopper([&stop, attempt] {
      for (int spin = 0; spin < attempt * 50; ++spin) std::this_thread::yield();
      stop = true;
    });
    const ScanResult result = scanner.Scan(fleet_.config(), &stop);
    stopper.join();
    if (!result.stopped) continue;
    EXPECT_TRUE(result.brains.empty());
    EXPECT_TRUE(result.changes.empty());
    Scanner fresh;
    fresh.SetOptions(options);
    ExpectSameScan(fresh.Scan(fleet_.config()), scanner.Scan(fleet_.config()));
  }
  // Set before the scan, the stop always wins.
  std::atomic<bool> stop{true};
  EXPECT_TRUE(parallel_.Scan(fleet_.config(), &stop).stopped);
}

TEST(ReadErrorCountsTest, OneCounterPerReadError) {
  ReadErrorCounts counts;
  for (const Term<StoreError>& term : kStoreErrors) EXPECT_EQ(counts[term.value], 0u);
  counts.Add(StoreError::kNone);
  counts.Add(StoreError::kAbsent, 5);
  EXPECT_EQ(counts, ReadErrorCounts());
  std::uint64_t scans = 1;
  for (const Term<StoreError>& term : kStoreErrors) counts.Add(term.value, scans++);
  scans = 1;
  for (const Term<StoreError>& term : kStoreErrors) {
    const std::uint64_t expected = IsReadError(term.value) ? scans : 0;
    EXPECT_EQ(counts[term.value], expected) << term.name;
    ++scans;
  }
  // Copies share their counters until one of them counts more: the other keeps its own.
  const std::uint64_t schema = counts[StoreError::kSchema];
  ReadErrorCounts other = counts;
  EXPECT_EQ(other, counts);
  other.Add(StoreError::kSchema);
  EXPECT_NE(other, counts);
  EXPECT_EQ(counts[StoreError::kSchema], schema);
  EXPECT_EQ(other[StoreError::kSchema], schema + 1);
  // Counting zero scans changes nothing.
  ReadErrorCounts zero;
  zero.Add(StoreError::kIo, 0);
  EXPECT_EQ(zero, ReadErrorCounts());
}

TEST(BrainStateNameTest, Names) {
  EXPECT_STREQ(BrainStateName(BrainState::kOk), "ok");
  EXPECT_STREQ(BrainStateName(BrainState::kMismatch), "mismatch");
  EXPECT_STREQ(BrainStateName(BrainState::kAbsent), "absent");
  EXPECT_STREQ(BrainStateName(BrainState::kUnreadable), "unreadable");
}

}  // namespace
}  // namespace scx
