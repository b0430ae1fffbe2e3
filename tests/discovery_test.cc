// Tests for brain discovery over temporary m1nd layouts (registry, runtime roots,
// project brains, globs) and over the examples/ folder.
#include "engine/discovery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/brain_file.h"
#include "engine/stamp_cache.h"
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
    text += std::string(DiscoveryProblemSourceName(p.source)) + " " + p.path + ": " + p.message +
            (p.transient ? " (transient)" : "") + "\n";
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

  // Project-brains folders of every kind, with more than enough of them for four
  // threads: brains, folders without a manifest, torn manifests, FIFOs, symlinks,
  // files and brains being born.
  void WriteFoldersOfEveryKind() {
    for (int i = 0; i < 300; ++i) {
      const std::string hex = "f" + std::to_string(1000 + i);
      switch (i % 7) {
        case 0:
        case 1:
          WriteProjectBrain(hex, "/home/u/p" + std::to_string(i % 50));  // names collide
          break;
        case 2:
          MakeDirs(ProjectBrain(hex));  // no manifest: quietly skipped
          break;
        case 3:
          WriteFile(ProjectBrain(hex) + "/project_brain.json", "{\"schema\": \"m1nd-pr");
          break;
        case 4:
          MakeDirs(ProjectBrain(hex));
          ASSERT_EQ(0, mkfifo((ProjectBrain(hex) + "/project_brain.json").c_str(), 0600));
          break;
        case 5:  // an alias of the previous folder, and one of a folder outside
          ASSERT_EQ(0, symlink(ProjectBrain("f" + std::to_string(999 + i)).c_str(),
                               ProjectBrain(hex).c_str()));
          WriteFile(tmp_.Join("outside/" + hex + "/project_brain.json"),
                    ManifestJson("/home/u/out" + std::to_string(i)));
          ASSERT_EQ(0,
                    symlink(tmp_.Join("outside/" + hex).c_str(), ProjectBrain("l" + hex).c_str()));
          break;
        default:
          WriteFile(ProjectBrain(hex), "a file, not a folder\n");
          WriteProjectBrain(".birth-staging-" + hex, "/home/u/unborn");
          break;
      }
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
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
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
    EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
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

// Today's m1nd keeps more than brains in project-brains/: a job log folder and brains
// being born. Only a folder holding project_brain.json is a brain; the rest is no
// problem at all (a problem on every scan would keep last_scan_success at 0).
TEST_F(DiscoveryTest, ProjectBrainFolderWithoutManifestIsSkippedQuietly) {
  WriteOwner();
  WriteProjectBrain("0a1b2c3d", "/home/u/keyvault");
  MakeDirs(ProjectBrain("bb"));
  WriteFile(ProjectBrain("bb") + "/system_blocks.json", StoreJson("sk_bb_candidate", {}));
  WriteFile(Runtime() + "/project-brains/runtime-jobs/jobs.jsonl", "{\"job\": 1}\n");
  // A brain being born: even with a manifest, it is not a brain until renamed into place.
  WriteProjectBrain(".birth-staging-5e6f", "/home/u/newborn");
  Brain previous;
  previous.project_root = "/home/u/bb";
  previous.runtime_dir = ProjectBrain("bb");
  previous.source = BrainSource::kRegistryProject;

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {previous});

  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));  // no carry-over
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_TRUE(discovery.notices.empty());
}

TEST_F(DiscoveryTest, ManifestThatIsAFifoIsAProblemNotAHang) {
  WriteOwner();
  MakeDirs(ProjectBrain("cc"));
  ASSERT_EQ(0, mkfifo((ProjectBrain("cc") + "/project_brain.json").c_str(), 0600));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
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
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(manifest, discovery.problems[0].path);
  EXPECT_NE(std::string::npos, discovery.problems[0].message.find("dangling"))
      << discovery.problems[0].message;
  EXPECT_FALSE(discovery.problems[0].transient);
}

