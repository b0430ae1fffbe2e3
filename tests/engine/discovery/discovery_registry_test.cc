// Tests for discovery's registries: their folders, instance files, owners and attachers.
#include "engine/discovery/discovery.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::Entry;
using testing::Find;
using testing::InstanceJson;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::Names;
using testing::RegistryConfig;
using testing::ScopedEnv;
using testing::StoreJson;
using testing::WriteFile;

TEST_F(DiscoveryTest, StaleRegistryEntryIsStillABrain) {
  WriteOwner(/*stale=*/true);
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
}

// A registry named in the config must exist: a typo must not watch nothing quietly.
TEST_F(DiscoveryTest, MissingNamedRegistryFolderIsAProblem) {
  MakeDirs(tmp_.Join("empty-registry/instances"));  // m1nd made it, no instance yet
  DiscoveryConfig config;
  config.registries = {tmp_.Join("no-such-registry"), tmp_.Join("empty-registry")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(tmp_.Join("no-such-registry"), discovery.problems[0].path);
  EXPECT_EQ("no such folder", discovery.problems[0].message);
}

// m1nd makes instances/ when it starts: a configured registry without one is not
// the folder it should be (a typo one level up, say). The default registry is quiet.
TEST_F(DiscoveryTest, ConfiguredRegistryWithoutInstancesIsAProblem) {
  MakeDirs(tmp_.Join("registry-without-instances"));
  DiscoveryConfig config;
  config.registries = {tmp_.Join("registry-without-instances")};
  Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_EQ(tmp_.Join("registry-without-instances/instances"), discovery.problems[0].path);
  config.registries_are_default = true;
  EXPECT_TRUE(DiscoverBrains(config, {}).problems.empty());
}

// The default registry need not exist: m1nd may never have run on this machine (the
// exporter says so once at start instead).
TEST_F(DiscoveryTest, MissingDefaultRegistryFolderIsNoProblem) {
  DiscoveryConfig config;
  config.registries = {tmp_.Join("no-such-registry")};
  config.registries_are_default = true;
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
}

TEST(DefaultRegistryTest, FollowsM1ndRegistryDir) {
  {
    ScopedEnv unset("M1ND_REGISTRY_DIR", nullptr);
    EXPECT_EQ("~/.m1nd/registry", DefaultRegistry());
  }
  {
    ScopedEnv empty("M1ND_REGISTRY_DIR", "");
    EXPECT_EQ("~/.m1nd/registry", DefaultRegistry());
  }
  ScopedEnv moved("M1ND_REGISTRY_DIR", "/srv/m1nd/registry");
  EXPECT_EQ("/srv/m1nd/registry", DefaultRegistry());
}

TEST_F(DiscoveryTest, RegistryThatCannotBeListedIsAProblem) {
  WriteFile(tmp_.Join("file-registry"), "not a folder\n");
  WriteFile(tmp_.Join("odd-registry/instances"), "not a folder either\n");
  DiscoveryConfig config;
  config.registries = {tmp_.Join("file-registry"), tmp_.Join("odd-registry")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(2u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(tmp_.Join("file-registry"), discovery.problems[0].path);
  EXPECT_EQ("not a folder", discovery.problems[0].message);
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[1].source));
  EXPECT_FALSE(discovery.problems[1].transient);
}

// m1nd writes entries atomically and its list_instances skips one it cannot parse
// whole: so does the exporter, with a debug line, and it is no scan failure.
TEST_F(DiscoveryTest, UnparsableInstanceFileIsSkippedAsM1ndSkipsIt) {
  WriteOwner();
  WriteInstance("broken.json", "{\"instance_id\": \"broken\", \"workspace_");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ(1u, discovery.debug_notes.size());
  EXPECT_EQ(Registry() + "/instances/broken.json", discovery.debug_notes[0].path);
}

// A hand-written or partial entry (only the two roots) is no brain for m1nd.
TEST_F(DiscoveryTest, PartialInstanceEntriesAreSkippedAsM1ndSkipsThem) {
  WriteInstance("no-runtime.json", "{\"workspace_root\": \"/w\", \"brain_kind\": null}");
  WriteInstance("two-roots.json",
                "{\"workspace_root\": \"/w\", \"runtime_root\": \"" + Runtime() + "\"}");
  WriteInstance("medulla-no-runtime.json",
                "{\"workspace_root\": \"/w\", \"brain_kind\": \"medulla\"}");
  Entry no_pid{"/home/u/m1nd", Runtime()};
  std::string json = no_pid.Json();
  json.replace(json.find("\"pid\": 4242, "), 13, "");
  WriteInstance("no-pid.json", json);
  WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.brains.empty());
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ(4u, discovery.debug_notes.size());
  EXPECT_NE(std::string::npos, discovery.debug_notes[1].message.find("\"pid\""))
      << discovery.debug_notes[1].message;
}

