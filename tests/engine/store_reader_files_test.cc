// Tests for ReadStore on real files of every kind, each error kind, bounded waits.
#include "engine/store_reader.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/engine/store_reader_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Digest;
using testing::Parse;
using testing::ReadBounded;
using testing::ReadStoreTest;
using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::WriteFile;

TEST_F(ReadStoreTest, ReadsAGoodStore) {
  WriteFile(StorePath(), StoreJson("sk_file", {"sb_1", "sb_2"}, 5));
  const StoreReadResult result = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_TRUE(result.message.empty());
  EXPECT_EQ(5u, result.contents.store_version);
  EXPECT_EQ(2, result.contents.block_count);
  EXPECT_EQ(Digest("sk_file", {"sb_1", "sb_2"}), result.contents.digest);
  struct stat st;
  ASSERT_EQ(0, stat(StorePath().c_str(), &st));
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_ino), result.stamp.inode);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_dev), result.stamp.device);
  EXPECT_EQ(static_cast<std::int64_t>(st.st_size), result.stamp.size);
  EXPECT_EQ(static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
            result.stamp.mtime_ns);
}

TEST_F(ReadStoreTest, ReadsLargeAndSmallStoresInTurn) {
  // The thread's buffer and parser grow for a store past 1 MiB and stay grown until
  // ReleaseStoreReaderMemory gives them back: reads must work before and after both.
  std::vector<std::string> many;
  many.reserve(5000);
  for (int i = 0; i < 5000; ++i) many.push_back("sb_block_" + std::to_string(i));
  const std::string big = StoreJson("sk_big", many, 3);
  ASSERT_GT(big.size(), std::size_t{1} << 20);
  WriteFile(dir_.Join("big.json"), big);
  WriteFile(StorePath(), StoreJson("sk_small", {"sb_1"}, 4));
  for (int round = 0; round < 2; ++round) {
    StoreReadResult result = ReadBounded(StorePath());
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_small", {"sb_1"}), result.contents.digest);
    EXPECT_EQ(1, result.contents.block_count);
    result = ReadBounded(dir_.Join("big.json"));
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_big", many), result.contents.digest);
    EXPECT_EQ(5000, result.contents.block_count);
    result = ReadBounded(StorePath());
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_small", {"sb_1"}), result.contents.digest);
    if (round == 0) ReleaseStoreReaderMemory();
  }
  ReleaseStoreReaderMemory();
  ReleaseStoreReaderMemory();  // nothing left to give back
  StoreContents contents;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone, Parse(big, &contents, nullptr, &ids));
  EXPECT_EQ(many, ids);
}

TEST_F(ReadStoreTest, FollowsASymlinkToARegularFile) {
  WriteFile(dir_.Join("real.json"), StoreJson("sk_link", {"sb_1"}, 1));
  ASSERT_EQ(0, symlink(dir_.Join("real.json").c_str(), StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_EQ("sk_link", result.contents.digest.skeleton_id);
}

TEST_F(ReadStoreTest, MissingFileIsAbsent) {
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kAbsent, result.error);
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kAbsent, StatStore(StorePath(), &stamp, &message));
}

TEST_F(ReadStoreTest, FifoIsNotRegularAndDoesNotBlock) {
  ASSERT_EQ(0, mkfifo(StorePath().c_str(), 0600)) << std::strerror(errno);
  const auto start = std::chrono::steady_clock::now();
  const StoreReadResult result = ReadBounded(StorePath());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
  EXPECT_LT(elapsed, std::chrono::seconds(10));  // a hang guard: an open() that waits never ends
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kNotRegular, StatStore(StorePath(), &stamp, &message));
}

TEST_F(ReadStoreTest, DirectoryIsNotRegular) {
  testing::MakeDirs(StorePath());
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
  EXPECT_NE(0u, result.stamp.inode);  // stat'ed, so stamped
}

