// Tests for brain discovery over temporary m1nd layouts (registry, runtime roots,
// project brains, globs) and over the examples/ folder.
#include "engine/discovery/discovery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/brain_file.h"
#include "base/stamp_cache.h"
#include "engine/discovery/read_folders.h"
#include "tests/counted_reads.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::InstanceJson;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::ScopedHome;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

// Sets a file's times an hour back, as if written long ago.
void SetOld(const std::string& path) {
  struct timespec old[2];
  clock_gettime(CLOCK_REALTIME, &old[0]);
  old[0].tv_sec -= 3600;
  old[1] = old[0];
  ASSERT_EQ(0, utimensat(AT_FDCWD, path.c_str(), old, 0));
}

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
  std::uint32_t pid = 4242;
  std::uint64_t started_at_ms = 1767225600000;

  // A whole record, as m1nd's list_instances needs it.
  std::string Json() const {
    const std::string graph =
        graph_source.empty() ? runtime_root + "/graph_snapshot.json" : graph_source;
    return "{\"instance_id\": \"x\", \"workspace_root\": \"" + workspace_root +
           "\", \"runtime_root\": \"" + runtime_root + "\", \"graph_source\": \"" + graph +
           "\", \"plasticity_state\": \"" + runtime_root + "/plasticity_state.json\"" +
           ", \"pid\": " + std::to_string(pid) + ", \"bind\": null, \"port\": null" +
           ", \"started_at_ms\": " + std::to_string(started_at_ms) +
           ", \"last_heartbeat_ms\": " + std::to_string(heartbeat_ms) + ", \"mode\": \"" + mode +
           "\", \"status\": \"running\", \"conflicts\": [], \"brain_kind\": " + brain_kind + "}\n";
  }
};

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
          // Names collide (one basename), roots do not (no orphan).
          WriteProjectBrain(hex, "/home/u" + std::to_string(i) + "/p" + std::to_string(i % 50));
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

// Half-written text is retried; JSON without a string project_root is no brain's
// manifest (m1nd does not serve it), skipped with a debug line.
TEST_F(DiscoveryTest, ManifestOfTheWrongShapeIsNoBrainTornTextIsTransient) {
  WriteOwner();
  for (const std::string manifest : {"", "{\"schema\": \"m1nd-pro", "[\"/r\""}) {
    WriteFile(ProjectBrain("aa") + "/project_brain.json", manifest);
    Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
    EXPECT_EQ(1u, discovery.brains.size()) << manifest;
    ASSERT_EQ(1u, discovery.problems.size()) << manifest;
    EXPECT_STREQ("manifest", DiscoveryProblemSourceName(discovery.problems[0].source));
    EXPECT_TRUE(discovery.problems[0].transient) << manifest;
  }
  for (const std::string manifest :
       {"[]", "{\"schema\": \"m1nd-project-brain-v0\"}",
        "{\"schema\": \"m1nd-project-brain-v0\", \"project_root\": 7}"}) {
    WriteFile(ProjectBrain("aa") + "/project_brain.json", manifest);
    Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
    EXPECT_EQ(1u, discovery.brains.size()) << manifest;
    EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
    EXPECT_EQ(1u, discovery.debug_notes.size()) << manifest;
  }
}

// m1nd does not check the manifest's schema: a newer one, or none, is still served,
// and so still watched (an incident there must page).
TEST_F(DiscoveryTest, ManifestOfAnySchemaIsAProjectBrain) {
  WriteOwner();
  for (const std::string manifest :
       {"{\"schema\": \"m1nd-project-brain-v9\", \"project_root\": \"/home/u/keyvault\"}",
        "{\"project_root\": \"/home/u/keyvault\", \"brain_kind\": \"project\"}"}) {
    WriteFile(ProjectBrain("aa") + "/project_brain.json", manifest);
    Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
    EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
    ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery)) << manifest;
    EXPECT_EQ("/home/u/keyvault", Find(discovery, "keyvault")->project_root);
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
  previous.name = "stale_label";  // kept: a brain keeps its label (brain_names.h)
  previous.project_root = "/home/u/keyvault";
  previous.runtime_dir = Runtime() + "/project-brains/./aa/";
  previous.source = BrainSource::kRegistryProject;

  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {previous});

  EXPECT_EQ((std::vector<std::string>{"m1nd", "stale_label"}), Names(discovery));
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

