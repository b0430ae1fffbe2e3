// Tests for static brains, runtime globs, and one brain per runtime dir however reached.
#include "engine/discovery/discovery.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::Find;
using testing::InstanceJson;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::Names;
using testing::RegistryConfig;
using testing::ScopedEnv;
using testing::WriteFile;

TEST_F(DiscoveryTest, GlobMatchesAreRuntimeDirsWithManifests) {
  WriteFile(tmp_.Join("rts/alpha/project_brain.json"), ManifestJson("/home/u/alpha"));
  MakeDirs(tmp_.Join("rts/beta"));                 // no manifest
  WriteFile(tmp_.Join("rts/gamma.json"), "{}\n");  // not a folder
  DiscoveryConfig config;
  config.runtime_globs = {tmp_.Join("rts/*"), tmp_.Join("nothing-here/*")};

  Discovery discovery = DiscoverBrains(config, {});

  ASSERT_EQ((std::vector<std::string>{"alpha"}), Names(discovery));
  EXPECT_EQ(tmp_.Join("rts/alpha"), discovery.brains[0].runtime_dir);
  EXPECT_EQ(BrainSource::kGlob, discovery.brains[0].source);
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(tmp_.Join("rts/beta/project_brain.json"), discovery.problems[0].path);
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, GlobExpandsTilde) {
  ScopedEnv home("HOME", tmp_.path().c_str());
  WriteFile(tmp_.Join("rts/alpha/project_brain.json"), ManifestJson("/home/u/alpha"));
  DiscoveryConfig config;
  config.runtime_globs = {"~/rts/*"};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ(1u, discovery.brains.size());
  EXPECT_EQ(tmp_.Join("rts/alpha"), discovery.brains[0].runtime_dir);
}

// A pattern looping through symlinks: rts/* holds one brain, loop/ 10 links to
// itself, so loop/*/*/*/*/*/* is a million paths. It ends at kMaxGlobEntries with a
// problem (whose message names the bound: no time bound here, it depended on the
// machine's load; 0.1-0.9 s idle, 51 s under ASan beside a CPU hog and two builds),
// and the other pattern's brain is still found.
TEST_F(DiscoveryTest, AGlobPastTheEntryBoundIsAProblem) {
  WriteFile(tmp_.Join("rts/alpha/project_brain.json"), ManifestJson("/home/u/alpha"));
  MakeDirs(tmp_.Join("loop"));
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(symlink(".", tmp_.Join("loop/l" + std::to_string(i)).c_str()), 0);
  }
  DiscoveryConfig config;
  const std::string looping = tmp_.Join("loop/*/*/*/*/*/*");
  config.runtime_globs = {looping, tmp_.Join("rts/*")};
  const auto start = std::chrono::steady_clock::now();
  Discovery discovery = DiscoverBrains(config, {});
  const auto took = std::chrono::steady_clock::now() - start;
  std::cout << "a looping glob ended at the bound after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
  EXPECT_EQ((std::vector<std::string>{"alpha"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_STREQ("glob", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(looping, discovery.problems[0].path);
  EXPECT_EQ(
      "expands through more than 100000 directory entries (a symlink loop?); none of "
      "its matches is watched",
      discovery.problems[0].message);
}

TEST_F(DiscoveryTest, EmptyGlobPatternIsAProblem) {
  DiscoveryConfig config;
  config.runtime_globs = {""};
  Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("glob", DiscoveryProblemSourceName(discovery.problems[0].source));
}

TEST_F(DiscoveryTest, RuntimeDirFoundTwiceIsKeptOnceStaticFirst) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  WriteInstance("proj.json",
                InstanceJson("proj", ProjectBrain("aa") + "/./", Runtime(), "\"project\""));
  DiscoveryConfig config = RegistryConfig(Registry());
  config.static_brains = {{"", "/srv/pinned-vault", "", ProjectBrain("aa") + "/"}};
  config.runtime_globs = {Runtime() + "/project-brains/*", Runtime()};

  Discovery discovery = DiscoverBrains(config, {});

  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.name_collisions.empty());
  ASSERT_EQ((std::vector<std::string>{"m1nd", "pinned_vault"}), Names(discovery));
  const Brain* pinned = Find(discovery, "pinned_vault");
  EXPECT_EQ(BrainSource::kStatic, pinned->source);
  EXPECT_EQ(ProjectBrain("aa"), pinned->runtime_dir);  // trailing '/' removed
  EXPECT_EQ(BrainSource::kRegistryOwner, Find(discovery, "m1nd")->source);
}

TEST_F(DiscoveryTest, StaticBrainsKeepTheirExplicitNames) {
  DiscoveryConfig config;
  config.static_brains = {{"prod", "/srv/keyvault", "", "/var/lib/m1nd/prod/"},
                          {"", "/srv/keyvault", "Shown Name", "/var/lib/m1nd/other"}};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.problems.empty());
  ASSERT_EQ((std::vector<std::string>{"prod", "shown_name"}), Names(discovery));
  EXPECT_EQ("/var/lib/m1nd/prod", Find(discovery, "prod")->runtime_dir);
  EXPECT_EQ(BrainSource::kStatic, Find(discovery, "prod")->source);
}

