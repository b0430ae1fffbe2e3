// Verdict continuity: a brain known to serve a foreign skeleton stays a mismatch,
// marked stale, while the scanner cannot judge it (store unseen, identity unknown,
// runtime dir or registry entry out of view) and across a restart restored from the
// state (Scanner::Restore), until a good read judges it or it is really gone.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/scanner.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;

const std::vector<std::string> kKeyvaultBlocks = {"sb_keyvault_core_1a2b3c4d"};
const std::vector<std::string> kM1ndBlocks = {"sb_m1nd_core_1a2b3c4d"};

void Rename(const std::string& from, const std::string& to) {
  ASSERT_EQ(0, std::rename(from.c_str(), to.c_str())) << from << " -> " << to;
}

const BrainReport* Find(const ScanResult& scan, const std::string& name) {
  for (const BrainReport& brain : scan.brains) {
    if (brain.brain().name == name) return &brain;
  }
  return nullptr;
}

// The brain is still exported as the mismatch it was, marked stale.
void ExpectStaleMismatch(const BrainReport* brain, const char* found_slug) {
  ASSERT_NE(nullptr, brain);
  ASSERT_NE(nullptr, brain->coherence) << BrainStateName(brain->state);
  EXPECT_EQ(CoherenceStatus::kMismatch, brain->coherence->status);
  EXPECT_EQ(found_slug, brain->coherence->found_slug);
  EXPECT_TRUE(brain->verdict_stale);
  EXPECT_TRUE(brain->mismatch_since.has_value());
}

class ContinuityTest : public ::testing::Test {
 protected:
  // A static brain bound to /home/u/m1nd whose runtime dir is in the temp dir.
  std::string AddStaticBrain() {
    runtime_ = dir_.Join("mnt/m1nd-rt");
    testing::MakeDirs(runtime_);
    config_.static_brains.push_back(StaticBrain{"m1nd", "/home/u/m1nd", "", runtime_});
    return runtime_ + "/system_blocks.json";
  }