// A registry named in the config must exist: a typo must not watch nothing quietly.
TEST_F(DiscoveryTest, MissingNamedRegistryFolderIsAProblem) {
  MakeDirs(tmp_.Join("empty-registry"));  // exists, but has no instances/ yet
  DiscoveryConfig config;
  config.registries = {tmp_.Join("no-such-registry"), tmp_.Join("empty-registry")};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(1u, discovery.problems.size()) << Describe(discovery.problems);
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(tmp_.Join("no-such-registry"), discovery.problems[0].path);
  EXPECT_EQ("no such folder", discovery.problems[0].message);
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
  const char* old = getenv("M1ND_REGISTRY_DIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  unsetenv("M1ND_REGISTRY_DIR");
  EXPECT_EQ("~/.m1nd/registry", DefaultRegistry());
  setenv("M1ND_REGISTRY_DIR", "", 1);
  EXPECT_EQ("~/.m1nd/registry", DefaultRegistry());
  setenv("M1ND_REGISTRY_DIR", "/srv/m1nd/registry", 1);
  EXPECT_EQ("/srv/m1nd/registry", DefaultRegistry());
  if (saved) {
    setenv("M1ND_REGISTRY_DIR", saved->c_str(), 1);
  } else {
    unsetenv("M1ND_REGISTRY_DIR");
  }
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

TEST_F(DiscoveryTest, ProjectBrainsThatCannotBeListedIsAProblem) {
  WriteOwner();
  WriteFile(Runtime() + "/project-brains", "not a folder\n");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(Runtime() + "/project-brains", discovery.problems[0].path);
}

TEST_F(DiscoveryTest, UnparsableInstanceFileIsATransientProblem) {
  WriteOwner();
  WriteInstance("broken.json", "{\"instance_id\": \"broken\", \"workspace_");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("instance", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(Registry() + "/instances/broken.json", discovery.problems[0].path);
  EXPECT_TRUE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, InstanceFileOfTheWrongShapeIsAProblem) {
  WriteInstance("no-runtime.json", "{\"workspace_root\": \"/w\", \"brain_kind\": null}");
  WriteInstance("no-workspace.json", "{\"runtime_root\": \"/rt\"}");
  WriteInstance("medulla-no-runtime.json",
                "{\"workspace_root\": \"/w\", \"brain_kind\": \"medulla\"}");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(3u, discovery.problems.size()) << Describe(discovery.problems);
  for (const DiscoveryProblem& problem : discovery.problems) {
    EXPECT_STREQ("instance", DiscoveryProblemSourceName(problem.source));
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
  EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
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

// ---- One runtime dir is one brain -----------------------------------------------

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

// ---- Today's m1nd: instance kinds, attachers, ingest roots --------------------------

// An instance entry as today's m1nd writes it.
struct Entry {
  Entry(std::string workspace, std::string runtime, std::string kind = "null")
      : workspace_root(std::move(workspace)),
        runtime_root(std::move(runtime)),
        brain_kind(std::move(kind)) {}

  std::string workspace_root;
  std::string runtime_root;
  std::string brain_kind;  // JSON
  std::string mode = "read_write";
  std::int64_t heartbeat_ms = 1767225600000;
  std::string graph_source;  // omitted when empty

  std::string Json() const {
    std::string json = "{\"instance_id\": \"x\", \"workspace_root\": \"" + workspace_root +
                       "\", \"runtime_root\": \"" + runtime_root + "\", \"mode\": \"" + mode +
                       "\", \"last_heartbeat_ms\": " + std::to_string(heartbeat_ms) +
                       ", \"brain_kind\": " + brain_kind;
    if (!graph_source.empty()) json += ", \"graph_source\": \"" + graph_source + "\"";
    return json + ", \"status\": \"running\", \"conflicts\": []}\n";
  }
};

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
  WriteInstance("odder.json", Entry{"/home/u/notes", tmp_.Join("rt2"), "7"}.Json());
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd", "notes"}), Names(discovery));
  ASSERT_EQ(2u, discovery.notices.size());
  EXPECT_EQ(Registry() + "/instances/odd.json", discovery.notices[0].path);
  EXPECT_NE(std::string::npos, discovery.notices[0].message.find("\"satellite\""))
      << discovery.notices[0].message;
  EXPECT_NE(std::string::npos, discovery.notices[1].message.find("7"));
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

// m1nd names its bound dev graph after its first real ingest root, because that
// graph's workspace_root is usually the agent-memory sidecar or ~/.claude.
TEST_F(DiscoveryTest, OwnerIsNamedByItsIngestRootsNotItsSidecarWorkspace) {
  const std::string repo = tmp_.Join("src/m1nd");
  MakeDirs(repo);
  Entry owner{tmp_.Join("home/.claude/agent-memory"), Runtime(), "\"medulla\""};
  WriteInstance("owner.json", owner.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + tmp_.Join("notes.light.md") + "\", \"" +
                                                  tmp_.Join("gone") + "\", \"" + repo + "\"]");
  WriteFile(Runtime() + "/system_blocks.json",
            StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_0123abcd"}));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ(repo, discovery.brains[0].project_root);
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);
}

// ingest_roots.json sits beside the graph snapshot the entry names, which need not be
// in the runtime root.
TEST_F(DiscoveryTest, IngestRootsAreReadBesideTheGraphSource) {
  const std::string repo = tmp_.Join("src/keyvault");
  MakeDirs(repo);
  Entry owner{"/home/u/.claude", Runtime()};
  owner.graph_source = tmp_.Join("graphs/graph_snapshot.json");
  WriteInstance("owner.json", owner.Json());
  WriteFile(tmp_.Join("graphs/ingest_roots.json"), "[\"" + repo + "\"]");
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/wrong\"]");  // not this one
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"keyvault"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);
}

TEST_F(DiscoveryTest, WithoutIngestRootsTheWorkspaceRootNamesTheOwner) {
  WriteInstance("owner.json", Entry{"/home/u/m1nd", Runtime()}.Json());
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, discovery.brains[0].identity_source);
}

// A torn or broken ingest_roots.json must not make the exporter fall back to the
// sidecar workspace (a false page): the brain keeps last scan's identity instead.
TEST_F(DiscoveryTest, TornIngestRootsKeepThePreviousIdentity) {
  WriteInstance("owner.json",
                Entry{tmp_.Join("home/agent-memory"), Runtime(), "\"medulla\""}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(first));

  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1");
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(second));
  EXPECT_EQ("/home/u/m1nd", second.brains[0].project_root);
  ASSERT_EQ(1u, second.problems.size()) << Describe(second.problems);
  EXPECT_STREQ("ingest_roots", DiscoveryProblemSourceName(second.problems[0].source));
  EXPECT_TRUE(second.problems[0].transient);

  // Never seen before: skipped this scan rather than named after the sidecar.
  Discovery fresh = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(fresh.brains.empty());
}

TEST_F(DiscoveryTest, IngestRootsThatAreNotAListOfPathsAreAProblem) {
  WriteInstance("owner.json", Entry{"/home/u/m1nd", Runtime()}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "{\"roots\": [\"/home/u/m1nd\"]}");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.brains.empty());
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("ingest_roots", DiscoveryProblemSourceName(discovery.problems[0].source));

  const std::string path = Runtime() + "/ingest_roots.json";
  ASSERT_EQ(0, unlink(path.c_str()));
  ASSERT_EQ(0, mkfifo(path.c_str(), 0600));  // never a hang
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("ingest_roots", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_FALSE(discovery.problems[0].transient);
}

TEST_F(DiscoveryTest, StaticBrainsSayWhichConfigFieldNamesThem) {
  DiscoveryConfig config;
  config.static_brains = {{"", "/home/u/m1nd", "", tmp_.Join("a")},
                          {"", "/home/u/x", "Key Vault", tmp_.Join("b")}};
  Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ((std::vector<std::string>{"key_vault", "m1nd"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kConfigDisplayName, discovery.brains[0].identity_source);
  EXPECT_EQ(IdentitySource::kConfigProjectRoot, discovery.brains[1].identity_source);
  WriteProjectBrain("0a", "/home/u/lib");
  config.static_brains.clear();
  config.runtime_globs = {Runtime() + "/project-brains/*"};
  discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.brains.size());
  EXPECT_EQ(IdentitySource::kManifest, discovery.brains[0].identity_source);
}

// examples/ as today's m1nd leaves a machine: a medulla owner named by its ingest
// root, a read-only attacher on its runtime root, a project entry, project brains,
// runtime-jobs/ and a brain being born. Four brains, no problem, no notice.
// Two discoveries agree on every brain and every problem, in the same order.
void ExpectSameDiscovery(const Discovery& serial, const Discovery& parallel) {
  ASSERT_EQ(Names(serial), Names(parallel));
  for (std::size_t i = 0; i < serial.brains.size(); ++i) {
    EXPECT_EQ(serial.brains[i].project_root, parallel.brains[i].project_root);
    EXPECT_EQ(serial.brains[i].runtime_dir, parallel.brains[i].runtime_dir);
    EXPECT_EQ(serial.brains[i].source, parallel.brains[i].source);
  }
  EXPECT_EQ(Describe(serial.problems), Describe(parallel.problems));
  EXPECT_EQ(serial.name_collisions, parallel.name_collisions);
  EXPECT_FALSE(parallel.stopped);
}

TEST_F(DiscoveryTest, ProjectBrainsReadOnSeveralThreadsAreFoundAsOnOne) {
  WriteOwner();
  WriteFoldersOfEveryKind();
  const DiscoveryConfig config = RegistryConfig(Registry());
  const Discovery serial = DiscoverBrains(config, {}, nullptr, Parallelism{1, 1});
  ASSERT_GT(serial.brains.size(), 100u);
  ASSERT_GT(serial.problems.size(), 50u);
  const Discovery parallel = DiscoverBrains(config, {}, nullptr, Parallelism{4, 1});
  ExpectSameDiscovery(serial, parallel);

  // The torn manifests now carry over last scan's brain, if it had one.
  WriteFile(ProjectBrain("f1000") + "/project_brain.json", "{\"schema");
  ExpectSameDiscovery(DiscoverBrains(config, serial.brains, nullptr, Parallelism{1, 1}),
                      DiscoverBrains(config, serial.brains, nullptr, Parallelism{4, 1}));

  std::atomic<bool> stop{true};
  EXPECT_TRUE(DiscoverBrains(config, {}, &stop, Parallelism{4, 1}).stopped);
}

// ---- With a DiscoveryCache: unchanged small files are only stat'ed ---------------

std::int64_t RealtimeNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

bool SameTime(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Discovery through a cache whose reads are counted and whose clock is now_ns_.
class CachedDiscoveryTest : public DiscoveryTest {
 protected:
  DiscoveryCache::Options CountingOptions() {
    DiscoveryCache::Options options;
    options.read_file = [this](const std::string& path, std::int64_t max_bytes,
                               std::string* contents) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++reads_[path];
      }
      return ReadBrainFile(path, max_bytes, contents);
    };
    options.now_ns = [this] { return now_ns_; };
    return options;
  }

  Discovery Discover(DiscoveryCache* cache, const std::vector<Brain>& previous = {},
                     const Parallelism& parallelism = Parallelism{1, 1}) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reads_.clear();
    }
    return DiscoverBrains(RegistryConfig(Registry()), previous, nullptr, parallelism, cache);
  }

  // How often the last Discover opened `path`.
  int Reads(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reads_.find(path);
    return it == reads_.end() ? 0 : it->second;
  }
  std::map<std::string, int> AllReads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return reads_;
  }

  std::string Manifest(const std::string& hex) const {
    return ProjectBrain(hex) + "/project_brain.json";
  }

  // Long after every file of the test changed: their stamps are settled.
  std::int64_t now_ns_ = RealtimeNs() + std::int64_t{3600} * 1000000000;
  std::mutex mutex_;
  std::map<std::string, int> reads_;
};

