// Tests for the CPUs the process may use: the parsing of cgroup v2 `cpu.max` and
// /proc/self/cgroup text, the walk over a fake cgroup tree in a temporary directory,
// and a thread restricted to one CPU with sched_setaffinity.
#include "base/usable_cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <limits>
#include <optional>
#include <string>

#include "base/parallel_for.h"
#include "tests/test_support.h"

namespace scx {
namespace {

constexpr std::optional<int> kNoLimit = std::nullopt;

TEST(ParseCpuMaxTest, MaxIsNoLimit) {
  EXPECT_EQ(kNoLimit, ParseCpuMax("max 100000"));
  EXPECT_EQ(kNoLimit, ParseCpuMax("max 100000\n"));
  EXPECT_EQ(kNoLimit, ParseCpuMax("max"));
}

TEST(ParseCpuMaxTest, AQuotaIsItsCpusRoundedUp) {
  EXPECT_EQ(2, ParseCpuMax("150000 100000"));
  EXPECT_EQ(2, ParseCpuMax("150000 100000\n"));
  EXPECT_EQ(2, ParseCpuMax("200000 100000\n"));
  EXPECT_EQ(3, ParseCpuMax("200001 100000\n"));
  EXPECT_EQ(4, ParseCpuMax("20000 5000\n"));
  EXPECT_EQ(1, ParseCpuMax("50000 100000"));
  EXPECT_EQ(1, ParseCpuMax("1 100000\n"));
}

TEST(ParseCpuMaxTest, AMissingPeriodIsTheKernelDefault) {
  EXPECT_EQ(1, ParseCpuMax("100000"));
  EXPECT_EQ(2, ParseCpuMax("150000\n"));
  EXPECT_EQ(3, ParseCpuMax("300000"));
}

TEST(ParseCpuMaxTest, AHugeQuotaIsAtMostTheLargestInt) {
  EXPECT_EQ(std::numeric_limits<int>::max(), ParseCpuMax("9223372036854775807 1\n"));
}

TEST(ParseCpuMaxTest, MalformedZeroOrNegativeIsIgnored) {
  for (const char* text :
       {"", "\n", "  ", "abc 100000", "150000 abc", "150000 100000 100000", "1.5 1",
        "150000x 100000", "+150000 100000", "0 100000", "150000 0", "0", "-50000 100000",
        "150000 -100000", "-1", "99999999999999999999 100000", "max max max"}) {
    EXPECT_EQ(kNoLimit, ParseCpuMax(text)) << "'" << text << "'";
  }
}

TEST(ParseCgroupV2PathTest, TheV2LineGivesThePath) {
  EXPECT_EQ("/system.slice/skeleton-coherence-exporter.service",
            ParseCgroupV2Path("0::/system.slice/skeleton-coherence-exporter.service\n"));
  EXPECT_EQ("/", ParseCgroupV2Path("0::/\n"));
  EXPECT_EQ("/kubepods/pod1/ctr", ParseCgroupV2Path("0::/kubepods/pod1/ctr"));  // no newline
}

TEST(ParseCgroupV2PathTest, CgroupV1LinesAreIgnored) {
  // A hybrid system: v1 controllers and the v2 hierarchy side by side.
  EXPECT_EQ("/user.slice", ParseCgroupV2Path("4:cpu,cpuacct:/x\n"
                                             "1:name=systemd:/user.slice/y\n"
                                             "0::/user.slice\n"
                                             "3:memory:/z\n"));
}

TEST(ParseCgroupV2PathTest, ACgroupV1OnlySystemGivesNoPath) {
  EXPECT_EQ(std::nullopt, ParseCgroupV2Path("4:cpu,cpuacct:/x\n1:name=systemd:/y\n"));
  EXPECT_EQ(std::nullopt, ParseCgroupV2Path(""));
}

// A fake cgroup v2 tree in a temporary directory.
class CgroupCpuLimitTest : public ::testing::Test {
 protected:
  // Writes `cpu_max` as the cpu.max file of `cgroup` ("" is the root).
  void WriteCpuMax(const std::string& cgroup, const std::string& cpu_max) {
    testing::WriteFile(root_.path() + cgroup + "/cpu.max", cpu_max);
  }
  std::optional<int> LimitOf(const std::string& cgroup_path) {
    return CgroupCpuLimit(cgroup_path, root_.path());
  }

