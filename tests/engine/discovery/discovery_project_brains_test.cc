// Tests for discovery's project-brains folders: manifests, orphans, batches and threads.
#include "engine/discovery/discovery.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::ExpectSameDiscovery;
using testing::Find;
using testing::InstanceJson;
using testing::MakeDirs;
using testing::Names;
using testing::RegistryConfig;
using testing::SetOld;
using testing::StoreJson;
using testing::WriteFile;

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

TEST_F(DiscoveryTest, ProjectBrainsThatCannotBeListedIsAProblem) {
  WriteOwner();
  WriteFile(Runtime() + "/project-brains", "not a folder\n");
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.problems.size());
  EXPECT_STREQ("registry", DiscoveryProblemSourceName(discovery.problems[0].source));
  EXPECT_EQ(Runtime() + "/project-brains", discovery.problems[0].path);
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

}  // namespace
}  // namespace scx