TEST_F(CachedDiscoveryTest, UnchangedFilesAreNotOpenedAndFindTheSame) {
  WriteOwner();
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  WriteFoldersOfEveryKind();
  DiscoveryCache cache(CountingOptions());
  const DiscoveryConfig config = RegistryConfig(Registry());

  const Discovery first = Discover(&cache, {}, Parallelism{4, 1});
  ExpectSameDiscovery(DiscoverBrains(config, {}), first);
  EXPECT_EQ(1, Reads(Registry() + "/instances/owner-1.json"));
  EXPECT_EQ(1, Reads(Runtime() + "/ingest_roots.json"));
  EXPECT_EQ(1, Reads(Manifest("f1000")));
  EXPECT_EQ(1, Reads(Manifest("f1003")));  // torn: its failure is kept
  const std::size_t kept = cache.size();
  EXPECT_GT(kept, 100u);

  const Discovery second = Discover(&cache, first.brains, Parallelism{4, 1});
  ExpectSameDiscovery(DiscoverBrains(config, first.brains), second);
  EXPECT_EQ(kept, cache.size());
  // Only what could not be read was tried again (no parse is kept for a FIFO, nor
  // for a manifest that is not there); no regular file was opened again.
  const std::map<std::string, int> reads = AllReads();
  EXPECT_EQ(1, reads.count(Manifest("f1004")));  // a FIFO
  EXPECT_EQ(1, reads.count(Manifest("f1002")));  // none
  for (const auto& entry : reads) {
    struct stat info;
    if (lstat(entry.first.c_str(), &info) == 0) {
      EXPECT_TRUE(S_ISFIFO(info.st_mode)) << entry.first;
    }
  }
}