TEST_F(DiscoveryTest, OnlyFinishedJsonInstanceFilesAreRead) {
  WriteOwner();
  WriteInstance("owner-2.json.tmp", "{\"instance_id\": \"own");  // mid-replacement
  WriteInstance("owner-3.tmp", "garbage");
  WriteInstance("notes.txt", "garbage");
  MakeDirs(Registry() + "/instances/subdir");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
}

TEST_F(DiscoveryTest, ProjectRegistryEntryIsReadThroughItsManifest) {
  std::string store_folder = tmp_.Join("elsewhere/project-brains/ff00");
  WriteFile(store_folder + "/project_brain.json", ManifestJson("/home/u/Side-Project"));
  WriteInstance("proj.json",
                InstanceJson("proj", store_folder, tmp_.Join("elsewhere"), "\"project\""));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"side_project"}), Names(discovery));
  EXPECT_EQ("/home/u/Side-Project", discovery.brains[0].project_root);
  EXPECT_EQ(store_folder, discovery.brains[0].runtime_dir);
  EXPECT_EQ(BrainSource::kRegistryProject, discovery.brains[0].source);
}

TEST_F(DiscoveryTest, RelativeInstancePathsAreResolvedAgainstTheRegistryFolder) {
  WriteInstance("rel.json", InstanceJson("rel", "../ws/m1nd", "../rt/"));
  WriteFile(tmp_.Join("rt/project-brains/01/project_brain.json"), ManifestJson("/home/u/lib"));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"lib", "m1nd"}), Names(discovery));
  EXPECT_EQ(tmp_.Join("ws/m1nd"), Find(discovery, "m1nd")->project_root);
  EXPECT_EQ(tmp_.Join("rt"), Find(discovery, "m1nd")->runtime_dir);
  EXPECT_EQ(tmp_.Join("rt/project-brains/01"), Find(discovery, "lib")->runtime_dir);
}

TEST_F(DiscoveryTest, OwnersOfOneRuntimeRootFreshestHeartbeatWins) {
  auto owner = [](const std::string& workspace, const std::string& runtime, int heartbeat) {
    Entry entry{workspace, runtime};
    entry.heartbeat_ms = heartbeat;
    return entry.Json();
  };
  WriteInstance("a.json", owner("/w/old", "/rt/one", 100));
  WriteInstance("b.json", owner("/w/new", "/rt/one/", 200));
  WriteInstance("c.json", owner("/w/first", "/rt/two", 50));
  WriteInstance("d.json", owner("/w/second", "/rt/two", 50));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"first", "new"}), Names(discovery));
  EXPECT_EQ("/rt/one", Find(discovery, "new")->runtime_dir);
  EXPECT_EQ("/rt/two", Find(discovery, "first")->runtime_dir);
}

