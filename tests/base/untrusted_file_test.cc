// Tests for the shared brain-file reader with a real file of every kind on disk:
// bounded waits for everything that could block, the size cap (on disk and while
// being read), both buffer kinds, and no descriptor left open.
#include "base/untrusted_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace scx {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

constexpr std::int64_t kCap = 1 << 20;

// ReadUntrustedFile (string overload), failing fast on a hang (one second).
UntrustedFileResult ReadBounded(const std::string& path, std::string* contents,
                                std::int64_t max_bytes = kCap) {
  return testing::CallWithin(std::chrono::seconds(1), "ReadUntrustedFile(" + path + ")",
                             [&] { return ReadUntrustedFile(path, max_bytes, contents); });
}

// A caller-owned buffer that records the largest capacity it was asked for.
class RecordingBuffer : public UntrustedFileBuffer {
 public:
  bool Reserve(std::size_t capacity, std::size_t keep) override {
    ++reserves_;
    largest_request_ = std::max(largest_request_, capacity);
    if (capacity <= capacity_) return true;
    std::unique_ptr<char[]> grown(new char[capacity]);
    if (keep > 0) std::memcpy(grown.get(), data_.get(), keep);
    data_ = std::move(grown);
    capacity_ = capacity;
    return true;
  }
  char* data() override { return data_.get(); }
  std::size_t capacity() const override { return capacity_; }
  std::size_t largest_request() const { return largest_request_; }
  int reserves() const { return reserves_; }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t largest_request_ = 0;
  int reserves_ = 0;
};

// A RecordingBuffer that runs `on_first_reserve` once, at the first Reserve: after
// ReadUntrustedFile has opened and fstat'ed the file, before it reads a byte.
class HookedBuffer : public RecordingBuffer {
 public:
  explicit HookedBuffer(std::function<void()> on_first_reserve)
      : on_first_reserve_(std::move(on_first_reserve)) {}
  bool Reserve(std::size_t capacity, std::size_t keep) override {
    if (on_first_reserve_) {
      std::function<void()> hook = std::move(on_first_reserve_);
      on_first_reserve_ = nullptr;
      hook();
    }
    return RecordingBuffer::Reserve(capacity, keep);
  }

 private:
  std::function<void()> on_first_reserve_;
};

void AppendToFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

class UntrustedFileTest : public ::testing::Test {
 protected:
  std::string FilePath() const { return dir_.Join("brain.json"); }
  TempDir dir_;
};

TEST_F(UntrustedFileTest, ReadsARegularFileWhole) {
  const std::string text = "{\"schema\": \"m1nd-project-brain-v0\"}\n";
  WriteFile(FilePath(), text);
  std::string contents = "stale contents, longer than the file itself, to be replaced";
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_TRUE(result.message.empty());
  EXPECT_EQ(text, contents);
  EXPECT_EQ(text.size(), result.size);
  struct stat st;
  ASSERT_EQ(0, stat(FilePath().c_str(), &st));
  ASSERT_TRUE(result.has_info);
  EXPECT_EQ(st.st_ino, result.info.st_ino);
  EXPECT_EQ(st.st_dev, result.info.st_dev);
  EXPECT_EQ(st.st_size, result.info.st_size);
  EXPECT_EQ(st.st_mtim.tv_nsec, result.info.st_mtim.tv_nsec);
}

TEST_F(UntrustedFileTest, AFileThatFitsItsStatIsReadWithOneReadCall) {
  // The short read that fills the fstat'ed size is the end: no read(2) for EOF.
  for (const std::string& text : {std::string("{}"), std::string(70000, 'q')}) {
    WriteFile(FilePath(), text);
    RecordingBuffer buffer;
    const UntrustedFileResult result = ReadUntrustedFile(FilePath(), kCap, &buffer);
    ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
    EXPECT_EQ(text, std::string(buffer.data(), result.size));
    EXPECT_EQ(1, result.read_calls) << text.size() << " bytes";
  }
  // Empty by its stat: only a zero-byte read may end it (files in /proc are too).
  WriteFile(FilePath(), "");
  std::string contents;
  const UntrustedFileResult empty = ReadBounded(FilePath(), &contents);
  ASSERT_EQ(UntrustedFileError::kNone, empty.error) << empty.message;
  EXPECT_EQ(1, empty.read_calls);
}

TEST_F(UntrustedFileTest, AFileThatGrewAfterTheFstatIsReadWhole) {
  const std::string head(5000, 'h');
  const std::string tail(30000, 't');
  WriteFile(FilePath(), head);
  HookedBuffer buffer([&] { AppendToFile(FilePath(), tail); });
  const UntrustedFileResult result = ReadUntrustedFile(FilePath(), kCap, &buffer);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ(static_cast<off_t>(head.size()), result.info.st_size);  // the fstat before growth
  ASSERT_EQ(head.size() + tail.size(), result.size);
  EXPECT_EQ(head + tail, std::string(buffer.data(), result.size));
  EXPECT_GT(result.read_calls, 1);
}

