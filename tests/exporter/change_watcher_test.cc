// Tests of instant detection: which folders are watched (those a scan read, whatever
// their names), that a store renamed into place is seen at once, bursts are
// coalesced, and limits hold, a kernel without an inotify instance left included.
#include "exporter/change_watcher.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/scanner.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::InstanceJson;
using testing::MakeDirs;
using testing::StoreJson;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFile;

TEST(DirsToWatchTest, RuntimeDirsThenTheFoldersDiscoveryRead) {
  ScanResult scan;
  BrainReport owner;
  owner.mutable_brain()->runtime_dir = "/rt";
  BrainReport project;
  project.mutable_brain()->runtime_dir = "/rt/project-brains/ab";
  scan.brains = {owner, project};
  scan.folders_read = {{"/reg/instances", FolderRole::kRegistryEntries},
                       {"/rt/project-brains", FolderRole::kBrainFolders}};
  const std::vector<ReadFolder> dirs = DirsToWatch(scan);
  ASSERT_EQ(4u, dirs.size());
  EXPECT_EQ("/rt", dirs[0].path);
  EXPECT_EQ(FolderRole::kBrainFolder, dirs[0].role);
  EXPECT_EQ("/rt/project-brains/ab", dirs[1].path);
  EXPECT_EQ(FolderRole::kBrainFolder, dirs[1].role);
  EXPECT_EQ("/reg/instances", dirs[2].path);
  EXPECT_EQ(FolderRole::kRegistryEntries, dirs[2].role);
  EXPECT_EQ("/rt/project-brains", dirs[3].path);
  EXPECT_EQ(FolderRole::kBrainFolders, dirs[3].role);
}

// Stands in for inotify_init1(2) when every inotify instance is taken.
int NoInstanceLeft(int /*flags*/) {
  errno = EMFILE;
  return -1;
}

class ChangeWatcherTest : public ::testing::Test {
 protected:
  void StartWatching(ChangeWatcher::Options options = {}) {
    watcher_ = std::make_unique<ChangeWatcher>(options, [this] { ++calls_; });
    std::string error;
    ASSERT_TRUE(watcher_->Start(&error)) << error;
  }
  // Writes a store beside, then renames it into place, as m1nd does.
  void ReplaceStore(const std::string& dir, const std::string& skeleton) {
    WriteFile(dir + "/system_blocks.json.tmp", StoreJson(skeleton, {}));
    ASSERT_EQ(0, rename((dir + "/system_blocks.json.tmp").c_str(),
                        (dir + "/system_blocks.json").c_str()));
  }

  TempDir tmp_;
  std::atomic<int> calls_{0};
  std::unique_ptr<ChangeWatcher> watcher_;
};

TEST_F(ChangeWatcherTest, AStoreRenamedIntoPlaceIsSeenAtOnce) {
  MakeDirs(tmp_.Join("rt"));
  StartWatching();
  ASSERT_TRUE(watcher_->SetDirs({{tmp_.Join("rt"), FolderRole::kBrainFolder}}));
  EXPECT_EQ(1u, watcher_->watched());
  ReplaceStore(tmp_.Join("rt"), "sk_keyvault_candidate");
  EXPECT_TRUE(WaitFor([&] { return calls_ > 0; }, milliseconds(5000)));
  EXPECT_EQ(1u, watcher_->triggers());
}

TEST_F(ChangeWatcherTest, OtherFilesAreIgnored) {
  MakeDirs(tmp_.Join("rt"));
  StartWatching();
  watcher_->SetDirs({{tmp_.Join("rt"), FolderRole::kBrainFolder}});
  WriteFile(tmp_.Join("rt/graph_snapshot.json"), "{}");
  WriteFile(tmp_.Join("rt/system_blocks.json.tmp"), "{}");
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(0, calls_);
}

