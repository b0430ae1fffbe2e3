// Tests for brain discovery over temporary m1nd layouts (registry, runtime roots,
// project brains, globs) and over the examples/ folder.
#include "engine/discovery.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::InstanceJson;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

// Sets $HOME for one test and restores it afterwards.
class ScopedHome {
 public:
  explicit ScopedHome(const char* home) {
    const char* old = getenv("HOME");
    if (old != nullptr) old_ = old;
    if (home == nullptr) {
      unsetenv("HOME");
    } else {
      setenv("HOME", home, 1);
    }
  }
  ~ScopedHome() {
    if (old_) {
      setenv("HOME", old_->c_str(), 1);
    } else {
      unsetenv("HOME");
    }
  }
  ScopedHome(const ScopedHome&) = delete;
  ScopedHome& operator=(const ScopedHome&) = delete;

 private:
  std::optional<std::string> old_;
};

const Brain* Find(const Discovery& discovery, const std::string& name) {
  for (const Brain& brain : discovery.brains) {
    if (brain.name == name) return &brain;
  }
  return nullptr;
}

std::vector<std::string> Names(const Discovery& discovery) {
  std::vector<std::string> names;
  for (const Brain& brain : discovery.brains) names.push_back(brain.name);
  return names;
}

std::string Describe(const std::vector<DiscoveryProblem>& problems) {
  std::string text;
  for (const DiscoveryProblem& p : problems) {
    text += p.source + " " + p.path + ": " + p.message + (p.transient ? " (transient)" : "") + "\n";
  }
  return text;
}

DiscoveryConfig RegistryConfig(const std::string& registry) {
  DiscoveryConfig config;
  config.registries = {registry};
  return config;
}

// A temporary m1nd layout: a registry folder and an owner's runtime root.
class DiscoveryTest : public ::testing::Test {
 protected:
  std::string Registry() const { return tmp_.Join("registry"); }
  std::string Runtime() const { return tmp_.Join("home/.m1nd-rt"); }
  std::string ProjectBrain(const std::string& hex) const {
    return Runtime() + "/project-brains/" + hex;
  }

  void WriteInstance(const std::string& file_name, const std::string& json) {
    WriteFile(Registry() + "/instances/" + file_name, json);
  }
  void WriteOwner(bool stale = false) {
    WriteInstance("owner-1.json",
                  InstanceJson("owner-1", "/home/u/m1nd", Runtime(), "null", stale));
    WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_m1nd_candidate", {"sb_m1nd_a"}));
  }
  void WriteProjectBrain(const std::string& hex, const std::string& project_root,
                         bool with_store = true) {
    WriteFile(ProjectBrain(hex) + "/project_brain.json", ManifestJson(project_root));
    if (with_store) {
      WriteFile(ProjectBrain(hex) + "/system_blocks.json",
                StoreJson("sk_x_candidate", {"sb_x_core_0123abcd"}));
    }
  }

  TempDir tmp_;
};

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

TEST_F(DiscoveryTest, StaleRegistryEntryIsStillABrain) {
  WriteOwner(/*stale=*/true);
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
}

TEST_F(DiscoveryTest, TornManifestIsSkippedWithATransientProblem) {
  WriteOwner();
  WriteFile(ProjectBrain("aa") + "/project_brain.json", "{\"schema\": \"m1nd-proj");

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});

  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("manifest", discovery.problems[0].source);
  EXPECT_EQ(ProjectBrain("aa") + "/project_brain.json", discovery.problems[0].path);
  EXPECT_TRUE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, ManifestOfTheWrongShapeIsTransient) {
  WriteOwner();
  const std::vector<std::string> manifests = {
      "[]",
      "{\"schema\": \"m1nd-project-brain-v9\", \"project_root\": \"/r\"}",
      "{\"schema\": \"m1nd-project-brain-v0\"}",
      "{\"schema\": \"m1nd-project-brain-v0\", \"project_root\": 7}",
      "{\"schema\": \"m1nd-project-brain-v0\", \"project_root\": \"\"}",
      "",
  };
  for (const std::string& manifest : manifests) {
    WriteFile(ProjectBrain("aa") + "/project_brain.json", manifest);
    Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
    EXPECT_EQ(1u, discovery.brains.size()) << manifest;
    ASSERT_EQ(1u, discovery.problems.size()) << manifest;
    EXPECT_EQ("manifest", discovery.problems[0].source);
    EXPECT_TRUE(discovery.problems[0].transient) << manifest;
  }
}

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
  previous.name = "stale_label";  // re-derived: only static brains have explicit names
  previous.project_root = "/home/u/keyvault";
  previous.runtime_dir = Runtime() + "/project-brains/./aa/";
  previous.source = BrainSource::kRegistryProject;

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {previous});

  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));
}