TEST_F(ReadStoreTest, DeviceIsNotRegular) {
  ASSERT_EQ(0, symlink("/dev/null", StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

TEST_F(ReadStoreTest, SocketIsNotRegular) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = StorePath();
  if (path.size() >= sizeof(address.sun_path)) {
    close(fd);
    GTEST_SKIP() << "temporary path too long for a unix socket: " << path;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(0, bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)))
      << std::strerror(errno);
  const StoreReadResult result = ReadBounded(path);
  close(fd);
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

// m1nd opens the store and gets NotFound from a link to nothing: "no skeleton yet".
TEST_F(ReadStoreTest, DanglingSymlinkIsAbsent) {
  ASSERT_EQ(0, symlink(dir_.Join("nowhere.json").c_str(), StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kAbsent, result.error) << result.message;
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kAbsent, StatStore(StorePath(), &stamp, &message));
  // A chain of links ending nowhere too; the same link to a store is read.
  ASSERT_EQ(0, symlink(StorePath().c_str(), dir_.Join("outer.json").c_str()));
  EXPECT_EQ(StoreError::kAbsent, ReadBounded(dir_.Join("outer.json")).error);
  WriteFile(dir_.Join("nowhere.json"), StoreJson("sk_link", {"sb_1"}, 1));
  EXPECT_EQ(StoreError::kNone, ReadBounded(StorePath()).error);
}

// A store with every field m1nd knows, read through the file path: ok.
TEST_F(ReadStoreTest, ReadsAStoreWithEveryFieldM1ndKnows) {
  WriteFile(StorePath(), testing::RichStore());
  const StoreReadResult result = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_EQ(3, result.contents.block_count);
}

TEST_F(ReadStoreTest, SymlinkLoopIsNotRegular) {
  ASSERT_EQ(0, symlink(dir_.Join("loop_b").c_str(), StorePath().c_str()));
  ASSERT_EQ(0, symlink(StorePath().c_str(), dir_.Join("loop_b").c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

TEST_F(ReadStoreTest, LargerThanTheCapIsTooLarge) {
  const std::string json = StoreJson("sk_big", {"sb_1", "sb_2", "sb_3"}, 1);
  WriteFile(StorePath(), json);
  StoreReaderOptions options;
  options.max_bytes = static_cast<std::int64_t>(json.size()) - 1;
  StoreReadResult result = ReadBounded(StorePath(), options);
  EXPECT_EQ(StoreError::kTooLarge, result.error) << result.message;
  EXPECT_EQ(static_cast<std::int64_t>(json.size()), result.stamp.size);
  options.max_bytes = static_cast<std::int64_t>(json.size());  // exactly at the cap
  result = ReadBounded(StorePath(), options);
  EXPECT_EQ(StoreError::kNone, result.error) << result.message;
}

TEST_F(ReadStoreTest, GrowingPastTheCapWhileReadingIsTooLarge) {
  // Files in /proc are regular with st_size 0 but have content: the read sees growth.
  const std::string path = "/proc/self/status";
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
    GTEST_SKIP() << path << " is not a zero-sized regular file here";
  }
  StoreReaderOptions options;
  options.max_bytes = 16;
  EXPECT_EQ(StoreError::kTooLarge, ReadBounded(path, options).error);
  options.max_bytes = 1 << 20;
  EXPECT_EQ(StoreError::kParse, ReadBounded(path, options).error);  // read whole, not JSON
}

TEST_F(ReadStoreTest, TornAndGarbledFilesAreParseErrors) {
  const std::string full = StoreJson("sk_torn", {"sb_1", "sb_2", "sb_3"}, 2);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, full.size() / 3, full.size() / 2,
                          full.size() - 3, full.size() - 2}) {
    ReplaceFileAtomically(StorePath(), full.substr(0, cut));
    const StoreReadResult result = ReadBounded(StorePath());
    EXPECT_EQ(StoreError::kParse, result.error) << "cut at " << cut;
    EXPECT_NE(std::string::npos, result.message.find(StorePath())) << result.message;
  }
  ReplaceFileAtomically(StorePath(),
                        "\x7f"
                        "ELF\x02\x01\x01 not json at all");
  EXPECT_EQ(StoreError::kParse, ReadBounded(StorePath()).error);
}

TEST_F(ReadStoreTest, WrongShapeIsASchemaError) {
  WriteFile(StorePath(), R"({"schema": "something-else", "blocks": []})");
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kSchema, result.error);
  EXPECT_NE(std::string::npos, result.message.find("something-else")) << result.message;
}

TEST_F(ReadStoreTest, UnreadableFileIsAnIoError) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "running as root: mode 000 does not prevent reading";
  }
  WriteFile(StorePath(), StoreJson("sk_io", {"sb_1"}, 1));
  ASSERT_EQ(0, chmod(StorePath().c_str(), 0));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kIo, result.error);
  EXPECT_NE(std::string::npos, result.message.find(StorePath())) << result.message;
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(EACCES))) << result.message;
  chmod(StorePath().c_str(), 0600);
}