// A pattern looping through symlinks: rts/* holds one brain, loop/ 10 links to
// itself, so loop/*/*/*/*/*/* is a million paths. It ends at kMaxGlobEntries with a
// problem, and the other pattern's brain is still found.
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
  EXPECT_LT(took, std::chrono::seconds(5) * testing::kCpuSlowdown);  // a hang guard: 0.1-0.9 s
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

// m1nd's is_dir() follows links: a dangling symlink or a plain file among the ingest
// roots is not a directory, a symlink to one is. The identity is the ingest root as
// written, a link's own name, never its target's.
TEST_F(DiscoveryTest, IngestRootsAreDirectoriesThroughLinksAndNamedByTheLink) {
  MakeDirs(tmp_.Join("src/real-target"));
  MakeDirs(tmp_.Join("links"));
  ASSERT_EQ(0, symlink(tmp_.Join("nowhere").c_str(), tmp_.Join("links/dangling").c_str()));
  WriteFile(tmp_.Join("links/plain"), "not a folder\n");
  ASSERT_EQ(0, symlink(tmp_.Join("src/real-target").c_str(), tmp_.Join("links/keyvault").c_str()));
  WriteInstance("owner.json", Entry{"/home/u/.claude", Runtime()}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + tmp_.Join("links/dangling") + "\", \"" +
                                                  tmp_.Join("links/plain") + "\", \"" +
                                                  tmp_.Join("links/keyvault") + "\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"keyvault"}), Names(discovery));
  EXPECT_EQ(tmp_.Join("links/keyvault"), discovery.brains[0].project_root);
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);

  // With no directory among them, rule 2 names it; the workspace root is no sidecar.
  WriteFile(Runtime() + "/ingest_roots.json",
            "[\"" + tmp_.Join("links/dangling") + "\", \"" + tmp_.Join("links/plain") + "\"]");
  SetOld(Runtime() + "/ingest_roots.json");
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"claude"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, discovery.brains[0].identity_source);
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

TEST_F(DiscoveryTest, WithoutIngestRootsTheWorkspaceRootNamesTheOwner) {
  WriteInstance("owner.json", Entry{"/home/u/m1nd", Runtime()}.Json());
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, discovery.brains[0].identity_source);
}

// m1nd reads an ingest_roots.json that is not a JSON array of strings (torn text, a
// null element, an object) as an empty list, and names the brain by rule 2: so does
// the exporter, with a debug line. Dropping the brain would miss the incident.
TEST_F(DiscoveryTest, IngestRootsThatAreNotAListOfPathsAreReadAsEmpty) {
  WriteInstance("owner.json", Entry{"/home/u/m1nd", Runtime()}.Json());
  WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  for (const std::string text :
       {"{\"roots\": [\"/home/u/keyvault\"]}", "[\"/home/u/keyvault\", null]", "[\"/home/u/ke"}) {
    WriteFile(Runtime() + "/ingest_roots.json", text);
    SetOld(Runtime() + "/ingest_roots.json");  // settled: m1nd reads it so too
    Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
    EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
    ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery)) << text;
    EXPECT_EQ(IdentitySource::kWorkspaceRoot, discovery.brains[0].identity_source);
    ASSERT_EQ(1u, discovery.debug_notes.size()) << text;
    EXPECT_EQ(Runtime() + "/ingest_roots.json", discovery.debug_notes[0].path);
  }
}