TEST_F(DiscoveryTest, ProjectBrainFolderWithoutManifestIsSkipped) {
  WriteOwner();
  MakeDirs(ProjectBrain("bb"));
  WriteFile(ProjectBrain("bb") + "/system_blocks.json", StoreJson("sk_bb_candidate", {}));
  Brain previous;
  previous.project_root = "/home/u/bb";
  previous.runtime_dir = ProjectBrain("bb");
  previous.source = BrainSource::kRegistryProject;

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {previous});

  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));  // not carried over
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("manifest", discovery.problems[0].source);
  EXPECT_EQ(ProjectBrain("bb") + "/project_brain.json", discovery.problems[0].path);
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, ManifestThatIsAFifoIsAProblemNotAHang) {
  WriteOwner();
  MakeDirs(ProjectBrain("cc"));
  ASSERT_EQ(0, mkfifo((ProjectBrain("cc") + "/project_brain.json").c_str(), 0600));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("manifest", discovery.problems[0].source);
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, ManifestThatIsADanglingSymlinkIsANonTransientProblem) {
  WriteOwner();
  MakeDirs(ProjectBrain("dd"));
  const std::string manifest = ProjectBrain("dd") + "/project_brain.json";
  ASSERT_EQ(0, symlink(tmp_.Join("nowhere.json").c_str(), manifest.c_str()));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_EQ("manifest", discovery.problems[0].source);
  EXPECT_EQ(manifest, discovery.problems[0].path);
  EXPECT_NE(std::string::npos, discovery.problems[0].message.find("dangling"))
      << discovery.problems[0].message;
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, MissingRegistryFolderIsNoProblem) {
  MakeDirs(tmp_.Join("empty-registry"));  // exists, but has no instances/ yet
  DiscoveryConfig config;
  config.registries = {tmp_.Join("no-such-registry"), tmp_.Join("empty-registry")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
}

TEST_F(DiscoveryTest, RegistryThatCannotBeListedIsAProblem) {
  WriteFile(tmp_.Join("file-registry"), "not a folder\n");
  WriteFile(tmp_.Join("odd-registry/instances"), "not a folder either\n");
  DiscoveryConfig config;
  config.registries = {tmp_.Join("file-registry"), tmp_.Join("odd-registry")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(2u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_EQ("registry", discovery.problems[0].source);
  EXPECT_EQ(tmp_.Join("file-registry/instances"), discovery.problems[0].path);
  EXPECT_EQ("registry", discovery.problems[1].source);
  EXPECT_FALSE(discovery.problems[1].transient);
}

TEST_F(DiscoveryTest, ProjectBrainsThatCannotBeListedIsAProblem) {
  WriteOwner();
  WriteFile(Runtime() + "/project-brains", "not a folder\n");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("registry", discovery.problems[0].source);
  EXPECT_EQ(Runtime() + "/project-brains", discovery.problems[0].path);
}

TEST_F(DiscoveryTest, UnparsableInstanceFileIsATransientProblem) {
  WriteOwner();
  WriteInstance("broken.json", "{\"instance_id\": \"broken\", \"workspace_");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("instance", discovery.problems[0].source);
  EXPECT_EQ(Registry() + "/instances/broken.json", discovery.problems[0].path);
  EXPECT_TRUE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, InstanceFileOfTheWrongShapeIsAProblem) {
  WriteInstance("kind.json", InstanceJson("kind", "/w", Runtime(), "\"satellite\""));
  WriteInstance("no-runtime.json", "{\"workspace_root\": \"/w\", \"brain_kind\": null}");
  WriteInstance("no-workspace.json", "{\"runtime_root\": \"/rt\"}");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(3u, discovery.problems.size()) << Describe(discovery.problems);
  for (const DiscoveryProblem& problem : discovery.problems) {
    EXPECT_EQ("instance", problem.source);
    EXPECT_FALSE(problem.transient);
  }
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
    return "{\"workspace_root\": \"" + workspace + "\", \"runtime_root\": \"" + runtime +
           "\", \"last_heartbeat_ms\": " + std::to_string(heartbeat) + ", \"brain_kind\": null}";
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
  EXPECT_EQ("manifest", discovery.problems[0].source);
  EXPECT_EQ(tmp_.Join("rts/beta/project_brain.json"), discovery.problems[0].path);
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, GlobExpandsTilde) {
  ScopedHome home(tmp_.path().c_str());
  WriteFile(tmp_.Join("rts/alpha/project_brain.json"), ManifestJson("/home/u/alpha"));
  DiscoveryConfig config;
  config.runtime_globs = {"~/rts/*"};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ(1u, discovery.brains.size());
  EXPECT_EQ(tmp_.Join("rts/alpha"), discovery.brains[0].runtime_dir);
}

TEST_F(DiscoveryTest, EmptyGlobPatternIsAProblem) {
  DiscoveryConfig config;
  config.runtime_globs = {""};
  Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_EQ("glob", discovery.problems[0].source);
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

TEST_F(DiscoveryTest, NameCollisionsAreResolvedAndReported) {
  WriteInstance("a.json", InstanceJson("a", "/home/u/m1nd", "/rt/a"));
  WriteInstance("b.json", InstanceJson("b", "/work/m1nd", "/rt/b"));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(2u, discovery.brains.size());
  EXPECT_EQ("m1nd", discovery.brains[0].name);
  EXPECT_EQ("/rt/a", discovery.brains[0].runtime_dir);
  EXPECT_EQ(1u, discovery.name_collisions.size());
}

TEST_F(DiscoveryTest, RegistryPathExpandsTilde) {
  ScopedHome home(tmp_.path().c_str());
  WriteFile(tmp_.Join(".m1nd/registry/instances/o.json"), InstanceJson("o", "/home/u/m1nd", "/rt"));
  Discovery discovery = DiscoverBrains(RegistryConfig("~/.m1nd/registry"), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
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

TEST(DiscoveryExamplesTest, ExamplesLayoutHasFourBrains) {
  namespace fs = std::filesystem;
  std::string examples = std::string(SCX_SOURCE_DIR) + "/examples";
  Discovery discovery = DiscoverBrains(RegistryConfig(examples + "/registry"), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd", "my_repo", "notes"}), Names(discovery));
  const Brain* owner = Find(discovery, "m1nd");
  EXPECT_EQ(BrainSource::kRegistryOwner, owner->source);
  EXPECT_EQ("/home/dev/m1nd", owner->project_root);
  EXPECT_EQ(fs::path(examples + "/m1nd-runtime").lexically_normal().string(), owner->runtime_dir);
  EXPECT_EQ("/home/dev/My-Repo", Find(discovery, "my_repo")->project_root);
}

TEST(ExpandHomeTest, ExpandsALeadingTilde) {
  ScopedHome home("/home/dev");
  EXPECT_EQ("/home/dev", ExpandHome("~"));
  EXPECT_EQ("/home/dev/", ExpandHome("~/"));
  EXPECT_EQ("/home/dev/.m1nd/registry", ExpandHome("~/.m1nd/registry"));
}

TEST(ExpandHomeTest, LeavesOtherPathsAlone) {
  ScopedHome home("/home/dev");
  EXPECT_EQ("", ExpandHome(""));
  EXPECT_EQ("/abs/~/x", ExpandHome("/abs/~/x"));
  EXPECT_EQ("rel/x", ExpandHome("rel/x"));
  EXPECT_EQ("~alice/x", ExpandHome("~alice/x"));
  EXPECT_EQ("~alice", ExpandHome("~alice"));
}

TEST(ExpandHomeTest, HandlesOddHomes) {
  {
    ScopedHome home("/home/dev/");
    EXPECT_EQ("/home/dev/x", ExpandHome("~/x"));
  }
  {
    ScopedHome home("/");
    EXPECT_EQ("/x", ExpandHome("~/x"));
    EXPECT_EQ("/", ExpandHome("~"));
  }
  {
    ScopedHome home(nullptr);
    EXPECT_EQ("~/x", ExpandHome("~/x"));
  }
  {
    ScopedHome home("");
    EXPECT_EQ("~/x", ExpandHome("~/x"));
  }
}

TEST(BrainSourceNameTest, NamesEverySource) {
  EXPECT_STREQ("static", BrainSourceName(BrainSource::kStatic));
  EXPECT_STREQ("registry_owner", BrainSourceName(BrainSource::kRegistryOwner));
  EXPECT_STREQ("registry_project", BrainSourceName(BrainSource::kRegistryProject));
  EXPECT_STREQ("glob", BrainSourceName(BrainSource::kGlob));
}

}  // namespace
}  // namespace scx