// A rewrite in place within one mtime tick (or with mtime set back) leaves device,
// inode, size and mtime as they were; only ctime tells.
TEST_F(CachedDiscoveryTest, ManifestRewrittenWithSameSizeAndMtimeIsReadAgain) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvaulta");
  DiscoveryCache cache(CountingOptions());
  ASSERT_NE(nullptr, Find(Discover(&cache), "keyvaulta"));
  struct stat before;
  ASSERT_EQ(0, stat(Manifest("aa").c_str(), &before));

  WriteFile(Manifest("aa"), ManifestJson("/home/u/keyvaultb"));  // in place, same size
  struct stat after;
  do {  // mtime set back; each call also moves ctime on, once the clock has ticked
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(0, utimensat(AT_FDCWD, Manifest("aa").c_str(), times, 0));
    ASSERT_EQ(0, stat(Manifest("aa").c_str(), &after));
  } while (SameTime(after.st_ctim, before.st_ctim));
  ASSERT_EQ(before.st_dev, after.st_dev);
  ASSERT_EQ(before.st_ino, after.st_ino);
  ASSERT_EQ(before.st_size, after.st_size);
  ASSERT_TRUE(SameTime(before.st_mtim, after.st_mtim));

  const Discovery second = Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  EXPECT_EQ(nullptr, Find(second, "keyvaulta"));
  ASSERT_NE(nullptr, Find(second, "keyvaultb"));
  EXPECT_EQ("/home/u/keyvaultb", Find(second, "keyvaultb")->project_root);
}

