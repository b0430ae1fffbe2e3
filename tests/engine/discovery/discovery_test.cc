// Tests for discovery as a whole: every source in one walk, a stop, the folders read, examples/.
#include "engine/discovery/discovery.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/discovery/read_folders.h"
#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::Entry;
using testing::Find;
using testing::InstanceJson;
using testing::ManifestJson;
using testing::Names;
using testing::RegistryConfig;
using testing::WriteFile;

TEST_F(DiscoveryTest, FindsTheOwnerAndEveryProjectBrain) {
  WriteOwner();
  WriteProjectBrain("0a1b2c3d", "/home/u/keyvault");
  WriteProjectBrain("4e5f6a7b", "/home/u/notes", /*with_store=*/false);
  WriteProjectBrain("8c9d0e1f", "/home/u/dormant");  // on disk only, no registry entry
  WriteFile(Runtime() + "/project-brains/README", "not a brain folder\n");
  // Live project brains also have registry entries of their own: found once.
  WriteInstance("proj-1.json",
                InstanceJson("proj-1", ProjectBrain("0a1b2c3d"), Runtime(), "\"project\""));
  WriteInstance("proj-2.json",
                InstanceJson("proj-2", ProjectBrain("4e5f6a7b"), Runtime(), "\"project\""));

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});

  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.name_collisions.empty());
  ASSERT_EQ((std::vector<std::string>{"dormant", "keyvault", "m1nd", "notes"}), Names(discovery));
  const Brain* owner = Find(discovery, "m1nd");
  EXPECT_EQ("/home/u/m1nd", owner->project_root);
  EXPECT_EQ(Runtime(), owner->runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryOwner, owner->source);
  const Brain* keyvault = Find(discovery, "keyvault");
  EXPECT_EQ("/home/u/keyvault", keyvault->project_root);
  EXPECT_EQ("", keyvault->display_name);
  EXPECT_EQ(ProjectBrain("0a1b2c3d"), keyvault->runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryProject, keyvault->source);
  EXPECT_EQ(ProjectBrain("4e5f6a7b"), Find(discovery, "notes")->runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryProject, Find(discovery, "dormant")->source);
}

TEST_F(DiscoveryTest, StopEndsTheWalkWithAStoppedResult) {
  WriteOwner();
  WriteProjectBrain("aa01", "/home/u/alpha");
  WriteFile(tmp_.Join("rts/beta/project_brain.json"), ManifestJson("/home/u/beta"));
  DiscoveryConfig config = RegistryConfig(Registry());
  config.runtime_globs = {tmp_.Join("rts/*")};
  std::atomic<bool> stop{false};

  Discovery full = DiscoverBrains(config, {}, &stop);
  EXPECT_FALSE(full.stopped);
  EXPECT_EQ(3u, full.brains.size());

  stop = true;
  Discovery stopped = DiscoverBrains(config, {}, &stop);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_TRUE(stopped.brains.empty());
  EXPECT_TRUE(stopped.problems.empty()) << Describe(stopped.problems);
}

// What the change watcher watches besides each brain's runtime dir: every folder the
// walk listed or read a file in, with the role that says which of its names matter.
TEST_F(DiscoveryTest, ReportsTheFoldersItRead) {
  Entry owner{"/home/u/m1nd", Runtime()};
  owner.graph_source = tmp_.Join("graphs/graph_snapshot.json");
  WriteInstance("owner.json", owner.Json());
  WriteProjectBrain("0a1b2c3d", "/home/u/keyvault");
  const Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));
  std::vector<std::pair<std::string, FolderRole>> read;
  for (const ReadFolder& folder : discovery.folders_read)
    read.emplace_back(folder.path, folder.role);
  const std::vector<std::pair<std::string, FolderRole>> expected = {
      {Registry() + "/instances", FolderRole::kRegistryEntries},
      {tmp_.Join("graphs"), FolderRole::kBrainFolder},
      {Runtime() + "/project-brains", FolderRole::kBrainFolders},
  };
  EXPECT_EQ(expected, read);
}

// examples/ as today's m1nd leaves a machine: a medulla owner named by its ingest
// root, a read-only attacher on its runtime root, a project entry, project brains,
// runtime-jobs/ and a brain being born. Four brains, no problem, no notice.
TEST(DiscoveryExamplesTest, ExamplesLayoutHasFourBrains) {
  namespace fs = std::filesystem;
  std::string examples = std::string(SCX_SOURCE_DIR) + "/examples";
  Discovery discovery = DiscoverBrains(RegistryConfig(examples + "/registry"), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.notices.empty());
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd", "my_repo", "notes"}), Names(discovery));
  const Brain* owner = Find(discovery, "m1nd");
  EXPECT_EQ(BrainSource::kRegistryOwner, owner->source);
  EXPECT_EQ("/home/dev/m1nd", owner->project_root);
  EXPECT_EQ(IdentitySource::kAnyIngestRoot, owner->identity_source);
  EXPECT_EQ(fs::path(examples + "/m1nd-runtime").lexically_normal().string(), owner->runtime_dir);
  EXPECT_EQ("/home/dev/My-Repo", Find(discovery, "my_repo")->project_root);
}

TEST(BrainSourceNameTest, NamesEverySource) {
  EXPECT_STREQ("static", BrainSourceName(BrainSource::kStatic));
  EXPECT_STREQ("registry_owner", BrainSourceName(BrainSource::kRegistryOwner));
  EXPECT_STREQ("registry_project", BrainSourceName(BrainSource::kRegistryProject));
  EXPECT_STREQ("glob", BrainSourceName(BrainSource::kGlob));
}

}  // namespace
}  // namespace scx