// A runtime dir reached through symlinks or ".." is one brain, named and keyed by its
// real path: an alias never takes the real brain's name, nor adds a second brain.
TEST_F(DiscoveryTest, AliasesOfOneRuntimeDirAreOneBrainUnderItsRealPath) {
  WriteFile(tmp_.Join("rts/real/project_brain.json"), ManifestJson("/home/u/alpha"));
  ASSERT_EQ(0, symlink(tmp_.Join("rts/real").c_str(), tmp_.Join("rts/a-alias").c_str()));
  ASSERT_EQ(0, symlink(tmp_.Join("rts").c_str(), tmp_.Join("rts-link").c_str()));
  DiscoveryConfig config;
  // The alias sorts first in the glob, and a static brain names a ".." path to it.
  config.runtime_globs = {tmp_.Join("rts/*"), tmp_.Join("rts-link/*")};
  config.static_brains = {{"", "/home/u/alpha", "", tmp_.Join("rts/x/../a-alias/")}};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.name_collisions.empty());
  ASSERT_EQ((std::vector<std::string>{"alpha"}), Names(discovery));
  EXPECT_EQ(tmp_.Join("rts/real"), discovery.brains[0].runtime_dir);
  EXPECT_EQ(BrainSource::kStatic, discovery.brains[0].source);
}

TEST_F(DiscoveryTest, OwnerRegisteredThroughAnAliasIsOneBrain) {
  WriteOwner();
  ASSERT_EQ(0, symlink(Runtime().c_str(), tmp_.Join("rt-alias").c_str()));
  WriteInstance("owner-2.json", InstanceJson("owner-2", "/home/u/m1nd", tmp_.Join("rt-alias")));
  WriteProjectBrain("0a1b2c3d", "/home/u/keyvault");
  // A brain folder that is itself a symlink to one elsewhere is named by its target.
  WriteFile(tmp_.Join("elsewhere/lib/project_brain.json"), ManifestJson("/home/u/lib"));
  ASSERT_EQ(0, symlink(tmp_.Join("elsewhere/lib").c_str(), ProjectBrain("ff").c_str()));
  DiscoveryConfig config = RegistryConfig(Registry());
  config.runtime_globs = {tmp_.Join("elsewhere/*")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "lib", "m1nd"}), Names(discovery));
  EXPECT_EQ(Runtime(), Find(discovery, "m1nd")->runtime_dir);
  EXPECT_EQ(tmp_.Join("elsewhere/lib"), Find(discovery, "lib")->runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryProject, Find(discovery, "lib")->source);
}

}  // namespace
}  // namespace scx