// A file changed in the same timestamp tick as a read would keep the stamp the read
// saw: a stamp is trusted only once the file is kStampSettleNs old.
TEST_F(CachedDiscoveryTest, RecentlyChangedFileIsReadUntilItSettles) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  struct stat info;
  ASSERT_EQ(0, stat(Manifest("aa").c_str(), &info));
  const FileStamp stamp = StampOfStat(info);
  DiscoveryCache cache(CountingOptions());

  now_ns_ = std::max(stamp.mtime_ns, stamp.ctime_ns) + kStampSettleNs;  // not yet
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));

  now_ns_ += 1;  // settled: this read is kept, and the next discovery only stats
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  const Discovery last = Discover(&cache);
  EXPECT_EQ(0, Reads(Manifest("aa")));
  EXPECT_NE(nullptr, Find(last, "keyvault"));
}

TEST_F(CachedDiscoveryTest, FilesNoLongerFoundAreForgotten) {
  WriteOwner();
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  WriteProjectBrain("aa", "/home/u/keyvault");
  WriteProjectBrain("bb", "/home/u/notes");
  DiscoveryCache cache(CountingOptions());
  Discover(&cache);
  EXPECT_EQ(4u, cache.size());  // the instance file, ingest_roots.json, two manifests

  std::filesystem::remove_all(ProjectBrain("bb"));
  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(Discover(&cache)));
  EXPECT_EQ(3u, cache.size());

  // A stopped discovery met only some files: it forgets nothing.
  std::atomic<bool> stop{true};
  EXPECT_TRUE(
      DiscoverBrains(RegistryConfig(Registry()), {}, &stop, Parallelism{1, 1}, &cache).stopped);
  EXPECT_EQ(3u, cache.size());

  ASSERT_EQ(0, unlink((Registry() + "/instances/owner-1.json").c_str()));
  EXPECT_TRUE(Discover(&cache).brains.empty());
  EXPECT_EQ(0u, cache.size());
}

