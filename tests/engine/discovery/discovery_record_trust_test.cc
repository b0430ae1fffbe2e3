// Tests for whose word discovery and the scanner take (issue 43), on disk: a registry
// record speaks only for a runtime dir its file's owner could have written as m1nd, a
// heartbeat in the future is never the freshest, and a store link that leaves the
// runtime dir's owner publishes nothing. Owners are simulated with chown (the tests run
// as root in CI; they are skipped otherwise), each attack beside its honest case.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/discovery/discovery.h"
#include "engine/scanner.h"
#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Entry;
using testing::Find;
using testing::MakeDirs;
using testing::Names;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

constexpr uid_t kVictim = 200000;
constexpr uid_t kAttacker = 200001;

std::int64_t NowMs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void Chown(const std::string& path, uid_t uid) {
  ASSERT_EQ(0, lchown(path.c_str(), uid, uid)) << path << ": " << strerror(errno);
}

// Two users' registries on one host: the victim's brain in its runtime dir, with a
// store that carries another project's skeleton (the incident: a mismatch to page on).
class RecordTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "not root: owners are simulated with chown";
    MakeDirs(VictimRuntime());
    Chown(VictimRuntime(), kVictim);
    WriteFile(VictimRuntime() + "/system_blocks.json",
              StoreJson("sk_kvlt_candidate", {"sb_kvlt_core_0123abcd"}));
    Chown(VictimRuntime() + "/system_blocks.json", kVictim);
  }

  std::string VictimRegistry() const { return tmp_.Join("victim/registry"); }
  std::string AttackerRegistry() const { return tmp_.Join("attacker/registry"); }
  std::string VictimRuntime() const { return tmp_.Join("victim/.m1nd-rt"); }

  // Writes `entry` as `file` in `registry`'s instances/, owned by `owner`.
  static std::string WriteRecord(const std::string& registry, const std::string& file,
                                 const Entry& entry, uid_t owner) {
    std::string path = registry + "/instances/" + file;
    WriteFile(path, entry.Json());
    Chown(path, owner);
    return path;
  }
  Entry VictimEntry() const {
    Entry entry{"/home/victim/m1nd", VictimRuntime()};
    entry.heartbeat_ms = NowMs() - 3000;
    return entry;
  }
  // Read-write, the freshest heartbeat there can be (a day ahead), the victim's dir.
  Entry EvilEntry(const std::string& workspace) const {
    Entry entry{workspace, VictimRuntime()};
    entry.heartbeat_ms = NowMs() + 86400000;
    return entry;
  }
  DiscoveryConfig BothRegistries() const {
    DiscoveryConfig config;
    config.registries = {VictimRegistry(), AttackerRegistry()};
    return config;
  }

  TempDir tmp_;
};

