// --storage.path against the folders the exporter watches: a registry, a static
// brain's runtime dir, a project-brain folder found through a registry, a glob match,
// reached directly, through a symlink, a ".." or a folder not made yet.
#include "exporter/storage_path_check.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::TempDir;

class StoragePathCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = dir_.Join("rt");
    testing::MakeDirs(runtime_);
    registry_ = dir_.Join("registry");
    owner_ = dir_.Join("owner-rt");
    project_ = owner_ + "/project-brains/0a1b2c";
    testing::WriteFile(project_ + "/project_brain.json", testing::ManifestJson("/home/u/shop"));
    testing::WriteFile(registry_ + "/instances/a.json",
                       testing::InstanceJson("a", "/home/u/m1nd", owner_));
    config_.registries = {registry_};
    config_.static_brains.push_back({"static", "/home/u/static", "", runtime_});
  }

  std::string Conflict(const std::string& storage_path) {
    return StoragePathConflict(storage_path, WatchedFolders(config_));
  }

  TempDir dir_;
  std::string runtime_;
  std::string registry_;
  std::string owner_;
  std::string project_;
  DiscoveryConfig config_;
};

TEST_F(StoragePathCheckTest, AFolderBesideEveryBrainIsTaken) {
  EXPECT_EQ("", Conflict(dir_.Join("state")));
  EXPECT_EQ("", Conflict(dir_.path()));  // the brains are inside it, not it in them
}

TEST_F(StoragePathCheckTest, AStaticRuntimeDirAndAnythingInsideItAreRefused) {
  const std::string line = Conflict(runtime_);
  EXPECT_NE(std::string::npos, line.find("--storage.path " + runtime_ +
                                         " is in the runtime dir "
                                         "of brain static (" +
                                         runtime_ + ")"))
      << line;
  EXPECT_NE("", Conflict(runtime_ + "/"));
  EXPECT_NE("", Conflict(runtime_ + "/state"));  // not made yet
  EXPECT_NE("", Conflict(runtime_ + "/a/b/state"));
}

TEST_F(StoragePathCheckTest, AFolderWhoseNameOnlyStartsLikeABrainsIsTaken) {
  EXPECT_EQ("", Conflict(runtime_ + "2"));
  EXPECT_EQ("", Conflict(runtime_ + "-state/x"));
}

TEST_F(StoragePathCheckTest, TheRegistryAndItsInstancesFolderAreRefused) {
  EXPECT_NE(std::string::npos, Conflict(registry_).find("is in the m1nd registry"));
  EXPECT_NE(std::string::npos, Conflict(registry_ + "/instances").find("is in the m1nd registry"));
}

TEST_F(StoragePathCheckTest, AProjectBrainFolderFoundThroughARegistryIsRefused) {
  const std::string line = Conflict(project_ + "/state");
  EXPECT_NE(std::string::npos, line.find("is in the project-brain folder of brain shop")) << line;
  // The folder named is the innermost: the project brain's, not its owner's.
  EXPECT_NE(std::string::npos, Conflict(owner_).find("the runtime dir of brain m1nd"));
}

TEST_F(StoragePathCheckTest, AGlobMatchIsRefused) {
  const std::string matched = dir_.Join("fleet/one");
  testing::WriteFile(matched + "/project_brain.json", testing::ManifestJson("/home/u/one"));
  EXPECT_EQ("", Conflict(matched + "/state"));
  config_.runtime_globs = {dir_.Join("fleet/*")};
  EXPECT_NE("", Conflict(matched + "/state"));
}

TEST_F(StoragePathCheckTest, ASymlinkOrADotDotToABrainIsThatBrain) {
  ASSERT_EQ(0, symlink(runtime_.c_str(), dir_.Join("alias").c_str()));
  EXPECT_NE("", Conflict(dir_.Join("alias/state")));
  EXPECT_NE("", Conflict(dir_.Join("state/../rt/state")));
  EXPECT_NE("", Conflict(dir_.Join("missing/../registry/x")));  // where mkdir -p would make it
}

TEST_F(StoragePathCheckTest, ARelativePathIsReadFromTheWorkingFolder) {
  char cwd[4096];
  ASSERT_NE(nullptr, getcwd(cwd, sizeof cwd));
  ASSERT_EQ(0, chdir(dir_.path().c_str()));
  const std::string inside = Conflict("rt/state");
  const std::string beside = Conflict("state");
  ASSERT_EQ(0, chdir(cwd));
  EXPECT_NE("", inside);
  EXPECT_EQ("", beside);
}

TEST_F(StoragePathCheckTest, NoStoragePathIsNoProblem) {
  std::string error = "unchanged";
  EXPECT_TRUE(CheckStoragePath("", config_, &error));
  EXPECT_TRUE(CheckStoragePath(dir_.Join("state"), config_, &error));
  EXPECT_EQ("", error);
  EXPECT_FALSE(CheckStoragePath(runtime_ + "/state", config_, &error));
  EXPECT_NE("", error);
}

}  // namespace
}  // namespace scx
