// Tests for m1nd's project_root_display() rule (no disk: directories are a set).
#include "engine/owner_identity.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace scx {
namespace {

// `is_directory` over a fixed set of paths.
OwnerIdentity Resolve(const std::vector<std::string>& roots, const std::string& workspace,
                      const std::set<std::string>& directories) {
  return ResolveOwnerIdentity(
      roots, workspace, [&](const std::string& path) { return directories.count(path) != 0; });
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

TEST(ParseIngestRootsTest, AJsonArrayOfPathStrings) {
  std::vector<std::string> roots;
  std::string error;
  ASSERT_TRUE(ParseIngestRoots(R"(["/home/u/m1nd", "/home/u/x.light.md"])", &roots, &error));
  EXPECT_EQ((std::vector<std::string>{"/home/u/m1nd", "/home/u/x.light.md"}), roots);
  ASSERT_TRUE(ParseIngestRoots("[]", &roots, &error));
  EXPECT_TRUE(roots.empty());
}

TEST(ParseIngestRootsTest, AnythingElseIsAnError) {
  for (const char* text : {"", "[\"/a\"", "{\"roots\": []}", "[\"/a\", 3]", "null", "\"/a\""}) {
    std::vector<std::string> roots = {"left over"};
    std::string error;
    EXPECT_FALSE(ParseIngestRoots(text, &roots, &error)) << text;
    EXPECT_FALSE(error.empty()) << text;
    EXPECT_TRUE(roots.empty()) << text;
  }
}

TEST(IdentitySourceNameTest, NamesEverySource) {
  EXPECT_STREQ("display_name", IdentitySourceName(IdentitySource::kConfigDisplayName));
  EXPECT_STREQ("project_root", IdentitySourceName(IdentitySource::kConfigProjectRoot));
  EXPECT_STREQ("manifest", IdentitySourceName(IdentitySource::kManifest));
  EXPECT_STREQ("ingest_root", IdentitySourceName(IdentitySource::kIngestRoot));
  EXPECT_STREQ("workspace_root", IdentitySourceName(IdentitySource::kWorkspaceRoot));
  EXPECT_STREQ("first_ingest_root", IdentitySourceName(IdentitySource::kAnyIngestRoot));
  EXPECT_STREQ("sidecar_workspace_root", IdentitySourceName(IdentitySource::kSidecarWorkspace));
}

}  // namespace
}  // namespace scx
