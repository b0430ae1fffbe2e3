// The coherence verdict, rule for rule as m1nd's skeleton_coherence(), from a store's
// block ids or from its digest.
#include "engine/coherence.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "engine/slug.h"

namespace scx {

namespace {

constexpr std::string_view kSkeletonPrefix = "sk_";
constexpr std::string_view kBlockPrefix = "sb_";
constexpr std::string_view kCandidateSuffix = "_candidate";

Coherence MismatchOf(const std::string& expected, std::string_view skeleton_id,
                     std::string reason) {
  Coherence verdict;
  verdict.status = CoherenceStatus::kMismatch;
  verdict.expected_slug = expected;
  verdict.found_slug = FoundSlugOf(skeleton_id);
  verdict.reason = std::move(reason);
  return verdict;
}

Coherence ForeignSkeleton(const std::string& expected, std::string_view skeleton_id) {
  return MismatchOf(expected, skeleton_id,
                    "skeleton_id \"" + std::string(skeleton_id) +
                        "\" does not carry this brain's slug: expected \"sk_" + expected +
                        "\" or \"sk_" + expected + "_...\"");
}

Coherence ForeignBlock(const std::string& expected, std::string_view skeleton_id,
                       std::string_view block_id) {
  return MismatchOf(expected, skeleton_id,
                    "block_id \"" + std::string(block_id) + "\" does not start with \"" +
                        std::string(kBlockPrefix) + expected + "_\"");
}

Coherence OkFor(const std::string& expected) {
  Coherence verdict;
  verdict.status = CoherenceStatus::kOk;
  verdict.expected_slug = expected;
  verdict.found_slug = expected;
  return verdict;
}

// Whether rest[0, length) is a candidate slug: it ends at an '_' or at rest's end.
bool IsCandidateLength(std::string_view rest, std::size_t length) {
  return length == rest.size() || (length < rest.size() && rest[length] == '_');
}

// The shortest candidate length a block id offends; rest.size() + 1 when it offends
// none. Candidate E = rest[0, n) accepts the block iff it starts with "sb_" + E + "_".
// With `common` the length of the common prefix of the block's tail (after "sb_") and
// rest, a candidate shorter than `common` is followed by '_' in both and so accepted;
// one longer differs from the tail; the one of length `common` is accepted only when
// it is the whole rest and the tail goes on with '_' (otherwise rest and tail differ
// at `common`, so they cannot both hold '_' there).
std::size_t OffendsFrom(std::string_view rest, std::string_view block_id) {
  if (!StartsWith(block_id, kBlockPrefix)) return 0;
  const std::string_view tail = block_id.substr(kBlockPrefix.size());
  const std::size_t limit = std::min(tail.size(), rest.size());
  std::size_t common = 0;
  while (common < limit && tail[common] == rest[common]) ++common;
  if (common == rest.size() && common < tail.size() && tail[common] == '_') {
    return rest.size() + 1;
  }
  return common;
}

}  // namespace

SkeletonDigestBuilder::SkeletonDigestBuilder(std::string_view skeleton_id)
    : has_candidates_(StartsWith(skeleton_id, kSkeletonPrefix)) {
  digest_.skeleton_id.assign(skeleton_id.data(), skeleton_id.size());
  offended_from_ = Rest().size() + 1;
}

std::string_view SkeletonDigestBuilder::Rest() const {
  if (!has_candidates_) return std::string_view();
  return std::string_view(digest_.skeleton_id).substr(kSkeletonPrefix.size());
}

void SkeletonDigestBuilder::AddBlock(std::string_view block_id) {
  if (!has_candidates_ || offended_from_ == 0) return;
  const std::string_view rest = Rest();
  std::size_t from = OffendsFrom(rest, block_id);
  while (from < offended_from_ && !IsCandidateLength(rest, from)) ++from;
  if (from >= offended_from_) return;  // every candidate it offends has an earlier offender
  digest_.offenders.push_back({from, std::string(block_id)});
  offended_from_ = from;
}

SkeletonDigest SkeletonDigestBuilder::Finish() { return std::move(digest_); }

SkeletonDigest DigestOf(const ServedSkeleton& served) {
  SkeletonDigestBuilder builder(served.skeleton_id);
  for (const std::string& block_id : served.block_ids) builder.AddBlock(block_id);
  return builder.Finish();
}

bool SkeletonCarriesSlug(std::string_view skeleton_id, std::string_view slug) {
  // "sk_" + slug, whole or followed by '_', compared in place: every scan asks it of
  // every brain (skeleton_provenance.h).
  if (!StartsWith(skeleton_id, kSkeletonPrefix)) return false;
  const std::string_view rest = skeleton_id.substr(kSkeletonPrefix.size());
  return StartsWith(rest, slug) && (rest.size() == slug.size() || rest[slug.size()] == '_');
}

std::string FoundSlugOf(std::string_view skeleton_id) {
  if (StartsWith(skeleton_id, kSkeletonPrefix)) {
    std::string_view rest = skeleton_id.substr(kSkeletonPrefix.size());
    if (EndsWith(rest, kCandidateSuffix)) {
      return std::string(rest.substr(0, rest.size() - kCandidateSuffix.size()));
    }
  }
  return SanitizeSlug(skeleton_id);
}

Coherence CoherenceForSlug(const std::string& expected, const ServedSkeleton& served) {
  if (!SkeletonCarriesSlug(served.skeleton_id, expected)) {
    return ForeignSkeleton(expected, served.skeleton_id);
  }
  const std::string block_prefix = std::string(kBlockPrefix) + expected + "_";
  for (const std::string& block_id : served.block_ids) {
    if (!StartsWith(block_id, block_prefix)) {
      return ForeignBlock(expected, served.skeleton_id, block_id);
    }
  }
  return OkFor(expected);
}

Coherence CoherenceForSlug(const std::string& expected, const SkeletonDigest& digest) {
  if (!SkeletonCarriesSlug(digest.skeleton_id, expected)) {
    return ForeignSkeleton(expected, digest.skeleton_id);
  }
  // `expected` is a candidate: its first offender is the first entry that reaches it.
  for (const SkeletonDigest::Offender& offender : digest.offenders) {
    if (offender.from_length <= expected.size()) {
      return ForeignBlock(expected, digest.skeleton_id, offender.block_id);
    }
  }
  return OkFor(expected);
}

std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const SkeletonDigest* digest) {
  if (digest == nullptr) return std::nullopt;
  return CoherenceForSlug(SanitizeSlug(ResolveIdentity(project_root, display_name)), *digest);
}

std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const ServedSkeleton* skeleton) {
  if (skeleton == nullptr) return std::nullopt;
  return CoherenceForSlug(SanitizeSlug(ResolveIdentity(project_root, display_name)), *skeleton);
}

}  // namespace scx
