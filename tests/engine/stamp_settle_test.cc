// The store stamp cache on a file system with coarse timestamps (ramfs: every time is
// the kernel's coarse clock, one tick a few milliseconds long). A same-size rewrite in
// the tick of the exporter's read leaves the stamp that read saw; the next scan must
// read the store again all the same. The tests mount ramfs on a temp dir, as root, and
// are skipped where that is impossible.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/untrusted_file.h"
#include "engine/scanner.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

// Two stores of the same size: the brain's own skeleton, and another brain's.
const std::string kOwnStore = StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d"});
const std::string kForeignStore = StoreJson("sk_kvlt_candidate", {"sb_kvlt_core_1a2b3c4d"});

// How many ticks a test tries for its steps to fit in one, on a busy machine.
constexpr int kAttempts = 50;

bool SameTime(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Runs `steps` just after the coarse clock ticks; true when they all ran before its
// next tick, so that everything they changed on ramfs has one stamp time.
bool InOneTick(const std::function<void()>& steps) {
  struct timespec before, start, end;
  clock_gettime(CLOCK_REALTIME_COARSE, &before);
  do {
    clock_gettime(CLOCK_REALTIME_COARSE, &start);
  } while (SameTime(before, start));
  steps();
  clock_gettime(CLOCK_REALTIME_COARSE, &end);
  return SameTime(start, end);
}

FileStamp StampOf(const std::string& path) {
  struct stat info;
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return StampOfStat(info);
}

// Sets both times of `path` to `mtime_ns`; its ctime becomes now.
void SetTimes(const std::string& path, std::int64_t mtime_ns) {
  const struct timespec at = {static_cast<time_t>(mtime_ns / 1000000000),
                              static_cast<long>(mtime_ns % 1000000000)};
  const struct timespec times[2] = {at, at};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

class CoarseStampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(kOwnStore.size(), kForeignStore.size());
    if (mount("none", dir_.path().c_str(), "ramfs", 0, nullptr) != 0) {
      GTEST_SKIP() << "cannot mount ramfs on " << dir_.path() << " (" << strerror(errno)
                   << "): a coarse-timestamp file system needs root (CAP_SYS_ADMIN)";
    }
    mounted_ = true;
    config_.static_brains.push_back(StaticBrain{"m1nd", "/home/u/m1nd", "", dir_.path()});
    store_ = dir_.Join("system_blocks.json");
  }

  void TearDown() override {
    if (!mounted_) return;
    EXPECT_EQ(umount2(dir_.path().c_str(), 0), 0) << strerror(errno);
  }

  // The verdict's found slug of the brain in `scan`.
  static std::string FoundSlug(const ScanResult& scan) {
    if (scan.brains.size() != 1 || scan.brains[0].coherence == nullptr) return "";
    return scan.brains[0].coherence->found_slug;
  }

  TempDir dir_;
  bool mounted_ = false;
  DiscoveryConfig config_;
  std::string store_;
};

// m1nd rewrites the store in place, same size, in the tick of the exporter's read:
// the stamp is the one the read saw, and the next scan reads the store again.
TEST_F(CoarseStampTest, SameSizeRewriteInTheTickOfTheReadIsReadAgain) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    Scanner scanner;
    ScanResult first;
    FileStamp read_at;
    const bool fits = InOneTick([&] {
      WriteFile(store_, kOwnStore);
      first = scanner.Scan(config_);
      read_at = StampOf(store_);
      WriteFile(store_, kForeignStore);
    });
    if (!fits) continue;
    // The case under test needs the rewrite to keep the read's stamp: a stamp of its
    // own (the tick turned between the clock's check and the write) is another try.
    if (StampOf(store_) != read_at) continue;
    EXPECT_EQ(FoundSlug(first), "m1nd");
    const ScanResult next = scanner.Scan(config_);
    EXPECT_EQ(next.stores_parsed, 1);
    EXPECT_EQ(next.brains[0].state, BrainState::kMismatch);
    EXPECT_EQ(FoundSlug(next), "kvlt");
    return;
  }
  GTEST_SKIP() << "no write, scan and rewrite fit in one clock tick in " << kAttempts
               << " attempts (a busy machine)";
}

// The same with the mtime set back to the one the read saw (as a copy that keeps
// times does): size and mtime agree, and the ctime is of the same tick.
TEST_F(CoarseStampTest, RewriteWithTheSameSizeAndMtimeIsReadAgain) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    Scanner scanner;
    ScanResult first;
    FileStamp read_at;
    const bool fits = InOneTick([&] {
      WriteFile(store_, kForeignStore);
      first = scanner.Scan(config_);
      read_at = StampOf(store_);
      WriteFile(store_, kOwnStore);
      SetTimes(store_, read_at.mtime_ns);
    });
    if (!fits) continue;
    // The case under test needs the rewrite to keep the read's stamp: a stamp of its
    // own (the tick turned between the clock's check and the write) is another try.
    if (StampOf(store_) != read_at) continue;
    EXPECT_EQ(FoundSlug(first), "kvlt");
    const ScanResult next = scanner.Scan(config_);
    EXPECT_EQ(next.brains[0].state, BrainState::kOk);
    EXPECT_EQ(FoundSlug(next), "m1nd");
    return;
  }
  GTEST_SKIP() << "no write, scan and rewrite fit in one clock tick in " << kAttempts
               << " attempts (a busy machine)";
}

// A store whose mtime is in the future (a restored backup, the clock stepped back) is
// rewritten with the same size and the same future mtime: the verdict follows, and a
// notice says the store is read every scan.
TEST_F(CoarseStampTest, StoreStampedInTheFutureIsNeverTrustedAsUnchanged) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t future_ns = (std::int64_t{now.tv_sec} + 3600) * 1000000000;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    Scanner scanner;
    ScanResult first;
    FileStamp read_at;
    const bool fits = InOneTick([&] {
      WriteFile(store_, kOwnStore);
      SetTimes(store_, future_ns);
      first = scanner.Scan(config_);
      read_at = StampOf(store_);
      WriteFile(store_, kForeignStore);
      SetTimes(store_, future_ns);
    });
    if (!fits) continue;
    // The case under test needs the rewrite to keep the read's stamp: a stamp of its
    // own (the tick turned between the clock's check and the write) is another try.
    if (StampOf(store_) != read_at) continue;
    EXPECT_EQ(FoundSlug(first), "m1nd");
    ASSERT_EQ(first.notices.size(), 1u);
    EXPECT_EQ(first.notices[0].path, store_);
    const ScanResult next = scanner.Scan(config_);
    EXPECT_EQ(next.stores_unchanged, 0);
    EXPECT_EQ(FoundSlug(next), "kvlt");
    EXPECT_EQ(next.notices.size(), 1u);
    return;
  }
  GTEST_SKIP() << "no write, scan and rewrite fit in one clock tick in " << kAttempts
               << " attempts (a busy machine)";
}

}  // namespace
}  // namespace scx