// Torn text written in the last two seconds is likely caught while m1nd rewrites it:
// the brain keeps last scan's identity for now (a transient problem).
TEST_F(DiscoveryTest, JustWrittenTornIngestRootsKeepThePreviousIdentity) {
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
  EXPECT_TRUE(second.problems[0].transient);
  // Settled, it is what m1nd reads: an empty list, and rule 4 names the brain.
  SetOld(Runtime() + "/ingest_roots.json");
  Discovery settled = DiscoverBrains(RegistryConfig(Registry()), second.brains);
  EXPECT_TRUE(settled.problems.empty()) << Describe(settled.problems);
  ASSERT_EQ(1u, settled.brains.size());
  EXPECT_EQ(IdentitySource::kSidecarWorkspace, settled.brains[0].identity_source);
}

// An mtime in the future (the clock stepped back, a restored backup) says nothing of
// a write in progress: were it "just written", the brain would keep its previous
// identity for as long as the clock is behind the file. Torn text is read as m1nd
// reads it, an empty list, and a notice says why.
TEST_F(DiscoveryTest, TornIngestRootsStampedInTheFutureAreReadAsEmpty) {
  WriteInstance("owner.json",
                Entry{tmp_.Join("home/agent-memory"), Runtime(), "\"medulla\""}.Json());
  const std::string path = Runtime() + "/ingest_roots.json";
  WriteFile(path, "[\"/home/u/m1nd\"]");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(first));
  WriteFile(path, "[\"/home/u/m1");
  struct timespec ahead[2];
  clock_gettime(CLOCK_REALTIME, &ahead[0]);
  ahead[0].tv_sec += 3600;
  ahead[1] = ahead[0];
  ASSERT_EQ(0, utimensat(AT_FDCWD, path.c_str(), ahead, 0));
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);
  EXPECT_TRUE(second.problems.empty()) << Describe(second.problems);
  ASSERT_EQ(1u, second.brains.size());
  EXPECT_FALSE(second.brains[0].carried_over);
  EXPECT_EQ(IdentitySource::kSidecarWorkspace, second.brains[0].identity_source);
  ASSERT_EQ(1u, second.notices.size());
  EXPECT_EQ(path, second.notices[0].path);
  EXPECT_NE(std::string::npos, second.notices[0].message.find("in the future"));
}

// An ingest_roots.json that cannot be read at all (a FIFO, no permission) is a
// problem: m1nd may read it, the exporter cannot. The brain keeps last scan's identity,
// or, never seen before, is watched with no identity decided (no verdict).
TEST_F(DiscoveryTest, UnreadableIngestRootsKeepThePreviousIdentity) {
  WriteInstance("owner.json",
                Entry{tmp_.Join("home/agent-memory"), Runtime(), "\"medulla\""}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  Discovery first = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(first));

  const std::string path = Runtime() + "/ingest_roots.json";
  ASSERT_EQ(0, unlink(path.c_str()));
  ASSERT_EQ(0, mkfifo(path.c_str(), 0600));  // never a hang
  Discovery second = DiscoverBrains(RegistryConfig(Registry()), first.brains);
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(second));
  EXPECT_EQ("/home/u/m1nd", second.brains[0].project_root);
  EXPECT_TRUE(second.brains[0].carried_over);
  ASSERT_EQ(1u, second.problems.size()) << Describe(second.problems);
  EXPECT_STREQ("ingest_roots", DiscoveryProblemSourceName(second.problems[0].source));
  EXPECT_FALSE(second.problems[0].transient);

  Discovery fresh = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(1u, fresh.brains.size());
  EXPECT_EQ(IdentitySource::kUnknown, fresh.brains[0].identity_source);
  EXPECT_NE(std::string::npos, fresh.brains[0].identity_note.str().find("ingest_roots.json"));
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
  ASSERT_EQ(serial.orphans.size(), parallel.orphans.size());
  for (std::size_t i = 0; i < serial.orphans.size(); ++i) {
    EXPECT_EQ(serial.orphans[i].runtime_dir, parallel.orphans[i].runtime_dir);
    EXPECT_EQ(serial.orphans[i].served_runtime_dir, parallel.orphans[i].served_runtime_dir);
  }
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

// ---- Fidelity II: what m1nd serves, brain by brain ---------------------------------

