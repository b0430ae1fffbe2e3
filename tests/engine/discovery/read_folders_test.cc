// Tests of which changes in a folder discovery read can change what a scan finds.
#include "engine/discovery/read_folders.h"

#include <gtest/gtest.h>

namespace scx {
namespace {

TEST(ChangeMattersTest, InABrainFolderOnlyTheFilesThatDecideAVerdict) {
  EXPECT_TRUE(ChangeMatters(FolderRole::kBrainFolder, "system_blocks.json", false));
  EXPECT_TRUE(ChangeMatters(FolderRole::kBrainFolder, "project_brain.json", false));
  EXPECT_TRUE(ChangeMatters(FolderRole::kBrainFolder, "ingest_roots.json", false));
  EXPECT_TRUE(ChangeMatters(FolderRole::kBrainFolder, "project-brains", true));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolder, "project-brains", false));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolder, "system_blocks.json.tmp", false));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolder, "graph_snapshot.json", false));
}

TEST(ChangeMattersTest, InAFolderOfBrainFoldersOnlyFoldersNotBeingBorn) {
  EXPECT_TRUE(ChangeMatters(FolderRole::kBrainFolders, "3f2a9c1d7e4b8a05", true));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolders, ".birth-staging-1", true));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolders, "notes.txt", false));
  EXPECT_FALSE(ChangeMatters(FolderRole::kBrainFolders, "", true));
}

TEST(ChangeMattersTest, InARegistryOnlyFinishedEntries) {
  EXPECT_TRUE(ChangeMatters(FolderRole::kRegistryEntries, "inst_1.json", false));
  EXPECT_FALSE(ChangeMatters(FolderRole::kRegistryEntries, "inst_1.tmp", false));
  EXPECT_FALSE(ChangeMatters(FolderRole::kRegistryEntries, "inst_1.json", true));
}

}  // namespace
}  // namespace scx
