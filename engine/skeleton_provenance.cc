// Owner, sharing and prefix ambiguity of served skeletons.
#include "engine/skeleton_provenance.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "base/view_index.h"
#include "engine/coherence.h"

namespace scx {

namespace {

constexpr std::string_view kSkeletonPrefix = "sk_";
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Brains grouped by a string of theirs (their own slug, or the skeleton id they
// serve), as views into the `served` list: the brains a skeleton id could belong to
// are found by looking up its candidate slugs, never by comparing every pair of
// brains. A ViewIndex from each key to its group and one `next` link per brain, so
// that building it allocates a few arrays whatever the fleet, where a table of one
// node and one list per key allocates per brain and misses the cache on each.
class BrainIndex {
 public:
  // Groups the indices i < count for which key_of(i) is not empty.
  template <typename KeyOf>
  BrainIndex(std::size_t count, const KeyOf& key_of) : groups_(count), next_(count, kNone) {
    // From the last index down, so that each group lists its brains in index order.
    for (std::size_t i = count; i-- > 0;) {
      const std::string_view key = key_of(i);
      if (key.empty()) continue;
      const auto [group, inserted] = groups_.Emplace(key, first_.size());
      if (inserted) {
        first_.push_back(kNone);
        count_.push_back(0);
      }
      next_[i] = first_[group];
      first_[group] = i;
      ++count_[group];
    }
  }

  // The first brain (smallest index) of `key`'s group, kNone when none; Next gives the
  // others in index order.
  std::size_t First(std::string_view key) const {
    const std::size_t group = groups_.Find(key);
    return group == ViewIndex::kNone ? kNone : first_[group];
  }
  std::size_t Next(std::size_t i) const { return next_[i]; }
  // How many brains the group of `key` has.
  std::size_t Count(std::string_view key) const {
    const std::size_t group = groups_.Find(key);
    return group == ViewIndex::kNone ? 0 : count_[group];
  }

 private:
  ViewIndex groups_;                // key -> its group
  std::vector<std::size_t> first_;  // by group: its smallest brain index
  std::vector<std::size_t> count_;  // by group: its brains
  std::vector<std::size_t> next_;   // by brain: the next of its group, or kNone
};

// The brain other than `self` whose slug accepts `skeleton_id` most specifically
// (longest slug, then smallest name), among slugs longer than `longer_than` and other
// than self's own. -1 when none. The slugs that accept "sk_a_b_c" are "a_b_c" (the
// whole rest), "a_b" and "a" (a prefix ending before a '_'), tried longest first.
int MostSpecificAcceptor(const std::vector<ServedSkeletonOf>& served, const BrainIndex& by_slug,
                         std::size_t self, std::string_view skeleton_id, std::size_t longer_than) {
  if (!StartsWith(skeleton_id, kSkeletonPrefix)) return -1;
  const std::string_view rest = skeleton_id.substr(kSkeletonPrefix.size());
  for (std::size_t end = rest.size(); end > longer_than; --end) {
    if (end < rest.size() && rest[end] != '_') continue;
    const std::string_view slug = rest.substr(0, end);
    if (slug == served[self].expected_slug) continue;
    int best = -1;
    for (std::size_t i = by_slug.First(slug); i != kNone; i = by_slug.Next(i)) {
      if (i != self && (best < 0 || served[i].brain < served[best].brain)) {
        best = static_cast<int>(i);
      }
    }
    if (best >= 0) return best;
  }
  return -1;
}

}  // namespace

bool IsEmpty(const SkeletonProvenance& provenance) {
  return provenance.owner_brain.empty() && provenance.shared_count == 0 &&
         provenance.shared_with.empty() && !provenance.prefix_ambiguous &&
         provenance.ambiguous_slug.empty() && provenance.ambiguous_with.empty();
}

std::vector<std::shared_ptr<const SkeletonProvenance>> FindSkeletonProvenance(
    const std::vector<ServedSkeletonOf>& served, const std::vector<AllowedAmbiguity>& allowed) {
  std::vector<std::shared_ptr<const SkeletonProvenance>> result(served.size());
  const BrainIndex by_slug(served.size(), [&served](std::size_t i) -> std::string_view {
    return served[i].expected_slug;
  });
  const BrainIndex by_skeleton(served.size(), [&served](std::size_t i) -> std::string_view {
    return served[i].skeleton_id;
  });
  for (std::size_t i = 0; i < served.size(); ++i) {
    const ServedSkeletonOf& brain = served[i];
    if (brain.skeleton_id.empty()) continue;
    SkeletonProvenance out;
    out.shared_count = by_skeleton.Count(brain.skeleton_id) - 1;
    for (std::size_t other = by_skeleton.First(brain.skeleton_id); other != kNone;
         other = by_skeleton.Next(other)) {
      if (other == i) continue;
      if (out.shared_with.size() == kMaxSharedNames) break;
      out.shared_with.emplace_back(served[other].brain);
    }
    const bool skeleton_is_own = SkeletonCarriesSlug(brain.skeleton_id, brain.expected_slug);
    if (brain.mismatch && !skeleton_is_own) {
      const int owner = MostSpecificAcceptor(served, by_slug, i, brain.skeleton_id, 0);
      if (owner >= 0) out.owner_brain = served[owner].brain;
    }
    if (!brain.mismatch && skeleton_is_own) {
      const int specific =
          MostSpecificAcceptor(served, by_slug, i, brain.skeleton_id, brain.expected_slug.size());
      if (specific >= 0) {
        out.prefix_ambiguous = true;
        out.ambiguous_with = served[specific].brain;
        out.ambiguous_slug = served[specific].expected_slug;
      } else {
        // The id names a longer slug than the brain's own: "found" is "<own>_...".
        std::string found = FoundSlugOf(brain.skeleton_id);
        if (found.size() > brain.expected_slug.size() && found[brain.expected_slug.size()] == '_' &&
            StartsWith(found, brain.expected_slug)) {
          out.prefix_ambiguous = true;
          out.ambiguous_slug = std::move(found);
        }
      }
      out.ambiguity_allowed =
          out.prefix_ambiguous && std::find(allowed.begin(), allowed.end(),
                                            AllowedAmbiguity{std::string(brain.brain),
                                                             out.ambiguous_slug}) != allowed.end();
    }
    if (!IsEmpty(out)) result[i] = std::make_shared<const SkeletonProvenance>(std::move(out));
  }
  return result;
}

}  // namespace scx
