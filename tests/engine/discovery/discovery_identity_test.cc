// Tests for the identity discovery gives each brain: ingest roots, sidecars, m1nd's view.
#include "engine/discovery/discovery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
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
using testing::Names;
using testing::RegistryConfig;
using testing::SetOld;
using testing::StoreJson;
using testing::WriteFile;

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

TEST_F(DiscoveryTest, NameCollisionsAreResolvedAndReported) {
  WriteInstance("a.json", InstanceJson("a", "/home/u/m1nd", "/rt/a"));
  WriteInstance("b.json", InstanceJson("b", "/work/m1nd", "/rt/b"));
  Discovery discovery = DiscoverBrains(RegistryConfig(Registry()), {});
  ASSERT_EQ(2u, discovery.brains.size());
  EXPECT_EQ("m1nd", discovery.brains[0].name);
  EXPECT_EQ("/rt/a", discovery.brains[0].runtime_dir);
  EXPECT_EQ(1u, discovery.name_collisions.size());
}

}  // namespace
}  // namespace scx
