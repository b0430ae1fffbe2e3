// The real exporter binary with --storage.path: a brain that pages keeps paging
// through a restart while its store is torn, and without the flag it does not (what
// the state is for). Loopback only; every exporter is stopped by PID.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::HttpGet;
using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;
using testing::TestProcess;
using testing::WaitFor;

constexpr milliseconds kWait{15000};
const char kMismatch[] =
    "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"keyvault\"} 0";

class StateRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = dir_.Join("rt");
    testing::MakeDirs(runtime_);
    testing::WriteFile(runtime_ + "/graph_snapshot.json", "{}");
    testing::WriteFile(dir_.Join("config.yml"),
                       "m1nd_registries: []\nbrains:\n"
                       "  - project_root: /home/u/m1nd\n"
                       "    runtime_dir: " +
                           runtime_ + "\n");
  }

  // Starts the exporter and returns its /metrics once it has scanned.
  std::string Start(TestProcess* exporter, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--config.file=" + dir_.Join("config.yml"),
                                     "--scan.interval=100ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string error;
    if (!exporter->StartOnFreePort(SCX_EXPORTER_BINARY, args, dir_.Join("log"), &port_, &error)) {
      ADD_FAILURE() << error;
      return "";
    }
    std::string metrics;
    WaitFor(
        [&] {
          const testing::HttpResult ready = HttpGet(port_, "/-/ready");
          if (ready.status != 200) return false;
          metrics = HttpGet(port_, "/metrics").body;
          return true;
        },
        kWait);
    return metrics;
  }

  std::string Metrics() { return HttpGet(port_, "/metrics").body; }

  void Tear() {
    const std::string whole = StoreJson("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d"});
    ReplaceFileAtomically(runtime_ + "/system_blocks.json", whole.substr(0, whole.size() / 2));
  }

  TempDir dir_;
  std::string runtime_;
  int port_ = 0;
};

TEST_F(StateRestartTest, RestartWhileTornKeepsPagingWithTheState) {
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d"}));
  const std::string storage = "--storage.path=" + dir_.Join("state");
  {
    TestProcess exporter;
    const std::string metrics = Start(&exporter, {storage});
    ASSERT_TRUE(testing::HasLine(metrics, kMismatch)) << metrics;
    ASSERT_TRUE(
        WaitFor([&] { return !testing::ReadFile(dir_.Join("state/state.json")).empty(); }, kWait));
    ASSERT_TRUE(exporter.Stop().has_value());
  }
  Tear();
  {
    TestProcess exporter;
    const std::string metrics = Start(&exporter, {storage});
    EXPECT_TRUE(testing::HasLine(metrics, kMismatch)) << metrics;
    EXPECT_TRUE(testing::HasLine(metrics, "skeleton_coherence_stale{brain=\"m1nd\"} 1")) << metrics;
    EXPECT_TRUE(testing::HasLine(
        metrics, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"unreadable\"} 1"));
    EXPECT_TRUE(
        testing::HasLine(metrics, "skeleton_coherence_exporter_state_restore_failures_total 0"));
    // Fixed: judged again, ok, no longer stale.
    ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                          StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d"}));
    EXPECT_TRUE(WaitFor(
        [&] {
          return testing::HasLine(
              Metrics(),
              "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"m1nd\"} 1");
        },
        kWait))
        << Metrics();
    EXPECT_EQ(std::string::npos, Metrics().find("skeleton_coherence_stale{"));
  }
}

TEST_F(StateRestartTest, WithoutTheStateARestartWhileTornForgetsTheMismatch) {
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d"}));
  {
    TestProcess exporter;
    ASSERT_TRUE(testing::HasLine(Start(&exporter, {}), kMismatch));
  }
  Tear();
  TestProcess exporter;
  const std::string metrics = Start(&exporter, {});
  EXPECT_FALSE(testing::HasLine(metrics, kMismatch)) << metrics;
}

