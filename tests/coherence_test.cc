// The verdict: the RED battery from the incident, and the mismatch reasons.
#include "engine/coherence.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace scx {
namespace {

ServedSkeleton Skeleton(std::string id, std::vector<std::string> blocks) {
  return ServedSkeleton{std::move(id), std::move(blocks)};
}

// The verdict's status; empty (and so unequal to any status) when there is no verdict.
std::optional<CoherenceStatus> StatusOf(const std::string& project_root,
                                        const std::string& display_name,
                                        const ServedSkeleton& served) {
  const std::optional<Coherence> verdict = CheckCoherence(project_root, display_name, &served);
  if (!verdict) return std::nullopt;
  return verdict->status;
}

// RED battery case 1: the incident.
TEST(RedBattery, Case1ForeignKeyvaultSkeletonOnM1ndBrainIsMismatch) {
  ServedSkeleton served =
      Skeleton("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d", "sb_keyvault_cli_5e6f7a8b"});
  auto verdict = CheckCoherence("~/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(verdict->expected_slug, "m1nd");
  EXPECT_EQ(verdict->found_slug, "keyvault");
  EXPECT_NE(verdict->reason.find("sk_keyvault_candidate"), std::string::npos);
}

// RED battery case 2: own-root skeleton, healthy baseline.
TEST(RedBattery, Case2OwnSkeletonOnM1ndBrainIsOk) {
  ServedSkeleton served =
      Skeleton("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d", "sb_m1nd_mcp_9f8e7d6c"});
  auto verdict = CheckCoherence("~/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kOk);
  EXPECT_EQ(verdict->expected_slug, "m1nd");
  EXPECT_EQ(verdict->found_slug, "m1nd");
  EXPECT_EQ(verdict->reason, "");
}

// RED battery case 3: empty store, no signal.
TEST(RedBattery, Case3NoStoreIsSilent) {
  EXPECT_FALSE(CheckCoherence("~/m1nd", "", nullptr).has_value());
}

// RED battery case 4: sanitization is part of the rule.
TEST(RedBattery, Case4MyRepoSanitizesToMyRepoSlugAndIsOk) {
  ServedSkeleton served =
      Skeleton("sk_my_repo_candidate", {"sb_my_repo_src_0badf00d", "sb_my_repo_docs_12345678"});
  auto verdict = CheckCoherence("/home/u/My-Repo", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kOk);
  EXPECT_EQ(verdict->expected_slug, "my_repo");
}

TEST(CoherenceTest, NoSignalWithoutASkeletonWhateverTheIdentity) {
  EXPECT_FALSE(CheckCoherence("", "", nullptr).has_value());
  EXPECT_FALSE(CheckCoherence("/x/keyvault", "Key Vault", nullptr).has_value());
}

TEST(CoherenceTest, RatifiedSkeletonWithSlugPrefixIsOk) {
  ServedSkeleton served = Skeleton("sk_m1nd_seed_2026_07", {"sb_m1nd_core_graph_kernel"});
  auto verdict = CheckCoherence("/home/u/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kOk);
}

TEST(CoherenceTest, BareSkeletonIdIsOk) {
  ServedSkeleton served = Skeleton("sk_m1nd", {});
  EXPECT_EQ(StatusOf("/home/u/m1nd", "", served), CoherenceStatus::kOk);
}

TEST(CoherenceTest, SlugPrefixWithoutSeparatorIsMismatch) {
  // "sk_m1ndx_candidate" starts with "sk_m1nd" but not with "sk_m1nd_".
  ServedSkeleton served = Skeleton("sk_m1ndx_candidate", {});
  auto verdict = CheckCoherence("/home/u/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(verdict->found_slug, "m1ndx");
}

TEST(CoherenceTest, DisplayNameWinsOverProjectRoot) {
  ServedSkeleton served = Skeleton("sk_key_vault_candidate", {"sb_key_vault_core_00000000"});
  auto verdict = CheckCoherence("/home/u/m1nd", "Key Vault", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kOk);
  EXPECT_EQ(verdict->expected_slug, "key_vault");
}

TEST(CoherenceTest, EmptyDisplayNameFallsBackToBasename) {
  ServedSkeleton served = Skeleton("sk_keyvault_candidate", {});
  auto verdict = CheckCoherence("/home/u/m1nd/", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(verdict->expected_slug, "m1nd");
}

TEST(CoherenceTest, FirstForeignBlockIsNamedInTheReason) {
  ServedSkeleton served =
      Skeleton("sk_m1nd_candidate",
               {"sb_m1nd_core_1a2b3c4d", "sb_keyvault_vault_11111111", "sb_other_x_22222222"});
  auto verdict = CheckCoherence("/home/u/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(verdict->expected_slug, "m1nd");
  EXPECT_EQ(verdict->found_slug, "m1nd");  // the skeleton id names m1nd
  EXPECT_NE(verdict->reason.find("sb_keyvault_vault_11111111"), std::string::npos);
  EXPECT_EQ(verdict->reason.find("sb_other_x_22222222"), std::string::npos);
  EXPECT_NE(verdict->reason.find("sb_m1nd_"), std::string::npos);
}

TEST(CoherenceTest, BlockNeedsTheSeparatorAfterTheSlug) {
  ServedSkeleton served = Skeleton("sk_m1nd_candidate", {"sb_m1ndcore_1a2b3c4d"});
  EXPECT_EQ(StatusOf("/home/u/m1nd", "", served), CoherenceStatus::kMismatch);
}

TEST(CoherenceTest, SkeletonIsCheckedBeforeBlocks) {
  ServedSkeleton served = Skeleton("sk_keyvault_candidate", {"sb_other_a_00000000"});
  auto verdict = CheckCoherence("/home/u/m1nd", "", &served);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_NE(verdict->reason.find("skeleton_id"), std::string::npos);
  EXPECT_EQ(verdict->reason.find("sb_other"), std::string::npos);
}

TEST(CoherenceTest, IdentityWithoutAlphanumericsExpectsRepo) {
  ServedSkeleton served = Skeleton("sk_repo_candidate", {"sb_repo_core_00000000"});
  EXPECT_EQ(StatusOf("/", "", served), CoherenceStatus::kOk);
}

TEST(FoundSlugOfTest, CandidateIdsGiveTheTextBetween) {
  EXPECT_EQ(FoundSlugOf("sk_keyvault_candidate"), "keyvault");
  EXPECT_EQ(FoundSlugOf("sk_my_repo_candidate"), "my_repo");
}

TEST(FoundSlugOfTest, OtherIdsAreSanitized) {
  EXPECT_EQ(FoundSlugOf("sk_m1nd_seed_2026_07"), "sk_m1nd_seed_2026_07");
  EXPECT_EQ(FoundSlugOf("Weird-ID"), "weird_id");
  // "sk_candidate" has no text between "sk_" and "_candidate".
  EXPECT_EQ(FoundSlugOf("sk_candidate"), "sk_candidate");
}

}  // namespace
}  // namespace scx
