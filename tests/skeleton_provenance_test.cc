// Tests for whose skeleton a brain serves: owner, sharing, prefix ambiguity.
#include "engine/skeleton_provenance.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scx {
namespace {

ServedSkeletonOf Served(const std::string& brain, const std::string& expected,
                        const std::string& skeleton_id, bool mismatch) {
  return ServedSkeletonOf{brain, expected, skeleton_id, mismatch};
}

TEST(SkeletonProvenanceTest, TheIncidentNamesTheOwner) {
  const auto result = FindSkeletonProvenance({
      Served("keyvault", "keyvault", "sk_keyvault_candidate", false),
      Served("m1nd", "m1nd", "sk_keyvault_candidate", true),
      Served("notes", "notes", "", false),
  });
  ASSERT_EQ(3u, result.size());
  EXPECT_EQ("keyvault", result[1].owner_brain);
  EXPECT_EQ("", result[0].owner_brain);  // only a mismatch has a foreign owner
  // The copied store: both serve one skeleton id.
  EXPECT_EQ(std::vector<std::string>{"m1nd"}, result[0].shared_with);
  EXPECT_EQ(std::vector<std::string>{"keyvault"}, result[1].shared_with);
  EXPECT_TRUE(result[2].shared_with.empty());
  for (const SkeletonProvenance& p : result) EXPECT_FALSE(p.prefix_ambiguous);
}

TEST(SkeletonProvenanceTest, NoKnownOwnerWhenNoOtherBrainAcceptsIt) {
  const auto result = FindSkeletonProvenance({
      Served("m1nd", "m1nd", "sk_stranger_candidate", true),
      Served("keyvault", "keyvault", "sk_keyvault_candidate", false),
  });
  EXPECT_EQ("", result[0].owner_brain);
  EXPECT_TRUE(result[0].shared_with.empty());
}

TEST(SkeletonProvenanceTest, TheMostSpecificOwnerWins) {
  const auto result = FindSkeletonProvenance({
      Served("m1nd", "m1nd", "sk_keyvault_core_candidate", true),
      Served("keyvault", "keyvault", "sk_keyvault_candidate", false),
      Served("keyvault_core", "keyvault_core", "sk_keyvault_core_seed", false),
  });
  EXPECT_EQ("keyvault_core", result[0].owner_brain);
}

// A mismatch of blocks only serves its own skeleton: it has no foreign owner.
TEST(SkeletonProvenanceTest, BlocksOnlyMismatchHasNoOwner) {
  const auto result = FindSkeletonProvenance({
      Served("m1nd", "m1nd", "sk_m1nd_candidate", true),
      Served("m1nd_copy", "m1nd", "sk_m1nd_candidate", false),
  });
  EXPECT_EQ("", result[0].owner_brain);
  EXPECT_EQ(std::vector<std::string>{"m1nd_copy"}, result[0].shared_with);
}

TEST(SkeletonProvenanceTest, PrefixAmbiguityFromTheIdAlone) {
  const auto result = FindSkeletonProvenance({
      Served("m1nd", "m1nd", "sk_m1nd_core_candidate", false),
      Served("exact", "exact", "sk_exact_candidate", false),
      Served("ratified", "m1nd_x", "sk_m1nd_x_seed_2026_07", false),
  });
  EXPECT_TRUE(result[0].prefix_ambiguous);
  EXPECT_EQ("m1nd_core", result[0].ambiguous_slug);
  EXPECT_EQ("", result[0].ambiguous_with);
  EXPECT_FALSE(result[1].prefix_ambiguous);
  // A ratified id names no slug of its own: ambiguous only if a brain knows better.
  EXPECT_FALSE(result[2].prefix_ambiguous);
}

TEST(SkeletonProvenanceTest, AnAllowedAmbiguityIsMarkedForThatBrainAndSlugOnly) {
  const std::vector<ServedSkeletonOf> served = {
      Served("m1nd", "m1nd", "sk_m1nd_core_candidate", false),
      Served("lib", "lib", "sk_lib_extra_candidate", false),
  };
  const auto result = FindSkeletonProvenance(
      served, {{"m1nd", "m1nd_core"}, {"lib", "lib_other"}, {"other", "lib_extra"}});
  EXPECT_TRUE(result[0].prefix_ambiguous);
  EXPECT_TRUE(result[0].ambiguity_allowed);
  // Another slug, or the slug for another brain, is not this ambiguity.
  EXPECT_TRUE(result[1].prefix_ambiguous);
  EXPECT_FALSE(result[1].ambiguity_allowed);
  EXPECT_FALSE(FindSkeletonProvenance(served)[0].ambiguity_allowed);
}

TEST(SkeletonProvenanceTest, PrefixAmbiguityFromAMoreSpecificBrain) {
  const auto result = FindSkeletonProvenance({
      Served("m1nd", "m1nd", "sk_m1nd_core_seed_2026_07", false),
      Served("m1nd_core", "m1nd_core", "sk_m1nd_core_candidate", false),
  });
  EXPECT_TRUE(result[0].prefix_ambiguous);
  EXPECT_EQ("m1nd_core", result[0].ambiguous_with);
  EXPECT_EQ("m1nd_core", result[0].ambiguous_slug);
  EXPECT_FALSE(result[1].prefix_ambiguous);
}

TEST(SkeletonProvenanceTest, NothingServedNothingSaid) {
  const auto result =
      FindSkeletonProvenance({Served("a", "a", "", false), Served("b", "b", "", false)});
  for (const SkeletonProvenance& p : result) {
    EXPECT_TRUE(p.owner_brain.empty());
    EXPECT_TRUE(p.shared_with.empty());
    EXPECT_FALSE(p.prefix_ambiguous);
  }
}

// 20,000 brains, one copied store served by 2,000 of them: answered from indexes
// (no pair of brains compared), and each list of sharers is capped.
TEST(SkeletonProvenanceTest, LargeFleetsAreIndexedAndSharingIsCapped) {
  std::vector<ServedSkeletonOf> served;
  for (int i = 0; i < 20000; ++i) {
    const std::string name = "b" + std::to_string(i);
    const bool copied = i % 10 == 0;
    served.push_back(Served(name, name, copied ? "sk_b1_candidate" : "sk_" + name + "_candidate",
                            copied && i != 0));
  }
  const auto result = FindSkeletonProvenance(served);
  EXPECT_EQ("b1", result[10].owner_brain);
  EXPECT_EQ(1999u + 1u, result[10].shared_count);  // 1,999 copies and b1 itself
  EXPECT_EQ(kMaxSharedNames, result[10].shared_with.size());
  EXPECT_EQ("", result[2].owner_brain);
  EXPECT_EQ(0u, result[2].shared_count);
}

}  // namespace
}  // namespace scx
