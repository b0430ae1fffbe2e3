// Tests for m1nd's project_root_display() rule (no disk: directories are a set, and
// roots this process cannot see another).
#include "engine/discovery/owner_identity.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace scx {
namespace {

// A probe over fixed sets of paths: `directories` are directories, `unseen` cannot be
// seen, anything else is visibly not a directory.
OwnerIdentity Resolve(const std::vector<std::string>& roots, const std::string& workspace,
                      const std::set<std::string>& directories,
                      const std::set<std::string>& unseen = {},
                      IdentitySource workspace_source = IdentitySource::kWorkspaceRoot) {
  return ResolveOwnerIdentity(
      roots, workspace,
      [&](const std::string& path) {
        if (directories.count(path) != 0) return RootProbe{RootPresence::kDirectory, ""};
        if (unseen.count(path) != 0) return RootProbe{RootPresence::kUnseen, "hidden"};
        return RootProbe{RootPresence::kNotDirectory, ""};
      },
      workspace_source);
}

TEST(IsMemorySidecarTest, LightMemoryFilesAndAgentMemoryFolders) {
  EXPECT_TRUE(IsMemorySidecar("/home/u/notes.light.md"));
  EXPECT_TRUE(IsMemorySidecar("/home/u/.claude/agent-memory"));
  EXPECT_TRUE(IsMemorySidecar("/home/u/.claude/agent-memory/"));
  EXPECT_TRUE(IsMemorySidecar("agent-memory"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/m1nd"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/agent-memory-tools"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/agent-memory/m1nd"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/light.md.d"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/.claude"));
  EXPECT_FALSE(IsMemorySidecar(""));
}

// m1nd's is_memory_sidecar() compares exactly: `ends_with(".light.md")` on the path
// string and `file_name() == "agent-memory"`. Case counts, and so does every byte.
TEST(IsMemorySidecarTest, ExactAndCaseSensitive) {
  EXPECT_FALSE(IsMemorySidecar("/home/u/Agent-Memory"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/AGENT-MEMORY"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/agent-memory-tools"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/agent-memory.d"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/agent_memory"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/.agent-memory"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/notes.LIGHT.md"));
  EXPECT_FALSE(IsMemorySidecar("/home/u/notes.light.MD"));
  // The suffix is a string test: a trailing slash defeats it, not file_name().
  EXPECT_FALSE(IsMemorySidecar("/home/u/notes.light.md/"));
  EXPECT_TRUE(IsMemorySidecar("/home/u/.light.md"));
  EXPECT_TRUE(IsMemorySidecar("/home/u/x.light.md"));
}

// Rust's Path::file_name() ignores a trailing "/." and repeated slashes.
TEST(IsMemorySidecarTest, LastNormalComponentAsRustSeesIt) {
  EXPECT_TRUE(IsMemorySidecar("/x/agent-memory/."));
  EXPECT_TRUE(IsMemorySidecar("/x/agent-memory/./"));
  EXPECT_TRUE(IsMemorySidecar("/x/agent-memory//"));
  EXPECT_TRUE(IsMemorySidecar("/x/./agent-memory"));
  EXPECT_FALSE(IsMemorySidecar("/x/agent-memory/.."));
  EXPECT_FALSE(IsMemorySidecar("/x/agent-memory/sub/.."));
}

TEST(ResolveOwnerIdentityTest, ASidecarWrittenWithATrailingDotIsSkipped) {
  const OwnerIdentity identity = Resolve({"/x/agent-memory/.", "/home/u/m1nd"}, "/x/agent-memory/.",
                                         {"/x/agent-memory/.", "/home/u/m1nd"});
  EXPECT_EQ("/home/u/m1nd", identity.root);
}

TEST(ResolveOwnerIdentityTest, AnUnseenIngestRootLeavesTheIdentityUndecided) {
  // m1nd may see /home/u/m1nd (rule 1: "m1nd"); if it does not, rule 2 names the
  // brain "m1nd_rt". The exporter cannot tell which.
  const OwnerIdentity identity = Resolve({"/home/u/m1nd"}, "/var/m1nd-rt", {}, {"/home/u/m1nd"});
  EXPECT_EQ(IdentitySource::kUnknown, identity.source);
  EXPECT_EQ("", identity.root);
  EXPECT_NE(std::string::npos, identity.undecided_because.find("/home/u/m1nd"));
  EXPECT_NE(std::string::npos, identity.undecided_because.find("hidden"));
}

TEST(ResolveOwnerIdentityTest, AnUnseenRootBeforeARealOneStillLeavesItUndecided) {
  const OwnerIdentity identity =
      Resolve({"/home/u/hidden", "/srv/m1nd"}, "/var/rt", {"/srv/m1nd"}, {"/home/u/hidden"});
  EXPECT_EQ(IdentitySource::kUnknown, identity.source);
}

TEST(ResolveOwnerIdentityTest, UnseenRootsThatLeadToTheSameSlugDecideIt) {
  // Bound to the repo: whether or not m1nd sees it, the brain is "m1nd".
  OwnerIdentity identity = Resolve({"/home/u/m1nd"}, "/home/u/m1nd", {}, {"/home/u/m1nd"});
  EXPECT_EQ("/home/u/m1nd", identity.root);
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, identity.source);
  // Rule 3 would give the same root: decided too.
  identity = Resolve({"/home/dev/m1nd"}, "/home/u/.claude/agent-memory", {}, {"/home/dev/m1nd"});
  EXPECT_EQ("/home/dev/m1nd", identity.root);
  // The same slug from another spelling (My-Repo and my_repo).
  identity = Resolve({"/home/u/My-Repo"}, "/srv/my_repo", {}, {"/home/u/My-Repo"});
  EXPECT_EQ("/srv/my_repo", identity.root);
}

TEST(ResolveOwnerIdentityTest, UnseenRootsAfterTheAnswerDoNotMatter) {
  const OwnerIdentity identity =
      Resolve({"/srv/m1nd", "/home/u/hidden"}, "/var/rt", {"/srv/m1nd"}, {"/home/u/hidden"});
  EXPECT_EQ("/srv/m1nd", identity.root);
  EXPECT_EQ(IdentitySource::kIngestRoot, identity.source);
  // Nor do unseen sidecars, which rule 1 never picks.
  EXPECT_EQ(IdentitySource::kWorkspaceRoot,
            Resolve({"/h/agent-memory"}, "/srv/m1nd", {}, {"/h/agent-memory"}).source);
}

TEST(ResolveOwnerIdentityTest, AProjectBrainsRule2IsItsManifestRoot) {
  const OwnerIdentity identity =
      Resolve({"/gone"}, "/home/u/keyvault", {}, {}, IdentitySource::kManifest);
  EXPECT_EQ("/home/u/keyvault", identity.root);
  EXPECT_EQ(IdentitySource::kManifest, identity.source);
  // Its own ingest roots come first.
  EXPECT_EQ(
      "/srv/kv",
      Resolve({"/srv/kv"}, "/home/u/keyvault", {"/srv/kv"}, {}, IdentitySource::kManifest).root);
}

TEST(ResolveOwnerIdentityTest, Rule1FirstIngestRootThatIsARealDirectoryAndNoSidecar) {
  const OwnerIdentity identity =
      Resolve({"/gone", "/home/u/a.light.md", "/home/u/agent-memory", "/home/u/m1nd", "/home/u/x"},
              "/home/u/ws", {"/home/u/agent-memory", "/home/u/m1nd", "/home/u/x"});
  EXPECT_EQ("/home/u/m1nd", identity.root);
  EXPECT_EQ(IdentitySource::kIngestRoot, identity.source);
}

TEST(ResolveOwnerIdentityTest, Rule2WorkspaceRootUnlessASidecar) {
  const OwnerIdentity identity = Resolve({"/gone"}, "/home/u/.claude", {});
  EXPECT_EQ("/home/u/.claude", identity.root);
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, identity.source);
  EXPECT_EQ(IdentitySource::kWorkspaceRoot, Resolve({}, "/home/u/m1nd", {}).source);
}

TEST(ResolveOwnerIdentityTest, Rule3FirstIngestRootOfAnyKind) {
  const OwnerIdentity identity =
      Resolve({"/home/dev/m1nd", "/home/u/x.light.md"}, "/home/u/.claude/agent-memory", {});
  EXPECT_EQ("/home/dev/m1nd", identity.root);
  EXPECT_EQ(IdentitySource::kAnyIngestRoot, identity.source);
  // Even a sidecar, when it comes first.
  EXPECT_EQ("/home/u/x.light.md", Resolve({"/home/u/x.light.md"}, "/home/u/agent-memory", {}).root);
}

TEST(ResolveOwnerIdentityTest, Rule4SidecarWorkspaceRootAsALastResort) {
  const OwnerIdentity identity = Resolve({}, "/home/u/.claude/agent-memory", {});
  EXPECT_EQ("/home/u/.claude/agent-memory", identity.root);
  EXPECT_EQ(IdentitySource::kSidecarWorkspace, identity.source);
}

TEST(IdentitySourceNameTest, NamesEverySource) {
  EXPECT_STREQ("display_name", IdentitySourceName(IdentitySource::kConfigDisplayName));
  EXPECT_STREQ("project_root", IdentitySourceName(IdentitySource::kConfigProjectRoot));
  EXPECT_STREQ("manifest", IdentitySourceName(IdentitySource::kManifest));
  EXPECT_STREQ("ingest_root", IdentitySourceName(IdentitySource::kIngestRoot));
  EXPECT_STREQ("workspace_root", IdentitySourceName(IdentitySource::kWorkspaceRoot));
  EXPECT_STREQ("first_ingest_root", IdentitySourceName(IdentitySource::kAnyIngestRoot));
  EXPECT_STREQ("sidecar_workspace_root", IdentitySourceName(IdentitySource::kSidecarWorkspace));
  EXPECT_STREQ("unknown", IdentitySourceName(IdentitySource::kUnknown));
}

}  // namespace
}  // namespace scx
