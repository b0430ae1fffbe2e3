// Tests for the scanner's verdicts over real files: states, provenance, stale verdicts, errors.
#include "engine/scanner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/engine/scanner_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::kKeyvaultBlocks;
using testing::kM1ndBlocks;
using testing::ReplaceFileAtomically;
using testing::ScannerTest;
using testing::SeriesWith;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

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

TEST_F(ScannerTest, FifoStoreIsUnreadableNotAHang) {
  std::string store = AddBrain("m1nd");
  ASSERT_EQ(mkfifo(store.c_str(), 0600), 0);
  const BrainReport brain = scanner_.Scan(config_).brains[0];
  EXPECT_EQ(brain.state, BrainState::kUnreadable);
  EXPECT_EQ(brain.read_error, StoreError::kNotRegular);
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
