// The real exporter binary's life under limits: SIGTERM in the middle of a long first
// scan (10,000 brains found by a glob) must still exit within a second, with status 0,
// without finishing (or publishing) the scan; its threads stay under 128, it starts and
// serves as an unprivileged user allowed 256 threads, and one allowed too few for its
// workers exits 1 with one error line.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::HttpGet;
using testing::kStopBound;
using testing::ReadFile;
using testing::StoreJson;
using testing::TempDir;
using testing::TestProcess;
using testing::WaitFor;
using testing::WriteFile;
using Clock = std::chrono::steady_clock;

constexpr int kBrains = 10000;
// Each brain's store is a hard link to one file of this many blocks (about 1 MB), so
// that the first scan parses ~10 GB and takes far longer than the test waits.
constexpr int kBlocksPerStore = 3500;
constexpr milliseconds kStartupTimeout{10000};

// runtime dirs rts/b00000 .. rts/b09999, each with a manifest and a store, all hard
// links to two files.
void MakeManyBrains(const TempDir& dir) {
  std::vector<std::string> blocks;
  for (int i = 0; i < kBlocksPerStore; ++i) blocks.push_back("sb_x_block_" + std::to_string(i));
  const std::string store = dir.Join("store.json");
  const std::string manifest = dir.Join("manifest.json");
  WriteFile(store, StoreJson("sk_x_candidate", blocks));
  WriteFile(manifest, testing::ManifestJson("/home/u/x"));
  for (int i = 0; i < kBrains; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "rts/b%05d", i);
    const std::string runtime_dir = dir.Join(name);
    testing::MakeDirs(runtime_dir);
    ASSERT_EQ(link(store.c_str(), (runtime_dir + "/system_blocks.json").c_str()), 0) << name;
    ASSERT_EQ(link(manifest.c_str(), (runtime_dir + "/project_brain.json").c_str()), 0) << name;
  }
}

// 30,000 directory entries are made and removed: on a busy disk that alone takes tens
// of seconds, so the layout goes to memory (/dev/shm) when the machine has it.
void PreferMemoryForTempDirs() {
  if (access("/dev/shm", W_OK) == 0) setenv("TMPDIR", "/dev/shm", 1);
}

TEST(ExporterShutdownTest, SigtermMidwayThroughA10000BrainFirstScanExitsWithinASecond) {
  PreferMemoryForTempDirs();
  TempDir dir;
  MakeManyBrains(dir);
  if (HasFatalFailure()) return;
  WriteFile(dir.Join("config.yml"), "scan_interval: 1h\nm1nd_registries: []\nruntime_globs: [\"" +
                                        dir.Join("rts/*") + "\"]\n");
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(exporter.StartOnFreePort(
      SCX_EXPORTER_BINARY, {"--config.file=" + dir.Join("config.yml"), "--log.level=debug"},
      dir.Join("exporter.log"), &port, &error))
      << error;
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/-/healthy").status == 200; }, kStartupTimeout))
      << ReadFile(dir.Join("exporter.log"));
  // Let the first scan get well under way (it takes far longer), then check that it
  // has not finished: not ready yet.
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_EQ(HttpGet(port, "/-/ready").status, 503) << "the first scan ended before the test "
                                                      "could stop it; make the stores larger";

  const Clock::time_point signalled_at = Clock::now();
  exporter.Signal(SIGTERM);
  const std::optional<int> status = exporter.WaitForExit(kStopBound * 3);
  const auto exit_ms =
      std::chrono::duration_cast<milliseconds>(Clock::now() - signalled_at).count();
  std::cout << "exit " << exit_ms << " ms after SIGTERM, mid-scan over " << kBrains << " brains\n";
  RecordProperty("exit_ms", static_cast<int>(exit_ms));
  const std::string log = ReadFile(dir.Join("exporter.log"));
  ASSERT_TRUE(status.has_value()) << "still running long after SIGTERM\n" << log;
  EXPECT_LT(exit_ms, kStopBound.count()) << log;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << log;
  EXPECT_NE(log.find("scan stopped before it finished"), std::string::npos) << log;
  EXPECT_EQ(log.find("Sanitizer"), std::string::npos) << log;
}

