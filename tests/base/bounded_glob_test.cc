// BoundedGlob: what glob(3) finds, a bound on the entries a pattern may read, and a
// stop that ends a pattern looping through symlinks at once.
#include "base/bounded_glob.h"

#include <glob.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace scx {
namespace {

using Clock = std::chrono::steady_clock;

// `dir`/loop holds `links` symlinks to itself: loop/*/*/... has links^depth matches.
std::string MakeLoop(const testing::TempDir& dir, int links) {
  const std::string loop = dir.Join("loop");
  testing::MakeDirs(loop);
  for (int i = 0; i < links; ++i) {
    EXPECT_EQ(symlink(".", (loop + "/l" + std::to_string(i)).c_str()), 0);
  }
  return loop;
}

std::string Stars(const std::string& base, int depth) {
  std::string pattern = base;
  for (int i = 0; i < depth; ++i) pattern += "/*";
  return pattern;
}

TEST(BoundedGlobTest, FindsWhatGlobFinds) {
  testing::TempDir dir;
  testing::MakeDirs(dir.Join("rts/b"));
  testing::MakeDirs(dir.Join("rts/a"));
  testing::WriteFile(dir.Join("rts/c.json"), "{}");
  GlobResult result = BoundedGlob(dir.Join("rts/*"), GLOB_ONLYDIR, 100, nullptr);
  ASSERT_EQ(result.status, GlobStatus::kOk);
  EXPECT_EQ(result.paths, (std::vector<std::string>{dir.Join("rts/a"), dir.Join("rts/b")}));
  EXPECT_EQ(BoundedGlob(dir.Join("none/*"), 0, 100, nullptr).status, GlobStatus::kNoMatch);
}

TEST(BoundedGlobTest, ASymlinkLoopEndsAtTheBound) {
  testing::TempDir dir;
  const std::string loop = MakeLoop(dir, 10);
  const auto start = Clock::now();
  GlobResult result = BoundedGlob(Stars(loop, 6), GLOB_ONLYDIR, 10000, nullptr);
  EXPECT_EQ(result.status, GlobStatus::kTooMany);
  EXPECT_TRUE(result.paths.empty());
  EXPECT_LE(result.entries_read, 10000 + 1);  // what proves the bound; time is a hang guard
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
  // Within the bound the same loop expands: 10^3 matches.
  result = BoundedGlob(Stars(loop, 3), GLOB_ONLYDIR, 10000, nullptr);
  ASSERT_EQ(result.status, GlobStatus::kOk);
  EXPECT_EQ(result.paths.size(), 1000u);
}

// Without the stop flag in the callbacks, glob(3) ran this expansion (10^6 paths)
// to its end: 1.5 s and more on a 2-core machine.
TEST(BoundedGlobTest, AStopEndsALongExpansionAtOnce) {
  testing::TempDir dir;
  const std::string loop = MakeLoop(dir, 10);
  std::atomic<bool> stop{false};
  Clock::time_point stopped_at;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stopped_at = Clock::now();
    stop = true;
  });
  const GlobResult result = BoundedGlob(Stars(loop, 6), GLOB_ONLYDIR, 100'000'000, &stop);
  const Clock::time_point ended_at = Clock::now();
  stopper.join();
  EXPECT_EQ(result.status, GlobStatus::kStopped);
  EXPECT_LT(ended_at - stopped_at, std::chrono::milliseconds(100));
}

}  // namespace
}  // namespace scx