TEST_F(StateRestartTest, CorruptStateIsAWarningNotAStop) {
  testing::MakeDirs(dir_.Join("state"));
  testing::WriteFile(dir_.Join("state/state.json"), "{\"schema\": \"skeleton-coh");
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d"}));
  TestProcess exporter;
  const std::string metrics = Start(&exporter, {"--storage.path=" + dir_.Join("state")});
  EXPECT_TRUE(testing::HasLine(metrics, kMismatch)) << metrics;
  EXPECT_NE(std::string::npos, testing::ReadFile(dir_.Join("log")).find("the state is corrupt"));
}

// A state file this exporter did not write (another exporter's, a shared folder)
// names a mismatch for a brain whose store is coherent, and a brain not here: the
// first scan logs what this process found beside what the state said, never "brain
// state changed from=mismatch to=ok" for a brain it had not judged.
TEST_F(StateRestartTest, AForeignStateLogsNoChangeForBrainsNotJudgedHere) {
  testing::MakeDirs(dir_.Join("state"));
  testing::WriteFile(
      dir_.Join("state/state.json"),
      "{\"schema\":\"skeleton-coherence-exporter-state-v1\",\"brains\":[\n"
      "{\"name\":\"elsewhere\",\"runtime_dir\":\"/nowhere/rt\",\"source\":\"static\","
      "\"state\":\"ok\"},\n"
      "{\"name\":\"m1nd\",\"runtime_dir\":\"" +
          runtime_ +
          "\",\"source\":\"static\",\"state\":\"mismatch\","
          "\"project_root\":\"/home/u/m1nd\",\"display_name\":\"m1nd\","
          "\"identity_source\":\"project_root\",\"identity_note\":\"\",\"m1nd_name\":\"\","
          "\"origin\":\"\",\"expected_slug\":\"m1nd\",\"found_slug\":\"keyvault\","
          "\"reason\":\"\",\"mismatch_since_ns\":1}\n]}\n");
  ReplaceFileAtomically(runtime_ + "/system_blocks.json",
                        StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d"}));
  TestProcess exporter;
  const std::string metrics = Start(&exporter, {"--storage.path=" + dir_.Join("state")});
  EXPECT_FALSE(testing::HasLine(metrics, kMismatch)) << metrics;
  const std::string log = testing::ReadFile(dir_.Join("log"));
  EXPECT_NE(std::string::npos, log.find("mismatches=1")) << log;  // the state was read
  EXPECT_EQ(std::string::npos, log.find("brain state changed")) << log;
  EXPECT_NE(std::string::npos, log.find("brain=m1nd restored=mismatch to=ok")) << log;
  EXPECT_NE(std::string::npos, log.find("brain=elsewhere restored=ok")) << log;
}

// A downgrade: the state of a newer release is named as such, not "corrupt".
TEST_F(StateRestartTest, AStateOfANewerReleaseIsNamedAsSuch) {
  testing::MakeDirs(dir_.Join("state"));
  testing::WriteFile(dir_.Join("state/state.json"),
                     "{\"schema\":\"skeleton-coherence-exporter-state-v2\",\"brains\":[]}\n");
  TestProcess exporter;
  const std::string metrics = Start(&exporter, {"--storage.path=" + dir_.Join("state")});
  // Counted, for SkeletonCoherenceStateRestoreFailed, and the line says what is lost.
  EXPECT_TRUE(
      testing::HasLine(metrics, "skeleton_coherence_exporter_state_restore_failures_total 1"))
      << metrics;
  const std::string log = testing::ReadFile(dir_.Join("log"));
  EXPECT_NE(std::string::npos, log.find("lost=\"every page held through a torn or unseen store"))
      << log;
  EXPECT_NE(std::string::npos, log.find("the state was written by a newer release")) << log;
  EXPECT_NE(std::string::npos, log.find("schema=skeleton-coherence-exporter-state-v2")) << log;
  EXPECT_NE(std::string::npos, log.find("supported_schema=skeleton-coherence-exporter-state-v1"))
      << log;
  EXPECT_EQ(std::string::npos, log.find("corrupt")) << log;
}

// A --storage.path in a brain the exporter watches is refused at start and by
// --config.check (exit 2, one line naming both folders), and a reload whose config
// would watch the state folder is refused like a broken config: the running one is kept.
TEST_F(StateRestartTest, AStoragePathInsideAWatchedBrainIsRefusedAtStart) {
  for (const bool check : {false, true}) {
    TestProcess exporter;
    std::string error;
    int port = 0;
    std::vector<std::string> args = {"--config.file=" + dir_.Join("config.yml"),
                                     "--storage.path=" + runtime_ + "/state"};
    if (check) args.push_back("--config.check");
    const std::string log = dir_.Join(check ? "check.log" : "start.log");
    ASSERT_TRUE(exporter.StartOnFreePort(SCX_EXPORTER_BINARY, args, log, &port, &error)) << error;
    const std::optional<int> status = exporter.WaitForExit(kWait);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << check;
    const std::string text = testing::ReadFile(log);
    EXPECT_NE(std::string::npos, text.find("--storage.path " + runtime_ +
                                           "/state is in the runtime "
                                           "dir of brain m1nd (" +
                                           runtime_ + ")"))
        << text;
    EXPECT_NE(0, access((runtime_ + "/state").c_str(), F_OK)) << check;  // nothing made
  }
}

TEST_F(StateRestartTest, AReloadThatWouldWatchTheStateFolderIsRefused) {
  TestProcess exporter;
  const std::string state = dir_.Join("state");
  ASSERT_NE(std::string::npos,
            Start(&exporter, {"--storage.path=" + state}).find("brain=\"m1nd\""));
  testing::WriteFile(dir_.Join("config.yml"),
                     "m1nd_registries: []\nbrains:\n"
                     "  - project_root: /home/u/other\n"
                     "    runtime_dir: " +
                         state + "\n");
  exporter.Signal(SIGHUP);
  EXPECT_TRUE(WaitFor(
      [&] {
        return testing::HasLine(
            Metrics(), "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1");
      },
      kWait));
  const std::string log = testing::ReadFile(dir_.Join("log"));
  EXPECT_NE(std::string::npos, log.find("msg=\"config reload failed\"")) << log;
  EXPECT_NE(std::string::npos, log.find("is in the runtime dir of brain other")) << log;
  EXPECT_NE(std::string::npos, Metrics().find("brain=\"m1nd\""));  // the old config runs on
}

// Two exporters on one state folder would overwrite each other's state: the second
// is refused (exit 1, one error line) once the first holds the folder's lock, and the
// first keeps running and writing.
TEST_F(StateRestartTest, ASecondExporterOnTheSameStateFolderIsRefused) {
  TestProcess first;
  Start(&first, {"--storage.path=" + dir_.Join("state")});
  TestProcess second;
  std::string error;
  int port = 0;
  ASSERT_TRUE(second.StartOnFreePort(
      SCX_EXPORTER_BINARY,
      {"--config.file=" + dir_.Join("config.yml"), "--storage.path=" + dir_.Join("state")},
      dir_.Join("second.log"), &port, &error))
      << error;
  // It waits 5 s for a restart's old process to let go, then gives up.
  const std::optional<int> status = second.WaitForExit(milliseconds(30000));
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1);
  const std::string log = testing::ReadFile(dir_.Join("second.log"));
  EXPECT_NE(std::string::npos, log.find("another exporter uses this state folder")) << log;
  EXPECT_EQ(std::string::npos, log.find("msg=listening")) << log;
  EXPECT_EQ(HttpGet(port_, "/-/healthy").status, 200);
}

}  // namespace
}  // namespace scx