// m1nd's Path::file_name() ignores a trailing "/.": such a workspace_root is a
// sidecar, and rule 4 (not rule 2) names the brain only when nothing else does.
TEST_F(DiscoveryTest, SidecarWorkspaceWrittenWithATrailingDotIsASidecar) {
  WriteInstance("owner.json",
                Entry{"/home/u/.claude/agent-memory/.", Runtime(), "\"medulla\""}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/.claude/agent-memory/.\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(1u, discovery.brains.size());
  // Rule 3: the first ingest root of any kind. Read as rule 2 it would be the same
  // path; what shows the sidecar is recognised is the rule.
  EXPECT_EQ(IdentitySource::kAnyIngestRoot, discovery.brains[0].identity_source);
}

// A hosted project brain is named by its own session state: the ingest_roots.json in
// its folder first (rule 1), its manifest's project_root at rule 2.
TEST_F(DiscoveryTest, HostedProjectBrainIsNamedByItsOwnIngestRootsFirst) {
  WriteOwner();
  const std::string repo = tmp_.Join("src/Key-Vault");
  MakeDirs(repo);
  WriteProjectBrain("aa", "/home/u/keyvault-old-name");
  WriteFile(ProjectBrain("aa") + "/ingest_roots.json", "[\"" + repo + "\"]");
  WriteProjectBrain("bb", "/home/u/notes");
  WriteFile(ProjectBrain("bb") + "/ingest_roots.json", "[\"" + tmp_.Join("gone") + "\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"key_vault", "m1nd", "notes"}), Names(discovery));
  EXPECT_EQ(repo, Find(discovery, "key_vault")->project_root);
  EXPECT_EQ(IdentitySource::kIngestRoot, Find(discovery, "key_vault")->identity_source);
  EXPECT_EQ(IdentitySource::kManifest, Find(discovery, "notes")->identity_source);
  // m1nd's brain list names a project brain by its manifest root's basename.
  EXPECT_EQ("keyvault-old-name", Find(discovery, "key_vault")->m1nd_name);
}

TEST_F(DiscoveryTest, M1ndsOwnNamesAreCarried) {
  WriteInstance("medulla.json", Entry{"/home/u/m1nd", Runtime(), "\"medulla\""}.Json());
  WriteInstance("sibling.json", Entry{"/home/u/notes/", tmp_.Join("rt2")}.Json());
  WriteProjectBrain("aa", "/home/u/My-Repo");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd", "my_repo", "notes"}), Names(discovery));
  EXPECT_EQ("medulla", Find(discovery, "m1nd")->m1nd_name);
  EXPECT_EQ("notes", Find(discovery, "notes")->m1nd_name);
  EXPECT_EQ("My-Repo", Find(discovery, "my_repo")->m1nd_name);
  DiscoveryConfig config;
  config.static_brains = {{"", "/home/u/x", "", tmp_.Join("static")}};
  EXPECT_EQ("", DiscoverBrains(config, {}).brains[0].m1nd_name);
}

// An ingest root this process cannot see (its parent is missing too: a sandbox hides
// the homes) may be the one m1nd names the brain after: no verdict can be stood
// behind, so the identity is unknown, never guessed by a later rule.
TEST_F(DiscoveryTest, AnIngestRootThatCannotBeSeenLeavesTheIdentityUnknown) {
  WriteInstance("owner.json", Entry{Runtime(), Runtime()}.Json());
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + tmp_.Join("hidden/u/m1nd") + "\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ(1u, discovery.brains.size());
  const Brain& brain = discovery.brains[0];
  EXPECT_EQ(IdentitySource::kUnknown, brain.identity_source);
  EXPECT_EQ("", brain.project_root);
  EXPECT_NE(std::string::npos, brain.identity_note.str().find(tmp_.Join("hidden/u/m1nd")));
  // Named after m1nd's own name for it, a sibling owner's workspace basename.
  EXPECT_EQ("m1nd_rt", brain.name);

  // Visible and gone (its parent folder is there, with other things in it): m1nd's
  // rule 2 names it after its workspace_root.
  MakeDirs(tmp_.Join("hidden/u/other"));
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(1u, discovery.brains.size());
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, discovery.brains[0].identity_source);
  // Visible and there: rule 1.
  MakeDirs(tmp_.Join("hidden/u/m1nd"));
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);
}