TEST_F(DiscoveryTest, RegistryPathExpandsTilde) {
  ScopedEnv home("HOME", tmp_.path().c_str());
  WriteFile(tmp_.Join(".m1nd/registry/instances/o.json"), InstanceJson("o", "/home/u/m1nd", "/rt"));
  Discovery discovery = DiscoverBrains(RegistryConfig("~/.m1nd/registry"), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
}

// Every owner m1nd serves over HTTP stamps its entry "medulla": it is an owner like
// any other, with its bound brain and its project brains. The incident brain was one.
TEST_F(DiscoveryTest, MedullaIsAnOwnerWithItsProjectBrains) {
  WriteInstance("medulla.json", Entry{"/home/u/m1nd", Runtime(), "\"medulla\""}.Json());
  WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  WriteProjectBrain("0a1b2c3d", "/home/u/keyvault");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.notices.empty());
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));
  EXPECT_EQ(BrainSource::kRegistryOwner, Find(discovery, "m1nd")->source);
  EXPECT_EQ(Runtime(), Find(discovery, "m1nd")->runtime_dir);
}

// A kind m1nd does not write yet is watched as an owner (missing the incident is worse
// than a wrong guess) and noticed once, but it is not a scan failure.
TEST_F(DiscoveryTest, UnknownBrainKindIsAnOwnerWithANotice) {
  WriteInstance("odd.json", Entry{"/home/u/m1nd", Runtime(), "\"satellite\""}.Json());
  // brain_kind is an Option<String> for m1nd: a number is no record at all.
  WriteInstance("odder.json", Entry{"/home/u/notes", tmp_.Join("rt2"), "7"}.Json());
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.notices.size());
  EXPECT_EQ(Registry() + "/instances/odd.json", discovery.notices[0].path);
  EXPECT_NE(std::string::npos, discovery.notices[0].message.find("\"satellite\""))
      << discovery.notices[0].message;
  ASSERT_EQ(1u, discovery.debug_notes.size());
  EXPECT_EQ(Registry() + "/instances/odder.json", discovery.debug_notes[0].path);
}

// A read_only attacher registers on the owner's runtime root with its own workspace
// and a fresher heartbeat: it must not rename (and so re-slug) the owner's brain.
TEST_F(DiscoveryTest, ReadOnlyAttacherNeverNamesAnOwnedRuntimeRoot) {
  Entry owner{"/home/u/m1nd", Runtime()};
  owner.heartbeat_ms = 100;
  Entry attacher{"/home/u/keyvault", Runtime() + "/"};
  attacher.mode = "read_only";
  attacher.heartbeat_ms = 999;
  WriteInstance("a-attacher.json", attacher.Json());
  WriteInstance("b-owner.json", owner.Json());
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ("/home/u/m1nd", discovery.brains[0].project_root);
}

// With only attachers left on a runtime root, its brain is still watched; its name
// still comes from the ingest roots the owner left there, before any workspace.
TEST_F(DiscoveryTest, RuntimeRootWithOnlyAttachersIsStillWatched) {
  const std::string repo = tmp_.Join("src/m1nd");
  MakeDirs(repo);
  Entry attacher{"/home/u/keyvault", Runtime()};
  attacher.mode = "read_only";
  WriteInstance("attacher.json", attacher.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + repo + "\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);
}

TEST_F(DiscoveryTest, SeveralOwnersOfOneRuntimeRootOrderIsDeterministic) {
  Entry older{"/home/u/old", Runtime()};
  older.heartbeat_ms = 100;
  Entry newer{"/home/u/new", Runtime()};
  newer.heartbeat_ms = 200;
  Entry tie_b{"/home/u/b", tmp_.Join("rt2")};
  Entry tie_a{"/home/u/a", tmp_.Join("rt2")};
  WriteInstance("1.json", older.Json());
  WriteInstance("2.json", newer.Json());
  WriteInstance("4.json", tie_b.Json());
  WriteInstance("3.json", tie_a.Json());  // same heartbeat: the smaller file name wins
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"a", "new"}), Names(discovery));
}

}  // namespace
}  // namespace scx
