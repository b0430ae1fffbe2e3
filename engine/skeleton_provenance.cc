// Owner, sharing and prefix ambiguity of served skeletons.
#include "engine/skeleton_provenance.h"

#include <map>
#include <tuple>

#include "engine/coherence.h"

namespace scx {

namespace {

// The brain other than `self` whose slug accepts `skeleton_id` most specifically
// (longest slug, then smallest name), among those longer than `shorter_than` when it
// is set. -1 when none.
int MostSpecificAcceptor(const std::vector<ServedSkeletonOf>& served, size_t self,
                         const std::string& skeleton_id, size_t longer_than) {
  int best = -1;
  for (size_t i = 0; i < served.size(); ++i) {
    const ServedSkeletonOf& other = served[i];
    if (i == self || other.expected_slug.size() <= longer_than) continue;
    if (other.expected_slug == served[self].expected_slug) continue;
    if (!SkeletonCarriesSlug(skeleton_id, other.expected_slug)) continue;
    if (best < 0 || std::make_tuple(served[best].expected_slug.size(), other.brain) <
                        std::make_tuple(other.expected_slug.size(), served[best].brain)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::vector<SkeletonProvenance> FindSkeletonProvenance(
    const std::vector<ServedSkeletonOf>& served) {
  std::vector<SkeletonProvenance> result(served.size());
  std::map<std::string, std::vector<size_t>> by_skeleton;
  for (size_t i = 0; i < served.size(); ++i) {
    if (!served[i].skeleton_id.empty()) by_skeleton[served[i].skeleton_id].push_back(i);
  }
  for (size_t i = 0; i < served.size(); ++i) {
    const ServedSkeletonOf& brain = served[i];
    if (brain.skeleton_id.empty()) continue;
    for (size_t other : by_skeleton[brain.skeleton_id]) {
      if (other != i) result[i].shared_with.push_back(served[other].brain);
    }
    const bool skeleton_is_own = SkeletonCarriesSlug(brain.skeleton_id, brain.expected_slug);
    if (brain.mismatch && !skeleton_is_own) {
      const int owner = MostSpecificAcceptor(served, i, brain.skeleton_id, 0);
      if (owner >= 0) result[i].owner_brain = served[owner].brain;
    }
    if (!brain.mismatch && skeleton_is_own) {
      SkeletonProvenance& out = result[i];
      const int specific =
          MostSpecificAcceptor(served, i, brain.skeleton_id, brain.expected_slug.size());
      const std::string found = FoundSlugOf(brain.skeleton_id);
      if (specific >= 0) {
        out.prefix_ambiguous = true;
        out.ambiguous_with = served[specific].brain;
        out.ambiguous_slug = served[specific].expected_slug;
      } else if (found != brain.expected_slug && StartsWith(found, brain.expected_slug + "_")) {
        out.prefix_ambiguous = true;
        out.ambiguous_slug = found;
      }
    }
  }
  return result;
}

}  // namespace scx
