// Whose skeleton a brain serves: a signal beside the verdict, never part of it. For
// the person woken up by a mismatch: which other brain this exporter knows would
// accept the foreign skeleton (its owner), which brains serve one skeleton id at once
// (a copied store), and which healthy verdicts hold only through the prefix rule
// (`m1nd` serving `sk_m1nd_core_candidate`). Pure logic over one scan's facts.
#ifndef SCX_ENGINE_SKELETON_PROVENANCE_H_
#define SCX_ENGINE_SKELETON_PROVENANCE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scx {

// What one brain serves, as the provenance rules need it: views into the caller's
// strings, which must outlive FindSkeletonProvenance (copies of them for 100,000
// brains were a peak of the exporter's memory).
struct ServedSkeletonOf {
  std::string_view brain;          // unique name
  std::string_view expected_slug;  // the brain's own slug
  std::string_view skeleton_id;    // empty: no store read yet (nothing served)
  bool mismatch = false;           // the verdict is a mismatch
};

// At most this many names in SkeletonProvenance::shared_with (a copied store served by
// thousands of brains must not make every report list all of them).
inline constexpr std::size_t kMaxSharedNames = 10;

struct SkeletonProvenance {
  // Mismatch whose skeleton id another known brain's rule accepts: that brain (the
  // one with the longest slug, then the smallest name). Empty otherwise.
  std::string owner_brain;
  // How many other brains serve the very same skeleton id, and the first
  // kMaxSharedNames of them by name; 0 and empty when none.
  std::size_t shared_count = 0;
  std::vector<std::string> shared_with;
  // An Ok skeleton accepted only through the prefix rule: the id names a longer slug
  // (`sk_m1nd_core_candidate` for `m1nd`), or another known brain's slug accepts it
  // more specifically. `ambiguous_slug` is that longer slug.
  bool prefix_ambiguous = false;
  std::string ambiguous_slug;
  std::string ambiguous_with;  // the more specific brain, when one is known
  // The config allows this brain's skeleton to name `ambiguous_slug`: a person looked
  // and it is the brain's own. Still reported, never exported as a signal.
  bool ambiguity_allowed = false;
};

// A prefix ambiguity someone has checked and allowed (the config's
// `prefix_ambiguity_allowed`): brain `brain` may serve a skeleton naming `slug`.
struct AllowedAmbiguity {
  std::string brain;
  std::string slug;
  bool operator==(const AllowedAmbiguity& other) const {
    return brain == other.brain && slug == other.slug;
  }
};

// True when `provenance` has nothing to say: no owner, no sharing, no ambiguity.
bool IsEmpty(const SkeletonProvenance& provenance);

// One result per input, in the same order; null where it would be empty (IsEmpty), as
// for nearly every brain. An ambiguity listed in `allowed` (same brain, same
// ambiguous slug) is marked ambiguity_allowed.
std::vector<std::shared_ptr<const SkeletonProvenance>> FindSkeletonProvenance(
    const std::vector<ServedSkeletonOf>& served, const std::vector<AllowedAmbiguity>& allowed = {});

}  // namespace scx

#endif  // SCX_ENGINE_SKELETON_PROVENANCE_H_
