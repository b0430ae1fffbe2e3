// Owner, sharing and prefix ambiguity of served skeletons.
#include "engine/skeleton_provenance.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "base/strings.h"
#include "engine/coherence.h"

namespace scx {

namespace {

constexpr std::string_view kSkeletonPrefix = "sk_";

// Brains by a string of theirs (their own slug, or the skeleton id they serve), as
// views into the `served` list: the brains a skeleton id could belong to are found by
// looking up its candidate slugs, never by comparing every pair of brains.
using BrainIndex = std::unordered_map<std::string_view, std::vector<size_t>>;

// Every slug whose rule accepts `skeleton_id`, longest first: "sk_a_b_c" is accepted
// by "a_b_c" (the whole rest), "a_b" and "a" (a prefix ending before a '_').
std::vector<std::string_view> AcceptingSlugs(std::string_view skeleton_id) {
  std::vector<std::string_view> slugs;
  if (skeleton_id.substr(0, kSkeletonPrefix.size()) != kSkeletonPrefix) return slugs;
  const std::string_view rest = skeleton_id.substr(kSkeletonPrefix.size());
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
                         size_t self, const std::string& skeleton_id, size_t longer_than) {
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

}  // namespace

std::vector<SkeletonProvenance> FindSkeletonProvenance(
    const std::vector<ServedSkeletonOf>& served, const std::vector<AllowedAmbiguity>& allowed) {
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
      result[i].shared_with.push_back(served[other].brain);
    }
    const bool skeleton_is_own = SkeletonCarriesSlug(brain.skeleton_id, brain.expected_slug);
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
      } else if (found != brain.expected_slug && StartsWith(found, brain.expected_slug + "_")) {
        out.prefix_ambiguous = true;
        out.ambiguous_slug = found;
      }
      out.ambiguity_allowed =
          out.prefix_ambiguous &&
          std::find(allowed.begin(), allowed.end(),
                    AllowedAmbiguity{brain.brain, out.ambiguous_slug}) != allowed.end();
    }
  }
  return result;
}

}  // namespace scx
