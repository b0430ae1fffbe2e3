// The coherence verdict, rule for rule as m1nd's skeleton_coherence().
#include "engine/coherence.h"

#include "engine/slug.h"

namespace scx {

namespace {

constexpr std::string_view kSkeletonPrefix = "sk_";
constexpr std::string_view kCandidateSuffix = "_candidate";

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

Coherence MismatchOf(const std::string& expected, std::string_view skeleton_id,
                     std::string reason) {
  Coherence verdict;
  verdict.status = CoherenceStatus::kMismatch;
  verdict.expected_slug = expected;
  verdict.found_slug = FoundSlugOf(skeleton_id);
  verdict.reason = std::move(reason);
  return verdict;
}

}  // namespace

bool SkeletonCarriesSlug(std::string_view skeleton_id, std::string_view slug) {
  const std::string exact = std::string(kSkeletonPrefix) + std::string(slug);
  return skeleton_id == exact || StartsWith(skeleton_id, exact + "_");
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

std::optional<Coherence> CheckCoherence(std::string_view project_root,
                                        std::string_view display_name,
                                        const ServedSkeleton* skeleton) {
  if (skeleton == nullptr) return std::nullopt;
  const std::string expected = SanitizeSlug(ResolveIdentity(project_root, display_name));
  const std::string_view skeleton_id = skeleton->skeleton_id;

  if (!SkeletonCarriesSlug(skeleton_id, expected)) {
    return MismatchOf(expected, skeleton_id,
                      "skeleton_id \"" + std::string(skeleton_id) +
                          "\" does not carry this brain's slug: expected \"sk_" + expected +
                          "\" or \"sk_" + expected + "_...\"");
  }
  const std::string block_prefix = "sb_" + expected + "_";
  for (const std::string& block_id : skeleton->block_ids) {
    if (!StartsWith(block_id, block_prefix)) {
      return MismatchOf(
          expected, skeleton_id,
          "block_id \"" + block_id + "\" does not start with \"" + block_prefix + "\"");
    }
  }
  Coherence verdict;
  verdict.status = CoherenceStatus::kOk;
  verdict.expected_slug = expected;
  verdict.found_slug = expected;
  return verdict;
}

}  // namespace scx