// Hide: the attacker's record would name the brain "kvlt" and turn the page ok.
TEST_F(RecordTrustTest, AnotherUsersRecordCannotHideAPage) {
  WriteRecord(VictimRegistry(), "victim.json", VictimEntry(), kVictim);
  const std::string evil =
      WriteRecord(AttackerRegistry(), "evil.json", EvilEntry("/home/attacker/kvlt"), kAttacker);
  const Discovery discovery = DiscoverBrains(BothRegistries(), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_EQ("/home/victim/m1nd", discovery.brains[0].project_root);
  ASSERT_EQ(1u, discovery.conflicts.size());
  EXPECT_EQ(RegistryConflictReason::kForeignOwner, discovery.conflicts[0].reason);
  EXPECT_EQ(evil, discovery.conflicts[0].record_path);
  EXPECT_EQ(VictimRuntime(), discovery.conflicts[0].runtime_dir);
  EXPECT_NE(std::string::npos, discovery.conflicts[0].detail.find("uid 200001"))
      << discovery.conflicts[0].detail;

  // The verdict it would have changed stands: the page stays up.
  Scanner scanner;
  const ScanResult scan = scanner.Scan(BothRegistries());
  ASSERT_EQ(1u, scan.brains.size());
  EXPECT_EQ(BrainState::kMismatch, scan.brains[0].state);
  ASSERT_NE(nullptr, scan.brains[0].coherence);
  EXPECT_EQ("kvlt", scan.brains[0].coherence->found_slug);
  EXPECT_EQ(1u, scan.conflicts.size());
}

// Forge: alone on the victim's dir, the attacker's record would make the brain "evil".
// It names nothing, not even the project brains under the runtime dir.
TEST_F(RecordTrustTest, AnotherUsersRecordCannotForgeABrain) {
  WriteFile(VictimRuntime() + "/project-brains/0a/project_brain.json",
            testing::ManifestJson("/home/victim/lib"));
  WriteRecord(AttackerRegistry(), "evil.json", EvilEntry("/home/attacker/evil"), kAttacker);
  const Discovery discovery = DiscoverBrains(BothRegistries(), {});
  EXPECT_TRUE(discovery.brains.empty()) << Names(discovery).size();
  ASSERT_EQ(1u, discovery.conflicts.size());
  // A "project" entry of the attacker's naming the victim's project folder: refused.
  Entry project{VictimRuntime() + "/project-brains/0a", VictimRuntime() + "/project-brains/0a",
                "\"project\""};
  Chown(VictimRuntime() + "/project-brains/0a", kVictim);
  WriteRecord(AttackerRegistry(), "evil-project.json", project, kAttacker);
  const Discovery again = DiscoverBrains(BothRegistries(), {});
  EXPECT_TRUE(again.brains.empty());
  EXPECT_EQ(2u, again.conflicts.size());
}

// The honest case: one user's registry, records of its own runtime dir.
TEST_F(RecordTrustTest, OneUsersRegistryIsBelieved) {
  WriteRecord(VictimRegistry(), "victim.json", VictimEntry(), kVictim);
  DiscoveryConfig config;
  config.registries = {VictimRegistry()};
  const Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_TRUE(discovery.conflicts.empty());
}

// Two records of the same owner: the freshest names the brain, no conflict; a heartbeat
// in the future is never the freshest, and is a conflict.
TEST_F(RecordTrustTest, TwoRecordsOfOneOwnerTheFreshestPast) {
  Entry older{"/home/victim/old", VictimRuntime()};
  older.heartbeat_ms = NowMs() - 60000;
  WriteRecord(VictimRegistry(), "a.json", older, kVictim);
  WriteRecord(AttackerRegistry(), "b.json", VictimEntry(), kVictim);  // a second registry
  Discovery discovery = DiscoverBrains(BothRegistries(), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_TRUE(discovery.conflicts.empty());
  Entry liar{"/home/victim/liar", VictimRuntime()};
  liar.heartbeat_ms = NowMs() + 3600000;
  const std::string liar_path = WriteRecord(VictimRegistry(), "c.json", liar, kVictim);
  discovery = DiscoverBrains(BothRegistries(), {});
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  ASSERT_EQ(1u, discovery.conflicts.size());
  EXPECT_EQ(RegistryConflictReason::kFutureHeartbeat, discovery.conflicts[0].reason);
  EXPECT_EQ(liar_path, discovery.conflicts[0].record_path);
}

// Root aside: root's record speaks for a user's runtime dir, and a root-owned runtime
// dir (a system m1nd) is root's records' alone.
TEST_F(RecordTrustTest, RootOwnedRecordsAndRuntimeDirs) {
  WriteRecord(AttackerRegistry(), "root.json", EvilEntry("/home/root/m1nd"), 0);
  DiscoveryConfig config;
  config.registries = {AttackerRegistry()};
  Discovery discovery = DiscoverBrains(config, {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_TRUE(discovery.conflicts.empty());
  Chown(VictimRuntime(), 0);
  discovery = DiscoverBrains(config, {});
  EXPECT_EQ((std::vector<std::string>{"m1nd"}), Names(discovery));
  EXPECT_TRUE(discovery.conflicts.empty());
  WriteRecord(VictimRegistry(), "user.json", VictimEntry(), kVictim);
  discovery = DiscoverBrains(BothRegistries(), {});
  EXPECT_EQ("/home/root/m1nd", Find(discovery, "m1nd")->project_root);
  ASSERT_EQ(1u, discovery.conflicts.size());
  EXPECT_EQ(RegistryConflictReason::kForeignOwner, discovery.conflicts[0].reason);
}

// A store link to another project's root-only file: unreadable with its own reason,
// and nothing of that file in the report (no skeleton id, no verdict).
TEST_F(RecordTrustTest, AForeignStoreLinkPublishesNothing) {
  const std::string secret = tmp_.Join("root-only/system_blocks.json");
  WriteFile(secret, StoreJson("sk_secret_candidate", {"sb_secret_core_0123abcd"}));
  ASSERT_EQ(0, chmod(tmp_.Join("root-only").c_str(), 0700));
  const std::string store = VictimRuntime() + "/system_blocks.json";
  ASSERT_EQ(0, unlink(store.c_str()));
  ASSERT_EQ(0, symlink(secret.c_str(), store.c_str()));
  Chown(store, kVictim);
  WriteRecord(VictimRegistry(), "victim.json", VictimEntry(), kVictim);
  DiscoveryConfig config;
  config.registries = {VictimRegistry()};
  Scanner scanner;
  const ScanResult scan = scanner.Scan(config);
  ASSERT_EQ(1u, scan.brains.size());
  const BrainReport& report = scan.brains[0];
  EXPECT_EQ(BrainState::kUnreadable, report.state);
  EXPECT_EQ(StoreError::kForeignLink, report.read_error);
  EXPECT_EQ(nullptr, report.coherence);
  EXPECT_FALSE(report.has_store_facts);
  EXPECT_EQ(std::string::npos, report.read_error_message.find("secret"))
      << report.read_error_message;
  // The honest case beside it: the same link to a file of the runtime dir's owner.
  Chown(secret, kVictim);
  Chown(tmp_.Join("root-only"), kVictim);
  const ScanResult honest = scanner.Scan(config);
  ASSERT_EQ(1u, honest.brains.size());
  EXPECT_EQ(BrainState::kMismatch, honest.brains[0].state);
  ASSERT_NE(nullptr, honest.brains[0].coherence);
  EXPECT_EQ("secret", honest.brains[0].coherence->found_slug);
}

}  // namespace
}  // namespace scx
