// Tests for whose skeleton a brain serves: owner, sharing, prefix ambiguity.
#include "engine/skeleton_provenance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "engine/coherence.h"

namespace scx {
namespace {

// ServedSkeletonOf holds views: the strings must outlive the call (literals here, or
// a Fleet's own).
ServedSkeletonOf Served(std::string_view brain, std::string_view expected,
                        std::string_view skeleton_id, bool mismatch) {
  return ServedSkeletonOf{brain, expected, skeleton_id, mismatch};
}

// Brains with strings made at run time, and the strings they view.
struct Fleet {
  std::deque<std::string> texts;
  std::vector<ServedSkeletonOf> served;

  std::string_view Keep(std::string text) { return texts.emplace_back(std::move(text)); }
};

// FindSkeletonProvenance with an empty result where it gives none.
std::vector<SkeletonProvenance> Provenance(const std::vector<ServedSkeletonOf>& served,
                                           const std::vector<AllowedAmbiguity>& allowed = {}) {
  std::vector<SkeletonProvenance> result;
  for (const auto& found : FindSkeletonProvenance(served, allowed)) {
    if (found != nullptr) {
      EXPECT_FALSE(IsEmpty(*found));
    }
    result.push_back(found != nullptr ? *found : SkeletonProvenance());
  }
  return result;
}

TEST(SkeletonProvenanceTest, TheIncidentNamesTheOwner) {
  const auto result = Provenance({
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
  const auto result = Provenance({
      Served("m1nd", "m1nd", "sk_stranger_candidate", true),
      Served("keyvault", "keyvault", "sk_keyvault_candidate", false),
  });
  EXPECT_EQ("", result[0].owner_brain);
  EXPECT_TRUE(result[0].shared_with.empty());
}

TEST(SkeletonProvenanceTest, TheMostSpecificOwnerWins) {
  const auto result = Provenance({
      Served("m1nd", "m1nd", "sk_keyvault_core_candidate", true),
      Served("keyvault", "keyvault", "sk_keyvault_candidate", false),
      Served("keyvault_core", "keyvault_core", "sk_keyvault_core_seed", false),
  });
  EXPECT_EQ("keyvault_core", result[0].owner_brain);
}

// A mismatch of blocks only serves its own skeleton: it has no foreign owner.
TEST(SkeletonProvenanceTest, BlocksOnlyMismatchHasNoOwner) {
  const auto result = Provenance({
      Served("m1nd", "m1nd", "sk_m1nd_candidate", true),
      Served("m1nd_copy", "m1nd", "sk_m1nd_candidate", false),
  });
  EXPECT_EQ("", result[0].owner_brain);
  EXPECT_EQ(std::vector<std::string>{"m1nd_copy"}, result[0].shared_with);
}

TEST(SkeletonProvenanceTest, PrefixAmbiguityFromTheIdAlone) {
  const auto result = Provenance({
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
  const auto result =
      Provenance(served, {{"m1nd", "m1nd_core"}, {"lib", "lib_other"}, {"other", "lib_extra"}});
  EXPECT_TRUE(result[0].prefix_ambiguous);
  EXPECT_TRUE(result[0].ambiguity_allowed);
  // Another slug, or the slug for another brain, is not this ambiguity.
  EXPECT_TRUE(result[1].prefix_ambiguous);
  EXPECT_FALSE(result[1].ambiguity_allowed);
  EXPECT_FALSE(Provenance(served)[0].ambiguity_allowed);
}

TEST(SkeletonProvenanceTest, PrefixAmbiguityFromAMoreSpecificBrain) {
  const auto result = Provenance({
      Served("m1nd", "m1nd", "sk_m1nd_core_seed_2026_07", false),
      Served("m1nd_core", "m1nd_core", "sk_m1nd_core_candidate", false),
  });
  EXPECT_TRUE(result[0].prefix_ambiguous);
  EXPECT_EQ("m1nd_core", result[0].ambiguous_with);
  EXPECT_EQ("m1nd_core", result[0].ambiguous_slug);
  EXPECT_FALSE(result[1].prefix_ambiguous);
}

TEST(SkeletonProvenanceTest, NothingServedNothingSaid) {
  const auto result = Provenance({Served("a", "a", "", false), Served("b", "b", "", false)});
  for (const SkeletonProvenance& p : result) {
    EXPECT_TRUE(p.owner_brain.empty());
    EXPECT_TRUE(p.shared_with.empty());
    EXPECT_FALSE(p.prefix_ambiguous);
  }
}

// 20,000 brains, one copied store served by 2,000 of them: answered from indexes
// (no pair of brains compared), and each list of sharers is capped.
TEST(SkeletonProvenanceTest, LargeFleetsAreIndexedAndSharingIsCapped) {
  Fleet fleet;
  for (int i = 0; i < 20000; ++i) {
    const std::string_view name = fleet.Keep("b" + std::to_string(i));
    const bool copied = i % 10 == 0;
    const std::string_view id =
        copied ? "sk_b1_candidate" : fleet.Keep("sk_" + std::string(name) + "_candidate");
    fleet.served.push_back(Served(name, name, id, copied && i != 0));
  }
  const auto result = Provenance(fleet.served);
  EXPECT_EQ("b1", result[10].owner_brain);
  EXPECT_EQ(1999u + 1u, result[10].shared_count);  // 1,999 copies and b1 itself
  EXPECT_EQ(kMaxSharedNames, result[10].shared_with.size());
  EXPECT_EQ("", result[2].owner_brain);
  EXPECT_EQ(0u, result[2].shared_count);
}

// ---- The same answers as the first indexed version, on adversarial input

// FindSkeletonProvenance as it was before its index became one flat table (a map of
// views to a list per key), kept as the reference the current one must agree with.
constexpr std::string_view kReferencePrefix = "sk_";

// SkeletonCarriesSlug as it was: the two candidate prefixes built as strings.
bool ReferenceCarriesSlug(std::string_view skeleton_id, std::string_view slug) {
  const std::string exact = std::string(kReferencePrefix) + std::string(slug);
  return skeleton_id == exact || StartsWith(skeleton_id, exact + "_");
}

// Brains by a string of theirs (their own slug, or the skeleton id they serve), as
// views into the `served` list: the brains a skeleton id could belong to are found by
// looking up its candidate slugs, never by comparing every pair of brains.
using BrainIndex = std::unordered_map<std::string_view, std::vector<size_t>>;

// Every slug whose rule accepts `skeleton_id`, longest first: "sk_a_b_c" is accepted
// by "a_b_c" (the whole rest), "a_b" and "a" (a prefix ending before a '_').
std::vector<std::string_view> AcceptingSlugs(std::string_view skeleton_id) {
  std::vector<std::string_view> slugs;
  if (skeleton_id.substr(0, kReferencePrefix.size()) != kReferencePrefix) return slugs;
  const std::string_view rest = skeleton_id.substr(kReferencePrefix.size());
  slugs.push_back(rest);
  for (size_t at = rest.size(); at-- > 1;) {
    if (rest[at] == '_') slugs.push_back(rest.substr(0, at));
  }
  return slugs;
}

// The brain other than `self` whose slug accepts `skeleton_id` most specifically
// (longest slug, then smallest name), among slugs longer than `longer_than` and other
// than self's own. -1 when none.
int MostSpecificAcceptor(const std::vector<ServedSkeletonOf>& served, const BrainIndex& by_slug,
                         size_t self, std::string_view skeleton_id, size_t longer_than) {
  for (std::string_view slug : AcceptingSlugs(skeleton_id)) {
    if (slug.size() <= longer_than) break;
    if (slug == served[self].expected_slug) continue;
    auto brains = by_slug.find(slug);
    if (brains == by_slug.end()) continue;
    int best = -1;
    for (size_t i : brains->second) {
      if (i != self && (best < 0 || served[i].brain < served[best].brain)) {
        best = static_cast<int>(i);
      }
    }
    if (best >= 0) return best;
  }
  return -1;
}

std::vector<SkeletonProvenance> ReferenceProvenance(const std::vector<ServedSkeletonOf>& served,
                                                    const std::vector<AllowedAmbiguity>& allowed) {
  std::vector<SkeletonProvenance> result(served.size());
  BrainIndex by_slug;
  for (size_t i = 0; i < served.size(); ++i) by_slug[served[i].expected_slug].push_back(i);
  BrainIndex by_skeleton;
  for (size_t i = 0; i < served.size(); ++i) {
    if (!served[i].skeleton_id.empty()) by_skeleton[served[i].skeleton_id].push_back(i);
  }
  for (size_t i = 0; i < served.size(); ++i) {
    const ServedSkeletonOf& brain = served[i];
    if (brain.skeleton_id.empty()) continue;
    const std::vector<size_t>& same = by_skeleton[brain.skeleton_id];
    result[i].shared_count = same.size() - 1;
    for (size_t other : same) {
      if (other == i) continue;
      if (result[i].shared_with.size() == kMaxSharedNames) break;
      result[i].shared_with.emplace_back(served[other].brain);
    }
    const bool skeleton_is_own = ReferenceCarriesSlug(brain.skeleton_id, brain.expected_slug);
    if (brain.mismatch && !skeleton_is_own) {
      const int owner = MostSpecificAcceptor(served, by_slug, i, brain.skeleton_id, 0);
      if (owner >= 0) result[i].owner_brain = served[owner].brain;
    }
    if (!brain.mismatch && skeleton_is_own) {
      SkeletonProvenance& out = result[i];
      const int specific =
          MostSpecificAcceptor(served, by_slug, i, brain.skeleton_id, brain.expected_slug.size());
      const std::string found = FoundSlugOf(brain.skeleton_id);
      if (specific >= 0) {
        out.prefix_ambiguous = true;
        out.ambiguous_with = served[specific].brain;
        out.ambiguous_slug = served[specific].expected_slug;
      } else if (found != brain.expected_slug &&
                 StartsWith(found, std::string(brain.expected_slug) + "_")) {
        out.prefix_ambiguous = true;
        out.ambiguous_slug = found;
      }
      out.ambiguity_allowed =
          out.prefix_ambiguous && std::find(allowed.begin(), allowed.end(),
                                            AllowedAmbiguity{std::string(brain.brain),
                                                             out.ambiguous_slug}) != allowed.end();
    }
  }
  return result;
}

// Slugs that are prefixes of each other at '_' ("a", "a_b", "a_b_c"), ids that name
// them with and without "_candidate", ids without "sk_", empty ones, one id served by
// many brains and one slug expected by several.
Fleet AdversarialFleet(unsigned seed, int brains) {
  std::mt19937 random(seed);
  const std::vector<std::string> slugs = {"",     "a",    "a_b",       "a_b_c",      "a_bc",
                                          "ab",   "b",    "b_a",       "a_",         "_a",
                                          "a__b", "m1nd", "m1nd_core", "m1nd_core_x"};
  const std::vector<std::string> tails = {"", "_candidate", "_seed_2026", "_", "candidate"};
  auto pick = [&random](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(random)];
  };
  Fleet fleet;
  for (int i = 0; i < brains; ++i) {
    ServedSkeletonOf brain;
    brain.brain = fleet.Keep(
        "b" + std::to_string(std::uniform_int_distribution<int>(0, 9)(random)) + std::to_string(i));
    brain.expected_slug = fleet.Keep(pick(slugs));
    switch (std::uniform_int_distribution<int>(0, 5)(random)) {
      case 0:
        break;  // nothing served
      case 1:
        brain.skeleton_id = fleet.Keep("sk_" + std::string(brain.expected_slug) + pick(tails));
        break;
      case 2:
        brain.skeleton_id = fleet.Keep(pick(slugs) + pick(tails));  // no "sk_", mostly
        break;
      default:
        brain.skeleton_id = fleet.Keep("sk_" + pick(slugs) + pick(tails));
        break;
    }
    brain.mismatch = !SkeletonCarriesSlug(brain.skeleton_id, brain.expected_slug) ||
                     std::uniform_int_distribution<int>(0, 7)(random) == 0;
    fleet.served.push_back(brain);
  }
  std::sort(fleet.served.begin(), fleet.served.end(),
            [](const ServedSkeletonOf& a, const ServedSkeletonOf& b) { return a.brain < b.brain; });
  return fleet;
}

TEST(SkeletonProvenanceTest, TheSkeletonRuleAgreesWithTheReference) {
  const std::vector<std::string> slugs = {"", "a", "a_", "_a", "a_b", "ab", "a__b", "m1nd_core"};
  for (const std::string& slug : slugs) {
    for (const std::string& named : slugs) {
      for (const std::string& id : {"sk_" + named, "sk_" + named + "_candidate", named,
                                    "sk" + named, "sk_" + named + "_", "sk_" + named + "x"}) {
        EXPECT_EQ(ReferenceCarriesSlug(id, slug), SkeletonCarriesSlug(id, slug))
            << "id \"" << id << "\", slug \"" << slug << "\"";
      }
    }
  }
}

TEST(SkeletonProvenanceTest, AgreesWithTheReferenceOnAdversarialFleets) {
  const std::vector<AllowedAmbiguity> allowed = {{"b00", "a_b"}, {"b10", "m1nd_core"}};
  for (unsigned seed = 1; seed <= 60; ++seed) {
    const Fleet fleet = AdversarialFleet(seed, 10 + seed * 7);
    const std::vector<ServedSkeletonOf>& served = fleet.served;
    const std::vector<SkeletonProvenance> got = Provenance(served, allowed);
    const std::vector<SkeletonProvenance> want = ReferenceProvenance(served, allowed);
    ASSERT_EQ(want.size(), got.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", brain " + std::string(served[i].brain) +
                   " expects \"" + std::string(served[i].expected_slug) + "\" and serves \"" +
                   std::string(served[i].skeleton_id) + "\"");
      EXPECT_EQ(want[i].owner_brain, got[i].owner_brain);
      EXPECT_EQ(want[i].shared_count, got[i].shared_count);
      EXPECT_EQ(want[i].shared_with, got[i].shared_with);
      EXPECT_EQ(want[i].prefix_ambiguous, got[i].prefix_ambiguous);
      EXPECT_EQ(want[i].ambiguous_slug, got[i].ambiguous_slug);
      EXPECT_EQ(want[i].ambiguous_with, got[i].ambiguous_with);
      EXPECT_EQ(want[i].ambiguity_allowed, got[i].ambiguity_allowed);
    }
  }
}

}  // namespace
}  // namespace scx
