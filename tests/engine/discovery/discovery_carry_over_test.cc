// Tests for discovery carrying last scan's brains over what it cannot read this time.
#include "engine/discovery/discovery.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::Find;
using testing::Names;
using testing::RegistryConfig;
using testing::WriteFile;

TEST_F(DiscoveryTest, TornManifestCarriesOverThePreviousBrain) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(first));

  WriteFile(ProjectBrain("aa") + "/project_brain.json", "{\"schema\": ");
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);

  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(second));
  const Brain* carried = Find(second, "keyvault");
  EXPECT_EQ("/home/u/keyvault", carried->project_root);
  EXPECT_EQ(ProjectBrain("aa"), carried->runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryProject, carried->source);
  ASSERT_EQ(1u, second.problems.size());
  EXPECT_TRUE(second.problems[0].transient);

  // Once the manifest is whole again the brain is read from it as usual.
  WriteProjectBrain("aa", "/home/u/keyvault");
  Discovery third = DiscoverBrains(RegistryConfig(Registry()), second.brains);
  EXPECT_TRUE(third.problems.empty()) << Describe(third.problems);
  EXPECT_EQ(Names(first), Names(third));
}

TEST_F(DiscoveryTest, CarriedOverBrainIsMatchedByNormalizedRuntimeDir) {
  WriteOwner();
  WriteFile(ProjectBrain("aa") + "/project_brain.json", "{");
  Brain previous;
  previous.name = "stale_label";  // kept: a brain keeps its label (brain_names.h)
  previous.project_root = "/home/u/keyvault";
  previous.runtime_dir = Runtime() + "/project-brains/./aa/";
  previous.source = BrainSource::kRegistryProject;

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {previous});

  EXPECT_EQ((std::vector<std::string>{"m1nd", "stale_label"}), Names(discovery));
}

// A project brain whose manifest turns unreadable (a FIFO, no permission) keeps last
// scan's brain, carried over (its verdict marked stale), as a brain whose store is
// unreadable keeps its last verdict; before, it vanished with its series.
TEST_F(DiscoveryTest, AManifestTurnedUnreadableCarriesTheBrainOver) {
  WriteOwner();
  WriteProjectBrain("cc", "/home/u/keyvault");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(first));

  const std::string manifest = ProjectBrain("cc") + "/project_brain.json";
  ASSERT_EQ(0, unlink(manifest.c_str()));
  ASSERT_EQ(0, mkfifo(manifest.c_str(), 0600));
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(second));
  EXPECT_TRUE(Find(second, "keyvault")->carried_over);
  EXPECT_EQ("/home/u/keyvault", Find(second, "keyvault")->project_root);
  EXPECT_FALSE(Find(second, "m1nd")->carried_over);
  ASSERT_EQ(1u, second.problems.size()) << Describe(second.problems);
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(second.problems[0].source));
  EXPECT_EQ(manifest, second.problems[0].path);

  // Gone for good (no manifest at all): the brain goes.
  ASSERT_EQ(0, unlink(manifest.c_str()));
  Discovery third = DiscoverBrains(RegistryConfig(Registry()), second.brains);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(third));
}

// When instances/ cannot be listed, its brains did not go away: the previous scan's
// brains of that registry are carried over (their verdicts marked stale) and the scan
// counts a problem. A known mismatch never silently turns into nothing.
TEST_F(DiscoveryTest, RegistryThatCannotBeListedKeepsItsBrains) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  DiscoveryConfig config = RegistryConfig(Registry());
  config.static_brains = {{"", "/home/u/st", "", tmp_.Join("static")}};
  Discovery first = DiscoverBrains(config, {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd", "st"}), Names(first));
  const std::string instances = Registry() + "/instances";
  ASSERT_EQ(0, rename(instances.c_str(), (instances + ".away").c_str()));
  WriteFile(instances, "not a folder: listing fails\n");
  Discovery second = DiscoverBrains(config, first.brains);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd", "st"}), Names(second));
  EXPECT_TRUE(Find(second, "m1nd")->carried_over);
  EXPECT_TRUE(Find(second, "keyvault")->carried_over);
  EXPECT_FALSE(Find(second, "st")->carried_over);
  ASSERT_EQ(1u, second.problems.size()) << Describe(second.problems);
  EXPECT_EQ(instances, second.problems[0].path);
  // And again, from a scan that itself carried them.
  Discovery third = DiscoverBrains(config, second.brains);
  EXPECT_EQ(Names(second), Names(third));
}

TEST_F(DiscoveryTest, ProjectBrainsFolderThatCannotBeListedKeepsItsBrains) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(first));
  const std::string folder = Runtime() + "/project-brains";
  ASSERT_EQ(0, rename(folder.c_str(), (folder + ".away").c_str()));
  WriteFile(folder, "not a folder: listing fails\n");
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(second));
  EXPECT_TRUE(Find(second, "keyvault")->carried_over);
  EXPECT_FALSE(Find(second, "m1nd")->carried_over);
  EXPECT_EQ(1u, second.problems.size()) << Describe(second.problems);
}

}  // namespace
}  // namespace scx