// An ingest root deleted together with its parent folder, under a folder that is
// still there: as m1nd sees it on its host, the root is gone and rule 2 names the brain.
class RootDeletedWithItsParentTest : public DiscoveryTest {
 protected:
  static std::uint64_t NowMs() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
  }
  // The owner's registry entry names `pid`, started now; its ingest root
  // home/u/m1nd is gone with home/u, and home/ holds the runtime root still.
  void WriteOwnerWithGoneRoot(std::uint32_t pid) {
    Entry owner{Runtime(), Runtime()};
    owner.pid = pid;
    owner.started_at_ms = NowMs();
    WriteInstance("owner.json", owner.Json());
    WriteFile(Runtime() + "/ingest_roots.json", "[\"" + GoneRoot() + "\"]");
  }
  std::string GoneRoot() const { return tmp_.Join("home/u/m1nd"); }
  Brain Discover(DiscoveryView view) {
    DiscoveryConfig config = RegistryConfig(Registry());
    config.view = view;
    const Discovery discovery = DiscoverBrains(config, {});
    EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
    EXPECT_EQ(1u, discovery.brains.size());
    return discovery.brains.empty() ? Brain() : discovery.brains[0];
  }
  // A pid no process has now: a child's that was waited for.
  static std::uint32_t DeadPid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    return static_cast<std::uint32_t>(child);
  }
};

// The registry names this very process: it shares the owner's mount namespace, so
// what it does not see, m1nd does not see either.
TEST_F(RootDeletedWithItsParentTest, SharingTheOwnersNamespaceFollowsM1ndsNextRule) {
  WriteOwnerWithGoneRoot(static_cast<std::uint32_t>(getpid()));
  const Brain brain = Discover(DiscoveryView::kAuto);
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, brain.identity_source) << brain.identity_note;
  EXPECT_EQ(Runtime(), brain.project_root);
  // So does a declared sandbox: the evidence says m1nd sees what this process sees.
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, Discover(DiscoveryView::kSandbox).identity_source);
}

// m1nd's process is gone: no evidence, the shape rule cannot tell.
TEST_F(RootDeletedWithItsParentTest, WithoutEvidenceTheIdentityIsUnknown) {
  WriteOwnerWithGoneRoot(DeadPid());
  const Brain brain = Discover(DiscoveryView::kAuto);
  EXPECT_EQ(IdentitySource::kUnknown, brain.identity_source);
  EXPECT_NE(std::string::npos, brain.identity_note.str().find(GoneRoot())) << brain.identity_note;
  EXPECT_NE(std::string::npos, brain.identity_note.str().find("no evidence of m1nd's view"))
      << brain.identity_note;
  EXPECT_NE(std::string::npos, brain.identity_note.str().find("is not in /proc"))
      << brain.identity_note;
}

TEST_F(RootDeletedWithItsParentTest, ADeclaredHostFollowsM1ndsNextRule) {
  WriteOwnerWithGoneRoot(DeadPid());
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, Discover(DiscoveryView::kHost).identity_source);
}

// A declared sandbox without evidence: not even a root missing from a folder it sees
// is taken as gone.
TEST_F(RootDeletedWithItsParentTest, ADeclaredSandboxLeavesTheIdentityUnknown) {
  WriteOwnerWithGoneRoot(DeadPid());
  MakeDirs(tmp_.Join("home/u/other"));  // the parent is there: the shape rule says gone
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, Discover(DiscoveryView::kAuto).identity_source);
  const Brain brain = Discover(DiscoveryView::kSandbox);
  EXPECT_EQ(IdentitySource::kUnknown, brain.identity_source);
  EXPECT_NE(std::string::npos, brain.identity_note.str().find("sandbox")) << brain.identity_note;
}