TEST_F(ChangeWatcherTest, ABurstIsOneCall) {
  MakeDirs(tmp_.Join("rt"));
  ChangeWatcher::Options options;
  options.settle = milliseconds(200);
  StartWatching(options);
  watcher_->SetDirs({{tmp_.Join("rt"), FolderRole::kBrainFolder}});
  for (int i = 0; i < 50; ++i) ReplaceStore(tmp_.Join("rt"), "sk_rt_candidate");
  EXPECT_TRUE(WaitFor([&] { return calls_ > 0; }, milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_LE(calls_.load(), 2);  // 2 only if the machine stalled mid-burst past max_delay
}

TEST_F(ChangeWatcherTest, BeyondTheLimitTheTimerTakesOver) {
  MakeDirs(tmp_.Join("a"));
  MakeDirs(tmp_.Join("b"));
  ChangeWatcher::Options options;
  options.max_watches = 1;
  StartWatching(options);
  EXPECT_FALSE(watcher_->SetDirs({{tmp_.Join("a"), FolderRole::kBrainFolder},
                                  {tmp_.Join("b"), FolderRole::kBrainFolder},
                                  {tmp_.Join("missing"), FolderRole::kBrainFolder}}));
  EXPECT_TRUE(watcher_->limited());
  EXPECT_EQ(1u, watcher_->watched());
  // Dropping a folder frees its room.
  EXPECT_TRUE(watcher_->SetDirs({{tmp_.Join("b"), FolderRole::kBrainFolder}}));
  EXPECT_FALSE(watcher_->limited());
  EXPECT_EQ(1u, watcher_->watched());
}

// A folder the watcher has never heard of, reported by discovery (here a folder of
// brain folders, as a new source would list): a brain folder created in it is seen.
TEST_F(ChangeWatcherTest, AFolderDiscoveryReadIsWatchedWhateverItsName) {
  MakeDirs(tmp_.Join("some-new-source"));
  StartWatching();
  ScanResult scan;
  scan.folders_read = {{tmp_.Join("some-new-source"), FolderRole::kBrainFolders}};
  ASSERT_TRUE(watcher_->SetDirs(DirsToWatch(scan)));
  EXPECT_EQ(1u, watcher_->watched());
  MakeDirs(tmp_.Join("some-new-source/.birth-staging-1"));  // does not matter yet
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(0, calls_);
  ASSERT_EQ(0, rename(tmp_.Join("some-new-source/.birth-staging-1").c_str(),
                      tmp_.Join("some-new-source/0a1b2c3d").c_str()));
  EXPECT_TRUE(WaitFor([&] { return calls_ > 0; }, milliseconds(5000)));
}

// An owner whose graph (and so its ingest_roots.json) lives outside its runtime root:
// the folder is watched because discovery read it, not because the watcher knows it.
TEST_F(ChangeWatcherTest, IngestRootsBesideAGraphElsewhereAreWatched) {
  const std::string runtime = tmp_.Join("rt");
  WriteFile(runtime + "/system_blocks.json", StoreJson("sk_m1nd_candidate", {"sb_m1nd_a"}));
  std::string entry = InstanceJson("owner-1", "/home/u/m1nd", runtime);
  const std::string default_graph = runtime + "/graph_snapshot.json";
  entry.replace(entry.find(default_graph), default_graph.size(),
                tmp_.Join("graphs/graph_snapshot.json"));
  WriteFile(tmp_.Join("registry/instances/owner-1.json"), entry);
  MakeDirs(tmp_.Join("graphs"));
  DiscoveryConfig config;
  config.registries = {tmp_.Join("registry")};
  Scanner scanner;
  const ScanResult scan = scanner.Scan(config);
  ASSERT_EQ(1u, scan.brains.size());
  StartWatching();
  ASSERT_TRUE(watcher_->SetDirs(DirsToWatch(scan)));
  WriteFile(tmp_.Join("graphs/ingest_roots.json"), "[\"/home/u/keyvault\"]");
  EXPECT_TRUE(WaitFor([&] { return calls_ > 0; }, milliseconds(5000)));
}

// With every inotify instance taken, nothing is watched and the watcher says it is
// limited: every folder is left to the timer scan.
TEST(ChangeWatcherStartTest, WithoutAnInotifyInstanceTheWatcherIsLimited) {
  ChangeWatcher::Options options;
  options.inotify_init = NoInstanceLeft;
  ChangeWatcher watcher(options, [] {});
  std::string error;
  EXPECT_FALSE(watcher.Start(&error));
  EXPECT_NE(std::string::npos, error.find("inotify_init1")) << error;
  EXPECT_TRUE(watcher.limited());
  TempDir tmp;
  EXPECT_FALSE(watcher.SetDirs({{tmp.path(), FolderRole::kBrainFolder}}));
  EXPECT_EQ(0u, watcher.watched());
  EXPECT_TRUE(watcher.limited());
  watcher.Stop();
}

TEST_F(ChangeWatcherTest, StopIsPromptAndIdempotent) {
  StartWatching();
  watcher_->Stop();
  watcher_->Stop();
  EXPECT_EQ(0, calls_);
}

}  // namespace
}  // namespace scx
