// The coherence verdict: does the skeleton a brain serves carry that brain's slug?
// Pure logic, no I/O. Mirrors m1nd's skeleton_coherence() rule for rule.
//
// A store is kept as a SkeletonDigest, not as its list of block ids: the digest holds
// what the verdict needs for any identity the brain may get later, in a few strings.
#ifndef SCX_ENGINE_COHERENCE_H_
#define SCX_ENGINE_COHERENCE_H_

#include <cstddef>
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

// A verdict that is a mismatch; false for none (null).
inline bool IsMismatch(const Coherence* verdict) {
  return verdict != nullptr && verdict->status == CoherenceStatus::kMismatch;
}

// What the store serves: its skeleton id and its block ids in file order.
struct ServedSkeleton {
  std::string skeleton_id;
  std::vector<std::string> block_ids;
};

// What the verdict needs of a store, whatever the expected slug E. E passes the
// skeleton rule only when "sk_" + E is the skeleton id or is followed by '_' in it, so
// the candidate slugs are the prefixes of the skeleton id's rest (after "sk_") that
// end at an '_' or at its end; a skeleton id without "sk_" has none. For each
// candidate the digest keeps the first block id (file order) that does not start with
// "sb_<candidate>_".
struct SkeletonDigest {
  struct Offender {
    // The block offends every candidate slug at least this long (and no shorter one);
    // always the length of a candidate.
    std::size_t from_length = 0;
    std::string block_id;
    bool operator==(const Offender& other) const {
      return from_length == other.from_length && block_id == other.block_id;
    }
  };
  std::string skeleton_id;
  // In file order, from_length strictly decreasing: the first block that offends the
  // candidate of length n is the first entry with from_length <= n.
  std::vector<Offender> offenders;
  bool operator==(const SkeletonDigest& other) const {
    return skeleton_id == other.skeleton_id && offenders == other.offenders;
  }
};

// Builds a digest from the skeleton id and then the block ids in file order. Holds
// no block id it is given except the few offenders it keeps.
class SkeletonDigestBuilder {
 public:
  explicit SkeletonDigestBuilder(std::string_view skeleton_id);

  void AddBlock(std::string_view block_id);
  SkeletonDigest Finish();

 private:
  // The skeleton id after "sk_", where the candidates are cut.
  std::string_view Rest() const;

  SkeletonDigest digest_;
  bool has_candidates_;
  std::size_t offended_from_;  // every candidate at least this long has an offender
};

SkeletonDigest DigestOf(const ServedSkeleton& served);

// The skeleton rule: `skeleton_id` is "sk_<slug>" or starts with "sk_<slug>_".
bool SkeletonCarriesSlug(std::string_view skeleton_id, std::string_view slug);

// The slug a skeleton id names: the text between "sk_" and "_candidate" when it has
// both, else SanitizeSlug(skeleton_id).
std::string FoundSlugOf(std::string_view skeleton_id);

// The verdict for an expected slug (any string): Ok when the skeleton id is
// "sk_<expected>" or starts with "sk_<expected>_" and every block id starts with
// "sb_<expected>_"; else Mismatch naming the first offender (skeleton checked before
// blocks). The two give the same verdict for a store and its digest.
Coherence CoherenceForSlug(const std::string& expected, const ServedSkeleton& served);
Coherence CoherenceForSlug(const std::string& expected, const SkeletonDigest& digest);

// Returns no verdict when there is no skeleton (empty store: silent); otherwise
// CoherenceForSlug(SanitizeSlug(ResolveIdentity(project_root, display_name)), ...).
std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const SkeletonDigest* digest);
// The same from the plain list of block ids (tests and fuzzers compare the two).
std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const ServedSkeleton* skeleton);

}  // namespace scx

#endif  // SCX_ENGINE_COHERENCE_H_