// The project brains an owner hosts are seen through its view too.
TEST_F(RootDeletedWithItsParentTest, AHostedProjectBrainUsesItsOwnersView) {
  Entry owner{Runtime(), Runtime()};
  owner.pid = static_cast<std::uint32_t>(getpid());
  owner.started_at_ms = NowMs();
  WriteInstance("owner.json", owner.Json());
  WriteProjectBrain("aa", "/home/u/notes");
  WriteFile(ProjectBrain("aa") + "/ingest_roots.json", "[\"" + GoneRoot() + "\"]");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(2u, discovery.brains.size());
  const Brain* notes = Find(discovery, "notes");
  ASSERT_NE(nullptr, notes) << Names(discovery)[0] << " " << Names(discovery)[1];
  EXPECT_EQ(IdentitySource::kManifest, notes->identity_source) << notes->identity_note;
}

// Two folders claim one project root (an older m1nd build left one behind): m1nd
// serves one; the other is an orphan, reported, never a brain.
TEST_F(DiscoveryTest, OfTwoFoldersForOneRootTheServedOneIsTheBrain) {
  WriteOwner();
  WriteProjectBrain("aa-old", "/home/u/keyvault");
  WriteFile(ProjectBrain("aa-old") + "/system_blocks.json", StoreJson("sk_m1nd_candidate", {}));
  WriteProjectBrain("bb-new", "/home/u/keyvault");
  // Without a registry entry: the most recently written store is the served one.
  SetOld(ProjectBrain("aa-old") + "/system_blocks.json");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));
  EXPECT_EQ(ProjectBrain("bb-new"), Find(discovery, "keyvault")->runtime_dir);
  ASSERT_EQ(1u, discovery.orphans.size());
  EXPECT_EQ(ProjectBrain("aa-old"), discovery.orphans[0].runtime_dir);
  EXPECT_EQ("/home/u/keyvault", discovery.orphans[0].project_root);
  EXPECT_EQ(ProjectBrain("bb-new"), discovery.orphans[0].served_runtime_dir);

  // A live "project" registry entry names the served folder, whatever the stores.
  WriteInstance("proj.json",
                InstanceJson("proj", ProjectBrain("aa-old"), Runtime(), "\"project\""));
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(discovery));
  EXPECT_EQ(ProjectBrain("aa-old"), Find(discovery, "keyvault")->runtime_dir);
  ASSERT_EQ(1u, discovery.orphans.size());
  EXPECT_EQ(ProjectBrain("bb-new"), discovery.orphans[0].runtime_dir);
}

// m1nd serves a dormant project brain only when its manifest's root is m1nd's key for
// it (canonical_key(): trimmed, no trailing '/'): a folder whose root is not in that
// form is never served while dormant, so it is an orphan, never a brain or a page. A
// live one (a "project" entry points at it) is served whatever its manifest says.
TEST_F(DiscoveryTest, DormantFolderWhoseRootIsNotM1ndsKeyIsNeverServed) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault/");
  WriteProjectBrain("bb", " /home/u/notes");
  WriteProjectBrain("cc", "/home/u/vault");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_TRUE(discovery.problems.empty()) << Describe(discovery.problems);
  EXPECT_EQ((std::vector<std::string>{"m1nd", "vault"}), Names(discovery));
  ASSERT_EQ(2u, discovery.orphans.size());
  EXPECT_EQ(ProjectBrain("aa"), discovery.orphans[0].runtime_dir);
  EXPECT_EQ("", discovery.orphans[0].served_runtime_dir);
  EXPECT_EQ(ProjectBrain("bb"), discovery.orphans[1].runtime_dir);

  WriteInstance("proj.json", InstanceJson("proj", ProjectBrain("aa"), Runtime(), "\"project\""));
  discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd", "vault"}), Names(discovery));
  ASSERT_EQ(1u, discovery.orphans.size());
  EXPECT_EQ(ProjectBrain("bb"), discovery.orphans[0].runtime_dir);
}