TEST_F(ReadStoreTest, ReadsFilesOfOtherOwnersWithoutNoatime) {
  // O_NOATIME is refused (EPERM) on files of other users; the read must retry without.
  const std::string path = "/etc/passwd";
  struct stat st;
  if (geteuid() == 0 || stat(path.c_str(), &st) != 0 || st.st_uid == geteuid() ||
      access(path.c_str(), R_OK) != 0) {
    GTEST_SKIP() << "needs a non-root user and a readable file owned by someone else";
  }
  const StoreReadResult result = ReadBounded(path);
  EXPECT_EQ(StoreError::kParse, result.error) << result.message;  // read, then not JSON
}

TEST_F(ReadStoreTest, OverlongPathIsAnIoError) {
  // Fails for root too, unlike the mode-000 case above.
  const std::string path = dir_.Join(std::string(5000, 'a'));
  const StoreReadResult result = ReadBounded(path);
  EXPECT_EQ(StoreError::kIo, result.error);
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(ENAMETOOLONG))) << result.message;
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kIo, StatStore(path, &stamp, &message));
}

// ---- Whose bytes count (issue 43): a link is read only while it stays with the owner
// of the runtime dir. Owners are simulated with chown (the tests run as root in CI).

constexpr uid_t kOwner = 200000;  // the runtime dir's owner
constexpr uid_t kOther = 200001;  // someone else

class StoreLinkTest : public ReadStoreTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "not root: owners are simulated with chown";
    testing::MakeDirs(Runtime());
    Chown(Runtime(), kOwner);
    testing::MakeDirs(dir_.Join("other"));
  }
  std::string Runtime() const { return dir_.Join("rt"); }
  std::string Store() const { return Runtime() + "/system_blocks.json"; }
  static void Chown(const std::string& path, uid_t uid) {
    ASSERT_EQ(0, lchown(path.c_str(), uid, uid)) << path << ": " << strerror(errno);
  }
  // A store of another project, readable only by its owner (root's, like the attack's).
  std::string SecretStore() {
    std::string path = dir_.Join("other/private/system_blocks.json");
    WriteFile(path, StoreJson("sk_secret_candidate", {"sb_secret_core_0123abcd"}, 9));
    EXPECT_EQ(0, chmod(dir_.Join("other/private").c_str(), 0700));
    EXPECT_EQ(0, chmod(path.c_str(), 0600));
    return path;
  }
};

// The attack: a store link to a root-only file of another project. Nothing of it is
// read: not its skeleton id, not its stamp.
TEST_F(StoreLinkTest, ALinkToAnotherOwnersFileIsNotRead) {
  ASSERT_EQ(0, symlink(SecretStore().c_str(), Store().c_str()));
  Chown(Store(), kOwner);
  const StoreReadResult result = ReadBounded(Store());
  EXPECT_EQ(StoreError::kForeignLink, result.error) << result.message;
  EXPECT_STREQ("foreign_link", StoreErrorName(result.error));
  EXPECT_EQ(std::string::npos, result.message.find("secret")) << result.message;
  EXPECT_EQ(std::string::npos, result.message.find("private")) << result.message;
  EXPECT_TRUE(result.contents.digest.skeleton_id.empty());
  EXPECT_EQ(0u, result.stamp.inode);
  // Through a chain of the owner's own links, too.
  ASSERT_EQ(0, unlink(Store().c_str()));
  ASSERT_EQ(0, symlink(SecretStore().c_str(), (Runtime() + "/hop").c_str()));
  ASSERT_EQ(0, symlink("hop", Store().c_str()));
  EXPECT_EQ(StoreError::kForeignLink, ReadBounded(Store()).error);
}