// A FIFO named as cert_file: OpenSSL's open() used to wait for a writer that never
// came, with SIGTERM blocked until the start was over. Now the file is read as brain
// files are (non-blocking, regular files only) and the start fails at once, with exit
// 2: a web config naming a FIFO is the operator's to fix.
TEST(ExporterShutdownTest, AFifoAsCertFileFailsTheStartAtOnce) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.Join("cert.pem").c_str(), 0600), 0);
  WriteFile(dir.Join("key.pem"), "not a key\n");
  WriteFile(dir.Join("web.yml"),
            "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n");
  WriteFile(dir.Join("config.yml"), "m1nd_registries: []\n");
  TestProcess exporter;
  int port = 0;
  std::string error;
  const Clock::time_point started_at = Clock::now();
  ASSERT_TRUE(exporter.StartOnFreePort(
      SCX_EXPORTER_BINARY,
      {"--config.file=" + dir.Join("config.yml"), "--web.config.file=" + dir.Join("web.yml")},
      dir.Join("exporter.log"), &port, &error))
      << error;
  std::optional<int> status = exporter.WaitForExit(milliseconds(3000));
  const auto exit_ms = std::chrono::duration_cast<milliseconds>(Clock::now() - started_at).count();
  if (!status) {
    // The old behaviour: hung in open(). SIGTERM cannot end it either; a writer
    // opening the FIFO lets it go on.
    exporter.Signal(SIGTERM);
    status = exporter.WaitForExit(milliseconds(1000));
    const int writer = open(dir.Join("cert.pem").c_str(), O_RDWR | O_NONBLOCK);
    if (writer >= 0) close(writer);
  }
  const std::string log = ReadFile(dir.Join("exporter.log"));
  ASSERT_TRUE(status.has_value()) << "start still hanging 3 s after it began\n" << log;
  EXPECT_LT(exit_ms, kStopBound.count()) << log;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << log;
  EXPECT_NE(
      log.find("cannot load cert_file " + dir.Join("cert.pem") + ": is a FIFO, not a regular file"),
      std::string::npos)
      << log;
}

// Scans whose globs loop through symlinks (loop/ holds 10 links to itself, so each
// pattern is a million paths): every pattern ends at kMaxGlobEntries, and a SIGTERM
// in the middle of their expansion ends the process within a second. With glob(3)
// running each to its end, the stop took up to 1.55 s.
TEST(ExporterShutdownTest, SigtermWhileGlobsExpandThroughSymlinkLoopsExitsWithinASecond) {
  TempDir dir;
  testing::MakeDirs(dir.Join("loop"));
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(symlink(".", dir.Join("loop/l" + std::to_string(i)).c_str()), 0);
  }
  std::string globs;
  for (int i = 0; i < 40; ++i) {
    // Forty different patterns of the same loop, each a million paths.
    globs += std::string(globs.empty() ? "" : ", ") + "\"" + dir.Join("loop/l") +
             std::to_string(i % 10) + "/*/*/*/*/*/*" + std::string(i / 10, '/') + "\"";
  }
  WriteFile(dir.Join("config.yml"),
            "scan_interval: 1h\nm1nd_registries: []\nruntime_globs: [" + globs + "]\n");
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(exporter.StartOnFreePort(SCX_EXPORTER_BINARY,
                                       {"--config.file=" + dir.Join("config.yml")},
                                       dir.Join("exporter.log"), &port, &error))
      << error;
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/-/healthy").status == 200; }, kStartupTimeout))
      << ReadFile(dir.Join("exporter.log"));
  std::this_thread::sleep_for(milliseconds(200));
  const Clock::time_point signalled_at = Clock::now();
  exporter.Signal(SIGTERM);
  const std::optional<int> status = exporter.WaitForExit(kStopBound * 3);
  const auto exit_ms =
      std::chrono::duration_cast<milliseconds>(Clock::now() - signalled_at).count();
  std::cout << "exit " << exit_ms << " ms after SIGTERM, globs looping through symlinks\n";
  RecordProperty("exit_ms", static_cast<int>(exit_ms));
  const std::string log = ReadFile(dir.Join("exporter.log"));
  ASSERT_TRUE(status.has_value()) << "still running long after SIGTERM\n" << log;
  EXPECT_LT(exit_ms, kStopBound.count()) << log;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << log;
}

