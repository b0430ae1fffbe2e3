// Atomic replacement of the exporter's own files: the new text in place, nothing left
// beside it, and a temporary name no one can steer the write through.
#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::ReadFile;
using testing::TempDir;

TEST(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNothingBeside) {
  TempDir dir;
  const std::string path = dir.Join("state.json");
  testing::WriteFile(path, "old");
  std::string error;
  ASSERT_TRUE(WriteFileAtomically(path, "new", &error)) << error;
  EXPECT_EQ("new", ReadFile(path));
  struct stat info;
  EXPECT_NE(0, lstat((path + ".tmp").c_str(), &info));
}

TEST(WriteFileAtomicallyTest, AStaleTemporaryFileIsReplaced) {
  TempDir dir;
  const std::string path = dir.Join("state.json");
  testing::WriteFile(path + ".tmp", "left by a crash mid-write, longer than the new");
  std::string error;
  ASSERT_TRUE(WriteFileAtomically(path, "new", &error)) << error;
  EXPECT_EQ("new", ReadFile(path));
}

TEST(WriteFileAtomicallyTest, ALinkPlantedAtTheTemporaryNameIsNotFollowed) {
  TempDir dir;
  const std::string path = dir.Join("state.json");
  const std::string victim = dir.Join("victim");
  testing::WriteFile(victim, "precious");
  ASSERT_EQ(0, symlink(victim.c_str(), (path + ".tmp").c_str()));
  std::string error;
  ASSERT_TRUE(WriteFileAtomically(path, "new", &error)) << error;
  EXPECT_EQ("precious", ReadFile(victim));
  EXPECT_EQ("new", ReadFile(path));
  struct stat info;
  ASSERT_EQ(0, lstat(path.c_str(), &info));
  EXPECT_TRUE(S_ISREG(info.st_mode));  // the state itself, not the link renamed over it
}

TEST(WriteFileAtomicallyTest, ADanglingLinkPlantedAtTheTemporaryNameCreatesNothingThere) {
  TempDir dir;
  const std::string path = dir.Join("state.json");
  const std::string target = dir.Join("made-through-the-link");
  ASSERT_EQ(0, symlink(target.c_str(), (path + ".tmp").c_str()));
  std::string error;
  ASSERT_TRUE(WriteFileAtomically(path, "new", &error)) << error;
  struct stat info;
  EXPECT_NE(0, lstat(target.c_str(), &info));
  EXPECT_EQ("new", ReadFile(path));
}

}  // namespace
}  // namespace scx
