// The process collector's parsers on fixture text (a command name with spaces and
// parentheses, "unlimited", broken files), the values they combine into, and one
// read of this test process's own /proc.
#include "exporter/metrics/process_metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace scx {
namespace {

// /proc/<pid>/stat of a process named "scx (a) b": utime 250, stime 130,
// starttime 98765, vsize 123456789, rss 2048 pages.
constexpr char kSelfStat[] =
    "4242 (scx (a) b) S 1 4242 4242 0 -1 4194560 1200 0 3 0 250 130 0 0 20 0 6 0 98765 "
    "123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

constexpr char kSystemStat[] =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n"
    "cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n"
    "intr 199292 0 0\n"
    "ctxt 1990473\n"
    "btime 1764460000\n"
    "processes 2915\n";

constexpr char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max open files            1024                 1048576              files     \n"
    "Max locked memory         8388608              8388608              bytes     \n"
    "Max address space         unlimited            unlimited            bytes     \n";

TEST(ProcSelfStatTest, FieldsAreCountedAfterTheLastParenthesis) {
  ProcSelfStat stat;
  std::string error;
  ASSERT_TRUE(ParseProcSelfStat(kSelfStat, &stat, &error)) << error;
  EXPECT_EQ(stat.utime_ticks, 250u);
  EXPECT_EQ(stat.stime_ticks, 130u);
  EXPECT_EQ(stat.start_ticks, 98765u);
  EXPECT_EQ(stat.vsize_bytes, 123456789u);
  EXPECT_EQ(stat.rss_pages, 2048);
}

TEST(ProcSelfStatTest, BrokenLinesAreErrors) {
  ProcSelfStat stat;
  std::string error;
  EXPECT_FALSE(ParseProcSelfStat("", &stat, &error));
  EXPECT_FALSE(ParseProcSelfStat("4242 scx S 1 2 3", &stat, &error));
  EXPECT_EQ(error, "no command name in parentheses");
  // Cut before rss.
  const std::string stat_line = kSelfStat;
  EXPECT_FALSE(ParseProcSelfStat(stat_line.substr(0, stat_line.find(" 2048")), &stat, &error));
  EXPECT_EQ(error, "only 23 fields, 24 needed");
  std::string garbled = stat_line;
  garbled.replace(garbled.find(" 250 "), 5, " 2x0 ");
  EXPECT_FALSE(ParseProcSelfStat(garbled, &stat, &error));
}

TEST(BootTimeTest, TheBtimeLine) {
  std::int64_t boot_time = 0;
  std::string error;
  ASSERT_TRUE(ParseBootTime(kSystemStat, &boot_time, &error)) << error;
  EXPECT_EQ(boot_time, 1764460000);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\nprocesses 2\n", &boot_time, &error));
  EXPECT_FALSE(ParseBootTime("btime soon\n", &boot_time, &error));
}

TEST(MaxOpenFilesTest, TheSoftLimit) {
  double max_fds = 0;
  std::string error;
  ASSERT_TRUE(ParseMaxOpenFiles(kLimits, &max_fds, &error)) << error;
  EXPECT_EQ(max_fds, 1024);

  const std::string unlimited =
      "Max open files            unlimited            unlimited            files     \n";
  ASSERT_TRUE(ParseMaxOpenFiles(unlimited, &max_fds, &error));
  EXPECT_EQ(max_fds, 18446744073709551615.0);

  EXPECT_FALSE(
      ParseMaxOpenFiles("Max cpu time  unlimited  unlimited  seconds\n", &max_fds, &error));
  EXPECT_FALSE(ParseMaxOpenFiles("Max open files  many  many  files\n", &max_fds, &error));
}

// RLIMIT_AS, for process_virtual_memory_max_bytes: -1 when unlimited, as client_golang.
TEST(MaxAddressSpaceTest, TheSoftLimitOrMinusOne) {
  double max_bytes = 0;
  std::string error;
  ASSERT_TRUE(ParseMaxAddressSpace(kLimits, &max_bytes, &error)) << error;
  EXPECT_EQ(max_bytes, -1);

  const std::string limited =
      "Max address space         8589934592           unlimited            bytes     \n";
  ASSERT_TRUE(ParseMaxAddressSpace(limited, &max_bytes, &error)) << error;
  EXPECT_EQ(max_bytes, 8589934592.0);
  EXPECT_FALSE(ParseMaxAddressSpace("Max open files  1024  4096  files\n", &max_bytes, &error));
}

TEST(ComputeProcessStatsTest, ClientLibraryUnits) {
  ProcSelfStat stat;
  std::string error;
  ASSERT_TRUE(ParseProcSelfStat(kSelfStat, &stat, &error));
  const ProcessStats stats =
      ComputeProcessStats(stat, 1764460000, 100, 4096, 9, {1024, 8589934592.0});
  EXPECT_DOUBLE_EQ(stats.cpu_seconds_total, 3.8);
  EXPECT_DOUBLE_EQ(stats.resident_memory_bytes, 2048.0 * 4096);
  EXPECT_DOUBLE_EQ(stats.virtual_memory_bytes, 123456789);
  EXPECT_DOUBLE_EQ(stats.start_time_seconds, 1764460987.65);
  EXPECT_EQ(stats.open_fds, 9);
  EXPECT_EQ(stats.max_fds, 1024);
  EXPECT_EQ(stats.virtual_memory_max_bytes, 8589934592.0);
}

TEST(ReadProcessStatsTest, ThisProcess) {
  ProcessStats before;
  std::string error;
  ASSERT_TRUE(ReadProcessStats(&before, &error)) << error;
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(before.start_time_seconds, now + 1);
  EXPECT_GT(before.start_time_seconds, now - 3600);  // this test process started just now
  EXPECT_GT(before.resident_memory_bytes, 0);
  EXPECT_GE(before.virtual_memory_bytes, before.resident_memory_bytes);
  EXPECT_GE(before.cpu_seconds_total, 0);
  EXPECT_GE(before.open_fds, 3);
  EXPECT_GE(before.max_fds, before.open_fds);

  // One more open descriptor is counted.
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ProcessStats after;
  ASSERT_TRUE(ReadProcessStats(&after, &error)) << error;
  close(fd);
  EXPECT_EQ(after.open_fds, before.open_fds + 1);
}

}  // namespace
}  // namespace scx