// No oracle: a link into another owner's folder says the same whether the file there
// exists or not.
TEST_F(StoreLinkTest, ALinkIntoAnotherOwnersFolderTellsNothingOfIt) {
  const std::string secret = SecretStore();
  ASSERT_EQ(0, symlink(secret.c_str(), Store().c_str()));
  const StoreReadResult there = ReadBounded(Store());
  ASSERT_EQ(0, unlink(Store().c_str()));
  ASSERT_EQ(0, symlink((secret + ".missing").c_str(), Store().c_str()));
  const StoreReadResult missing = ReadBounded(Store());
  EXPECT_EQ(StoreError::kForeignLink, there.error);
  EXPECT_EQ(there.error, missing.error);
  EXPECT_EQ(there.message, missing.message);
  ASSERT_EQ(0, unlink(Store().c_str()));
  ASSERT_EQ(0, symlink(dir_.Join("nowhere/at/all.json").c_str(), Store().c_str()));
  EXPECT_EQ(there.message, ReadBounded(Store()).message);
}

// The honest case: a link inside the owner's own files is read as the file it leads to.
TEST_F(StoreLinkTest, ALinkToTheOwnersOwnFileIsRead) {
  const std::string own = dir_.Join("other/mine/system_blocks.json");
  WriteFile(own, StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_0123abcd"}, 4));
  Chown(own, kOwner);
  ASSERT_EQ(0, symlink(own.c_str(), Store().c_str()));
  Chown(Store(), kOwner);
  const StoreReadResult result = ReadBounded(Store());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_EQ("sk_m1nd_candidate", result.contents.digest.skeleton_id);
  EXPECT_EQ(4u, result.contents.store_version);
  // A file of the owner's is read through a link of anyone's: the target decides.
  Chown(Store(), kOther);
  EXPECT_EQ(StoreError::kNone, ReadBounded(Store()).error);
  // ...and a file of another's is not, whoever owns the link.
  Chown(own, kOther);
  EXPECT_EQ(StoreError::kForeignLink, ReadBounded(Store()).error);
}

// A link to nothing that stays in the owner's folder is what it was without the rule.
TEST_F(StoreLinkTest, ADanglingLinkInTheOwnersFolderIsJudgedAsBefore) {
  ASSERT_EQ(0, symlink((Runtime() + "/nowhere.json").c_str(), Store().c_str()));
  const StoreReadResult result = ReadBounded(Store());
  EXPECT_NE(StoreError::kForeignLink, result.error) << result.message;
  EXPECT_NE(StoreError::kNone, result.error);
}

// A hard link needs no symlink: another owner's file linked into the runtime dir.
TEST_F(StoreLinkTest, AHardLinkOfAnotherOwnersFileIsNotRead) {
  const std::string secret = SecretStore();
  ASSERT_EQ(0, link(secret.c_str(), Store().c_str()));
  const StoreReadResult result = ReadBounded(Store());
  EXPECT_EQ(StoreError::kForeignLink, result.error) << result.message;
  EXPECT_TRUE(result.contents.digest.skeleton_id.empty());
  // The owner's own file with a second link (a backup made with cp -l) is read.
  ASSERT_EQ(0, unlink(Store().c_str()));
  WriteFile(Store(), StoreJson("sk_m1nd_candidate", {}, 2));
  Chown(Store(), kOwner);
  ASSERT_EQ(0, link(Store().c_str(), (Runtime() + "/backup.json").c_str()));
  EXPECT_EQ(StoreError::kNone, ReadBounded(Store()).error);
  // A single-link file is read whoever owns it (root copied it in, say).
  ASSERT_EQ(0, unlink((Runtime() + "/backup.json").c_str()));
  Chown(Store(), kOther);
  EXPECT_EQ(StoreError::kNone, ReadBounded(Store()).error);
}

// Root's m1nd in a root-owned runtime dir, with a link to root's own file: read.
TEST_F(StoreLinkTest, ARootOwnedRuntimeDirReadsRootsLinks) {
  Chown(Runtime(), 0);
  const std::string own = dir_.Join("other/root/system_blocks.json");
  WriteFile(own, StoreJson("sk_m1nd_candidate", {}, 3));
  ASSERT_EQ(0, symlink(own.c_str(), Store().c_str()));
  EXPECT_EQ(StoreError::kNone, ReadBounded(Store()).error);
  // A user's file is not root's: not read.
  Chown(own, kOwner);
  EXPECT_EQ(StoreError::kForeignLink, ReadBounded(Store()).error);
}

}  // namespace
}  // namespace scx