TEST(CouldBeCanonicalKeyTest, TrimmedWithoutTrailingSlash) {
  EXPECT_TRUE(CouldBeCanonicalKey("/home/u/repo"));
  EXPECT_TRUE(CouldBeCanonicalKey("relative/repo"));
  EXPECT_FALSE(CouldBeCanonicalKey("/home/u/repo/"));
  EXPECT_FALSE(CouldBeCanonicalKey("/"));
  EXPECT_FALSE(CouldBeCanonicalKey(" /home/u/repo"));
  EXPECT_FALSE(CouldBeCanonicalKey("/home/u/repo\t"));
  EXPECT_FALSE(CouldBeCanonicalKey("/home/u/repo\u3000"));  // Unicode white space
  EXPECT_FALSE(CouldBeCanonicalKey(""));
}

// More folders than discovery looks into at once (it keeps little of each batch): an
// orphan and the folder m1nd serves in different batches, and folders of every kind
// in the last one, are found as in a listing of one batch, cold and through the cache.
TEST_F(DiscoveryTest, FoldersBeyondOneBatchAreFoundAsInOne) {
  WriteOwner();
  WriteFoldersOfEveryKind();  // named "f…" and "lf…": after every folder below
  const Discovery few = DiscoverBrains(RegistryConfig(Registry()), {});
  constexpr int kBrains = 2300;  // over two batches before the folders of every kind
  auto hex_of = [](int i) {
    char hex[8];
    std::snprintf(hex, sizeof(hex), "%04x", i);
    return std::string(hex);
  };
  // Named "q…": no name of the folders of every kind ("p…") changes.
  for (int i = 0; i < kBrains; ++i) WriteProjectBrain(hex_of(i), "/home/u/q" + std::to_string(i));
  // A third batch's folder claims a first batch's root, with the newer store: served.
  WriteProjectBrain(hex_of(kBrains + 3), "/home/u/q5");
  SetOld(ProjectBrain(hex_of(5)) + "/system_blocks.json");

  DiscoveryCache cache;
  for (const char* walk : {"cold", "warm"}) {
    SCOPED_TRACE(walk);
    const Discovery many =
        DiscoverBrains(RegistryConfig(Registry()), {}, nullptr, Parallelism(), &cache);
    EXPECT_EQ(few.brains.size() + kBrains, many.brains.size());
    EXPECT_EQ(Describe(few.problems), Describe(many.problems));
    ASSERT_EQ(few.orphans.size() + 1, many.orphans.size());
    const OrphanedFolder& orphan = many.orphans[0];  // sorted: "0005" comes first
    EXPECT_EQ(ProjectBrain(hex_of(5)), orphan.runtime_dir);
    EXPECT_EQ("/home/u/q5", orphan.project_root);
    EXPECT_EQ(ProjectBrain(hex_of(kBrains + 3)), orphan.served_runtime_dir);
    for (const Brain& brain : few.brains) {
      const Brain* same = Find(many, brain.name);
      ASSERT_NE(nullptr, same) << brain.name;
      EXPECT_EQ(brain.runtime_dir, same->runtime_dir);
      EXPECT_EQ(brain.project_root, same->project_root);
      EXPECT_EQ(brain.identity_source, same->identity_source);
      EXPECT_EQ(brain.m1nd_name, same->m1nd_name);
    }
    const Brain* q7 = Find(many, "q7");
    ASSERT_NE(nullptr, q7);
    EXPECT_EQ(ProjectBrain(hex_of(7)), q7->runtime_dir);
    EXPECT_EQ("/home/u/q7", q7->project_root);
    EXPECT_EQ("q7", q7->m1nd_name);
    EXPECT_EQ(IdentitySource::kManifest, q7->identity_source);
  }
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
    options.read_file = reads_.Reader();
    options.now_ns = [this] { return now_ns_; };
    return options;
  }

  Discovery Discover(DiscoveryCache* cache, const std::vector<Brain>& previous = {},
                     const Parallelism& parallelism = Parallelism{1, 1}) {
    reads_.Clear();
    return DiscoverBrains(RegistryConfig(Registry()), previous, nullptr, parallelism, cache);
  }

  // How often the last Discover opened `path`.
  int Reads(const std::string& path) { return reads_.Of(path); }
  std::map<std::string, int> AllReads() { return reads_.All(); }

  std::string Manifest(const std::string& hex) const {
    return ProjectBrain(hex) + "/project_brain.json";
  }

  // Long after every file of the test changed: their stamps are settled.
  std::int64_t now_ns_ = RealtimeNs() + std::int64_t{3600} * 1000000000;
  testing::CountedReads reads_;
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
  EXPECT_EQ("/home/u/vault", Find(mended, "keyvault")->project_root);  // its label kept
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
  now_ns_ = RealtimeNs();                                 // as just written
  const Discovery torn = Discover(&cache, other.brains);
  EXPECT_EQ(1, Reads(ingest_roots));
  EXPECT_EQ((std::vector<std::string>{"other"}), Names(torn));
  // Settled, it is what m1nd reads: an empty list (rule 4 names the brain), and it
  // is read no more.
  now_ns_ += 2 * kStampSettleNs;
  const Discovery settled = Discover(&cache, torn.brains);
  EXPECT_EQ(1, Reads(ingest_roots));
  ASSERT_EQ(1u, settled.brains.size());
  EXPECT_EQ(IdentitySource::kSidecarWorkspace, settled.brains[0].identity_source);
  const Discovery still = Discover(&cache, settled.brains);
  EXPECT_EQ(0, Reads(ingest_roots));
  SetOld(ingest_roots);
  ExpectSameDiscovery(DiscoverBrains(RegistryConfig(Registry()), settled.brains), still);

  WriteInstance("owner.json", Entry{tmp_.Join("src/side"), Runtime(), "\"project\""}.Json());
  EXPECT_TRUE(Discover(&cache).brains.empty());  // a project entry now: no manifest there
  EXPECT_EQ(1, Reads(instance));
}

