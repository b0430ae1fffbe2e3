// Tests for whose registry record counts (record_trust.h), without a disk: who may
// speak for a runtime dir, who names its brain, and which conflicts are reported.
#include "engine/discovery/record_trust.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scx {
namespace {

constexpr std::uint32_t kVictim = 200000;
constexpr std::uint32_t kAttacker = 200001;
constexpr std::int64_t kNowMs = 1796000000000;

RecordClaim Claim(std::string file, std::uint32_t owner, std::uint64_t heartbeat,
                  std::string key = "rt", std::optional<std::uint32_t> dir_owner = kVictim) {
  RecordClaim claim;
  claim.key = std::move(key);
  claim.instance_file = std::move(file);
  claim.record_owner = owner;
  claim.last_heartbeat_ms = heartbeat;
  claim.dir_owner = dir_owner;
  return claim;
}

TEST(RecordMaySpeakForTest, TheRuntimeDirsOwnerOrRoot) {
  EXPECT_TRUE(RecordMaySpeakFor(kVictim, kVictim));
  EXPECT_FALSE(RecordMaySpeakFor(kAttacker, kVictim));
  EXPECT_TRUE(RecordMaySpeakFor(kRootUid, kVictim));   // root aside
  EXPECT_FALSE(RecordMaySpeakFor(kVictim, kRootUid));  // a root-owned dir is root's
  EXPECT_TRUE(RecordMaySpeakFor(kRootUid, kRootUid));
  EXPECT_TRUE(RecordMaySpeakFor(kAttacker, std::nullopt));  // nothing to compare with
}

TEST(HeartbeatTest, OneInTheFutureRanksAsNone) {
  EXPECT_FALSE(HeartbeatIsInFuture(kNowMs, kNowMs));
  EXPECT_TRUE(HeartbeatIsInFuture(kNowMs + 1, kNowMs));
  EXPECT_EQ(0u, RankedHeartbeat(kNowMs + 1, kNowMs));
  EXPECT_EQ(static_cast<std::uint64_t>(kNowMs - 5), RankedHeartbeat(kNowMs - 5, kNowMs));
  EXPECT_TRUE(HeartbeatIsInFuture(0, -1));  // a clock before 1970 trusts no heartbeat
}

// The attack: a record of another user, read_write with the freshest heartbeat (one in
// the future), claims the victim's runtime dir. It is refused; the victim's names it.
TEST(DecideClaimsTest, AnotherUsersRecordNeverSpeaksForTheRuntimeDir) {
  const std::vector<RecordClaim> claims = {Claim("victim.json", kVictim, kNowMs - 5000),
                                           Claim("evil.json", kAttacker, kNowMs + 86400000)};
  const ClaimDecision decision = DecideClaims(claims, kNowMs);
  EXPECT_EQ((std::vector<std::size_t>{0}), decision.order);
  ASSERT_EQ(1u, decision.conflicts.size());
  EXPECT_EQ(1u, decision.conflicts[0].claim);
  EXPECT_EQ(RegistryConflictReason::kForeignOwner, decision.conflicts[0].reason);
  // Alone, it is refused too: it names nothing.
  const ClaimDecision alone = DecideClaims({claims[1]}, kNowMs);
  EXPECT_TRUE(alone.order.empty());
  ASSERT_EQ(1u, alone.conflicts.size());
}

// The honest case: one user's records; the freshest read_write names the brain.
TEST(DecideClaimsTest, OneUsersRecordsFreshestReadWriteFirst) {
  RecordClaim attacher = Claim("a-attacher.json", kVictim, kNowMs - 10);
  attacher.read_only = true;
  const std::vector<RecordClaim> claims = {attacher, Claim("old.json", kVictim, kNowMs - 9000),
                                           Claim("new.json", kVictim, kNowMs - 1000),
                                           Claim("other.json", kVictim, kNowMs, "rt2")};
  const ClaimDecision decision = DecideClaims(claims, kNowMs);
  EXPECT_EQ((std::vector<std::size_t>{2, 1, 0, 3}), decision.order);
  EXPECT_TRUE(decision.conflicts.empty());
}

TEST(DecideClaimsTest, EqualHeartbeatsGoByFileName) {
  const std::vector<RecordClaim> claims = {Claim("b.json", kVictim, 50),
                                           Claim("a.json", kVictim, 50)};
  EXPECT_EQ((std::vector<std::size_t>{1, 0}), DecideClaims(claims, kNowMs).order);
}

// A heartbeat in the future is never the freshest: among one user's records it ranks as
// none, and that is a conflict; alone it is no conflict (nothing competes with it).
TEST(DecideClaimsTest, AFutureHeartbeatIsNeverTheFreshest) {
  const std::vector<RecordClaim> claims = {Claim("liar.json", kVictim, kNowMs + 60000),
                                           Claim("real.json", kVictim, kNowMs - 3000)};
  const ClaimDecision decision = DecideClaims(claims, kNowMs);
  EXPECT_EQ((std::vector<std::size_t>{1, 0}), decision.order);
  ASSERT_EQ(1u, decision.conflicts.size());
  EXPECT_EQ(0u, decision.conflicts[0].claim);
  EXPECT_EQ(RegistryConflictReason::kFutureHeartbeat, decision.conflicts[0].reason);
  EXPECT_TRUE(DecideClaims({claims[0]}, kNowMs).conflicts.empty());
  EXPECT_EQ((std::vector<std::size_t>{0}), DecideClaims({claims[0]}, kNowMs).order);
}

// Root's record may speak for a user's runtime dir (root can write it anyway); in a
// root-owned runtime dir only root's records speak.
TEST(DecideClaimsTest, RootAside) {
  const ClaimDecision users_dir = DecideClaims({Claim("root.json", kRootUid, kNowMs - 1)}, kNowMs);
  EXPECT_EQ((std::vector<std::size_t>{0}), users_dir.order);
  EXPECT_TRUE(users_dir.conflicts.empty());
  const ClaimDecision roots_dir =
      DecideClaims({Claim("root.json", kRootUid, kNowMs - 2, "rt", kRootUid),
                    Claim("user.json", kVictim, kNowMs - 1, "rt", kRootUid)},
                   kNowMs);
  EXPECT_EQ((std::vector<std::size_t>{0}), roots_dir.order);
  ASSERT_EQ(1u, roots_dir.conflicts.size());
  EXPECT_EQ(1u, roots_dir.conflicts[0].claim);
}

TEST(DecideClaimsTest, ConflictsComeInClaimOrder) {
  const std::vector<RecordClaim> claims = {
      Claim("liar.json", kVictim, kNowMs + 1), Claim("evil.json", kAttacker, 1),
      Claim("real.json", kVictim, kNowMs - 1), Claim("evil2.json", kAttacker, 2, "rt2")};
  const ClaimDecision decision = DecideClaims(claims, kNowMs);
  ASSERT_EQ(3u, decision.conflicts.size());
  EXPECT_EQ(0u, decision.conflicts[0].claim);
  EXPECT_EQ(RegistryConflictReason::kFutureHeartbeat, decision.conflicts[0].reason);
  EXPECT_EQ(1u, decision.conflicts[1].claim);
  EXPECT_EQ(3u, decision.conflicts[2].claim);
}

}  // namespace
}  // namespace scx