TEST_F(CachedDiscoveryTest, ManifestThatGoesBadIsReportedAsWithoutACache) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  DiscoveryCache cache(CountingOptions());
  const Discovery good = Discover(&cache);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(good));

  WriteFile(Manifest("aa"), "{\"schema\": ");
  const Discovery uncached = DiscoverBrains(RegistryConfig(Registry()), good.brains);
  const Discovery torn = Discover(&cache, good.brains);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  ExpectSameDiscovery(uncached, torn);
  ASSERT_EQ(1u, torn.problems.size());
  EXPECT_TRUE(torn.problems[0].transient);
  EXPECT_EQ("/home/u/keyvault", Find(torn, "keyvault")->project_root);  // carried over

  // Still torn, unchanged: not read again, and reported as before.
  const Discovery still = Discover(&cache, torn.brains);
  EXPECT_EQ(0, Reads(Manifest("aa")));
  ExpectSameDiscovery(uncached, still);

  WriteProjectBrain("aa", "/home/u/vault");
  const Discovery mended = Discover(&cache, still.brains);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  EXPECT_TRUE(mended.problems.empty()) << Describe(mended.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd", "vault"}), Names(mended));
}

TEST_F(CachedDiscoveryTest, ChangedInstanceFileAndIngestRootsAreReadAgain) {
  MakeDirs(tmp_.Join("src/m1nd"));
  MakeDirs(tmp_.Join("src/other"));
  const std::string instance = Registry() + "/instances/owner.json";
  const std::string ingest_roots = Runtime() + "/ingest_roots.json";
  WriteInstance("owner.json",
                Entry{tmp_.Join("home/.claude/agent-memory"), Runtime(), "\"medulla\""}.Json());
  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/m1nd") + "\"]");
  DiscoveryCache cache(CountingOptions());
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(Discover(&cache)));

  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/other") + "\"]");
  const Discovery other = Discover(&cache);
  EXPECT_EQ((std::vector<std::string>{"other"}), Names(other));
  EXPECT_EQ(1, Reads(ingest_roots));
  EXPECT_EQ(0, Reads(instance));

  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/oth"));  // torn: the name is kept
  const Discovery torn = Discover(&cache, other.brains);
  EXPECT_EQ(1, Reads(ingest_roots));
  EXPECT_EQ((std::vector<std::string>{"other"}), Names(torn));
  const Discovery still = Discover(&cache, torn.brains);
  EXPECT_EQ(0, Reads(ingest_roots));
  ExpectSameDiscovery(DiscoverBrains(RegistryConfig(Registry()), torn.brains), still);

  WriteInstance("owner.json", Entry{tmp_.Join("src/side"), Runtime(), "\"project\""}.Json());
  EXPECT_TRUE(Discover(&cache).brains.empty());  // a project entry now: no manifest there
  EXPECT_EQ(1, Reads(instance));
}