  // A registry owner on `runtime_` (its ingest root the repo `repo`), hosting one
  // project brain bound to /home/u/keyvault that serves m1nd's skeleton.
  void AddOwnerWithProjectBrain(const std::string& repo) {
    runtime_ = dir_.Join("mnt/m1nd-rt");
    registry_ = dir_.Join("registry");
    project_dir_ = runtime_ + "/project-brains/3f2a9c1d";
    testing::MakeDirs(repo);
    testing::WriteFile(registry_ + "/instances/owner.json",
                       testing::InstanceJson("owner", runtime_, runtime_, "\"medulla\""));
    testing::WriteFile(runtime_ + "/ingest_roots.json", "[\"" + repo + "\"]");
    ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                          StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
    testing::WriteFile(project_dir_ + "/project_brain.json",
                       testing::ManifestJson("/home/u/notes"));
    ReplaceFileAtomically(project_dir_ + "/system_blocks.json",
                          StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
    config_.registries = {registry_};
  }

  TempDir dir_;
  DiscoveryConfig config_;
  Scanner scanner_;
  std::string runtime_;
  std::string registry_;
  std::string project_dir_;
};

TEST_F(ContinuityTest, RuntimeDirMovedAwayKeepsTheMismatchUntilItIsJudged) {
  const std::string store = AddStaticBrain();
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ASSERT_EQ(BrainState::kMismatch, scanner_.Scan(config_).brains[0].state);

  Rename(runtime_, dir_.Join("mnt/elsewhere"));
  ScanResult scan = scanner_.Scan(config_);
  const BrainReport& lost = scan.brains[0];
  EXPECT_EQ(BrainState::kUnreadable, lost.state);  // never absent
  EXPECT_EQ(StoreError::kUnseen, lost.read_error);
  EXPECT_NE(std::string::npos, lost.read_error_message.find("missing")) << lost.read_error_message;
  ExpectStaleMismatch(&lost, "keyvault");

  Rename(dir_.Join("mnt/elsewhere"), runtime_);
  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  scan = scanner_.Scan(config_);
  EXPECT_EQ(BrainState::kOk, scan.brains[0].state);
  EXPECT_FALSE(scan.brains[0].verdict_stale);
}

TEST_F(ContinuityTest, UnmountedRuntimeDirIsUnseenButANewEmptyOneIsAbsent) {
  const std::string store = AddStaticBrain();
  // Never held a store: an empty runtime dir is a brain with no skeleton yet.
  EXPECT_EQ(BrainState::kAbsent, scanner_.Scan(config_).brains[0].state);
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  ASSERT_EQ(BrainState::kMismatch, scanner_.Scan(config_).brains[0].state);
  // What an unmount leaves: the mount point, empty.
  ASSERT_EQ(0, std::remove(store.c_str()));
  ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(StoreError::kUnseen, scan.brains[0].read_error);
  ExpectStaleMismatch(&scan.brains[0], "keyvault");
}

TEST_F(ContinuityTest, StoreRemovedFromAVisibleRuntimeDirIsAbsent) {
  const std::string store = AddStaticBrain();
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  testing::WriteFile(runtime_ + "/graph_snapshot.json", "{}");
  scanner_.Scan(config_);
  ASSERT_EQ(0, std::remove(store.c_str()));
  const ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(BrainState::kAbsent, scan.brains[0].state);
  EXPECT_EQ(nullptr, scan.brains[0].coherence);
}

TEST_F(ContinuityTest, HiddenRepoKeepsAMismatchStale) {
  const std::string repo = dir_.Join("home/u/m1nd");
  AddOwnerWithProjectBrain(repo);
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_NE(nullptr, Find(scan, "m1nd"));
  ASSERT_EQ(BrainState::kMismatch, Find(scan, "m1nd")->state);

  Rename(dir_.Join("home"), dir_.Join("hidden"));  // its parent goes too: unseen
  scan = scanner_.Scan(config_);
  const BrainReport* hidden = Find(scan, "m1nd");
  ASSERT_NE(nullptr, hidden);
  EXPECT_EQ(BrainState::kIdentityUnknown, hidden->state);
  ExpectStaleMismatch(hidden, "keyvault");

  // An ok verdict is not kept without an identity: there is nothing to stand behind.
  Rename(dir_.Join("hidden"), dir_.Join("home"));
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  ASSERT_EQ(BrainState::kOk, Find(scanner_.Scan(config_), "m1nd")->state);
  Rename(dir_.Join("home"), dir_.Join("hidden"));
  scan = scanner_.Scan(config_);
  EXPECT_EQ(BrainState::kIdentityUnknown, Find(scan, "m1nd")->state);
  EXPECT_EQ(nullptr, Find(scan, "m1nd")->coherence);
}

TEST_F(ContinuityTest, RuntimeRootOutOfViewKeepsTheOwnerAndItsProjectBrains) {
  AddOwnerWithProjectBrain(dir_.Join("home/u/m1nd"));
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(2u, scan.brains.size());
  ASSERT_EQ(BrainState::kMismatch, Find(scan, "notes")->state);

  Rename(dir_.Join("mnt"), dir_.Join("unmounted"));
  scan = scanner_.Scan(config_);
  ASSERT_EQ(2u, scan.brains.size()) << "neither renamed nor gone";
  const BrainReport* owner = Find(scan, "m1nd");
  ASSERT_NE(nullptr, owner);
  EXPECT_EQ("/home/u/m1nd", owner->brain().project_root.substr(owner->brain().project_root.size() -
                                                               std::string("/home/u/m1nd").size()));
  ExpectStaleMismatch(owner, "keyvault");
  ExpectStaleMismatch(Find(scan, "notes"), "keyvault");
  EXPECT_FALSE(scan.problems.empty()) << "losing sight is a discovery problem";

  Rename(dir_.Join("unmounted"), dir_.Join("mnt"));
  scan = scanner_.Scan(config_);
  EXPECT_EQ(BrainState::kMismatch, Find(scan, "notes")->state);
  EXPECT_FALSE(Find(scan, "notes")->verdict_stale);
  EXPECT_TRUE(scan.problems.empty());
}

TEST_F(ContinuityTest, ProjectBrainRemovedByM1ndIsGone) {
  AddOwnerWithProjectBrain(dir_.Join("home/u/m1nd"));
  scanner_.Scan(config_);
  std::filesystem::remove_all(project_dir_);
  const ScanResult scan = scanner_.Scan(config_);
  EXPECT_EQ(nullptr, Find(scan, "notes"));
  EXPECT_TRUE(scan.problems.empty());
}

TEST_F(ContinuityTest, LostBrainsAreHeldWhileTheirFoldersAreOutOfView) {
  AddOwnerWithProjectBrain(dir_.Join("home/u/m1nd"));
  scanner_.Scan(config_);
  // The owner's entry is gone from the registry and its runtime root is unmounted:
  // the mount point is left, empty. Nothing says m1nd removed either brain.
  ASSERT_EQ(0, std::remove((registry_ + "/instances/owner.json").c_str()));
  const std::string volume = dir_.Join("volume");
  Rename(runtime_, volume);
  testing::MakeDirs(runtime_);
  ScanResult scan = scanner_.Scan(config_);
  ExpectStaleMismatch(Find(scan, "notes"), "keyvault");
  ExpectStaleMismatch(Find(scan, "m1nd"), "keyvault");
  EXPECT_EQ(2u, scan.problems.size());

  // Mounted again, and m1nd had removed the project brain: it is gone. The owner's
  // folder is there with its foreign store: judged, still a mismatch.
  ASSERT_EQ(0, rmdir(runtime_.c_str()));
  Rename(volume, runtime_);
  std::filesystem::remove_all(project_dir_);
  scan = scanner_.Scan(config_);
  EXPECT_EQ(nullptr, Find(scan, "notes"));
  ASSERT_NE(nullptr, Find(scan, "m1nd"));
  EXPECT_EQ(BrainState::kMismatch, Find(scan, "m1nd")->state);

  // Judged ok: no longer held.
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  EXPECT_EQ(BrainState::kOk, Find(scanner_.Scan(config_), "m1nd")->state);
  EXPECT_EQ(nullptr, Find(scanner_.Scan(config_), "m1nd"));
}

TEST_F(ContinuityTest, LostBrainOfARegistryNoLongerConfiguredIsDropped) {
  AddOwnerWithProjectBrain(dir_.Join("home/u/m1nd"));
  scanner_.Scan(config_);
  Rename(dir_.Join("mnt"), dir_.Join("unmounted"));
  config_.registries.clear();
  EXPECT_TRUE(scanner_.Scan(config_).brains.empty());
}

// A restart: the new scanner restores what the last one remembered.
std::vector<RememberedBrain> RememberedBy(const Scanner& scanner) {
  std::vector<RememberedBrain> remembered;
  scanner.ForEachRemembered([&remembered](const Brain& brain, BrainState state,
                                          const Coherence* mismatch, std::int64_t since_ns) {
    RememberedBrain entry;
    entry.brain = brain;
    entry.state = state;
    if (mismatch != nullptr) entry.mismatch = std::make_shared<const Coherence>(*mismatch);
    entry.mismatch_since_ns = since_ns;
    remembered.push_back(std::move(entry));
  });
  return remembered;
}

TEST_F(ContinuityTest, RestartWhileTornKeepsTheMismatch) {
  const std::string store = AddStaticBrain();
  ReplaceFileAtomically(store, StoreJson("sk_keyvault_candidate", kKeyvaultBlocks));
  const double since = *scanner_.Scan(config_).brains[0].mismatch_since;
  const std::string whole = StoreJson("sk_keyvault_candidate", kKeyvaultBlocks);
  ReplaceFileAtomically(store, whole.substr(0, whole.size() / 2));

  Scanner restarted;
  restarted.Restore(RememberedBy(scanner_));
  ScanResult scan = restarted.Scan(config_);
  EXPECT_EQ(BrainState::kUnreadable, scan.brains[0].state);
  ExpectStaleMismatch(&scan.brains[0], "keyvault");
  EXPECT_EQ(since, *scan.brains[0].mismatch_since);
  ASSERT_EQ(1u, scan.changes.size());  // from what the last run saw
  EXPECT_EQ(BrainState::kMismatch, scan.changes[0].from);
  EXPECT_EQ(BrainState::kUnreadable, scan.changes[0].to);

  // Without the state, as before: nothing to show.
  Scanner forgetful;
  EXPECT_EQ(nullptr, forgetful.Scan(config_).brains[0].coherence);

  ReplaceFileAtomically(store, StoreJson("sk_m1nd_candidate", kM1ndBlocks));
  scan = restarted.Scan(config_);
  EXPECT_EQ(BrainState::kOk, scan.brains[0].state);
  EXPECT_FALSE(scan.brains[0].verdict_stale);
}

TEST_F(ContinuityTest, RestartKeepsLabelsTheStartUpRuleWouldSwap) {
  // Two runtime dirs wanting "m1nd": the incumbent is the larger runtime dir, which
  // the start-up rule would give the suffix.
  const std::string later = dir_.Join("rt-b");
  const std::string earlier = dir_.Join("rt-a");
  testing::MakeDirs(later);
  testing::MakeDirs(earlier);
  config_.static_brains.push_back(StaticBrain{"", "/home/u/m1nd", "", later});
  scanner_.Scan(config_);
  config_.static_brains.push_back(StaticBrain{"", "/home/u/m1nd", "", earlier});
  ScanResult scan = scanner_.Scan(config_);
  ASSERT_EQ(later, Find(scan, "m1nd")->brain().runtime_dir);

  Scanner restarted;
  restarted.Restore(RememberedBy(scanner_));
  scan = restarted.Scan(config_);
  ASSERT_NE(nullptr, Find(scan, "m1nd"));
  EXPECT_EQ(later, Find(scan, "m1nd")->brain().runtime_dir);
  EXPECT_TRUE(scan.changes.empty());

  Scanner forgetful;  // the start-up rule alone: the smallest runtime dir wins
  EXPECT_EQ(earlier, Find(forgetful.Scan(config_), "m1nd")->brain().runtime_dir);
}

TEST_F(ContinuityTest, RestoredLabelOnlyBrainIsNeverJudgedByItself) {
  // An ok brain restored from the state has no identity; carried over by a registry
  // that cannot be listed, it must not get a verdict from an empty identity.
  AddOwnerWithProjectBrain(dir_.Join("home/u/m1nd"));
  ReplaceFileAtomically(project_dir_ + "/system_blocks.json",
                        StoreJson("sk_notes_candidate", {"sb_notes_core_1a2b3c4d"}));
  scanner_.Scan(config_);
  Scanner restarted;
  restarted.Restore(RememberedBy(scanner_));
  ASSERT_EQ(0, chmod((registry_ + "/instances").c_str(), 0));
  ScanResult scan = restarted.Scan(config_);
  ASSERT_EQ(0, chmod((registry_ + "/instances").c_str(), 0755));
  if (geteuid() != 0) {
    const BrainReport* owner = Find(scan, "m1nd");
    ASSERT_NE(nullptr, owner);
    ExpectStaleMismatch(owner, "keyvault");  // restored with its identity
  }
  for (const BrainReport& brain : scan.brains) {
    if (brain.coherence != nullptr) {
      EXPECT_NE("repo", brain.coherence->expected_slug) << brain.brain().name;
    }
  }
}

}  // namespace
}  // namespace scx