// Most project brains have no ingest_roots.json of their own: a warm discovery does
// not look for it again in a folder unchanged since it was found missing there, and
// does as soon as a file is made in the folder.
TEST_F(CachedDiscoveryTest, MissingIngestRootsAreNotLookedForInAnUnchangedFolder) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  const std::string ingest_roots = ProjectBrain("aa") + "/ingest_roots.json";
  DiscoveryCache cache(CountingOptions());
  Discover(&cache);
  EXPECT_EQ(0, Reads(ingest_roots));  // a stat from the listed folder says it is missing
  Discover(&cache);
  EXPECT_EQ(0, Reads(ingest_roots));
  const std::string repo = tmp_.Join("src/Key-Vault");
  MakeDirs(repo);
  WriteFile(ingest_roots, "[\"" + repo + "\"]");
  const Discovery named = Discover(&cache);
  EXPECT_EQ(1, Reads(ingest_roots));
  ASSERT_EQ((std::vector<std::string>{"key_vault", "m1nd"}), Names(named));
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

// A file time past the clock is in the future, never "just written": it would stay
// so for as long as the clock is behind it.
TEST(StampCacheTest, AFileTimeInTheFutureIsNotRecent) {
  const std::int64_t now = 10 * kStampSettleNs;
  EXPECT_TRUE(FileTimeIsRecent(now, now));
  EXPECT_TRUE(FileTimeIsRecent(now - kStampSettleNs + 1, now));
  EXPECT_FALSE(FileTimeIsRecent(now - kStampSettleNs, now));
  EXPECT_FALSE(FileTimeIsInFuture(now, now));
  EXPECT_TRUE(FileTimeIsInFuture(now + 1, now));
  EXPECT_FALSE(FileTimeIsRecent(now + 1, now));
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

TEST(BrainSourceNameTest, NamesEverySource) {
  EXPECT_STREQ("static", BrainSourceName(BrainSource::kStatic));
  EXPECT_STREQ("registry_owner", BrainSourceName(BrainSource::kRegistryOwner));
  EXPECT_STREQ("registry_project", BrainSourceName(BrainSource::kRegistryProject));
  EXPECT_STREQ("glob", BrainSourceName(BrainSource::kGlob));
}

}  // namespace
}  // namespace scx
