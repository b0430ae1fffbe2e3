// The coherence verdict: does the skeleton a brain serves carry that brain's slug?
// Pure logic, no I/O. Mirrors m1nd's skeleton_coherence() rule for rule.
#ifndef SCX_ENGINE_COHERENCE_H_
#define SCX_ENGINE_COHERENCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scx {

enum class CoherenceStatus { kOk, kMismatch };

struct Coherence {
  CoherenceStatus status = CoherenceStatus::kOk;
  std::string expected_slug;
  std::string found_slug;  // equals expected_slug when status is kOk
  std::string reason;      // empty when status is kOk
};

// What the store serves: its skeleton id and its block ids in file order.
struct ServedSkeleton {
  std::string skeleton_id;
  std::vector<std::string> block_ids;
};

// The skeleton rule: `skeleton_id` is "sk_<slug>" or starts with "sk_<slug>_".
bool SkeletonCarriesSlug(std::string_view skeleton_id, std::string_view slug);

// The slug a skeleton id names: the text between "sk_" and "_candidate" when it has
// both, else SanitizeSlug(skeleton_id).
std::string FoundSlugOf(std::string_view skeleton_id);

// Returns no verdict when there is no skeleton (empty store: silent). Otherwise Ok
// when the skeleton id is "sk_<expected>" or starts with "sk_<expected>_" and every
// block id starts with "sb_<expected>_"; else Mismatch naming the first offender
// (skeleton checked before blocks). expected = SanitizeSlug(ResolveIdentity(...)).
std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const ServedSkeleton* skeleton);

}  // namespace scx

#endif  // SCX_ENGINE_COHERENCE_H_
