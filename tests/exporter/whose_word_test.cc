// The real exporter binary on a shared host (issue 43): another user's registry record
// claims the victim's runtime dir with the freshest heartbeat there can be, and a
// brain's store is a link to another project's root-only file. Scraped over HTTP: the
// page stands, the conflict is one log line and a metric, and nothing of the linked file
// is published in /metrics, the API, the landing page or the log. Owners are simulated
// with chown (the tests run as root in CI; skipped otherwise).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <iostream>
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
using testing::ReadFile;
using testing::StoreJson;
using testing::TempDir;
using testing::TestProcess;
using testing::WaitFor;
using testing::WriteFile;

constexpr uid_t kVictim = 200000;
constexpr uid_t kAttacker = 200001;
constexpr milliseconds kStartupTimeout{10000};
constexpr milliseconds kScanTimeout{5000};
constexpr char kIncidentLine[] =
    "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"kvlt\"} 0";

std::int64_t NowMs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t CountOf(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

std::string Record(const std::string& workspace, const std::string& runtime,
                   std::int64_t heartbeat_ms) {
  return "{\"instance_id\": \"x\", \"workspace_root\": \"" + workspace +
         "\", \"runtime_root\": \"" + runtime + "\", \"graph_source\": \"" + runtime +
         "/graph_snapshot.json\", \"plasticity_state\": \"" + runtime +
         "/plasticity_state.json\", \"pid\": 4242, \"started_at_ms\": 1767225600000" +
         ", \"last_heartbeat_ms\": " + std::to_string(heartbeat_ms) +
         ", \"mode\": \"read_write\", \"status\": \"running\", \"brain_kind\": null}\n";
}

class WhoseWordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "not root: owners are simulated with chown";
    // The incident: the victim's brain m1nd serves kvlt's skeleton.
    const std::string victim_rt = dir_.Join("victim/rt");
    WriteFile(victim_rt + "/system_blocks.json",
              StoreJson("sk_kvlt_candidate", {"sb_kvlt_core_0123abcd"}));
    Own(victim_rt, kVictim);
    Own(victim_rt + "/system_blocks.json", kVictim);
    WriteRecordOf(dir_.Join("victim/registry/instances/m1nd.json"),
                  Record("/home/victim/m1nd", victim_rt, NowMs() - 3000), kVictim);
    // The hide: another user's record on the victim's runtime dir, a day ahead.
    WriteRecordOf(dir_.Join("attacker/registry/instances/evil.json"),
                  Record("/home/attacker/kvlt", victim_rt, NowMs() + 86400000), kAttacker);
    // The leak: the victim's other brain links its store to a root-only file.
    const std::string secret = dir_.Join("private/system_blocks.json");
    WriteFile(secret, StoreJson("sk_hushhush_candidate", {"sb_hushhush_core_0123abcd"}));
    ASSERT_EQ(0, chmod(dir_.Join("private").c_str(), 0700));
    const std::string lib_rt = dir_.Join("victim/lib-rt");
    testing::MakeDirs(lib_rt);
    Own(lib_rt, kVictim);
    ASSERT_EQ(0, symlink(secret.c_str(), (lib_rt + "/system_blocks.json").c_str()));
    WriteRecordOf(dir_.Join("victim/registry/instances/lib.json"),
                  Record("/home/victim/lib", lib_rt, NowMs() - 3000), kVictim);
    WriteFile(ConfigPath(), "scan_interval: 200ms\nm1nd_registries: [" +
                                dir_.Join("victim/registry") + ", " +
                                dir_.Join("attacker/registry") + "]\n");
    port_ = testing::FindFreePort();
    ASSERT_GT(port_, 0);
    std::string error;
    ASSERT_TRUE(exporter_.Start(
        SCX_EXPORTER_BINARY,
        {"--config.file=" + ConfigPath(), "--web.listen-address=127.0.0.1:" + std::to_string(port_),
         "--log.level=debug"},
        LogPath(), &error))
        << error;
    ASSERT_TRUE(WaitFor([&] { return HttpGet(port_, "/-/ready").status == 200; }, kStartupTimeout))
        << ReadFile(LogPath());
  }

  void TearDown() override {
    if (!exporter_.running()) return;
    exporter_.Stop();
    if (HasFailure()) std::cerr << "exporter log:\n" << ReadFile(LogPath());
  }

  static void Own(const std::string& path, uid_t uid) {
    ASSERT_EQ(0, lchown(path.c_str(), uid, uid)) << path << ": " << strerror(errno);
  }
  static void WriteRecordOf(const std::string& path, const std::string& json, uid_t uid) {
    WriteFile(path, json);
    Own(path, uid);
  }
  std::string ConfigPath() const { return dir_.Join("config.yml"); }
  std::string LogPath() const { return dir_.Join("exporter.log"); }

  TempDir dir_;
  TestProcess exporter_;
  int port_ = 0;
};

TEST_F(WhoseWordTest, ThePageStandsAndNothingOfTheLinkedFileIsPublished) {
  std::string metrics;
  ASSERT_TRUE(WaitFor(
      [&] {
        metrics = HttpGet(port_, "/metrics").body;
        return Contains(metrics, kIncidentLine) &&
               Contains(metrics,
                        "skeleton_coherence_brain_state{brain=\"lib\",state=\"unreadable\"} 1");
      },
      kScanTimeout))
      << metrics;
  EXPECT_TRUE(Contains(
      metrics, "skeleton_coherence_exporter_registry_conflicts{reason=\"foreign_owner\"} 1"))
      << metrics;
  EXPECT_TRUE(Contains(
      metrics, "skeleton_coherence_exporter_store_read_errors_total{reason=\"foreign_link\"}"));
  EXPECT_FALSE(Contains(metrics, "brain=\"kvlt\"")) << metrics;
  // A few more scans: the conflict is logged once, not per scan.
  std::this_thread::sleep_for(milliseconds(1000));
  const std::string api = HttpGet(port_, "/api/v1/brains").body;
  const std::string landing = HttpGet(port_, "/").body;
  metrics = HttpGet(port_, "/metrics").body;
  const std::string log = ReadFile(LogPath());
  for (const std::string* surface :
       std::vector<const std::string*>{&metrics, &api, &landing, &log}) {
    EXPECT_FALSE(Contains(*surface, "hushhush")) << *surface;
  }
  EXPECT_TRUE(Contains(api, "\"foreign_link\"")) << api;
  EXPECT_EQ(1u, CountOf(log, "msg=\"registry conflict\"")) << log;
  EXPECT_TRUE(Contains(log, "reason=foreign_owner")) << log;
  EXPECT_TRUE(Contains(log, dir_.Join("attacker/registry/instances/evil.json"))) << log;
}

}  // namespace
}  // namespace scx