  testing::TempDir root_;
};

TEST_F(CgroupCpuLimitTest, TheSmallestLimitOnThePathWins) {
  WriteCpuMax("", "max 100000\n");
  WriteCpuMax("/kubepods", "400000 100000\n");
  WriteCpuMax("/kubepods/pod1", "150000 100000\n");
  WriteCpuMax("/kubepods/pod1/ctr", "300000 100000\n");
  EXPECT_EQ(2, LimitOf("/kubepods/pod1/ctr"));  // an ancestor's
  WriteCpuMax("/kubepods/pod1/ctr", "50000 100000\n");
  EXPECT_EQ(1, LimitOf("/kubepods/pod1/ctr"));  // the cgroup's own
  EXPECT_EQ(4, LimitOf("/kubepods"));           // descendants do not count
}

TEST_F(CgroupCpuLimitTest, MissingAndUnparsableFilesAreSkipped) {
  testing::MakeDirs(root_.Join("system.slice/x.service"));
  EXPECT_EQ(kNoLimit, LimitOf("/system.slice/x.service"));
  WriteCpuMax("/system.slice", "250000 100000\n");
  WriteCpuMax("/system.slice/x.service", "half a CPU\n");
  EXPECT_EQ(3, LimitOf("/system.slice/x.service"));
  EXPECT_EQ(3, LimitOf("/system.slice/not-there/either"));  // the ancestors still count
}

TEST_F(CgroupCpuLimitTest, MaxIsNoLimit) {
  WriteCpuMax("", "max 100000\n");
  WriteCpuMax("/a", "max 100000\n");
  WriteCpuMax("/a/b", "max 50000\n");
  EXPECT_EQ(kNoLimit, LimitOf("/a/b"));
}

TEST_F(CgroupCpuLimitTest, TheRootPathIsTheRootAlone) {
  WriteCpuMax("", "200000 100000\n");
  WriteCpuMax("/a", "100000 100000\n");
  EXPECT_EQ(2, LimitOf("/"));
  EXPECT_EQ(1, LimitOf("/a"));
  EXPECT_EQ(1, LimitOf("//a/"));
}

TEST_F(CgroupCpuLimitTest, ARelativePathOrADotComponentIsRefused) {
  WriteCpuMax("", "100000 100000\n");  // would make any walk 1
  WriteCpuMax("/a", "100000 100000\n");
  for (const char* path : {"", "a", "a/b", "/..", "/../a", "/a/..", "/a/../a", "/.", "/a/./b"}) {
    EXPECT_EQ(kNoLimit, LimitOf(path)) << "'" << path << "'";
  }
}

// Restricts the calling thread to the first CPU of its affinity mask (the mask
// sched_setaffinity(0, ...) sets is the calling thread's), and restores the mask on
// destruction. pinned() is false when the thread may use one CPU only already.
class OneCpuAffinity {
 public:
  OneCpuAffinity() {
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof(saved_), &saved_) != 0) {
      ADD_FAILURE() << "sched_getaffinity failed";
      return;
    }
    if (CPU_COUNT(&saved_) < 2) return;
    int first = 0;
    while (!CPU_ISSET(first, &saved_)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
    if (!pinned_) ADD_FAILURE() << "sched_setaffinity failed";
  }
  ~OneCpuAffinity() {
    if (pinned_ && sched_setaffinity(0, sizeof(saved_), &saved_) != 0) {
      ADD_FAILURE() << "the affinity mask could not be restored";
    }
  }
  OneCpuAffinity(const OneCpuAffinity&) = delete;
  OneCpuAffinity& operator=(const OneCpuAffinity&) = delete;

  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

TEST(UsableCpusTest, AThreadRestrictedToOneCpuMayUseOneAndScansOnOne) {
  {
    const OneCpuAffinity one_cpu;
    if (!one_cpu.pinned()) GTEST_SKIP() << "this thread may use one CPU only: nothing to restrict";
    EXPECT_EQ(1, AffinityCpus());
    EXPECT_EQ(1, UsableCpus());
    EXPECT_EQ(1, ThreadsFor(Parallelism{0, 1}, 100000));
  }
  EXPECT_GE(AffinityCpus(), 2);  // the mask was restored
}

TEST(UsableCpusTest, AtLeastOneAndNoMoreThanTheAffinityMask) {
  EXPECT_GE(UsableCpus(), 1);
  EXPECT_LE(UsableCpus(), AffinityCpus());
}

}  // namespace
}  // namespace scx
