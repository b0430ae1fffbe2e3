// Tests for discovery's path rules (engine/discovery/paths.h): the pure ones on
// strings, and the two that ask the disk on a temporary folder.
#include "engine/discovery/paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <string>
#include <string_view>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::MakeDirs;
using testing::ScopedEnv;
using testing::TempDir;

TEST(DiscoveryPathsTest, RulesOnStrings) {
  EXPECT_EQ("/", StripTrailingSlashes("///"));  // a lone "/" stays
  EXPECT_EQ("/a/b", JoinPath("/a/", "b"));      // one '/' between
  EXPECT_EQ("/a/b", DirKey("/a/./x/../b/"));    // lexically normal
  // A registry's relative paths are read from the registry folder.
  EXPECT_EQ("/srv/rt", ResolveInRegistry("/srv/registry", "../rt"));
  EXPECT_EQ("/srv/rt", ResolveInRegistry("/srv/registry", "/srv/rt/"));
}

TEST(DiscoveryPathsTest, RootKeyViewComparesRootsLexically) {
  std::deque<std::string> normalized;
  const std::string plain = "/home/u/keyvault/";
  const std::string_view view = RootKeyView(plain, &normalized);
  EXPECT_EQ("/home/u/keyvault", view);
  EXPECT_EQ(plain.data(), view.data());  // a view into the root itself
  EXPECT_TRUE(normalized.empty());

  EXPECT_EQ("/home/u/keyvault", RootKeyView("/home/u/./x/../keyvault", &normalized));
  EXPECT_EQ("/home/u/keyvault", RootKeyView("/home//u/keyvault", &normalized));
  EXPECT_EQ(2u, normalized.size());
}

TEST(DiscoveryPathsTest, RuntimeKeyAgreesForAliasesOfOneFolder) {
  TempDir dir;
  MakeDirs(dir.Join("rt/project-brains"));
  ASSERT_EQ(0, symlink(dir.Join("rt").c_str(), dir.Join("alias").c_str()));

  EXPECT_EQ(RuntimeKey(dir.Join("rt")), RuntimeKey(dir.Join("alias")));
  EXPECT_EQ(RuntimeKey(dir.Join("rt")), RuntimeKey(dir.Join("rt/project-brains/..")));
  struct stat info;
  ASSERT_EQ(0, stat(dir.Join("rt").c_str(), &info));
  EXPECT_EQ(InodeKey(info), RuntimeKey(dir.Join("rt")));
  EXPECT_EQ(RealDir(dir.Join("rt")), RealDir(dir.Join("alias/")));

  // A folder not there yet is known by its lexically normal path.
  EXPECT_EQ("path " + dir.Join("later"), RuntimeKey(dir.Join("x/../later/")));
  EXPECT_EQ(dir.Join("later"), RealDir(dir.Join("x/../later/")));
}

TEST(ExpandHomeTest, ExpandsALeadingTilde) {
  ScopedEnv home("HOME", "/home/dev");
  EXPECT_EQ("/home/dev", ExpandHome("~"));
  EXPECT_EQ("/home/dev/", ExpandHome("~/"));
  EXPECT_EQ("/home/dev/.m1nd/registry", ExpandHome("~/.m1nd/registry"));
}

TEST(ExpandHomeTest, LeavesOtherPathsAlone) {
  ScopedEnv home("HOME", "/home/dev");
  EXPECT_EQ("", ExpandHome(""));
  EXPECT_EQ("/abs/~/x", ExpandHome("/abs/~/x"));
  EXPECT_EQ("rel/x", ExpandHome("rel/x"));
  EXPECT_EQ("~alice/x", ExpandHome("~alice/x"));
  EXPECT_EQ("~alice", ExpandHome("~alice"));
}

TEST(ExpandHomeTest, HandlesOddHomes) {
  {
    ScopedEnv home("HOME", "/home/dev/");
    EXPECT_EQ("/home/dev/x", ExpandHome("~/x"));
  }
  {
    ScopedEnv home("HOME", "/");
    EXPECT_EQ("/x", ExpandHome("~/x"));
    EXPECT_EQ("/", ExpandHome("~"));
  }
  {
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ("~/x", ExpandHome("~/x"));
  }
  {
    ScopedEnv home("HOME", "");
    EXPECT_EQ("~/x", ExpandHome("~/x"));
  }
}

}  // namespace
}  // namespace scx