TEST(StampCacheTest, OnlyTheSameStampReusesAParse) {
  FileStamp kept{1, 2, 3, 4, 5};
  EXPECT_TRUE(CanReuseParse(kept, kept));
  for (int field = 0; field < 5; ++field) {
    FileStamp now = kept;
    switch (field) {
      case 0:
        now.device = 9;
        break;
      case 1:
        now.inode = 9;
        break;
      case 2:
        now.size = 9;
        break;
      case 3:
        now.mtime_ns = 9;
        break;
      default:
        now.ctime_ns = 9;
        break;
    }
    EXPECT_FALSE(CanReuseParse(kept, now)) << field;
  }
}

TEST(StampCacheTest, AStampSettlesOnceMtimeAndCtimeAreOldEnough) {
  FileStamp stamp;
  stamp.mtime_ns = 1000;
  stamp.ctime_ns = 2000;
  EXPECT_FALSE(StampIsSettled(stamp, 2000 + kStampSettleNs));
  EXPECT_TRUE(StampIsSettled(stamp, 2001 + kStampSettleNs));
  stamp.mtime_ns = 5000;  // set into the future: never trusted before then
  EXPECT_FALSE(StampIsSettled(stamp, 2001 + kStampSettleNs));
}

TEST(StampCacheTest, KeepsSettledParsesAndDropsWhatAWalkDidNotMeet) {
  StampCache<std::string> cache;
  FileStamp old{1, 2, 3, 4, 5};
  const std::int64_t later = 6 + kStampSettleNs;
  cache.BeginWalk();
  cache.Keep("/a", old, later, "parse of a");
  cache.Keep("/b", old, later, "parse of b");
  cache.Keep("/new", old, 5 + kStampSettleNs, "unsettled");  // not kept
  EXPECT_EQ(2u, cache.size());
  ASSERT_NE(nullptr, cache.Find("/a"));
  EXPECT_EQ("parse of a", cache.Find("/a")->parsed);
  EXPECT_EQ(nullptr, cache.Find("/new"));

  cache.BeginWalk();
  const StampCache<std::string>::Entry* a = cache.Find("/a");
  cache.MarkSeen(*a);
  cache.DropUnseen();
  EXPECT_EQ(1u, cache.size());
  EXPECT_EQ(nullptr, cache.Find("/b"));

  // Within a walk an entry stays where it is, forgotten or not: the walk may still
  // hold it (one manifest reached through a symlinked folder and the folder itself,
  // on two threads, changed between the two stats).
  cache.BeginWalk();
  a = cache.Find("/a");
  cache.Forget("/a");
  EXPECT_EQ(nullptr, cache.Find("/a"));
  cache.MarkSeen(*a);
  EXPECT_EQ("parse of a", a->parsed);
  cache.Keep("/a", old, 5 + kStampSettleNs, "unsettled");  // forgotten, not erased
  EXPECT_EQ(1u, cache.size());
  cache.DropUnseen();
  EXPECT_EQ(0u, cache.size());
}

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