TEST_F(UntrustedFileTest, AFileThatShrankAfterTheFstatIsReadAsItIsNow) {
  WriteFile(FilePath(), std::string(8000, 's'));
  HookedBuffer buffer([&] { ASSERT_EQ(0, truncate(FilePath().c_str(), 100)); });
  const UntrustedFileResult result = ReadUntrustedFile(FilePath(), kCap, &buffer);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ(std::string(100, 's'), std::string(buffer.data(), result.size));
}

TEST_F(UntrustedFileTest, AFileReplacedAfterTheOpenIsReadAsOpened) {
  // m1nd replaces stores by rename: what is read and what `info` stamps must be the
  // same file, the one opened, never the new one at the path.
  const std::string old_text = "{\"generation\": \"old\"}";
  WriteFile(FilePath(), old_text);
  struct stat old_stat;
  ASSERT_EQ(0, stat(FilePath().c_str(), &old_stat));
  HookedBuffer buffer(
      [&] { testing::ReplaceFileAtomically(FilePath(), "{\"generation\": \"new, and longer\"}"); });
  const UntrustedFileResult result = ReadUntrustedFile(FilePath(), kCap, &buffer);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ(old_text, std::string(buffer.data(), result.size));
  EXPECT_EQ(old_stat.st_ino, result.info.st_ino);
  struct stat new_stat;
  ASSERT_EQ(0, stat(FilePath().c_str(), &new_stat));
  EXPECT_NE(new_stat.st_ino, result.info.st_ino);  // the path has moved on
}

TEST_F(UntrustedFileTest, ReadsIntoACallersBufferAndReusesIt) {
  const std::string text(10000, 'x');
  WriteFile(FilePath(), text);
  RecordingBuffer buffer;
  UntrustedFileResult result = ReadUntrustedFile(FilePath(), kCap, &buffer);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ(text, std::string(buffer.data(), result.size));
  EXPECT_EQ(text.size() + 1, buffer.largest_request());  // sized from fstat: no regrowth
  EXPECT_EQ(1, buffer.reserves());

  const char* const data = buffer.data();
  WriteFile(FilePath(), "small");
  result = ReadUntrustedFile(FilePath(), kCap, &buffer);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ("small", std::string(buffer.data(), result.size));
  EXPECT_EQ(data, buffer.data());  // the larger buffer was kept
}

TEST_F(UntrustedFileTest, EmptyFileIsReadAsEmpty) {
  WriteFile(FilePath(), "");
  std::string contents = "stale";
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  EXPECT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_TRUE(contents.empty());
  EXPECT_EQ(0u, result.size);
}

TEST_F(UntrustedFileTest, MissingFileIsAbsent) {
  std::string contents = "stale";
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  EXPECT_EQ(UntrustedFileError::kAbsent, result.error);
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(ENOENT))) << result.message;
  EXPECT_FALSE(result.has_info);
  EXPECT_TRUE(contents.empty());
  EXPECT_EQ(UntrustedFileError::kAbsent, StatUntrustedFile(FilePath()).error);
}

TEST_F(UntrustedFileTest, FifoIsNotRegularAndDoesNotBlock) {
  ASSERT_EQ(0, mkfifo(FilePath().c_str(), 0600)) << std::strerror(errno);
  std::string contents;
  const auto start = std::chrono::steady_clock::now();
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(UntrustedFileError::kNotRegular, result.error) << result.message;
  EXPECT_LT(elapsed, std::chrono::seconds(10));  // a hang guard: an open() that waits never ends
  EXPECT_TRUE(result.has_info);
  EXPECT_TRUE(S_ISFIFO(result.info.st_mode));
  EXPECT_EQ(UntrustedFileError::kNotRegular, StatUntrustedFile(FilePath()).error);
}

TEST_F(UntrustedFileTest, DirectoryIsNotRegular) {
  testing::MakeDirs(FilePath());
  std::string contents;
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  EXPECT_EQ(UntrustedFileError::kNotRegular, result.error) << result.message;
  EXPECT_TRUE(result.has_info);  // stat'ed, so the caller can stamp it
  EXPECT_NE(0u, result.info.st_ino);
}

TEST_F(UntrustedFileTest, DanglingSymlinkIsNotRegular) {
  ASSERT_EQ(0, symlink(dir_.Join("nowhere.json").c_str(), FilePath().c_str()));
  std::string contents;
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  EXPECT_EQ(UntrustedFileError::kNotRegular, result.error) << result.message;
  EXPECT_NE(std::string::npos, result.message.find("dangling")) << result.message;
  EXPECT_EQ(UntrustedFileError::kNotRegular, StatUntrustedFile(FilePath()).error);
}

