// The lock on a state folder (base/folder_lock.h): one holder at a time, free again
// when the holder goes, never taken through a link.
#include "base/folder_lock.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;

TEST(FolderLockTest, OneHolderAtATime) {
  testing::TempDir dir;
  std::string error;
  bool busy = false;
  std::unique_ptr<FolderLock> first =
      FolderLock::Acquire(dir.path(), milliseconds(0), &busy, &error);
  ASSERT_NE(first, nullptr) << error;
  EXPECT_EQ(FolderLock::Acquire(dir.path(), milliseconds(100), &busy, &error), nullptr);
  EXPECT_EQ(error, dir.Join("lock") + " is locked by another process");
  EXPECT_TRUE(busy);
  first.reset();
  EXPECT_NE(FolderLock::Acquire(dir.path(), milliseconds(0), &busy, &error), nullptr) << error;
}

// A restart: the new process waits for the old one to let go.
TEST(FolderLockTest, WaitsForTheHolderToGo) {
  testing::TempDir dir;
  std::string error;
  bool busy = false;
  std::unique_ptr<FolderLock> old = FolderLock::Acquire(dir.path(), milliseconds(0), &busy, &error);
  ASSERT_NE(old, nullptr) << error;
  std::thread stopping([&old] {
    std::this_thread::sleep_for(milliseconds(100));
    old.reset();
  });
  // A hang guard, not a time bound: the holder goes after 100 ms.
  EXPECT_NE(FolderLock::Acquire(dir.path(), milliseconds(30000), &busy, &error), nullptr) << error;
  stopping.join();
}

TEST(FolderLockTest, NeverThroughALink) {
  testing::TempDir dir;
  const std::string victim = dir.Join("victim");
  testing::WriteFile(victim, "keep");
  ASSERT_EQ(0, symlink(victim.c_str(), dir.Join("lock").c_str()));
  std::string error;
  bool busy = false;
  EXPECT_EQ(FolderLock::Acquire(dir.path(), milliseconds(0), &busy, &error), nullptr);
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_FALSE(busy);
  EXPECT_EQ(testing::ReadFile(victim), "keep");
}

}  // namespace
}  // namespace scx
