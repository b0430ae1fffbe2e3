// Tests for the stamps ReadStore and StatStore give, and for ReadStore's hygiene.
#include "engine/store_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/store_reader_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::ReadBounded;
using testing::ReadStoreTest;
using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::WriteFile;

TEST_F(ReadStoreTest, StampChangesWithEveryRenameAndOnlyThen) {
  WriteFile(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult first = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, first.error);
  const StoreReadResult again = ReadBounded(StorePath());
  EXPECT_EQ(first.stamp, again.stamp);

  FileStamp stat_stamp;
  std::string message;
  ASSERT_EQ(StoreError::kNone, StatStore(StorePath(), &stat_stamp, &message)) << message;
  EXPECT_EQ(first.stamp, stat_stamp);

  // Same content, same size: only the inode tells the replacement apart.
  ReplaceFileAtomically(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult replaced = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, replaced.error);
  EXPECT_NE(first.stamp.inode, replaced.stamp.inode);
  EXPECT_NE(first.stamp, replaced.stamp);
}

TEST_F(ReadStoreTest, StampSeesARewriteInPlaceWithItsMtimeSetBack) {
  WriteFile(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult first = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, first.error);
  struct stat before;
  ASSERT_EQ(0, stat(StorePath().c_str(), &before));
  // Same inode, same size, mtime restored: only ctime moved.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(StorePath(), StoreJson("sk_other", {"sb_1"}, 1));
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(0, utimensat(AT_FDCWD, StorePath().c_str(), times, 0));
  FileStamp now;
  std::string message;
  ASSERT_EQ(StoreError::kNone, StatStore(StorePath(), &now, &message)) << message;
  EXPECT_EQ(first.stamp.inode, now.inode);
  EXPECT_EQ(first.stamp.size, now.size);
  EXPECT_EQ(first.stamp.mtime_ns, now.mtime_ns);
  EXPECT_NE(first.stamp, now);
}

TEST_F(ReadStoreTest, DoesNotTouchTheFilesMtime) {
  WriteFile(StorePath(), StoreJson("sk_mtime", {"sb_1"}, 1));
  struct stat before;
  ASSERT_EQ(0, stat(StorePath().c_str(), &before));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(StoreError::kNone, ReadBounded(StorePath()).error);
  struct stat after;
  ASSERT_EQ(0, stat(StorePath().c_str(), &after));
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(before.st_ctim.tv_sec, after.st_ctim.tv_sec);
  EXPECT_EQ(before.st_ctim.tv_nsec, after.st_ctim.tv_nsec);
  EXPECT_EQ(before.st_size, after.st_size);
}

TEST_F(ReadStoreTest, LeavesNoDescriptorOpen) {
  const std::string good = dir_.Join("good/system_blocks.json");
  const std::string torn = dir_.Join("torn/system_blocks.json");
  const std::string big = dir_.Join("big/system_blocks.json");
  const std::string fifo = dir_.Join("fifo.json");
  WriteFile(good, StoreJson("sk_fd", {"sb_1"}, 1));
  WriteFile(torn, "{\"schema\": ");
  WriteFile(big, StoreJson("sk_fd", {"sb_1", "sb_2"}, 1));
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  StoreReaderOptions small;
  small.max_bytes = 10;

  const std::size_t before = testing::OpenDescriptorCount();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(StoreError::kNone, ReadStore(good, {}).error);
    EXPECT_EQ(StoreError::kParse, ReadStore(torn, {}).error);
    EXPECT_EQ(StoreError::kTooLarge, ReadStore(big, small).error);
    EXPECT_EQ(StoreError::kNotRegular, ReadBounded(fifo).error);
    EXPECT_EQ(StoreError::kNotRegular, ReadStore(dir_.path(), {}).error);
    EXPECT_EQ(StoreError::kAbsent, ReadStore(dir_.Join("none.json"), {}).error);
  }
  EXPECT_EQ(before, testing::OpenDescriptorCount());
}

}  // namespace
}  // namespace scx
