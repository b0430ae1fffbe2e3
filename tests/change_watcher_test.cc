// Tests of instant detection: which changes matter, which folders are watched, that a
// store renamed into place is seen at once, bursts are coalesced, and limits hold.
#include "exporter/change_watcher.h"

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
using testing::MakeDirs;
using testing::StoreJson;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFile;

TEST(ChangeMattersTest, OnlyTheFilesThatDecideAVerdict) {
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kRuntimeDir, "system_blocks.json", false));
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kRuntimeDir, "project_brain.json", false));
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kRuntimeDir, "ingest_roots.json", false));
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kRuntimeDir, "project-brains", true));
  EXPECT_FALSE(ChangeMatters(WatchedDirKind::kRuntimeDir, "system_blocks.json.tmp", false));
  EXPECT_FALSE(ChangeMatters(WatchedDirKind::kRuntimeDir, "graph_snapshot.json", false));
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kProjectBrains, "3f2a9c1d7e4b8a05", true));
  EXPECT_FALSE(ChangeMatters(WatchedDirKind::kProjectBrains, ".birth-staging-1", true));
  EXPECT_FALSE(ChangeMatters(WatchedDirKind::kProjectBrains, "notes.txt", false));
  EXPECT_TRUE(ChangeMatters(WatchedDirKind::kInstances, "inst_1.json", false));
  EXPECT_FALSE(ChangeMatters(WatchedDirKind::kInstances, "inst_1.tmp", false));
}

TEST(DirsToWatchTest, RuntimeDirsProjectBrainsAndRegistries) {
  ScanResult scan;
  BrainReport owner;
  Brain* owner_brain = owner.mutable_brain();
  owner_brain->runtime_dir = "/rt";
  owner_brain->source = BrainSource::kRegistryOwner;
  BrainReport project;
  Brain* project_brain = project.mutable_brain();
  project_brain->runtime_dir = "/rt/project-brains/ab";
  project_brain->source = BrainSource::kRegistryProject;
  scan.brains = {owner, project};
  DiscoveryConfig config;
  config.registries = {"/reg"};
  const std::vector<WatchedDir> dirs = DirsToWatch(scan, config);
  ASSERT_EQ(4u, dirs.size());
  EXPECT_EQ("/rt", dirs[0].path);
  EXPECT_EQ("/rt/project-brains", dirs[1].path);
  EXPECT_EQ(WatchedDirKind::kProjectBrains, dirs[1].kind);
  EXPECT_EQ("/rt/project-brains/ab", dirs[2].path);
  EXPECT_EQ("/reg/instances", dirs[3].path);
  EXPECT_EQ(WatchedDirKind::kInstances, dirs[3].kind);
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
  ASSERT_TRUE(watcher_->SetDirs({{tmp_.Join("rt"), WatchedDirKind::kRuntimeDir}}));
  EXPECT_EQ(1u, watcher_->watched());
  ReplaceStore(tmp_.Join("rt"), "sk_keyvault_candidate");
  EXPECT_TRUE(WaitFor([&] { return calls_ > 0; }, milliseconds(5000)));
  EXPECT_EQ(1u, watcher_->triggers());
}

TEST_F(ChangeWatcherTest, OtherFilesAreIgnored) {
  MakeDirs(tmp_.Join("rt"));
  StartWatching();
  watcher_->SetDirs({{tmp_.Join("rt"), WatchedDirKind::kRuntimeDir}});
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
  watcher_->SetDirs({{tmp_.Join("rt"), WatchedDirKind::kRuntimeDir}});
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
  EXPECT_FALSE(watcher_->SetDirs({{tmp_.Join("a"), WatchedDirKind::kRuntimeDir},
                                  {tmp_.Join("b"), WatchedDirKind::kRuntimeDir},
                                  {tmp_.Join("missing"), WatchedDirKind::kRuntimeDir}}));
  EXPECT_TRUE(watcher_->limited());
  EXPECT_EQ(1u, watcher_->watched());
  // Dropping a folder frees its room.
  EXPECT_TRUE(watcher_->SetDirs({{tmp_.Join("b"), WatchedDirKind::kRuntimeDir}}));
  EXPECT_FALSE(watcher_->limited());
  EXPECT_EQ(1u, watcher_->watched());
}

TEST_F(ChangeWatcherTest, StopIsPromptAndIdempotent) {
  StartWatching();
  watcher_->Stop();
  watcher_->Stop();
  EXPECT_EQ(0, calls_);
}

}  // namespace
}  // namespace scx
