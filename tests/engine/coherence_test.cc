// The verdict: the RED battery from the incident, and the mismatch reasons.
#include "engine/coherence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace scx {
namespace {

constexpr const SkeletonDigest* kNoStore = nullptr;

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
  EXPECT_FALSE(CheckCoherence("~/m1nd", "", kNoStore).has_value());
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
  EXPECT_FALSE(CheckCoherence("", "", kNoStore).has_value());
  EXPECT_FALSE(CheckCoherence("/x/keyvault", "Key Vault", kNoStore).has_value());
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

// How m1nd mints a scan's ids: sb_<slug>_<sanitize_slug(dir)>_<8 hex>, "_2", "_3"...
// on a collision, and the repo-root module's directory "." sanitizes to "repo". Every
// one of them carries the slug, so its own store is Ok, from the list and the digest.
TEST(CoherenceTest, EveryBlockIdM1ndMintsIsAccepted) {
  const ServedSkeleton served =
      Skeleton("sk_m1nd_candidate", {"sb_m1nd_repo_4f3c2a1b", "sb_m1nd_core_0a1b2c3d",
                                     "sb_m1nd_core_0a1b2c3d_2", "sb_m1nd_core_0a1b2c3d_3"});
  EXPECT_EQ(StatusOf("/home/u/m1nd", "", served), CoherenceStatus::kOk);
  EXPECT_EQ(CoherenceForSlug("m1nd", DigestOf(served)).status, CoherenceStatus::kOk);
  // A repo whose own slug is "repo" (no letters or digits in its name).
  const ServedSkeleton bare = Skeleton("sk_repo_candidate", {"sb_repo_repo_4f3c2a1b"});
  EXPECT_EQ(StatusOf("/home/u/---", "", bare), CoherenceStatus::kOk);
  // The repo-root module of another repo still offends.
  const Coherence mixed = CoherenceForSlug(
      "m1nd",
      Skeleton("sk_m1nd_candidate", {"sb_m1nd_core_0a1b2c3d", "sb_keyvault_repo_9e8d7c6b"}));
  EXPECT_EQ(mixed.status, CoherenceStatus::kMismatch);
  EXPECT_NE(mixed.reason.find("\"sb_keyvault_repo_9e8d7c6b\""), std::string::npos) << mixed.reason;
}

// No Unicode normalisation (slug_test.cc): a repo folder renamed from its precomposed
// spelling to its decomposed one (a copy through a macOS tool) no longer carries the
// slug its store was minted with. m1nd reports that mismatch too.
TEST(CoherenceTest, DecomposedAndPrecomposedSpellingsAreDifferentSlugs) {
  const ServedSkeleton minted_precomposed = Skeleton("sk_caf_candidate", {"sb_caf_core_0a1b2c3d"});
  EXPECT_EQ(StatusOf("/home/u/Caf\xC3\xA9", "", minted_precomposed), CoherenceStatus::kOk);
  const std::optional<Coherence> renamed =
      CheckCoherence("/home/u/Cafe\xCC\x81", "", &minted_precomposed);
  ASSERT_TRUE(renamed.has_value());
  EXPECT_EQ(renamed->status, CoherenceStatus::kMismatch);
  EXPECT_EQ(renamed->expected_slug, "cafe");
  EXPECT_EQ(renamed->found_slug, "caf");
}

// --- the digest: what a store keeps instead of its block ids ---------------------------

// The verdicts of a list and of its digest, field by field.
void ExpectSameVerdict(const std::string& expected, const ServedSkeleton& served) {
  const Coherence from_list = CoherenceForSlug(expected, served);
  const Coherence from_digest = CoherenceForSlug(expected, DigestOf(served));
  std::string blocks;
  for (const std::string& id : served.block_ids) blocks += " \"" + id + "\"";
  const std::string where =
      "slug \"" + expected + "\", skeleton \"" + served.skeleton_id + "\", blocks" + blocks;
  EXPECT_EQ(from_list.status, from_digest.status) << where;
  EXPECT_EQ(from_list.expected_slug, from_digest.expected_slug) << where;
  EXPECT_EQ(from_list.found_slug, from_digest.found_slug) << where;
  EXPECT_EQ(from_list.reason, from_digest.reason) << where;
}

TEST(SkeletonDigestTest, KeepsOneBlockIdForAStoreM1ndMinted) {
  std::vector<std::string> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back("sb_m1nd_core_" + std::to_string(i));
  const SkeletonDigest digest = DigestOf(Skeleton("sk_m1nd_candidate", blocks));
  EXPECT_EQ("sk_m1nd_candidate", digest.skeleton_id);
  // The first block offends only the candidate "m1nd_candidate".
  ASSERT_EQ(1u, digest.offenders.size());
  EXPECT_EQ("sb_m1nd_core_0", digest.offenders[0].block_id);
  EXPECT_EQ(std::string("m1nd_candidate").size(), digest.offenders[0].from_length);
  EXPECT_EQ(CoherenceStatus::kOk, CoherenceForSlug("m1nd", digest).status);
}

TEST(SkeletonDigestTest, KeepsNoBlockIdWhenNoSlugCanPassTheSkeleton) {
  const SkeletonDigest digest = DigestOf(Skeleton("keyvault_candidate", {"x", "y", "sb_z"}));
  EXPECT_TRUE(digest.offenders.empty());
  const Coherence verdict = CoherenceForSlug("keyvault", digest);
  EXPECT_EQ(CoherenceStatus::kMismatch, verdict.status);
  EXPECT_NE(verdict.reason.find("skeleton_id"), std::string::npos);
}

TEST(SkeletonDigestTest, NamesTheFirstOffenderOfEachCandidate) {
  const ServedSkeleton served =
      Skeleton("sk_my_repo_x", {"sb_my_repo_x_1", "sb_my_repo_2", "sb_my_3", "sb_other_4"});
  const SkeletonDigest digest = DigestOf(served);
  // Candidates: "my", "my_repo", "my_repo_x".
  EXPECT_EQ(CoherenceStatus::kOk,
            CoherenceForSlug("my_repo_x", Skeleton("sk_my_repo_x", {"sb_my_repo_x_1"})).status);
  EXPECT_NE(CoherenceForSlug("my_repo_x", digest).reason.find("\"sb_my_repo_2\""),
            std::string::npos);
  EXPECT_NE(CoherenceForSlug("my_repo", digest).reason.find("\"sb_my_3\""), std::string::npos);
  EXPECT_NE(CoherenceForSlug("my", digest).reason.find("\"sb_other_4\""), std::string::npos);
  for (const char* slug : {"my", "my_repo", "my_repo_x", "my_r", "", "m", "repo"}) {
    ExpectSameVerdict(slug, served);
  }
}

TEST(SkeletonDigestTest, EmptySlugAndBareSkeletons) {
  ExpectSameVerdict("", Skeleton("sk_", {"sb__a", "sb_a"}));
  ExpectSameVerdict("", Skeleton("sk__x", {"sb__a", "sb_a"}));
  ExpectSameVerdict("", Skeleton("sk_x", {}));
  ExpectSameVerdict("x", Skeleton("sk_x", {"sb_x", "sb_x_", "sb_"}));
  EXPECT_EQ(CoherenceStatus::kOk,
            CoherenceForSlug("", DigestOf(Skeleton("sk_", {"sb__a"}))).status);
  EXPECT_EQ(CoherenceStatus::kMismatch,
            CoherenceForSlug("", DigestOf(Skeleton("sk__x", {"sb__a", "sb_a"}))).status);
}

// A random string over pieces chosen to make prefixes collide: underscores, the id
// prefixes, multi-byte UTF-8 and bytes that are not UTF-8.
std::string RandomText(std::mt19937* random, int max_pieces) {
  static const char* const kPieces[] = {"a", "b", "_", "__", "sk_", "sb_", "\xC3\xA9", "\xFF", "1"};
  std::uniform_int_distribution<int> count(0, max_pieces);
  std::uniform_int_distribution<std::size_t> piece(0, std::size(kPieces) - 1);
  std::string text;
  for (int n = count(*random); n > 0; --n) text += kPieces[piece(*random)];
  return text;
}

// Every prefix of the skeleton id's rest cut at a '_' or at its end, and a few others.
std::vector<std::string> SlugsToTry(const std::string& skeleton_id, std::mt19937* random) {
  std::vector<std::string> slugs = {"", RandomText(random, 3)};
  if (skeleton_id.rfind("sk_", 0) == 0) {
    const std::string rest = skeleton_id.substr(3);
    for (std::size_t n = 0; n <= rest.size(); ++n) slugs.push_back(rest.substr(0, n));
  }
  return slugs;
}

TEST(SkeletonDigestTest, SameVerdictAsTheBlockListForRandomStores) {
  std::mt19937 random(20261130);  // fixed: the same stores every run
  for (int round = 0; round < 3000; ++round) {
    const std::string slug = RandomText(&random, 3);
    ServedSkeleton served;
    switch (round % 4) {
      case 0:
        served.skeleton_id = "sk_" + slug + "_candidate";
        break;
      case 1:
        served.skeleton_id = "sk_" + slug;
        break;
      case 2:
        served.skeleton_id = "sk_" + RandomText(&random, 5);
        break;
      default:
        served.skeleton_id = RandomText(&random, 5);  // mostly without "sk_"
        break;
    }
    std::uniform_int_distribution<int> block_count(0, 6);
    std::uniform_int_distribution<int> kind(0, 3);
    for (int n = block_count(random); n > 0; --n) {
      const std::string text = RandomText(&random, 3);
      switch (kind(random)) {
        case 0:
          served.block_ids.push_back("sb_" + slug + "_" + text);
          break;
        case 1:
          served.block_ids.push_back("sb_" + slug + text);
          break;
        case 2:
          served.block_ids.push_back(
              "sb_" +
              served.skeleton_id.substr(std::min<std::size_t>(3, served.skeleton_id.size())) +
              text);
          break;
        default:
          served.block_ids.push_back(text);
          break;
      }
    }
    for (const std::string& expected : SlugsToTry(served.skeleton_id, &random)) {
      ExpectSameVerdict(expected, served);
    }
    if (::testing::Test::HasFailure()) break;  // one store is enough to debug
  }
}

TEST(SkeletonDigestTest, SameVerdictFromAnIdentity) {
  const ServedSkeleton served =
      Skeleton("sk_key_vault_candidate", {"sb_key_vault_core", "sb_key_x", "sb_keyvault_y"});
  const SkeletonDigest digest = DigestOf(served);
  for (const char* name :
       {"Key Vault", "key", "Key-Vault-Candidate", "KeyVault", "", "\xC4\xB0x"}) {
    const std::optional<Coherence> from_list = CheckCoherence("/home/u/key", name, &served);
    const std::optional<Coherence> from_digest = CheckCoherence("/home/u/key", name, &digest);
    ASSERT_TRUE(from_list && from_digest) << name;
    EXPECT_EQ(from_list->status, from_digest->status) << name;
    EXPECT_EQ(from_list->found_slug, from_digest->found_slug) << name;
    EXPECT_EQ(from_list->reason, from_digest->reason) << name;
  }
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