// The threads of process `pid` (its /proc/PID/task entries); -1 when unreadable.
int ThreadsOf(pid_t pid) {
  DIR* tasks = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (tasks == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(tasks);
  return count;
}

// A user id no account and no other test uses: RLIMIT_NPROC counts every thread of
// the real user id on the machine.
uid_t UnusedUid() { return 200000 + static_cast<uid_t>(getpid() % 100000); }

// prlimit's arguments to run the exporter as UnusedUid() with at most `threads`
// threads (RLIMIT_NPROC, as `ulimit -u` sets it; root is exempt from it, so the test
// drops root with setpriv).
std::vector<std::string> AsUnprivilegedWithThreadLimit(int threads,
                                                       const std::vector<std::string>& args) {
  const std::string uid = std::to_string(UnusedUid());
  std::vector<std::string> command = {
      "--nproc=" + std::to_string(threads) + ":" + std::to_string(threads),
      "--",
      "/usr/bin/setpriv",
      "--reuid=" + uid,
      "--regid=" + uid,
      "--clear-groups",
      SCX_EXPORTER_BINARY};
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

bool CanDropRoot() {
  return geteuid() == 0 && access("/usr/bin/prlimit", X_OK) == 0 &&
         access("/usr/bin/setpriv", X_OK) == 0;
}

// A folder the unprivileged user may read, with a config of one static brain.
std::string ReadableConfig(const TempDir& dir) {
  chmod(dir.path().c_str(), 0755);
  testing::MakeDirs(dir.Join("rt"));
  chmod(dir.Join("rt").c_str(), 0755);
  WriteFile(dir.Join("rt/system_blocks.json"), StoreJson("sk_m1nd_candidate", {"sb_m1nd_a"}));
  chmod(dir.Join("rt/system_blocks.json").c_str(), 0644);
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - project_root: /home/u/m1nd\n"
            "    runtime_dir: " +
                dir.Join("rt") + "\n");
  chmod(dir.Join("config.yml").c_str(), 0644);
  return dir.Join("config.yml");
}

// Starts the exporter on ReadableConfig(dir) as an unprivileged user allowed
// `threads` threads, logging to dir/exporter.log.
bool StartWithThreadLimit(const TempDir& dir, int threads, TestProcess* exporter, int* port,
                          std::string* error) {
  const std::string config = ReadableConfig(dir);
  return exporter->StartOnFreePort(
      "/usr/bin/prlimit", AsUnprivilegedWithThreadLimit(threads, {"--config.file=" + config}),
      dir.Join("exporter.log"), port, error);
}

TEST(ExporterThreadsTest, UnderAThreadLimitOf256ItServesWithAtMost128Threads) {
  if (!CanDropRoot()) GTEST_SKIP() << "needs root, prlimit and setpriv to drop to a limited user";
  TempDir dir;
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(StartWithThreadLimit(dir, 256, &exporter, &port, &error)) << error;
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/-/ready").status == 200; }, kStartupTimeout))
      << ReadFile(dir.Join("exporter.log"));
  const testing::HttpResult metrics = HttpGet(port, "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("skeleton_coherence{brain=\"m1nd\""), std::string::npos);
  const int threads = ThreadsOf(exporter.pid());
  std::cout << threads << " threads at rest\n";
  RecordProperty("threads", threads);
  EXPECT_GT(threads, 0);
  EXPECT_LE(threads, 128);
}

TEST(ExporterThreadsTest, TooFewThreadsForTheWorkersExitsOneWithOneErrorLine) {
  if (!CanDropRoot()) GTEST_SKIP() << "needs root, prlimit and setpriv to drop to a limited user";
  TempDir dir;
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(StartWithThreadLimit(dir, 40, &exporter, &port, &error)) << error;
  const std::optional<int> status = exporter.WaitForExit(kStartupTimeout);
  const std::string log = ReadFile(dir.Join("exporter.log"));
  ASSERT_TRUE(status.has_value()) << "still running under a limit of 40 threads\n" << log;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1) << log;
  size_t errors = 0;
  for (size_t at = log.find("level=error"); at != std::string::npos;
       at = log.find("level=error", at + 1)) {
    ++errors;
  }
  EXPECT_EQ(errors, 1u) << log;
  EXPECT_NE(log.find("RLIMIT_NPROC"), std::string::npos) << log;
  EXPECT_EQ(log.find("terminate called"), std::string::npos) << log;
}

}  // namespace
}  // namespace scx