TEST_F(UntrustedFileTest, SymlinkLoopIsNotRegular) {
  ASSERT_EQ(0, symlink(dir_.Join("loop_b").c_str(), FilePath().c_str()));
  ASSERT_EQ(0, symlink(FilePath().c_str(), dir_.Join("loop_b").c_str()));
  std::string contents;
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  EXPECT_EQ(UntrustedFileError::kNotRegular, result.error) << result.message;
}

TEST_F(UntrustedFileTest, FollowsASymlinkToARegularFile) {
  WriteFile(dir_.Join("real.json"), "{}");
  ASSERT_EQ(0, symlink(dir_.Join("real.json").c_str(), FilePath().c_str()));
  std::string contents;
  const UntrustedFileResult result = ReadBounded(FilePath(), &contents);
  ASSERT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ("{}", contents);
}

TEST_F(UntrustedFileTest, LargerThanTheCapIsTooLargeAndExactlyAtTheCapIsRead) {
  const std::string text(100, 'y');
  WriteFile(FilePath(), text);
  std::string contents;
  UntrustedFileResult result = ReadBounded(FilePath(), &contents, 99);
  EXPECT_EQ(UntrustedFileError::kTooLarge, result.error) << result.message;
  EXPECT_NE(std::string::npos, result.message.find("99")) << result.message;
  EXPECT_TRUE(contents.empty());
  EXPECT_EQ(100, result.info.st_size);

  result = ReadBounded(FilePath(), &contents, 100);
  EXPECT_EQ(UntrustedFileError::kNone, result.error) << result.message;
  EXPECT_EQ(text, contents);

  EXPECT_EQ(UntrustedFileError::kTooLarge, ReadBounded(FilePath(), &contents, 0).error);
  EXPECT_EQ(UntrustedFileError::kTooLarge, ReadBounded(FilePath(), &contents, -5).error);
}

TEST_F(UntrustedFileTest, GrowingPastTheCapWhileReadingIsTooLargeAndReadsAtMostOneByteOver) {
  // Files in /proc are regular with st_size 0 but have content: the read sees growth.
  const std::string path = "/proc/self/status";
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
    GTEST_SKIP() << path << " is not a zero-sized regular file here";
  }
  RecordingBuffer buffer;
  const UntrustedFileResult result = ReadUntrustedFile(path, 16, &buffer);
  EXPECT_EQ(UntrustedFileError::kTooLarge, result.error) << result.message;
  EXPECT_NE(std::string::npos, result.message.find("grew")) << result.message;
  EXPECT_LE(buffer.largest_request(), 17u);

  std::string contents;
  ASSERT_EQ(UntrustedFileError::kNone, ReadBounded(path, &contents).error);
  EXPECT_NE(std::string::npos, contents.find("Name:")) << contents;
}

TEST_F(UntrustedFileTest, OverlongPathIsAnIoError) {
  const std::string path = dir_.Join(std::string(5000, 'a'));
  std::string contents;
  const UntrustedFileResult result = ReadBounded(path, &contents);
  EXPECT_EQ(UntrustedFileError::kIo, result.error);
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(ENAMETOOLONG))) << result.message;
}

TEST_F(UntrustedFileTest, LeavesNoDescriptorOpen) {
  const std::string good = dir_.Join("good.json");
  const std::string big = dir_.Join("big.json");
  const std::string fifo = dir_.Join("fifo.json");
  const std::string dangling = dir_.Join("dangling.json");
  WriteFile(good, "{\"ok\": true}");
  WriteFile(big, std::string(1000, 'z'));
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  ASSERT_EQ(0, symlink(dir_.Join("nowhere").c_str(), dangling.c_str()));

  const std::size_t before = testing::OpenDescriptorCount();
  std::string contents;
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(UntrustedFileError::kNone, ReadUntrustedFile(good, kCap, &contents).error);
    EXPECT_EQ(UntrustedFileError::kTooLarge, ReadUntrustedFile(big, 10, &contents).error);
    EXPECT_EQ(UntrustedFileError::kNotRegular, ReadBounded(fifo, &contents).error);
    EXPECT_EQ(UntrustedFileError::kNotRegular, ReadUntrustedFile(dangling, kCap, &contents).error);
    EXPECT_EQ(UntrustedFileError::kNotRegular,
              ReadUntrustedFile(dir_.path(), kCap, &contents).error);
    EXPECT_EQ(UntrustedFileError::kAbsent,
              ReadUntrustedFile(dir_.Join("none"), kCap, &contents).error);
    EXPECT_EQ(UntrustedFileError::kNone, StatUntrustedFile(good).error);
  }
  EXPECT_EQ(before, testing::OpenDescriptorCount());
}

}  // namespace
}  // namespace scx
